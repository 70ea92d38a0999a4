//! Bumper.jl's two buffers (the seed 001 document; Bumper 0.5.4 and later,
//! the version whose README the document is).
//!
//! - `AllocBuffer`: one fixed buffer (1 MiB by default) and an offset. The
//!   offset moves by the byte count BEFORE the capacity check, so a request
//!   that does not fit leaves it past the end: the buffer stays overfilled
//!   (every later request fails too) until a reset or a checkpoint restore.
//! - `SlabBuffer`: slabs of a fixed size (1 MiB by default) from `malloc`, no
//!   growth factor. A request that does not fit in the current slab gets a
//!   fresh slab, or, when it is at least half a slab, a "custom slab" of its
//!   own size, while the current slab stays current. A checkpoint saves the
//!   position and how many slabs and custom slabs exist; restoring it frees
//!   every slab and custom slab made since. So a scope opened when the
//!   current slab is full makes and frees a slab on every pass (the pitfall
//!   the README warns about); the simulated malloc hands the same address
//!   back each time.
//!
//! Bumper asks only for a byte count (`alloc!` passes element count times
//! element size to `alloc_ptr!`): neither buffer aligns anything, and a
//! block lands wherever the previous one ended. Bumper has no `free` and no
//! `realloc`; the models make `free` reclaim nothing and `realloc` allocate
//! and copy, and say so. All bookkeeping (the slab lists) lives outside the
//! slabs: no header or footer bytes.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// `AllocBuffer()`'s size: 1 MiB.
pub const DEFAULT_BUFFER_SIZE: u64 = 1_048_576;
/// `SlabBuffer()`'s slab size: 1 MiB.
pub const DEFAULT_SLAB_SIZE: u64 = 1_048_576;

const NO_ALIGN: &str = "Bumper does not align: the block starts where the previous one ended, so this request's alignment is not met";
const NO_FREE: &str =
    "Bumper has no free: the bytes come back only with a checkpoint restore or a reset";
const NO_REALLOC: &str =
    "Bumper has no realloc: a new block is allocated and the bytes copied; the old one stays";

/// Notes, when the probe records events, a block Bumper placed without
/// honouring its alignment.
#[inline(always)]
fn note_alignment<W: Word, P: Probe<W>>(addr: W, align: W, p: &mut P) {
    if P::EVENTS && addr & (align - W::ONE) != W::ZERO {
        event!(p, ModelEvent::Note(NO_ALIGN));
    }
}

/// Both buffers end a request alike: the block is where the position stood
/// before it moved.
#[inline(always)]
fn hand_out<W: Word, P: Probe<W>>(addr: W, align: W, p: &mut P) -> W {
    probe!(p, HAND_OUT, addr);
    note_alignment(addr, align, p);
    addr // step: bump
}

/// Bumper has no realloc: both buffers allocate anew and copy, and the old
/// block stays until a restore or reset.
fn realloc_by_copy<W: Word, P: Probe<W>>(
    alloc: impl FnOnce(Layout<W>, &mut P) -> Result<W, AllocError>,
    addr: W,
    old: Layout<W>,
    new_size: W,
    p: &mut P,
) -> Allocated<W> {
    event!(p, ModelEvent::Note(NO_REALLOC));
    let layout = Layout {
        size: new_size,
        align: old.align,
    };
    let new = match alloc(layout, p) {
        Ok(new) => new,
        Err(e) => return Allocated::err(e),
    };
    let copied = old.size.min(new_size); // step: copy
    probe!(p, COPY, addr, new, copied);
    event!(p, ModelEvent::Copied { bytes: copied });
    Allocated::ok(new)
}

/// Bumper has no free: a block's bytes stay until a restore or reset.
fn free_nothing<W: Word, P: Probe<W>>(addr: W, p: &mut P) {
    let _ = addr; // step: free
    probe!(p, FREE, addr);
    event!(p, ModelEvent::Note(NO_FREE));
}

/// A chunk from the base allocator as Bumper uses it: all of it usable.
fn plain_chunk<W: Word>(heap: &mut Heap<W>, size: W) -> Result<ChunkDesc<W>, AllocError> {
    // `malloc` (and Julia's array allocation) give 16-byte alignment and
    // nothing more is asked for.
    let (id, start) = heap.alloc(size, W::ONE).ok_or(AllocError::HeapExhausted)?;
    Ok(ChunkDesc {
        id,
        base: start,
        size,
        start,
        capacity: size,
        header: W::ZERO,
        footer: W::ZERO,
    })
}

