//! Zig 0.17.1's `std.heap.page_allocator` as the child allocator of the
//! zig-arena preset (lib/std/heap.zig in PyPI's `ziglang` wheel), for the
//! calls an `ArenaAllocator` makes of its child: `rawAlloc`, `rawResize`
//! and `rawFree` of its buffers, aligned to its node (a word).
//!
//! * 64-bit targets: `PageAllocator` (lib/std/heap/PageAllocator.zig) as it
//!   runs on Linux x86-64. A buffer of n bytes is an `mmap` of n rounded up
//!   to 4096-byte pages. Each mapping is hinted just below the previous one
//!   (the stack grows down), and the model places it there: the kernel's
//!   choice of the first address is its own, so the model starts at
//!   [`MMAP_TOP`]. `resize` (never `mremap` without MAYMOVE when the stack
//!   grows down) grants a new size that needs the same pages, and a smaller
//!   one by unmapping the pages past it; it refuses one that needs more
//!   pages. The model maps at most 4 GiB, as its simulated heap holds.
//! * wasm32: `page_allocator` is `WasmAllocator`, which on single-threaded
//!   wasm is `BrkAllocator` (lib/std/heap/BrkAllocator.zig): size classes
//!   of powers of two from 8 to 32 KiB, each class cut from 64 KiB "big
//!   pages" taken with `memory.grow` and kept on a free list of its own
//!   once freed (last freed, first reused); a request of n bytes takes the
//!   class of n + 4 (the word a freed slot keeps its free-list link in).
//!   Larger requests take a power of two of big pages. `resize` grants any
//!   size of the same class (or the same power of two of big pages), so a
//!   buffer grows in place up to its slot less 4 bytes (8 for big pages).
//!   The model's linear memory starts at [`HEAP_BASE`]; a real program's
//!   starts after its stack and data, but every slot is aligned to its
//!   size there too, so blocks land at the same offsets.
//!
//! What the arena sees of a buffer is what the child *reserved* for it:
//! the pages (64-bit) or the slot less its free-list word (wasm32), the
//! largest size `resize` grants it in place. That is the chunk the trace
//! shows; the size the arena asked for (its node's `size`) grows inside it.
//! A chunk keeps its id while its reservation stays the same; a resize that
//! changes the reservation (a reset unmapping the tail of a mapping) makes
//! it a new chunk at the same address.

use crate::heap::HEAP_BASE;
use crate::word::Word;

/// Linux's page size, which `PageAllocator` reads at run time.
pub const PAGE_SIZE: u64 = 4096;
/// Where the model's first mapping ends (64-bit): an address of the kind
/// the kernel hands out on x86-64, below the stack.
pub const MMAP_TOP: u64 = 0x7f00_0000_0000;
/// The most the model's mappings hold together (64-bit).
pub const MMAP_LIMIT: u64 = 1 << 32;
/// `BrkAllocator`'s big page: wasm's 64 KiB page.
pub const BIGPAGE: u64 = 64 * 1024;
/// `min_class`: log2 of the smallest slot, 8 bytes (a 4-byte request and
/// the free-list word).
const MIN_CLASS: u32 = 3;
/// `size_class_count`: slots of 8 bytes up to 32 KiB.
const SIZE_CLASSES: usize = (16 - MIN_CLASS) as usize;
/// `big_size_class_count`: 1, 2, 4 ... 2^15 big pages.
const BIG_CLASSES: usize = 16;
/// wasm32's whole address space.
const WASM_MEMORY: u64 = 1 << 32;

/// What the child holds for one buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageBuffer<W> {
    /// The chunk id: a new one for each allocation and each change of
    /// reservation.
    pub id: u32,
    pub base: W,
    /// The largest size `resize` grants in place.
    pub reserved: W,
}

/// What a `resize` did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resized<W> {
    Refused,
    /// page_allocator's own arithmetic overflowed on the new size: Zig
    /// panics there in a safety-checked build (`PageAllocator` rounds the
    /// size up to a page; `BrkAllocator` counts big pages).
    Overflows,
    /// Granted within the same reservation.
    InPlace,
    /// Granted, and the reservation changed: the buffer is now this chunk.
    Remapped(PageBuffer<W>),
}

/// `std.heap.page_allocator` on the target of `W`.
#[derive(Clone, Debug)]
pub struct PageChild<W> {
    next_id: u32,
    /// 64-bit: the address of the newest mapping (`addr_hint` as
    /// `PageAllocator` keeps it when the stack grows down).
    hint: u64,
    /// wasm32: `next_addrs` of each size class.
    next_addrs: [u64; SIZE_CLASSES],
    /// wasm32: each size class's free list, last freed on top.
    frees: Vec<Vec<u64>>,
    /// wasm32: the free list of each power of two of big pages.
    big_frees: Vec<Vec<u64>>,
    /// wasm32: the end of linear memory (`memory.grow` returns it).
    top: u64,
    _word: core::marker::PhantomData<W>,
}

impl<W: Word> Default for PageChild<W> {
    fn default() -> Self {
        Self::new()
    }
}

fn is_wasm<W: Word>() -> bool {
    W::BITS == 32
}

