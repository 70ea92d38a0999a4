//! Zig 0.17.1's `std.heap.ArenaAllocator` (lib/std/heap/ArenaAllocator.zig
//! in PyPI's `ziglang` wheel) over a child allocator, driven through
//! `std.mem.Allocator` (`alloc`, `realloc`, `free`) and `reset`: bump UP
//! through buffers, each opening with its node.
//!
//! * A buffer is one child allocation: a node `{size, end_index, next}`
//!   (three words: 24 bytes on 64-bit, 12 on wasm32) and the usable bytes
//!   after it. The newest buffer is the first of the `used_list` and the
//!   only one allocated from.
//! * No buffer exists until the first allocation. The fast path reserves
//!   size + alignment - 1 past `end_index` and settles `end_index` at the
//!   aligned block's end, WHETHER OR NOT it fits: a request that does not
//!   fit leaves `end_index` past the buffer's end.
//! * Then the arena asks its child to grow the buffer in place, to hold the
//!   block after that overshot `end_index`: node + the aligned overshot
//!   index + the request, rounded up to even. The block then lands after a
//!   gap as large as the request (the bytes the failed attempt reserved).
//! * The child is the preset's setting ([`Child`]). `std.heap.page_allocator`
//!   (the default, as Zig programs write it; [`super::zig_page`]) grants
//!   that inside what it reserved for the buffer: whole pages on 64-bit, a
//!   size class on wasm32. The chunk the trace shows is that reservation;
//!   the node's `size`, the arena's own idea of its buffer, grows inside
//!   it. The simulated heap never resizes in place
//!   (`std.mem.Allocator.noResize`).
//! * When the child refuses, the arena goes on to a new buffer of 1.5 x
//!   (the old buffer's usable bytes + node + alignment + request + 16),
//!   rounded up to even, and the rest of the old one is abandoned.
//! * `resize` (and so `realloc`'s in-place path) and `free` work on the last
//!   allocation of the newest buffer only; a smaller size for any other
//!   block is accepted in place and gives nothing back.
//! * `reset(.retain_capacity)` (the playground's reset; with a Capacity,
//!   `.retain_with_limit = capacity`) frees every buffer but the oldest and
//!   makes that one as large as all of them were (at most the limit), empty:
//!   the child is asked to resize it in place (page_allocator grants a size
//!   within its reservation, and a smaller one by unmapping pages on
//!   64-bit, which makes it a new chunk at the same address); otherwise a
//!   fresh allocation of the total, and the old buffer freed after it.
//! * A zero-sized request never reaches the arena: `std.mem.Allocator`
//!   hands out `maxInt(usize)` rounded down to the alignment. The trace
//!   shows that dangling pointer at its alignment, as it shows Rust's: the
//!   page keeps addresses in JavaScript numbers, which cannot hold one that
//!   high exactly (the differential test checks Zig's real value).
//!
//! The arena has no checkpoints: `checkpoint`/`restore` are the
//! playground's emulation, defined on the arena's own fields: `checkpoint`
//! saves the first node of `used_list` (the newest buffer) and its
//! `end_index`; `restore` gives the buffers made since back to the child,
//! newest first, makes the saved buffer first again and sets its
//! `end_index` to the saved one. A buffer the child grew in place since
//! keeps its grown size (shrinking it back would mean asking the child
//! again). The differential test applies the same emulation to the real
//! arena. Its thread-safe free list is only ever filled when two threads
//! race, so it stays empty here.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Child, Failure, Layout, Model, ModelOptions};
use crate::models::zig_page::{PageBuffer, PageChild, Resized};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::{word, Word};
use crate::{event, probe};

/// The node's fields: size, end_index, next.
pub const NODE_WORDS: u64 = 3;
/// What a new buffer adds beyond the node, the alignment and the request.
pub const SLACK: u64 = 16;

/// The address `std.mem.Allocator` gives a zero-sized request:
/// `maxInt(usize)` rounded down to the alignment.
pub fn zig_dangling<W: Word>(align: W) -> W {
    W::MAX & !(align - W::ONE)
}

