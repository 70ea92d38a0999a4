//! The real algorithms, called with `NoProbe`: `noprobe_<algo>_<word>`, each
//! compared by bumplab-core's tests/noprobe_codegen.rs with `plain_<algo>_<word>`
//! of the sibling crate (the same source with its probes deleted).
//! `control_recorder_*` calls bump down with a probe that records: the test
//! checks it differs, so a probe that did not compile away would be seen.
#![allow(improper_ctypes_definitions)]

use bumplab_core::algorithms::{bump_down, bump_up, bump_up_naive, min_align_down, min_align_up};
use bumplab_core::probe::{NoProbe, Recorder};

/// The minimum alignment the min-align presets use.
const MIN_ALIGN: u64 = 8;

macro_rules! noprobe {
    ($name:ident, $w:ty, $state:ty) => {
        #[no_mangle]
        #[inline(never)]
        pub extern "C" fn $name(state: &mut $state, size: $w, align: $w) -> Option<$w> {
            <$state>::alloc(state, size, align, &mut NoProbe)
        }
    };
}

noprobe!(noprobe_bump_down_u64, u64, bump_down::BumpDown<u64>);
noprobe!(
    noprobe_bump_up_naive_u64,
    u64,
    bump_up_naive::BumpUpNaive<u64>
);
noprobe!(noprobe_bump_up_u64, u64, bump_up::BumpUp<u64>);
noprobe!(noprobe_min_align_up_u64, u64, min_align_up::MinAlignUp<u64, MIN_ALIGN>);
noprobe!(noprobe_min_align_down_u64, u64, min_align_down::MinAlignDown<u64, MIN_ALIGN>);

noprobe!(noprobe_bump_down_u32, u32, bump_down::BumpDown<u32>);
noprobe!(
    noprobe_bump_up_naive_u32,
    u32,
    bump_up_naive::BumpUpNaive<u32>
);
noprobe!(noprobe_bump_up_u32, u32, bump_up::BumpUp<u32>);
noprobe!(noprobe_min_align_up_u32, u32, min_align_up::MinAlignUp<u32, MIN_ALIGN>);
noprobe!(noprobe_min_align_down_u32, u32, min_align_down::MinAlignDown<u32, MIN_ALIGN>);

macro_rules! recorder {
    ($name:ident, $w:ty) => {
        /// Control: bump down with a probe whose constants are true.
        #[no_mangle]
        #[inline(never)]
        pub extern "C" fn $name(
            state: &mut bump_down::BumpDown<$w>,
            size: $w,
            align: $w,
            recorder: &mut Recorder,
        ) -> Option<$w> {
            state.alloc(size, align, recorder)
        }
    };
}

recorder!(control_recorder_bump_down_u64, u64);
recorder!(control_recorder_bump_down_u32, u32);
