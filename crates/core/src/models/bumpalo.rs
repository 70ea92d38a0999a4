//! bumpalo 3.20.4: bump DOWN through a list of chunks, each with its footer
//! at its END.
//!
//! What is modelled is what the `Allocator` API of `&Bump` does (allocate,
//! grow, shrink, deallocate) plus `Bump::reset`, with bumpalo's own
//! `realloc` choosing between grow and shrink:
//!
//! * `Bump::new()` owns no chunk: the current chunk is a shared empty one
//!   whose capacity is 0, so the first allocation fails the fast path and
//!   the slow path makes the first real chunk.
//! * A chunk is `capacity` usable bytes followed by the footer (data
//!   pointer, layout, link to the previous chunk, bump pointer, allocated
//!   bytes: six words, padded to 16). The bump pointer starts at the footer
//!   and moves down towards the data pointer.
//! * The next chunk is at least twice the current one, at least what the
//!   request needs and at least the default, then rounded so that it plus
//!   the footer plus an assumed malloc overhead is a power of two (below a
//!   page) or a multiple of a page. Whatever its size, it becomes current.
//! * `MIN_ALIGN` (1 to 16) keeps the bump pointer aligned to it at all
//!   times: a request aligned to at most `MIN_ALIGN` needs no runtime
//!   alignment, only its size rounded up.
//!
//! * A zero-size request gets a dangling pointer (its alignment used as an
//!   address) and touches no chunk, not even the first one.
//!
//! bumpalo has no checkpoints: `checkpoint`/`restore` are the playground's
//! emulation (save the current chunk and its bump pointer; restore rewinds
//! that pointer and gives back the chunks made since).

use core::cmp::Ordering;

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::{word, Word};
use crate::{event, probe};

/// Footers, and so chunk starts and ends, are aligned to 16: the alignment
/// `iter_allocated_chunks` promises its slices.
pub const CHUNK_ALIGN: u64 = 16;
/// A footer holds the data pointer, the chunk's layout (size and align),
/// the link to the previous chunk, the bump pointer and the running total
/// of allocated bytes: six words.
pub const FOOTER_WORDS: u64 = 6;
/// What bumpalo assumes the global allocator keeps beside each block.
pub const MALLOC_OVERHEAD: u64 = 16;
/// The first chunk aims at a 512-byte request to the global allocator,
/// counting its overhead and the footer.
pub const FIRST_ALLOCATION_GOAL: u64 = 1 << 9;
/// Chunks of a page or more are rounded to whole pages.
pub const TYPICAL_PAGE_SIZE: u64 = 0x1000;

const fn round_up_const(n: u64, divisor: u64) -> u64 {
    (n + divisor - 1) & !(divisor - 1)
}

/// The footer's size: six words rounded up to its 16-byte alignment (48
/// bytes with 8-byte words, 32 with wasm32's 4-byte words).
pub const fn footer_size(usize_bytes: u64) -> u64 {
    round_up_const(FOOTER_WORDS * usize_bytes, CHUNK_ALIGN)
}

/// Malloc overhead plus footer, kept a multiple of the chunk alignment.
pub const fn overhead(usize_bytes: u64) -> u64 {
    round_up_const(MALLOC_OVERHEAD + footer_size(usize_bytes), CHUNK_ALIGN)
}

/// Usable bytes of a default chunk: 448 on 64-bit targets, 464 on wasm32.
pub const fn default_chunk_capacity(usize_bytes: u64) -> u64 {
    FIRST_ALLOCATION_GOAL - overhead(usize_bytes)
}

/// The id the shared empty chunk goes by; the base allocator never hands
/// it out.
const EMPTY: u32 = u32::MAX;

/// `n` rounded up to a power-of-two `divisor`, or `None` on overflow.
#[inline(always)]
fn round_up_to<W: Word>(n: W, divisor: W) -> Option<W> {
    Some(n.checked_add(divisor - W::ONE)? & !(divisor - W::ONE))
}

