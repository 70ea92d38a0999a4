//! bump-scope 2.4.1 (`Bump<Global, BumpSettings<MIN_ALIGN, UP>>`), driven
//! through its `Allocator` impl: `allocate`, `grow`, `shrink`, `deallocate`,
//! plus `reset`, `checkpoint` and `reset_to`.
//!
//! Chunks form a doubly linked list. Each chunk carries a header
//! `{pos, end, prev, next, allocator}` aligned to 16: four words rounded up
//! to 16 bytes, so 32 bytes on 64-bit and 16 on wasm32 (the allocator is the
//! zero-sized `Global`). Bumping up puts the header at the chunk's start and
//! the bump pointer climbs from just after it; bumping down puts the header
//! at the chunk's end and the bump pointer falls towards the chunk's start.
//!
//! `Bump::new()` allocates its first chunk at once. A full chunk is followed
//! by one at least twice its size; chunks that a `reset_to` leaves behind
//! stay in the list and are walked (and emptied) before a new one is made.
//! The model holds the current chunk's bump pointer and bounds directly, as
//! the crate holds a pointer to the current chunk's header; the rest of the
//! list sits in two `Vec`s, the chunks before the current one and those
//! after it, which only the slow paths, `reset` and `reset_to` touch.
//!
//! The bump arithmetic is the crate's path for a layout known only at run
//! time (what `Allocator::allocate` passes). Its typed API (`alloc(value)`)
//! knows the alignment at compile time and skips the aligning step entirely
//! when the type's alignment is at most `MIN_ALIGN`; the addresses come out
//! the same, only the instruction count differs.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// Every chunk address and every chunk size is a multiple of this, so the
/// up fast path can never round past a chunk's end.
pub const MIN_CHUNK_ALIGN: u64 = 16;
/// `BumpSettings`' default `MINIMUM_CHUNK_SIZE`: the size hint of `Bump::new()`.
pub const MINIMUM_CHUNK_SIZE: u64 = 512;
/// Above this, chunk sizes are rounded to whole pages instead of powers of two.
pub const ASSUMED_PAGE_SIZE: u64 = 0x1000;
/// The chunk header's alignment (`#[repr(C, align(16))]`).
pub const HEADER_ALIGN: u64 = 16;

/// Bytes of the chunk header on the target: `pos`, `end`, `prev`, `next`
/// (one word each; `Global` takes none) rounded up to its 16-byte alignment.
pub fn header_size<W: Word>() -> u64 {
    let words = 4 * (W::BITS as u64 / 8);
    (words + HEADER_ALIGN - 1) & !(HEADER_ALIGN - 1)
}

/// What the crate assumes malloc keeps per allocation: `[usize; 2]`.
pub fn malloc_overhead<W: Word>() -> u64 {
    2 * (W::BITS as u64 / 8)
}

/// A small constant as a target word (every one used here fits both targets).
#[inline(always)]
fn word<W: Word>(v: u64) -> W {
    W::from_u64(v).unwrap_or(W::MAX)
}

/// Rounds `addr` up to `align` (a power of two). Used only where the result
/// stays at or below a chunk's end, which is a multiple of 16: no overflow.
#[inline(always)]
fn up_align<W: Word>(addr: W, align: W) -> W {
    (addr + (align - W::ONE)) & !(align - W::ONE)
}

/// A power of two below a page (the hint is then at most a page, so no
/// overflow), whole pages from a page on; `None` when rounding up to a page
/// overflows the target's word.
fn round_chunk_size<W: Word>(hint: W, page: W) -> Option<W> {
    if hint < page {
        W::from_u64(hint.to_u64().next_power_of_two())
    } else {
        Some(hint.checked_add(page - W::ONE)? & !(page - W::ONE))
    }
}

/// Rounds `addr` down to `align` (a power of two): one mask, `-align`
/// (equal to `!(align - 1)`, one instruction shorter in wasm).
#[inline(always)]
fn down_align<W: Word>(addr: W, align: W) -> W {
    addr & W::ZERO.wrapping_sub(align)
}