fn capacity_option<W: Word>(opts: &ModelOptions, default: u64) -> Result<W, AllocError> {
    W::from_u64(opts.capacity.unwrap_or(default)).ok_or(AllocError::HeapExhausted)
}

/// Bumper's `AllocBuffer`: one fixed buffer and an offset into it.
#[derive(Clone, Copy, Debug)]
pub struct AllocBuffer<W> {
    chunk: ChunkDesc<W>,
    /// Bytes handed out so far; past `chunk.capacity` after a failed request.
    offset: W,
}

impl<W: Word> AllocBuffer<W> {
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        _heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let size = layout.size;
        let offset = self.offset;
        // Computed before the check, like the reference; only returned if it passes.
        let ptr = self.chunk.start.wrapping_add(offset); // step: position
        probe!(p, POSITION, ptr, offset);

        // Cannot wrap: the offset is at most one byte past the end (see
        // oom_slow) and the Layout bound keeps size within isize::MAX.
        let new_offset = offset.wrapping_add(size); // step: advance
        self.offset = new_offset;
        probe!(p, ADVANCE, offset, size, new_offset);

        let capacity = self.chunk.capacity;
        if new_offset > capacity {
            // step: check_offset
            probe!(p, OFFSET_FAIL, new_offset, capacity);
            return Err(self.oom_slow(p));
        }
        probe!(p, OFFSET_PASS, new_offset, capacity);

        Ok(hand_out(ptr, layout.align, p))
    }

    /// Bumper's `oom_error`: out of line, as the reference keeps it.
    #[cold]
    #[inline(never)]
    fn oom_slow<P: Probe<W>>(&mut self, p: &mut P) -> AllocError {
        event!(
            p,
            ModelEvent::Note("the offset moved before the check and stays past the end: every request fails until a reset or restore")
        );
        // Any offset past the end fails every later request alike, so the
        // model keeps it one byte past: otherwise enough huge failed requests
        // would wrap Julia's UInt around to a small offset, and the buffer
        // would hand out a pointer outside itself.
        self.offset = self.chunk.capacity + W::ONE;
        AllocError::Full
    }

    /// The offset as far as the buffer goes: what is in use.
    fn used_offset(&self) -> W {
        self.offset.min(self.chunk.capacity)
    }
}

impl<W: Word> Model<W> for AllocBuffer<W> {
    type Checkpoint = W;

    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let size = capacity_option(opts, DEFAULT_BUFFER_SIZE)?;
        let chunk = plain_chunk(heap, size)?;
        event!(
            p,
            ModelEvent::NewChunk {
                chunk,
                reason: ChunkReason::First,
                requested: size
            }
        );
        Ok(AllocBuffer {
            chunk,
            offset: W::ZERO,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        F::result(self.allocate(heap, layout, p))
    }

    #[inline(always)]
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        realloc_by_copy(|l, p| self.allocate(heap, l, p), addr, old, new_size, p)
    }

    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        free_nothing(addr, p);
    }

    /// `reset_buffer!`.
    fn reset<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, p: &mut P) {
        let offset = W::ZERO;
        self.offset = offset; // step: reset
        probe!(p, RESET, offset);
    }

    /// `checkpoint_save`.
    fn checkpoint(&self) -> W {
        self.offset
    }

    /// `checkpoint_restore!`.
    fn restore<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, cp: &W, p: &mut P) {
        let offset = *cp;
        self.offset = offset; // step: restore
        probe!(p, RESTORE, offset);
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        (id == self.chunk.id).then(|| (self.chunk.start, self.chunk.start + self.used_offset()))
    }

    /// Past a failed request the offset is beyond the buffer; the pointer
    /// shown stops at the buffer's end.
    fn bump_ptr(&self) -> Option<W> {
        Some(self.chunk.start + self.used_offset())
    }
}

/// A slab and, once a later slab took over, where its position stopped.
#[derive(Clone, Copy, Debug)]
struct Slab<W> {
    chunk: ChunkDesc<W>,
    /// Where the position stood when the slab stopped being current. Bumper
    /// does not keep it (those bytes are simply abandoned); the model keeps
    /// it to show which bytes the slab holds.
    stop: W,
}

/// Bumper's `SlabBuffer`.
#[derive(Clone, Debug)]
pub struct SlabBuffer<W> {
    /// The position in the current (last) slab.
    current: W,
    slab_end: W,
    /// `SlabSize`, a type parameter in Bumper: constant per buffer.
    slab_size: W,
    slabs: Vec<Slab<W>>,
    custom_slabs: Vec<ChunkDesc<W>>,
}