/// How the trace shows that pointer: at its alignment, as Rust's dangling
/// pointers are shown. Zig's own value, up to 2^64 - 1 on 64-bit, does not
/// survive the page's JavaScript numbers.
#[inline(always)]
pub fn dangling<W: Word>(align: W) -> W {
    align
}

/// Says which pointer Zig really hands out, where a trace shows the other.
pub(crate) const DANGLING_NOTE: &str = "a zero-sized request never reaches the allocator: std.mem.Allocator hands out maxInt(usize) rounded down to the alignment (0xffff...), shown here at the alignment because the page's numbers cannot hold that address exactly";

/// `Alignment.forward`: `addr` rounded up to `align`, wrapping as the
/// arena's own wrapping arithmetic does.
#[inline(always)]
fn align_forward<W: Word>(addr: W, align: W) -> W {
    addr.wrapping_add(align - W::ONE) & !(align - W::ONE)
}

/// One buffer: the child's allocation and its node's fields.
#[derive(Clone, Copy, Debug)]
struct Node<W> {
    /// `base` is the node's address; `start` the first byte after it;
    /// `size` what the child reserved for it.
    desc: ChunkDesc<W>,
    /// The node's `size` less the node: the buffer as the arena sees it
    /// (at most `desc.capacity`, less when the child reserved more).
    len: W,
    /// `end_index`: bytes in use from `start`, possibly past the end.
    end_index: W,
    /// Where its blocks end once a newer buffer took over. Zig leaves
    /// `end_index` past the end after the request that did not fit; the
    /// bytes between the last block and the end are abandoned, not used.
    stop: W,
}

impl<W: Word> Node<W> {
    /// The buffer's usable bytes (`size - @sizeOf(Node)`).
    fn len(&self) -> W {
        self.len
    }

    /// The node's `size` field: what the arena asked of its child.
    fn asked(&self) -> W {
        self.len + self.desc.header
    }

    /// The buffer as the page child knows it.
    fn page(&self) -> PageBuffer<W> {
        PageBuffer {
            id: self.desc.id,
            base: self.desc.base,
            reserved: self.desc.size,
        }
    }

    /// Where the bytes in use end, at most the buffer's end.
    fn used_end(&self) -> W {
        self.desc.start + self.end_index.min(self.len())
    }
}

/// The arena's child allocator and its state.
#[derive(Clone, Debug)]
enum ChildState<W> {
    Page(PageChild<W>),
    Heap,
}

/// `ArenaAllocator` over its child allocator.
#[derive(Clone, Debug)]
pub struct ZigArena<W> {
    /// The `used_list`'s first node: the buffer allocations come from.
    first: Option<Node<W>>,
    /// The rest of the `used_list`, oldest first.
    older: Vec<Node<W>>,
    /// `reset`'s mode: `None` for `.retain_capacity`, else the limit of
    /// `.retain_with_limit`.
    limit: Option<W>,
    child: ChildState<W>,
}

/// What the playground's emulated checkpoint saves.
#[derive(Clone, Copy, Debug)]
pub struct ZigArenaCheckpoint<W> {
    first: Option<u32>,
    end_index: W,
}

impl<W: Word> ZigArena<W> {
    const WORD: u64 = W::BITS as u64 / 8;
    /// `@sizeOf(Node)`: 24 bytes on 64-bit, 12 on wasm32.
    pub const NODE_SIZE: u64 = NODE_WORDS * Self::WORD;

    fn node_size() -> W {
        word(Self::NODE_SIZE)
    }

    /// `child_allocator.rawAlloc(size, .of(Node))`: the new buffer's chunk
    /// (its reservation), or `None` when the child has no room.
    fn child_alloc(&mut self, heap: &mut Heap<W>, size: W) -> Option<ChunkDesc<W>> {
        let node_size = Self::node_size();
        let (id, base, reserved) = match &mut self.child {
            ChildState::Heap => {
                let (id, base) = heap.alloc(size, word(Self::WORD))?;
                (id, base, size)
            }
            ChildState::Page(page) => {
                let b = page.alloc(size)?;
                (b.id, b.base, b.reserved)
            }
        };
        Some(ChunkDesc {
            id,
            base,
            size: reserved,
            start: base + node_size,
            capacity: reserved - node_size,
            header: node_size,
            footer: W::ZERO,
        })
    }

