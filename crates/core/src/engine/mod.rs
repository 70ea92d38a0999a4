//! Runs a parsed program on a preset and records the trace.
//!
//! The engine keeps a shadow table beside the model: block names, states and
//! which bytes each chunk still holds. The model only ever sees addresses and
//! layouts, as a real allocator does; the shadow table is what checks names,
//! catches use after free and double free, and tells reclaimed bytes from
//! leaked ones.
//!
//! By concern: [`request`] turns what a caller asked for into a preset and
//! options, or says what is allowed; `recording` erases the model's type
//! behind one vtable; this file is the engine and the op each statement
//! runs; `ops` holds the ops that name blocks (alloc, realloc, free);
//! `shadow` the tables of blocks and chunks; `translate` turns what a model
//! reported into trace events.

mod checkpoints;
mod ops;
mod recording;
mod request;
mod shadow;
mod translate;

use std::any::Any;
use std::rc::Rc;

use crate::algorithms::Direction;
use crate::columns::Columns;
use crate::heap::Heap;
use crate::model::{Child, Model, ModelOptions};
use crate::persistent::PVec;
use crate::presets::{self, PresetId, PresetVisitor};
use crate::probe::Recorder;
use crate::program::{
    assignments, check_op_count, parse, Assigned, Name, Pos, Program, ProgramError, Stmt, StmtKind,
};
use crate::trace::{ChunkInfo, EventKind, Op, OpKind, Stats};
use crate::word::{Target, Word};

use crate::trace::note;
use checkpoints::Dropped;
use recording::Recording;
use request::{check_capacity, model_error};
pub use request::{request, resolve_child, resolve_min_align};
use shadow::{BlockState, ChunkRec, NameTable, Named};

pub use crate::heap::HEAP_BASE;

/// Largest capacity a user may choose (1 GiB).
pub const MAX_CAPACITY: u64 = 1 << 30;
/// Largest alignment accepted (a page).
pub const MAX_ALIGN: u64 = 4096;
/// Most ops one run may execute, so a `repeat` cannot hang the page nor
/// its trace exhaust memory: the columnar run ([`crate::run::Run`]) keeps
/// 28 bytes per op, plus the engine's own tables and its snapshots. A
/// recording of a million ops takes about 800 MB of wasm memory to parse and
/// run; changing a setting runs it again beside the one on screen, so at this
/// limit the two stay well inside wasm32's 4 GiB.
pub const MAX_EXECUTED_OPS: u64 = 1_500_000;
/// Most ops the full JSON trace ([`run`]) may hold: an op's entry (its
/// micro-steps included) is about 1 KiB of JSON, so the largest is about
/// 150 MB. Longer programs are traced by the columnar run.
pub const MAX_FULL_TRACE_OPS: u64 = 100_000;
/// Most work one run may do computing its stats: the stats after an op ask
/// the model where every live chunk's bytes end, and a model finds a chunk
/// by walking its list, so they cost the square of the live chunks. The full
/// JSON trace computes them after every op: a preset given a tiny capacity,
/// whose every block gets a chunk of its own, reaches the limit after about a
/// thousand ops. The columnar run computes them only for its samples (about
/// 4,096 a run), so only thousands of live chunks reach it there.
pub const MAX_CHUNK_WORK: u64 = 500_000_000;

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub target: Target,
    /// The preset's sizing knob (fixed chunk, buffer, slab or first pool
    /// size); `None` for the reference's default.
    pub capacity: Option<u64>,
    /// The preset's minimum alignment, for presets that have one; `None` for
    /// its default.
    pub min_align: Option<u64>,
    /// The preset's child allocator, for presets that take one (zig-arena);
    /// `None` for its default.
    pub child: Option<Child>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: Target::W64,
            capacity: None,
            min_align: None,
            child: None,
        }
    }
}

/// Parses `src` (refusing more than `cap` ops) and builds `preset`'s
/// engine: everything a run does before its first op.
pub(crate) fn start(
    src: &str,
    preset: PresetId,
    opts: &Options,
    cap: u64,
) -> Result<(Rc<Program>, Box<dyn State>), ProgramError> {
    start_parsed(parse(src)?, preset, opts, cap)
}

