//! Bump Lab's allocator core.
//!
//! Pure Rust, no I/O and no wasm-bindgen: the bump algorithms (one file each,
//! generic over the target word and a micro-step probe), the presets built on
//! them, the program language and the trace. The wasm binding crate and the
//! measurement tools sit on top of this crate.

pub mod algorithms;
pub mod catalogue;
pub mod columns;
pub mod engine;
pub mod events;
pub mod heap;
pub mod model;
pub mod models;
pub mod panic_note;
pub mod persistent;
pub mod presets;
pub mod probe;
pub mod program;
pub mod run;
pub mod source;
pub mod steps;
pub mod text;
pub mod trace;
pub mod word;

pub use engine::Options;
pub use presets::PresetId;
pub use program::ProgramError;
pub use run::{run, Run};
pub use trace::Trace;
pub use word::Target;
