//! Bump down, as in Nick Fitzgerald's "always bump downwards" (2019).
//!
//! The pointer starts at the chunk end and moves towards the start. Two
//! branches: the subtraction can wrap below zero, and the result can fall
//! below the chunk start. Rounding down is a single mask.

use crate::probe;
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;

/// A chunk `[start, end)` bumped downwards; `ptr` is the lowest byte in use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BumpDown<W> {
    pub start: W,
    pub ptr: W,
}

impl<W: Word> BumpDown<W> {
    /// Returns the block's address, or `None` when it does not fit.
    /// `align` must be a power of two.
    #[inline(always)]
    pub fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        let ptr = self.ptr;

        // A size larger than the address itself would wrap below zero.
        let Some(new_ptr) = ptr.checked_sub(size) else {
            // step: checked_sub
            probe!(p, SUB_OVERFLOW, ptr, size);
            return None;
        };
        probe!(p, SUB, ptr, size, new_ptr);

        // Clearing the low bits rounds down; it cannot overflow.
        let new_ptr = new_ptr & !(align - W::ONE); // step: round_down
        probe!(p, ROUND, new_ptr, align);

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
    Source::BumpDown;
    SUB = "checked_sub": "subtract the size from the bump pointer";
    SUB_OVERFLOW = "checked_sub" / "overflow": "subtracting the size wrapped below zero: no room";
    ROUND = "round_down": "round down to the alignment (one mask)";
    CHECK_PASS = "check_start" / "pass": "still at or above the chunk start: fits";
    CHECK_FAIL = "check_start" / "fail": "below the chunk start: does not fit";
    BUMP = "bump": "move the bump pointer down to the block";
}