/// [`start`] for a program already parsed (by a worker, say).
pub(crate) fn start_parsed(
    mut program: Program,
    preset: PresetId,
    opts: &Options,
    cap: u64,
) -> Result<(Rc<Program>, Box<dyn State>), ProgramError> {
    let what = if cap == MAX_FULL_TRACE_OPS {
        ", the most a full JSON trace holds"
    } else {
        ""
    };
    check_op_count(&program, cap, what)?;
    let assigned = Rc::new(assignments(&program));
    program.prune();
    check_capacity(opts.capacity)?;
    let min_align = resolve_min_align(preset, opts.min_align)?;
    resolve_child(preset, opts.child)?;
    let program = Rc::new(program);
    let build = Build {
        preset,
        opts,
        program: Rc::clone(&program),
        assigned,
    };
    let state = presets::visit(preset, opts.target, min_align, build)?;
    Ok((program, state))
}

struct Build<'a> {
    preset: PresetId,
    opts: &'a Options,
    program: Rc<Program>,
    assigned: Rc<Vec<Option<Assigned>>>,
}

impl PresetVisitor for Build<'_> {
    type Out = Result<Box<dyn State>, ProgramError>;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out {
        let mut engine = Engine::<W>::new::<M>(self.preset, self.opts, self.program)?;
        engine.assigned = self.assigned;
        Ok(Box::new(engine))
    }
    fn not_built(self, preset: PresetId) -> Self::Out {
        Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            format!(
                "{} runs in the other build of the trace module ({:?}): this one was built without it",
                preset.name(),
                preset.family()
            ),
        ))
    }
}

/// The engine with its target word erased: what [`crate::run::Run`]
/// drives, one statement at a time, and clones for its snapshots.
pub(crate) trait State {
    /// Runs one statement (never a repeat) as the next op. `cols` are the
    /// run's columns, whose rows of the ops before this one are the
    /// engine's record of their blocks (rows past it are not read).
    fn exec(&mut self, s: &Stmt, cols: &Columns) -> Result<Op, ProgramError>;
    /// The totals after the ops so far.
    fn stats(&self) -> Stats;
    /// Counts what the next [`State::stats`] costs against
    /// [`MAX_CHUNK_WORK`]; an error at `pos` once the run has done too much.
    fn charge_stats(&mut self, pos: Pos) -> Result<(), ProgramError>;
    /// A copy that runs on independently: cheap, as the tables are
    /// persistent and share what neither copy changes.
    fn fork(&self) -> Box<dyn State>;
    fn chunks(&self) -> Vec<ChunkInfo>;
    fn chunk_count(&self) -> usize;
    /// The used bytes `[lo, hi)` of every live chunk, oldest first.
    fn chunks_used(&self) -> Vec<(u32, u64, u64)>;
    fn direction(&self) -> Direction;
    /// Whether the next ops keep their details (on by default).
    fn set_detail(&mut self, on: bool);
    /// Takes back the list of reclaimed blocks of an op [`State::exec`]
    /// made, once nothing reads it: the next op reuses it, so a free costs
    /// no allocation.
    fn recycle(&mut self, op: &mut Op);
    /// Bytes a [`State::fork`] copies at once (the model, the base
    /// allocator's free list, the live chunks' ids), about: the rest of the
    /// engine is shared, and costs what later writes copy.
    fn fork_bytes(&self) -> u64;
    /// Bytes the engine's tables hold, about (shared with snapshots or not).
    fn table_bytes(&self) -> u64;
    /// Blocks whose bytes a chunk holds.
    fn held_blocks(&self) -> usize;
}

