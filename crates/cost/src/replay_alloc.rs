//! The module's global allocator: the system allocator (dlmalloc on wasm32),
//! except inside a measured replay call.
//!
//! A model's slow path keeps books in `Vec`s (bumpalo's previous footers, the
//! simulated heap's free list), and a real crate's slow path asks the global
//! allocator for a chunk. Through dlmalloc those calls cost a different
//! number of instructions depending on everything the module allocated
//! before (other traces, JSON strings), so the same op on the same program
//! would show a count that depends on history. Inside a measured call they
//! bump through a region that starts over with every replay pass instead:
//! the same program then costs the same, op by op, every time (a sweep's
//! point equals the run it opens).
//!
//! The baseline (`real::baseline`) does not go through here: it measures
//! dlmalloc itself, history and all.

#[cfg(target_arch = "wasm32")]
mod imp {
    use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};
    use std::alloc::{GlobalAlloc, Layout, System};

    // wasm32 without the atomics feature is single-threaded: these are plain
    // loads and stores.
    static START: AtomicUsize = AtomicUsize::new(0);
    static END: AtomicUsize = AtomicUsize::new(0);
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    static ON: AtomicBool = AtomicBool::new(false);

    struct Replay;

    #[global_allocator]
    static GLOBAL: Replay = Replay;

    fn owns(p: *mut u8) -> bool {
        let a = p as usize;
        a >= START.load(Relaxed) && a < END.load(Relaxed)
    }

    // SAFETY: region blocks are handed out once per pass and never overlap;
    // everything else is the system allocator's.
    unsafe impl GlobalAlloc for Replay {
        unsafe fn alloc(&self, l: Layout) -> *mut u8 {
            if ON.load(Relaxed) {
                let at = (NEXT.load(Relaxed) + l.align() - 1) & !(l.align() - 1);
                if let Some(end) = at.checked_add(l.size()) {
                    if end <= END.load(Relaxed) {
                        NEXT.store(end, Relaxed);
                        return at as *mut u8;
                    }
                }
            }
            // SAFETY: the caller's layout, passed on.
            unsafe { System.alloc(l) }
        }

        unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
            // A region block's bytes come back when the next pass starts over.
            if !owns(p) {
                // SAFETY: it came from the system allocator with this layout.
                unsafe { System.dealloc(p, l) }
            }
        }

        unsafe fn realloc(&self, p: *mut u8, l: Layout, new_size: usize) -> *mut u8 {
            if !owns(p) && !ON.load(Relaxed) {
                // SAFETY: a system block with its layout, as the caller gives it.
                return unsafe { System.realloc(p, l, new_size) };
            }
            // A system block growing inside a measured call (a model's list
            // made before the pass) moves into the region, so its growth is
            // not dlmalloc's either; a region block outside one moves out.
            // SAFETY: the caller guarantees the new layout is valid.
            let new = unsafe { Layout::from_size_align_unchecked(new_size, l.align()) };
            // SAFETY: as above; the copy stays within both blocks, and `p`
            // is given back once.
            unsafe {
                let q = self.alloc(new);
                if !q.is_null() {
                    core::ptr::copy_nonoverlapping(p, q, l.size().min(new_size));
                    self.dealloc(p, l);
                }
                q
            }
        }
    }

    pub fn begin_pass(bytes: usize) {
        debug_assert!(
            !ON.load(Relaxed),
            "a pass does not start inside a measured call"
        );
        let have = END.load(Relaxed) - START.load(Relaxed);
        if have < bytes {
            let Ok(layout) = Layout::from_size_align(bytes, 16) else {
                return;
            };
            if have > 0 {
                // SAFETY: the region came from the system allocator with this size.
                unsafe {
                    System.dealloc(
                        START.load(Relaxed) as *mut u8,
                        Layout::from_size_align_unchecked(have, 16),
                    )
                };
                START.store(0, Relaxed);
                END.store(0, Relaxed);
            }
            // SAFETY: a non-zero size.
            let p = unsafe { System.alloc(layout) } as usize;
            if p == 0 {
                // No region: measured calls use the system allocator.
                NEXT.store(0, Relaxed);
                return;
            }
            START.store(p, Relaxed);
            END.store(p + bytes, Relaxed);
        }
        NEXT.store(START.load(Relaxed), Relaxed);
    }

    pub fn measured<T>(f: impl FnOnce() -> T) -> T {
        ON.store(true, Relaxed);
        let out = f();
        ON.store(false, Relaxed);
        out
    }
}

#[cfg(not(target_arch = "wasm32"))]
mod imp {
    // Natively nothing is metered and the system allocator stays in place.
    pub fn begin_pass(_bytes: usize) {}
    pub fn measured<T>(f: impl FnOnce() -> T) -> T {
        f()
    }
}

/// Starts a replay pass: the region (at least `bytes` long) starts over.
/// Every block a previous pass's measured calls made must be gone by now.
pub use imp::begin_pass;
/// Runs one measured call with its allocations in the region.
pub use imp::measured;

/// Region bytes for a pass over `ops` ops asking for `requested` bytes in all:
/// the models' books and the real crates' chunks (which at most double what
/// is asked, plus their footers), with room to spare.
pub fn pass_bytes(ops: usize, requested: u64) -> usize {
    let want = (1u64 << 20) + 256 * ops as u64 + 4 * requested;
    usize::try_from(want.min(256 << 20)).unwrap_or(256 << 20)
}
