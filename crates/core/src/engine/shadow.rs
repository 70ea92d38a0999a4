//! The engine's shadow tables: every block the program placed, with its
//! state, and every chunk with the blocks whose bytes it still holds. The
//! model keeps only what the real allocator keeps; these tables are what
//! tell a freed block from a leaked one and reclaimed bytes from held ones.

use std::rc::Rc;

use im::Vector;

use crate::algorithms::Direction;
use crate::program::Pos;
use crate::text::bytes;
use crate::trace::{ChunkInfo, EventKind, Op, OpKind, Shape};
use crate::word::Word;

use super::translate::note;
use super::Engine;

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

#[derive(Clone)]
pub(super) struct Block {
    pub(super) op: u32,
    /// `None` for a zero-sized block placed outside every chunk (bumpalo
    /// hands out a dangling, aligned pointer for those).
    pub(super) chunk: Option<u32>,
    pub(super) address: u64,
    pub(super) size: u64,
    pub(super) align: u64,
    pub(super) padding: u64,
    /// What a Rust caller's compiler knows of the block's layout: what
    /// resizing or freeing it is measured with.
    pub(super) shape: Shape,
    pub(super) state: BlockState,
    /// Where the op that ended it stands, for error messages.
    pub(super) ended_at: Option<Pos>,
    /// Where a realloc replaced it, if one did (its name may still point here).
    pub(super) reallocated_at: Option<Pos>,
    /// Whether the program freed it (its bytes may have been reclaimed since).
    pub(super) freed: bool,
}

#[derive(Clone)]
pub(super) struct ChunkRec {
    pub(super) info: ChunkInfo,
    /// Blocks whose bytes the chunk still holds, ordered from the chunk's
    /// bump origin towards the bump pointer.
    pub(super) holding: Vector<usize>,
    /// Live zero-sized blocks a rewind passed: they hold no bytes but end
    /// when the chunk goes back to the base allocator.
    pub(super) empty: Vector<usize>,
    pub(super) live: bool,
    /// The stats of the blocks in `holding`, kept as they change so an op
    /// costs the same however many blocks the chunk holds.
    pub(super) tally: Tally,
}

/// What a chunk's held blocks add to [`Stats`].
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Tally {
    pub(super) padding: u64,
    pub(super) requested: u64,
    pub(super) leaked: u64,
}

