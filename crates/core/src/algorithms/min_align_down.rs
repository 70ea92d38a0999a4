//! Bump down with a minimum alignment: the mirror of the bump-up version
//! (Hinckley 2024, "Alignment", where the same trick is applied to both
//! directions).
//!
//! How the mirror follows from bump up with `MIN_ALIGN`:
//! - Invariant: the bump pointer is always a multiple of `MIN_ALIGN`. Going
//!   up, the block's END is rounded up to keep it so; going down, the block
//!   starts at the pointer after the subtraction, so the SIZE is rounded up
//!   to `MIN_ALIGN` before subtracting. With a known size this rounding is a
//!   constant, as the end rounding is going up.
//! - Alignment: a request aligned to at most `MIN_ALIGN` lands on an aligned
//!   pointer with no work, as going up; above it, going down rounds the new
//!   pointer DOWN to `align` with one mask (the bump-down rounding) where
//!   bump up adds an offset. The branch on `align > MIN_ALIGN` compares
//!   constants once the layout is known.
//! - Checks: bump up needs one compare because `end - ptr` cannot wrap. Going
//!   down, the subtraction itself can wrap below zero, so the 2019 bump-down
//!   guard stays: `ptr < size` fails first. It compares against the size
//!   BEFORE rounding, which is enough: the pointer is a multiple of
//!   `MIN_ALIGN`, so `ptr >= size` implies `ptr >= size rounded up`. Then the
//!   new pointer is compared with the chunk start: 2 branches, as in the
//!   original bump down.
//!
//! This is the shape of the `BumpDown::alloc` in the article's benchmark
//! repository; the chunk's end (where the pointer starts) must be a multiple
//! of `MIN_ALIGN`, which the fixed chunk guarantees.

use crate::probe;
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;

/// A chunk `[start, ptr)` free below the bump pointer; `ptr` (the lowest
/// byte in use) is a multiple of `MIN_ALIGN`, a power of two from 1 to 4096.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinAlignDown<W, const MIN_ALIGN: u64> {
    pub start: W,
    pub ptr: W,
}

impl<W: Word, const MIN_ALIGN: u64> MinAlignDown<W, MIN_ALIGN> {
    /// Refuses, at compile time, a minimum alignment the chunk cannot give.
    const VALID: () = assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= 4096);

    /// `MIN_ALIGN` as a target word: a constant after inlining.
    #[inline(always)]
    fn min_align() -> W {
        let () = Self::VALID;
        W::from_u64(MIN_ALIGN).expect("at most 4096, which fits every target")
    }

    /// Returns the block's address, or `None` when it does not fit.
    /// `align` must be a power of two and `size` must satisfy the `Layout`
    /// bound for it (the engine checks both before calling).
    #[inline(always)]
    pub fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        let min_align = Self::min_align();
        let ptr = self.ptr;

        // ptr is a multiple of MIN_ALIGN, so ptr >= size also covers the size
        // rounded up below: one guard against wrapping suffices.
        if ptr < size {
            // step: check_wrap
            probe!(p, WRAP_FAIL, ptr, size);
            return None;
        }
        probe!(p, WRAP_PASS, ptr, size);

        // Cannot overflow: the Layout bound keeps size within isize::MAX and
        // MIN_ALIGN is at most 4096. A constant when the size is known.
        let rounded = (size + (min_align - W::ONE)) & !(min_align - W::ONE); // step: round_size
        probe!(p, ROUND_SIZE, size, min_align, rounded);

        // Cannot wrap: ptr >= rounded (the guard above).
        let new_ptr = ptr - rounded; // step: sub_size
        probe!(p, SUB, ptr, rounded, new_ptr);

        // At or below MIN_ALIGN new_ptr is already aligned enough: with a
        // known layout this branch is decided at compile time.
        let new_ptr = if align > min_align {
            let new_ptr = new_ptr & !(align - W::ONE); // step: round_down
            probe!(p, ROUND_DOWN, new_ptr, align);
            new_ptr
        } else {
            new_ptr
        };

        let start = self.start;
        if new_ptr < start {
            // step: check_start
            probe!(p, CHECK_FAIL, new_ptr, start);
            return None;
        }
        probe!(p, CHECK_PASS, new_ptr, start);

        self.ptr = new_ptr; // step: bump
        probe!(p, BUMP, new_ptr);
        Some(new_ptr)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::MinAlignDown;
    WRAP_PASS = "check_wrap" / "pass": "the pointer is at least the size: subtracting cannot wrap";
    WRAP_FAIL = "check_wrap" / "overflow": "the size is above the address: subtracting would wrap below zero";
    ROUND_SIZE = "round_size": "round the size up to MIN_ALIGN so the pointer stays aligned";
    SUB = "sub_size": "subtract the rounded size";
    ROUND_DOWN = "round_down": "align is above MIN_ALIGN: round down to it (one mask)";
    CHECK_PASS = "check_start" / "pass": "still at or above the chunk start: fits";
    CHECK_FAIL = "check_start" / "fail": "below the chunk start: does not fit";
    BUMP = "bump": "move the bump pointer down to the block";
}