/// `n` rounded up to a power-of-two `divisor` where the caller knows it
/// cannot overflow (the `Layout` bound: size rounded to align fits).
#[inline(always)]
fn round_up_to_unchecked<W: Word>(n: W, divisor: W) -> W {
    (n + (divisor - W::ONE)) & !(divisor - W::ONE)
}

/// `n` rounded down to a power-of-two `divisor`: one mask.
#[inline(always)]
fn round_down_to<W: Word>(n: W, divisor: W) -> W {
    n & !(divisor - W::ONE)
}

/// `n / 2`; the word type has no division, so it goes through `u64`.
#[inline(always)]
fn half<W: Word>(n: W) -> W {
    word(n.to_u64() / 2)
}

/// What one chunk's footer records (plus the base allocator's id for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Footer<W> {
    id: u32,
    /// The chunk's first byte, as the base allocator returned it.
    data: W,
    /// The bump pointer: the lowest byte in use, `data..=end`.
    ptr: W,
    /// The footer's own address, where the usable bytes end.
    end: W,
    /// The chunk's layout: usable bytes plus the footer, and its alignment.
    size: W,
    align: W,
}

/// The sizes `new_chunk_memory_details` settles on.
#[derive(Clone, Copy, Debug)]
struct ChunkDetails<W> {
    /// Usable bytes: from the data pointer to the footer.
    capacity: W,
    align: W,
    /// Bytes asked of the base allocator: capacity plus footer.
    size: W,
    /// The request rounded up to the chunk alignment.
    requested: W,
}

/// `bumpalo::Bump<MIN_ALIGN>`: the current chunk's footer and the older
/// chunks it links to.
#[derive(Clone, Debug)]
pub struct Bumpalo<W, const MIN_ALIGN: u64> {
    current: Footer<W>,
    /// The chunks before `current`, oldest first (bumpalo's `prev` links,
    /// walked the other way).
    prev: Vec<Footer<W>>,
}

impl<W: Word, const MIN_ALIGN: u64> Bumpalo<W, MIN_ALIGN> {
    const USIZE_BYTES: u64 = W::BITS as u64 / 8;
    pub const FOOTER_SIZE: u64 = footer_size(Self::USIZE_BYTES);
    pub const OVERHEAD: u64 = overhead(Self::USIZE_BYTES);
    pub const DEFAULT_CHUNK_SIZE_WITHOUT_FOOTER: u64 = default_chunk_capacity(Self::USIZE_BYTES);

    /// The shared empty chunk: its data pointer, bump pointer and footer
    /// coincide, so it has no room and every real request goes to the slow
    /// path. Its layout is a bare footer, so its capacity counts as 0.
    fn empty_chunk() -> Footer<W> {
        Footer {
            id: EMPTY,
            data: W::ZERO,
            ptr: W::ZERO,
            end: W::ZERO,
            size: word(Self::FOOTER_SIZE),
            align: word(CHUNK_ALIGN),
        }
    }

    #[inline(always)]
    fn is_last_allocation(&self, ptr: W) -> bool {
        self.current.ptr == ptr
    }

