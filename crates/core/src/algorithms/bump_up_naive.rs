//! Bump up, first version: round up, add, compare (Hinckley 2024, after
//! Fitzgerald 2019). Three branches: both additions are checked, then the
//! end is compared. Rounding up costs one more addition than rounding down.

use crate::probe;
use crate::probe::Probe;
use crate::steps::StepId;
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
            probe!(p, StepId::UpNaiveRoundOverflow, ptr, align);
            return None;
        };
        let aligned = bumped & !(align - W::ONE);
        probe!(p, StepId::UpNaiveRound, ptr, align, aligned);

        let Some(new_ptr) = aligned.checked_add(size) else {
            // step: add_size
            probe!(p, StepId::UpNaiveAddOverflow, aligned, size);
            return None;
        };
        probe!(p, StepId::UpNaiveAdd, aligned, size, new_ptr);

        let end = self.end;
        if new_ptr > end {
            // step: check_end
            probe!(p, StepId::UpNaiveCheckEndFail, new_ptr, end);
            return None;
        }
        probe!(p, StepId::UpNaiveCheckEndPass, new_ptr, end);

        self.ptr = new_ptr; // step: bump
        probe!(p, StepId::UpNaiveBump, new_ptr);
        Some(aligned)
    }
}
