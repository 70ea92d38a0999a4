//! The C++ parser arena (the seed 004 document): `ArenaMemoryResource`.
//!
//! Pools form a singly linked list; the resource points at the first and
//! the last. Each pool is one `new std::byte[]` array whose first bytes hold
//! the pool's own header (next pointer, total capacity, remaining capacity:
//! three words, 24 bytes on 64-bit, 12 on wasm32); its usable bytes follow.
//! The arena bumps up with `std::align`.
//!
//! What the document's code does, quirks included:
//! - No pool exists until the first `allocate`. Every new pool, the first
//!   included, gets `max(cap * 2, (n / cap) * 2 * cap)` bytes, with `cap` the
//!   last pool's capacity (the initial capacity, 1024, for the first): so the
//!   first pool has 2048 and the next ones double.
//! - A new pool is made when `remaining <= n`: an exact fit still makes a
//!   pool, and the test ignores the alignment padding.
//! - `std::align` then takes the padding out of `remaining`, or fails when
//!   padding + n does not fit, and the code throws `std::bad_alloc` (it does
//!   not try a new pool). After it, the code takes `n` off `remaining`.
//! - `deallocate` does nothing; memory goes back when the resource dies.
//!
//! The document has no realloc, reset or checkpoints. The model's realloc
//! allocates and copies (as a container does with a std allocator), reset
//! frees every pool (destroying and recreating the resource), and a
//! checkpoint restore frees the pools made since and puts the last pool's
//! remaining capacity back; each says so in a note.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// `initial_capacity_`'s default.
pub const DEFAULT_INITIAL_CAPACITY: u64 = 1024;
/// Words in a pool header: next pointer, total and remaining capacity.
pub const HEADER_WORDS: u64 = 3;
/// `new std::byte[]` alignment (`__STDCPP_DEFAULT_NEW_ALIGNMENT__`).
const NEW_ALIGN: u64 = 16;

/// One pool: its byte array, header first, and the header's remaining
/// capacity (the total capacity is the chunk's capacity; the next pointer
/// is the order of the list).
#[derive(Clone, Copy, Debug)]
struct Pool<W> {
    chunk: ChunkDesc<W>,
    remaining: W,
}

impl<W: Word> Pool<W> {
    /// The first free byte: header end plus the bytes used (`size()`).
    fn position(&self) -> W {
        self.chunk.start + (self.chunk.capacity - self.remaining)
    }

    /// `ArenaMemoryResourcePool::allocate`: `std::align`, then take `n` off.
    #[inline(always)]
    fn allocate<P: Probe<W>>(&mut self, n: W, align: W, p: &mut P) -> Result<W, AllocError> {
        let new_start = self.position(); // step: position
        let space = self.remaining;
        probe!(p, POSITION, new_start, space);

        // std::align, as libstdc++ writes it: it fails, changing nothing, if
        // n or then padding + n is more than the space.
        if space < n {
            // step: align_space
            probe!(p, SPACE_FAIL, n, space);
            return Err(bad_alloc_slow(p));
        }
        probe!(p, SPACE_PASS, n, space);
        let padding = W::ZERO.wrapping_sub(new_start) & (align - W::ONE); // step: align_offset
        probe!(p, OFFSET, new_start, align, padding);
        // space >= n, so space - n cannot wrap.
        let room = space - n;
        if padding > room {
            // step: align_fit
            probe!(p, FIT_FAIL, padding, room);
            return Err(bad_alloc_slow(p));
        }
        probe!(p, FIT_PASS, padding, room);
        let aligned = new_start + padding;

        // std::align took the padding off; the arena then takes n.
        let remaining = space - padding - n; // step: bump
        self.remaining = remaining;
        probe!(p, BUMP, aligned, remaining);
        Ok(aligned)
    }
}

/// The document's `throw std::bad_alloc{}`.
#[cold]
#[inline(never)]
fn bad_alloc_slow<W: Word, P: Probe<W>>(p: &mut P) -> AllocError {
    event!(
        p,
        ModelEvent::Note("std::align failed: padding + n is more than the remaining capacity, but the new-pool check compared n alone, so the code throws std::bad_alloc instead of making a pool")
    );
    AllocError::BadAlloc
}

