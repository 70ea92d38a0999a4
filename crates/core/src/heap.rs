//! The simulated base allocator (the `malloc` under the arena).
//!
//! Deterministic: chunk addresses depend only on the sequence of requests.
//! First fit over a free list with coalescing, so a chunk freed and asked
//! for again (Bumper's slab-boundary pitfall) comes back at the same address.

use crate::word::{Target, Word};

/// Address of the first byte the base allocator owns.
pub const HEAP_BASE: u64 = 0x1_0000;
/// Bytes of bookkeeping the base allocator puts before each allocation, as
/// a typical malloc does; the arena does not see them.
pub const MALLOC_HEADER: u64 = 16;

#[derive(Clone, Debug)]
pub struct Heap<W> {
    /// Free ranges `[lo, hi)`, sorted and coalesced.
    free: Vec<(u64, u64)>,
    next_id: u32,
    _word: core::marker::PhantomData<W>,
}

impl<W: Word> Heap<W> {
    /// The whole simulated heap: 4 GiB on 64-bit targets; wasm32's address
    /// space less the bytes below the heap base.
    pub fn new(target: Target) -> Self {
        let top = match target {
            Target::W64 => HEAP_BASE + (1 << 32),
            Target::Wasm32 => 1 << 32,
        };
        Heap {
            free: vec![(HEAP_BASE, top)],
            next_id: 0,
            _word: core::marker::PhantomData,
        }
    }

    /// Free ranges in the list: what a copy of the heap costs.
    pub fn free_ranges(&self) -> usize {
        self.free.len()
    }

    /// Total bytes the heap can hand out.
    pub fn limit(target: Target) -> u64 {
        match target {
            Target::W64 => 1 << 32,
            Target::Wasm32 => (1 << 32) - HEAP_BASE,
        }
    }

    /// `size` bytes aligned to `align` (at least 16), and a fresh chunk id.
    pub fn alloc(&mut self, size: W, align: W) -> Option<(u32, W)> {
        let size = size.to_u64();
        let align = align.to_u64().max(16);
        for i in 0..self.free.len() {
            let (lo, hi) = self.free[i];
            let addr = (lo + MALLOC_HEADER).checked_add(align - 1)? & !(align - 1);
            let end = addr.checked_add(size)?;
            // Round the end up so the next allocation's header stays aligned.
            let end = end.checked_add(15)? & !15;
            if end > hi {
                continue;
            }
            let taken_from = addr - MALLOC_HEADER;
            let addr = W::from_u64(addr)?;
            // Shrink the free range in place: no temporary list, so a new
            // chunk costs no extra trip to the real allocator.
            match (taken_from > lo, end < hi) {
                (true, true) => {
                    self.free[i] = (lo, taken_from);
                    self.free.insert(i + 1, (end, hi));
                }
                (true, false) => self.free[i] = (lo, taken_from),
                (false, true) => self.free[i] = (end, hi),
                (false, false) => {
                    self.free.remove(i);
                }
            }
            let id = self.next_id;
            self.next_id += 1;
            return Some((id, addr));
        }
        None
    }

    /// Returns the allocation at `addr` of `size` bytes.
    pub fn free(&mut self, addr: W, size: W) {
        let lo = addr.to_u64() - MALLOC_HEADER;
        let hi = (addr.to_u64() + size.to_u64() + 15) & !15;
        let i = self.free.partition_point(|&(l, _)| l < lo);
        self.free.insert(i, (lo, hi));
        // Coalesce with the neighbours on both sides.
        if i + 1 < self.free.len() && self.free[i].1 == self.free[i + 1].0 {
            self.free[i].1 = self.free[i + 1].1;
            self.free.remove(i + 1);
        }
        if i > 0 && self.free[i - 1].1 == self.free[i].0 {
            self.free[i - 1].1 = self.free[i].1;
            self.free.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_fit_with_a_header_before_each_block_and_coalescing_frees() {
        let mut heap = Heap::<u64>::new(Target::W64);
        let (a_id, a) = heap.alloc(100, 16).unwrap();
        let (b_id, b) = heap.alloc(32, 64).unwrap();
        let (_, c) = heap.alloc(8, 1).unwrap();
        assert_eq!((a_id, b_id), (0, 1));
        assert_eq!(a, HEAP_BASE + MALLOC_HEADER);
        // a ends at 0x10074, rounded to 0x10080; b's header must fit before a
        // 64-aligned address: 0x100c0.
        assert_eq!(b, 0x100c0);
        // First fit: c goes into the gap b's alignment left (header at 0x10080).
        assert_eq!(c, 0x10090);
        // The 16 bytes left in that gap cannot hold a header and a block: d goes after b.
        let (_, d) = heap.alloc(8, 1).unwrap();
        assert_eq!(d, 0x100f0);
        // Freeing b and asking again gives the same address (first fit).
        heap.free(b, 32);
        assert_eq!(heap.alloc(32, 64).unwrap().1, b);
        // Freeing everything coalesces back to one range: a big block lands at the start.
        for (addr, size) in [(a, 100), (b, 32), (c, 8), (d, 8)] {
            heap.free(addr, size);
        }
        assert_eq!(heap.free.len(), 1);
        assert_eq!(heap.alloc(4096, 16).unwrap().1, a);
    }

    #[test]
    fn wasm32_heap_refuses_what_does_not_fit_32_bits() {
        let mut heap = Heap::<u32>::new(Target::Wasm32);
        assert!(heap.alloc(u32::MAX, 16).is_none());
        assert!(heap.alloc(1 << 20, 16).is_some());
    }
}