impl<W: Word> State for Engine<W> {
    fn exec(&mut self, s: &Stmt, cols: &Columns) -> Result<Op, ProgramError> {
        Engine::exec(self, s, cols)
    }
    fn stats(&self) -> Stats {
        Engine::stats(self)
    }
    fn charge_stats(&mut self, pos: Pos) -> Result<(), ProgramError> {
        let live = self.live.len() as u64;
        self.work = self.work.saturating_add(live * live);
        if self.work > MAX_CHUNK_WORK {
            return Err(ProgramError::at(
                pos,
                format!("{live} chunks are live at once, too many to simulate this many ops: lower a repeat count, or raise the capacity so fewer chunks hold the blocks"),
            ));
        }
        Ok(())
    }
    fn fork(&self) -> Box<dyn State> {
        Box::new(self.clone())
    }
    fn chunks(&self) -> Vec<ChunkInfo> {
        self.chunks.iter().map(|c| c.info.clone()).collect()
    }
    fn chunk_count(&self) -> usize {
        self.chunks.len()
    }
    fn chunks_used(&self) -> Vec<(u32, u64, u64)> {
        self.live
            .iter()
            .filter_map(|&id| {
                let (lo, hi) = self.model.used(id)?;
                Some((id, lo.to_u64(), hi.to_u64()))
            })
            .collect()
    }
    fn direction(&self) -> Direction {
        self.direction
    }
    fn set_detail(&mut self, on: bool) {
        self.detail = on;
    }
    fn recycle(&mut self, op: &mut Op) {
        if op.reclaimed.capacity() > self.spare.capacity() {
            self.spare = core::mem::take(&mut op.reclaimed);
            self.spare.clear();
        }
    }
    fn fork_bytes(&self) -> u64 {
        // A model keeps a record or two per live chunk; 96 bytes bounds the
        // largest (bump-scope's chunk with its lists' share).
        (size_of::<Self>()
            + 96 * self.live.len()
            + 4 * self.live.capacity()
            + 16 * self.paddings.capacity()) as u64
            + 16 * self.heap.free_ranges() as u64
    }
    fn table_bytes(&self) -> u64 {
        let chunks: u64 = self
            .chunks
            .iter()
            .map(|c| size_of::<ChunkRec>() as u64 + c.holding.bytes() + c.empty.bytes())
            .sum();
        self.chunks.bytes()
            + chunks
            + self.names.bytes()
            + self.unplaced.bytes()
            + self.checkpoints.bytes()
            + self.saved.bytes()
            + self.dropped.bytes()
    }
    fn held_blocks(&self) -> usize {
        Engine::held_blocks(self)
    }
}

struct Engine<W: Word> {
    preset: PresetId,
    target: Target,
    direction: Direction,
    model: Box<dyn Recording<W>>,
    heap: Heap<W>,
    /// The program: its names, for messages and details.
    program: Rc<Program>,
    // The tables are persistent (`crate::persistent`), so a snapshot of the
    // engine costs what the ops after it copy before they write. Blocks are
    // the run's columns' rows (`shadow`): the tables hold op numbers.
    /// Each chunk behind its own `Rc`: a snapshot's copy of a leaf of this
    /// table is then 32 pointers, not 32 chunk records.
    chunks: PVec<Rc<ChunkRec>>,
    /// Ids of the chunks still live, oldest first.
    live: Vec<u32>,
    /// The block each name points at, and its shape.
    names: NameTable<Named>,
    /// Where the program assigns each name, for errors about a name that
    /// holds no block.
    assigned: Rc<Vec<Option<Assigned>>>,
    /// Names whose last alloc or realloc did not fit, and where that was.
    unplaced: NameTable<Option<Pos>>,
    /// Saved checkpoints, oldest first: restoring one drops those after it.
    /// A name saved again leaves a hole (`None`) where it was, so neither
    /// saving nor restoring searches the list; the holes are swept out once
    /// they outnumber the checkpoints.
    checkpoints: PVec<Option<(Name, Rc<dyn Any>)>>,
    holes: usize,
    /// Where each saved checkpoint is in `checkpoints`, plus one (0: not saved).
    saved: NameTable<u32>,
    /// Checkpoints a reset or restore dropped, and what dropped them.
    dropped: NameTable<Option<Dropped>>,
    /// The block the op being run ended, and how: the columns say so only
    /// once the op's row is written.
    pending_dead: Option<(u32, BlockState)>,
    /// Paddings that changed since their blocks were placed (zero-size
    /// blocks a resize beside them absorbed), by block: few, sorted.
    paddings: Vec<(u32, u64)>,
    /// Ops executed so far: the next op's index.
    executed: u32,
    /// Whether ops keep their details (events, micro-steps). Without, an
    /// op still does everything else, its chunk events included, so the
    /// engine's tables and every op's placement are the same either way.
    detail: bool,
    copied: u64,
    /// Chunk lookups so far, counted against [`MAX_CHUNK_WORK`].
    work: u64,
    /// An empty list with room, for the next op's reclaimed blocks
    /// ([`State::recycle`]).
    spare: Vec<u32>,
}

