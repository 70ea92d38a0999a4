//! The ops that name blocks: alloc, realloc and free, with the checks that
//! make a bad name an error that says what became of the block.

use crate::model::{AllocError, Layout};
use crate::program::{Assigned, Name, Pos, ProgramError, SizeExpr};
use crate::text::bytes;
use crate::trace::{EventKind, Op, OpKind, Shape};
use crate::word::Word;

use super::request::{check_align, check_layout, model_error};
use super::shadow::{chunk_mut, BlockState, Named};
use super::Engine;
use crate::columns::{Columns, NONE};
use crate::trace::note;

impl<W: Word> Engine<W> {
    /// The live block called `name` (the op that placed it), or an error at
    /// `pos` (where the name is written) saying what became of it.
    pub(super) fn live_block(
        &self,
        cols: &Columns,
        name: Name,
        pos: Pos,
        verb: &str,
    ) -> Result<u32, ProgramError> {
        let b = self.names.get(name).block;
        if b == NONE {
            return Err(ProgramError::at(pos, self.unknown_block(name, pos)));
        }
        let ending = self.ending(cols, b);
        let name = self.text(name);
        if let (Some(p), true, false) = (
            ending.at,
            ending.reallocated,
            ending.state == BlockState::Live,
        ) {
            return Err(ProgramError::at(
                pos,
                format!(
                    "cannot {verb} '{name}': it was reallocated at {}:{} (use the name the realloc gave it)",
                    p.line, p.column
                ),
            ));
        }
        let how = match ending.state {
            BlockState::Live => return Ok(b),
            BlockState::Freed => "was already freed",
            BlockState::Leaked => "was left behind by a realloc",
            BlockState::Reclaimed if ending.freed => "was already freed",
            BlockState::Reclaimed => "was reclaimed by a reset or restore",
        };
        let at = ending
            .at
            .map(|p| format!(" at {}:{}", p.line, p.column))
            .unwrap_or_default();
        Err(ProgramError::at(
            pos,
            format!("cannot {verb} '{name}': it {how}{at}"),
        ))
    }

    /// Points `name` at block `b`, of shape `shape`.
    fn name(&mut self, name: Name, b: u32, shape: Shape) {
        self.names.set(name, Named { block: b, shape });
    }

    /// Why no block is called `name` at `pos`.
    fn unknown_block(&self, name: Name, pos: Pos) -> String {
        let at = |p: Pos| format!("{}:{}", p.line, p.column);
        let assigned = self.assigned.get(name.index()).copied().flatten();
        let unplaced = self.unplaced.get(name);
        let name = self.text(name);
        if let Some(p) = unplaced {
            return format!(
                "unknown block '{name}': its allocation at {} did not fit, so no block has that name",
                at(p)
            );
        }
        match assigned {
            Some(Assigned {
                at: a,
                never_runs: Some(r),
            }) => format!(
                "unknown block '{name}': the line that allocates it, {}, is inside `repeat 0` at {}, which runs its body zero times",
                at(a),
                at(r)
            ),
            Some(Assigned { at: a, .. }) if (a.line, a.column) > (pos.line, pos.column) => {
                format!(
                    "unknown block '{name}': it is first allocated later, at {}",
                    at(a)
                )
            }
            Some(_) => format!("unknown block '{name}': no earlier line allocates it"),
            None => format!("unknown block '{name}': no line allocates it"),
        }
    }

