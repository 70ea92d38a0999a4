//! blink-alloc 0.4.0's `BlinkAlloc` (src/local.rs over src/arena/mod.rs and
//! src/arena/local.rs): bump UP through a list of chunks, each opening with
//! its header.
//!
//! * The header is `{cursor, end, prev, cumulative_size}`, four words
//!   (`#[repr(C)]`, aligned to a word): 32 bytes on 64-bit, 16 on wasm32. The
//!   cursor starts right after it and climbs to `end`, the chunk's last byte.
//! * `BlinkAlloc::new()` owns no chunk; the first allocation makes one.
//!   `with_chunk_size(n)` (the Capacity knob) changes the 256-byte starting
//!   size, nothing else.
//! * A new chunk is sized from what the arena held so far: the current
//!   chunk's `cumulative_size` (the capacities of the chunks before it, NOT
//!   its own), at least the starting size, plus the request (at least 64
//!   bytes), plus the alignment when it exceeds a word, plus the header;
//!   then rounded up to a power of two below 16 KiB, to a multiple of 16 KiB
//!   above. Whatever its size, it becomes current.
//! * There is no minimum alignment: every request rounds the cursor up to
//!   its own alignment, and a zero-sized request does too (it gets a pointer
//!   in the chunk, and makes the first chunk if there is none).
//! * Growing the last block extends it in place when it fits; any other
//!   grow allocates anew and copies. Shrinking never moves a block and never
//!   gives bytes back.
//! * `deallocate` compares the cursor with the freed block's START and, on a
//!   match, moves it to the block's end: for a block with bytes the cursor
//!   is never there (it is at or past the block's end), so nothing ever
//!   comes back.
//! * `reset` keeps the current chunk (the newest, so the largest so far),
//!   empties it, zeroes its `cumulative_size` and frees every older chunk.
//!
//! blink-alloc has no checkpoints: `checkpoint`/`restore` are the
//! playground's emulation (save the current chunk and its cursor; restore
//! frees the chunks made since and moves the cursor back).

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::{word, Word};
use crate::{event, probe};

/// `CHUNK_START_SIZE`: the size a chunk starts from (`with_chunk_size` changes it).
pub const CHUNK_START_SIZE: u64 = 256;
/// `CHUNK_POWER_OF_TWO_THRESHOLD`: 16 KiB. Below it chunk sizes are powers of
/// two; from it, multiples of it.
pub const CHUNK_POWER_OF_TWO_THRESHOLD: u64 = 1 << 14;
/// `CHUNK_MIN_GROW_STEP`: a new chunk adds at least this much for the request.
pub const CHUNK_MIN_GROW_STEP: u64 = 64;
/// The header's fields: cursor, end, prev, cumulative_size.
pub const HEADER_WORDS: u64 = 4;

/// One chunk: what its header holds, plus the base allocator's view of it.
#[derive(Clone, Copy, Debug)]
struct Chunk<W> {
    /// `base` is where the base allocator put it (the header's address),
    /// `start` the first byte after the header, `capacity` up to `end`.
    desc: ChunkDesc<W>,
    /// The next free byte, `start..=end`.
    cursor: W,
    /// One past the chunk's last byte.
    end: W,
    /// The capacities of every chunk made before this one (0 after a reset).
    cumulative: W,
}