impl<W: Word> Clone for Engine<W> {
    fn clone(&self) -> Self {
        Engine {
            preset: self.preset,
            target: self.target,
            direction: self.direction,
            model: self.model.boxed_clone(),
            heap: self.heap.clone(),
            program: Rc::clone(&self.program),
            chunks: self.chunks.clone(),
            live: self.live.clone(),
            names: self.names.clone(),
            assigned: Rc::clone(&self.assigned),
            unplaced: self.unplaced.clone(),
            checkpoints: self.checkpoints.clone(),
            holes: self.holes,
            saved: self.saved.clone(),
            dropped: self.dropped.clone(),
            pending_dead: None,
            paddings: self.paddings.clone(),
            executed: self.executed,
            detail: self.detail,
            copied: self.copied,
            work: self.work,
            spare: Vec::new(),
        }
    }
}

impl<W: Word> Engine<W> {
    fn new<M: Model<W>>(
        preset: PresetId,
        opts: &Options,
        program: Rc<Program>,
    ) -> Result<Self, ProgramError> {
        let mut heap = Heap::new(opts.target);
        let mut rec = Recorder::default();
        let model_opts = ModelOptions {
            capacity: opts.capacity,
            child: opts.child.unwrap_or_default(),
        };
        let model = M::new(&mut heap, &model_opts, &mut rec)
            .map_err(|e| model_error(Pos { line: 1, column: 1 }, e, opts.target, preset))?;
        let direction = model.direction();
        Ok(Self::around(
            preset,
            opts.target,
            direction,
            Box::new(model),
            heap,
            program,
            rec,
        ))
    }

    /// The engine around a model just built: what does not depend on the
    /// model's type, compiled once per word size rather than inlined into each
    /// of the dozens of presets' and minimum alignments' constructors (in the
    /// trace module's first download, that copy was a sixth of its code).
    #[inline(never)]
    fn around(
        preset: PresetId,
        target: Target,
        direction: Direction,
        model: Box<dyn Recording<W>>,
        heap: Heap<W>,
        program: Rc<Program>,
        rec: Recorder,
    ) -> Self {
        let mut engine = Engine {
            preset,
            target,
            direction,
            model,
            heap,
            program,
            chunks: PVec::new(),
            live: Vec::new(),
            names: NameTable::new(Named::NONE),
            assigned: Rc::default(),
            unplaced: NameTable::new(None),
            checkpoints: PVec::new(),
            holes: 0,
            saved: NameTable::new(0),
            dropped: NameTable::new(None),
            pending_dead: None,
            paddings: Vec::new(),
            executed: 0,
            detail: true,
            copied: 0,
            work: 0,
            spare: Vec::new(),
        };
        // Chunks made by the constructor belong to no op.
        let mut sink = Vec::new();
        engine.translate(rec, None, &mut sink);
        engine
    }

    /// A recorder for the model's next call: keeping micro-steps only when
    /// the op's details are kept.
    fn recorder(&self) -> Recorder {
        Recorder {
            log: Vec::new(),
            events_only: !self.detail,
        }
    }

    /// `v` as the target's word; sizes and addresses reach here only after
    /// `check_layout` or from the model itself, so they fit.
    fn word(&self, v: u64) -> W {
        W::from_u64(v).expect("checked by check_layout")
    }

    /// The text of `name`.
    fn text(&self, name: Name) -> &str {
        self.program.names().get(name)
    }

    /// A new op naming `block`; the name is copied only when its details
    /// are kept, as nothing else reads it.
    fn new_op(&mut self, kind: OpKind, pos: Pos, block: Option<Name>) -> Op {
        Op {
            index: self.executed,
            kind,
            block: block
                .filter(|_| self.detail)
                .map(|n| self.text(n).to_string()),
            line: pos.line,
            column: pos.column,
            chunk: None,
            offset: None,
            address: None,
            size: None,
            align: None,
            padding: None,
            shape: None,
            moved: None,
            failed: false,
            target_op: None,
            reclaimed: core::mem::take(&mut self.spare),
            bump_ptr: None,
            events: Vec::new(),
            stats: Stats::default(),
            cost: None,
        }
    }