    pub(super) fn alloc(
        &mut self,
        cols: &Columns,
        pos: Pos,
        name: Name,
        size: SizeExpr,
        align: Option<(u64, Pos)>,
    ) -> Result<Op, ProgramError> {
        let usize_bytes = self.target.usize_bytes();
        let (bytes, natural) = match size {
            SizeExpr::Bytes(n) => (n, 1),
            SizeExpr::Type(p) => (p.size(usize_bytes), p.size(usize_bytes)),
            SizeExpr::Array(p, n) => {
                let bytes = p.size(usize_bytes).checked_mul(n).ok_or_else(|| {
                    ProgramError::at(
                        pos,
                        format!("an array of {n} elements overflows a 64-bit size"),
                    )
                })?;
                (bytes, p.size(usize_bytes))
            }
        };
        let shape = Shape::of_request(size, align.map(|(a, _)| a), usize_bytes);
        let (align, apos) = align.unwrap_or((natural, pos));
        check_align(align, apos)?;
        check_layout::<W>(bytes, align, pos)?;
        let mut op = self.new_op(OpKind::Alloc, pos, Some(name));
        op.size = Some(bytes);
        op.align = Some(align);
        op.shape = Some(shape);
        let layout = Layout {
            size: self.word(bytes),
            align: self.word(align),
        };
        let mut rec = self.recorder();
        let got = self.model.alloc(&mut self.heap, layout, &mut rec).result();
        self.translate(rec, Some(op.index), &mut op.events);
        match got {
            Ok(addr) => {
                self.place(cols, &mut op, addr.to_u64(), bytes, None);
                self.name(name, op.index, shape);
            }
            Err(e) => self.fail(&mut op, e, pos, name)?,
        }
        Ok(op)
    }

    pub(super) fn realloc(
        &mut self,
        cols: &Columns,
        pos: Pos,
        name: Name,
        (block, block_pos): (Name, Pos),
        size: u64,
    ) -> Result<Op, ProgramError> {
        let old = self.live_block(cols, block, block_pos, "realloc")?;
        let shape = self.names.get(block).shape;
        let (old_addr, old_size, align, old_chunk) = {
            let b = self.block(cols, old);
            (b.address, b.size, b.align, b.chunk)
        };
        check_layout::<W>(size, align, pos)?;
        let mut op = self.new_op(OpKind::Realloc, pos, Some(name));
        op.target_op = Some(old);
        op.size = Some(size);
        op.align = Some(align);
        op.shape = Some(shape.resized());
        let old_layout = Layout {
            size: self.word(old_size),
            align: self.word(align),
        };
        let mut rec = self.recorder();
        let (old_w, size_w) = (self.word(old_addr), self.word(size));
        let got = self
            .model
            .realloc(&mut self.heap, old_w, old_layout, size_w, &mut rec)
            .result();
        self.translate(rec, Some(op.index), &mut op.events);
        let addr = match got {
            Ok(addr) => addr.to_u64(),
            Err(e) => {
                self.fail(&mut op, e, pos, name)?;
                return Ok(op);
            }
        };
        let moved = addr != old_addr;
        let overlaps = addr < old_addr + old_size && old_addr < addr + size;
        // The old block ends here: replaced in place, overwritten by an
        // overlapping move, or left behind by a move elsewhere.
        let left_behind = moved && !overlaps;
        let mut replacing = None;
        if let (false, Some(_)) = (left_behind, old_chunk) {
            // Its bytes now belong to the new block: list it as reclaimed
            // so a reader of the trace drops it, as the shadow table does.
            // The new block takes its place among the chunk's held blocks.
            if let Some(at) = self.held_index(cols, old) {
                self.count(cols, old, false);
                replacing = Some(at);
            }
            op.reclaimed.push(old);
            self.pending_dead = Some((old, BlockState::Reclaimed));
        } else {
            // Left behind: it stays in its chunk, leaked from now on.
            self.restate(cols, old, BlockState::Leaked);
            if !left_behind {
                self.pending_dead = Some((old, BlockState::Reclaimed));
            }
        }
        let at = self.place(cols, &mut op, addr, size, replacing);
        if let (false, Some(at)) = (left_behind, at) {
            self.absorb_zero_size(cols, &op, at);
        }
        op.moved = Some(moved);
        let (kind, text) = match (moved, size >= old_size) {
            (false, true) if size == old_size => (
                EventKind::GrewInPlace,
                format!("stayed in place at its {}", bytes(size)),
            ),
            (false, true) => (
                EventKind::GrewInPlace,
                format!("grew in place from {old_size} to {}", bytes(size)),
            ),
            (false, false) => (
                EventKind::ShrankInPlace,
                format!("shrank in place from {old_size} to {}", bytes(size)),
            ),
            (true, _) => (
                EventKind::Moved,
                format!("moved from {old_addr:#x} to {addr:#x}"),
            ),
        };
        note(self.detail, &mut op.events, kind, || text);
        if left_behind {
            note(self.detail, &mut op.events, EventKind::Leaked, || {
                format!(
                    "the old block ({} at {old_addr:#x}) stays behind until it is reclaimed",
                    bytes(old_size)
                )
            });
        }
        if let Some(chunk) = old_chunk {
            self.reclaim_touched(cols, &mut op, &[chunk]);
        }
        // The old name keeps pointing at the old block, so a later use of it
        // can say what became of it.
        self.name(name, op.index, shape.resized());
        Ok(op)
    }

