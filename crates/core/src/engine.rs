//! Runs a parsed program on a preset and records the trace.
//!
//! The engine keeps a shadow table beside the model: block names, states and
//! which bytes each chunk still holds. The model only ever sees addresses and
//! layouts, as a real allocator does; the shadow table is what checks names,
//! catches use after free and double free, and tells reclaimed bytes from
//! leaked ones.

use std::any::Any;
use std::rc::Rc;

use im::{HashMap, Vector};

use crate::algorithms::Direction;
use crate::heap::Heap;
use crate::model::{AllocError, Allocated, ChunkReason, Layout, Model, ModelEvent, ModelOptions};
use crate::presets::{self, PresetId, PresetVisitor};
use crate::probe::{Recorded, Recorder};
use crate::program::{parse, Pos, ProgramError, SizeExpr, Stmt, StmtKind};
use crate::trace::{ChunkInfo, Event, EventKind, NamedValue, Op, OpKind, Stats, StepOut, Trace};
use crate::word::{Target, Word};

pub use crate::heap::HEAP_BASE;

/// Largest capacity a user may choose (1 GiB).
pub const MAX_CAPACITY: u64 = 1 << 30;
/// Largest alignment accepted (a page).
pub const MAX_ALIGN: u64 = 4096;
/// Most ops one run may execute, so a `repeat` cannot hang the page nor
/// its trace exhaust memory: the columnar run ([`crate::run::Run`]) keeps
/// 28 bytes per op, plus the engine's own tables and its snapshots.
pub const MAX_EXECUTED_OPS: u64 = 1_000_000;
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
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: Target::W64,
            capacity: None,
            min_align: None,
        }
    }
}

/// Parses and runs `src` on `preset`, recording every op in full: the
/// columnar [`crate::run::Run`] run to the end, keeping each op's details.
pub fn run(src: &str, preset: PresetId, opts: &Options) -> Result<Trace, ProgramError> {
    crate::run::Run::full_trace(src, preset, opts)
}

/// Parses `src` (refusing more than `cap` ops) and builds `preset`'s
/// engine: everything a run does before its first op.
pub(crate) fn start(
    src: &str,
    preset: PresetId,
    opts: &Options,
    cap: u64,
) -> Result<(Vec<Stmt>, Box<dyn State>), ProgramError> {
    let program = parse(src)?;
    check_op_count(&program, cap)?;
    let program = prune(program);
    let at_start = Pos { line: 1, column: 1 };
    if let Some(c) = opts.capacity {
        if c == 0 || c > MAX_CAPACITY || c % 16 != 0 {
            return Err(ProgramError::at(
                at_start,
                format!(
                    "capacity {c} is not allowed: use a multiple of 16 from 16 to {MAX_CAPACITY}"
                ),
            ));
        }
    }
    let min_align = resolve_min_align(preset, opts.min_align)?;
    let state = presets::visit(preset, opts.target, min_align, Build { preset, opts })?;
    Ok((program, state))
}

/// A request as the wasm modules get it, by name: the preset and the run's
/// options, or an error at 1:1 that lists what is allowed.
pub fn request(
    allocator: &str,
    target: &str,
    capacity: Option<u64>,
    min_align: Option<u64>,
) -> Result<(PresetId, Options), ProgramError> {
    let at_start = |message: String| ProgramError::at(Pos { line: 1, column: 1 }, message);
    let preset = PresetId::parse(allocator).ok_or_else(|| {
        let names: Vec<_> = PresetId::ALL.iter().map(|p| p.name()).collect();
        at_start(format!(
            "unknown allocator '{allocator}': use one of {}",
            names.join(", ")
        ))
    })?;
    let target = Target::parse(target)
        .ok_or_else(|| at_start(format!("unknown target '{target}': use 64 or wasm32")))?;
    let opts = Options {
        target,
        capacity,
        min_align,
    };
    Ok((preset, opts))
}

/// The minimum alignment `preset` runs with: `requested` if the preset
/// allows it, its default if `None`.
pub fn resolve_min_align(preset: PresetId, requested: Option<u64>) -> Result<u64, ProgramError> {
    let allowed = preset.min_aligns();
    match requested {
        None => Ok(allowed.first().copied().unwrap_or(1)),
        Some(m) if allowed.contains(&m) => Ok(m),
        Some(m) => {
            let msg = if allowed.is_empty() {
                format!(
                    "{} has no minimum alignment setting (asked for {m})",
                    preset.name()
                )
            } else {
                let list: Vec<String> = allowed.iter().map(u64::to_string).collect();
                format!(
                    "minimum alignment {m} is not allowed for {}: use one of {}",
                    preset.name(),
                    list.join(", ")
                )
            };
            Err(ProgramError::at(Pos { line: 1, column: 1 }, msg))
        }
    }
}

