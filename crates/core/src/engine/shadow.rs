//! The engine's shadow tables: every chunk with the blocks whose bytes it
//! still holds, and the block each name points at. The model keeps only
//! what the real allocator keeps; these tables are what tell a freed block
//! from a leaked one and reclaimed bytes from held ones.
//!
//! A block is named by the op that placed it, and its record is that op's
//! row of the run's columns ([`Columns`]): where it is, its size, padding
//! and alignment, and the ops that ended it and reclaimed its bytes. So the
//! tables hold four bytes per block a chunk holds, and what happened to a
//! block is read back from the columns as of the op being run: a detail's
//! re-run reads columns written past it, and looks only at what ops before
//! its own wrote. What the op being run changes is kept apart until the run
//! writes its row ([`Engine::pending_dead`], and `Op::reclaimed`).

use std::rc::Rc;

use crate::algorithms::Direction;
use crate::columns::{Columns, META_ALIGN_SHIFT, META_KIND, META_STMT_SHIFT, NONE};
use crate::persistent::{make_mut, PVec};
use crate::program::{Name, Pos};
use crate::text::bytes;
use crate::trace::{ChunkInfo, EventKind, Op, OpKind, Shape};
use crate::word::Word;

use super::Engine;
use crate::trace::note;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum BlockState {
    Live,
    /// Freed by the program; its bytes stay until they are reclaimed.
    Freed,
    /// Left behind by a realloc that moved.
    Leaked,
    /// Its bytes are free space again (or belong to the block that replaced it).
    Reclaimed,
}

/// A block as the engine reads it, from the row of the op that placed it.
#[derive(Clone, Copy, Debug)]
pub(super) struct BlockRef {
    /// `None` for a zero-sized block placed outside every chunk (bumpalo
    /// hands out a dangling, aligned pointer for those).
    pub(super) chunk: Option<u32>,
    pub(super) address: u64,
    pub(super) size: u64,
    pub(super) padding: u64,
    pub(super) align: u64,
    pub(super) state: BlockState,
}

/// How a block ended, read back from the columns.
#[derive(Clone, Copy, Debug)]
pub(super) struct Ending {
    pub(super) state: BlockState,
    /// Where the op that ended it stands.
    pub(super) at: Option<Pos>,
    /// Whether the program freed it (its bytes may have been reclaimed since).
    pub(super) freed: bool,
    /// Whether a realloc replaced it (at `at`).
    pub(super) reallocated: bool,
}

/// The block a name points at, and what a Rust caller's compiler knows of
/// its layout (what resizing or freeing it is measured with).
#[derive(Clone, Copy, Debug)]
pub(super) struct Named {
    /// The op that placed it ([`NONE`]: no block).
    pub(super) block: u32,
    pub(super) shape: Shape,
}

impl Named {
    pub(super) const NONE: Named = Named {
        block: NONE,
        shape: Shape::Layout,
    };
}

/// A value per name, `empty` for the names never set: grows as names are set.
#[derive(Clone)]
pub(super) struct NameTable<T> {
    values: PVec<T>,
    empty: T,
}

impl<T: Clone> NameTable<T> {
    pub(super) fn new(empty: T) -> Self {
        NameTable {
            values: PVec::new(),
            empty,
        }
    }

    pub(super) fn get(&self, name: Name) -> T {
        self.values.get(name.index()).unwrap_or(&self.empty).clone()
    }

    pub(super) fn set(&mut self, name: Name, v: T) {
        while self.values.len() <= name.index() {
            self.values.push(self.empty.clone());
        }
        self.values[name.index()] = v;
    }

    pub(super) fn bytes(&self) -> u64 {
        self.values.bytes()
    }
}