impl<W: Word> Chunk<W> {
    /// `ChunkHeader::alloc`: round the cursor up to the alignment, take the
    /// size, or `None` when the block would pass the end.
    #[inline(always)]
    fn bump<P: Probe<W>>(&mut self, layout: Layout<W>, p: &mut P) -> Option<W> {
        let cursor = self.cursor;
        let (size, align) = (layout.size, layout.align);
        // The Layout bound (size rounded up to align fits isize::MAX) keeps
        // this from overflowing.
        let layout_sum = size + (align - W::ONE); // step: layout_sum
        probe!(p, LAYOUT_SUM, size, align, layout_sum);
        let Some(unaligned) = cursor.checked_add(layout_sum) else {
            // step: unaligned
            probe!(p, UNALIGNED_OVERFLOW, cursor, layout_sum);
            return None;
        };
        probe!(p, UNALIGNED, cursor, layout_sum, unaligned);
        // unaligned - size is cursor + align - 1, so rounding it down lands
        // on the cursor rounded up: no wrap, and at most align - 1 past it.
        let aligned = (unaligned - size) & !(align - W::ONE); // step: align_down
        probe!(p, ALIGN_DOWN, unaligned, aligned);
        // aligned + size <= unaligned, which did not overflow.
        let next = aligned + size;
        let end = self.end;
        if next > end {
            // step: fits
            probe!(p, FITS_FAIL, next, end);
            return None;
        }
        probe!(p, FITS_PASS, next, end);
        self.cursor = next; // step: bump
        probe!(p, BUMP, aligned, next);
        Some(aligned)
    }
}

/// `BlinkAlloc<Global>`: the current chunk (the arena's `root`) and the
/// chunks before it.
#[derive(Clone, Debug)]
pub struct BlinkAlloc<W> {
    root: Option<Chunk<W>>,
    /// Older chunks, oldest first (the `prev` links, walked the other way).
    prev: Vec<Chunk<W>>,
    /// `min_chunk_size`: 256, or what `with_chunk_size` was given.
    min_chunk_size: W,
}

/// The checkpoint the playground emulates: the current chunk's id (or none)
/// and its cursor.
#[derive(Clone, Copy, Debug)]
pub struct BlinkCheckpoint<W> {
    root: Option<u32>,
    cursor: W,
}

impl<W: Word> BlinkAlloc<W> {
    const WORD: u64 = W::BITS as u64 / 8;
    /// `size_of::<ChunkHeader>()`: 32 bytes on 64-bit, 16 on wasm32.
    pub const HEADER_SIZE: u64 = HEADER_WORDS * Self::WORD;

    /// `BlinkAlloc::allocate`: the fast path in the current chunk, else a new chunk.
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, Allocated<W>> {
        let Some(root) = &mut self.root else {
            // step: no_chunk
            probe!(p, NO_CHUNK);
            return Err(self.alloc_slow(heap, layout, p));
        };
        match root.bump(layout, p) {
            Some(addr) => Ok(addr),
            None => Err(self.alloc_slow(heap, layout, p)),
        }
    }