/// `SlabCheckpoint`: the position and how many slabs of each kind exist.
#[derive(Clone, Copy, Debug)]
pub struct SlabCheckpoint<W> {
    current: W,
    slab_end: W,
    slabs: usize,
    custom_slabs: usize,
}

impl<W: Word> SlabBuffer<W> {
    /// `alloc_ptr!`.
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        let size = layout.size;
        let ptr = self.current;
        // Julia adds without a check. With 64-bit words the sum cannot wrap
        // (simulated addresses stay below 2^33, sizes below 2^63); with 32-bit
        // words it can, and a wrapped end would pass the check and hand out
        // bytes no slab owns, so there the model counts it as past the slab.
        // The branch is on a constant.
        let next = if W::BITS == 64 {
            // step: next
            ptr.wrapping_add(size)
        } else {
            ptr.checked_add(size).unwrap_or(W::MAX)
        };
        probe!(p, NEXT, ptr, size, next);

        let slab_end = self.slab_end;
        if next > slab_end {
            // step: check_slab_end
            probe!(p, SLAB_FAIL, next, slab_end);
            return self.add_new_slab_slow(heap, layout, p);
        }
        probe!(p, SLAB_PASS, next, slab_end);

        self.current = next; // step: slab_bump
        probe!(p, SLAB_BUMP, ptr, next);
        Allocated::ok(hand_out(ptr, layout.align, p))
    }

    /// `add_new_slab!`: out of line in the reference too.
    /// One word back (see [`Allocated`]), so the inlined fast path needs no
    /// stack slot for a returned `Result`.
    #[cold]
    #[inline(never)]
    fn add_new_slab_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        self.add_new_slab(heap, layout, p).into()
    }

    #[inline(always)]
    fn add_new_slab<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let size = layout.size;
        // SlabSize ÷ 2 is a compile-time constant in Bumper.
        let half = W::from_u64(self.slab_size.to_u64() / 2).unwrap_or(W::MAX);
        if size >= half {
            // step: slab_kind
            probe!(p, CUSTOM, size, half);
            // malloc(size); the current slab stays current.
            let chunk = plain_chunk(heap, size)?;
            self.custom_slabs.push(chunk);
            event!(
                p,
                ModelEvent::NewChunk {
                    chunk,
                    reason: ChunkReason::CustomSlab,
                    requested: size
                }
            );
            note_alignment(chunk.start, layout.align, p);
            return Ok(chunk.start);
        }
        probe!(p, NEW_SLAB, size, half);

        let chunk = plain_chunk(heap, self.slab_size)?;
        if let Some(last) = self.slabs.last_mut() {
            last.stop = self.current;
        }
        self.slabs.push(Slab {
            chunk,
            stop: chunk.start,
        });
        event!(
            p,
            ModelEvent::NewChunk {
                chunk,
                reason: ChunkReason::Slab,
                requested: size
            }
        );
        let addr = chunk.start;
        // size < half a slab, so this stays inside the fresh slab.
        let current = addr + size; // step: new_slab_bump
        self.current = current;
        self.slab_end = addr + self.slab_size;
        probe!(p, NEW_SLAB_BUMP, addr, current);
        Ok(hand_out(addr, layout.align, p))
    }

    /// Frees slabs from index `keep` on, and custom slabs from `keep_custom`.
    #[cold]
    #[inline(never)]
    fn free_slabs_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        keep: usize,
        keep_custom: usize,
        p: &mut P,
    ) {
        for slab in self.slabs.drain(keep..) {
            let c = slab.chunk;
            let base = c.base;
            heap.free(base, c.size); // step: free_slab
            probe!(p, FREE_SLAB, base);
            event!(p, ModelEvent::ChunkFreed { id: c.id });
        }
        for c in self.custom_slabs.drain(keep_custom..) {
            let base = c.base;
            heap.free(base, c.size); // step: free_custom
            probe!(p, FREE_CUSTOM, base);
            event!(p, ModelEvent::ChunkFreed { id: c.id });
        }
    }

    fn note_current_again<P: Probe<W>>(&self, before: usize, p: &mut P) {
        if self.slabs.len() < before {
            if let Some(last) = self.slabs.last() {
                event!(p, ModelEvent::ChunkReused { id: last.chunk.id });
            }
        }
    }
}

impl<W: Word> Model<W> for SlabBuffer<W> {
    type Checkpoint = SlabCheckpoint<W>;