/// One chunk of the list: where the base allocator put it and its header's
/// bump pointer and end.
#[derive(Clone, Copy, Debug)]
struct Chunk<W> {
    desc: ChunkDesc<W>,
    /// The header's `pos`: the first free byte when bumping up, the lowest
    /// byte in use when bumping down.
    pos: W,
    /// The header's `end`: one past the last usable byte. Kept, not derived
    /// from `desc`, as the crate keeps it, so the up fast path reads one word.
    end: W,
}

impl<W: Word> Chunk<W> {
    #[inline(always)]
    fn content_start(&self) -> W {
        self.desc.start
    }

    #[inline(always)]
    fn content_end(&self) -> W {
        self.end
    }

    /// Where the bump pointer of an empty chunk stands.
    #[inline(always)]
    fn edge<const UP: bool>(&self) -> W {
        if UP {
            self.content_start()
        } else {
            self.content_end()
        }
    }
}

/// Where a `checkpoint()` stood: the chunk (its place in the list, which
/// only a `reset` changes, and `reset` invalidates every checkpoint) and its
/// bump pointer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checkpoint<W> {
    chunk: usize,
    pos: W,
}

/// bump-scope's `Bump` bumping up (`UP = true`) or down, keeping its bump
/// pointer aligned to `MIN_ALIGN` (1, 2, 4, 8 or 16).
#[derive(Clone, Debug)]
pub struct BumpScope<W, const UP: bool, const MIN_ALIGN: u64> {
    /// The chunk the allocator bumps in.
    current: Chunk<W>,
    /// The chunks before it, from the first (`prev` of none) on.
    prev: Vec<Chunk<W>>,
    /// The chunks after it, kept but empty, the LAST of the list (`next` of
    /// none) first: `pop` gives the one right after the current chunk.
    next: Vec<Chunk<W>>,
}

impl<W: Word, const UP: bool, const MIN_ALIGN: u64> BumpScope<W, UP, MIN_ALIGN> {
    /// One bump in `chunk`, as the crate does for a layout known only at run
    /// time. Returns the block's address, or `None` (pointer untouched) when
    /// it does not fit.
    #[inline(always)]
    fn bump_in<P: Probe<W>>(chunk: &mut Chunk<W>, layout: Layout<W>, p: &mut P) -> Option<W> {
        let Layout { size, align } = layout;
        let min_align: W = word(MIN_ALIGN);
        let (new_pos, ptr) = if UP {
            let pos = chunk.pos;
            let end = chunk.content_end();

            // pos is inside a real chunk, so never 0. Rounding pos - 1 down
            // lands exactly one alignment below the first aligned address
            // at or after pos.
            let aligned_down = (pos - W::ONE) & !(align - W::ONE); // step: up_align_down
            probe!(p, UP_ALIGN_DOWN, pos, align, aligned_down);

            // align + size cannot overflow (the Layout bound: size rounded
            // up to align is at most isize::MAX). Adding that to the pointer
            // saturates instead of branching: usize::MAX is never a valid
            // end (chunk ends are multiples of 16), so the check below fails.
            let block_end = aligned_down.checked_add(align + size).unwrap_or(W::MAX); // step: up_block_end
            probe!(p, UP_BLOCK_END, aligned_down, align, size, block_end);

            if block_end > end {
                // step: up_check_end
                probe!(p, UP_CHECK_FAIL, block_end, end);
                return None;
            }
            probe!(p, UP_CHECK_PASS, block_end, end);

            // block_end did not pass end, so neither does this.
            let ptr = aligned_down + align; // step: up_block_start
            probe!(p, UP_BLOCK_START, ptr);

            // The next bump expects a pointer aligned to MIN_ALIGN. With a
            // MIN_ALIGN of 1 this is no work and compiles away. Rounding up
            // to at most 16 cannot pass the chunk's end (a multiple of 16).
            let mut new_pos = block_end;
            if MIN_ALIGN > 1 {
                new_pos = up_align(block_end, min_align); // step: up_round_min_align
                probe!(p, UP_ROUND_MIN, block_end, min_align, new_pos);
            }
            (new_pos, ptr)
        } else {
            let pos = chunk.pos;
            let start = chunk.content_start();

            // Saturating instead of a checked branch: 0 is below every
            // chunk's start, so an underflow fails the check below.
            let below = pos.checked_sub(size).unwrap_or(W::ZERO); // step: down_sub_size
            probe!(p, DOWN_SUB, pos, size, below);

            // One mask keeps both the block's alignment and MIN_ALIGN. With
            // a MIN_ALIGN of 1 every alignment is already at least it, and
            // the comparison compiles away.
            let block_align = if MIN_ALIGN > 1 && align < min_align {
                min_align
            } else {
                align
            };
            let new_pos = down_align(below, block_align); // step: down_align
            probe!(p, DOWN_ALIGN, below, block_align, new_pos);

            if new_pos < start {
                // step: down_check_start
                probe!(p, DOWN_CHECK_FAIL, new_pos, start);
                return None;
            }
            probe!(p, DOWN_CHECK_PASS, new_pos, start);
            (new_pos, new_pos)
        };
        chunk.pos = new_pos; // step: bump
        probe!(p, BUMP, ptr, new_pos);
        Some(ptr)
    }

