//! The columnar run: a program traced op by op into seven `u32` columns,
//! resumable in slices, with any op's full details rebuilt on demand.
//!
//! The full JSON trace ([`run()`]) keeps every op's events and
//! micro-steps, about 1.6 kB per op. A page that scrubs through a million
//! ops needs far less per op: where each block is, when it dies and when its
//! bytes come back. So the run keeps 28 bytes per op (the columns), the
//! program (24 bytes a statement, its names interned), the chunk table and
//! a sample of the stats, and snapshots the engine every so many ops. An
//! op's details ([`Run::detail`]) are rebuilt by re-running the ops from the
//! snapshot before it, so they cost the same at op 100 as at op 999,999.
//! The layout is documented in `docs/trace-format.md` ("Columnar run").
//!
//! # Memory
//!
//! A snapshot shares the engine's tables (`crate::persistent`): it costs
//! what the model and the base allocator's list take to copy, plus what the
//! ops after it copy before writing to what it shares. Snapshots are at
//! least [`SNAPSHOT_EVERY`] ops apart, and the next is taken only once the
//! ops since the last have cost at most [`SNAPSHOT_BYTES_PER_OP`] bytes an
//! op: a program that rewrites its whole live set every few ops gets fewer
//! snapshots, and its details re-run more ops. So a run of `n` ops whose
//! engine keeps at most `b` blocks at once takes about
//!
//! ```text
//! 28 n (columns) + 24 s (statements) + names + 72 × 4,097 (stats samples)
//!   + 8 n (snapshots) + ~60 b (blocks, their chunks' lists, their names)
//! ```
//!
//! bytes, and [`Run::memory_bytes`] says how much so far. A run past
//! [`MAX_RUN_BYTES`] stops with an error that says so, before the memory
//! is exhausted.

use serde::Serialize;

use crate::algorithms::Direction;
use std::rc::Rc;

pub use crate::columns::{
    op_kind_code, Columns, META_ALIGN_SHIFT, META_FAILED, META_KIND, META_MOVED, META_PLACED,
    META_STMT_SHIFT, NONE,
};
use crate::engine::{self, Options, State, MAX_EXECUTED_OPS, MAX_FULL_TRACE_OPS};
use crate::persistent;
use crate::presets::PresetId;
use crate::program::{op_count, Pos, Program, ProgramError, StmtKind};
use crate::source::Source;
use crate::trace::{ChunkInfo, Op, OpKind, ProgramInfo, Stats, Trace, TRACE_VERSION};
use crate::word::Target;

/// Least ops between two snapshots of the engine: what [`Run::detail`]
/// re-runs at most while snapshots are cheap.
pub const SNAPSHOT_EVERY: u32 = 1024;
/// Most bytes the snapshots may cost per op run: they are spaced so that
/// each costs at most this much per op since the one before.
pub const SNAPSHOT_BYTES_PER_OP: u64 = 8;
/// Most memory one run may take ([`Run::memory_bytes`]): a run that would
/// take more stops with an error, long before wasm32's 4 GiB are exhausted,
/// with room for the run on screen and the next one beside it. No program
/// within the other limits comes near it (the formula in the module's
/// documentation gives under 300 MB for the largest), so reaching it means a
/// table grew in a way the formula does not count.
pub const MAX_RUN_BYTES: u64 = 1 << 30;
/// Statements a program may have: the statement index takes the `meta`
/// column's bits above [`META_STMT_SHIFT`].
pub const MAX_STATEMENTS: usize = 1 << (32 - META_STMT_SHIFT);
/// Most stats samples a run keeps (one more for the last op).
pub const MAX_STATS_SAMPLES: u64 = 4096;
/// A repeat in [`Run::stmt_kinds_and_names`]: no op kind is 7.
pub const STMT_REPEAT: u32 = 7;
/// One statement of the program as the page shows an op's: where it is,
/// its kind and the name it names. Repeats are statements too (their ops'
/// `meta` never points at them): their kind is `None`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct StmtInfo {
    pub line: u32,
    pub column: u32,
    pub kind: Option<OpKind>,
    /// The name its ops show in [`Op::block`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
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

