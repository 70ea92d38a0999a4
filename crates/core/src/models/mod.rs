//! Allocator models: chunk policies faithful to a reference, built on the
//! bump algorithms.

pub mod blink_alloc;
pub mod bump_scope;
pub mod bumpalo;
pub mod bumper;
pub mod cpp_arena;
pub mod fixed;
pub mod llvm_bump_ptr;
pub mod pmr_monotonic;
pub mod zig_arena;
pub mod zig_fixed_buffer;
pub mod zig_page;
