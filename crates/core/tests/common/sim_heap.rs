//! The simulated heap (`bumplab_core::heap::Heap`) as a real allocator, for
//! the real crates the differential tests run: the same first-fit algorithm
//! hands out the same addresses, over a real buffer aligned to a page, so a
//! simulated address `a` is the real byte `buffer + (a - HEAP_BASE)` and
//! both agree modulo every alignment up to 4096.
//!
//! It implements allocator-api2 0.4's `Allocator` (the trait blink-alloc
//! 0.4.0 takes) and keeps the live allocations in request order, which is
//! how the model numbers its chunks.

#![allow(dead_code)]

use std::alloc::Layout as StdLayout;
use std::cell::RefCell;
use std::ptr::NonNull;

use allocator_api2_04::alloc::{AllocError, Allocator, Layout};
use bumplab_core::heap::{Heap, HEAP_BASE};
use bumplab_core::word::Word as _;
use bumplab_core::Target;

#[cfg(target_pointer_width = "64")]
type W = u64;
#[cfg(target_pointer_width = "32")]
type W = u32;

#[cfg(target_pointer_width = "64")]
const HERE: Target = Target::W64;
#[cfg(target_pointer_width = "32")]
const HERE: Target = Target::Wasm32;

/// The alignment of the buffer: the largest alignment a program may ask.
const BUFFER_ALIGN: usize = 4096;

/// One allocation the heap handed out and has not taken back.
#[derive(Clone, Copy, Debug)]
pub struct Allocation {
    /// The n-th request to this heap (0 first), as the model numbers chunks.
    pub id: u32,
    /// Its simulated address.
    pub sim: u64,
    pub size: u64,
}

struct State {
    heap: Heap<W>,
    live: Vec<Allocation>,
}

pub struct SimHeap {
    buffer: NonNull<u8>,
    len: usize,
    state: RefCell<State>,
}

impl SimHeap {
    /// A fresh heap over a buffer of `len` bytes.
    pub fn new(len: usize) -> Self {
        let layout = StdLayout::from_size_align(len, BUFFER_ALIGN).expect("a valid buffer layout");
        // SAFETY: the layout's size is not zero.
        let buffer = NonNull::new(unsafe { std::alloc::alloc(layout) }).expect("the buffer");
        SimHeap {
            buffer,
            len,
            state: RefCell::new(State {
                heap: Heap::new(HERE),
                live: Vec::new(),
            }),
        }
    }

    /// The real address of simulated address `sim`.
    pub fn real(&self, sim: u64) -> usize {
        self.buffer.as_ptr() as usize + (sim - HEAP_BASE) as usize
    }

    /// The simulated address of a real one inside the buffer, or the real
    /// value itself when it is outside (a dangling pointer).
    pub fn sim(&self, real: usize) -> u64 {
        let base = self.buffer.as_ptr() as usize;
        if (base..base + self.len).contains(&real) {
            (real - base) as u64 + HEAP_BASE
        } else {
            real as u64
        }
    }

    /// What is allocated now, oldest request first.
    pub fn live(&self) -> Vec<Allocation> {
        self.state.borrow().live.clone()
    }
}

impl Drop for SimHeap {
    fn drop(&mut self) {
        let layout = StdLayout::from_size_align(self.len, BUFFER_ALIGN).expect("as made");
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.buffer.as_ptr(), layout) }
    }
}

unsafe impl Allocator for SimHeap {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let mut st = self.state.borrow_mut();
        let size = layout.size() as W;
        let (id, sim) = st.heap.alloc(size, layout.align() as W).ok_or(AllocError)?;
        let sim = sim.to_u64();
        if sim - HEAP_BASE + layout.size() as u64 > self.len as u64 {
            // Give it back so the heap and the buffer stay in step.
            st.heap.free(sim as W, size);
            return Err(AllocError);
        }
        st.live.push(Allocation {
            id,
            sim,
            size: layout.size() as u64,
        });
        let ptr = NonNull::new(self.real(sim) as *mut u8).ok_or(AllocError)?;
        Ok(NonNull::slice_from_raw_parts(ptr, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        let sim = self.sim(ptr.as_ptr() as usize);
        let mut st = self.state.borrow_mut();
        let i = st
            .live
            .iter()
            .position(|a| a.sim == sim)
            .expect("freeing an allocation of this heap");
        assert_eq!(
            st.live[i].size,
            layout.size() as u64,
            "freed with the size it was allocated with"
        );
        st.live.remove(i);
        st.heap.free(sim as W, layout.size() as W);
    }
}