#[derive(Clone)]
pub(super) struct ChunkRec {
    pub(super) info: ChunkInfo,
    /// Blocks whose bytes the chunk still holds, ordered from the chunk's
    /// bump origin towards the bump pointer.
    pub(super) holding: PVec<u32>,
    /// Live zero-sized blocks a rewind passed: they hold no bytes but end
    /// when the chunk goes back to the base allocator.
    pub(super) empty: PVec<u32>,
    pub(super) live: bool,
    /// The stats of the blocks in `holding`, kept as they change so an op
    /// costs the same however many blocks the chunk holds.
    pub(super) tally: Tally,
}

/// What a chunk's held blocks add to [`Stats`](crate::trace::Stats).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tally {
    pub(super) padding: u64,
    pub(super) requested: u64,
    pub(super) leaked: u64,
}

impl Tally {
    /// Adds block `blk` (one of this tally's chunk) to it, or takes it out.
    pub(super) fn count(&mut self, blk: &BlockRef, add: bool) {
        let (requested, leaked) = match blk.state {
            BlockState::Live => (blk.size, 0),
            BlockState::Freed | BlockState::Leaked => (0, blk.size),
            BlockState::Reclaimed => (0, 0),
        };
        if add {
            self.padding += blk.padding;
            self.requested += requested;
            self.leaked += leaked;
        } else {
            self.padding -= blk.padding;
            self.requested -= requested;
            self.leaked -= leaked;
        }
    }
}

impl<W: Word> Engine<W> {
    /// Where op `i`'s statement stands.
    pub(super) fn op_pos(&self, cols: &Columns, i: u32) -> Pos {
        let stmt = cols.meta[i as usize] >> META_STMT_SHIFT;
        self.program.get(stmt as usize).pos
    }

    /// How block `b` (placed before the op being run) had ended before it:
    /// the ops after it that freed, replaced or reclaimed it, as far as
    /// they ran before this one.
    pub(super) fn ending(&self, cols: &Columns, b: u32) -> Ending {
        if let Some((p, state)) = self.pending_dead {
            if p == b {
                return Ending {
                    state,
                    at: None,
                    freed: state == BlockState::Freed,
                    reallocated: state != BlockState::Freed,
                };
            }
        }
        let now = self.executed;
        let before = |v: u32| (v != NONE && v < now).then_some(v);
        let dead = before(cols.dead_at[b as usize]);
        let gone = before(cols.gone_at[b as usize]);
        let by_free = dead.is_some_and(|d| cols.meta[d as usize] & META_KIND == 2);
        let state = match (dead, gone) {
            (_, Some(_)) => BlockState::Reclaimed,
            (Some(_), None) if by_free => BlockState::Freed,
            (Some(_), None) => BlockState::Leaked,
            (None, None) => BlockState::Live,
        };
        Ending {
            state,
            at: dead.or(gone).map(|i| self.op_pos(cols, i)),
            freed: by_free,
            reallocated: dead.is_some() && !by_free,
        }
    }

    /// Block `b`, placed by an op before the one being run.
    pub(super) fn block(&self, cols: &Columns, b: u32) -> BlockRef {
        let i = b as usize;
        let chunk = (cols.chunk[i] != NONE).then_some(cols.chunk[i]);
        let offset = u64::from(cols.offset[i]);
        BlockRef {
            chunk,
            address: chunk.map_or(offset, |c| self.chunks[c as usize].info.start + offset),
            size: u64::from(cols.size[i]),
            padding: self.padding_of(b).unwrap_or(u64::from(cols.padding[i])),
            align: 1 << ((cols.meta[i] >> META_ALIGN_SHIFT) & 0xf),
            state: self.ending(cols, b).state,
        }
    }

    /// Block `b`: the one the op being run placed, or an earlier one.
    fn block_or_new(&self, cols: &Columns, op: &Op, b: u32) -> BlockRef {
        if b != op.index {
            return self.block(cols, b);
        }
        BlockRef {
            chunk: op.chunk,
            address: op.address.expect("a placed block has an address"),
            size: op.size.unwrap_or(0),
            padding: self.padding_of(b).or(op.padding).unwrap_or(0),
            align: op.align.unwrap_or(1),
            state: BlockState::Live,
        }
    }