/// `ArenaMemoryResource`.
#[derive(Clone, Debug)]
pub struct CppArena<W> {
    /// The list from `pool_` to `last_pool_`, in order.
    pools: Vec<Pool<W>>,
    initial_capacity: W,
}

/// How many pools there were and what the last one had left.
#[derive(Clone, Copy, Debug)]
pub struct ArenaCheckpoint<W> {
    pools: usize,
    remaining: W,
}

impl<W: Word> CppArena<W> {
    /// `sizeof(ArenaMemoryResourcePool)`: three words.
    fn header_size() -> W {
        W::from_u64(HEADER_WORDS * u64::from(W::BITS / 8)).expect("a few bytes")
    }

    /// `create_pool`, appended to the list, then its `allocate`. `cap` is the
    /// last pool's capacity, or the initial capacity for the first pool.
    /// One word back (see [`Allocated`]), so the inlined fast path needs no
    /// stack slot for a returned `Result`.
    #[cold]
    #[inline(never)]
    fn new_pool_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        self.new_pool(heap, layout, p).into()
    }

    #[inline(always)]
    fn new_pool<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let n = layout.size;
        let (cap, first) = match self.pools.last() {
            Some(last) => (last.chunk.capacity, false),
            None => (self.initial_capacity, true),
        };
        if P::EVENTS {
            if let Some(last) = self.pools.last() {
                if last.remaining == n {
                    event!(p, ModelEvent::Note("an exact fit: remaining == n, yet the check is remaining <= n, so the arena makes a new pool and leaves these bytes unused"));
                }
            }
        }
        // Computed in 64 bits, where neither product overflows for any size
        // the engine passes (n is at most isize::MAX, so (n / cap) * cap is
        // too). A 32-bit size_t could wrap; a size that does not fit the
        // target is no array new[] could make, and it would throw.
        let (cap64, n64) = (cap.to_u64(), n.to_u64());
        let doubled = cap64.checked_mul(2);
        let scaled = (n64 / cap64)
            .checked_mul(2)
            .and_then(|k| k.checked_mul(cap64));
        let (Some(doubled), Some(scaled)) = (doubled, scaled) else {
            return Err(AllocError::HeapExhausted);
        };
        let new_size = W::from_u64(doubled.max(scaled)).ok_or(AllocError::HeapExhausted)?; // step: pool_size
        probe!(p, POOL_SIZE, cap, n, new_size);

        let header = Self::header_size();
        let bytes = new_size
            .checked_add(header)
            .ok_or(AllocError::HeapExhausted)?;
        let align = W::from_u64(NEW_ALIGN).expect("16 fits");
        let (id, base) = heap.alloc(bytes, align).ok_or(AllocError::HeapExhausted)?;
        let chunk = ChunkDesc {
            id,
            base,
            size: bytes,
            start: base + header,
            capacity: new_size,
            header,
            footer: W::ZERO,
        };
        let reason = if first {
            ChunkReason::First
        } else if scaled > doubled {
            ChunkReason::Oversized
        } else {
            ChunkReason::Full
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk,
                reason,
                requested: n
            }
        );
        let mut pool = Pool {
            chunk,
            remaining: new_size,
        };
        // The pool is linked in before its allocate runs, so it stays even
        // when std::align fails.
        let result = pool.allocate(n, layout.align, p);
        self.pools.push(pool);
        result
    }

    /// `ArenaMemoryResource::allocate`.
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        let n = layout.size;
        let Some(last) = self.pools.last_mut() else {
            // step: first_pool
            probe!(p, FIRST, n);
            return self.new_pool_slow(heap, layout, p);
        };
        let remaining = last.remaining;
        if remaining <= n {
            // step: check_remaining
            probe!(p, REMAINING_FAIL, remaining, n);
            return self.new_pool_slow(heap, layout, p);
        }
        probe!(p, REMAINING_PASS, remaining, n);
        last.allocate(n, layout.align, p).into()
    }

    /// Deletes the pools from index `keep` on.
    #[cold]
    #[inline(never)]
    fn free_pools_slow<P: Probe<W>>(&mut self, heap: &mut Heap<W>, keep: usize, p: &mut P) {
        for pool in self.pools.drain(keep..) {
            let c = pool.chunk;
            let base = c.base;
            heap.free(base, c.size); // step: free_pool
            probe!(p, FREE_POOL, base);
            event!(p, ModelEvent::ChunkFreed { id: c.id });
        }
    }
}