    /// The chunk size hint that guarantees room for `size` bytes aligned to
    /// `align`, as `ChunkSizeHint::for_capacity` computes it; `None` on
    /// overflow (the crate's capacity overflow).
    fn hint_for_capacity<P: Probe<W>>(size: W, align: W, p: &mut P) -> Option<W> {
        let header: W = word(header_size::<W>());
        let overhead: W = word(malloc_overhead::<W>());
        let sixteen: W = word(MIN_CHUNK_ALIGN);
        // The chunk's content is 16-aligned, so a larger alignment may need
        // up to align - 16 bytes of padding.
        let padding = align.checked_sub(word(HEADER_ALIGN)).unwrap_or(W::ZERO);
        let bytes = size.checked_add(padding)?;
        let hint = if UP {
            // malloc's words, then the header (16-aligned), then the content.
            up_align(overhead, word(HEADER_ALIGN))
                .checked_add(header)?
                .checked_add(bytes)?
        } else {
            // malloc's words, the content, then the header (16-aligned).
            let before_header = overhead.checked_add(bytes)?;
            let at_header = before_header.checked_add(word::<W>(HEADER_ALIGN) - W::ONE)?
                & !(word::<W>(HEADER_ALIGN) - W::ONE);
            at_header.checked_add(header)?
        };
        // The final size is rounded down to 16; 16 more bytes make sure
        // that cannot eat into the content.
        let required = hint.checked_add(sixteen)?; // step: required_size
        probe!(p, REQUIRED_SIZE, size, padding, required);
        Some(required)
    }

    /// The chunk size for a size hint, as `ChunkSizeHint::calc_size` does:
    /// at least the minimum chunk size, a power of two below a page or whole
    /// pages above, less the assumed malloc overhead.
    fn size_from_hint<P: Probe<W>>(hint: W, p: &mut P) -> Option<W> {
        let header: W = word(header_size::<W>());
        let overhead: W = word(malloc_overhead::<W>());
        let page: W = word(ASSUMED_PAGE_SIZE);
        let least = up_align(overhead, word(HEADER_ALIGN)) + header;
        let mut hint = hint;
        if hint < word(MINIMUM_CHUNK_SIZE) {
            hint = word(MINIMUM_CHUNK_SIZE);
        }
        if hint < least {
            hint = least;
        }
        let rounded = round_chunk_size(hint, page)?; // step: size_round
        probe!(p, SIZE_ROUND, hint, rounded);
        // rounded >= least > overhead, so this cannot wrap.
        let size = down_align(rounded - overhead, word(MIN_CHUNK_ALIGN)); // step: size_minus_overhead
        probe!(p, SIZE_OVERHEAD, rounded, overhead, size);
        // The chunk's Layout (align 16) must not exceed isize::MAX.
        (size <= W::ISIZE_MAX).then_some(size)
    }

