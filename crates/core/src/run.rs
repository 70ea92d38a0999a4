//! The columnar run: a program traced op by op into seven `u32` columns,
//! resumable in slices, with any op's full details rebuilt on demand.
//!
//! The full JSON trace ([`run()`]) keeps every op's events and
//! micro-steps, about 1.6 kB per op. A page that scrubs through a million
//! ops needs far less per op: where each block is, when it dies and when its
//! bytes come back. So the run keeps 28 bytes per op (the columns), a table
//! of the program's statements, the chunk table and a sample of the stats,
//! and snapshots the whole engine every [`SNAPSHOT_EVERY`] ops. An op's
//! details ([`Run::detail`]) are rebuilt by re-running at most that many ops
//! from the snapshot before it, so they cost the same at op 100 as at op
//! 999,999. The layout is documented in `docs/trace-format.md` ("Columnar run").

use serde::Serialize;

use crate::algorithms::Direction;
use crate::engine::{self, Options, State, MAX_EXECUTED_OPS, MAX_FULL_TRACE_OPS};
use crate::presets::PresetId;
use crate::program::op_count;
use crate::program::{ProgramError, Stmt, StmtKind};
use crate::source::Source;
use crate::trace::{ChunkInfo, Op, OpKind, ProgramInfo, Stats, Trace, TRACE_VERSION};
use crate::word::Target;

/// Ops between two snapshots of the engine: what [`Run::detail`] re-runs at
/// most, and what sets the snapshots' memory (one per this many ops).
pub const SNAPSHOT_EVERY: u32 = 1024;
/// Most stats samples a run keeps (one more for the last op).
pub const MAX_STATS_SAMPLES: u64 = 4096;
/// The value of `chunk`, `dead_at` and `gone_at` that means "none".
pub const NONE: u32 = u32::MAX;

/// `meta` bits 0-2: the op's kind, as [`op_kind_code`] numbers it.
pub const META_KIND: u32 = 0b111;
/// `meta` bit 3: the allocation did not fit.
pub const META_FAILED: u32 = 1 << 3;
/// `meta` bit 4: a realloc that moved the block.
pub const META_MOVED: u32 = 1 << 4;
/// `meta` bit 5: the op placed a block (it has an address).
pub const META_PLACED: u32 = 1 << 5;
/// `meta` bits 6-9: log2 of the op's alignment (0 when it has none).
pub const META_ALIGN_SHIFT: u32 = 6;
/// `meta` bits 10-31: the index of the op's statement in [`Run::stmts`].
pub const META_STMT_SHIFT: u32 = 10;

/// The kind's number in `meta`: 0 alloc, 1 realloc, 2 free, 3 reset,
/// 4 checkpoint, 5 restore.
pub fn op_kind_code(kind: OpKind) -> u32 {
    match kind {
        OpKind::Alloc => 0,
        OpKind::Realloc => 1,
        OpKind::Free => 2,
        OpKind::Reset => 3,
        OpKind::Checkpoint => 4,
        OpKind::Restore => 5,
    }
}

/// One statement of the program that is not a repeat: what every op it
/// executes shares, so the columns need only its index.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StmtInfo {
    pub line: u32,
    pub column: u32,
    pub kind: OpKind,
    /// The name its ops show in [`Op::block`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
}

/// One `u32` per op in each column; see the `META_*` constants and
/// `docs/trace-format.md` for what each holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub meta: Vec<u32>,
    pub chunk: Vec<u32>,
    pub offset: Vec<u32>,
    pub size: Vec<u32>,
    pub padding: Vec<u32>,
    /// The op that freed or reallocated the block this op placed.
    pub dead_at: Vec<u32>,
    /// The op after which the block's bytes are no longer drawn: the one
    /// that reclaimed them, or the in-place realloc that took them over.
    pub gone_at: Vec<u32>,
}

impl Columns {
    /// The column called `name` (`meta`, `chunk`, `offset`, `size`,
    /// `padding`, `dead_at`, `gone_at`).
    pub fn by_name(&self, name: &str) -> Option<&[u32]> {
        Some(match name {
            "meta" => &self.meta,
            "chunk" => &self.chunk,
            "offset" => &self.offset,
            "size" => &self.size,
            "padding" => &self.padding,
            "dead_at" => &self.dead_at,
            "gone_at" => &self.gone_at,
            _ => return None,
        })
    }

