//! libstdc++'s `std::pmr::monotonic_buffer_resource` (GCC 12: the
//! `<memory_resource>` header for the fast path, `_M_new_buffer` and
//! `_Chunk` in libstdc++.so, observed through the upstream resource): bump
//! UP through buffers, each with a small record at its END.
//!
//! * The resource keeps `_M_current_buf` and `_M_avail` (the next free byte
//!   and how many are left) and `_M_next_bufsiz`, the size of the next
//!   buffer: 128 pointers (1024 bytes on 64-bit) by default, or the
//!   `initial_size` given to the constructor (the Capacity knob).
//! * `do_allocate` turns a zero-sized request into a one-byte one and asks
//!   `std::align` for room in the current buffer. When that fails, the rest
//!   of the buffer is abandoned: a new one is asked of the upstream
//!   resource, however many bytes the old one still had.
//! * A new buffer holds at least the request and at least `_M_next_bufsiz`,
//!   plus the record (`_Chunk`: its size with log2 of its alignment in the
//!   low bits, and the link to the previous buffer; two words), the whole
//!   rounded up to 64 bytes and aligned to the request's alignment (at
//!   least 16). Then `_M_next_bufsiz` grows by 1.5 computed in `float`, so
//!   above 2^24 it is rounded to what a float holds.
//! * `do_deallocate` does nothing. `release()` gives every buffer back,
//!   newest first, and starts over: no buffer, `_M_next_bufsiz` back to
//!   the initial size.
//!
//! The resource has no realloc and no checkpoints: realloc allocates and
//! copies (what a container does), reset is `release()`, and
//! `checkpoint`/`restore` are the playground's emulation; each says so.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::{word, Word};
use crate::{event, probe};

/// `_S_init_bufsize`: 128 pointers.
pub const INIT_BUFSIZE_WORDS: u64 = 128;
/// `_S_growth_factor`, a `float`.
pub const GROWTH_FACTOR: f32 = 1.5;
/// Buffer sizes (record included) are rounded up to this.
pub const SIZE_GRANULE: u64 = 64;
/// `alignof(std::max_align_t)`: the least alignment a buffer is asked for.
pub const MIN_BUFFER_ALIGN: u64 = 16;
/// The record at each buffer's end: size-and-alignment, link.
pub const RECORD_WORDS: u64 = 2;

/// A buffer and, once a newer one took over, where its free bytes began.
#[derive(Clone, Copy, Debug)]
struct Buffer<W> {
    desc: ChunkDesc<W>,
    stop: W,
}

/// `monotonic_buffer_resource` with an upstream resource and no initial buffer.
#[derive(Clone, Debug)]
pub struct PmrMonotonic<W> {
    /// `_M_current_buf` (0: none).
    current: W,
    /// `_M_avail`.
    avail: W,
    /// `_M_next_bufsiz`.
    next_bufsiz: W,
    /// `_M_orig_size`: what `release()` puts back in `_M_next_bufsiz`.
    orig_size: W,
    /// The `_M_head` list, oldest first; the last holds `_M_current_buf`.
    buffers: Vec<Buffer<W>>,
}

/// What the playground's emulated checkpoint saves.
#[derive(Clone, Copy, Debug)]
pub struct PmrCheckpoint<W> {
    buffers: usize,
    current: W,
    avail: W,
    next_bufsiz: W,
}

impl<W: Word> PmrMonotonic<W> {
    const WORD: u64 = W::BITS as u64 / 8;
    /// `sizeof(_Chunk)`: 16 bytes on 64-bit, 8 on a 32-bit target.
    pub const RECORD_SIZE: u64 = RECORD_WORDS * Self::WORD;

    /// `do_allocate`: `std::align` in the current buffer, else a new one;
    /// then the bytes are taken.
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, Allocated<W>> {
        // "Ensures we don't return the same pointer twice."
        let bytes = layout.size.max(W::ONE); // step: at_least_one
        probe!(p, AT_LEAST_ONE, bytes);
        let align = layout.align;
        let (ptr, space) = (self.current, self.avail);
        // std::align: fails, changing nothing, when the bytes or then the
        // padding plus the bytes exceed the space.
        if space < bytes {
            // step: space
            probe!(p, SPACE_FAIL, space, bytes);
            return Err(self.new_buffer_slow(heap, layout, bytes, p));
        }
        probe!(p, SPACE_PASS, space, bytes);
        // ptr is inside a buffer here (with no buffer the space is 0): no wrap.
        let aligned = (ptr + (align - W::ONE)) & !(align - W::ONE); // step: align
        let padding = aligned - ptr;
        probe!(p, ALIGN, ptr, align, aligned);
        // space >= bytes, so this does not wrap.
        let room = space - bytes;
        if padding <= room {
            // step: align_fits
            probe!(p, FITS_PASS, padding, room);
            self.current = aligned + bytes; // step: bump
            self.avail = room - padding;
            probe!(p, BUMP, aligned, bytes);
            return Ok(aligned);
        }
        probe!(p, FITS_FAIL, padding, room);
        Err(self.new_buffer_slow(heap, layout, bytes, p))
    }

