//! The interface between the engine and an allocator model.
//!
//! A model is a chunk policy plus the bump algorithm it uses: it sees only
//! addresses and layouts, as a real allocator does, and gets chunks from the
//! simulated base allocator ([`Heap`]). The engine keeps names, block states
//! and statistics; the model keeps what the real allocator keeps.

use serde::Serialize;

use crate::algorithms::Direction;
use crate::heap::Heap;
use crate::probe::Probe;
use crate::word::Word;

/// Size and alignment of a request; `align` is a power of two and the pair
/// satisfies `Layout::from_size_align` on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout<W> {
    pub size: W,
    pub align: W,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AllocError {
    /// A fixed buffer is full and the model does not grow.
    Full,
    /// The simulated base allocator has no room for the chunk.
    HeapExhausted,
    /// The C++ arena's `std::align` failed and it threw `std::bad_alloc`.
    BadAlloc,
}

/// Why a chunk was created.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChunkReason {
    /// The allocator's first (or only) chunk.
    First,
    /// The current chunk had no room.
    Full,
    /// The request was larger than a normal next chunk.
    Oversized,
    /// A fixed-size slab.
    Slab,
    /// A request too big for a slab got its own.
    CustomSlab,
}

/// A chunk as the base allocator handed it out and the model laid it out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkDesc<W> {
    pub id: u32,
    /// Address the base allocator returned.
    pub base: W,
    /// Bytes obtained from the base allocator.
    pub size: W,
    /// First usable byte.
    pub start: W,
    /// Usable bytes.
    pub capacity: W,
    /// Metadata bytes before `start` (a header).
    pub header: W,
    /// Metadata bytes after `start + capacity` (a footer).
    pub footer: W,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ModelEvent<W> {
    NewChunk {
        chunk: ChunkDesc<W>,
        reason: ChunkReason,
        /// The request that needed it.
        requested: W,
    },
    /// The chunk went back to the base allocator.
    ChunkFreed { id: u32 },
    /// A chunk kept from earlier became current again.
    ChunkReused { id: u32 },
    /// Bytes copied by a realloc.
    Copied { bytes: W },
    /// A behaviour of the reference worth pointing out.
    Note(&'static str),
}

impl<W: Word> ModelEvent<W> {
    pub fn widen(self) -> ModelEvent<u64> {
        match self {
            ModelEvent::NewChunk {
                chunk: c,
                reason,
                requested,
            } => ModelEvent::NewChunk {
                chunk: ChunkDesc {
                    id: c.id,
                    base: c.base.to_u64(),
                    size: c.size.to_u64(),
                    start: c.start.to_u64(),
                    capacity: c.capacity.to_u64(),
                    header: c.header.to_u64(),
                    footer: c.footer.to_u64(),
                },
                reason,
                requested: requested.to_u64(),
            },
            ModelEvent::ChunkFreed { id } => ModelEvent::ChunkFreed { id },
            ModelEvent::ChunkReused { id } => ModelEvent::ChunkReused { id },
            ModelEvent::Copied { bytes } => ModelEvent::Copied {
                bytes: bytes.to_u64(),
            },
            ModelEvent::Note(s) => ModelEvent::Note(s),
        }
    }
}

/// Settings every model may read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelOptions {
    /// The size the user chose for the model's sizing knob: the usable bytes
    /// of a fixed chunk, a fixed buffer, a slab or the first pool. `None`
    /// means the reference's default. Models that have no such knob ignore it.
    pub capacity: Option<u64>,
}

/// An allocator model: what the engine steps, and what the measured exports call.
pub trait Model<W: Word>: Clone + Sized + 'static {
    /// What `checkpoint` saves and `restore` needs.
    type Checkpoint: Clone + 'static;

    /// Builds the allocator as its constructor does (creating a first chunk
    /// where the real one does so eagerly).
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError>;
    fn direction(&self) -> Direction;
    fn alloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError>;
    /// Grows or shrinks the block at `addr` to `new_size`, keeping its
    /// alignment; returns its address afterwards.
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Result<W, AllocError>;
    fn free<P: Probe<W>>(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P);
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P);
    fn checkpoint(&self) -> Self::Checkpoint;
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &Self::Checkpoint, p: &mut P);
    /// The bytes in use in chunk `id`, `[lo, hi)`, or `None` once it is freed.
    fn used(&self, id: u32) -> Option<(W, W)>;
    /// The current chunk's bump pointer, if there is a current chunk.
    fn bump_ptr(&self) -> Option<W>;
}