    /// The padding of block `b` if a resize beside it changed it since it
    /// was placed (the columns keep the padding it was placed with).
    fn padding_of(&self, b: u32) -> Option<u64> {
        self.paddings
            .binary_search_by_key(&b, |&(k, _)| k)
            .ok()
            .map(|k| self.paddings[k].1)
    }

    fn set_padding(&mut self, b: u32, padding: u64) {
        match self.paddings.binary_search_by_key(&b, |&(k, _)| k) {
            Ok(k) => self.paddings[k].1 = padding,
            Err(k) => self.paddings.insert(k, (b, padding)),
        }
    }

    /// Records the block op `op` places at `addr` (its id is the op's
    /// index); returns where it is among its chunk's held blocks (`None`
    /// outside every chunk). `replacing` is the chunk and index among its
    /// held blocks of the block an in-place realloc replaces: it leaves the
    /// list as the new block takes its place.
    pub(super) fn place(
        &mut self,
        cols: &Columns,
        op: &mut Op,
        addr: u64,
        size: u64,
        replacing: Option<(u32, usize)>,
    ) -> Option<usize> {
        let chunk = self
            .live
            .iter()
            .rev()
            .map(|&id| &self.chunks[id as usize].info)
            .find(|c| c.start <= addr && addr + size <= c.start + c.capacity)
            .map(|c| c.id);
        let replacing = match (chunk, replacing) {
            (Some(c), Some((rc, i))) if c == rc => Some(i),
            (_, Some((rc, i))) => {
                chunk_mut(&mut self.chunks, rc as usize).holding.remove(i);
                None
            }
            (_, None) => None,
        };
        let Some(chunk) = chunk else {
            assert_eq!(
                size, 0,
                "a model returns addresses inside one of its live chunks"
            );
            self.place_dangling(op, addr);
            return None;
        };
        let rec = &self.chunks[chunk as usize];
        // The held blocks as they are once the replaced one leaves: `n` of
        // them, the `k`-th is `held(k)`.
        let n = rec.holding.len() - usize::from(replacing.is_some());
        let held = |k: usize| -> u32 {
            let k = match replacing {
                Some(r) if k >= r => k + 1,
                _ => k,
            };
            rec.holding[k]
        };
        // Held blocks stay sorted from the bump origin towards the pointer;
        // a block usually lands last, but an in-place realloc of an earlier
        // block lands in the middle.
        let up = self.direction == Direction::Up;
        let before = |a: u64| if up { a <= addr } else { a >= addr };
        // The last held block is checked first: when the new block lands
        // after it, as it does but for in-place reallocs, no search walks
        // a chunk that may hold a million blocks. Read once: it is also the
        // first neighbour the padding below measures from.
        let last = n.checked_sub(1).map(|k| self.block(cols, held(k)));
        let at = match last {
            Some(b) if before(b.address) => n,
            Some(_) => partition_point(n, |k| before(self.block(cols, held(k)).address)),
            None => 0,
        };
        // Padding is the gap between this block and its neighbour towards
        // the bump origin (or the chunk edge): alignment padding plus any
        // rounding the previous block's size got.
        // The neighbour is the nearest block with bytes: a zero-size block can
        // sit inside a block that grew in place over its address, and the
        // bytes up to its end are that block's, not padding.
        let (start, end) = (rec.info.start, rec.info.start + rec.info.capacity);
        let mut edge = if up { start } else { end };
        for k in (0..at).rev() {
            let b = match last {
                Some(b) if k + 1 == n => b,
                _ => self.block(cols, held(k)),
            };
            edge = if up {
                edge.max(b.address + b.size)
            } else {
                edge.min(b.address)
            };
            if b.size > 0 {
                break;
            }
        }
        let padding = if up {
            addr.saturating_sub(edge)
        } else {
            edge.saturating_sub(addr + size)
        };
        op.chunk = Some(chunk);
        op.address = Some(addr);
        op.offset = Some(addr - start);
        op.padding = Some(padding);
        if padding > 0 {
            note(self.detail, &mut op.events, EventKind::Padding, || {
                format!("{} of padding before the block", bytes(padding))
            });
        }
        note(self.detail, &mut op.events, EventKind::Placed, || {
            format!(
                "{} at {addr:#x} (chunk {chunk}, offset {})",
                bytes(size),
                addr - start
            )
        });
        let new = self.block_or_new(cols, op, op.index);
        // One copy-on-write of the chunk's record for both its held blocks
        // and its tally.
        let rec = chunk_mut(&mut self.chunks, chunk as usize);
        rec.tally.count(&new, true);
        match replacing {
            Some(r) if r == at => rec.holding[at] = op.index,
            Some(r) => {
                rec.holding.remove(r);
                rec.holding.insert(at, op.index);
            }
            None if at == rec.holding.len() => rec.holding.push(op.index),
            None => rec.holding.insert(at, op.index),
        }
        Some(at)
    }

