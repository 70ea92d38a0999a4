//! `bumplab_record`: records what a program asks of its allocator and writes
//! it as a Bump Lab program (the playground's language of `alloc`, `realloc`,
//! `free`, `reset` and `repeat`), so the same allocations can be replayed on
//! any arena in the playground or with
//! `npx bumplab trace --allocator NAME program.txt`.
//!
//! Three recorders, one writer:
//!
//! * [`Recorded`] wraps an arena (anything whose `&A` is an `allocator-api2`
//!   [`Allocator`](allocator_api2::alloc::Allocator): `bumpalo::Bump`,
//!   `bump_scope::Bump`, the global allocator) and logs every call made
//!   through the trait, plus the resets you make with
//!   [`Recorded::reset_with`].
//! * [`RecordingGlobal`] wraps a `GlobalAlloc`, for a whole Rust program.
//! * The C shim (`shim/bumplab_record.c`, run by the `bumplab-record run`
//!   command) is preloaded into any dynamically linked program on Linux and
//!   logs its `malloc` family, `operator new` and `delete` included.
//!
//! Each logs [`Call`]s by address; [`program::write`] turns a log into the
//! program: blocks named `b<size>_<n>`, frees of blocks allocated before
//! recording began left out and counted in the header, runs that repeat
//! exactly folded into `repeat` blocks ([`fold`]).

mod allocator;
pub mod fold;
mod global;
pub mod program;
mod recorder;
pub mod shim;
pub mod shim_log;

pub use allocator::Recorded;
pub use global::RecordingGlobal;
pub use program::{Options, Program};
pub use recorder::{Call, Recorder, DEFAULT_MAX_OPS, PLAYGROUND_MAX_OPS};
