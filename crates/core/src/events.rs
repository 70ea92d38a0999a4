//! What a model reports as it runs, besides its micro-steps: chunks made,
//! freed and reused, bytes copied, and notes on the reference's behaviour.
//!
//! This is the bottom layer: probes carry these events and the trace records
//! them, so they know nothing of the models that send them.

use serde::Serialize;

use crate::word::Word;

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