    /// `try_alloc_layout`: the fast path in the current chunk, else a new chunk.
    #[inline(always)]
    fn try_alloc_layout<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        match self.try_alloc_layout_fast(layout, p) {
            Some(ptr) => Allocated::ok(ptr),
            None => self.alloc_layout_slow(heap, layout, p),
        }
    }

    /// `try_alloc_layout_fast`: bump down in the current chunk, or `None`.
    /// `MIN_ALIGN` is a constant, so after inlining only the arm for the
    /// request's alignment class is left.
    #[inline(always)]
    fn try_alloc_layout_fast<P: Probe<W>>(&mut self, layout: Layout<W>, p: &mut P) -> Option<W> {
        // A zero-size block needs no bytes: its alignment, used as an
        // address, is a well-aligned dangling pointer. The chunk is not
        // touched (it may be the shared empty one).
        if layout.size == W::ZERO {
            let dangling = layout.align.max(word(MIN_ALIGN)); // step: zero_size
            probe!(p, ZERO_SIZE, dangling);
            return Some(dangling);
        }

        let ptr = self.current.ptr;
        let start = self.current.data;
        let size = layout.size;
        let align = layout.align;
        let min_align = word::<W>(MIN_ALIGN);

        let new_ptr = match align.cmp(&min_align) {
            Ordering::Less => {
                // The bump pointer is always MIN_ALIGN-aligned, so keeping it
                // so means rounding the size up. The Layout bound covers the
                // size rounded to its own (smaller) align only, so this
                // rounding is checked.
                let Some(aligned_size) = round_up_to(size, min_align) else {
                    // step: round_size_min
                    probe!(p, ROUND_MIN_OVERFLOW, size, min_align);
                    return None;
                };
                probe!(p, ROUND_MIN, size, min_align, aligned_size);
                // ptr >= start always, so this cannot wrap.
                let capacity = ptr - start;
                if aligned_size > capacity {
                    // step: room_min
                    probe!(p, ROOM_MIN_FAIL, aligned_size, capacity);
                    return None;
                }
                probe!(p, ROOM_MIN_PASS, aligned_size, capacity);
                ptr - aligned_size
            }
            Ordering::Equal => {
                // The Layout bound: rounding the size to its align fits.
                let aligned_size = round_up_to_unchecked(size, align); // step: round_size_eq
                probe!(p, ROUND_EQ, size, align, aligned_size);
                let capacity = ptr - start;
                if aligned_size > capacity {
                    // step: room_eq
                    probe!(p, ROOM_EQ_FAIL, aligned_size, capacity);
                    return None;
                }
                probe!(p, ROOM_EQ_PASS, aligned_size, capacity);
                ptr - aligned_size
            }
            Ordering::Greater => {
                let aligned_size = round_up_to_unchecked(size, align); // step: round_size
                probe!(p, ROUND_SIZE, size, align, aligned_size);
                let aligned_ptr = round_down_to(ptr, align); // step: round_ptr
                probe!(p, ROUND_PTR, ptr, aligned_ptr);
                // With little room left and a large align, rounding down
                // may fall below the chunk start: then the wrapped capacity
                // is never looked at, the first test has already failed.
                let capacity = aligned_ptr.wrapping_sub(start);
                if aligned_ptr < start || aligned_size > capacity {
                    // step: room
                    probe!(p, ROOM_FAIL, aligned_ptr, start, aligned_size, capacity);
                    return None;
                }
                probe!(p, ROOM_PASS, aligned_ptr, start, aligned_size, capacity);
                aligned_ptr - aligned_size
            }
        };

        self.current.ptr = new_ptr; // step: bump
        probe!(p, BUMP, new_ptr);
        Some(new_ptr)
    }

    /// `alloc_layout_slow`: get a new chunk, make it current, bump in it.
    /// One word back (see [`Allocated`]): a `Result` would come back
    /// through memory on wasm32 and give the inlined fast path a frame.
    #[cold]
    #[inline(never)]
    fn alloc_layout_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        self.new_chunk_and_alloc(heap, layout, p).into()
    }

    #[inline(always)]
    fn new_chunk_and_alloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let first = self.current.id == EMPTY;
        // The current chunk's usable bytes (0 for the empty chunk, whose
        // layout is a bare footer).
        let previous = self.current.size - word(Self::FOOTER_SIZE);
        let request = layout.size;
        let default = word::<W>(Self::DEFAULT_CHUNK_SIZE_WITHOUT_FOOTER);
        let min_new = request.max(default);
        // A chunk that exists is at most isize::MAX, so doubling it cannot
        // overflow usize on a real target; bumpalo checks all the same.
        let Some(doubled) = previous.checked_add(previous) else {
            return Err(AllocError::HeapExhausted);
        };
        let mut base_size = doubled.max(min_new); // step: chunk_size
        probe!(p, CHUNK_SIZE, previous, doubled, request, default, base_size);

        // Try the size, then halves of it while it still covers the request:
        // a smaller chunk is better than failing when the base allocator is
        // short of room.
        let footer = loop {
            if base_size < min_new {
                // step: give_up
                probe!(p, GIVE_UP, base_size, min_new);
                return Err(AllocError::HeapExhausted);
            }
            let size = base_size;
            base_size = half(base_size); // step: halve
            probe!(p, HALVE, size, base_size);
            let Some(details) = Self::new_chunk_memory_details(size, layout, p) else {
                return Err(AllocError::HeapExhausted);
            };
            let reason = if first {
                ChunkReason::First
            } else if details.requested > doubled {
                ChunkReason::Oversized
            } else {
                ChunkReason::Full
            };
            if let Some(footer) = Self::new_chunk(heap, details, layout, reason, p) {
                break footer;
            }
        };

        // The new chunk is current whatever its size; the old one stays
        // linked behind it with its bytes as they are.
        let old = core::mem::replace(&mut self.current, footer);
        if old.id != EMPTY {
            self.prev.push(old);
        }
        // The chunk was sized for the request, so the fast path succeeds.
        self.try_alloc_layout_fast(layout, p)
            .ok_or(AllocError::HeapExhausted)
    }

    /// `new_chunk_memory_details`: the usable size, alignment and total
    /// size of a chunk meant to hold at least `size` bytes and `layout`.
    fn new_chunk_memory_details<P: Probe<W>>(
        size: W,
        layout: Layout<W>,
        p: &mut P,
    ) -> Option<ChunkDetails<W>> {
        let chunk_align = word::<W>(CHUNK_ALIGN);
        let min_align = word::<W>(MIN_ALIGN);
        let request_align = layout.align;
        let align = chunk_align.max(min_align).max(request_align); // step: chunk_align
        probe!(
            p,
            CHUNK_ALIGN_STEP,
            chunk_align,
            min_align,
            request_align,
            align
        );

        // A Layout's size is at most isize::MAX, so rounding it up to at
        // most a page cannot overflow; bumpalo panics if it ever did.
        let requested = round_up_to(layout.size, align)?;
        let mut capacity = size.max(requested); // step: request_size
        probe!(p, REQUEST_SIZE, size, requested, capacity);

        let overhead = word::<W>(Self::OVERHEAD);
        let page = word::<W>(TYPICAL_PAGE_SIZE);
        if capacity < page {
            // Below a page the sum is under 4096 + 64: no overflow, and the
            // next power of two is at most 8192.
            let total = capacity + overhead;
            let rounded = word::<W>(total.to_u64().next_power_of_two());
            capacity = rounded - overhead; // step: round_pow2
            probe!(p, ROUND_POW2, total, rounded, capacity);
        } else {
            // bumpalo adds the overhead unchecked (capacity is at most twice
            // a chunk that exists, or a Layout's size); checked here so a
            // silly request fails instead of wrapping.
            let total = capacity.checked_add(overhead)?;
            let rounded = round_up_to(total, page)?;
            capacity = rounded - overhead; // step: round_page
            probe!(p, ROUND_PAGE, total, rounded, capacity);
        }

        // Both roundings keep the capacity a multiple of 16, so the footer
        // right after it is 16-aligned.
        let size = capacity.checked_add(word(Self::FOOTER_SIZE))?;
        Some(ChunkDetails {
            capacity,
            align,
            size,
            requested,
        })
    }

    /// `new_chunk`: one chunk from the base allocator with its footer
    /// written at the end, or `None` when the base allocator refuses.
    fn new_chunk<P: Probe<W>>(
        heap: &mut Heap<W>,
        details: ChunkDetails<W>,
        layout: Layout<W>,
        reason: ChunkReason,
        p: &mut P,
    ) -> Option<Footer<W>> {
        let ChunkDetails {
            capacity,
            align,
            size,
            ..
        } = details;
        // `Layout::from_size_align`: the size rounded up to the align must
        // not exceed isize::MAX.
        if round_up_to(size, align).is_none_or(|r| r > W::ISIZE_MAX) {
            return None;
        }
        let Some((id, data)) = heap.alloc(size, align) else {
            // step: heap_alloc
            probe!(p, HEAP_REFUSED, size, align);
            return None;
        };
        probe!(p, HEAP_ALLOC, size, align, data);

        // The footer takes the last FOOTER_SIZE bytes; the bump pointer
        // starts at it, rounded down to MIN_ALIGN (a no-op: the footer is
        // 16-aligned and MIN_ALIGN is at most 16).
        let end = data + capacity;
        let ptr = round_down_to(end, word(MIN_ALIGN)); // step: chunk_ptr
        probe!(p, CHUNK_PTR, data, end, ptr);
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: ChunkDesc {
                    id,
                    base: data,
                    size,
                    start: data,
                    capacity,
                    header: W::ZERO,
                    footer: word(Self::FOOTER_SIZE),
                },
                reason,
                requested: layout.size,
            }
        );
        Some(Footer {
            id,
            data,
            ptr,
            end,
            size,
            align,
        })
    }

    /// `Bump::grow`: extend the last block downwards when it has the room,
    /// else allocate anew and copy.
    fn grow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        ptr: W,
        old: Layout<W>,
        new: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let old_size = old.size;
        let min_align = word::<W>(MIN_ALIGN);
        let requested = new.size;
        // Cannot overflow for a valid Layout (size <= isize::MAX, MIN_ALIGN <= 16).
        let Some(new_size) = round_up_to(requested, min_align) else {
            // step: grow_round
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, GROW_ROUND, requested, min_align, new_size);

        let align_is_compatible = old.align >= new.align;
        let bump_ptr = self.current.ptr;
        if align_is_compatible && self.is_last_allocation(ptr) {
            // step: grow_is_last
            probe!(p, GROW_LAST_YES, ptr, bump_ptr);
            // The block keeps its bytes and gains `delta` more below them.
            let delta = new_size - old_size; // step: grow_delta
            probe!(p, GROW_DELTA, new_size, old_size, delta);
            if delta == W::ZERO {
                return Ok(ptr);
            }
            let extra = Layout {
                size: delta,
                align: old.align,
            };
            if let Some(new_ptr) = self.try_alloc_layout_fast(extra, p) {
                // The new block starts below the old one and overlaps it:
                // a memmove, not a memcpy.
                let bytes = old_size; // step: copy_within
                probe!(p, COPY_WITHIN, ptr, new_ptr, bytes);
                event!(p, ModelEvent::Copied { bytes });
                return Ok(new_ptr);
            }
        } else {
            probe!(p, GROW_LAST_NO, ptr, bump_ptr);
        }

        // A fresh block (maybe in a new chunk); the old bytes stay where
        // they are until a reset.
        let new_ptr = self.try_alloc_layout(heap, new, p).result()?;
        let bytes = old_size; // step: grow_copy
        probe!(p, GROW_COPY, ptr, new_ptr, bytes);
        event!(p, ModelEvent::Copied { bytes });
        Ok(new_ptr)
    }

    /// `Bump::shrink`: only the last block moves, and only when that gives
    /// back at least half of it, so the copy never overlaps.
    fn shrink<P: Probe<W>>(&mut self, ptr: W, old: Layout<W>, new: Layout<W>, p: &mut P) -> W {
        // bumpalo also handles a shrink that raises the alignment (keep the
        // block if it already meets it, else allocate and copy); the engine's
        // realloc keeps a block's alignment, so that branch is not modelled.
        debug_assert!(old.align >= new.align, "realloc keeps the alignment");
        let old_size = old.size;
        let new_size = new.size;
        let unit = new.align.max(word(MIN_ALIGN));
        // What moving the block up would give back while keeping it (and the
        // bump pointer) aligned.
        let delta = round_down_to(old_size - new_size, unit); // step: shrink_delta
        probe!(p, SHRINK_DELTA, old_size, new_size, unit, delta);

        // Half of the old size, rounded up: with delta at least that, the
        // kept bytes and their new place cannot overlap. old_size is at most
        // isize::MAX, so the + 1 cannot overflow.
        let half_old = half(old_size + W::ONE);
        let bump_ptr = self.current.ptr;
        if self.is_last_allocation(ptr) && delta >= half_old {
            // step: shrink_check
            probe!(p, SHRINK_PASS, ptr, bump_ptr, delta, half_old);
            // delta <= old_size, so this stays inside the chunk.
            let new_ptr = bump_ptr + delta;
            self.current.ptr = new_ptr; // step: shrink_bump
            probe!(p, SHRINK_BUMP, new_ptr);
            let bytes = new_size; // step: shrink_copy
            probe!(p, SHRINK_COPY, ptr, new_ptr, bytes);
            event!(p, ModelEvent::Copied { bytes });
            return new_ptr;
        }
        probe!(p, SHRINK_KEEP, ptr, bump_ptr, delta, half_old);
        ptr
    }

    /// Gives a chunk back to the base allocator.
    fn free_chunk<P: Probe<W>>(heap: &mut Heap<W>, chunk: Footer<W>, p: &mut P) {
        heap.free(chunk.data, chunk.size);
        event!(p, ModelEvent::ChunkFreed { id: chunk.id });
    }
}