    /// Gets a chunk of `size` bytes from the base allocator and lays out its
    /// header; the new chunk is empty.
    #[cold]
    #[inline(never)]
    fn alloc_chunk_slow<P: Probe<W>>(
        heap: &mut Heap<W>,
        size: W,
        reason: ChunkReason,
        requested: W,
        p: &mut P,
    ) -> Result<Chunk<W>, AllocError> {
        let (id, base) = heap
            .alloc(size, word(HEADER_ALIGN))
            .ok_or(AllocError::HeapExhausted)?;
        let header: W = word(header_size::<W>());
        // Up: the header opens the chunk and the content follows it. Down:
        // the content opens the chunk and the header closes it.
        let desc = ChunkDesc {
            id,
            base,
            size,
            start: if UP { base + header } else { base },
            capacity: size - header,
            header: if UP { header } else { W::ZERO },
            footer: if UP { W::ZERO } else { header },
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason,
                requested
            }
        );
        let mut chunk = Chunk {
            desc,
            pos: base,
            end: desc.start + desc.capacity,
        };
        chunk.pos = chunk.edge::<UP>();
        Ok(chunk)
    }

    /// The slow path when the current chunk has no room: walk the chunks
    /// kept after it (emptying each as it becomes current), else append a
    /// new chunk after the last one.
    /// One word back (see [`Allocated`]): a `Result` would come back
    /// through memory on wasm32 and give the inlined fast path a frame.
    #[cold]
    #[inline(never)]
    fn alloc_in_another_chunk_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        self.another_chunk(heap, layout, p).into()
    }

    #[inline(always)]
    fn another_chunk<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        // Also ends the failed check's run of steps, so it shows as such.
        event!(
            p,
            ModelEvent::Note(
                "no room in the current chunk: try the chunks kept after it, else make one at least twice the last"
            )
        );
        while let Some(next) = self.next.pop() {
            self.prev.push(core::mem::replace(&mut self.current, next));
            let id = self.current.desc.id;
            event!(p, ModelEvent::ChunkReused { id });
            // Leaving a scope does not empty the chunks after it; entering
            // one does.
            let chunk = &mut self.current;
            let pos = chunk.edge::<UP>();
            chunk.pos = pos; // step: reuse_kept
            probe!(p, REUSE_KEPT, pos);
            if let Some(ptr) = Self::bump_in(chunk, layout, p) {
                return Ok(ptr);
            }
        }

        // No chunk is kept after the current one now: it is the last.
        let last = self.current.desc.size;
        let required = Self::hint_for_capacity(layout.size, layout.align, p)
            .ok_or(AllocError::HeapExhausted)?;
        let grown = last.checked_add(last).ok_or(AllocError::HeapExhausted)?; // step: grown_size
        probe!(p, GROWN_SIZE, last, grown);
        let (hint, reason) = if required > grown {
            (required, ChunkReason::Oversized)
        } else {
            (grown, ChunkReason::Full)
        };
        let size = Self::size_from_hint(hint, p).ok_or(AllocError::HeapExhausted)?;
        let mut chunk = Self::alloc_chunk_slow(heap, size, reason, layout.size, p)?;
        // The hint included the worst padding, so this cannot fail.
        let ptr = Self::bump_in(&mut chunk, layout, p).ok_or(AllocError::HeapExhausted)?;
        self.prev.push(core::mem::replace(&mut self.current, chunk));
        Ok(ptr)
    }

    /// `Allocator::allocate`: the fast path in the current chunk, else
    /// the slow path.
    #[inline(always)]
    fn try_alloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        match Self::bump_in(&mut self.current, layout, p) {
            Some(ptr) => Allocated::ok(ptr),
            None => self.alloc_in_another_chunk_slow(heap, layout, p),
        }
    }

    /// Whether the block at `addr` is the most recent one in the current
    /// chunk: its end (up) or its start (down) is the bump pointer.
    #[inline(always)]
    fn is_last<P: Probe<W>>(&self, addr: W, size: W, p: &mut P) -> bool {
        let pos = self.current.pos;
        let edge = if UP { addr + size } else { addr };
        let last = edge == pos; // step: is_last
        if last {
            probe!(p, IS_LAST_YES, edge, pos);
        } else {
            probe!(p, IS_LAST_NO, edge, pos);
        }
        last
    }

    fn copy<P: Probe<W>>(from: W, to: W, bytes: W, p: &mut P) {
        let _ = (from, to); // step: copy
        probe!(p, COPY, from, to, bytes);
        event!(p, ModelEvent::Copied { bytes });
    }

    /// `Allocator::grow` with the same alignment.
    fn grow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let new = Layout {
            size: new_size,
            align: old.align,
        };
        // The block keeps its alignment, so the crate's "does the old
        // address fit the new alignment" test always passes.
        if !self.is_last(addr, old.size, p) {
            // Not the last block: a fresh block and a copy; the old bytes
            // stay behind until a reset reclaims them.
            let to = self.try_alloc(heap, new, p).result()?;
            Self::copy(addr, to, old.size, p);
            return Ok(to);
        }
        let min_align: W = word(MIN_ALIGN);
        let chunk = &mut self.current;
        if UP {
            let end = chunk.content_end();
            // addr <= pos <= end, so no wrap.
            let room = end - addr;
            if new_size <= room {
                // step: grow_room
                probe!(p, GROW_ROOM_PASS, new_size, room);
                // The block stays put; only the bump pointer moves.
                let new_pos = up_align(addr + new_size, min_align); // step: grow_in_place
                chunk.pos = new_pos;
                probe!(p, GROW_IN_PLACE, addr, new_pos);
                return Ok(addr);
            }
            probe!(p, GROW_ROOM_FAIL, new_size, room);
        } else {
            let start = chunk.content_start();
            // Bumping down, the block can only grow towards lower addresses:
            // it moves down by the extra bytes and its bytes are copied.
            let extra = new_size - old.size;
            let block_align = if old.align > min_align {
                old.align
            } else {
                min_align
            };
            let below = addr.checked_sub(extra).unwrap_or(W::ZERO);
            let to = down_align(below, block_align); // step: grow_down_addr
            probe!(p, GROW_DOWN_ADDR, addr, extra, to);
            if to >= start {
                // step: grow_down_room
                probe!(p, GROW_DOWN_PASS, to, start);
                // The ranges may overlap: the crate uses a memmove then.
                Self::copy(addr, to, old.size, p);
                chunk.pos = to; // step: grow_down_move
                probe!(p, GROW_DOWN_MOVE, to);
                return Ok(to);
            }
            probe!(p, GROW_DOWN_FAIL, to, start);
        }
        // The last block, but the current chunk cannot hold it grown: it
        // goes straight to another chunk (this one could not fit it either).
        let to = self.alloc_in_another_chunk_slow(heap, new, p).result()?;
        Self::copy(addr, to, old.size, p);
        Ok(to)
    }

    /// `Allocator::shrink` with the same alignment.
    fn shrink<P: Probe<W>>(&mut self, addr: W, old: Layout<W>, new_size: W, p: &mut P) -> W {
        // Only the last block can give bytes back; any other one keeps its
        // size in the chunk.
        if !self.is_last(addr, old.size, p) {
            return addr;
        }
        let min_align: W = word(MIN_ALIGN);
        let chunk = &mut self.current;
        if UP {
            // The end moves back; rounding to at most 16 stays in the chunk.
            let new_pos = up_align(addr + new_size, min_align); // step: shrink_up
            chunk.pos = new_pos;
            probe!(p, SHRINK_UP, addr, new_size, new_pos);
            addr
        } else {
            // Bumping down the free space is below the block, so the block
            // slides up to end where it ended. addr is aligned and
            // new_size <= old size, so the result is never below addr.
            let block_align = if old.align > min_align {
                old.align
            } else {
                min_align
            };
            let old_end = addr + old.size;
            let to = down_align(old_end - new_size, block_align); // step: shrink_down_addr
            probe!(p, SHRINK_DOWN_ADDR, old_end, new_size, to);
            Self::copy(addr, to, new_size, p);
            chunk.pos = to; // step: shrink_down_move
            probe!(p, SHRINK_DOWN_MOVE, to);
            to
        }
    }

    /// Gives chunk `c` back to the base allocator.
    fn free_chunk<P: Probe<W>>(heap: &mut Heap<W>, c: &Chunk<W>, p: &mut P) {
        let (base, size) = (c.desc.base, c.desc.size);
        heap.free(base, size); // step: free_chunk
        probe!(p, FREE_CHUNK, base, size);
        event!(p, ModelEvent::ChunkFreed { id: c.desc.id });
    }
}

