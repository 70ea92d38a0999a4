//! One fixed chunk, bumped by one of the seed-000 algorithms.
//!
//! The references define only allocation. The rest is the least a bump
//! allocator can do: `free` reclaims nothing, `realloc` allocates anew and
//! copies, `reset` and `restore` move the bump pointer back.

use crate::algorithms::{ChunkBump, Direction};
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// Usable bytes of the chunk when the user chose none: small enough to read
/// every block on the map.
pub const DEFAULT_CAPACITY: u64 = 256;

#[derive(Clone, Copy, Debug)]
pub struct Fixed<W, A> {
    chunk: ChunkDesc<W>,
    bump: A,
}

impl<W: Word, A: ChunkBump<W>> Fixed<W, A> {
    fn end(&self) -> W {
        self.chunk.start + self.chunk.capacity
    }

    /// Where the bump pointer stands in an empty chunk.
    fn edge(&self) -> W {
        match A::DIRECTION {
            Direction::Up => self.chunk.start,
            Direction::Down => self.end(),
        }
    }
}

impl<W: Word, A: ChunkBump<W>> Model<W> for Fixed<W, A> {
    type Checkpoint = W;

    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let asked = opts.capacity.unwrap_or(DEFAULT_CAPACITY);
        // A minimum-alignment algorithm needs both chunk edges on its
        // alignment: the start from the base allocator, the end by holding
        // whole units of it. For the others CHUNK_ALIGN is 1: nothing changes.
        let chunk_align = A::CHUNK_ALIGN;
        let rounded = asked
            .checked_add(chunk_align - 1)
            .ok_or(AllocError::HeapExhausted)?
            & !(chunk_align - 1);
        let capacity = W::from_u64(rounded).ok_or(AllocError::HeapExhausted)?;
        let align = W::from_u64(chunk_align).ok_or(AllocError::HeapExhausted)?;
        let (id, start) = heap
            .alloc(capacity, align)
            .ok_or(AllocError::HeapExhausted)?;
        if rounded != asked {
            event!(
                p,
                ModelEvent::Note(
                    "capacity rounded up to a multiple of the minimum alignment, so the chunk ends on it too"
                )
            );
        }
        let chunk = ChunkDesc {
            id,
            base: start,
            size: capacity,
            start,
            capacity,
            header: W::ZERO,
            footer: W::ZERO,
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk,
                reason: ChunkReason::First,
                requested: capacity
            }
        );
        Ok(Fixed {
            chunk,
            bump: A::empty(start, start + capacity),
        })
    }

    fn direction(&self) -> Direction {
        A::DIRECTION
    }

    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        _heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        F::result(
            self.bump
                .alloc(layout.size, layout.align, p)
                .ok_or(AllocError::Full),
        )
    }

    fn realloc<P: Probe<W>>(
        &mut self,
        _heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        let Some(new) = self.bump.alloc(new_size, old.align, p) else {
            return Allocated::err(AllocError::Full);
        };
        let copied = old.size.min(new_size); // step: copy
        probe!(p, COPY, addr, new, copied);
        event!(p, ModelEvent::Copied { bytes: copied });
        Allocated::ok(new)
    }

    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        let _ = addr; // step: free
        probe!(p, FREE, addr);
    }

    fn reset<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, p: &mut P) {
        let ptr = self.edge();
        self.bump.set_ptr(ptr); // step: reset
        probe!(p, RESET, ptr);
    }

    fn checkpoint(&self) -> W {
        self.bump.ptr()
    }

    fn restore<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, cp: &W, p: &mut P) {
        let ptr = *cp;
        self.bump.set_ptr(ptr); // step: restore
        probe!(p, RESTORE, ptr);
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        (id == self.chunk.id).then(|| match A::DIRECTION {
            Direction::Up => (self.chunk.start, self.bump.ptr()),
            Direction::Down => (self.bump.ptr(), self.end()),
        })
    }

    fn bump_ptr(&self) -> Option<W> {
        Some(self.bump.ptr())
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::Fixed;
    FREE = "free": "nothing to do: a plain bump allocator cannot reuse a freed block";
    COPY = "copy": "copy the old bytes to the new block";
    RESET = "reset": "move the bump pointer back to the chunk's edge";
    RESTORE = "restore": "move the bump pointer back to the saved one";
}
