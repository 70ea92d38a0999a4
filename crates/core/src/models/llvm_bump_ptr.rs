//! LLVM 14's `BumpPtrAllocator` (`BumpPtrAllocatorImpl<MallocAllocator,
//! 4096, 4096, 128>`, llvm/Support/Allocator.h as Debian's llvm-14-dev
//! ships it): bump UP through slabs whose bookkeeping lives outside them.
//!
//! * The allocator keeps `CurPtr` and `End` for the current slab and two
//!   vectors beside the slabs: the slabs, and the custom-sized slabs with
//!   their sizes. So a slab is all usable bytes, no header or footer.
//! * No slab exists until a request does not fit the (empty) current one;
//!   a zero-sized request before that gets `CurPtr` itself, a null pointer.
//! * Slab `i` has `SlabSize << min(30, i / GrowthDelay)` bytes: 4096 for
//!   the first 128 slabs, then 8192 for the next 128, and so on. The
//!   Capacity knob sets `SlabSize` (the size threshold follows it, as the
//!   template's default does).
//! * A request that does not fit the current slab and whose size plus
//!   alignment - 1 exceeds the threshold gets a custom-sized slab of exactly
//!   that many bytes, which never becomes current: later requests keep
//!   filling the current slab. Otherwise a new slab starts and becomes
//!   current, abandoning the rest of the old one.
//! * `Deallocate` does nothing. `Reset` frees the custom-sized slabs and
//!   every slab but the first, and points back at the first one's start.
//!
//! LLVM's allocator has no realloc and no checkpoints: realloc here
//! allocates and copies (what a container does with it), and
//! `checkpoint`/`restore` are the playground's emulation; each says so.

use crate::algorithms::Direction;
use crate::events::{ChunkDesc, ChunkReason, ModelEvent};
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, Failure, Layout, Model, ModelOptions};
use crate::probe::Probe;
use crate::source::Source;
use crate::steps;
use crate::word::Word;
use crate::{event, probe};

/// The `SlabSize` template argument's default.
pub const DEFAULT_SLAB_SIZE: u64 = 4096;
/// The `GrowthDelay` template argument's default: slabs between doublings.
pub const GROWTH_DELAY: u64 = 128;
/// Slab sizes stop doubling at `SlabSize << 30`.
pub const MAX_GROWTH_SHIFT: u64 = 30;
/// `alignof(std::max_align_t)`: what every slab is asked to be aligned to.
pub const SLAB_ALIGN: u64 = 16;

/// A slab, and where `CurPtr` stopped in it when a newer slab took over.
#[derive(Clone, Copy, Debug)]
struct Slab<W> {
    desc: ChunkDesc<W>,
    stop: W,
}

/// A custom-sized slab and the end of the one block it holds.
#[derive(Clone, Copy, Debug)]
struct CustomSlab<W> {
    desc: ChunkDesc<W>,
    block_end: W,
}

/// `BumpPtrAllocatorImpl`'s state.
#[derive(Clone, Debug)]
pub struct LlvmBumpPtr<W> {
    /// `CurPtr`: the next free byte of the current slab (0 before the first).
    cur: W,
    /// `End`: one past the current slab's last byte (0 before the first).
    end: W,
    /// `Slabs`, oldest first; the last is the current one.
    slabs: Vec<Slab<W>>,
    /// `CustomSizedSlabs`.
    custom: Vec<CustomSlab<W>>,
    /// `SlabSize`, and the threshold that follows it.
    slab_size: W,
    /// `BytesAllocated`: every requested size since the last reset.
    bytes_allocated: W,
}

/// What the playground's emulated checkpoint saves.
#[derive(Clone, Copy, Debug)]
pub struct LlvmCheckpoint<W> {
    slabs: usize,
    custom: usize,
    cur: W,
    end: W,
}

/// `alignAddr`: `addr` rounded up to `align`. Slab addresses are far below
/// the top of the address space, so adding the mask cannot wrap (the
/// null pointer before the first slab rounds to itself).
#[inline(always)]
fn align_addr<W: Word>(addr: W, align: W) -> W {
    (addr + (align - W::ONE)) & !(align - W::ONE)
}

impl<W: Word> LlvmBumpPtr<W> {
    /// `Allocate(Size, Alignment)`: the fast path in the current slab.
    #[inline(always)]
    fn allocate<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, Allocated<W>> {
        let (size, align) = (layout.size, layout.align);
        self.bytes_allocated = self.bytes_allocated.wrapping_add(size);
        let cur = self.cur;
        let adjustment = align_addr(cur, align) - cur; // step: adjustment
        probe!(p, ADJUSTMENT, cur, align, adjustment);
        // adjustment < align <= 4096 and the Layout bound keeps size far
        // below the top: no overflow. CurPtr never passes End.
        let room = self.end - cur;
        if adjustment + size <= room {
            // step: fits
            probe!(p, FITS_PASS, adjustment, size, room);
            let aligned = cur + adjustment;
            self.cur = aligned + size; // step: bump
            probe!(p, BUMP, aligned, size);
            return Ok(aligned);
        }
        probe!(p, FITS_FAIL, adjustment, size, room);
        Err(self.allocate_slow(heap, layout, p))
    }