    /// Room for `n` ops in every column: a run knows its op count before
    /// it starts, so the columns never move while they grow.
    fn with_capacity(n: usize) -> Self {
        let v = || Vec::with_capacity(n);
        Columns {
            meta: v(),
            chunk: v(),
            offset: v(),
            size: v(),
            padding: v(),
            dead_at: v(),
            gone_at: v(),
        }
    }

    pub fn len(&self) -> usize {
        self.meta.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Appends op `op`, run by statement `stmt`, and marks the blocks it
    /// ended in the rows of the ops that placed them.
    fn push(&mut self, stmt: u32, op: &Op) {
        let i = op.index;
        debug_assert_eq!(i as usize, self.len());
        let placed = matches!(op.kind, OpKind::Alloc | OpKind::Realloc)
            && !op.failed
            && op.address.is_some();
        let align = op.align.map_or(0, u64::trailing_zeros);
        let mut meta = op_kind_code(op.kind) | align << META_ALIGN_SHIFT | stmt << META_STMT_SHIFT;
        if op.failed {
            meta |= META_FAILED;
        }
        if op.moved == Some(true) {
            meta |= META_MOVED;
        }
        if placed {
            meta |= META_PLACED;
        }
        let small = |v: Option<u64>| v.map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX));
        self.meta.push(meta);
        self.chunk.push(match (placed, op.chunk) {
            (true, Some(c)) => c,
            _ => NONE,
        });
        self.offset.push(match (placed, op.chunk) {
            (false, _) => 0,
            (true, Some(_)) => small(op.offset),
            // A dangling zero-sized block: no chunk to measure from.
            (true, None) => small(op.address),
        });
        self.size.push(small(op.size));
        self.padding.push(small(op.padding));
        self.dead_at.push(NONE);
        self.gone_at.push(NONE);
        let gone = |b: u32, gone_at: &mut Vec<u32>| {
            let g = &mut gone_at[b as usize];
            if *g == NONE {
                *g = i;
            }
        };
        match (op.kind, op.target_op) {
            (OpKind::Free, Some(t)) => self.dead_at[t as usize] = i,
            (OpKind::Realloc, Some(t)) if !op.failed => {
                self.dead_at[t as usize] = i;
                // In place, the new block takes over the old one's bytes
                // (listed in `reclaimed` when it was in a chunk; a dangling
                // one is not, and goes too).
                if op.moved == Some(false) {
                    gone(t, &mut self.gone_at);
                }
            }
            _ => {}
        }
        for &b in &op.reclaimed {
            gone(b, &mut self.gone_at);
        }
    }

    /// Bytes the columns hold.
    pub fn bytes(&self) -> usize {
        7 * 4 * self.len()
    }
}

/// The used bytes of a live chunk after an op.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ChunkUsed {
    pub id: u32,
    pub lo: u64,
    pub hi: u64,
}

/// One op in full, as the full JSON trace has it, and where every live
/// chunk's used bytes are after it.
#[derive(Clone, Debug, Serialize)]
pub struct Detail {
    pub op: Op,
    pub chunks_used: Vec<ChunkUsed>,
}

/// What a columnar run says about itself, for the page's header.
#[derive(Clone, Debug, Serialize)]
pub struct Header<'a> {
    pub version: u32,
    pub allocator: &'static str,
    pub target: Target,
    pub direction: Direction,
    pub source: Source,
    pub source_path: &'static str,
    pub stmts: &'a [StmtInfo],
    pub stats_every: u32,
}

/// The program as the cursor walks it: its statements in pre-order, a
/// repeat followed by its body.
#[derive(Clone, Copy, Debug)]
enum Node {
    /// A statement that runs one op: its index in `Run::program`.
    Op(u32),
    /// `repeat count { … }` whose body is the next `len` nodes.
    Repeat { count: u64, len: usize },
}

/// Where a run is in the program: one frame per repeat entered (and one for
/// the whole program), so a run can stop after any op and go on later.
#[derive(Clone, Debug)]
struct Cursor {
    frames: Vec<Frame>,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// The body's nodes, `start..end`.
    start: usize,
    end: usize,
    /// The next node to run.
    next: usize,
    /// Passes over the body left, the current one included.
    left: u64,
}