    /// `SlabBuffer{SlabSize}()` mallocs its first slab at once.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let slab_size = capacity_option(opts, DEFAULT_SLAB_SIZE)?;
        let chunk = plain_chunk(heap, slab_size)?;
        event!(
            p,
            ModelEvent::NewChunk {
                chunk,
                reason: ChunkReason::First,
                requested: slab_size
            }
        );
        Ok(SlabBuffer {
            current: chunk.start,
            slab_end: chunk.start + slab_size,
            slab_size,
            slabs: vec![Slab {
                chunk,
                stop: chunk.start,
            }],
            custom_slabs: Vec::new(),
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `alloc_ptr!`.
    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        F::allocated(self.allocate(heap, layout, p))
    }

    #[inline(always)]
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        realloc_by_copy(
            |l, p| self.allocate(heap, l, p).result(),
            addr,
            old,
            new_size,
            p,
        )
    }

    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        free_nothing(addr, p);
    }

    /// `reset_buffer!`: keeps the first slab only and frees every custom slab.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        let before = self.slabs.len();
        self.free_slabs_slow(heap, 1, 0, p);
        let Some(first) = self.slabs.first() else {
            return;
        };
        let current = first.chunk.start;
        self.current = current; // step: slab_reset
        self.slab_end = current + self.slab_size;
        probe!(p, SLAB_RESET, current);
        self.note_current_again(before, p);
    }

    /// `checkpoint_save`.
    fn checkpoint(&self) -> SlabCheckpoint<W> {
        SlabCheckpoint {
            current: self.current,
            slab_end: self.slab_end,
            slabs: self.slabs.len(),
            custom_slabs: self.custom_slabs.len(),
        }
    }

    /// `checkpoint_restore!`.
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &SlabCheckpoint<W>, p: &mut P) {
        let before = self.slabs.len();
        if self.slabs.len() > cp.slabs || self.custom_slabs.len() > cp.custom_slabs {
            let keep_custom = cp.custom_slabs.min(self.custom_slabs.len());
            self.free_slabs_slow(heap, cp.slabs.min(before), keep_custom, p);
        }
        // A checkpoint saved before a reset would point into a freed slab; the
        // engine drops those, and the model ignores one if it gets it.
        if self.slabs.len() != cp.slabs {
            return;
        }
        let current = cp.current;
        self.current = current; // step: slab_restore
        self.slab_end = cp.slab_end;
        probe!(p, SLAB_RESTORE, current);
        self.note_current_again(before, p);
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        let n = self.slabs.len();
        if let Some(i) = self.slabs.iter().position(|s| s.chunk.id == id) {
            let s = &self.slabs[i];
            let hi = if i + 1 == n { self.current } else { s.stop };
            return Some((s.chunk.start, hi));
        }
        self.custom_slabs
            .iter()
            .find(|c| c.id == id)
            .map(|c| (c.start, c.start + c.capacity))
    }

    fn bump_ptr(&self) -> Option<W> {
        Some(self.current)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::Bumper;
    POSITION = "position": "the block starts at the current position, aligned or not";
    ADVANCE = "advance": "move the offset by the byte count, before any check";
    OFFSET_PASS = "check_offset" / "pass": "the offset is still within the buffer";
    OFFSET_FAIL = "check_offset" / "fail": "the offset passed the end: out of memory, and it stays past the end";
    HAND_OUT = "bump": "hand out the position the request started from";
    NEXT = "next": "where the block would end in this slab";
    SLAB_PASS = "check_slab_end" / "pass": "ends within the slab: fits";
    SLAB_FAIL = "check_slab_end" / "fail": "ends past the slab: does not fit";
    SLAB_BUMP = "slab_bump": "move the position up past the block";
    CUSTOM = "slab_kind" / "custom": "at least half a slab: it gets a custom slab of its own size";
    NEW_SLAB = "slab_kind" / "slab": "less than half a slab: start a fresh slab";
    NEW_SLAB_BUMP = "new_slab_bump": "the block opens the fresh slab; the position moves past it";
    FREE = "free": "nothing to do: Bumper has no free";
    COPY = "copy": "copy the old bytes to the new block";
    RESET = "reset": "move the position back to the start";
    SLAB_RESET = "slab_reset": "back to the start of the first slab";
    RESTORE = "restore": "move the offset back to the saved one";
    SLAB_RESTORE = "slab_restore": "back to the saved position and slab end";
    FREE_SLAB = "free_slab": "free a slab made since the checkpoint";
    FREE_CUSTOM = "free_custom": "free a custom slab made since the checkpoint";
}
