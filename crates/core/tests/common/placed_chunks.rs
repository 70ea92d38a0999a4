//! A global allocator that puts a real crate's chunks where the simulated
//! heap put the model's, modulo a page, for a crate that takes its chunks
//! from the global allocator and cannot be given another (bumpalo 3).
//!
//! Why: a block aligned above 16 lands at an offset from its chunk's first
//! byte that depends on the chunk's address modulo the alignment; malloc
//! only promises 16. With each real chunk at the model's chunk address
//! modulo 4096 (the largest alignment a program may ask), every offset,
//! and so every later placement, can be compared exactly.
//!
//! A test binary installs [`PlacedChunks`] as its `#[global_allocator]` and
//! wraps every call into the real crate in [`placing`], listing the model's
//! chunk addresses in creation order: the n-th allocation made inside the
//! wrapper gets the n-th address modulo 4096. Everything else (other
//! threads, code outside the wrapper) goes to the system allocator as is.
//! The wrapper must enclose every call that can allocate or free a chunk,
//! the crate's drop included, so a placed chunk is always freed by it.

#![allow(dead_code)]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::RefCell;

/// The largest alignment a program may ask, and what placed chunks agree
/// with the model's modulo.
const PAGE: usize = 4096;
/// Chunks one program may place (more fall back to the system allocator
/// unplaced, which the comparison then shows as a difference).
const MOST: usize = 512;

pub struct PlacedChunks;

/// One placed chunk: the address handed out and the system allocation
/// holding it.
#[derive(Clone, Copy)]
struct Placed {
    given: usize,
    raw: usize,
    raw_size: usize,
}

/// This thread's list: fixed arrays, as the allocator must not allocate.
struct State {
    /// Whether this thread is inside [`placing`].
    active: bool,
    /// The addresses to give, modulo [`PAGE`], and how many were given.
    want: [usize; MOST],
    wanted: usize,
    next: usize,
    held: [Placed; MOST],
    held_len: usize,
}

thread_local! {
    static STATE: RefCell<State> = const {
        RefCell::new(State {
            active: false,
            want: [0; MOST],
            wanted: 0,
            next: 0,
            held: [Placed { given: 0, raw: 0, raw_size: 0 }; MOST],
            held_len: 0,
        })
    };
}

/// Runs `f` with the allocations it makes placed at the addresses
/// [`start_placing`] listed; the count of allocations placed so far carries
/// over from one call to the next.
pub fn placing<R>(f: impl FnOnce() -> R) -> R {
    STATE.with(|s| s.borrow_mut().active = true);
    let r = f();
    STATE.with(|s| s.borrow_mut().active = false);
    r
}

/// The model's chunk addresses for the next real run, in creation order.
pub fn start_placing(addresses: &[u64]) {
    assert!(
        addresses.len() <= MOST,
        "more chunks than this allocator places"
    );
    STATE.with(|s| {
        let mut s = s.borrow_mut();
        for (w, a) in s.want.iter_mut().zip(addresses) {
            *w = (*a % PAGE as u64) as usize;
        }
        s.wanted = addresses.len();
        s.next = 0;
    });
}

/// Chunks placed and not yet freed (0 after a run whose crate was dropped
/// inside [`placing`]).
pub fn placed_now() -> usize {
    STATE.with(|s| s.borrow().held_len)
}

unsafe impl GlobalAlloc for PlacedChunks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            if !s.active || s.next >= s.wanted || s.held_len >= MOST {
                return System.alloc(layout);
            }
            let at = s.want[s.next];
            s.next += 1;
            // The model's heap aligned its chunk as asked, so `at` is
            // aligned too; if not, this is no chunk of the model's: leave it
            // unplaced (the comparison shows the difference).
            if layout.align() > PAGE || at % layout.align() != 0 {
                return System.alloc(layout);
            }
            let raw_size = layout.size() + PAGE;
            let raw = System.alloc(Layout::from_size_align_unchecked(raw_size, PAGE));
            if raw.is_null() {
                return raw;
            }
            let given = raw as usize + at;
            let n = s.held_len;
            s.held[n] = Placed {
                given,
                raw: raw as usize,
                raw_size,
            };
            s.held_len = n + 1;
            given as *mut u8
        })
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        STATE.with(|s| {
            let mut s = s.borrow_mut();
            let n = s.held_len;
            match s.held[..n].iter().position(|p| p.given == ptr as usize) {
                Some(i) => {
                    let p = s.held[i];
                    s.held[i] = s.held[n - 1];
                    s.held_len = n - 1;
                    System.dealloc(
                        p.raw as *mut u8,
                        Layout::from_size_align_unchecked(p.raw_size, PAGE),
                    );
                }
                None => System.dealloc(ptr, layout),
            }
        })
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let plain = STATE.with(|s| {
            let s = s.borrow();
            !s.active && s.held_len == 0
        });
        if plain {
            return System.realloc(ptr, layout, new_size);
        }
        // Allocate, copy and free through the methods above.
        let new = self.alloc(Layout::from_size_align_unchecked(new_size, layout.align()));
        if !new.is_null() {
            std::ptr::copy_nonoverlapping(ptr, new, layout.size().min(new_size));
            self.dealloc(ptr, layout);
        }
        new
    }
}
