//! Allocator models: chunk policies faithful to a reference, built on the
//! bump algorithms.

pub mod fixed;
