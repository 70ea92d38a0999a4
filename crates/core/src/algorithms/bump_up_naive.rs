//! Bump up, first version: round up, add, compare (Hinckley 2024, after
//! Fitzgerald 2019). Three branches: both additions are checked, then the
//! end is compared. Rounding up costs one more addition than rounding down.

use crate::probe;
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;

/// A chunk `[start, end)` bumped upwards; `ptr` is the first free byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BumpUpNaive<W> {
    pub ptr: W,
    pub end: W,
}

impl<W: Word> BumpUpNaive<W> {
    /// Returns the block's address, or `None` when it does not fit.
    /// `align` must be a power of two.
    #[inline(always)]
    pub fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        let ptr = self.ptr;

        // Rounding up adds align - 1 first, which can wrap past the top.
        let Some(bumped) = ptr.checked_add(align - W::ONE) else {
            // step: round_up
            probe!(p, ROUND_OVERFLOW, ptr, align);
            return None;
        };
        let aligned = bumped & !(align - W::ONE);
        probe!(p, ROUND, ptr, align, aligned);

        let Some(new_ptr) = aligned.checked_add(size) else {
            // step: add_size
            probe!(p, ADD_OVERFLOW, aligned, size);
            return None;
        };
        probe!(p, ADD, aligned, size, new_ptr);

        let end = self.end;
        if new_ptr > end {
            // step: check_end
            probe!(p, CHECK_FAIL, new_ptr, end);
            return None;
        }
        probe!(p, CHECK_PASS, new_ptr, end);

        self.ptr = new_ptr; // step: bump
        probe!(p, BUMP, new_ptr);
        Some(aligned)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::BumpUpNaive;
    ROUND = "round_up": "round the bump pointer up to the alignment (checked add, mask)";
    ROUND_OVERFLOW = "round_up" / "overflow": "rounding up wrapped past the top: no room";
    ADD = "add_size": "add the size (checked)";
    ADD_OVERFLOW = "add_size" / "overflow": "adding the size wrapped past the top: no room";
    CHECK_PASS = "check_end" / "pass": "new pointer within the chunk end: fits";
    CHECK_FAIL = "check_end" / "fail": "new pointer past the chunk end: does not fit";
    BUMP = "bump": "move the bump pointer up past the block";
}