impl<W: Word> Model<W> for CppArena<W> {
    type Checkpoint = ArenaCheckpoint<W>;

    /// The resource starts with no pool.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let _ = (heap, p);
        // 0 would divide by zero in the growth formula; the engine never passes it.
        let initial = opts
            .capacity
            .filter(|&c| c > 0)
            .unwrap_or(DEFAULT_INITIAL_CAPACITY);
        Ok(CppArena {
            pools: Vec::new(),
            initial_capacity: W::from_u64(initial).ok_or(AllocError::HeapExhausted)?,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `ArenaMemoryResource::allocate`.
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
        event!(p, ModelEvent::Note("std allocators have no realloc: a container allocates the new size, copies, and deallocates the old block (a no-op here)"));
        let layout = Layout {
            size: new_size,
            align: old.align,
        };
        let new = match self.allocate(heap, layout, p).result() {
            Ok(new) => new,
            Err(e) => return Allocated::err(e),
        };
        let copied = old.size.min(new_size); // step: copy
        probe!(p, COPY, addr, new, copied);
        event!(p, ModelEvent::Copied { bytes: copied });
        Allocated::ok(new)
    }

    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        let _ = addr; // step: free
        probe!(p, FREE, addr);
        event!(
            p,
            ModelEvent::Note(
                "deallocate is a no-op: the arena frees its pools only when it is destroyed"
            )
        );
    }

    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        event!(p, ModelEvent::Note("the document's arena has no reset: this destroys the resource (every pool is deleted) and starts a new one with no pool"));
        self.free_pools_slow(heap, 0, p);
    }

    fn checkpoint(&self) -> ArenaCheckpoint<W> {
        ArenaCheckpoint {
            pools: self.pools.len(),
            remaining: self.pools.last().map_or(W::ZERO, |l| l.remaining),
        }
    }

    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &ArenaCheckpoint<W>, p: &mut P) {
        event!(p, ModelEvent::Note("the document's arena has no checkpoints: this emulates one by deleting the pools made since and putting the last pool's remaining capacity back"));
        let before = self.pools.len();
        if before > cp.pools {
            self.free_pools_slow(heap, cp.pools, p);
        }
        // A checkpoint saved before a reset no longer matches the list; the
        // engine drops those, and the model ignores one if it gets it.
        if self.pools.len() != cp.pools {
            return;
        }
        let Some(last) = self.pools.last_mut() else {
            return;
        };
        let remaining = cp.remaining;
        last.remaining = remaining; // step: restore
        probe!(p, RESTORE, remaining);
        if before > cp.pools {
            event!(p, ModelEvent::ChunkReused { id: last.chunk.id });
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        self.pools
            .iter()
            .find(|pool| pool.chunk.id == id)
            .map(|pool| (pool.chunk.start, pool.position()))
    }

    fn bump_ptr(&self) -> Option<W> {
        self.pools.last().map(Pool::position)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::CppArena;
    FIRST = "first_pool": "no pool yet: the first allocation makes one";
    REMAINING_PASS = "check_remaining" / "pass": "remaining > n: use the last pool (padding not counted)";
    REMAINING_FAIL = "check_remaining" / "fail": "remaining <= n: make a new pool (even for an exact fit)";
    POOL_SIZE = "pool_size": "new pool size: max(cap * 2, (n / cap) * 2 * cap)";
    POSITION = "position": "first free byte: pool start + (total - remaining)";
    SPACE_PASS = "align_space" / "pass": "std::align: n is within the space left";
    SPACE_FAIL = "align_space" / "fail": "std::align: n is more than the space left";
    OFFSET = "align_offset": "std::align: padding up to the alignment";
    FIT_PASS = "align_fit" / "pass": "std::align: padding fits; it comes off the remaining capacity";
    FIT_FAIL = "align_fit" / "fail": "std::align: padding + n does not fit: std::bad_alloc";
    BUMP = "bump": "take n off the remaining capacity";
    FREE = "free": "deallocate is a no-op";
    COPY = "copy": "copy the old bytes to the new block";
    FREE_POOL = "free_pool": "delete[] a pool's byte array";
    RESTORE = "restore": "put the last pool's remaining capacity back";
}