struct Build<'a> {
    preset: PresetId,
    opts: &'a Options,
}

impl PresetVisitor for Build<'_> {
    type Out = Result<Box<dyn State>, ProgramError>;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out {
        Ok(Box::new(Engine::<W>::new::<M>(self.preset, self.opts)?))
    }
    fn not_built(self, preset: PresetId) -> Self::Out {
        Err(ProgramError {
            line: 1,
            column: 1,
            message: format!(
                "{} runs in the other build of the trace module ({:?}): this one was built without it",
                preset.name(),
                preset.family()
            ),
        })
    }
}

/// The engine with its target word erased: what [`crate::run::Run`]
/// drives, one statement at a time, and clones for its snapshots.
pub(crate) trait State {
    /// Runs one statement (never a repeat) as the next op.
    fn exec(&mut self, s: &Stmt) -> Result<Op, ProgramError>;
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
}

impl<W: Word> State for Engine<W> {
    fn exec(&mut self, s: &Stmt) -> Result<Op, ProgramError> {
        Engine::exec(self, s)
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
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    Live,
    /// Freed by the program; its bytes stay until they are reclaimed.
    Freed,
    /// Left behind by a realloc that moved.
    Leaked,
    /// Its bytes are free space again (or belong to the block that replaced it).
    Reclaimed,
}

#[derive(Clone)]
struct Block {
    op: u32,
    /// `None` for a zero-sized block placed outside every chunk (bumpalo
    /// hands out a dangling, aligned pointer for those).
    chunk: Option<u32>,
    address: u64,
    size: u64,
    align: u64,
    padding: u64,
    state: BlockState,
    /// Where the op that ended it stands, for error messages.
    ended_at: Option<Pos>,
    /// Where a realloc replaced it, if one did (its name may still point here).
    reallocated_at: Option<Pos>,
    /// Whether the program freed it (its bytes may have been reclaimed since).
    freed: bool,
}

#[derive(Clone)]
struct ChunkRec {
    info: ChunkInfo,
    /// Blocks whose bytes the chunk still holds, ordered from the chunk's
    /// bump origin towards the bump pointer.
    holding: Vector<usize>,
    /// Live zero-sized blocks a rewind passed: they hold no bytes but end
    /// when the chunk goes back to the base allocator.
    empty: Vector<usize>,
    live: bool,
    /// The stats of the blocks in `holding`, kept as they change so an op
    /// costs the same however many blocks the chunk holds.
    tally: Tally,
}

/// What a chunk's held blocks add to [`Stats`].
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    padding: u64,
    requested: u64,
    leaked: u64,
}

/// A model as the engine drives it: the recording versions of its methods
/// behind one vtable. The engine is by far the largest code in the module;
/// written against this trait it is compiled once per target word instead of
/// once per preset and minimum alignment, while each model's own methods stay
/// monomorphic (and the measured `NoProbe` entry points never come here).
trait Recording<W: Word> {
    fn alloc(&mut self, heap: &mut Heap<W>, layout: Layout<W>, rec: &mut Recorder) -> Allocated<W>;
    fn realloc(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        rec: &mut Recorder,
    ) -> Allocated<W>;
    fn free(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, rec: &mut Recorder);
    fn reset(&mut self, heap: &mut Heap<W>, rec: &mut Recorder);
    fn checkpoint(&self) -> Box<dyn Any>;
    /// `cp` is what this model's `checkpoint` returned.
    fn restore(&mut self, heap: &mut Heap<W>, cp: &dyn Any, rec: &mut Recorder);
    fn used(&self, id: u32) -> Option<(W, W)>;
    fn bump_ptr(&self) -> Option<W>;
    /// A copy of the model, for the engine's snapshots.
    fn boxed_clone(&self) -> Box<dyn Recording<W>>;
}

impl<W: Word, M: Model<W>> Recording<W> for M {
    fn alloc(&mut self, heap: &mut Heap<W>, layout: Layout<W>, rec: &mut Recorder) -> Allocated<W> {
        Model::alloc(self, heap, layout, rec)
    }
    fn realloc(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        rec: &mut Recorder,
    ) -> Allocated<W> {
        Model::realloc(self, heap, addr, old, new_size, rec)
    }
    fn free(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, rec: &mut Recorder) {
        Model::free(self, heap, addr, layout, rec)
    }
    fn reset(&mut self, heap: &mut Heap<W>, rec: &mut Recorder) {
        Model::reset(self, heap, rec)
    }
    fn checkpoint(&self) -> Box<dyn Any> {
        Box::new(Model::checkpoint(self))
    }
    fn restore(&mut self, heap: &mut Heap<W>, cp: &dyn Any, rec: &mut Recorder) {
        let cp = cp
            .downcast_ref::<M::Checkpoint>()
            .expect("a checkpoint comes from the model that restores it");
        Model::restore(self, heap, cp, rec)
    }
    fn used(&self, id: u32) -> Option<(W, W)> {
        Model::used(self, id)
    }
    fn bump_ptr(&self) -> Option<W> {
        Model::bump_ptr(self)
    }
    fn boxed_clone(&self) -> Box<dyn Recording<W>> {
        Box::new(self.clone())
    }
}