    /// The rest of `Allocate`: a custom-sized slab for a large request,
    /// else `StartNewSlab` and the request at its start.
    #[cold]
    #[inline(never)]
    fn allocate_slow<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        match self.new_slab(heap, layout, p) {
            Ok(addr) => Allocated::ok(addr),
            Err(e) => Allocated::err(e),
        }
    }

    fn new_slab<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Result<W, AllocError> {
        let (size, align) = (layout.size, layout.align);
        let slab_align = W::from_u64(SLAB_ALIGN).ok_or(AllocError::HeapExhausted)?;
        // The Layout bound: size rounded up to align fits isize::MAX.
        let padded = size + (align - W::ONE); // step: padded
        let threshold = self.slab_size;
        probe!(p, PADDED, size, align, padded, threshold);
        if padded > threshold {
            // step: threshold
            probe!(p, CUSTOM, padded, threshold);
            let Some((id, base)) = heap.alloc(padded, slab_align) else {
                return Err(AllocError::HeapExhausted);
            };
            let aligned = align_addr(base, align); // step: custom_align
            probe!(p, CUSTOM_ALIGN, base, aligned);
            let desc = ChunkDesc {
                id,
                base,
                size: padded,
                start: base,
                capacity: padded,
                header: W::ZERO,
                footer: W::ZERO,
            };
            event!(
                p,
                ModelEvent::NewChunk {
                    chunk: desc,
                    reason: ChunkReason::CustomSlab,
                    requested: size,
                }
            );
            event!(p, ModelEvent::Note("size + alignment - 1 is above the threshold: a custom-sized slab of exactly that many bytes, kept in its own list; the current slab stays current"));
            self.custom.push(CustomSlab {
                desc,
                block_end: aligned + size,
            });
            return Ok(aligned);
        }
        probe!(p, SLAB, padded, threshold);

        // `computeSlabSize(Slabs.size())`: doubling every 128 slabs.
        let index = self.slabs.len() as u64;
        let shift = (index / GROWTH_DELAY).min(MAX_GROWTH_SHIFT);
        // Slab sizes are at most 1 GiB, so shifting by up to 30 fits 64 bits.
        let shifted = self.slab_size.to_u64() << shift;
        let Some(slab_size) = W::from_u64(shifted) else {
            // step: slab_size
            return Err(AllocError::HeapExhausted);
        };
        probe!(p, SLAB_SIZE, slab_size);
        let Some((id, base)) = heap.alloc(slab_size, slab_align) else {
            return Err(AllocError::HeapExhausted);
        };
        if let Some(last) = self.slabs.last_mut() {
            last.stop = self.cur;
        }
        let desc = ChunkDesc {
            id,
            base,
            size: slab_size,
            start: base,
            capacity: slab_size,
            header: W::ZERO,
            footer: W::ZERO,
        };
        let reason = if self.slabs.is_empty() {
            ChunkReason::First
        } else {
            ChunkReason::Full
        };
        event!(
            p,
            ModelEvent::NewChunk {
                chunk: desc,
                reason,
                requested: size,
            }
        );
        self.slabs.push(Slab { desc, stop: base });
        self.end = base + slab_size; // step: start_new_slab
        probe!(p, START_NEW_SLAB, base, slab_size);
        // padded fits the slab, so the aligned block does too.
        let aligned = align_addr(base, align);
        self.cur = aligned + size; // step: new_slab_bump
        probe!(p, NEW_SLAB_BUMP, aligned, size);
        Ok(aligned)
    }

    /// Frees the custom-sized slabs from `keep_custom` on and the slabs
    /// from `keep` on, each list from its oldest, as LLVM walks them.
    fn free_slabs<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        keep: usize,
        keep_custom: usize,
        p: &mut P,
    ) {
        for c in self.custom.drain(keep_custom..) {
            let (base, size) = (c.desc.base, c.desc.size);
            heap.free(base, size); // step: free_custom
            probe!(p, FREE_CUSTOM, base, size);
            event!(p, ModelEvent::ChunkFreed { id: c.desc.id });
        }
        for s in self.slabs.drain(keep.min(self.slabs.len())..) {
            let (base, size) = (s.desc.base, s.desc.size);
            heap.free(base, size); // step: free_slab
            probe!(p, FREE_SLAB, base, size);
            event!(p, ModelEvent::ChunkFreed { id: s.desc.id });
        }
    }
}

impl<W: Word> Model<W> for LlvmBumpPtr<W> {
    type Checkpoint = LlvmCheckpoint<W>;

    /// `BumpPtrAllocator()`: no slab yet.
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError> {
        let _ = (heap, p);
        let slab_size = opts.capacity.unwrap_or(DEFAULT_SLAB_SIZE);
        Ok(LlvmBumpPtr {
            cur: W::ZERO,
            end: W::ZERO,
            slabs: Vec::new(),
            custom: Vec::new(),
            slab_size: W::from_u64(slab_size).ok_or(AllocError::HeapExhausted)?,
            bytes_allocated: W::ZERO,
        })
    }