/// `math.ceilPowerOfTwo`, or `None` past the word.
fn ceil_pow2<W: Word>(v: u64) -> Option<u64> {
    let p = v.max(1).checked_next_power_of_two()?;
    (p <= W::MAX.to_u64()).then_some(p)
}

/// `bigPagesNeeded`: one more than the big pages n - 4 bytes span, less
/// one when n + 3 reaches a whole number of them (the source's arithmetic).
fn big_pages_needed(n: u64) -> u64 {
    (n + (BIGPAGE + 3)) / BIGPAGE
}

impl<W: Word> PageChild<W> {
    pub fn new() -> Self {
        PageChild {
            next_id: 0,
            hint: MMAP_TOP,
            next_addrs: [0; SIZE_CLASSES],
            frees: vec![Vec::new(); SIZE_CLASSES],
            big_frees: vec![Vec::new(); BIG_CLASSES],
            top: HEAP_BASE,
            _word: core::marker::PhantomData,
        }
    }

    fn word() -> u64 {
        u64::from(W::BITS / 8)
    }

    /// wasm32: `actual_len` of a buffer of `len` bytes: the request and the
    /// free-list word, at least the alignment (the node's, a word).
    fn actual(len: u64) -> u64 {
        len.saturating_add(Self::word())
            .min(W::MAX.to_u64())
            .max(Self::word())
    }

    /// The largest size `resize` grants a buffer of `len` bytes, or `None`
    /// when no buffer of that size can be had.
    pub fn reservation(len: W) -> Option<W> {
        let len = len.to_u64();
        let r = if is_wasm::<W>() {
            let slot = ceil_pow2::<W>(Self::actual(len))?;
            if slot.trailing_zeros() - MIN_CLASS < SIZE_CLASSES as u32 {
                slot - Self::word()
            } else {
                let pages = ceil_pow2::<W>(big_pages_needed(Self::actual(len)))?;
                // bigPagesNeeded(r + 4) stays within `pages` up to here.
                pages.checked_mul(BIGPAGE)? - 2 * Self::word()
            }
        } else {
            len.checked_add(PAGE_SIZE - 1)? & !(PAGE_SIZE - 1)
        };
        W::from_u64(r)
    }

    /// `rawAlloc(len, .of(Node))`: a fresh buffer, or `None` when the child
    /// has no room.
    pub fn alloc(&mut self, len: W) -> Option<PageBuffer<W>> {
        let reserved = Self::reservation(len)?;
        let base = if is_wasm::<W>() {
            self.brk_alloc(len.to_u64())?
        } else {
            // `map`: n >= maxInt(usize) - page_size is refused outright.
            let n = len.to_u64();
            if n >= u64::MAX - PAGE_SIZE {
                return None;
            }
            let pages = reserved.to_u64();
            let addr = self.hint.checked_sub(pages)?;
            if addr < MMAP_TOP - MMAP_LIMIT {
                return None;
            }
            self.hint = addr;
            addr
        };
        let id = self.next_id;
        self.next_id += 1;
        Some(PageBuffer {
            id,
            base: W::from_u64(base)?,
            reserved,
        })
    }

    /// `rawResize(buffer[0..len], .of(Node), new_len)`.
    pub fn resize(&mut self, buf: PageBuffer<W>, len: W, new_len: W) -> Resized<W> {
        let (old, new) = (len.to_u64(), new_len.to_u64());
        let max = W::MAX.to_u64();
        let granted = if is_wasm::<W>() {
            // `BrkAllocator.resize`: the same slot, or for a buffer of big
            // pages the same power of two of them.
            let (old_actual, new_actual) = (Self::actual(old), Self::actual(new));
            match ceil_pow2::<W>(old_actual) {
                Some(slot) if slot.trailing_zeros() - MIN_CLASS < SIZE_CLASSES as u32 => {
                    ceil_pow2::<W>(new_actual) == Some(slot)
                }
                Some(_) => {
                    // bigPagesNeeded adds a big page and 3 without a check.
                    if new_actual.checked_add(BIGPAGE + 3).is_none_or(|v| v > max) {
                        return Resized::Overflows;
                    }
                    let pages = |a: u64| ceil_pow2::<W>(big_pages_needed(a));
                    pages(old_actual).is_some() && pages(old_actual) == pages(new_actual)
                }
                None => false,
            }
        } else {
            // `PageAllocator.realloc` without moving: the same pages, or
            // fewer (the rest unmapped). It rounds the new size up to a
            // page without a check.
            if new.checked_add(PAGE_SIZE - 1).is_none_or(|v| v > max) {
                return Resized::Overflows;
            }
            match (Self::reservation(len), Self::reservation(new_len)) {
                (Some(have), Some(want)) => want <= have,
                _ => false,
            }
        };
        if !granted {
            return Resized::Refused;
        }
        match Self::reservation(new_len) {
            Some(r) if Some(r) == Self::reservation(len) => Resized::InPlace,
            Some(reserved) => {
                let id = self.next_id;
                self.next_id += 1;
                Resized::Remapped(PageBuffer {
                    id,
                    base: buf.base,
                    reserved,
                })
            }
            None => Resized::Refused,
        }
    }