struct Engine<W: Word> {
    preset: PresetId,
    target: Target,
    direction: Direction,
    model: Box<dyn Recording<W>>,
    heap: Heap<W>,
    // The tables that grow with the program are persistent (`im`), so a
    // snapshot of the engine costs what the ops since the last one changed.
    blocks: Vector<Block>,
    /// Each chunk behind its own `Rc`: a snapshot's copy of a leaf of this
    /// table is then 64 pointers, not 64 chunk records.
    chunks: Vector<Rc<ChunkRec>>,
    /// Ids of the chunks still live, oldest first.
    live: Vec<u32>,
    names: HashMap<String, usize>,
    /// Saved checkpoints, oldest first: restoring one drops those after it.
    /// A name saved again leaves a hole (`None`) where it was, so neither
    /// saving nor restoring searches the list.
    checkpoints: Vector<Option<(String, Rc<dyn Any>)>>,
    /// Where each saved checkpoint is in `checkpoints`.
    saved: HashMap<String, usize>,
    /// Checkpoints a reset or restore dropped, and what dropped them.
    dropped: HashMap<String, String>,
    /// Ops executed so far: the next op's index.
    executed: u32,
    /// Whether ops keep their details (events, micro-steps). Without, an
    /// op still does everything else, its chunk events included, so the
    /// engine's tables and every op's placement are the same either way.
    detail: bool,
    copied: u64,
    /// Chunk lookups so far, counted against [`MAX_CHUNK_WORK`].
    work: u64,
}

fn model_error(pos: Pos, e: AllocError, target: Target) -> ProgramError {
    let limit = Heap::<u64>::limit(target);
    let why = match e {
        AllocError::HeapExhausted => {
            format!("the simulated base allocator has no room for the chunk this needs (its heap is {limit:#x} bytes)")
        }
        AllocError::Full => "the allocator is full".into(),
        AllocError::BadAlloc => "std::bad_alloc".into(),
    };
    ProgramError::at(pos, why)
}

impl<W: Word> Clone for Engine<W> {
    fn clone(&self) -> Self {
        Engine {
            preset: self.preset,
            target: self.target,
            direction: self.direction,
            model: self.model.boxed_clone(),
            heap: self.heap.clone(),
            blocks: self.blocks.clone(),
            chunks: self.chunks.clone(),
            live: self.live.clone(),
            names: self.names.clone(),
            checkpoints: self.checkpoints.clone(),
            saved: self.saved.clone(),
            dropped: self.dropped.clone(),
            executed: self.executed,
            detail: self.detail,
            copied: self.copied,
            work: self.work,
        }
    }
}