impl Cursor {
    fn new(nodes: &[Node]) -> Self {
        Cursor {
            frames: vec![Frame {
                start: 0,
                end: nodes.len(),
                next: 0,
                left: 1,
            }],
        }
    }

    /// The statement of the next op, stepping past it; `None` at the end.
    /// Every repeat runs at least one op (the program is pruned), so this
    /// never spins.
    fn next(&mut self, nodes: &[Node]) -> Option<u32> {
        loop {
            let f = self.frames.last_mut()?;
            if f.next == f.end {
                f.left -= 1;
                if f.left > 0 {
                    f.next = f.start;
                } else {
                    self.frames.pop();
                }
                continue;
            }
            let at = f.next;
            match nodes[at] {
                Node::Op(s) => {
                    f.next += 1;
                    return Some(s);
                }
                Node::Repeat { count, len } => {
                    f.next += 1 + len;
                    self.frames.push(Frame {
                        start: at + 1,
                        end: at + 1 + len,
                        next: at + 1,
                        left: count,
                    });
                }
            }
        }
    }
}

/// Lays `stmts` out in pre-order: repeats as [`Node::Repeat`], the others
/// in `program` (numbered in that order) with their [`StmtInfo`].
fn flatten(
    stmts: Vec<Stmt>,
    nodes: &mut Vec<Node>,
    program: &mut Vec<Stmt>,
    infos: &mut Vec<StmtInfo>,
) {
    for s in stmts {
        match s.kind {
            StmtKind::Repeat { count, body } => {
                let at = nodes.len();
                nodes.push(Node::Repeat { count, len: 0 });
                flatten(body, nodes, program, infos);
                let body_len = nodes.len() - at - 1;
                nodes[at] = Node::Repeat {
                    count,
                    len: body_len,
                };
            }
            _ => {
                let (kind, block) = match &s.kind {
                    StmtKind::Alloc { name, .. } => (OpKind::Alloc, Some(name)),
                    StmtKind::Realloc { name, .. } => (OpKind::Realloc, Some(name)),
                    StmtKind::Free { block, .. } => (OpKind::Free, Some(block)),
                    StmtKind::Checkpoint { name } => (OpKind::Checkpoint, Some(name)),
                    StmtKind::Restore { name } => (OpKind::Restore, Some(name)),
                    StmtKind::Reset => (OpKind::Reset, None),
                    StmtKind::Repeat { .. } => unreachable!("matched above"),
                };
                infos.push(StmtInfo {
                    line: s.pos.line,
                    column: s.pos.column,
                    kind,
                    block: block.cloned(),
                });
                nodes.push(Node::Op(program.len() as u32));
                program.push(s);
            }
        }
    }
}

/// A program being traced into columns; see the module's documentation.
pub struct Run {
    preset: PresetId,
    target: Target,
    direction: Direction,
    nodes: Vec<Node>,
    /// The statements that run ops, in pre-order (`meta`'s statement index).
    program: Vec<Stmt>,
    stmts: Vec<StmtInfo>,
    cursor: Cursor,
    state: Box<dyn State>,
    total: u64,
    executed: u32,
    columns: Columns,
    stats_every: u32,
    samples: Vec<Stats>,
    /// The engine and cursor before op `k * SNAPSHOT_EVERY`, at `k`.
    snapshots: Vec<(Box<dyn State>, Cursor)>,
    /// Every op in full, when the run makes the full JSON trace (it keeps
    /// no snapshots then).
    full: Option<Vec<Op>>,
    /// Whether to keep snapshots (not for the full trace, nor to measure).
    snapshot: bool,
    error: Option<ProgramError>,
}

/// Parses and runs `src` on `preset`, recording every op in full: the
/// columnar run run to the end, keeping each op's details.
pub fn run(src: &str, preset: PresetId, opts: &Options) -> Result<Trace, ProgramError> {
    Run::full_trace(src, preset, opts)
}

