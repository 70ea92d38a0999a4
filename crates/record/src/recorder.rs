//! The log both Rust wrappers write into: every call the wrapped allocator
//! answered, by address, in the order the allocator answered them.
//!
//! Why a log of addresses and not of names: the C shim can only see
//! addresses, and naming blocks well needs the whole run (a name is free again
//! only once its block is gone). So every recorder logs [`Call`]s, and one
//! place, [`crate::program`], turns a log into a program.

use std::cell::Cell;
use std::sync::{Mutex, MutexGuard};

use crate::program::{self, Options, Program};

/// One call the wrapped allocator answered. Addresses are the real ones the
/// allocator returned; they only serve to match a free or realloc to its
/// block, and never reach the program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Call {
    /// A new block of `size` bytes at `addr`. `align` is the alignment asked
    /// for; 0 means "whatever `malloc` guarantees", which the program writer
    /// resolves from the size (see [`Options::malloc_align`]).
    Alloc { addr: u64, size: u64, align: u64 },
    /// The block at `old` now has `size` bytes at `new`. `old` 0 is C's
    /// `realloc(NULL, n)`; `new` 0 with `size` 0 is C's `realloc(p, 0)`,
    /// which frees `p`, and with any other size a realloc that failed.
    /// `align` is the alignment asked for the new block; 0 keeps the old
    /// block's, as C's `realloc` does.
    Realloc {
        old: u64,
        new: u64,
        size: u64,
        align: u64,
    },
    /// The block at `addr` was freed.
    Free { addr: u64 },
    /// The arena let go of every block at once.
    Reset,
}

/// The most ops the playground runs (repeats expanded; bumplab-core's
/// `MAX_EXECUTED_OPS`): a longer recording does not open there.
pub const PLAYGROUND_MAX_OPS: u64 = 1_500_000;

/// The op limit every recorder stops at unless told otherwise: a million
/// ops of a real program's recording (about 25 bytes an op) fit the
/// playground's 32 MB of program text, which [`PLAYGROUND_MAX_OPS`] would not.
pub const DEFAULT_MAX_OPS: u64 = 1_000_000;

thread_local! {
    /// Set while this thread is inside a recorder: the log's own allocations
    /// (its `Vec` growing) must not be recorded, by this recorder or by a
    /// [`RecordingGlobal`](crate::RecordingGlobal) underneath it, and must not
    /// take the lock this thread already holds.
    static INSIDE: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is inside a recorder right now. A thread being torn
/// down no longer has the flag: it counts as inside, so nothing is recorded.
pub(crate) fn inside() -> bool {
    INSIDE.try_with(Cell::get).unwrap_or(true)
}

/// Marks this thread as inside a recorder until dropped.
struct Inside;

impl Inside {
    fn enter() -> Inside {
        let _ = INSIDE.try_with(|c| c.set(true));
        Inside
    }
}

impl Drop for Inside {
    fn drop(&mut self) {
        let _ = INSIDE.try_with(|c| c.set(false));
    }
}

struct Log {
    calls: Vec<Call>,
    max_ops: u64,
    /// Recording stopped: at the op limit, or because the program was taken.
    stopped: bool,
    /// The op limit cut the recording short.
    hit_limit: bool,
}

/// A thread-safe log of [`Call`]s with an op limit. Wrap an allocator with
/// [`Recorded`](crate::Recorded) or the global allocator with
/// [`RecordingGlobal`](crate::RecordingGlobal), run the code, then write the
/// program with [`Recorder::write_program`].
pub struct Recorder {
    log: Mutex<Log>,
    /// Which wrapper logs into it, for the program's header.
    through: &'static str,
}

impl Default for Recorder {
    fn default() -> Self {
        Recorder::new()
    }
}

impl Recorder {
    /// A recorder that stops at [`DEFAULT_MAX_OPS`] ops.
    pub const fn new() -> Recorder {
        Recorder::with_max_ops(DEFAULT_MAX_OPS)
    }

    /// A recorder that stops after `max_ops` calls, saying so on stderr once.
    pub const fn with_max_ops(max_ops: u64) -> Recorder {
        Recorder::through(max_ops, "the Rust Allocator wrapper")
    }

    /// A recorder the wrapper named `through` logs into.
    pub(crate) const fn through(max_ops: u64, through: &'static str) -> Recorder {
        Recorder {
            log: Mutex::new(Log {
                calls: Vec::new(),
                max_ops,
                stopped: false,
                hit_limit: false,
            }),
            through,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Log> {
        // Nothing panics while the lock is held except the wrapped allocator
        // itself; its call did not happen, so the log is still whole.
        self.log.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs `call` (the wrapped allocator doing its work) with the log
    /// locked, then logs what `logged` makes of its result. Holding the lock
    /// across the call keeps the log in the allocator's own order: another
    /// thread cannot be handed an address this call frees before this free is
    /// logged.
    pub(crate) fn around<R>(
        &self,
        call: impl FnOnce() -> R,
        logged: impl FnOnce(&R) -> Option<Call>,
    ) -> R {
        if inside() {
            return call();
        }
        let _inside = Inside::enter();
        let mut log = self.lock();
        let r = call();
        if let Some(c) = logged(&r) {
            log.push(c);
        }
        r
    }

    /// Stops recording and writes the calls so far as a program. `command`
    /// says in the program's header what ran (a command line, or a sentence).
    pub fn program(&self, command: &str) -> Program {
        self.program_with(command, Vec::new())
    }

    /// [`Recorder::program`] with more header lines (`notes`), such as which
    /// input the run read.
    pub fn program_with(&self, command: &str, notes: Vec<String>) -> Program {
        let _inside = Inside::enter();
        let mut log = self.lock();
        log.stopped = true;
        let opts = Options {
            command: command.to_string(),
            recorder: self.through.to_string(),
            notes,
            max_ops: log.max_ops,
            hit_limit: log.hit_limit,
            ..Options::default()
        };
        program::write(&log.calls, &opts)
    }

    /// [`Recorder::program`], written to `path`. On success, prints one line
    /// on stderr saying how many ops went where (and another if the text is
    /// too large for the playground), and returns the program.
    pub fn write_program(
        &self,
        path: impl AsRef<std::path::Path>,
        command: &str,
    ) -> std::io::Result<Program> {
        let program = self.program(command);
        let _inside = Inside::enter();
        std::fs::write(path.as_ref(), &program.text)?;
        eprintln!(
            "bumplab-record: {} to {}",
            program.summary(),
            path.as_ref().display()
        );
        if let Some(why) = program.too_large() {
            eprintln!("bumplab-record: {why} (Recorder::with_max_ops)");
        }
        Ok(program)
    }

    /// How many calls are logged so far.
    pub fn len(&self) -> usize {
        let _inside = Inside::enter();
        self.lock().calls.len()
    }

    /// Whether nothing is logged yet.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Log {
    fn push(&mut self, c: Call) {
        if self.stopped {
            return;
        }
        if self.calls.len() as u64 >= self.max_ops {
            self.stopped = true;
            self.hit_limit = true;
            eprintln!(
                "bumplab-record: stopped recording at the op limit of {} calls (Recorder::with_max_ops); the program keeps the first {}, the rest of the run goes unrecorded",
                self.max_ops, self.max_ops
            );
            return;
        }
        self.calls.push(c);
    }
}
