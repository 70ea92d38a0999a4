//! What a recording is made of: the calls an allocator answered, and the
//! op limits a recorder stops at. The recorder logs these and the program
//! writer reads them, so both depend on this module and not on each other.

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