    fn direction(&self) -> Direction {
        Direction::Up
    }

    /// `Allocate(Size, Align)`.
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
        event!(p, ModelEvent::Note("BumpPtrAllocator has no realloc: a container allocates the new size and copies; the old bytes stay until a reset"));
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

    /// `Deallocate`: bump pointer allocators never free.
    #[inline(always)]
    fn free<P: Probe<W>>(&mut self, _heap: &mut Heap<W>, addr: W, _layout: Layout<W>, p: &mut P) {
        let _ = addr; // step: deallocate
        probe!(p, DEALLOCATE, addr);
        event!(
            p,
            ModelEvent::Note("Deallocate does nothing: the bytes come back only with Reset")
        );
    }

    /// `Reset`: custom-sized slabs freed, the first slab kept and emptied,
    /// the others freed.
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P) {
        let slabs = self.slabs.len();
        self.free_slabs(heap, usize::MAX, 0, p);
        let Some(first) = self.slabs.first() else {
            // step: reset_empty
            probe!(p, RESET_EMPTY);
            return;
        };
        let start = first.desc.start;
        let slab_size = self.slab_size;
        self.bytes_allocated = W::ZERO;
        self.cur = start; // step: reset
        self.end = start + slab_size;
        probe!(p, RESET, start, slab_size);
        self.free_slabs(heap, 1, 0, p);
        if let (true, Some(first)) = (slabs > 1, self.slabs.first()) {
            event!(p, ModelEvent::ChunkReused { id: first.desc.id });
        }
    }

    fn checkpoint(&self) -> LlvmCheckpoint<W> {
        LlvmCheckpoint {
            slabs: self.slabs.len(),
            custom: self.custom.len(),
            cur: self.cur,
            end: self.end,
        }
    }

    /// The playground's emulation of a checkpoint, which LLVM's allocator
    /// lacks: slabs made since are freed, `CurPtr` and `End` come back.
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &LlvmCheckpoint<W>, p: &mut P) {
        event!(p, ModelEvent::Note("BumpPtrAllocator has no checkpoints: this restore is the playground's emulation (slabs made since are freed, the saved bump pointer comes back)"));
        // A checkpoint from before a reset no longer matches; the engine
        // drops those.
        if self.slabs.len() < cp.slabs || self.custom.len() < cp.custom {
            return;
        }
        let newer = self.slabs.len() > cp.slabs;
        self.free_slabs(heap, cp.slabs, cp.custom, p);
        let cur = cp.cur;
        self.cur = cur; // step: restore
        self.end = cp.end;
        probe!(p, RESTORE, cur);
        if let (true, Some(last)) = (newer, self.slabs.last()) {
            event!(p, ModelEvent::ChunkReused { id: last.desc.id });
        }
    }

    fn used(&self, id: u32) -> Option<(W, W)> {
        let n = self.slabs.len();
        if let Some(i) = self.slabs.iter().position(|s| s.desc.id == id) {
            let s = &self.slabs[i];
            let hi = if i + 1 == n { self.cur } else { s.stop };
            return Some((s.desc.start, hi));
        }
        self.custom
            .iter()
            .find(|c| c.desc.id == id)
            .map(|c| (c.desc.start, c.block_end))
    }

    fn bump_ptr(&self) -> Option<W> {
        (!self.slabs.is_empty()).then_some(self.cur)
    }
}

// The micro-steps this file records, each on the line marked `// step:
// <marker>` (a test checks every one has its line).
steps! {
    Source::LlvmBumpPtr;
    ADJUSTMENT = "adjustment": "offsetToAlignedAddr: padding from CurPtr up to the alignment";
    FITS_PASS = "fits" / "pass": "padding + size fit between CurPtr and End";
    FITS_FAIL = "fits" / "fail": "padding + size do not fit the current slab (or there is none)";
    BUMP = "bump": "CurPtr moves past the block";
    PADDED = "padded": "size + alignment - 1: the most the block can need in a fresh slab";
    CUSTOM = "threshold" / "custom": "above the size threshold: a custom-sized slab of its own";
    SLAB = "threshold" / "slab": "within the threshold: start a new slab";
    CUSTOM_ALIGN = "custom_align": "the block at the custom slab's start, rounded up to its alignment";
    SLAB_SIZE = "slab_size": "computeSlabSize: SlabSize doubled once per 128 slabs so far";
    START_NEW_SLAB = "start_new_slab": "StartNewSlab: the new slab is current; the rest of the old one is abandoned";
    NEW_SLAB_BUMP = "new_slab_bump": "the block at the new slab's start, CurPtr past it";
    COPY = "copy": "copy the old bytes to the new block; the old ones stay";
    DEALLOCATE = "deallocate": "Deallocate is a no-op";
    FREE_CUSTOM = "free_custom": "free a custom-sized slab";
    FREE_SLAB = "free_slab": "free a slab";
    RESET_EMPTY = "reset_empty": "no slab yet: nothing else to do";
    RESET = "reset": "back to the first slab's start; the other slabs go";
    RESTORE = "restore": "CurPtr and End back to the saved ones";
}
