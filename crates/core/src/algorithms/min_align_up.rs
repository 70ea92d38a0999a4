//! Bump up with a minimum alignment (Hinckley 2024, "Alignment").
//!
//! Every block's size is rounded up to `MIN_ALIGN`, so the bump pointer is
//! always a multiple of `MIN_ALIGN`. A request aligned to at most
//! `MIN_ALIGN` (at word alignment: almost every request) is then already
//! aligned and needs no runtime alignment work: the `align > MIN_ALIGN`
//! branch compares constants once the caller's layout is known, so the
//! optimiser drops it and the offset becomes the constant 0. When the size is
//! known too, the rounding of the block's end is a constant as well, and a
//! `u64` on a 64-bit target costs one compare and one add.
//!
//! The only check is `available >= size`, and it leaves out the bytes that
//! round the block's end. That is enough because both chunk edges are
//! multiples of `MIN_ALIGN` (the fixed chunk starts on `MIN_ALIGN` and holds
//! whole units of it): `available` is then a multiple of `MIN_ALIGN` too, and
//! a multiple of `MIN_ALIGN` at least `size` is at least `size` rounded up.
//! Any padding in front is a multiple of `MIN_ALIGN` as well (the pointer is
//! aligned to `MIN_ALIGN` and the block to `align`, a larger power of two).

use crate::probe;
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;

/// A chunk `[ptr, end)` bumped upwards, both edges multiples of `MIN_ALIGN`
/// (a power of two from 1 to 4096); `ptr` is the first free byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MinAlignUp<W, const MIN_ALIGN: u64> {
    pub ptr: W,
    pub end: W,
}

impl<W: Word, const MIN_ALIGN: u64> MinAlignUp<W, MIN_ALIGN> {
    /// Refuses, at compile time, a minimum alignment the chunk cannot give.
    const VALID: () = assert!(MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= 4096);

    /// `MIN_ALIGN` as a target word: a constant after inlining.
    #[inline(always)]
    fn min_align() -> W {
        let () = Self::VALID;
        W::from_u64(MIN_ALIGN).expect("at most 4096, which fits every target")
    }

    /// Bytes from `addr` up to the next multiple of `align` (0 when it is one).
    #[inline(always)]
    fn align_offset(addr: W, align: W) -> W {
        align.wrapping_sub(addr) & (align - W::ONE)
    }

    /// Returns the block's address, or `None` when it does not fit.
    /// `align` must be a power of two and `size` must satisfy the `Layout`
    /// bound for it (the engine checks both before calling).
    #[inline(always)]
    pub fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        let min_align = Self::min_align();
        let ptr = self.ptr;

        // At or below MIN_ALIGN the pointer is already aligned enough: with a
        // known layout this branch is decided at compile time.
        let align_offset = if align > min_align {
            let align_offset = Self::align_offset(ptr, align); // step: align_offset
            probe!(p, OFFSET, ptr, align, align_offset);
            align_offset
        } else {
            W::ZERO
        };

        // Cannot overflow: align_offset < align, and the Layout bound keeps
        // size + (align - 1) within isize::MAX.
        let total = size + align_offset; // step: total_size
        probe!(p, TOTAL, size, align_offset, total);

        // ptr never passes end (see the module comment), so no wrap.
        let available = self.end - ptr;
        if available >= total {
            // step: check_room
            probe!(p, CHECK_PASS, total, available);
            // Constant when the size is known; below MIN_ALIGN, and the round
            // trip stays inside the chunk because available is a multiple of
            // MIN_ALIGN (the module comment).
            let end_offset = Self::align_offset(size, min_align); // step: end_offset
            probe!(p, END_OFFSET, size, min_align, end_offset);
            let aligned_size = total + end_offset;
            let result = ptr + align_offset;
            let new_ptr = ptr + aligned_size; // step: bump
            self.ptr = new_ptr;
            probe!(p, BUMP, result, new_ptr);
            Some(result)
        } else {
            probe!(p, CHECK_FAIL, total, available);
            None
        }
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::MinAlignUp;
    OFFSET = "align_offset": "align is above MIN_ALIGN: padding needed to reach it";
    TOTAL = "total_size": "size plus padding (cannot overflow: the Layout bound)";
    CHECK_PASS = "check_room" / "pass": "the bytes left before the end cover it: fits";
    CHECK_FAIL = "check_room" / "fail": "fewer bytes left than it needs: does not fit";
    END_OFFSET = "end_offset": "round the block's end up to MIN_ALIGN so the pointer stays aligned";
    BUMP = "bump": "move the bump pointer up past the block";
}