/// What a columnar run says about itself, for the page's header. The
/// statements are read apart, as columns ([`Run::stmt_lines`] and the
/// others): a recording's million would be 50 MB of JSON.
#[derive(Clone, Debug, Serialize)]
pub struct Header {
    pub version: u32,
    pub allocator: &'static str,
    pub target: Target,
    pub direction: Direction,
    pub source: Source,
    pub source_path: &'static str,
    pub stats_every: u32,
}

/// Where a run is in the program: one frame per repeat entered (and one for
/// the whole program), so a run can stop after any op and go on later.
#[derive(Clone, Debug)]
struct Cursor {
    frames: Vec<Frame>,
}

#[derive(Clone, Copy, Debug)]
struct Frame {
    /// The body's statements, `start..end`.
    start: usize,
    end: usize,
    /// The next statement to run.
    next: usize,
    /// Passes over the body left, the current one included.
    left: u64,
}

impl Cursor {
    fn new(program: &Program) -> Self {
        Cursor {
            frames: vec![Frame {
                start: 0,
                end: program.len(),
                next: 0,
                left: 1,
            }],
        }
    }

    /// The statement of the next op, stepping past it; `None` at the end.
    /// Every repeat runs at least one op (the program is pruned), so this
    /// never spins.
    fn next(&mut self, program: &Program) -> Option<u32> {
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
            match program.get(at).kind {
                StmtKind::Repeat { count, len } => {
                    let end = at + 1 + len as usize;
                    f.next = end;
                    self.frames.push(Frame {
                        start: at + 1,
                        end,
                        next: at + 1,
                        left: count,
                    });
                }
                _ => {
                    f.next += 1;
                    return Some(at as u32);
                }
            }
        }
    }
}

/// The engine and cursor before op `at`.
struct Snapshot {
    at: u32,
    state: Box<dyn State>,
    cursor: Cursor,
}

/// A program being traced into columns; see the module's documentation.
pub struct Run {
    preset: PresetId,
    target: Target,
    direction: Direction,
    /// The program, pruned: ops' `meta` holds the index of their statement.
    program: Rc<Program>,
    cursor: Cursor,
    state: Box<dyn State>,
    total: u64,
    executed: u32,
    columns: Columns,
    stats_every: u32,
    samples: Vec<Stats>,
    snapshots: Vec<Snapshot>,
    /// Bytes the ops since the last snapshot copied ([`persistent::copied`]).
    epoch_copied: u64,
    /// Bytes the snapshots keep: each one's copies and what the ops after it
    /// copied while it shared their tables.
    snapshot_bytes: u64,
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

    /// [`Run::new`] for a program parsed already ([`crate::program::parse`],
    /// in a worker, say).
    pub fn from_program(
        program: Program,
        preset: PresetId,
        opts: &Options,
    ) -> Result<Run, ProgramError> {
        let (program, state) = engine::start_parsed(program, preset, opts, MAX_EXECUTED_OPS)?;
        Run::with(program, state, preset, opts, false)
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
        Run::with(program, state, preset, opts, full)
    }