    /// Where block `b` (placed before the op being run) is among its
    /// chunk's held blocks, if it is there.
    pub(super) fn held_index(&self, cols: &Columns, b: u32) -> Option<(u32, usize)> {
        let blk = self.block(cols, b);
        let c = blk.chunk?;
        let up = self.direction == Direction::Up;
        let holding = &self.chunks[c as usize].holding;
        // `place` put it after every held block at or before its address,
        // so a binary search finds it without walking the chunk's blocks.
        let ends = partition_point(holding.len(), |k| {
            let a = self.block(cols, holding[k]).address;
            if up {
                a <= blk.address
            } else {
                a >= blk.address
            }
        });
        match ends.checked_sub(1) {
            Some(at) if holding[at] == b => Some((c, at)),
            _ => holding.iter().rposition(|&x| x == b).map(|at| (c, at)),
        }
    }

    /// Takes block `b` out of its chunk's tally, or adds it back: around a
    /// change of what it counts as.
    pub(super) fn count(&mut self, cols: &Columns, b: u32, add: bool) {
        let blk = self.block(cols, b);
        let Some(c) = blk.chunk else { return };
        chunk_mut(&mut self.chunks, c as usize)
            .tally
            .count(&blk, add);
    }

    /// Ends live block `b` (freed or leaked) without it leaving its chunk.
    /// A live block that holds bytes is always among its chunk's held
    /// blocks; one that holds none adds nothing to move.
    pub(super) fn restate(&mut self, cols: &Columns, b: u32, state: BlockState) {
        let blk = self.block(cols, b);
        debug_assert_eq!(blk.state, BlockState::Live);
        self.pending_dead = Some((b, state));
        if let (Some(c), size @ 1..) = (blk.chunk, blk.size) {
            let t = &mut chunk_mut(&mut self.chunks, c as usize).tally;
            t.requested -= size;
            t.leaked += size;
        }
    }

    /// A block resized where it was (the one op `op` placed, `at` among its
    /// chunk's held blocks) changes the gap before the zero-size blocks
    /// placed right after it (towards the bump pointer, before the next
    /// block with bytes): their padding is measured from its new edge, and a
    /// growth over one's address leaves it none.
    pub(super) fn absorb_zero_size(&mut self, cols: &Columns, op: &Op, at: usize) {
        let Some(c) = op.chunk else {
            return;
        };
        let (lo, hi) = match (op.address, op.size) {
            (Some(a), Some(s)) => (a, a + s),
            _ => return,
        };
        let up = self.direction == Direction::Up;
        let holding = &self.chunks[c as usize].holding;
        let after: Vec<u32> = (at + 1..holding.len())
            .map(|k| holding[k])
            .take_while(|&z| self.block(cols, z).size == 0)
            .collect();
        for z in after {
            let blk = self.block(cols, z);
            let padding = if up {
                blk.address.saturating_sub(hi)
            } else {
                lo.saturating_sub(blk.address)
            };
            if padding != blk.padding {
                self.count(cols, z, false);
                self.set_padding(z, padding);
                self.count(cols, z, true);
            }
        }
    }