    pub(super) fn free(
        &mut self,
        cols: &Columns,
        pos: Pos,
        (name, name_pos): (Name, Pos),
    ) -> Result<Op, ProgramError> {
        let b = self.live_block(cols, name, name_pos, "free")?;
        let shape = self.names.get(name).shape;
        let mut op = self.new_op(OpKind::Free, pos, Some(name));
        let blk = self.block(cols, b);
        let (addr, size, align, chunk) = (blk.address, blk.size, blk.align, blk.chunk);
        // `restate` to Freed, inline: one copy-on-write of the chunk's tally.
        self.pending_dead = Some((b, BlockState::Freed));
        if let (Some(c), 1..) = (chunk, size) {
            let t = &mut chunk_mut(&mut self.chunks, c as usize).tally;
            t.requested -= size;
            t.leaked += size;
        }
        op.target_op = Some(b);
        op.address = Some(addr);
        op.size = Some(size);
        op.shape = Some(shape);
        let layout = Layout {
            size: self.word(size),
            align: self.word(align),
        };
        let mut rec = self.recorder();
        let addr_w = self.word(addr);
        self.model.free(&mut self.heap, addr_w, layout, &mut rec);
        self.translate(rec, Some(op.index), &mut op.events);
        if let Some(chunk) = chunk {
            self.reclaim_touched(cols, &mut op, &[chunk]);
        }
        if chunk.is_none() || size == 0 {
            note(self.detail, &mut op.events, EventKind::Freed, || {
                "freed: a zero-sized block holds no bytes".to_string()
            });
        } else if op.reclaimed.contains(&b) {
            note(self.detail, &mut op.events, EventKind::Freed, || {
                format!(
                    "freed: it was the last block, so the bump pointer takes back its {}",
                    bytes(size)
                )
            });
        } else {
            note(self.detail, &mut op.events, EventKind::NotReclaimed, || {
                // True of every model: some give the bytes back at a reset,
                // some only when the arena is dropped, and their own events say which.
                format!(
                    "freed, not reclaimed: the bump pointer does not move back over its {}",
                    bytes(size)
                )
            });
        }
        Ok(op)
    }

    /// What happens when the model says no.
    pub(super) fn fail(
        &mut self,
        op: &mut Op,
        e: AllocError,
        pos: Pos,
        name: Name,
    ) -> Result<(), ProgramError> {
        match e {
            AllocError::HeapExhausted | AllocError::Overflow => {
                return Err(model_error(pos, e, self.target, self.preset))
            }
            AllocError::Full => {
                // A model that never grows has one fixed chunk (or buffer):
                // a request larger than all of it fails however empty it is,
                // which is a different lesson from "the chunk is full".
                let whole = self
                    .live
                    .iter()
                    .map(|&id| self.chunks[id as usize].info.capacity)
                    .max();
                let size = op.size.unwrap_or(0);
                let text = match whole {
                    Some(whole) if size > whole => format!(
                        "too large: {} requested, but the whole chunk holds only {}, so it can never fit",
                        bytes(size),
                        bytes(whole)
                    ),
                    _ => "does not fit: this allocator's memory is full and it never grows"
                        .to_string(),
                };
                note(self.detail, &mut op.events, EventKind::OutOfMemory, || text)
            }
            AllocError::BadAlloc => {
                note(self.detail, &mut op.events, EventKind::OutOfMemory, || {
                    "std::bad_alloc thrown: the padding std::align needed did not fit".to_string()
                })
            }
        }
        op.failed = true;
        self.names.set(name, Named::NONE);
        self.unplaced.set(name, Some(pos));
        Ok(())
    }
}