impl<W: Word> Engine<W> {
    fn new<M: Model<W>>(preset: PresetId, opts: &Options) -> Result<Self, ProgramError> {
        let mut heap = Heap::new(opts.target);
        let mut rec = Recorder::default();
        let model_opts = ModelOptions {
            capacity: opts.capacity,
        };
        let model = M::new(&mut heap, &model_opts, &mut rec)
            .map_err(|e| model_error(Pos { line: 1, column: 1 }, e, opts.target))?;
        let mut engine = Engine {
            preset,
            target: opts.target,
            direction: model.direction(),
            model: Box::new(model),
            heap,
            blocks: Vector::new(),
            chunks: Vector::new(),
            live: Vec::new(),
            names: HashMap::new(),
            checkpoints: Vector::new(),
            saved: HashMap::new(),
            dropped: HashMap::new(),
            executed: 0,
            detail: true,
            copied: 0,
            work: 0,
        };
        // Chunks made by the constructor belong to no op.
        let mut sink = Vec::new();
        engine.translate(rec, None, &mut sink);
        Ok(engine)
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

    /// The live block called `name`, or an error saying what became of it.
    fn live_block(&self, name: &str, pos: Pos, verb: &str) -> Result<usize, ProgramError> {
        let Some(&b) = self.names.get(name) else {
            return Err(ProgramError::at(
                pos,
                format!("unknown block '{name}': no earlier line allocates it"),
            ));
        };
        let block = &self.blocks[b];
        if let (Some(p), false) = (block.reallocated_at, block.state == BlockState::Live) {
            return Err(ProgramError::at(
                pos,
                format!(
                    "cannot {verb} '{name}': it was reallocated at {}:{} (use the name the realloc gave it)",
                    p.line, p.column
                ),
            ));
        }
        let how = match block.state {
            BlockState::Live => return Ok(b),
            BlockState::Freed => "was already freed",
            BlockState::Leaked => "was left behind by a realloc",
            BlockState::Reclaimed if block.freed => "was already freed",
            BlockState::Reclaimed => "was reclaimed by a reset or restore",
        };
        let at = block
            .ended_at
            .map(|p| format!(" at {}:{}", p.line, p.column))
            .unwrap_or_default();
        Err(ProgramError::at(
            pos,
            format!("cannot {verb} '{name}': it {how}{at}"),
        ))
    }

    fn new_op(&self, kind: OpKind, pos: Pos, block: Option<String>) -> Op {
        Op {
            index: self.executed,
            kind,
            block,
            line: pos.line,
            column: pos.column,
            chunk: None,
            offset: None,
            address: None,
            size: None,
            align: None,
            padding: None,
            moved: None,
            failed: false,
            target_op: None,
            reclaimed: Vec::new(),
            bump_ptr: None,
            events: Vec::new(),
            stats: Stats::default(),
            cost: None,
        }
    }

    /// Runs `s` as the next op. Its stats are left at zero: the caller
    /// asks for them (`stats`) only for the ops it keeps.
    fn exec(&mut self, s: &Stmt) -> Result<Op, ProgramError> {
        let mut op = match &s.kind {
            StmtKind::Alloc { name, size, align } => self.alloc(s.pos, name, *size, *align)?,
            StmtKind::Realloc { name, block, size } => self.realloc(s.pos, name, block, *size)?,
            StmtKind::Free { block } => self.free(s.pos, block)?,
            StmtKind::Reset => {
                let mut op = self.new_op(OpKind::Reset, s.pos, None);
                let mut rec = self.recorder();
                self.model.reset(&mut self.heap, &mut rec);
                self.translate(rec, Some(op.index), &mut op.events);
                let why = format!("the reset at {}:{}", s.pos.line, s.pos.column);
                self.drop_checkpoints(0, &why);
                self.reclaim_all(&mut op);
                note(self.detail, &mut op.events, EventKind::Reset, || {
                    format!(
                        "reset: {} blocks reclaimed; every checkpoint is dropped",
                        op.reclaimed.len()
                    )
                });
                op
            }
            StmtKind::Checkpoint { name } => {
                let mut op = self.new_op(OpKind::Checkpoint, s.pos, Some(name.clone()));
                if let Some(i) = self.saved.insert(name.clone(), self.checkpoints.len()) {
                    self.checkpoints[i] = None;
                }
                self.checkpoints
                    .push_back(Some((name.clone(), Rc::from(self.model.checkpoint()))));
                let at = self
                    .model
                    .bump_ptr()
                    .map(|p| format!(" at bump pointer {:#x}", p.to_u64()))
                    .unwrap_or_default();
                note(self.detail, &mut op.events, EventKind::Checkpoint, || {
                    format!("checkpoint '{name}' saved{at}")
                });
                op
            }
            StmtKind::Restore { name } => {
                let Some(&i) = self.saved.get(name) else {
                    let msg = match self.dropped.get(name) {
                        Some(why) => format!("cannot restore '{name}': {why} dropped it (save it again with `checkpoint {name}`)"),
                        None => format!("unknown checkpoint '{name}': save it first with `checkpoint {name}`"),
                    };
                    return Err(ProgramError::at(s.pos, msg));
                };
                let mut op = self.new_op(OpKind::Restore, s.pos, Some(name.clone()));
                let cp = match &self.checkpoints[i] {
                    Some((_, cp)) => cp.clone(),
                    None => unreachable!("`saved` points at the live entry"),
                };
                let why = format!("restoring '{name}' at {}:{}", s.pos.line, s.pos.column);
                self.drop_checkpoints(i + 1, &why);
                let mut rec = self.recorder();
                self.model.restore(&mut self.heap, &*cp, &mut rec);
                self.translate(rec, Some(op.index), &mut op.events);
                self.reclaim_all(&mut op);
                note(self.detail, &mut op.events, EventKind::Restored, || {
                    format!("restored '{name}': {} blocks reclaimed", op.reclaimed.len())
                });
                op
            }
            StmtKind::Repeat { .. } => unreachable!("the run's cursor expands repeats"),
        };
        op.bump_ptr = self.model.bump_ptr().map(Word::to_u64);
        self.executed += 1;
        Ok(op)
    }

    fn alloc(
        &mut self,
        pos: Pos,
        name: &str,
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
        let (align, apos) = align.unwrap_or((natural, pos));
        check_align(align, apos)?;
        self.check_layout(bytes, align, pos)?;
        let mut op = self.new_op(OpKind::Alloc, pos, Some(name.to_string()));
        op.size = Some(bytes);
        op.align = Some(align);
        let layout = Layout {
            size: self.word(bytes),
            align: self.word(align),
        };
        let mut rec = self.recorder();
        let got = self.model.alloc(&mut self.heap, layout, &mut rec).result();
        self.translate(rec, Some(op.index), &mut op.events);
        match got {
            Ok(addr) => {
                let b = self.place(&mut op, addr.to_u64(), bytes, align);
                self.names.insert(name.to_string(), b);
            }
            Err(e) => self.fail(&mut op, e, pos, name)?,
        }
        Ok(op)
    }

    fn realloc(
        &mut self,
        pos: Pos,
        name: &str,
        block: &str,
        size: u64,
    ) -> Result<Op, ProgramError> {
        let old = self.live_block(block, pos, "realloc")?;
        let (old_op, old_addr, old_size, align) = {
            let b = &self.blocks[old];
            (b.op, b.address, b.size, b.align)
        };
        self.check_layout(size, align, pos)?;
        let mut op = self.new_op(OpKind::Realloc, pos, Some(name.to_string()));
        op.target_op = Some(old_op);
        op.size = Some(size);
        op.align = Some(align);
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
        {
            let chunk = self.blocks[old].chunk;
            if let (false, Some(chunk)) = (left_behind, chunk) {
                let chunk = chunk as usize;
                // Its bytes now belong to the new block: list it as reclaimed
                // so a reader of the trace drops it, as the shadow table does.
                // It is usually the last block, so search from the end.
                let holding = &self.chunks[chunk].holding;
                if let Some(i) = holding.iter().rposition(|&b| b == old) {
                    self.untally(old);
                    chunk_mut(&mut self.chunks, chunk).holding.remove(i);
                }
                op.reclaimed.push(old_op);
            } else {
                // Left behind: it stays in its chunk, leaked from now on.
                self.restate(old, BlockState::Leaked);
            }
            let b = &mut self.blocks[old];
            b.state = if left_behind {
                BlockState::Leaked
            } else {
                BlockState::Reclaimed
            };
            b.ended_at = Some(pos);
            b.reallocated_at = Some(pos);
            b.reallocated_at = Some(pos);
        }
        let new = self.place(&mut op, addr, size, align);
        op.moved = Some(moved);
        let (kind, text) = match (moved, size >= old_size) {
            (false, true) => (
                EventKind::GrewInPlace,
                format!("grew in place from {old_size} to {size} bytes"),
            ),
            (false, false) => (
                EventKind::ShrankInPlace,
                format!("shrank in place from {old_size} to {size} bytes"),
            ),
            (true, _) => (
                EventKind::Moved,
                format!("moved from {old_addr:#x} to {addr:#x}"),
            ),
        };
        note(self.detail, &mut op.events, kind, || text);
        if left_behind {
            note(self.detail, &mut op.events, EventKind::Leaked, || {
                format!("the old {old_size} bytes at {old_addr:#x} stay behind until they are reclaimed")
            });
        }
        if let Some(chunk) = self.blocks[old].chunk {
            self.reclaim_touched(&mut op, &[chunk]);
        }
        // The old name keeps pointing at the old block, so a later use of it
        // can say what became of it.
        self.names.insert(name.to_string(), new);
        Ok(op)
    }

    fn free(&mut self, pos: Pos, name: &str) -> Result<Op, ProgramError> {
        let b = self.live_block(name, pos, "free")?;
        let mut op = self.new_op(OpKind::Free, pos, Some(name.to_string()));
        self.restate(b, BlockState::Freed);
        self.blocks[b].freed = true;
        let (addr, size, align, chunk) = {
            let blk = &mut self.blocks[b];
            blk.state = BlockState::Freed;
            blk.ended_at = Some(pos);
            (blk.address, blk.size, blk.align, blk.chunk)
        };
        op.target_op = Some(self.blocks[b].op);
        op.address = Some(addr);
        op.size = Some(size);
        let layout = Layout {
            size: self.word(size),
            align: self.word(align),
        };
        let mut rec = self.recorder();
        let addr_w = self.word(addr);
        self.model.free(&mut self.heap, addr_w, layout, &mut rec);
        self.translate(rec, Some(op.index), &mut op.events);
        if let Some(chunk) = chunk {
            self.reclaim_touched(&mut op, &[chunk]);
        }
        if chunk.is_none() || size == 0 {
            note(self.detail, &mut op.events, EventKind::Freed, || {
                "freed: a zero-sized block holds no bytes".to_string()
            });
        } else if op.reclaimed.contains(&self.blocks[b].op) {
            note(self.detail, &mut op.events, EventKind::Freed, || {
                format!("freed: it was the last block, so its {size} bytes are free space again")
            });
        } else {
            note(self.detail, &mut op.events, EventKind::NotReclaimed, || {
                format!(
                    "freed, but its {size} bytes cannot be reused until the blocks after it go too"
                )
            });
        }
        Ok(op)
    }

    /// Drops the checkpoints saved after the first `keep`: their bump
    /// pointers point into bytes that are free again.
    fn drop_checkpoints(&mut self, keep: usize, why: &str) {
        for (name, _) in self.checkpoints.split_off(keep).into_iter().flatten() {
            self.saved.remove(&name);
            self.dropped.insert(name, why.to_string());
        }
    }

    /// What happens when the model says no.
    fn fail(
        &mut self,
        op: &mut Op,
        e: AllocError,
        pos: Pos,
        name: &str,
    ) -> Result<(), ProgramError> {
        match e {
            AllocError::HeapExhausted => return Err(model_error(pos, e, self.target)),
            AllocError::Full => note(self.detail, &mut op.events, EventKind::OutOfMemory, || {
                "does not fit: this allocator's memory is full and it never grows".to_string()
            }),
            AllocError::BadAlloc => {
                note(self.detail, &mut op.events, EventKind::OutOfMemory, || {
                    "std::bad_alloc thrown: the padding std::align needed did not fit".to_string()
                })
            }
        }
        op.failed = true;
        self.names.remove(name);
        Ok(())
    }

    /// Records a new block at `addr` and returns its index.
    fn place(&mut self, op: &mut Op, addr: u64, size: u64, align: u64) -> usize {
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
        let at = partition_point(&rec.holding, |&b| {
            let a = self.blocks[b].address;
            if up {
                a <= addr
            } else {
                a >= addr
            }
        });
        // Padding is the gap between this block and its neighbour towards
        // the bump origin (or the chunk edge): alignment padding plus any
        // rounding the previous block's size got.
        let (start, end) = (rec.info.start, rec.info.start + rec.info.capacity);
        let neighbour = at.checked_sub(1).map(|i| &self.blocks[rec.holding[i]]);
        let padding = if up {
            addr.saturating_sub(neighbour.map_or(start, |n| n.address + n.size))
        } else {
            neighbour
                .map_or(end, |n| n.address)
                .saturating_sub(addr + size)
        };
        op.chunk = Some(chunk);
        op.address = Some(addr);
        op.offset = Some(addr - start);
        op.padding = Some(padding);
        if padding > 0 {
            note(self.detail, &mut op.events, EventKind::Padding, || {
                format!("{padding} bytes of padding before the block")
            });
        }
        note(self.detail, &mut op.events, EventKind::Placed, || {
            format!(
                "{size} bytes at {addr:#x} (chunk {chunk}, offset {})",
                addr - start
            )
        });
        self.blocks.push_back(Block {
            op: op.index,
            chunk: Some(chunk),
            address: addr,
            size,
            align,
            padding,
            state: BlockState::Live,
            ended_at: None,
            reallocated_at: None,
            freed: false,
        });
        let b = self.blocks.len() - 1;
        chunk_mut(&mut self.chunks, chunk as usize)
            .holding
            .insert(at, b);
        self.tally(b);
        b
    }

    /// Adds block `b` to its chunk's tally: call when it joins the chunk's
    /// held blocks.
    fn tally(&mut self, b: usize) {
        self.count(b, true);
    }

    /// Takes block `b` out of its chunk's tally: call before it leaves the
    /// chunk's held blocks.
    fn untally(&mut self, b: usize) {
        self.count(b, false);
    }

    /// Ends live block `b` (freed or leaked) without it leaving its chunk.
    /// A live block that holds bytes is always among its chunk's held
    /// blocks; one that holds none adds nothing to move.
    fn restate(&mut self, b: usize, state: BlockState) {
        let blk = &mut self.blocks[b];
        debug_assert_eq!(blk.state, BlockState::Live);
        blk.state = state;
        if let (Some(c), size @ 1..) = (blk.chunk, blk.size) {
            let t = &mut chunk_mut(&mut self.chunks, c as usize).tally;
            t.requested -= size;
            t.leaked += size;
        }
    }

    fn count(&mut self, b: usize, add: bool) {
        let blk = &self.blocks[b];
        let Some(c) = blk.chunk else { return };
        let (requested, leaked) = match blk.state {
            BlockState::Live => (blk.size, 0),
            BlockState::Freed | BlockState::Leaked => (0, blk.size),
            BlockState::Reclaimed => (0, 0),
        };
        let t = &mut chunk_mut(&mut self.chunks, c as usize).tally;
        if add {
            t.padding += blk.padding;
            t.requested += requested;
            t.leaked += leaked;
        } else {
            t.padding -= blk.padding;
            t.requested -= requested;
            t.leaked -= leaked;
        }
    }

    /// Records a zero-sized block the model placed outside every chunk.
    fn place_dangling(&mut self, op: &mut Op, addr: u64, align: u64) -> usize {
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
            state: BlockState::Live,
            ended_at: None,
            reallocated_at: None,
            freed: false,
        });
        self.blocks.len() - 1
    }

    /// Reclaims, in every chunk that holds blocks, those the model no longer holds.
    fn reclaim_all(&mut self, op: &mut Op) {
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
    fn reclaim_touched(&mut self, op: &mut Op, chunks: &[u32]) {
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
                self.untally(b);
                chunk_mut(&mut self.chunks, c as usize).holding.pop_back();
                let blk = &mut self.blocks[b];
                if blk.size == 0 && blk.state == BlockState::Live && used.is_some() {
                    // It holds no bytes, so a rewind past it takes nothing
                    // away: it stays a valid, live block (the real crates
                    // agree: its pointer may still be reallocated or freed).
                    // Only its chunk going back to the base allocator ends it.
                    chunk_mut(&mut self.chunks, c as usize).empty.push_back(b);
                    continue;
                }
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

    /// Turns what the model reported into trace events, and keeps the chunk table.
    fn translate(&mut self, rec: Recorder, op: Option<u32>, out: &mut Vec<Event>) {
        let mut run: Vec<StepOut> = Vec::new();
        let flush = |run: &mut Vec<StepOut>, out: &mut Vec<Event>| {
            if run.is_empty() {
                return;
            }
            let last = run.last().expect("not empty");
            let (kind, text) = if last.outcome == "fail" || last.outcome == "overflow" {
                (
                    EventKind::NoRoom,
                    "the capacity check failed: no room in this chunk".to_string(),
                )
            } else if last.marker == "bump" {
                (
                    EventKind::Bump,
                    "the capacity check passed: the bump pointer moves".to_string(),
                )
            } else {
                (EventKind::Steps, last.label.to_string())
            };
            out.push(Event {
                kind,
                text,
                steps: core::mem::take(run),
            });
        };
        for item in rec.log {
            match item {
                Recorded::Step(m) => {
                    let failed = m.step.outcome == "fail" || m.step.outcome == "overflow";
                    run.push(StepOut {
                        id: m.step.name(),
                        marker: m.step.marker,
                        outcome: m.step.outcome,
                        label: m.step.label,
                        file: m.step.source,
                        line: m.step.line(),
                        values: m
                            .names
                            .iter()
                            .zip(m.values)
                            .map(|(&name, value)| NamedValue { name, value })
                            .collect(),
                    });
                    // A failed check ends its run: it is an event of its own,
                    // whatever the model does next.
                    if failed {
                        flush(&mut run, out);
                    }
                }
                Recorded::Event(e) => {
                    flush(&mut run, out);
                    out.extend(self.chunk_event(e, op));
                }
            }
        }
        flush(&mut run, out);
    }

    fn chunk_event(&mut self, e: ModelEvent<u64>, op: Option<u32>) -> Option<Event> {
        match e {
            ModelEvent::NewChunk {
                chunk: c,
                reason,
                requested,
            } => {
                debug_assert_eq!(
                    c.id as usize,
                    self.chunks.len(),
                    "chunk ids are handed out in order"
                );
                self.chunks.push_back(Rc::new(ChunkRec {
                    info: ChunkInfo {
                        id: c.id,
                        base: c.base,
                        size: c.size,
                        start: c.start,
                        capacity: c.capacity,
                        header: c.header,
                        footer: c.footer,
                        reason,
                        requested,
                        created_by: op,
                        freed_by: None,
                    },
                    holding: Vector::new(),
                    empty: Vector::new(),
                    live: true,
                    tally: Tally::default(),
                }));
                self.live.push(c.id);
                let why = match reason {
                    ChunkReason::First => "the first chunk",
                    ChunkReason::Full => "the current chunk is full",
                    ChunkReason::Oversized => "the request is larger than the next chunk would be",
                    ChunkReason::Slab => "a new slab",
                    ChunkReason::CustomSlab => {
                        "the request is too big for a slab: it gets one of its own"
                    }
                };
                self.detail.then(|| {
                    Event::new(
                        EventKind::NewChunk,
                        format!(
                        "new chunk {}: {} usable bytes at {:#x} ({why}; {requested} bytes needed)",
                        c.id, c.capacity, c.start
                    ),
                    )
                })
            }
            ModelEvent::ChunkFreed { id } => {
                let rec = chunk_mut(&mut self.chunks, id as usize);
                rec.live = false;
                rec.info.freed_by = op;
                self.live.retain(|&l| l != id);
                self.detail.then(|| {
                    Event::new(
                        EventKind::ChunkFreed,
                        format!("chunk {id} goes back to the base allocator"),
                    )
                })
            }
            ModelEvent::ChunkReused { id } => self.detail.then(|| {
                Event::new(
                    EventKind::ChunkReused,
                    format!("chunk {id}, kept from before, is current again"),
                )
            }),
            ModelEvent::Copied { bytes } => {
                self.copied += bytes;
                self.detail
                    .then(|| Event::new(EventKind::Copied, format!("{bytes} bytes copied")))
            }
            ModelEvent::Note(text) => self
                .detail
                .then(|| Event::new(EventKind::Note, text.to_string())),
        }
    }

    /// `Layout::from_size_align`'s rule on the target: size rounded up to
    /// align must not exceed `isize::MAX`.
    fn check_layout(&self, size: u64, align: u64, pos: Pos) -> Result<(), ProgramError> {
        let limit = W::ISIZE_MAX.to_u64();
        let rounded = size.checked_add(align - 1).map(|v| v & !(align - 1));
        match rounded {
            Some(r) if r <= limit => Ok(()),
            _ => Err(ProgramError::at(
                pos,
                format!("size {size:#x} with align {align} exceeds isize::MAX ({limit:#x}) on this target: no Layout can describe it"),
            )),
        }
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

/// Drops the repeats that execute no op (`repeat 99999999 { }`, or one
/// whose body only holds such repeats): running them would spin through
/// their counts producing nothing.
fn prune(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts
        .into_iter()
        .filter_map(|s| match s.kind {
            StmtKind::Repeat { count, body } => {
                let body = prune(body);
                (count > 0 && !body.is_empty()).then_some(Stmt {
                    pos: s.pos,
                    kind: StmtKind::Repeat { count, body },
                })
            }
            _ => Some(s),
        })
        .collect()
}

/// Ops a statement list executes, saturating.
pub(crate) fn op_count(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |n, s| {
        n.saturating_add(match &s.kind {
            StmtKind::Repeat { count, body } => count.saturating_mul(op_count(body)),
            _ => 1,
        })
    })
}

/// Refuses, before running anything, a program that would execute more than
/// `cap` ops, naming the statement where the total crosses it.
fn check_op_count(stmts: &[Stmt], cap: u64) -> Result<(), ProgramError> {
    let mut total = 0u64;
    for s in stmts {
        total = total.saturating_add(op_count(core::slice::from_ref(s)));
        if total > cap {
            if let StmtKind::Repeat { body, .. } = &s.kind {
                if op_count(body) > cap {
                    return check_op_count(body, cap)
                        .and(Err(ProgramError::at(s.pos, over_cap(cap))));
                }
            }
            return Err(ProgramError::at(s.pos, over_cap(cap)));
        }
    }
    Ok(())
}

fn over_cap(cap: u64) -> String {
    if cap == MAX_FULL_TRACE_OPS {
        format!("the program would execute more than {cap} ops, the most a full JSON trace holds: lower a repeat count")
    } else {
        format!("the program would execute more than {cap} ops: lower a repeat count")
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
fn chunk_mut(chunks: &mut Vector<Rc<ChunkRec>>, c: usize) -> &mut ChunkRec {
    Rc::make_mut(&mut chunks[c])
}

/// Adds an event to an op, building its text only when details are kept.
fn note(detail: bool, events: &mut Vec<Event>, kind: EventKind, text: impl FnOnce() -> String) {
    if detail {
        events.push(Event::new(kind, text()));
    }
}

fn check_align(align: u64, pos: Pos) -> Result<(), ProgramError> {
    if align == 0 || !align.is_power_of_two() || align > MAX_ALIGN {
        return Err(ProgramError::at(
            pos,
            format!("alignment {align} is not allowed: use a power of two from 1 to {MAX_ALIGN}"),
        ));
    }
    Ok(())
}