    /// `alloc_slow`: a new chunk sized from what came before, made current,
    /// and the request bumped in it.
    #[cold]
    #[inline(never)]
    fn alloc_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        match self.new_chunk(heap, layout, p) {
            Ok(addr) => Allocated::ok(addr),
            Err(e) => Allocated::err(e),
        }
    }

    fn new_chunk<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let min_chunk_size = self.min_chunk_size;
        let request = layout.size;
        let mut chunk_size = match &self.root {
            Some(root) => {
                let cumulative = root.cumulative;
                let base = min_chunk_size.max(cumulative);
                let grow = request.max(word(CHUNK_MIN_GROW_STEP));
                let Some(size) = base.checked_add(grow) else {
                    // step: size_from_total
                    return Err(AllocError::HeapExhausted);
                };
                probe!(p, SIZE_FROM_TOTAL, min_chunk_size, cumulative, grow, size);
                size
            }
            None => {
                let size = min_chunk_size.max(request); // step: size_first
                probe!(p, SIZE_FIRST, min_chunk_size, request, size);
                size
            }
        };
        let align = layout.align;
        if align > word(Self::WORD) {
            // Room to round the chunk's first byte up to the alignment.
            let Some(with_align) = chunk_size.checked_add(align) else {
                // step: add_align
                return Err(AllocError::HeapExhausted);
            };
            chunk_size = with_align;
            probe!(p, ADD_ALIGN, align, chunk_size);
        }
        let header = word::<W>(Self::HEADER_SIZE);
        let Some(with_header) = chunk_size.checked_add(header) else {
            // step: add_header
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, ADD_HEADER, chunk_size, header, with_header);

        let threshold = word::<W>(CHUNK_POWER_OF_TWO_THRESHOLD);
        let size = if with_header < threshold {
            // Below 16 KiB, so the next power of two is at most 16 KiB.
            let size = word::<W>(with_header.to_u64().next_power_of_two()); // step: round_pow2
            probe!(p, ROUND_POW2, with_header, size);
            size
        } else {
            // The crate keeps the unrounded size if rounding overflows.
            let mask = threshold - W::ONE;
            let rounded = with_header.checked_add(mask).map(|s| s & !mask);
            let size = rounded.unwrap_or(with_header); // step: round_16k
            probe!(p, ROUND_16K, with_header, size);
            size
        };

        // `alloc_chunk`: the size rounded up to the header's alignment (an
        // overflow there is a clean AllocError; a power of two or a multiple
        // of 16 KiB needs no rounding), then a Layout made without a check:
        // past isize::MAX that is undefined behaviour, where the model stops.
        let word_mask = word::<W>(Self::WORD) - W::ONE;
        let Some(aligned) = size.checked_add(word_mask).map(|s| s & !word_mask) else {
            // step: chunk_layout
            return Err(AllocError::HeapExhausted);
        };
        if aligned > W::ISIZE_MAX {
            probe!(p, CHUNK_LAYOUT_INVALID, aligned);
            return Err(AllocError::Overflow);
        }
        let Some((id, base)) = heap.alloc(size, word(Self::WORD)) else {
            // step: heap_alloc
            probe!(p, HEAP_REFUSED, size);
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, HEAP_ALLOC, size, base);
        // `init_chunk`: the header at the base, the cursor right after it;
        // the new chunk counts every chunk before it.
        let start = base + header;
        let end = base + size;
        // A real chunk's capacity plus what came before it fits a usize.
        let cumulative = self
            .root
            .map_or(W::ZERO, |r| r.desc.capacity + r.cumulative); // step: init_chunk
        probe!(p, INIT_CHUNK, base, start, end, cumulative);
        let desc = ChunkDesc {
            id,
            base,
            size,
            start,
            capacity: size - header,
            header,
            footer: W::ZERO,
        };
        let reason = if self.root.is_some() {
            ChunkReason::Full
        } else {
            ChunkReason::First
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason,
                requested: request,
            }
        );
        let mut chunk = Chunk {
            desc,
            cursor: start,
            end,
            cumulative,
        };
        // The crate unwraps this unchecked: the chunk was sized to fit.
        let addr = chunk.bump(layout, p).ok_or(AllocError::HeapExhausted)?;
        if let Some(old) = self.root.replace(chunk) {
            self.prev.push(old);
        }
        Ok(addr)
    }

    /// Gives chunks back to the base allocator, newest first, as the crate
    /// walks its `prev` links, until `keep` remain in `prev`.
    fn free_older<P: Probe<W>>(&mut self, heap: &mut Heap<W>, keep: usize, p: &mut P) {
        while self.prev.len() > keep {
            let Some(c) = self.prev.pop() else { break };
            let (base, size) = (c.desc.base, c.desc.size);
            heap.free(base, size); // step: free_chunk
            probe!(p, FREE_CHUNK, base, size);
            event!(p, ModelEvent::ChunkFreed { id: c.desc.id });
        }
    }

    fn chunk(&self, id: u32) -> Option<&Chunk<W>> {
        self.root
            .iter()
            .chain(self.prev.iter())
            .find(|c| c.desc.id == id)
    }
}

impl<W: Word> Model<W> for BlinkAlloc<W> {
    type Checkpoint = BlinkCheckpoint<W>;