    /// `rawFree(buffer[0..len], .of(Node))`.
    pub fn free(&mut self, buf: PageBuffer<W>, len: W) {
        if !is_wasm::<W>() {
            // munmap: the hint stays where the newest mapping was.
            return;
        }
        let actual = Self::actual(len.to_u64());
        let Some(slot) = ceil_pow2::<W>(actual) else {
            return;
        };
        let class = (slot.trailing_zeros() - MIN_CLASS) as usize;
        let addr = buf.base.to_u64();
        if class < SIZE_CLASSES {
            self.frees[class].push(addr);
        } else if let Some(pages) = ceil_pow2::<W>(big_pages_needed(actual)) {
            self.big_frees[pages.trailing_zeros() as usize].push(addr);
        }
    }

    /// `BrkAllocator.alloc`.
    fn brk_alloc(&mut self, len: u64) -> Option<u64> {
        let actual = Self::actual(len);
        let slot = ceil_pow2::<W>(actual)?;
        let class = (slot.trailing_zeros() - MIN_CLASS) as usize;
        if class < SIZE_CLASSES {
            if let Some(addr) = self.frees[class].pop() {
                return Some(addr);
            }
            let next = self.next_addrs[class];
            if next % BIGPAGE == 0 {
                let addr = self.big_pages(1)?;
                self.next_addrs[class] = addr + slot;
                return Some(addr);
            }
            self.next_addrs[class] = next + slot;
            return Some(next);
        }
        self.big_pages(big_pages_needed(actual))
    }

    /// `allocBigPages`: a power of two of big pages, from its free list or
    /// from `memory.grow`.
    fn big_pages(&mut self, n: u64) -> Option<u64> {
        let pages = ceil_pow2::<W>(n)?;
        let class = pages.trailing_zeros() as usize;
        if let Some(addr) = self.big_frees.get_mut(class).and_then(Vec::pop) {
            return Some(addr);
        }
        let bytes = pages.checked_mul(BIGPAGE)?;
        let end = self.top.checked_add(bytes)?;
        if end > WASM_MEMORY {
            return None;
        }
        let addr = self.top;
        self.top = end;
        Some(addr)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_reserves_whole_pages_and_maps_each_below_the_last() {
        let mut c = PageChild::<u64>::new();
        let a = c.alloc(212).unwrap();
        assert_eq!((a.id, a.base, a.reserved), (0, MMAP_TOP - 4096, 4096));
        let b = c.alloc(8311).unwrap();
        assert_eq!(
            (b.id, b.base, b.reserved),
            (1, MMAP_TOP - 4096 - 12288, 12288)
        );
        assert_eq!(c.resize(a, 212, 4096), Resized::InPlace);
        assert_eq!(c.resize(a, 212, 4097), Resized::Refused);
        let Resized::Remapped(s) = c.resize(b, 8311, 100) else {
            panic!("a shrink to fewer pages unmaps the rest")
        };
        assert_eq!((s.id, s.base, s.reserved), (2, b.base, 4096));
    }

    #[test]
    fn wasm32_cuts_slots_from_big_pages_and_reuses_the_last_freed() {
        let mut c = PageChild::<u32>::new();
        // 194 + 4 bytes: the 256 class, whose first slot opens a big page.
        let a = c.alloc(194).unwrap();
        assert_eq!((a.base, a.reserved), (HEAP_BASE as u32, 252));
        let b = c.alloc(200).unwrap();
        assert_eq!(b.base, a.base + 256);
        // 466 + 4: the 512 class, a big page of its own.
        let d = c.alloc(466).unwrap();
        assert_eq!((d.base, d.reserved), (HEAP_BASE as u32 + 65536, 508));
        assert_eq!(c.resize(a, 194, 252), Resized::InPlace);
        assert_eq!(c.resize(a, 194, 253), Resized::Refused);
        c.free(a, 194);
        c.free(b, 200);
        // A 10-byte buffer is in the 16 class: a big page of its own.
        assert_eq!(c.alloc(10).unwrap().base, HEAP_BASE as u32 + 2 * 65536);
        // The 256 class hands out the slot freed last.
        assert_eq!(c.alloc(250).unwrap().base, b.base);
        // 70000 bytes: two big pages, reserved up to 8 bytes short of them.
        let big = c.alloc(70000).unwrap();
        assert_eq!(big.reserved, 2 * 65536 - 8);
        assert_eq!(c.resize(big, 70000, 2 * 65536 - 8), Resized::InPlace);
        assert_eq!(c.resize(big, 70000, 2 * 65536 - 7), Resized::Refused);
        // Not to one big page: another power of two.
        assert_eq!(c.resize(big, 70000, 100), Resized::Refused);
        // A buffer of one big page shrunk to a small size stays there, but
        // what it may grow to again is its new class's.
        let one = c.alloc(40000).unwrap();
        assert_eq!(one.reserved, 65536 - 8);
        let Resized::Remapped(s) = c.resize(one, 40000, 100) else {
            panic!("a big buffer shrunk to a small size keeps its place")
        };
        assert_eq!((s.base, s.reserved), (one.base, 124));
    }
}