    /// `_M_new_buffer`, then the bytes at the new buffer's start.
    #[cold]
    #[inline(never)]
    fn new_buffer_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        bytes: W,
        p: &mut P,
    ) -> Allocated<W> {
        match self.new_buffer(heap, layout, bytes, p) {
            Ok(addr) => Allocated::ok(addr),
            Err(e) => Allocated::err(e),
        }
    }

    fn new_buffer<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        bytes: W,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let next_bufsiz = self.next_bufsiz;
        let n = bytes.max(next_bufsiz); // step: buffer_bytes
        probe!(p, BUFFER_BYTES, bytes, next_bufsiz, n);
        let align = layout.align.max(word(MIN_BUFFER_ALIGN)); // step: buffer_align
        probe!(p, BUFFER_ALIGN, align);
        // `_Chunk::allocate`: the record added, rounded up to 64. A size
        // that wraps asks upstream for the impossible, which throws.
        let record = word::<W>(Self::RECORD_SIZE);
        let granule = word::<W>(SIZE_GRANULE);
        let Some(size) = n
            .checked_add(record + granule - W::ONE)
            .map(|s| s & !(granule - W::ONE))
        else {
            // step: buffer_size
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, BUFFER_SIZE, n, record, size);
        let Some((id, base)) = heap.alloc(size, align) else {
            // step: upstream
            probe!(p, UPSTREAM_REFUSED, size, align);
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, UPSTREAM, size, align, base);
        let capacity = size - record;
        let desc = ChunkDesc {
            id,
            base,
            size,
            start: base,
            capacity,
            header: W::ZERO,
            footer: record,
        };
        let reason = if self.buffers.is_empty() {
            ChunkReason::First
        } else if bytes > next_bufsiz {
            ChunkReason::Oversized
        } else {
            ChunkReason::Full
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason,
                requested: layout.size,
            }
        );
        if let Some(last) = self.buffers.last_mut() {
            if self.avail > W::ZERO {
                event!(p, ModelEvent::Note("the request does not fit the rest of the current buffer: those bytes are abandoned for good"));
            }
            last.stop = self.current;
        }
        self.buffers.push(Buffer { desc, stop: base });
        // Growth in float: `_M_next_bufsiz *= _S_growth_factor`.
        let grown = (next_bufsiz.to_u64() as f32 * GROWTH_FACTOR) as u64;
        let grown = W::from_u64(grown).unwrap_or(W::MAX);
        self.next_bufsiz = grown; // step: grow
        probe!(p, GROW, next_bufsiz, grown);
        // The buffer starts aligned and holds at least `bytes`.
        self.current = base + bytes; // step: new_buffer_bump
        self.avail = capacity - bytes;
        probe!(p, NEW_BUFFER_BUMP, base, bytes);
        Ok(base)
    }

    /// Gives the buffers from index `keep` on back upstream, newest first,
    /// as `_Chunk::release` walks `_M_head`.
    fn free_buffers<P: Probe<W>>(&mut self, heap: &mut Heap<W>, keep: usize, p: &mut P) {
        while self.buffers.len() > keep {
            let Some(b) = self.buffers.pop() else { break };
            let (base, size) = (b.desc.base, b.desc.size);
            heap.free(base, size); // step: free_buffer
            probe!(p, FREE_BUFFER, base, size);
            event!(p, ModelEvent::ChunkFreed { id: b.desc.id });
        }
    }
}

impl<W: Word> Model<W> for PmrMonotonic<W> {
    type Checkpoint = PmrCheckpoint<W>;

