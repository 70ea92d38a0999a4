//! Bump up with one branch (Hinckley 2024).
//!
//! `Layout` guarantees that `size` rounded up to `align` does not exceed
//! `isize::MAX`, so `padding + size` cannot overflow `usize`: the only check
//! left is whether it fits in the room between the pointer and the end.

use crate::probe;
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;

/// A chunk `[start, end)` bumped upwards; `ptr` is the first free byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BumpUp<W> {
    pub ptr: W,
    pub end: W,
}

impl<W: Word> BumpUp<W> {
    /// Returns the block's address, or `None` when it does not fit.
    /// `align` must be a power of two and `size` must satisfy the `Layout`
    /// bound for it (the engine checks both before calling).
    #[inline(always)]
    pub fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        let ptr = self.ptr;

        // Bytes from ptr to the next multiple of align (0 when aligned).
        let padding = W::ZERO.wrapping_sub(ptr) & (align - W::ONE); // step: align_offset
        probe!(p, OFFSET, ptr, align, padding);

        // Cannot overflow: padding < align and the Layout bound caps size.
        let total = padding + size; // step: total_size
        probe!(p, TOTAL, padding, size, total);

        // end >= ptr always holds, so the room is never negative.
        let room = self.end - ptr;
        if total > room {
            // step: check_room
            probe!(p, CHECK_FAIL, total, room);
            return None;
        }
        probe!(p, CHECK_PASS, total, room);

        // total <= end - ptr, so this cannot overflow either.
        let new_ptr = ptr + total; // step: bump
        let aligned = ptr + padding;
        self.ptr = new_ptr;
        probe!(p, BUMP, aligned, new_ptr);
        Some(aligned)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::BumpUp;
    OFFSET = "align_offset": "padding needed to reach the alignment";
    TOTAL = "total_size": "padding plus size (cannot overflow: the Layout bound)";
    CHECK_PASS = "check_room" / "pass": "fits in the room left before the end";
    CHECK_FAIL = "check_room" / "fail": "more than the room left: does not fit";
    BUMP = "bump": "move the bump pointer up past the block";
}
