//! Zig 0.17.1's `std.heap.FixedBufferAllocator` (lib/std/heap/
//! FixedBufferAllocator.zig in PyPI's `ziglang` wheel), driven through
//! `std.mem.Allocator` (`alloc`, `realloc`, `free`) and `reset`: bump UP
//! through one buffer it never grows.
//!
//! * The allocator is a buffer slice and `end_index`. A request rounds the
//!   address at `end_index` up to its alignment (`alignPointerOffset`) and
//!   fails when it would pass the buffer's end; nothing else is tried.
//! * `resize` (and so `realloc`'s in-place path) and `free` work on the last
//!   allocation only; a smaller size for any other block is accepted in
//!   place and gives nothing back.
//! * `reset` sets `end_index` to 0. Saving `end_index` and storing it back
//!   later is how Zig code scopes a fixed buffer (the field is public):
//!   that is the checkpoint and restore here.
//! * The buffer is `capacity` bytes from the base allocator (4096 unless the
//!   Capacity knob says otherwise: the allocator takes any buffer), aligned
//!   to 16 as a heap allocation is.
//! * A zero-sized request never reaches the allocator: `std.mem.Allocator`
//!   hands out `maxInt(usize)` rounded down to the alignment, which the
//!   trace shows at the alignment (see zig_arena.rs).

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::models::zig_arena::{dangling, DANGLING_NOTE};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// The buffer's size when the Capacity knob is not set.
pub const DEFAULT_BUFFER_SIZE: u64 = 4096;
/// The buffer's alignment: what a heap allocation gets.
pub const BUFFER_ALIGN: u64 = 16;

/// `FixedBufferAllocator`: its buffer and `end_index`.
#[derive(Clone, Copy, Debug)]
pub struct ZigFixedBuffer<W> {
    buffer: ChunkDesc<W>,
    end_index: W,
}

impl<W: Word> ZigFixedBuffer<W> {
    /// `alloc`: the block at `end_index` rounded up, if it fits.
    #[inline(always)]
    fn alloc_bytes<P: Probe<W>>(&mut self, layout: Layout<W>, p: &mut P) -> Result<W, AllocError> {
        let (n, align) = (layout.size, layout.align);
        let buf = self.buffer.start;
        let end_index = self.end_index;
        let at = buf + end_index;
        // `alignPointerOffset`: null when rounding up overflows.
        let Some(up) = at.checked_add(align - W::ONE) else {
            // step: adjust
            probe!(p, ADJUST_OVERFLOW, at, align);
            return Err(AllocError::Full);
        };
        let adjust = (up & !(align - W::ONE)) - at;
        probe!(p, ADJUST, at, align, adjust);
        // end_index <= len and adjust < align: no overflow.
        let adjusted = end_index + adjust;
        let new_end = adjusted.checked_add(n).unwrap_or(W::MAX); // step: new_end
        probe!(p, NEW_END, adjusted, n, new_end);
        let len = self.buffer.capacity;
        if new_end > len {
            // step: fits
            probe!(p, FITS_FAIL, new_end, len);
            // Zig returns null right here: no cold path to call.
            event!(p, ModelEvent::Note("the buffer is full: FixedBufferAllocator never grows, the request fails with error.OutOfMemory"));
            return Err(AllocError::Full);
        }
        probe!(p, FITS_PASS, new_end, len);
        self.end_index = new_end; // step: bump
        probe!(p, BUMP, adjusted, new_end);
        Ok(buf + adjusted)
    }

    /// `isLastAllocation`: the block ends at `end_index`.
    fn is_last(&self, addr: W, len: W) -> bool {
        self.buffer.start + self.end_index == addr + len
    }

    /// `resize`.
    fn resize<P: Probe<W>>(&mut self, addr: W, old_len: W, new_len: W, p: &mut P) -> bool {
        let end_index = self.end_index;
        if !self.is_last(addr, old_len) {
            // step: resize_last
            probe!(p, RESIZE_NOT_LAST, addr, end_index);
            return new_len <= old_len;
        }
        probe!(p, RESIZE_LAST, addr, end_index);
        if new_len <= old_len {
            let new_end = end_index - (old_len - new_len);
            self.end_index = new_end; // step: resize_shrink
            probe!(p, RESIZE_SHRINK, new_end);
            return true;
        }
        let add = new_len - old_len;
        let len = self.buffer.capacity;
        // end_index <= len, so only the sum can pass it.
        let Some(new_end) = end_index.checked_add(add).filter(|&e| e <= len) else {
            // step: resize_grow
            probe!(p, RESIZE_NO_ROOM, add, len);
            return false;
        };
        probe!(p, RESIZE_GROW, add, new_end);
        self.end_index = new_end;
        true
    }

    /// `free`: only the last allocation's bytes come back.
    fn free_bytes<P: Probe<W>>(&mut self, addr: W, len: W, p: &mut P) {
        let end_index = self.end_index;
        if !self.is_last(addr, len) {
            // step: free_last
            probe!(p, FREE_NOT_LAST, addr, end_index);
            return;
        }
        probe!(p, FREE_LAST, addr, end_index);
        let new_end = end_index - len;
        self.end_index = new_end; // step: free
        probe!(p, FREE, new_end);
    }
}

