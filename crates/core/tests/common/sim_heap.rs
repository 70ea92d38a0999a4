//! The simulated heap (`bumplab_core::heap::Heap`) as a real allocator, for
//! the real crates the differential tests run: the same first-fit algorithm
//! hands out the same addresses, and each allocation is backed by real
//! bytes of its own, whose first page starts at the simulated address
//! rounded down to 4096, so the two agree modulo every alignment up to 4096.
//! Nothing backs the gaps between allocations, so the simulated heap's whole
//! span (4 GiB) needs no memory: a 32-bit build (wasm32-wasip1) takes only
//! what its chunks hold.
//!
//! It implements allocator-api2 0.4's `Allocator` (the trait blink-alloc
//! 0.4.0 takes) and keeps the live allocations in request order, which is
//! how the model numbers its chunks.

#![allow(dead_code)]

use std::alloc::Layout as StdLayout;
use std::cell::RefCell;
use std::ptr::NonNull;

use allocator_api2_04::alloc::{AllocError, Allocator, Layout};
use bumplab_core::heap::Heap;
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

/// The alignment of the bytes behind each allocation: the largest
/// alignment a program may ask.
const PAGE: usize = 4096;

/// One allocation the heap handed out and has not taken back.
#[derive(Clone, Copy, Debug)]
pub struct Allocation {
    /// The n-th request to this heap (0 first), as the model numbers chunks.
    pub id: u32,
    /// Its simulated address.
    pub sim: u64,
    pub size: u64,
    /// The real bytes behind it: `layout` from `map`; the block starts
    /// `sim % 4096` bytes in.
    map: usize,
    layout: StdLayout,
}

impl Allocation {
    fn real_start(&self) -> usize {
        self.map + (self.sim % PAGE as u64) as usize
    }
}

struct State {
    heap: Heap<W>,
    live: Vec<Allocation>,
}

pub struct SimHeap {
    state: RefCell<State>,
}

impl Default for SimHeap {
    fn default() -> Self {
        Self::new()
    }
}

impl SimHeap {
    /// A fresh heap.
    pub fn new() -> Self {
        SimHeap {
            state: RefCell::new(State {
                heap: Heap::new(HERE),
                live: Vec::new(),
            }),
        }
    }

    /// The real address of simulated address `sim`, inside (or just past)
    /// a live allocation.
    pub fn real(&self, sim: u64) -> usize {
        let st = self.state.borrow();
        let a = st
            .live
            .iter()
            .find(|a| a.sim <= sim && sim <= a.sim + a.size)
            .unwrap_or_else(|| panic!("{sim:#x} is in no live allocation"));
        a.real_start() + (sim - a.sim) as usize
    }

    /// The simulated address of a real one inside (or just past) a live
    /// allocation, or the real value itself when it is in none (a dangling
    /// pointer). A pointer inside a block wins over one just past another.
    pub fn sim(&self, real: usize) -> u64 {
        let st = self.state.borrow();
        for past in [false, true] {
            for a in &st.live {
                let r = a.real_start();
                let end = r + a.size as usize;
                let hit = if past {
                    real == end
                } else {
                    r <= real && real < end
                };
                if hit {
                    return a.sim + (real - r) as u64;
                }
            }
        }
        real as u64
    }

    /// What is allocated now, oldest request first.
    pub fn live(&self) -> Vec<Allocation> {
        self.state.borrow().live.clone()
    }
}

impl Drop for SimHeap {
    fn drop(&mut self) {
        for a in self.state.borrow_mut().live.drain(..) {
            // SAFETY: allocated in `allocate` with this layout.
            unsafe { std::alloc::dealloc(a.map as *mut u8, a.layout) }
        }
    }
}

unsafe impl Allocator for SimHeap {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let mut st = self.state.borrow_mut();
        let size = W::from_u64(layout.size() as u64).ok_or(AllocError)?;
        let align = W::from_u64(layout.align() as u64).ok_or(AllocError)?;
        let (id, sim) = st.heap.alloc(size, align).ok_or(AllocError)?;
        let sim = sim.to_u64();
        // The simulated heap has room; this process must have the bytes too,
        // or the test cannot say what the real crate does.
        let want = (sim % PAGE as u64) as usize + layout.size();
        let backing = StdLayout::from_size_align(want.max(1), PAGE)
            .unwrap_or_else(|_| panic!("no layout backs {} bytes at {sim:#x}", layout.size()));
        // SAFETY: the layout's size is not zero.
        let map = unsafe { std::alloc::alloc(backing) };
        assert!(
            !map.is_null(),
            "this process cannot back {} bytes at {sim:#x}",
            layout.size()
        );
        let a = Allocation {
            id,
            sim,
            size: layout.size() as u64,
            map: map as usize,
            layout: backing,
        };
        st.live.push(a);
        let ptr = NonNull::new(a.real_start() as *mut u8).ok_or(AllocError)?;
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
        let a = st.live.remove(i);
        // SAFETY: allocated in `allocate` with this layout.
        unsafe { std::alloc::dealloc(a.map as *mut u8, a.layout) };
        st.heap.free(sim as W, layout.size() as W);
    }
}