impl<W: Word, const UP: bool, const MIN_ALIGN: u64> Model<W> for BumpScope<W, UP, MIN_ALIGN> {
    type Checkpoint = Checkpoint<W>;

    /// `Bump::new()`: the first chunk is made at once from the minimum size
    /// hint; with a capacity chosen, `Bump::with_capacity` (room for that
    /// many bytes at alignment 1).
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let hint = match opts.capacity {
            None => word(MINIMUM_CHUNK_SIZE),
            Some(c) => {
                let c = W::from_u64(c).ok_or(AllocError::HeapExhausted)?;
                Self::hint_for_capacity(c, W::ONE, p).ok_or(AllocError::HeapExhausted)?
            }
        };
        let size = Self::size_from_hint(hint, p).ok_or(AllocError::HeapExhausted)?;
        let chunk = Self::alloc_chunk_slow(heap, size, ChunkReason::First, hint, p)?;
        Ok(BumpScope {
            current: chunk,
            prev: Vec::new(),
            next: Vec::new(),
        })
    }

    fn direction(&self) -> Direction {
        if UP {
            Direction::Up
        } else {
            Direction::Down
        }
    }

    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        F::allocated(self.try_alloc(heap, layout, p))
    }

    /// A larger size goes through `grow`, an equal or smaller one through
    /// `shrink` (which leaves a block of the same size where it is).
    #[inline(always)]
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W> {
        if new_size > old.size {
            self.grow(heap, addr, old, new_size, p).into()
        } else {
            Allocated::ok(self.shrink(addr, old, new_size, p))
        }
    }

    /// `Allocator::deallocate`: only the last block gives its bytes back.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P) {
        if !self.is_last(addr, layout.size, p) {
            return;
        }
        let min_align: W = word(MIN_ALIGN);
        // Up: the pointer returns to the block's start (already aligned to
        // MIN_ALIGN). Down: to its end, rounded down to MIN_ALIGN.
        let pos = if UP {
            up_align(addr, min_align)
        } else {
            down_align(addr + layout.size, min_align)
        };
        self.current.pos = pos; // step: free_last
        probe!(p, FREE_LAST, addr, pos);
    }

    /// `Bump::reset()`: keeps the LAST chunk of the list (the newest, hence
    /// the largest, since each new chunk is at least twice the one before),
    /// even when a `reset_to` left an earlier chunk current, and frees the
    /// rest in the order the crate does: the ones before the current chunk
    /// (nearest first), then the current one and those after it.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        for c in self.prev.iter().rev() {
            Self::free_chunk(heap, c, p);
        }
        self.prev.clear();
        // The current chunk and those after it, in list order, but the last.
        if let Some((&last, after)) = self.next.split_first() {
            Self::free_chunk(heap, &self.current, p);
            for c in after.iter().rev() {
                Self::free_chunk(heap, c, p);
            }
            event!(p, ModelEvent::ChunkReused { id: last.desc.id });
            self.current = last;
            self.next.clear();
        }
        let kept = &mut self.current;
        let pos = kept.edge::<UP>();
        kept.pos = pos; // step: reset_pos
        probe!(p, RESET_POS, pos);
    }

    fn checkpoint(&self) -> Checkpoint<W> {
        Checkpoint {
            chunk: self.prev.len(),
            pos: self.current.pos,
        }
    }

    /// `reset_to(checkpoint)`: the checkpoint's chunk gets its bump pointer
    /// back and becomes current. Chunks made since stay in the list, their
    /// bump pointers untouched, until an allocation walks into them.
    fn restore<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, cp: &Checkpoint<W>, p: &mut P) {
        let pos = cp.pos;
        // Walk the list to the checkpoint's chunk.
        while self.prev.len() > cp.chunk {
            let Some(before) = self.prev.pop() else { break };
            self.next
                .push(core::mem::replace(&mut self.current, before));
        }
        while self.prev.len() < cp.chunk {
            let Some(after) = self.next.pop() else { break };
            self.prev.push(core::mem::replace(&mut self.current, after));
        }
        self.current.pos = pos; // step: restore
        probe!(p, RESTORE, pos);
        if !self.next.is_empty() {
            event!(
                p,
                ModelEvent::Note(
                    "the chunks made since the checkpoint are kept, to be reused before a new one is made"
                )
            );
        }
    }

    /// Chunks up to the current one hold `[edge, pos)`; those after it are
    /// empty whatever their stale bump pointer says, as the next allocation
    /// to reach them empties them first.
    fn used(&self, id: u32) -> Option<(W, W)> {
        let up_to_current = self.prev.iter().chain(core::iter::once(&self.current));
        let (c, pos) = match up_to_current.into_iter().find(|c| c.desc.id == id) {
            Some(c) => (c, c.pos),
            None => {
                let c = self.next.iter().find(|c| c.desc.id == id)?;
                (c, c.edge::<UP>())
            }
        };
        Some(if UP {
            (c.content_start(), pos)
        } else {
            (pos, c.content_end())
        })
    }

    fn bump_ptr(&self) -> Option<W> {
        Some(self.current.pos)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::BumpScope;
    UP_ALIGN_DOWN = "up_align_down": "round pos - 1 down to the alignment: one alignment below the block's start";
    UP_BLOCK_END = "up_block_end": "add alignment and size (saturating: an overflow reads as usize::MAX and fails)";
    UP_CHECK_PASS = "up_check_end" / "pass": "the block ends at or before the chunk's end: fits";
    UP_CHECK_FAIL = "up_check_end" / "fail": "the block would end past the chunk's end: no room";
    UP_BLOCK_START = "up_block_start": "the block starts one alignment above the rounded-down pointer";
    UP_ROUND_MIN = "up_round_min_align": "round the new bump pointer up to MIN_ALIGN";
    DOWN_SUB = "down_sub_size": "subtract the size from the bump pointer (saturating at 0)";
    DOWN_ALIGN = "down_align": "round down to the larger of the alignment and MIN_ALIGN";
    DOWN_CHECK_PASS = "down_check_start" / "pass": "still at or above the chunk's content start: fits";
    DOWN_CHECK_FAIL = "down_check_start" / "fail": "below the chunk's content start: no room";
    BUMP = "bump": "store the new bump pointer in the chunk header";
    REUSE_KEPT = "reuse_kept": "move into the next chunk, kept from before a reset_to, and empty it";
    REQUIRED_SIZE = "required_size": "chunk size hint that fits the request: overhead + header + size + worst padding + 16";
    GROWN_SIZE = "grown_size": "chunk size hint for growth: twice the last chunk's size";
    SIZE_ROUND = "size_round": "round the hint to a power of two (below 4 KiB) or to whole pages";
    SIZE_OVERHEAD = "size_minus_overhead": "leave malloc its assumed two words, keeping the size a multiple of 16";
    IS_LAST_YES = "is_last" / "last": "the block touches the bump pointer: it is the last one";
    IS_LAST_NO = "is_last" / "not_last": "the block is not next to the bump pointer";
    GROW_ROOM_PASS = "grow_room" / "pass": "the grown block still ends inside the chunk";
    GROW_ROOM_FAIL = "grow_room" / "fail": "the grown block would pass the chunk's end: no room";
    GROW_IN_PLACE = "grow_in_place": "grow in place: move the bump pointer to the new end (rounded to MIN_ALIGN)";
    GROW_DOWN_ADDR = "grow_down_addr": "the grown block's start: the old start minus the extra bytes, rounded down";
    GROW_DOWN_PASS = "grow_down_room" / "pass": "still inside the chunk: reuse the block's own space";
    GROW_DOWN_FAIL = "grow_down_room" / "fail": "below the chunk's content start: no room";
    GROW_DOWN_MOVE = "grow_down_move": "the bump pointer moves down to the grown block's start";
    COPY = "copy": "copy the block's bytes to its new place";
    SHRINK_UP = "shrink_up": "shrink in place: move the bump pointer back to the new end (rounded to MIN_ALIGN)";
    SHRINK_DOWN_ADDR = "shrink_down_addr": "the shrunk block's start: the old end minus the new size, rounded down";
    SHRINK_DOWN_MOVE = "shrink_down_move": "the bump pointer moves up to the shrunk block's start";
    FREE_LAST = "free_last": "the last block: move the bump pointer back over it (rounded to MIN_ALIGN)";
    FREE_CHUNK = "free_chunk": "give a chunk back to the base allocator";
    RESET_POS = "reset_pos": "empty the kept chunk: bump pointer back to its content edge";
    RESTORE = "restore": "the checkpoint's chunk becomes current with the saved bump pointer";
}