    /// `child_allocator.rawFree(node.allocatedSliceUnsafe(), .of(Node))`.
    fn child_free<P: Probe<W>>(&mut self, heap: &mut Heap<W>, node: &Node<W>, p: &mut P) {
        let (base, size) = (node.desc.base, node.asked());
        match &mut self.child {
            ChildState::Heap => heap.free(base, size),
            ChildState::Page(page) => page.free(node.page(), size),
        }
        probe!(p, FREE_NODE, base, size);
        event!(p, ModelEvent::ChunkFreed { id: node.desc.id });
    }

    /// `child_allocator.rawResize(node.allocatedSliceUnsafe(), .of(Node),
    /// new_size)`: the simulated heap never resizes.
    fn child_resize(&mut self, node: &Node<W>, new_size: W) -> Resized<W> {
        match &mut self.child {
            ChildState::Heap => Resized::Refused,
            ChildState::Page(page) => page.resize(node.page(), node.asked(), new_size),
        }
    }

    /// `node`, resized in place to `new_size` by its child: its node's
    /// `size`, and when the child's reservation changed (pages unmapped
    /// past it), the new chunk it now is.
    fn resized<P: Probe<W>>(node: &mut Node<W>, new_size: W, how: Resized<W>, p: &mut P) {
        node.len = new_size - node.desc.header;
        if let Resized::Remapped(b) = how {
            event!(p, ModelEvent::ChunkFreed { id: node.desc.id });
            node.desc.id = b.id;
            node.desc.size = b.reserved;
            node.desc.capacity = b.reserved - node.desc.header;
            event!(
                p,
                ModelEvent::NewChunk {
                    chunk: node.desc,
                    reason: ChunkReason::First,
                    requested: node.len,
                }
            );
            event!(p, ModelEvent::Note("page_allocator unmapped the pages past the new size: the buffer stays where it is, a chunk of fewer pages"));
        }
    }

    /// `alloc`: the fast path in the first buffer.
    #[inline(always)]
    fn alloc_bytes<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, Allocated<W>> {
        let Some(node) = &mut self.first else {
            // step: no_buffer
            probe!(p, NO_BUFFER);
            return Err(self.alloc_slow(heap, layout, p));
        };
        let (n, align) = (layout.size, layout.align);
        let buf = node.desc.start;
        let end_index = node.end_index;
        let end = buf.wrapping_add(end_index);
        let aligned_index = align_forward(end, align).wrapping_sub(buf); // step: aligned_index
        probe!(p, ALIGNED_INDEX, end_index, align, aligned_index);
        // The index settles at the block's end before the check (the
        // reservation's overshoot is given back): past the end if it fails.
        let new_end = aligned_index.wrapping_add(n);
        node.end_index = new_end; // step: settle
        probe!(p, SETTLE, new_end);
        let len = node.len();
        // A sum that wrapped is no fit either: the slow path tells Zig's
        // overflow panic from a full buffer.
        if new_end > len || new_end < aligned_index {
            // step: fits
            probe!(p, FITS_FAIL, new_end, len);
            node.stop = buf + end_index.min(len);
            return Err(self.alloc_slow(heap, layout, p));
        }
        probe!(p, FITS_PASS, new_end, len);
        let addr = buf + aligned_index; // step: hand_out
        probe!(p, HAND_OUT, addr);
        Ok(addr)
    }