impl Tally {
    /// Adds block `blk` (one of this tally's chunk) to it, or takes it out.
    pub(super) fn count(&mut self, blk: &Block, add: bool) {
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
    /// Records a new block at `addr` and returns its index.
    pub(super) fn place(&mut self, op: &mut Op, addr: u64, size: u64, align: u64) -> usize {
        let chunk = self
            .live
            .iter()
            .rev()
            .map(|&id| &self.chunks[id as usize].info)
            .find(|c| c.start <= addr && addr + size <= c.start + c.capacity)
            .map(|c| c.id);
        let Some(chunk) = chunk else {
            assert_eq!(
                size, 0,
                "a model returns addresses inside one of its live chunks"
            );
            return self.place_dangling(op, addr, align);
        };
        let rec = &self.chunks[chunk as usize];
        // Held blocks stay sorted from the bump origin towards the pointer;
        // a block usually lands last, but an in-place realloc of an earlier
        // block lands in the middle.
        let up = self.direction == Direction::Up;
        let before = |a: u64| if up { a <= addr } else { a >= addr };
        // The last held block is checked first: when the new block lands
        // after it, as it does but for in-place reallocs, no search walks
        // a chunk that may hold a million blocks. Looked up once: it is
        // also the first neighbour the padding below measures from.
        let last = rec.holding.last().map(|&b| &self.blocks[b]);
        let at = match last {
            Some(n) if before(n.address) => rec.holding.len(),
            Some(_) => partition_point(&rec.holding, |&b| before(self.blocks[b].address)),
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
        // By index, from `at` down: an iterator would be built from the
        // front of the table to stop after a step or two at its back.
        for k in (0..at).rev() {
            let n = match last {
                Some(n) if k + 1 == rec.holding.len() => n,
                _ => &self.blocks[rec.holding[k]],
            };
            edge = if up {
                edge.max(n.address + n.size)
            } else {
                edge.min(n.address)
            };
            if n.size > 0 {
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
        let block = Block {
            op: op.index,
            chunk: Some(chunk),
            address: addr,
            size,
            align,
            padding,
            shape: op.shape.unwrap_or(Shape::Layout),
            state: BlockState::Live,
            ended_at: None,
            reallocated_at: None,
            freed: false,
        };
        // One copy-on-write of the chunk's record for both its held blocks
        // and its tally.
        let rec = chunk_mut(&mut self.chunks, chunk as usize);
        rec.tally.count(&block, true);
        let b = self.blocks.len();
        if at == rec.holding.len() {
            rec.holding.push_back(b);
        } else {
            rec.holding.insert(at, b);
        }
        self.blocks.push_back(block);
        b
    }

    /// Adds block `b` to its chunk's tally: call when it joins the chunk's
    /// held blocks.
    pub(super) fn tally(&mut self, b: usize) {
        self.count(b, true);
    }

    /// Takes block `b` out of its chunk's tally: call before it leaves the
    /// chunk's held blocks.
    pub(super) fn untally(&mut self, b: usize) {
        self.count(b, false);
    }

    /// Ends live block `b` (freed or leaked) without it leaving its chunk.
    /// A live block that holds bytes is always among its chunk's held
    /// blocks; one that holds none adds nothing to move.
    pub(super) fn restate(&mut self, b: usize, state: BlockState) {
        let blk = &mut self.blocks[b];
        debug_assert_eq!(blk.state, BlockState::Live);
        blk.state = state;
        if let (Some(c), size @ 1..) = (blk.chunk, blk.size) {
            let t = &mut chunk_mut(&mut self.chunks, c as usize).tally;
            t.requested -= size;
            t.leaked += size;
        }
    }

    /// A block resized where it was changes the gap before the zero-size
    /// blocks placed right after it (towards the bump pointer, before the
    /// next block with bytes): their padding is measured from its new edge,
    /// and a growth over one's address leaves it none.
    pub(super) fn absorb_zero_size(&mut self, b: usize) {
        let Some(c) = self.blocks[b].chunk else {
            return;
        };
        let (lo, hi) = (
            self.blocks[b].address,
            self.blocks[b].address + self.blocks[b].size,
        );
        let up = self.direction == Direction::Up;
        let holding = &self.chunks[c as usize].holding;
        // `place` put it after every held block at or before its address,
        // so a binary search finds it without walking the chunk's blocks.
        let ends = partition_point(holding, |&x| {
            let a = self.blocks[x].address;
            if up {
                a <= lo
            } else {
                a >= lo
            }
        });
        let at = match ends.checked_sub(1) {
            Some(at) if holding[at] == b => at,
            _ => match holding.iter().position(|&x| x == b) {
                Some(at) => at,
                None => return,
            },
        };
        let after: Vec<usize> = (at + 1..holding.len())
            .map(|k| holding[k])
            .take_while(|&z| self.blocks[z].size == 0)
            .collect();
        for z in after {
            let addr = self.blocks[z].address;
            let padding = if up {
                addr.saturating_sub(hi)
            } else {
                lo.saturating_sub(addr)
            };
            if padding != self.blocks[z].padding {
                self.untally(z);
                self.blocks[z].padding = padding;
                self.tally(z);
            }
        }
    }

    pub(super) fn count(&mut self, b: usize, add: bool) {
        let blk = &self.blocks[b];
        let Some(c) = blk.chunk else { return };
        chunk_mut(&mut self.chunks, c as usize)
            .tally
            .count(blk, add);
    }

    /// Records a zero-sized block the model placed outside every chunk.
    pub(super) fn place_dangling(&mut self, op: &mut Op, addr: u64, align: u64) -> usize {
        op.address = Some(addr);
        op.padding = Some(0);
        note(self.detail, &mut op.events, EventKind::Placed, || {
            format!(
                "zero-sized: a dangling pointer {addr:#x} aligned to {align}, no chunk bytes taken"
            )
        });
        self.blocks.push_back(Block {
            op: op.index,
            chunk: None,
            address: addr,
            size: 0,
            align,
            padding: 0,
            shape: op.shape.unwrap_or(Shape::Layout),
            state: BlockState::Live,
            ended_at: None,
            reallocated_at: None,
            freed: false,
        });
        self.blocks.len() - 1
    }

    /// Reclaims, in every chunk that holds blocks, those the model no longer holds.
    pub(super) fn reclaim_all(&mut self, op: &mut Op) {
        let touched: Vec<u32> = self
            .chunks
            .iter()
            .filter(|c| !c.holding.is_empty() || !c.empty.is_empty())
            .map(|c| c.info.id)
            .collect();
        self.reclaim_touched(op, &touched);
    }

    /// Pops, from each chunk's held blocks, those now beyond its bump pointer
    /// (or all of them, if the chunk went back to the base allocator).
    pub(super) fn reclaim_touched(&mut self, op: &mut Op, chunks: &[u32]) {
        let before = op.reclaimed.len();
        for &c in chunks {
            let used = self
                .model
                .used(c)
                .map(|(lo, hi)| (lo.to_u64(), hi.to_u64()));
            if used.is_none() {
                for b in core::mem::take(&mut chunk_mut(&mut self.chunks, c as usize).empty) {
                    let blk = &mut self.blocks[b];
                    if blk.state != BlockState::Reclaimed {
                        blk.state = BlockState::Reclaimed;
                        blk.ended_at = Some(Pos {
                            line: op.line,
                            column: op.column,
                        });
                        op.reclaimed.push(blk.op);
                    }
                }
            }
            while let Some(&b) = self.chunks[c as usize].holding.last() {
                let blk = &self.blocks[b];
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
                rec.tally.count(blk, false);
                rec.holding.pop_back();
                if blk.size == 0 && blk.state == BlockState::Live && used.is_some() {
                    // It holds no bytes, so a rewind past it takes nothing
                    // away: it stays a valid, live block (the real crates
                    // agree: its pointer may still be reallocated or freed).
                    // Only its chunk going back to the base allocator ends it.
                    rec.empty.push_back(b);
                    continue;
                }
                let blk = &mut self.blocks[b];
                if blk.state == BlockState::Live {
                    blk.ended_at = Some(Pos {
                        line: op.line,
                        column: op.column,
                    });
                }
                blk.state = BlockState::Reclaimed;
                op.reclaimed.push(blk.op);
            }
        }
        let n = op.reclaimed.len() - before;
        if n > 0 && op.kind != OpKind::Free {
            note(self.detail, &mut op.events, EventKind::Reclaimed, || {
                format!("{n} block{} reclaimed", if n == 1 { "" } else { "s" })
            });
        }
    }
}

/// The first index of `v` whose element fails `pred` (`v` is partitioned:
/// all that pass come first), as `slice::partition_point`.
fn partition_point<T: Clone>(v: &Vector<T>, pred: impl Fn(&T) -> bool) -> usize {
    let (mut lo, mut hi) = (0, v.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if pred(&v[mid]) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}
/// Chunk `c`'s record, to change: copied first if a snapshot shares it.
pub(super) fn chunk_mut(chunks: &mut Vector<Rc<ChunkRec>>, c: usize) -> &mut ChunkRec {
    Rc::make_mut(&mut chunks[c])
}