    /// Runs `s` as the next op. Its stats are left at zero: the caller
    /// asks for them (`stats`) only for the ops it keeps.
    fn exec(&mut self, s: &Stmt, cols: &Columns) -> Result<Op, ProgramError> {
        self.pending_dead = None;
        let mut op = match s.kind {
            StmtKind::Alloc { name, size, align } => self.alloc(cols, s.pos, name, size, align)?,
            StmtKind::Realloc {
                name,
                block,
                block_pos,
                size,
            } => self.realloc(cols, s.pos, name, (block, block_pos), size)?,
            StmtKind::Free { block, block_pos } => self.free(cols, s.pos, (block, block_pos))?,
            StmtKind::Reset => {
                let mut op = self.new_op(OpKind::Reset, s.pos, None);
                let mut rec = self.recorder();
                self.model.reset(&mut self.heap, &mut rec);
                self.translate(rec, Some(op.index), &mut op.events);
                self.drop_checkpoints(
                    0,
                    Dropped {
                        by_restore: None,
                        at: s.pos,
                    },
                );
                self.reclaim_all(cols, &mut op);
                note(self.detail, &mut op.events, EventKind::Reset, || {
                    format!(
                        "reset: {} reclaimed; every checkpoint is dropped",
                        crate::text::plural(op.reclaimed.len() as u64, "block")
                    )
                });
                op
            }
            StmtKind::Checkpoint { name } => {
                let mut op = self.new_op(OpKind::Checkpoint, s.pos, Some(name));
                self.save_checkpoint(name);
                let at = self
                    .model
                    .bump_ptr()
                    .map(|p| format!(" at bump pointer {:#x}", p.to_u64()))
                    .unwrap_or_default();
                let text = self.text(name);
                note(self.detail, &mut op.events, EventKind::Checkpoint, || {
                    format!("checkpoint '{text}' saved{at}")
                });
                op
            }
            StmtKind::Restore { name } => {
                let i = match self.saved.get(name) {
                    0 => {
                        let text = self.text(name);
                        let msg = match self.dropped.get(name) {
                            Some(why) => format!(
                                "cannot restore '{text}': {} dropped it (save it again with `checkpoint {text}`)",
                                why.describe(self.program.names())
                            ),
                            None => format!(
                                "unknown checkpoint '{text}': save it first with `checkpoint {text}`"
                            ),
                        };
                        return Err(ProgramError::at(s.pos, msg));
                    }
                    k => (k - 1) as usize,
                };
                let mut op = self.new_op(OpKind::Restore, s.pos, Some(name));
                let cp = match &self.checkpoints[i] {
                    Some((_, cp)) => cp.clone(),
                    None => unreachable!("`saved` points at the live entry"),
                };
                self.drop_checkpoints(
                    i + 1,
                    Dropped {
                        by_restore: Some(name),
                        at: s.pos,
                    },
                );
                let mut rec = self.recorder();
                self.model.restore(&mut self.heap, &*cp, &mut rec);
                self.translate(rec, Some(op.index), &mut op.events);
                self.reclaim_all(cols, &mut op);
                let text = self.text(name);
                note(self.detail, &mut op.events, EventKind::Restored, || {
                    format!(
                        "restored '{text}': {} reclaimed",
                        crate::text::plural(op.reclaimed.len() as u64, "block")
                    )
                });
                op
            }
            StmtKind::Repeat { .. } => unreachable!("the run's cursor expands repeats"),
        };
        op.bump_ptr = self.model.bump_ptr().map(Word::to_u64);
        self.executed += 1;
        Ok(op)
    }

    fn stats(&self) -> Stats {
        let mut s = Stats {
            copied: self.copied,
            ..Stats::default()
        };
        for c in self.live.iter().map(|&id| &self.chunks[id as usize]) {
            let (lo, hi) = self
                .model
                .used(c.info.id)
                .map_or((0, 0), |(lo, hi)| (lo.to_u64(), hi.to_u64()));
            s.used += hi - lo;
            s.metadata += c.info.header + c.info.footer;
            s.unused += c.info.capacity - (hi - lo);
            s.chunks += 1;
            s.padding += c.tally.padding;
            s.requested += c.tally.requested;
            s.leaked += c.tally.leaked;
        }
        let total = s.used + s.unused + s.metadata;
        s.utilisation = if total == 0 {
            0.0
        } else {
            s.requested as f64 / total as f64
        };
        s
    }
}