    fn with(
        program: Rc<Program>,
        state: Box<dyn State>,
        preset: PresetId,
        opts: &Options,
        full: bool,
    ) -> Result<Run, ProgramError> {
        if program.len() > MAX_STATEMENTS {
            return Err(ProgramError::at(
                Pos { line: 1, column: 1 },
                format!(
                    "the program has {} statements; the limit is {}",
                    program.len(),
                    MAX_STATEMENTS
                ),
            ));
        }
        let total = op_count(&program);
        let stats_every = total.div_ceil(MAX_STATS_SAMPLES).max(1) as u32;
        Ok(Run {
            preset,
            target: opts.target,
            direction: state.direction(),
            cursor: Cursor::new(&program),
            program,
            state,
            total,
            executed: 0,
            // Allocated at the first op: a page that parsed the text itself
            // has freed it by then, and the columns may take its place.
            columns: Columns::default(),
            stats_every,
            samples: Vec::new(),
            snapshots: Vec::new(),
            epoch_copied: 0,
            snapshot_bytes: 0,
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
        if self.columns.meta.capacity() == 0 && !self.is_done() {
            self.columns = Columns::with_capacity(self.total as usize);
        }
        // Ops whose details nobody keeps skip building their events.
        self.state.set_detail(keep.is_some());
        let mut copied = persistent::copied();
        for _ in 0..max_ops {
            let before = self.snapshot_due().then(|| self.cursor.clone());
            let Some(s) = self.cursor.next(&self.program) else {
                break;
            };
            if let Some(cursor) = before {
                let state = self.state.fork();
                self.snapshot_bytes += self.epoch_copied
                    + (persistent::copied() - copied)
                    + state.fork_bytes()
                    + (size_of::<Snapshot>() + cursor.frames.capacity() * size_of::<Frame>())
                        as u64;
                self.snapshots.push(Snapshot {
                    at: self.executed,
                    state,
                    cursor,
                });
                self.epoch_copied = 0;
                copied = persistent::copied();
            }
            let stmt = self.program.get(s as usize);
            let result = self.state.exec(&stmt, &self.columns);
            let now = persistent::copied();
            self.epoch_copied += now - copied;
            copied = now;
            let mut op = match result {
                Ok(op) => op,
                Err(e) => return Err(self.fail(e)),
            };
            let i = self.executed;
            let sampled = self.is_sampled(i);
            if sampled || keep.is_some() {
                // Only stats cost the square of the live chunks: charged where
                // they are computed (every op of a full trace, the samples of
                // a columnar run; a detail's re-run is bounded and not charged).
                if let Err(e) = self.state.charge_stats(stmt.pos) {
                    return Err(self.fail(e));
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
            if self.executed % SNAPSHOT_EVERY == 0 {
                if let Err(e) = self.check_memory(stmt.pos) {
                    return Err(self.fail(e));
                }
            }
        }
        Ok(self.is_done())
    }

    fn fail(&mut self, e: ProgramError) -> ProgramError {
        self.error = Some(e.clone());
        e
    }

    /// Whether to snapshot the engine before the next op: at op 0, then once
    /// [`SNAPSHOT_EVERY`] ops have run since the last and cost at most
    /// [`SNAPSHOT_BYTES_PER_OP`] each (what they copied, and what the next
    /// snapshot copies at once).
    fn snapshot_due(&self) -> bool {
        if !self.snapshot {
            return false;
        }
        let Some(last) = self.snapshots.last() else {
            return true;
        };
        let since = self.executed - last.at;
        since >= SNAPSHOT_EVERY
            && self.epoch_copied + self.state.fork_bytes()
                <= SNAPSHOT_BYTES_PER_OP * u64::from(since)
    }

    /// An error at `pos` if the run has taken more than [`MAX_RUN_BYTES`].
    fn check_memory(&self, pos: Pos) -> Result<(), ProgramError> {
        let used = self.memory_bytes();
        if used <= MAX_RUN_BYTES {
            return Ok(());
        }
        Err(ProgramError::at(
            pos,
            format!(
                "the run stopped at op {} of {}: it had taken {} MB, past the {} MB one run may take (the program has {} statements; its chunks held {} blocks)",
                crate::text::grouped(u64::from(self.executed)),
                crate::text::grouped(self.total),
                used >> 20,
                MAX_RUN_BYTES >> 20,
                crate::text::grouped(self.program.len() as u64),
                crate::text::grouped(self.state.held_blocks() as u64),
            ),
        ))
    }

    /// Bytes the run holds, about: its columns, stats samples and program,
    /// the engine's tables and what its snapshots keep beyond them.
    pub fn memory_bytes(&self) -> u64 {
        (self.columns.meta.capacity() * 7 * 4) as u64
            + (self.samples.capacity() * size_of::<Stats>()) as u64
            + self.program.bytes() as u64
            + self.state.table_bytes()
            + self.snapshot_bytes
            + (self.snapshots.capacity() * size_of::<Snapshot>()) as u64
    }

    /// Bytes the snapshots keep beyond the engine's own tables.
    pub fn snapshot_bytes(&self) -> u64 {
        self.snapshot_bytes
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
        let k = self
            .snapshots
            .partition_point(|s| s.at <= i)
            .checked_sub(1)?;
        let snap = &self.snapshots[k];
        let (mut state, mut cursor) = (snap.state.fork(), snap.cursor.clone());
        for j in snap.at..=i {
            let s = cursor.next(&self.program).expect("op i ran");
            state.set_detail(j == i);
            let mut op = state
                .exec(&self.program.get(s as usize), &self.columns)
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

    /// Ops [`Run::detail`] re-runs at most: the longest stretch between two
    /// snapshots.
    pub fn longest_rerun(&self) -> u32 {
        let ats = self.snapshots.iter().map(|s| s.at).chain([self.executed]);
        ats.clone()
            .zip(ats.skip(1))
            .map(|(a, b)| b - a)
            .max()
            .unwrap_or(0)
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

    /// The program the run runs (pruned: a statement's index is the one
    /// ops' `meta` holds).
    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Statement `i` as the page shows it.
    pub fn stmt_info(&self, i: usize) -> StmtInfo {
        let s = self.program.get(i);
        let names = self.program.names();
        let (kind, block) = match s.kind {
            StmtKind::Alloc { name, .. } => (Some(OpKind::Alloc), Some(name)),
            StmtKind::Realloc { name, .. } => (Some(OpKind::Realloc), Some(name)),
            StmtKind::Free { block, .. } => (Some(OpKind::Free), Some(block)),
            StmtKind::Checkpoint { name } => (Some(OpKind::Checkpoint), Some(name)),
            StmtKind::Restore { name } => (Some(OpKind::Restore), Some(name)),
            StmtKind::Reset => (Some(OpKind::Reset), None),
            StmtKind::Repeat { .. } => (None, None),
        };
        StmtInfo {
            line: s.pos.line,
            column: s.pos.column,
            kind,
            block: block.map(|n| names.get(n).to_string()),
        }
    }

    /// Each statement's line. The statement tables are read one value at
    /// a time, so a binding can copy a million statements out in pieces
    /// rather than build each table whole beside the program.
    pub fn stmt_lines(&self) -> impl Iterator<Item = u32> + '_ {
        self.program.iter().map(|s| s.pos.line)
    }

    /// Each statement's column.
    pub fn stmt_columns(&self) -> impl Iterator<Item = u32> + '_ {
        self.program.iter().map(|s| s.pos.column)
    }

    /// Each statement's kind as `meta` numbers ops' (see [`op_kind_code`])
    /// and the name it names, packed as `kind | (name + 1) << 3` (0 above
    /// the kind for none; the names are [`Run::program`]'s, by number); a
    /// repeat is [`STMT_REPEAT`].
    pub fn stmt_kinds_and_names(&self) -> impl Iterator<Item = u32> + '_ {
        self.program.iter().map(|s| {
            let (kind, name) = match s.kind {
                StmtKind::Alloc { name, .. } => (OpKind::Alloc, Some(name)),
                StmtKind::Realloc { name, .. } => (OpKind::Realloc, Some(name)),
                StmtKind::Free { block, .. } => (OpKind::Free, Some(block)),
                StmtKind::Checkpoint { name } => (OpKind::Checkpoint, Some(name)),
                StmtKind::Restore { name } => (OpKind::Restore, Some(name)),
                StmtKind::Reset => (OpKind::Reset, None),
                StmtKind::Repeat { .. } => return STMT_REPEAT,
            };
            op_kind_code(kind) | name.map_or(0, |n| n.0 + 1) << 3
        })
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

    pub fn header(&self) -> Header {
        Header {
            version: TRACE_VERSION,
            allocator: self.preset.name(),
            target: self.target,
            direction: self.direction,
            source: self.preset.source(),
            source_path: self.preset.source().path(),
            stats_every: self.stats_every,
        }
    }

    /// Snapshots taken so far.
    pub fn snapshots(&self) -> usize {
        self.snapshots.len()
    }

    /// Bytes of the trace proper: the columns, the program and chunk
    /// tables and the stats samples (the engine and its snapshots apart).
    pub fn bytes(&self) -> usize {
        self.columns.bytes()
            + self.program.bytes()
            + self.state.chunk_count() * size_of::<ChunkInfo>()
            + self.samples.len() * size_of::<Stats>()
    }
}