impl<W: Word, const MIN_ALIGN: u64> Model<W> for Bumpalo<W, MIN_ALIGN> {
    /// The current chunk (or `EMPTY`) and its bump pointer: the
    /// playground's emulation, bumpalo has no checkpoints.
    type Checkpoint = (u32, W);

    /// `Bump::<MIN_ALIGN>::with_min_align()` (no chunk), or
    /// `with_min_align_and_capacity(capacity)` when a capacity is chosen:
    /// then the first chunk is made at once, sized as a request of
    /// `capacity` bytes aligned to MIN_ALIGN would size it.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        assert!(
            MIN_ALIGN.is_power_of_two() && MIN_ALIGN <= CHUNK_ALIGN,
            "bumpalo's MIN_ALIGN is a power of two up to 16"
        );
        let mut bump = Bumpalo {
            current: Self::empty_chunk(),
            prev: Vec::new(),
        };
        if let Some(capacity) = opts.capacity.filter(|&c| c > 0) {
            let size = W::from_u64(capacity).ok_or(AllocError::HeapExhausted)?;
            let layout = Layout {
                size,
                align: word(MIN_ALIGN),
            };
            let default = word(Self::DEFAULT_CHUNK_SIZE_WITHOUT_FOOTER);
            let details = Self::new_chunk_memory_details(default, layout, p)
                .ok_or(AllocError::HeapExhausted)?;
            bump.current = Self::new_chunk(heap, details, layout, ChunkReason::First, p)
                .ok_or(AllocError::HeapExhausted)?;
        }
        Ok(bump)
    }

    fn direction(&self) -> Direction {
        Direction::Down
    }

    /// `<&Bump as Allocator>::allocate`.
    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        F::allocated(self.try_alloc_layout(heap, layout, p))
    }

    /// bumpalo's own `realloc` (its `Alloc` impl), which keeps the
    /// alignment as the engine does: an empty old block is simply
    /// allocated anew; otherwise `shrink` when the size does not grow,
    /// `grow` when it does. Through the `Allocator` API the same calls give
    /// the same blocks.
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
        if old_size == W::ZERO {
            // step: realloc_zero
            probe!(p, REALLOC_FROM_ZERO, old_size, new_size);
            return self.try_alloc_layout(heap, new, p);
        }
        if new_size <= old_size {
            Allocated::ok(self.shrink(addr, old, new, p))
        } else {
            self.grow(heap, addr, old, new, p).into()
        }
    }

    /// `<&Bump as Allocator>::deallocate`: only the last block comes back,
    /// and not the padding that was skipped to align it.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P) {
        let bump_ptr = self.current.ptr;
        if !self.is_last_allocation(addr) {
            // step: dealloc_is_last
            probe!(p, DEALLOC_LAST_NO, addr, bump_ptr);
            return;
        }
        probe!(p, DEALLOC_LAST_YES, addr, bump_ptr);
        let size = layout.size;
        let min_align = word::<W>(MIN_ALIGN);
        // The block ends inside the chunk and the footer is 16-aligned, so
        // rounding its end up to MIN_ALIGN stays at or below the footer.
        let new_ptr = round_up_to_unchecked(bump_ptr + size, min_align);
        self.current.ptr = new_ptr; // step: dealloc
        probe!(p, DEALLOC, size, min_align, new_ptr);
    }

    /// `Bump::reset`: every chunk but the current one goes back to the base
    /// allocator; the current one's bump pointer goes back to its footer.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        if self.current.id == EMPTY {
            let ptr = self.current.ptr; // step: reset_empty
            probe!(p, RESET_EMPTY, ptr);
            return;
        }
        // bumpalo walks its list from the newest older chunk to the oldest.
        while let Some(chunk) = self.prev.pop() {
            let (data, size) = (chunk.data, chunk.size);
            Self::free_chunk(heap, chunk, p); // step: reset_free
            probe!(p, RESET_FREE, data, size);
        }
        let ptr = self.current.end;
        self.current.ptr = ptr; // step: reset
        probe!(p, RESET, ptr);
    }

    fn checkpoint(&self) -> (u32, W) {
        (self.current.id, self.current.ptr)
    }

    /// The playground's emulation of a checkpoint, which bumpalo lacks:
    /// chunks made since go back to the base allocator (newest first, as
    /// bumpalo frees a chunk list), the saved chunk is current again and its
    /// bump pointer is the saved one: the arena is as it was at the
    /// checkpoint (bytes freed since the checkpoint are taken back with the
    /// rest, as every other emulated restore and bump-scope's own
    /// `reset_to` do).
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &(u32, W), p: &mut P) {
        event!(
            p,
            ModelEvent::Note(
                "bumpalo has no checkpoints: this restore is the playground's emulation (the chunks made since the checkpoint are freed, the saved chunk is current again with its saved bump pointer)"
            )
        );
        let (id, saved) = *cp;
        let keep = if id == EMPTY {
            Some(0)
        } else if id == self.current.id {
            None
        } else {
            match self.prev.iter().position(|c| c.id == id) {
                Some(i) => Some(i + 1),
                // The engine drops a checkpoint whose chunk can be gone.
                None => return,
            }
        };
        if let Some(keep) = keep {
            // Newest first, as bumpalo frees a chunk list.
            let current = core::mem::replace(&mut self.current, Self::empty_chunk());
            if current.id != EMPTY {
                let (data, size) = (current.data, current.size);
                Self::free_chunk(heap, current, p); // step: restore_free
                probe!(p, RESTORE_FREE, data, size);
            }
            while self.prev.len() > keep {
                if let Some(chunk) = self.prev.pop() {
                    let (data, size) = (chunk.data, chunk.size);
                    Self::free_chunk(heap, chunk, p);
                    probe!(p, RESTORE_FREE, data, size);
                }
            }
            if id != EMPTY {
                if let Some(saved_chunk) = self.prev.pop() {
                    self.current = saved_chunk;
                    event!(p, ModelEvent::ChunkReused { id });
                }
            }
        }
        if id != EMPTY {
            let ptr = saved;
            self.current.ptr = ptr; // step: restore
            probe!(p, RESTORE, ptr);
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        if id == EMPTY {
            return None;
        }
        core::iter::once(&self.current)
            .chain(self.prev.iter())
            .find(|c| c.id == id)
            .map(|c| (c.ptr, c.end))
    }

    fn bump_ptr(&self) -> Option<W> {
        (self.current.id != EMPTY).then_some(self.current.ptr)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::Bumpalo;
    ZERO_SIZE = "zero_size": "size 0: hand out the alignment as a dangling pointer; no chunk is touched";
    ROUND_MIN = "round_size_min": "align below MIN_ALIGN: round the size up to MIN_ALIGN, no pointer rounding";
    ROUND_MIN_OVERFLOW = "round_size_min" / "overflow": "rounding the size up to MIN_ALIGN overflowed";
    ROOM_MIN_PASS = "room_min" / "pass": "the rounded size fits between the chunk start and the bump pointer";
    ROOM_MIN_FAIL = "room_min" / "fail": "the rounded size is more than the room left: no room";
    ROUND_EQ = "round_size_eq": "align equals MIN_ALIGN: round the size up to it, the pointer is already aligned";
    ROOM_EQ_PASS = "room_eq" / "pass": "the rounded size fits between the chunk start and the bump pointer";
    ROOM_EQ_FAIL = "room_eq" / "fail": "the rounded size is more than the room left: no room";
    ROUND_SIZE = "round_size": "align above MIN_ALIGN: round the size up to the align";
    ROUND_PTR = "round_ptr": "round the bump pointer down to the align (one mask)";
    ROOM_PASS = "room" / "pass": "the aligned pointer is in the chunk and the size fits below it";
    ROOM_FAIL = "room" / "fail": "below the chunk start, or the size does not fit: no room";
    BUMP = "bump": "move the bump pointer down to the block";
    CHUNK_SIZE = "chunk_size": "next chunk: the largest of twice the current one, the request and the default";
    HALVE = "halve": "keep half of it in reserve, for when the base allocator refuses";
    GIVE_UP = "give_up" / "fail": "halved below what the request needs: the allocation fails";
    CHUNK_ALIGN_STEP = "chunk_align": "chunk alignment: 16, MIN_ALIGN or the request's, whichever is largest";
    REQUEST_SIZE = "request_size": "at least the request rounded up to the chunk alignment";
    ROUND_POW2 = "round_pow2": "under a page: grow so capacity + overhead is a power of two";
    ROUND_PAGE = "round_page": "a page or more: grow so capacity + overhead is a whole number of pages";
    HEAP_ALLOC = "heap_alloc": "ask the base allocator for capacity + footer bytes";
    HEAP_REFUSED = "heap_alloc" / "refused": "the base allocator has no room for this chunk";
    CHUNK_PTR = "chunk_ptr": "the footer goes at the end; the bump pointer starts right below it";
    REALLOC_FROM_ZERO = "realloc_zero": "the old block is empty: just allocate the new one";
    GROW_ROUND = "grow_round": "round the new size up to MIN_ALIGN";
    GROW_LAST_YES = "grow_is_last" / "yes": "the block is the last one allocated: try to extend it downwards";
    GROW_LAST_NO = "grow_is_last" / "no": "not the last block: allocate a new one and copy";
    GROW_DELTA = "grow_delta": "the extra bytes needed, allocated right below the block";
    COPY_WITHIN = "copy_within": "move the old bytes down to the new start (the ranges overlap)";
    GROW_COPY = "grow_copy": "copy the old bytes to the new block; the old one stays behind";
    SHRINK_DELTA = "shrink_delta": "bytes a shrink would give back, rounded down to the alignment";
    SHRINK_PASS = "shrink_check" / "pass": "last block and at least half of it comes back: move it up";
    SHRINK_KEEP = "shrink_check" / "keep": "not the last block, or less than half would come back: stay in place";
    SHRINK_BUMP = "shrink_bump": "move the bump pointer up by the bytes given back";
    SHRINK_COPY = "shrink_copy": "copy the kept bytes up to the new start (the ranges do not overlap)";
    DEALLOC_LAST_YES = "dealloc_is_last" / "yes": "the block is at the bump pointer: its bytes can come back";
    DEALLOC_LAST_NO = "dealloc_is_last" / "no": "not the last block: its bytes stay until a reset";
    DEALLOC = "dealloc": "move the bump pointer up past the block, rounded up to MIN_ALIGN";
    RESET_EMPTY = "reset_empty": "no chunk yet: nothing to reset";
    RESET_FREE = "reset_free": "give an older chunk back to the base allocator";
    RESET = "reset": "move the current chunk's bump pointer back to its footer";
    RESTORE_FREE = "restore_free": "give back a chunk made after the checkpoint";
    RESTORE = "restore": "the saved chunk's bump pointer back where it was at the checkpoint";
}
