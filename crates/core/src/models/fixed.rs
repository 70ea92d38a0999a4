//! One fixed chunk, bumped by one of the seed-000 algorithms.
//!
//! The references list only allocation. `realloc` follows what Hinckley's
//! post says of it rather than any listing, for the last block (the one
//! whose bytes border the free space). Bumping up, it keeps its address and
//! only the bump pointer moves (the realloc fast path: no byte is copied),
//! when the chunk has room for the new size. Bumping down,
//! the free space is below the block, so it is bumped again from its own
//! end and its bytes are moved to the new start over the old ones (bumpalo's
//! trick: no space is wasted, but every byte is copied). Any other block is
//! allocated anew and copied, its old bytes left behind. The rest is the
//! least a bump allocator can do: `free` reclaims nothing, `reset` and
//! `restore` move the bump pointer back.

use crate::algorithms::{ChunkBump, Direction};
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::{word, Word};
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

    #[inline(always)]
    fn realloc<P: Probe<W>>(
        &mut self,
        _heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        let ptr = self.bump.ptr();
        // Where the block's bytes end as the algorithm reserved them: a
        // minimum-alignment algorithm rounds every size up to CHUNK_ALIGN
        // (for the others it is 1, and this is the block's last byte + 1).
        // Cannot overflow: the rounded end is at most the chunk's end, which
        // is a multiple of CHUNK_ALIGN.
        let chunk_align = word::<W>(A::CHUNK_ALIGN);
        let unrounded = addr + old.size;
        let end = unrounded + (chunk_align.wrapping_sub(unrounded) & (chunk_align - W::ONE));
        // The last block ends at the bump pointer bumping up and starts at
        // it bumping down: only its bytes lie between it and the free space.
        let edge = match A::DIRECTION {
            Direction::Up => end,
            Direction::Down => addr,
        };
        let last = edge == ptr; // step: is_last
        if !last {
            probe!(p, IS_LAST_NO, edge, ptr);
            let Some(new) = self.bump.alloc(new_size, old.align, p) else {
                return Allocated::err(AllocError::Full);
            };
            let copied = old.size.min(new_size); // step: copy
            probe!(p, COPY, addr, new, copied);
            event!(p, ModelEvent::Copied { bytes: copied });
            return Allocated::ok(new);
        }
        probe!(p, IS_LAST_YES, edge, ptr);

        if A::DIRECTION == Direction::Up {
            // The block starts aligned and the free space follows its end:
            // of an allocation only the room check and the pointer move are
            // left (the realloc fast path). The block lies in the chunk, so
            // the room cannot wrap.
            let room = self.end() - addr;
            if new_size > room {
                // step: room
                probe!(p, ROOM_FAIL, new_size, room);
                return Allocated::err(AllocError::Full);
            }
            probe!(p, ROOM_PASS, new_size, room);
            // new_size <= room, so no overflow; rounding up to CHUNK_ALIGN
            // stays at or below the chunk's end, a multiple of it.
            let new_end = addr + new_size;
            let new_ptr = new_end + (chunk_align.wrapping_sub(new_end) & (chunk_align - W::ONE));
            self.bump.set_ptr(new_ptr); // step: resize_in_place
            probe!(p, RESIZE_IN_PLACE, addr, new_ptr);
            return Allocated::ok(addr);
        }

        // Bumping down the free space is below the block: give its bytes
        // back by moving the pointer to its end, then bump for the new size
        // with the algorithm itself, as an allocation would.
        self.bump.set_ptr(end); // step: rewind
        probe!(p, REWIND, end);
        let Some(new) = self.bump.alloc(new_size, old.align, p) else {
            // The block's own bytes plus the free space cannot hold the new
            // size, so no other place in the chunk can either.
            self.bump.set_ptr(ptr); // step: no_room
            probe!(p, NO_ROOM, ptr);
            return Allocated::err(AllocError::Full);
        };
        // A shrink by less than the alignment, or to the same size, lands
        // the block where it was.
        if new == addr {
            // step: in_place
            probe!(p, IN_PLACE, new);
            return Allocated::ok(new);
        }
        // The new block overlaps the old one (lower when it grew, higher
        // when it shrank), so the copy is a memmove.
        let copied = old.size.min(new_size); // step: copy_within
        probe!(p, COPY_WITHIN, addr, new, copied);
        event!(p, ModelEvent::Copied { bytes: copied });
        Allocated::ok(new)
    }

    #[inline(always)]
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
    IS_LAST_YES = "is_last" / "yes": "the last block: its bytes border the free space, so they can be bumped again";
    IS_LAST_NO = "is_last" / "no": "not the last block: allocate a new one and copy";
    COPY = "copy": "copy the old bytes to the new block; the old ones stay behind until a reset";
    ROOM_PASS = "room" / "pass": "the bytes from the block's start to the chunk's end hold the new size";
    ROOM_FAIL = "room" / "fail": "the new size runs past the chunk's end, and no other place in it has more room";
    RESIZE_IN_PLACE = "resize_in_place": "the block keeps its address, the bump pointer moves to its new end; no byte is copied";
    REWIND = "rewind": "give the block's bytes back: the bump pointer moves up to the block's end";
    NO_ROOM = "no_room": "no room for the new size even with the block's bytes: the pointer goes back, the block is kept";
    IN_PLACE = "in_place": "bumped again, the block lands where it was; no byte is copied";
    COPY_WITHIN = "copy_within": "move the bytes to the new start over the old ones (a memmove: down to grow, up to shrink)";
    RESET = "reset": "move the bump pointer back to the chunk's edge";
    RESTORE = "restore": "move the bump pointer back to the saved one";
}