    /// The rest of `alloc`: try to grow the buffer in place (the child
    /// refuses), then a new buffer.
    #[cold]
    #[inline(never)]
    fn alloc_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        match self.new_buffer(heap, layout, p) {
            Ok(addr) => Allocated::ok(addr),
            Err(e) => Allocated::err(e),
        }
    }

    fn new_buffer<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let (n, align) = (layout.size, layout.align);
        let node_size = Self::node_size();
        let prev_size = match self.first {
            Some(node) => {
                // Zig's arithmetic so far, as its safety checks see it: the
                // reservation past end_index, the aligned block after it,
                // and the size a grown buffer would need for the block
                // placed after the overshot end_index. Any of them past
                // maxInt(usize) is a panic in a safe build.
                let start = node.desc.start;
                let old_index = node.stop - start;
                let overflow = || AllocError::Overflow;
                let forward = |index: W| {
                    start
                        .wrapping_add(index)
                        .checked_add(align - W::ONE)
                        .map(|a| (a & !(align - W::ONE)).wrapping_sub(start))
                };
                old_index
                    .checked_add(n)
                    .and_then(|e| e.checked_add(align - W::ONE))
                    .ok_or_else(overflow)?;
                let settled = forward(old_index)
                    .and_then(|a| a.checked_add(n))
                    .ok_or_else(overflow)?;
                let aligned_index = forward(settled).ok_or_else(overflow)?;
                let sum = node_size
                    .checked_add(aligned_index)
                    .and_then(|s| s.checked_add(n))
                    .filter(|&s| s != W::MAX)
                    .ok_or_else(overflow)?;
                let wanted = (sum + W::ONE) & !W::ONE; // step: child_resize
                match self.child_resize(&node, wanted) {
                    Resized::Overflows => return Err(AllocError::Overflow),
                    Resized::Refused => {
                        probe!(p, CHILD_RESIZE, aligned_index, wanted);
                        event!(p, ModelEvent::Note(match self.child {
                            ChildState::Heap => "the arena first asks its child allocator to grow this buffer in place; the simulated heap never resizes in place (as std.mem.Allocator.noResize), so the arena makes a new buffer and the rest of this one is abandoned",
                            ChildState::Page(_) => "the arena first asks page_allocator to grow this buffer in place; that needs more than page_allocator reserved for it (its pages on 64-bit, its size class on wasm32), so the arena makes a new buffer and the rest of this one is abandoned",
                        }));
                        node.len()
                    }
                    how => {
                        probe!(p, CHILD_RESIZE_GRANTED, aligned_index, wanted);
                        event!(p, ModelEvent::Note("page_allocator grows this buffer in place, inside what it reserved for it (its pages on 64-bit, its size class on wasm32): the block goes after end_index, which the attempt that did not fit had already moved on by the request's size"));
                        let end_index = aligned_index + n;
                        if let Some(first) = &mut self.first {
                            Self::resized(first, wanted, how, p);
                            first.end_index = end_index;
                        }
                        let addr = node.desc.start + aligned_index; // step: grown_hand_out
                        probe!(p, GROWN_HAND_OUT, aligned_index, addr);
                        return Ok(addr);
                    }
                }
            }
            None => W::ZERO,
        };
        // min_size = node + alignment + request; then + 16, and half again.
        // Zig panics on an overflow here too.
        let Some(big_enough) = node_size
            .checked_add(align)
            .and_then(|s| s.checked_add(n))
            .and_then(|s| prev_size.checked_add(s))
            .and_then(|s| s.checked_add(word(SLACK)))
        else {
            // step: big_enough
            return Err(AllocError::Overflow);
        };
        probe!(p, BIG_ENOUGH, prev_size, n, align, big_enough);
        let half = word::<W>(big_enough.to_u64() / 2);
        let Some(size) = big_enough
            .checked_add(half)
            .and_then(|s| s.checked_add(W::ONE))
            .map(|s| s & !W::ONE)
        else {
            // step: buffer_size
            return Err(AllocError::Overflow);
        };
        probe!(p, BUFFER_SIZE, big_enough, size);
        let Some(desc) = self.child_alloc(heap, size) else {
            // step: child_alloc
            probe!(p, CHILD_REFUSED, size);
            return Err(AllocError::HeapExhausted);
        };
        let base = desc.base;
        probe!(p, CHILD_ALLOC, size, base);
        let start = desc.start;
        let aligned_index = align_forward(start, align) - start; // step: new_index
        let end_index = aligned_index + n;
        probe!(p, NEW_INDEX, aligned_index, end_index);
        let reason = if self.first.is_some() {
            ChunkReason::Full
        } else {
            ChunkReason::First
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason,
                requested: n,
            }
        );
        let node = Node {
            desc,
            len: size - node_size,
            end_index,
            stop: start,
        };
        if let Some(old) = self.first.replace(node) {
            self.older.push(old);
        }
        Ok(start + aligned_index)
    }

    /// `resize`: only the newest buffer's last allocation changes size.
    fn resize<P: Probe<W>>(&mut self, addr: W, old_len: W, new_len: W, p: &mut P) -> bool {
        let Some(node) = &mut self.first else {
            return false;
        };
        let cur_end = node.end_index;
        let block_end = addr + old_len;
        let end = node.desc.start.wrapping_add(cur_end);
        if end != block_end {
            // step: resize_last
            probe!(p, RESIZE_NOT_LAST, end, block_end);
            // "It's fine if they want to make it smaller."
            return new_len <= old_len;
        }
        probe!(p, RESIZE_LAST, end, block_end);
        if new_len <= old_len {
            let new_end = cur_end - (old_len - new_len);
            node.end_index = new_end; // step: resize_shrink
            probe!(p, RESIZE_SHRINK, new_end);
            return true;
        }
        let grow = new_len - old_len;
        let room = node.len().checked_sub(cur_end).unwrap_or(W::ZERO);
        if room >= grow {
            // step: resize_grow
            probe!(p, RESIZE_GROW, room, grow);
            node.end_index = cur_end + grow;
            return true;
        }
        probe!(p, RESIZE_NO_ROOM, room, grow);
        false
    }

    /// `free`: gives the bytes back if the block is the last allocation.
    fn free_bytes<P: Probe<W>>(&mut self, addr: W, len: W, p: &mut P) {
        let Some(node) = &mut self.first else {
            return;
        };
        let cur_end = node.end_index;
        let end = node.desc.start.wrapping_add(cur_end);
        if end != addr + len {
            // step: free_last
            probe!(p, FREE_NOT_LAST, end, addr);
            event!(
                p,
                ModelEvent::Note("not the most recent allocation: the arena cannot free it")
            );
            return;
        }
        probe!(p, FREE_LAST, end, addr);
        let new_end = cur_end - len;
        node.end_index = new_end; // step: free
        probe!(p, FREE, new_end);
    }

    /// `countListCapacity`: every buffer's usable bytes.
    fn capacity(&self) -> W {
        self.nodes()
            .fold(W::ZERO, |sum, n| sum.wrapping_add(n.len()))
    }

    fn nodes(&self) -> impl Iterator<Item = &Node<W>> {
        self.first.iter().chain(self.older.iter())
    }
}

