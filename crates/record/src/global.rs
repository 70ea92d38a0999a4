//! [`RecordingGlobal`]: a `GlobalAlloc` that forwards to another and logs
//! every call, for recording a whole Rust program.

use std::alloc::{GlobalAlloc, Layout};

use crate::program::Program;
use crate::recorder::{Call, Recorder, DEFAULT_MAX_OPS};

/// What the program's header says recorded it.
const THROUGH: &str = "the Rust GlobalAlloc wrapper";

/// The global allocator `A`, with every call logged. Install it, run, and
/// write the program at the end of `main`:
///
/// ```no_run
/// #[global_allocator]
/// static GLOBAL: bumplab_record::RecordingGlobal<std::alloc::System> = bumplab_record::RecordingGlobal::new(std::alloc::System);
///
/// fn main() {
///     let words: Vec<String> = "a few words".split(' ').map(String::from).collect();
///     drop(words);
///     GLOBAL.write_program("allocations.txt", "the doc example").unwrap();
/// }
/// ```
///
/// The recorder's own bookkeeping allocates through `A` without being
/// logged, so the program holds only the calls the code made.
pub struct RecordingGlobal<A> {
    inner: A,
    recorder: Recorder,
}

impl<A> RecordingGlobal<A> {
    /// Wraps `inner`, stopping at [`DEFAULT_MAX_OPS`](crate::DEFAULT_MAX_OPS) ops.
    pub const fn new(inner: A) -> Self {
        RecordingGlobal {
            inner,
            recorder: Recorder::through(DEFAULT_MAX_OPS, THROUGH),
        }
    }

    /// Wraps `inner`, stopping after `max_ops` calls.
    pub const fn with_max_ops(inner: A, max_ops: u64) -> Self {
        RecordingGlobal {
            inner,
            recorder: Recorder::through(max_ops, THROUGH),
        }
    }

    /// The log, to write the program from (recording stops then).
    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// Stops recording and writes the program to `path`
    /// ([`Recorder::write_program`]).
    pub fn write_program(
        &self,
        path: impl AsRef<std::path::Path>,
        command: &str,
    ) -> std::io::Result<Program> {
        self.recorder.write_program(path, command)
    }
}

// SAFETY: every method forwards to `A` with the same arguments and returns
// its result unchanged. Logging never recurses into `self`: the recorder
// marks its thread as inside while its log grows, and a call made from inside
// goes straight to `A` (`Recorder::around`).
unsafe impl<A: GlobalAlloc> GlobalAlloc for RecordingGlobal<A> {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        self.recorder.around(
            // SAFETY: the caller's contract, passed on.
            || unsafe { self.inner.alloc(layout) },
            |&p| alloc_call(p, layout),
        )
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        self.recorder.around(
            // SAFETY: the caller's contract, passed on.
            || unsafe { self.inner.alloc_zeroed(layout) },
            |&p| alloc_call(p, layout),
        )
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.recorder.around(
            // SAFETY: the caller's contract, passed on.
            || unsafe { self.inner.dealloc(ptr, layout) },
            |_| {
                Some(Call::Free {
                    addr: ptr as usize as u64,
                })
            },
        )
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        self.recorder.around(
            // SAFETY: the caller's contract, passed on.
            || unsafe { self.inner.realloc(ptr, layout, new_size) },
            // A null result is a failure that left the block where it was.
            |&p| {
                (!p.is_null()).then(|| Call::Realloc {
                    old: ptr as usize as u64,
                    new: p as usize as u64,
                    size: new_size as u64,
                    align: layout.align() as u64,
                })
            },
        )
    }
}

fn alloc_call(p: *mut u8, layout: Layout) -> Option<Call> {
    (!p.is_null()).then(|| Call::Alloc {
        addr: p as usize as u64,
        size: layout.size() as u64,
        align: layout.align() as u64,
    })
}