impl<W: Word> Model<W> for ZigFixedBuffer<W> {
    type Checkpoint = W;

    /// `FixedBufferAllocator.init(buffer)`, the buffer from the base allocator.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let len = opts.capacity.unwrap_or(DEFAULT_BUFFER_SIZE);
        let len = W::from_u64(len).ok_or(AllocError::HeapExhausted)?;
        let align = W::from_u64(BUFFER_ALIGN).ok_or(AllocError::HeapExhausted)?;
        let (id, base) = heap.alloc(len, align).ok_or(AllocError::HeapExhausted)?;
        let buffer = ChunkDesc {
            id,
            base,
            size: len,
            start: base,
            capacity: len,
            header: W::ZERO,
            footer: W::ZERO,
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: buffer,
                reason: ChunkReason::First,
                requested: len,
            }
        );
        Ok(ZigFixedBuffer {
            buffer,
            end_index: W::ZERO,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `allocator.alignedAlloc(u8, alignment, n)`.
    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        _heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        if layout.size == W::ZERO {
            let addr = dangling(layout.align); // step: zero_size
            probe!(p, ZERO_SIZE, addr);
            event!(p, ModelEvent::Note(DANGLING_NOTE));
            return F::ok(addr);
        }
        F::result(self.alloc_bytes(layout, p))
    }

    /// `allocator.realloc(old, new_len)`, as for the arena.
    #[inline(always)]
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        let new = Layout {
            size: new_size,
            align: old.align,
        };
        if old.size == W::ZERO {
            // step: realloc_from_zero
            probe!(p, REALLOC_FROM_ZERO, new_size);
            return self.alloc(heap, new, p);
        }
        if new_size == W::ZERO {
            // step: realloc_to_zero
            probe!(p, REALLOC_TO_ZERO, addr);
            self.free_bytes(addr, old.size, p);
            event!(p, ModelEvent::Note(DANGLING_NOTE));
            return Allocated::ok(dangling(old.align));
        }
        if self.resize(addr, old.size, new_size, p) {
            return Allocated::ok(addr);
        }
        let got: Allocated<W> = self.alloc_bytes(new, p).into();
        if let Ok(new_addr) = got.result() {
            let bytes = old.size.min(new_size); // step: copy
            probe!(p, COPY, addr, new_addr, bytes);
            event!(p, ModelEvent::Copied { bytes });
            self.free_bytes(addr, old.size, p);
        }
        got
    }

    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P) {
        if layout.size != W::ZERO {
            self.free_bytes(addr, layout.size, p);
        }
    }

    /// `reset`.
    fn reset<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, p: &mut P) {
        let end_index = W::ZERO;
        self.end_index = end_index; // step: reset
        probe!(p, RESET, end_index);
    }

    /// `const saved = fba.end_index;`
    fn checkpoint(&self) -> W {
        self.end_index
    }

    /// `fba.end_index = saved;`
    fn restore<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, cp: &W, p: &mut P) {
        let end_index = *cp;
        self.end_index = end_index; // step: restore
        probe!(p, RESTORE, end_index);
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        (id == self.buffer.id).then(|| (self.buffer.start, self.buffer.start + self.end_index))
    }

    fn bump_ptr(&self) -> Option<W> {
        Some(self.buffer.start + self.end_index)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::ZigFixedBuffer;
    ZERO_SIZE = "zero_size": "size 0: std.mem.Allocator hands out a dangling pointer (maxInt(usize) rounded down to the alignment, shown at the alignment)";
    ADJUST = "adjust": "alignPointerOffset: padding from end_index's address up to the alignment";
    ADJUST_OVERFLOW = "adjust" / "overflow": "rounding the address up overflowed: no room";
    NEW_END = "new_end": "where the block would end";
    FITS_PASS = "fits" / "pass": "the block ends within the buffer";
    FITS_FAIL = "fits" / "fail": "past the buffer's end: error.OutOfMemory";
    BUMP = "bump": "end_index moves to the block's end";
    RESIZE_LAST = "resize_last" / "yes": "the block ends at end_index: it can change size";
    RESIZE_NOT_LAST = "resize_last" / "no": "not the last allocation: only a smaller size is accepted, in place";
    RESIZE_SHRINK = "resize_shrink": "smaller: end_index moves back";
    RESIZE_GROW = "resize_grow" / "pass": "larger, and the buffer has the room: end_index moves on";
    RESIZE_NO_ROOM = "resize_grow" / "fail": "larger than the room left: realloc allocates anew and copies";
    REALLOC_FROM_ZERO = "realloc_from_zero": "the old block is empty: a plain allocation";
    REALLOC_TO_ZERO = "realloc_to_zero": "to size 0: free the old block, hand out the zero-size pointer";
    COPY = "copy": "copy the old bytes to the new block, then free the old one";
    FREE_LAST = "free_last" / "yes": "the block ends at end_index: its bytes come back";
    FREE_NOT_LAST = "free_last" / "no": "not the last allocation: nothing happens";
    FREE = "free": "end_index moves back to the block's start";
    RESET = "reset": "end_index back to 0";
    RESTORE = "restore": "end_index back to the saved one";
}