impl Run {
    /// Parses `src` and builds `preset`'s engine, ready to run (nothing runs
    /// yet). Fails for a program that does not parse, runs more than
    /// [`MAX_EXECUTED_OPS`] ops, or asks for settings the preset refuses.
    pub fn new(src: &str, preset: PresetId, opts: &Options) -> Result<Run, ProgramError> {
        Run::start(src, preset, opts, MAX_EXECUTED_OPS, false)
    }

    /// The full JSON trace: this run to the end, keeping every op in full.
    fn full_trace(src: &str, preset: PresetId, opts: &Options) -> Result<Trace, ProgramError> {
        let mut run = Run::start(src, preset, opts, MAX_FULL_TRACE_OPS, true)?;
        while !run.advance(u32::MAX)? {}
        Ok(Trace {
            version: TRACE_VERSION,
            allocator: preset.name(),
            target: run.target,
            direction: run.direction,
            source: preset.source(),
            source_path: preset.source().path(),
            program: ProgramInfo {
                text: src.to_string(),
                capacity: opts.capacity,
                min_align: opts.min_align,
                // Always written for a preset that takes one, so a trace
                // file says which child its placements come from.
                child: (!preset.children().is_empty())
                    .then(|| crate::engine::resolve_child(preset, opts.child).ok())
                    .flatten(),
            },
            chunks: run.state.chunks(),
            ops: run.full.take().expect("kept in full"),
            real: None,
            baseline: None,
        })
    }

    fn start(
        src: &str,
        preset: PresetId,
        opts: &Options,
        cap: u64,
        full: bool,
    ) -> Result<Run, ProgramError> {
        let (program, state) = engine::start(src, preset, opts, cap)?;
        let total = op_count(&program);
        let (mut nodes, mut stmts, mut infos) = (Vec::new(), Vec::new(), Vec::new());
        flatten(program, &mut nodes, &mut stmts, &mut infos);
        let stats_every = total.div_ceil(MAX_STATS_SAMPLES).max(1) as u32;
        Ok(Run {
            preset,
            target: opts.target,
            direction: state.direction(),
            cursor: Cursor::new(&nodes),
            nodes,
            program: stmts,
            stmts: infos,
            state,
            total,
            executed: 0,
            columns: Columns::with_capacity(total as usize),
            stats_every,
            samples: Vec::new(),
            snapshots: Vec::new(),
            full: full.then(Vec::new),
            snapshot: !full,
            error: None,
        })
    }

    /// The same run keeping no snapshots ([`Run::detail`] then answers
    /// `None`): what the snapshots cost is the difference, which is what
    /// the `trace_speed` example measures this for.
    #[doc(hidden)]
    pub fn without_snapshots(mut self) -> Self {
        self.snapshot = false;
        self
    }

    /// Runs up to `max_ops` more ops. `Ok(true)` once every op has run; the
    /// error of the op that failed (with its position), now and on every
    /// later call, once one has.
    pub fn advance(&mut self, max_ops: u32) -> Result<bool, ProgramError> {
        let mut full = self.full.take();
        let done = self.step(max_ops, full.as_mut());
        self.full = full;
        done
    }

    /// [`Run::advance`], returning the ops it ran in full (as the full JSON
    /// trace has them): a straight run to an op, to check details against.
    #[doc(hidden)]
    pub fn advance_detailed(&mut self, max_ops: u32) -> Result<Vec<Op>, ProgramError> {
        let mut ops = Vec::new();
        self.step(max_ops, Some(&mut ops))?;
        Ok(ops)
    }