    /// `BlinkAlloc::new()`, or `with_chunk_size(capacity)`: no chunk yet.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let _ = (heap, p);
        let start = opts.capacity.unwrap_or(CHUNK_START_SIZE);
        Ok(BlinkAlloc {
            root: None,
            prev: Vec::new(),
            min_chunk_size: W::from_u64(start).ok_or(AllocError::HeapExhausted)?,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `BlinkAlloc::allocate` (what `Allocator::allocate` calls).
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

    /// `BlinkAlloc::resize` (what both `grow` and `shrink` call), with the
    /// alignment kept, as the engine's realloc keeps it.
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
        let old_size = old.size;
        // `resize_fast` has a chunk whenever a block exists.
        if let Some(root) = &mut self.root {
            if new_size <= old_size {
                // step: shrink
                probe!(p, SHRINK, old_size, new_size);
                event!(p, ModelEvent::Note("blink-alloc never shrinks in place: the block keeps its bytes until a reset"));
                return Allocated::ok(addr);
            }
            // old_size bytes at addr lie inside a chunk: no overflow.
            let old_end = addr + old_size;
            let cursor = root.cursor;
            if cursor == old_end {
                // step: grow_is_last
                probe!(p, GROW_LAST_YES, old_end, cursor);
                let end = root.end;
                let next = addr.checked_add(new_size); // step: grow_next
                if let Some(next) = next.filter(|&n| n <= end) {
                    probe!(p, GROW_FITS, addr, new_size, next, end);
                    root.cursor = next; // step: grow_bump
                    probe!(p, GROW_BUMP, next);
                    return Allocated::ok(addr);
                }
                probe!(p, GROW_NO_ROOM, addr, new_size, end);
            } else {
                probe!(p, GROW_LAST_NO, old_end, cursor);
                if let Some(new_addr) = root.bump(new, p) {
                    let bytes = old_size; // step: copy
                    probe!(p, COPY, addr, new_addr, bytes);
                    event!(p, ModelEvent::Copied { bytes });
                    return Allocated::ok(new_addr);
                }
            }
        }
        // `resize_slow`: a new chunk, then the copy; the old bytes stay.
        let got = self.alloc_slow(heap, new, p);
        if let Ok(new_addr) = got.result() {
            let bytes = old_size;
            probe!(p, COPY, addr, new_addr, bytes);
            event!(p, ModelEvent::Copied { bytes });
        }
        got
    }

    /// `BlinkAlloc::deallocate`: one compare of the cursor with the block's
    /// start (not its end), which a block with bytes never passes.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P) {
        let Some(root) = &mut self.root else {
            return;
        };
        let cursor = root.cursor;
        if cursor != addr {
            // step: dealloc_check
            probe!(p, DEALLOC_NO, cursor, addr);
            event!(p, ModelEvent::Note("blink-alloc 0.4.0's deallocate moves the cursor only when it equals the block's start, where it never is for a block with bytes: nothing comes back until a reset"));
            return;
        }
        probe!(p, DEALLOC_YES, cursor, addr);
        // A block at the cursor is a zero-sized one, so this is the cursor.
        let next = addr + layout.size;
        root.cursor = next; // step: dealloc
        probe!(p, DEALLOC, next);
    }