impl<W: Word> Model<W> for ZigArena<W> {
    type Checkpoint = ZigArenaCheckpoint<W>;

    /// `ArenaAllocator.init(child)`: no buffer yet. A Capacity chooses
    /// `reset`'s `.retain_with_limit`.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let _ = (heap, p);
        let limit = match opts.capacity {
            Some(c) => Some(W::from_u64(c).ok_or(AllocError::HeapExhausted)?),
            None => None,
        };
        let child = match opts.child {
            Child::Page => ChildState::Page(PageChild::new()),
            Child::Heap => ChildState::Heap,
        };
        Ok(ZigArena {
            first: None,
            older: Vec::new(),
            limit,
            child,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `allocator.alignedAlloc(u8, alignment, n)`.
    #[inline(always)]
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out {
        if layout.size == W::ZERO {
            let addr = dangling(layout.align); // step: zero_size
            probe!(p, ZERO_SIZE, addr);
            event!(p, ModelEvent::Note(DANGLING_NOTE));
            return F::ok(addr);
        }
        match self.alloc_bytes(heap, layout, p) {
            Ok(addr) => F::ok(addr),
            Err(slow) => F::allocated(slow),
        }
    }

    /// `allocator.realloc(old, new_len)`: from or to zero size it is an
    /// allocation or a free; else `remap` (in place, through `resize`),
    /// else a new allocation, a copy and a `free` of the old block.
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
        let got = match self.alloc_bytes(heap, new, p) {
            Ok(a) => Allocated::ok(a),
            Err(slow) => slow,
        };
        if let Ok(new_addr) = got.result() {
            let bytes = old.size.min(new_size); // step: copy
            probe!(p, COPY, addr, new_addr, bytes);
            event!(p, ModelEvent::Copied { bytes });
            self.free_bytes(addr, old.size, p);
        }
        got
    }

    /// `allocator.free(slice)`: nothing for a zero-sized one.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P) {
        if layout.size != W::ZERO {
            self.free_bytes(addr, layout.size, p);
        }
    }