    fn step(&mut self, max_ops: u32, mut keep: Option<&mut Vec<Op>>) -> Result<bool, ProgramError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        // Ops whose details nobody keeps skip building their events.
        self.state.set_detail(keep.is_some());
        for _ in 0..max_ops {
            let snapshot = self.snapshot && self.executed % SNAPSHOT_EVERY == 0;
            let before = snapshot.then(|| self.cursor.clone());
            let Some(s) = self.cursor.next(&self.nodes) else {
                break;
            };
            if let Some(cursor) = before {
                self.snapshots.push((self.state.fork(), cursor));
            }
            let stmt = &self.program[s as usize];
            let mut op = match self.state.exec(stmt) {
                Ok(op) => op,
                Err(e) => {
                    self.error = Some(e.clone());
                    return Err(e);
                }
            };
            let i = self.executed;
            let sampled = self.is_sampled(i);
            if sampled || keep.is_some() {
                // Only stats cost the square of the live chunks: charged where
                // they are computed (every op of a full trace, the samples of
                // a columnar run; a detail's re-run is bounded and not charged).
                if let Err(e) = self.state.charge_stats(stmt.pos) {
                    self.error = Some(e.clone());
                    return Err(e);
                }
                op.stats = self.state.stats();
            }
            if sampled {
                self.samples.push(op.stats);
            }
            self.columns.push(s, &op);
            match &mut keep {
                Some(keep) => keep.push(op),
                None => self.state.recycle(&mut op),
            }
            self.executed += 1;
        }
        Ok(self.is_done())
    }

    /// Whether op `i`'s stats are among [`Run::stats_samples`]: every
    /// `stats_every`-th op from op 0, and the last op.
    pub fn is_sampled(&self, i: u32) -> bool {
        i % self.stats_every == 0 || u64::from(i) + 1 == self.total
    }

    /// Op `i` in full, exactly as the full JSON trace has it, and the used
    /// bytes of every chunk live after it; `None` if op `i` has not run.
    /// Re-runs at most [`SNAPSHOT_EVERY`] ops from the snapshot before it.
    pub fn detail(&self, i: u32) -> Option<Detail> {
        if i >= self.executed {
            return None;
        }
        let k = (i / SNAPSHOT_EVERY) as usize;
        let (state, cursor) = self.snapshots.get(k)?;
        let (mut state, mut cursor) = (state.fork(), cursor.clone());
        for j in k as u32 * SNAPSHOT_EVERY..=i {
            let s = cursor.next(&self.nodes).expect("op i ran");
            state.set_detail(j == i);
            let mut op = state
                .exec(&self.program[s as usize])
                .expect("the ops before the failed one ran");
            if j == i {
                op.stats = state.stats();
                let chunks_used = state
                    .chunks_used()
                    .into_iter()
                    .map(|(id, lo, hi)| ChunkUsed { id, lo, hi })
                    .collect();
                return Some(Detail { op, chunks_used });
            }
        }
        unreachable!("the loop returns at op i")
    }

    /// Ops run so far.
    pub fn executed(&self) -> u32 {
        self.executed
    }

    /// Ops the program runs in all (if no op fails).
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn is_done(&self) -> bool {
        u64::from(self.executed) == self.total
    }

    pub fn error(&self) -> Option<&ProgramError> {
        self.error.as_ref()
    }

    pub fn columns(&self) -> &Columns {
        &self.columns
    }

    pub fn stmts(&self) -> &[StmtInfo] {
        &self.stmts
    }

    /// Every chunk made so far (`freed_by` set for those freed so far).
    pub fn chunks(&self) -> Vec<ChunkInfo> {
        self.state.chunks()
    }

    /// The ops whose stats are sampled are those [`Run::is_sampled`] says.
    pub fn stats_every(&self) -> u32 {
        self.stats_every
    }

    /// The stats after each sampled op so far, in op order.
    pub fn stats_samples(&self) -> &[Stats] {
        &self.samples
    }

    pub fn preset(&self) -> PresetId {
        self.preset
    }

    pub fn header(&self) -> Header<'_> {
        Header {
            version: TRACE_VERSION,
            allocator: self.preset.name(),
            target: self.target,
            direction: self.direction,
            source: self.preset.source(),
            source_path: self.preset.source().path(),
            stmts: &self.stmts,
            stats_every: self.stats_every,
        }
    }

    /// Snapshots taken so far.
    pub fn snapshots(&self) -> usize {
        self.snapshots.len()
    }

    /// Bytes of the trace proper: the columns, the statement and chunk
    /// tables and the stats samples (the engine and its snapshots apart).
    pub fn bytes(&self) -> usize {
        let stmts: usize = self
            .stmts
            .iter()
            .map(|s| size_of::<StmtInfo>() + s.block.as_ref().map_or(0, String::len))
            .sum();
        self.columns.bytes()
            + stmts
            + self.state.chunk_count() * size_of::<ChunkInfo>()
            + self.samples.len() * size_of::<Stats>()
    }
}