    /// `monotonic_buffer_resource(upstream)`, or `(initial_size, upstream)`
    /// when a capacity is chosen: no buffer yet.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let _ = (heap, p);
        let initial = opts.capacity.unwrap_or(INIT_BUFSIZE_WORDS * Self::WORD);
        let initial = W::from_u64(initial).ok_or(AllocError::HeapExhausted)?;
        Ok(PmrMonotonic {
            current: W::ZERO,
            avail: W::ZERO,
            next_bufsiz: initial,
            orig_size: initial,
            buffers: Vec::new(),
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `allocate(bytes, alignment)`, which calls `do_allocate`.
    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        match self.allocate(heap, layout, p) {
            Ok(addr) => F::ok(addr),
            Err(slow) => F::allocated(slow),
        }
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
        event!(p, ModelEvent::Note("memory resources have no realloc: a container allocates the new size, copies, and deallocates the old block (a no-op here)"));
        let new = Layout {
            size: new_size,
            align: old.align,
        };
        let got = match self.allocate(heap, new, p) {
            Ok(addr) => Allocated::ok(addr),
            Err(slow) => slow,
        };
        if let Ok(new_addr) = got.result() {
            let bytes = old.size.min(new_size); // step: copy
            probe!(p, COPY, addr, new_addr, bytes);
            event!(p, ModelEvent::Copied { bytes });
        }
        got
    }

    /// `do_deallocate`: empty.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        let _ = addr; // step: deallocate
        probe!(p, DEALLOCATE, addr);
        event!(
            p,
            ModelEvent::Note("do_deallocate does nothing: the bytes come back only with release()")
        );
    }

    /// `release()`: every buffer goes back, the sizes start over.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        self.free_buffers(heap, 0, p);
        let orig = self.orig_size;
        self.current = W::ZERO; // step: release
        self.avail = W::ZERO;
        self.next_bufsiz = orig;
        probe!(p, RELEASE, orig);
    }

    fn checkpoint(&self) -> PmrCheckpoint<W> {
        PmrCheckpoint {
            buffers: self.buffers.len(),
            current: self.current,
            avail: self.avail,
            next_bufsiz: self.next_bufsiz,
        }
    }

    /// The playground's emulation of a checkpoint, which the resource
    /// lacks: buffers made since go back, the saved position and next
    /// buffer size come back.
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &PmrCheckpoint<W>, p: &mut P) {
        event!(p, ModelEvent::Note("monotonic_buffer_resource has no checkpoints: this restore is the playground's emulation (buffers made since go back upstream, the saved position comes back)"));
        // One saved before a release no longer matches; the engine drops those.
        if self.buffers.len() < cp.buffers {
            return;
        }
        let newer = self.buffers.len() > cp.buffers;
        self.free_buffers(heap, cp.buffers, p);
        let current = cp.current;
        self.current = current; // step: restore
        self.avail = cp.avail;
        self.next_bufsiz = cp.next_bufsiz;
        probe!(p, RESTORE, current);
        if let (true, Some(last)) = (newer, self.buffers.last()) {
            event!(p, ModelEvent::ChunkReused { id: last.desc.id });
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        let n = self.buffers.len();
        let i = self.buffers.iter().position(|b| b.desc.id == id)?;
        let b = &self.buffers[i];
        let hi = if i + 1 == n { self.current } else { b.stop };
        Some((b.desc.start, hi))
    }

    fn bump_ptr(&self) -> Option<W> {
        (!self.buffers.is_empty()).then_some(self.current)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::PmrMonotonic;
    AT_LEAST_ONE = "at_least_one": "a zero-sized request takes one byte, so no pointer is handed out twice";
    SPACE_PASS = "space" / "pass": "std::align: at least as many bytes left as the request";
    SPACE_FAIL = "space" / "fail": "std::align: fewer bytes left than the request (none before the first buffer): a new buffer";
    ALIGN = "align": "std::align: round the current pointer up to the alignment";
    FITS_PASS = "align_fits" / "pass": "std::align: padding + bytes fit what is left";
    FITS_FAIL = "align_fits" / "fail": "std::align: padding + bytes do not fit: a new buffer";
    BUMP = "bump": "the current pointer moves past the block, the space left shrinks";
    BUFFER_BYTES = "buffer_bytes": "new buffer: the request or the next buffer size, whichever is larger";
    BUFFER_ALIGN = "buffer_align": "aligned to the request's alignment, at least max_align_t's 16";
    BUFFER_SIZE = "buffer_size": "plus the record at its end, rounded up to 64 bytes";
    UPSTREAM = "upstream": "ask the upstream resource for the buffer";
    UPSTREAM_REFUSED = "upstream" / "refused": "the upstream resource has no room for it";
    GROW = "grow": "the next buffer size times 1.5, computed in float";
    NEW_BUFFER_BUMP = "new_buffer_bump": "the block at the new buffer's start; the old buffer's rest is abandoned";
    COPY = "copy": "copy the old bytes to the new block; the old ones stay";
    DEALLOCATE = "deallocate": "do_deallocate is empty";
    FREE_BUFFER = "free_buffer": "give a buffer back to the upstream resource";
    RELEASE = "release": "no buffer; the next one gets the initial size again";
    RESTORE = "restore": "the saved position, space left and next size come back";
}