    /// `reset(.retain_capacity)`, or `.retain_with_limit` with a Capacity.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        let node_size = Self::node_size();
        let used = self.capacity(); // step: used_capacity
        let limit = self.limit;
        let keep = limit.map_or(used, |l| l.min(used));
        probe!(p, USED_CAPACITY, used, keep);
        // Free every node but the last of the list: the oldest.
        let mut list: Vec<Node<W>> = self.first.take().into_iter().collect();
        list.extend(self.older.drain(..).rev());
        let Some(mut oldest) = list.pop() else {
            // step: reset_empty
            probe!(p, RESET_EMPTY);
            return;
        };
        for n in list {
            self.child_free(heap, &n, p); // step: free_node
        }
        // Aligned backwards to stay below the limit.
        let new_size = node_size.wrapping_add(keep) & !W::ONE; // step: retained_size
        probe!(p, RETAINED_SIZE, keep, new_size);
        if new_size == node_size {
            self.child_free(heap, &oldest, p);
            return;
        }
        oldest.end_index = W::ZERO;
        if oldest.asked() == new_size {
            let base = oldest.desc.base; // step: keep_node
            probe!(p, KEEP_NODE, base);
            event!(p, ModelEvent::ChunkReused { id: oldest.desc.id });
            self.first = Some(oldest);
            return;
        }
        let how = self.child_resize(&oldest, new_size); // step: retain_resize
        let asked = oldest.asked();
        if !matches!(how, Resized::Refused | Resized::Overflows) {
            probe!(p, RETAIN_RESIZE_GRANTED, asked, new_size);
            Self::resized(&mut oldest, new_size, how, p);
            event!(p, ModelEvent::ChunkReused { id: oldest.desc.id });
            event!(p, ModelEvent::Note("reset keeps the capacity: the child resized the oldest buffer in place to hold as much as all of them did, so the next round needs no new buffer"));
            self.first = Some(oldest);
            return;
        }
        probe!(p, RETAIN_RESIZE_REFUSED, asked, new_size);
        // The child cannot resize in place: a new buffer of the retained
        // size, then the old one freed.
        let Some(desc) = self.child_alloc(heap, new_size) else {
            // step: retain_alloc
            // "We failed to preheat the arena properly": the old buffer stays.
            self.first = Some(oldest);
            return;
        };
        let base = desc.base;
        probe!(p, RETAIN_ALLOC, new_size, base);
        self.child_free(heap, &oldest, p);
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason: ChunkReason::First,
                requested: keep,
            }
        );
        event!(p, ModelEvent::Note("reset keeps the capacity: one buffer as large as all of them were, so the next round needs no new buffer"));
        self.first = Some(Node {
            desc,
            len: new_size - node_size,
            end_index: W::ZERO,
            stop: desc.start,
        });
    }

    fn checkpoint(&self) -> ZigArenaCheckpoint<W> {
        ZigArenaCheckpoint {
            first: self.first.map(|n| n.desc.id),
            end_index: self.first.map_or(W::ZERO, |n| n.end_index),
        }
    }

    /// The playground's emulation of a checkpoint, which the arena lacks.
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &ZigArenaCheckpoint<W>, p: &mut P) {
        event!(p, ModelEvent::Note("ArenaAllocator has no checkpoints: this restore is the playground's emulation (the buffers made since go back to the child, newest first; the saved buffer is first again, its end_index the saved one; a buffer grown in place since keeps its size)"));
        let keep = match cp.first {
            None => 0,
            Some(id) if self.first.is_some_and(|n| n.desc.id == id) => self.older.len() + 1,
            Some(id) => match self.older.iter().position(|n| n.desc.id == id) {
                Some(i) => i + 1,
                None => return,
            },
        };
        let mut all: Vec<Node<W>> = self.older.drain(..).collect();
        all.extend(self.first.take());
        while all.len() > keep {
            let Some(n) = all.pop() else { break };
            self.child_free(heap, &n, p);
        }
        self.first = all.pop();
        self.older = all;
        if let Some(node) = &mut self.first {
            let end_index = cp.end_index;
            node.end_index = end_index; // step: restore
            probe!(p, RESTORE, end_index);
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        if let Some(first) = self.first.filter(|n| n.desc.id == id) {
            return Some((first.desc.start, first.used_end()));
        }
        self.older
            .iter()
            .find(|n| n.desc.id == id)
            .map(|n| (n.desc.start, n.stop))
    }

    fn bump_ptr(&self) -> Option<W> {
        self.first.map(|n| n.used_end())
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::ZigArena;
    ZERO_SIZE = "zero_size": "size 0: std.mem.Allocator hands out a dangling pointer (maxInt(usize) rounded down to the alignment, shown at the alignment); the arena is not called";
    NO_BUFFER = "no_buffer": "no buffer yet: the first allocation makes one";
    ALIGNED_INDEX = "aligned_index": "end_index rounded up to the alignment (as an address)";
    SETTLE = "settle": "end_index settles at the block's end, before anything checks that it fits";
    FITS_PASS = "fits" / "pass": "the block ends within the buffer";
    FITS_FAIL = "fits" / "fail": "the block ends past the buffer; end_index stays past it";
    HAND_OUT = "hand_out": "the block, in the first buffer";
    CHILD_RESIZE = "child_resize" / "refused": "ask the child to grow the buffer in place: it refuses (the simulated heap always does; page_allocator when that needs more than it reserved)";
    CHILD_RESIZE_GRANTED = "child_resize" / "granted": "page_allocator grows the buffer in place, inside what it reserved: the block goes after the overshot end_index";
    GROWN_HAND_OUT = "grown_hand_out": "the block, in the grown buffer, after the bytes the attempt that did not fit reserved";
    BIG_ENOUGH = "big_enough": "old buffer's bytes + node + alignment + request + 16";
    BUFFER_SIZE = "buffer_size": "half as much again, rounded up to even";
    CHILD_ALLOC = "child_alloc": "the child allocates the new buffer; its node goes first in the list";
    CHILD_REFUSED = "child_alloc" / "refused": "the child has no room for it";
    NEW_INDEX = "new_index": "the block at the new buffer's start, rounded up to its alignment";
    RESIZE_LAST = "resize_last" / "yes": "the block ends at end_index: it can change size";
    RESIZE_NOT_LAST = "resize_last" / "no": "not the last allocation: only a smaller size is accepted, in place";
    RESIZE_SHRINK = "resize_shrink": "smaller: end_index moves back";
    RESIZE_GROW = "resize_grow" / "pass": "larger, and the buffer has the room: end_index moves on";
    RESIZE_NO_ROOM = "resize_grow" / "fail": "larger than the buffer's room: realloc allocates anew and copies";
    REALLOC_FROM_ZERO = "realloc_from_zero": "the old block is empty: a plain allocation";
    REALLOC_TO_ZERO = "realloc_to_zero": "to size 0: free the old block, hand out the zero-size pointer";
    COPY = "copy": "copy the old bytes to the new block, then free the old one";
    FREE_LAST = "free_last" / "yes": "the block ends at end_index: its bytes come back";
    FREE_NOT_LAST = "free_last" / "no": "freeing it: not the most recent allocation, so its bytes stay in the buffer";
    FREE = "free": "end_index moves back to the block's start";
    USED_CAPACITY = "used_capacity": "reset: every buffer's bytes together (at most the limit)";
    RESET_EMPTY = "reset_empty": "no buffer: nothing to reset";
    FREE_NODE = "free_node": "give a buffer back to the child allocator";
    RETAINED_SIZE = "retained_size": "the one buffer kept: node + those bytes, rounded down to even";
    KEEP_NODE = "keep_node": "the oldest buffer already has that size: emptied and kept";
    RETAIN_RESIZE_GRANTED = "retain_resize" / "granted": "the child resizes the oldest buffer in place to that size: emptied and kept";
    RETAIN_RESIZE_REFUSED = "retain_resize" / "refused": "the child cannot resize it in place";
    RETAIN_ALLOC = "retain_alloc": "a new buffer of that size, the old one freed";
    RESTORE = "restore": "end_index back to the saved one";
}
