//! The catalogue of the files the code view shows: each one's text, embedded
//! at build time, and the micro-steps it declares. These are exactly the
//! files that are compiled, stepped and measured, so the code view shows the
//! code that ran.

use crate::source::Source;
use crate::steps::StepId;

/// The text of `source`, as compiled.
pub fn text(source: Source) -> &'static str {
    match source {
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

/// Every step declared in `source` (checked against its markers by a test).
pub fn steps(source: Source) -> &'static [StepId] {
    match source {
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
