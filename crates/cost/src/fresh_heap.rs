//! A fresh dlmalloc heap for every baseline pass.
//!
//! The baseline shows what the same allocations cost through Rust's
//! general-purpose allocator (dlmalloc on wasm32). Through the module's own
//! heap that cost depends on everything the module allocated before (other
//! traces, JSON strings): the same program showed 77 instructions for its
//! first op once and 282 the next time. Each pass instead starts a new
//! dlmalloc, the same algorithm std uses on wasm32, over pages of a region
//! that starts over every pass: what malloc costs in a program that has
//! just started, the same every time and in the CLI and the page alike.

use core::cell::{Cell, RefCell};
use std::alloc::Layout;

pub use dlmalloc::Dlmalloc;

/// wasm's page size, which is what dlmalloc asks its system for on wasm32.
const PAGE: usize = 64 * 1024;

/// The "system" of a pass's dlmalloc: pages of a region, handed out in order
/// and never returned (the whole region is reused by the next pass).
pub struct Pages {
    next: Cell<usize>,
    end: usize,
}

// SAFETY: a `Pages` is used by the one dlmalloc of one pass, on one thread;
// `Send` is what dlmalloc's trait asks for, and nothing here is shared.
unsafe impl Send for Pages {}

// SAFETY: regions handed out never overlap and stay valid for the pass
// (the region outlives the dlmalloc, see `with_fresh_dlmalloc`).
unsafe impl dlmalloc::Allocator for Pages {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let size = size.next_multiple_of(PAGE);
        let at = self.next.get();
        match at.checked_add(size) {
            Some(end) if end <= self.end => {
                self.next.set(end);
                (at as *mut u8, size, 0)
            }
            _ => (core::ptr::null_mut(), 0, 0),
        }
    }
    fn remap(&self, _ptr: *mut u8, _old: usize, _new: usize, _can_move: bool) -> *mut u8 {
        core::ptr::null_mut()
    }
    fn free_part(&self, _ptr: *mut u8, _old: usize, _new: usize) -> bool {
        false
    }
    fn free(&self, _ptr: *mut u8, _size: usize) -> bool {
        false
    }
    fn can_release_part(&self, _flags: u32) -> bool {
        false
    }
    fn allocates_zeros(&self) -> bool {
        // The region is reused from pass to pass.
        false
    }
    fn page_size(&self) -> usize {
        PAGE
    }
}

thread_local! {
    /// The region passes reuse: (start, bytes).
    static REGION: RefCell<Option<(usize, usize)>> = const { RefCell::new(None) };
}

/// Runs `f` with a new dlmalloc over a region of at least `bytes`; `None`
/// if no region that large can be had.
pub fn with_fresh_dlmalloc<T>(
    bytes: usize,
    f: impl FnOnce(&mut Dlmalloc<Pages>) -> T,
) -> Option<T> {
    let bytes = bytes.max(PAGE).next_multiple_of(PAGE);
    let (start, len) = REGION.with(|r| {
        let mut r = r.borrow_mut();
        match *r {
            Some((start, len)) if len >= bytes => Some((start, len)),
            old => {
                if let Some((start, len)) = old {
                    // SAFETY: the region came from `alloc` with this layout.
                    unsafe {
                        std::alloc::dealloc(
                            start as *mut u8,
                            Layout::from_size_align(len, PAGE).ok()?,
                        )
                    };
                    *r = None;
                }
                let layout = Layout::from_size_align(bytes, PAGE).ok()?;
                // SAFETY: a non-zero size.
                let p = unsafe { std::alloc::alloc(layout) } as usize;
                if p == 0 {
                    return None;
                }
                *r = Some((p, bytes));
                Some((p, bytes))
            }
        }
    })?;
    let mut heap = Dlmalloc::new_with_allocator(Pages {
        next: Cell::new(start),
        end: start + len,
    });
    // The heap (and every block in it) is dropped before the next pass
    // starts over on the same pages.
    Some(f(&mut heap))
}
