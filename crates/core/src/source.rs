//! The source files the code view shows: exactly the files that are compiled,
//! stepped and measured, embedded at build time.

use serde::Serialize;

use crate::steps::StepId;

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

    pub fn text(self) -> &'static str {
        match self {
            Source::BumpDown => include_str!("algorithms/bump_down.rs"),
            Source::BumpUpNaive => include_str!("algorithms/bump_up_naive.rs"),
            Source::BumpUp => include_str!("algorithms/bump_up.rs"),
            Source::Fixed => include_str!("models/fixed.rs"),
            Source::MinAlignUp => include_str!("algorithms/min_align_up.rs"),
            Source::MinAlignDown => include_str!("algorithms/min_align_down.rs"),
            Source::Bumper => include_str!("models/bumper.rs"),
            Source::CppArena => include_str!("models/cpp_arena.rs"),
            Source::BumpScope => include_str!("models/bump_scope.rs"),
            Source::Bumpalo => include_str!("models/bumpalo.rs"),
            Source::BlinkAlloc => include_str!("models/blink_alloc.rs"),
            Source::ZigFixedBuffer => include_str!("models/zig_fixed_buffer.rs"),
            Source::ZigArena => include_str!("models/zig_arena.rs"),
            Source::PmrMonotonic => include_str!("models/pmr_monotonic.rs"),
            Source::LlvmBumpPtr => include_str!("models/llvm_bump_ptr.rs"),
        }
    }

    /// Every step declared in this file (checked against its markers by a test).
    pub fn steps(self) -> &'static [StepId] {
        match self {
            Source::BumpDown => crate::algorithms::bump_down::STEPS,
            Source::BumpUpNaive => crate::algorithms::bump_up_naive::STEPS,
            Source::BumpUp => crate::algorithms::bump_up::STEPS,
            Source::Fixed => crate::models::fixed::STEPS,
            Source::MinAlignUp => crate::algorithms::min_align_up::STEPS,
            Source::MinAlignDown => crate::algorithms::min_align_down::STEPS,
            Source::Bumper => crate::models::bumper::STEPS,
            Source::CppArena => crate::models::cpp_arena::STEPS,
            Source::BumpScope => crate::models::bump_scope::STEPS,
            Source::Bumpalo => crate::models::bumpalo::STEPS,
            Source::BlinkAlloc => crate::models::blink_alloc::STEPS,
            Source::ZigFixedBuffer => crate::models::zig_fixed_buffer::STEPS,
            Source::ZigArena => crate::models::zig_arena::STEPS,
            Source::PmrMonotonic => crate::models::pmr_monotonic::STEPS,
            Source::LlvmBumpPtr => crate::models::llvm_bump_ptr::STEPS,
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