    /// Records a zero-sized block the model placed outside every chunk.
    fn place_dangling(&mut self, op: &mut Op, addr: u64) {
        let align = op.align.unwrap_or(1);
        op.address = Some(addr);
        op.padding = Some(0);
        note(self.detail, &mut op.events, EventKind::Placed, || {
            format!(
                "zero-sized: a dangling pointer {addr:#x} aligned to {align}, no chunk bytes taken"
            )
        });
    }

    /// Reclaims, in every chunk that holds blocks, those the model no longer holds.
    pub(super) fn reclaim_all(&mut self, cols: &Columns, op: &mut Op) {
        let touched: Vec<u32> = self
            .chunks
            .iter()
            .filter(|c| !c.holding.is_empty() || !c.empty.is_empty())
            .map(|c| c.info.id)
            .collect();
        self.reclaim_touched(cols, op, &touched);
    }

    /// Pops, from each chunk's held blocks, those now beyond its bump pointer
    /// (or all of them, if the chunk went back to the base allocator).
    pub(super) fn reclaim_touched(&mut self, cols: &Columns, op: &mut Op, chunks: &[u32]) {
        let before = op.reclaimed.len();
        for &c in chunks {
            let used = self
                .model
                .used(c)
                .map(|(lo, hi)| (lo.to_u64(), hi.to_u64()));
            if used.is_none() && !self.chunks[c as usize].empty.is_empty() {
                let empty = core::mem::take(&mut chunk_mut(&mut self.chunks, c as usize).empty);
                for &b in empty.iter() {
                    if self.block_or_new(cols, op, b).state != BlockState::Reclaimed {
                        op.reclaimed.push(b);
                    }
                }
            }
            while let Some(&b) = self.chunks[c as usize].holding.last() {
                let blk = self.block_or_new(cols, op, b);
                let gone = match used {
                    None => true,
                    Some((lo, hi)) => match self.direction {
                        Direction::Up => {
                            blk.address > hi || (blk.size > 0 && blk.address + blk.size > hi)
                        }
                        Direction::Down => blk.address < lo,
                    },
                };
                if !gone {
                    break;
                }
                // One copy-on-write of the chunk's record for its tally and
                // its held blocks.
                let rec = chunk_mut(&mut self.chunks, c as usize);
                rec.tally.count(&blk, false);
                rec.holding.pop();
                if blk.size == 0 && blk.state == BlockState::Live && used.is_some() {
                    // It holds no bytes, so a rewind past it takes nothing
                    // away: it stays a valid, live block (the real crates
                    // agree: its pointer may still be reallocated or freed).
                    // Only its chunk going back to the base allocator ends it.
                    rec.empty.push(b);
                    continue;
                }
                op.reclaimed.push(b);
            }
        }
        let n = op.reclaimed.len() - before;
        if n > 0 && op.kind != OpKind::Free {
            note(self.detail, &mut op.events, EventKind::Reclaimed, || {
                format!("{n} block{} reclaimed", if n == 1 { "" } else { "s" })
            });
        }
    }

    /// Blocks the chunks hold (the engine's per-block memory).
    pub(super) fn held_blocks(&self) -> usize {
        self.chunks
            .iter()
            .map(|c| c.holding.len() + c.empty.len())
            .sum()
    }
}

/// The first of `0..n` for which `pred` fails (all that pass come first),
/// as `slice::partition_point`.
fn partition_point(n: usize, pred: impl Fn(usize) -> bool) -> usize {
    let (mut lo, mut hi) = (0, n);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Chunk `c`'s record, to change: copied first (and counted) if a snapshot shares it.
pub(super) fn chunk_mut(chunks: &mut PVec<Rc<ChunkRec>>, c: usize) -> &mut ChunkRec {
    make_mut(&mut chunks[c])
}
