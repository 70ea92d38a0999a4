//! The names of the source files the code view shows. A [`Source`] names a
//! file and where it lives; what the file holds (its text and its steps) is
//! in [`crate::catalogue`], above the algorithms and models it lists, so this
//! bottom layer knows none of them.

use serde::Serialize;

/// A file holding an algorithm or a chunk policy whose steps are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    BumpDown,
    BumpUpNaive,
    BumpUp,
    Fixed,
    MinAlignUp,
    MinAlignDown,
    Bumper,
    CppArena,
    BumpScope,
    Bumpalo,
    BlinkAlloc,
    LlvmBumpPtr,
    PmrMonotonic,
    ZigArena,
    ZigFixedBuffer,
}

impl Source {
    pub const ALL: [Source; 15] = [
        Source::BumpDown,
        Source::BumpUpNaive,
        Source::BumpUp,
        Source::Fixed,
        Source::BumpScope,
        Source::Bumpalo,
        Source::MinAlignUp,
        Source::MinAlignDown,
        Source::Bumper,
        Source::CppArena,
        Source::BlinkAlloc,
        Source::LlvmBumpPtr,
        Source::PmrMonotonic,
        Source::ZigArena,
        Source::ZigFixedBuffer,
    ];

    /// Path from the repository root.
    pub fn path(self) -> &'static str {
        match self {
            Source::BumpDown => "crates/core/src/algorithms/bump_down.rs",
            Source::BumpUpNaive => "crates/core/src/algorithms/bump_up_naive.rs",
            Source::BumpUp => "crates/core/src/algorithms/bump_up.rs",
            Source::Fixed => "crates/core/src/models/fixed.rs",
            Source::MinAlignUp => "crates/core/src/algorithms/min_align_up.rs",
            Source::MinAlignDown => "crates/core/src/algorithms/min_align_down.rs",
            Source::Bumper => "crates/core/src/models/bumper.rs",
            Source::CppArena => "crates/core/src/models/cpp_arena.rs",
            Source::BumpScope => "crates/core/src/models/bump_scope.rs",
            Source::Bumpalo => "crates/core/src/models/bumpalo.rs",
            Source::BlinkAlloc => "crates/core/src/models/blink_alloc.rs",
            Source::ZigFixedBuffer => "crates/core/src/models/zig_fixed_buffer.rs",
            Source::ZigArena => "crates/core/src/models/zig_arena.rs",
            Source::PmrMonotonic => "crates/core/src/models/pmr_monotonic.rs",
            Source::LlvmBumpPtr => "crates/core/src/models/llvm_bump_ptr.rs",
        }
    }

    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    pub fn parse(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name)
    }
}