    /// `BlinkAlloc::reset`: the current chunk is kept and emptied, its
    /// `cumulative_size` zeroed, the older ones freed.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        let Some(root) = &mut self.root else {
            // step: reset_empty
            probe!(p, RESET_EMPTY);
            return;
        };
        let start = root.desc.start;
        root.cursor = start; // step: reset
        root.cumulative = W::ZERO;
        probe!(p, RESET, start);
        self.free_older(heap, 0, p);
    }

    fn checkpoint(&self) -> BlinkCheckpoint<W> {
        BlinkCheckpoint {
            root: self.root.map(|r| r.desc.id),
            cursor: self.root.map_or(W::ZERO, |r| r.cursor),
        }
    }

    /// The playground's emulation of a checkpoint, which blink-alloc lacks:
    /// chunks made since go back to the base allocator, the saved chunk is
    /// current again and its cursor moves back.
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &BlinkCheckpoint<W>, p: &mut P) {
        event!(
            p,
            ModelEvent::Note(
                "blink-alloc has no checkpoints: this restore is the playground's emulation (chunks made since the checkpoint are freed, the saved cursor comes back)"
            )
        );
        let keep = match cp.root {
            None => 0,
            Some(id) if self.root.is_some_and(|r| r.desc.id == id) => self.prev.len() + 1,
            Some(id) => match self.prev.iter().position(|c| c.desc.id == id) {
                Some(i) => i + 1,
                // The engine drops a checkpoint whose chunk can be gone.
                None => return,
            },
        };
        if keep <= self.prev.len() {
            // The current chunk is newer than the checkpoint: free it, then
            // the older ones down to the saved chunk, which is current again.
            if let Some(root) = self.root.take() {
                self.prev.push(root);
            }
            self.free_older(heap, keep, p);
            self.root = self.prev.pop();
            if let Some(r) = &self.root {
                event!(p, ModelEvent::ChunkReused { id: r.desc.id });
            }
        }
        if let Some(root) = &mut self.root {
            let cursor = cp.cursor;
            root.cursor = cursor; // step: restore
            probe!(p, RESTORE, cursor);
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        self.chunk(id).map(|c| (c.desc.start, c.cursor))
    }

    fn bump_ptr(&self) -> Option<W> {
        self.root.map(|r| r.cursor)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::BlinkAlloc;
    NO_CHUNK = "no_chunk": "no chunk yet: the first allocation makes one";
    LAYOUT_SUM = "layout_sum": "size plus the alignment's mask: the most the block can need";
    UNALIGNED = "unaligned": "cursor plus that sum (checked)";
    UNALIGNED_OVERFLOW = "unaligned" / "overflow": "cursor plus that sum overflowed: no room";
    ALIGN_DOWN = "align_down": "take the size off and round down: the cursor rounded up to the alignment";
    FITS_PASS = "fits" / "pass": "the block ends at or before the chunk's end";
    FITS_FAIL = "fits" / "fail": "the block would end past the chunk's end: no room";
    BUMP = "bump": "move the cursor to the block's end";
    SIZE_FIRST = "size_first": "first chunk: the starting size, or the request if larger";
    SIZE_FROM_TOTAL = "size_from_total": "next chunk: the chunks so far (at least the starting size) plus the request (at least 64)";
    ADD_ALIGN = "add_align": "aligned above a word: add the alignment, room to round up the first byte";
    ADD_HEADER = "add_header": "add the header's bytes";
    ROUND_POW2 = "round_pow2": "under 16 KiB: round up to a power of two";
    CHUNK_LAYOUT_INVALID = "chunk_layout" / "invalid": "the chunk's Layout, made without a check, would pass isize::MAX: undefined behaviour";
    ROUND_16K = "round_16k": "16 KiB or more: round up to a multiple of 16 KiB";
    HEAP_ALLOC = "heap_alloc": "ask the base allocator for the chunk";
    HEAP_REFUSED = "heap_alloc" / "refused": "the base allocator has no room for this chunk";
    INIT_CHUNK = "init_chunk": "header at the start, cursor right after it; it counts the capacities before it";
    SHRINK = "shrink": "not larger: the block stays, with all its bytes";
    GROW_LAST_YES = "grow_is_last" / "yes": "the cursor is at the block's end: try to extend it in place";
    GROW_LAST_NO = "grow_is_last" / "no": "not the last block: allocate a new one and copy";
    GROW_FITS = "grow_next" / "pass": "the grown block still ends within the chunk";
    GROW_NO_ROOM = "grow_next" / "fail": "the grown block would pass the chunk's end: a new chunk";
    GROW_BUMP = "grow_bump": "move the cursor to the grown block's end";
    COPY = "copy": "copy the old bytes to the new block; the old one stays";
    DEALLOC_YES = "dealloc_check" / "yes": "the cursor equals the block's start (a zero-sized block)";
    DEALLOC_NO = "dealloc_check" / "no": "the cursor is not at the block's start: nothing changes";
    DEALLOC = "dealloc": "move the cursor to the block's end";
    RESET_EMPTY = "reset_empty": "no chunk yet: nothing to reset";
    RESET = "reset": "empty the current chunk and zero its count of earlier capacity";
    FREE_CHUNK = "free_chunk": "give an older chunk back to the base allocator";
    RESTORE = "restore": "move the saved chunk's cursor back to where it was";
}
