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
            let mut replacement = Vec::with_capacity(2);
            if taken_from > lo {
                replacement.push((lo, taken_from));
            }
            if end < hi {
                replacement.push((end, hi));
            }
            self.free.splice(i..=i, replacement);
            let id = self.next_id;
            self.next_id += 1;
            return Some((id, W::from_u64(addr)?));
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
