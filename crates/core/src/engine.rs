//! Runs a parsed program on a preset and records the trace.
//!
//! The engine keeps a shadow table of blocks (name, placement, state) beside
//! the allocator: the allocator only ever sees addresses, as a real one does,
//! and the shadow table is what checks names, frees and use after free.

use std::collections::HashMap;

use crate::algorithms::bump_down::BumpDown;
use crate::algorithms::bump_up::BumpUp;
use crate::algorithms::bump_up_naive::BumpUpNaive;
use crate::algorithms::Direction;
use crate::presets::PresetId;
use crate::probe::Recorder;
use crate::program::{parse, Pos, ProgramError, SizeExpr, Stmt, StmtKind};
use crate::steps::line_of;
use crate::trace::{
    ChunkInfo, Event, EventKind, NamedValue, Op, OpKind, Stats, StepOut, Trace, TRACE_VERSION,
};
use crate::word::{Target, Word};

/// Where the simulated base allocator hands out its first chunk.
pub const HEAP_BASE: u64 = 0x1_0000;
/// Usable bytes of the fixed chunk when no capacity is given.
pub const DEFAULT_CAPACITY: u64 = 256;
/// Largest fixed-chunk capacity accepted.
pub const MAX_CAPACITY: u64 = 1 << 30;
/// Largest alignment accepted (a page).
pub const MAX_ALIGN: u64 = 4096;
/// Most ops one run may execute, so a `repeat` cannot hang the page.
pub const MAX_EXECUTED_OPS: u64 = 2_000_000;

#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub target: Target,
    /// Usable bytes of the fixed chunk.
    pub capacity: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            target: Target::W64,
            capacity: DEFAULT_CAPACITY,
        }
    }
}

/// Parses and runs `src` on `preset`.
pub fn run(src: &str, preset: PresetId, opts: &Options) -> Result<Trace, ProgramError> {
    let program = parse(src)?;
    if opts.capacity == 0 || opts.capacity > MAX_CAPACITY || opts.capacity % 16 != 0 {
        return Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            format!(
                "chunk capacity {} is not allowed: use a multiple of 16 from 16 to {MAX_CAPACITY}",
                opts.capacity
            ),
        ));
    }
    match opts.target {
        Target::W64 => Engine::<u64>::new(preset, opts).run(&program),
        Target::Wasm32 => Engine::<u32>::new(preset, opts).run(&program),
    }
}

/// The seed algorithms, each over one fixed chunk.
enum Bumper<W> {
    Down(BumpDown<W>),
    UpNaive(BumpUpNaive<W>),
    Up(BumpUp<W>),
}

impl<W: Word> Bumper<W> {
    fn new(preset: PresetId, start: W, end: W) -> Self {
        match preset {
            PresetId::FitzgenDown => Bumper::Down(BumpDown { start, ptr: end }),
            PresetId::HinckleyUpNaive => Bumper::UpNaive(BumpUpNaive { ptr: start, end }),
            PresetId::HinckleyUp => Bumper::Up(BumpUp { ptr: start, end }),
        }
    }

    fn alloc(&mut self, size: W, align: W, rec: &mut Recorder) -> Option<W> {
        match self {
            Bumper::Down(b) => b.alloc(size, align, rec),
            Bumper::UpNaive(b) => b.alloc(size, align, rec),
            Bumper::Up(b) => b.alloc(size, align, rec),
        }
    }

    fn ptr(&self) -> W {
        match self {
            Bumper::Down(b) => b.ptr,
            Bumper::UpNaive(b) => b.ptr,
            Bumper::Up(b) => b.ptr,
        }
    }

    fn set_ptr(&mut self, ptr: W) {
        match self {
            Bumper::Down(b) => b.ptr = ptr,
            Bumper::UpNaive(b) => b.ptr = ptr,
            Bumper::Up(b) => b.ptr = ptr,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum BlockState {
    Live,
    /// Freed by the program; the bytes stay until a reset or restore.
    Freed,
    /// Left behind by a realloc that moved.
    Leaked,
    /// Its bytes are free space again.
    Reclaimed,
}

struct Block {
    op: u32,
    size: u64,
    align: u64,
    padding: u64,
    state: BlockState,
    /// Where the op that ended it (free, moving realloc) stands, for errors.
    ended_at: Option<Pos>,
}

struct Engine<W> {
    preset: PresetId,
    target: Target,
    direction: Direction,
    bumper: Bumper<W>,
    chunk: ChunkInfo,
    blocks: Vec<Block>,
    /// Blocks whose bytes are in use, in placement order.
    occupying: Vec<usize>,
    names: HashMap<String, usize>,
    checkpoints: HashMap<String, (W, usize)>,
    ops: Vec<Op>,
    stats: Stats,
}

impl<W: Word> Engine<W> {
    fn new(preset: PresetId, opts: &Options) -> Self {
        let start = HEAP_BASE;
        let end = start + opts.capacity;
        let w = |v: u64| W::from_u64(v).expect("the heap lies below 4 GiB");
        Engine {
            preset,
            target: opts.target,
            direction: preset.direction(),
            bumper: Bumper::new(preset, w(start), w(end)),
            chunk: ChunkInfo {
                id: 0,
                start,
                capacity: opts.capacity,
                header: 0,
                footer: 0,
                created_by: 0,
            },
            blocks: Vec::new(),
            occupying: Vec::new(),
            names: HashMap::new(),
            checkpoints: HashMap::new(),
            ops: Vec::new(),
            stats: Stats {
                unused: opts.capacity,
                chunks: 1,
                ..Stats::default()
            },
        }
    }

    fn run(mut self, program: &[Stmt]) -> Result<Trace, ProgramError> {
        check_op_count(program)?;
        self.exec_all(program)?;
        Ok(Trace {
            version: TRACE_VERSION,
            allocator: self.preset.name(),
            target: self.target,
            direction: self.direction,
            algorithm: self.preset.algorithm(),
            source_path: self.preset.algorithm().source_path(),
            chunks: vec![self.chunk],
            ops: self.ops,
        })
    }

    fn exec_all(&mut self, stmts: &[Stmt]) -> Result<(), ProgramError> {
        for s in stmts {
            if let StmtKind::Repeat { count, body } = &s.kind {
                for _ in 0..*count {
                    self.exec_all(body)?;
                }
            } else {
                self.exec(s)?;
            }
        }
        Ok(())
    }

    fn word(&self, v: u64, pos: Pos, what: &str) -> Result<W, ProgramError> {
        W::from_u64(v).ok_or_else(|| {
            ProgramError::at(
                pos,
                format!("{what} {v:#x} does not fit a {}-bit usize", W::BITS),
            )
        })
    }

    fn block_of(&self, name: &str, pos: Pos, verb: &str) -> Result<usize, ProgramError> {
        let Some(&b) = self.names.get(name) else {
            return Err(ProgramError::at(
                pos,
                format!("unknown block '{name}': no earlier line allocates it"),
            ));
        };
        let block = &self.blocks[b];
        if block.state != BlockState::Live {
            let how = match block.state {
                BlockState::Freed => "was freed",
                BlockState::Leaked => "was moved by a realloc (use the new name)",
                _ => "was reclaimed by a reset or restore",
            };
            let at = block
                .ended_at
                .map(|p| format!(" at {}:{}", p.line, p.column))
                .unwrap_or_default();
            return Err(ProgramError::at(
                pos,
                format!("cannot {verb} '{name}': it {how}{at}"),
            ));
        }
        Ok(b)
    }

    fn new_op(&self, kind: OpKind, pos: Pos, block: Option<String>) -> Op {
        Op {
            index: self.ops.len() as u32,
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
            bump_ptr: 0,
            events: Vec::new(),
            stats: Stats::default(),
        }
    }

    fn exec(&mut self, s: &Stmt) -> Result<(), ProgramError> {
        let mut op = match &s.kind {
            StmtKind::Alloc { name, size, align } => {
                let usize_bytes = self.target.usize_bytes();
                let (bytes, natural) = match *size {
                    SizeExpr::Bytes(n) => (n, 1),
                    SizeExpr::Type(p) => (p.size(usize_bytes), p.size(usize_bytes)),
                    SizeExpr::Array(p, n) => {
                        let bytes = p.size(usize_bytes).checked_mul(n).ok_or_else(|| {
                            ProgramError::at(
                                s.pos,
                                format!("[{p:?}; {n}] overflows a 64-bit size").to_lowercase(),
                            )
                        })?;
                        (bytes, p.size(usize_bytes))
                    }
                };
                let (align, apos) = align.unwrap_or((natural, s.pos));
                check_align(align, apos)?;
                self.check_layout(bytes, align, s.pos)?;
                let mut op = self.new_op(OpKind::Alloc, s.pos, Some(name.clone()));
                self.place(&mut op, bytes, align, s.pos)?;
                if let Some(b) = self.blocks.len().checked_sub(1).filter(|_| !op.failed) {
                    self.names.insert(name.clone(), b);
                } else {
                    self.names.remove(name);
                }
                op
            }
            StmtKind::Realloc { name, block, size } => {
                let old = self.block_of(block, s.pos, "realloc")?;
                let (old_op, old_size, align) = {
                    let b = &self.blocks[old];
                    (b.op, b.size, b.align)
                };
                self.check_layout(*size, align, s.pos)?;
                let mut op = self.new_op(OpKind::Realloc, s.pos, Some(name.clone()));
                op.target_op = Some(old_op);
                // The reference algorithms define no realloc of their own:
                // a realloc allocates anew and copies, as a plain allocator must.
                self.place(&mut op, *size, align, s.pos)?;
                if op.failed {
                    self.names.remove(name);
                } else {
                    let copied = old_size.min(*size);
                    let b = &mut self.blocks[old];
                    b.state = BlockState::Leaked;
                    b.ended_at = Some(s.pos);
                    self.stats.requested -= old_size;
                    self.stats.leaked += old_size;
                    self.stats.copied += copied;
                    op.moved = Some(true);
                    op.events.push(Event {
                        kind: EventKind::Moved,
                        text: format!("moved: these algorithms have no in-place realloc, so the block is allocated anew and {copied} bytes are copied"),
                        steps: Vec::new(),
                    });
                    op.events.push(Event {
                        kind: EventKind::Leaked,
                        text: format!("the old {old_size} bytes stay behind until a reset"),
                        steps: Vec::new(),
                    });
                    if name != block {
                        self.names.remove(block);
                    }
                    self.names.insert(name.clone(), self.blocks.len() - 1);
                }
                op
            }
            StmtKind::Free { block } => {
                let b = self.block_of(block, s.pos, "free")?;
                let mut op = self.new_op(OpKind::Free, s.pos, Some(block.clone()));
                let blk = &mut self.blocks[b];
                blk.state = BlockState::Freed;
                blk.ended_at = Some(s.pos);
                op.target_op = Some(blk.op);
                let size = blk.size;
                self.stats.requested -= size;
                self.stats.leaked += size;
                op.events.push(Event {
                    kind: EventKind::NotReclaimed,
                    text: format!("freed, but a plain bump allocator cannot reuse these {size} bytes until a reset"),
                    steps: Vec::new(),
                });
                op
            }
            StmtKind::Reset => {
                let mut op = self.new_op(OpKind::Reset, s.pos, None);
                let start = self.rewind_ptr();
                self.rewind_to(start, 0, &mut op);
                op.events.push(Event {
                    kind: EventKind::Reset,
                    text: "reset: the bump pointer goes back to the chunk's edge and every block is reclaimed".into(),
                    steps: Vec::new(),
                });
                op
            }
            StmtKind::Checkpoint { name } => {
                let mut op = self.new_op(OpKind::Checkpoint, s.pos, Some(name.clone()));
                self.checkpoints
                    .insert(name.clone(), (self.bumper.ptr(), self.occupying.len()));
                op.events.push(Event {
                    kind: EventKind::Checkpoint,
                    text: format!(
                        "checkpoint '{name}' saves the bump pointer {:#x}",
                        self.bumper.ptr().to_u64()
                    ),
                    steps: Vec::new(),
                });
                op
            }
            StmtKind::Restore { name } => {
                let Some(&(ptr, depth)) = self.checkpoints.get(name) else {
                    return Err(ProgramError::at(
                        s.pos,
                        format!(
                            "unknown checkpoint '{name}': save it first with `checkpoint {name}`"
                        ),
                    ));
                };
                let mut op = self.new_op(OpKind::Restore, s.pos, Some(name.clone()));
                self.rewind_to(ptr, depth, &mut op);
                // Checkpoints saved after this one point past the restored pointer.
                let kept = self.occupying.len();
                self.checkpoints.retain(|_, (_, d)| *d <= kept);
                op.events.push(Event {
                    kind: EventKind::Restored,
                    text: format!(
                        "restored '{name}': the bump pointer is back at {:#x}",
                        ptr.to_u64()
                    ),
                    steps: Vec::new(),
                });
                op
            }
            StmtKind::Repeat { .. } => unreachable!("exec_all expands repeats"),
        };
        op.bump_ptr = self.bumper.ptr().to_u64();
        op.stats = self.snapshot_stats();
        self.ops.push(op);
        Ok(())
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

    /// Runs the algorithm and records the block, or marks the op failed.
    fn place(&mut self, op: &mut Op, size: u64, align: u64, pos: Pos) -> Result<(), ProgramError> {
        let before = self.bumper.ptr().to_u64();
        let mut rec = Recorder::default();
        let got = self.bumper.alloc(
            self.word(size, pos, "size")?,
            self.word(align, pos, "alignment")?,
            &mut rec,
        );
        let source = self.preset.algorithm().source();
        let steps = rec
            .steps
            .iter()
            .map(|m| StepOut {
                id: m.step,
                label: m.step.label(),
                line: line_of(source, m.step.marker()).unwrap_or(0),
                values: m
                    .values
                    .iter()
                    .map(|&(name, value)| NamedValue { name, value })
                    .collect(),
            })
            .collect();
        op.size = Some(size);
        op.align = Some(align);
        let Some(addr) = got else {
            op.failed = true;
            op.events.push(Event {
                kind: EventKind::OutOfMemory,
                text: format!(
                    "{size} bytes (align {align}) do not fit in the {} bytes left: this fixed chunk is full",
                    self.room()
                ),
                steps,
            });
            return Ok(());
        };
        let address = addr.to_u64();
        let padding = match self.direction {
            Direction::Up => address - before,
            Direction::Down => before - (address + size),
        };
        op.chunk = Some(0);
        op.address = Some(address);
        op.offset = Some(address - self.chunk.start);
        op.padding = Some(padding);
        op.events.push(Event {
            kind: EventKind::Bump,
            text: format!("{size} bytes at {address:#x}"),
            steps,
        });
        if padding > 0 {
            op.events.push(Event {
                kind: EventKind::Padding,
                text: format!("{padding} bytes of padding to reach a multiple of {align}"),
                steps: Vec::new(),
            });
        }
        self.blocks.push(Block {
            op: op.index,
            size,
            align,
            padding,
            state: BlockState::Live,
            ended_at: None,
        });
        self.occupying.push(self.blocks.len() - 1);
        self.stats.requested += size;
        self.stats.padding += padding;
        Ok(())
    }

    fn room(&self) -> u64 {
        let ptr = self.bumper.ptr().to_u64();
        match self.direction {
            Direction::Up => self.chunk.start + self.chunk.capacity - ptr,
            Direction::Down => ptr - self.chunk.start,
        }
    }

    /// The bump pointer of an empty chunk.
    fn rewind_ptr(&self) -> W {
        let edge = match self.direction {
            Direction::Up => self.chunk.start,
            Direction::Down => self.chunk.start + self.chunk.capacity,
        };
        W::from_u64(edge).expect("the heap lies below 4 GiB")
    }

    /// Moves the bump pointer back to `ptr` and reclaims every block placed
    /// after the first `keep` occupying ones.
    fn rewind_to(&mut self, ptr: W, keep: usize, op: &mut Op) {
        self.bumper.set_ptr(ptr);
        for b in self.occupying.drain(keep..) {
            let blk = &mut self.blocks[b];
            match blk.state {
                BlockState::Live => self.stats.requested -= blk.size,
                BlockState::Freed | BlockState::Leaked => self.stats.leaked -= blk.size,
                BlockState::Reclaimed => {}
            }
            self.stats.padding -= blk.padding;
            blk.state = BlockState::Reclaimed;
            op.reclaimed.push(blk.op);
        }
        if !op.reclaimed.is_empty() {
            op.events.push(Event {
                kind: EventKind::Reclaimed,
                text: format!("{} blocks reclaimed", op.reclaimed.len()),
                steps: Vec::new(),
            });
        }
    }

    fn snapshot_stats(&self) -> Stats {
        let used = self.chunk.capacity - self.room();
        let total = self.chunk.capacity + self.chunk.header + self.chunk.footer;
        Stats {
            used,
            unused: self.chunk.capacity - used,
            metadata: self.chunk.header + self.chunk.footer,
            chunks: 1,
            utilisation: self.stats.requested as f64 / total as f64,
            ..self.stats
        }
    }
}

/// Ops a statement list executes, saturating.
fn op_count(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |n, s| {
        n.saturating_add(match &s.kind {
            StmtKind::Repeat { count, body } => count.saturating_mul(op_count(body)),
            _ => 1,
        })
    })
}

/// Refuses, before running anything, a program that would execute more than
/// [`MAX_EXECUTED_OPS`], naming the statement where the total crosses it.
fn check_op_count(stmts: &[Stmt]) -> Result<(), ProgramError> {
    let mut total = 0u64;
    for s in stmts {
        total = total.saturating_add(op_count(core::slice::from_ref(s)));
        if total > MAX_EXECUTED_OPS {
            let inner = match &s.kind {
                StmtKind::Repeat { body, .. } if op_count(body) > MAX_EXECUTED_OPS => {
                    return check_op_count(body).and(Err(ProgramError::at(s.pos, over_cap())));
                }
                _ => s.pos,
            };
            return Err(ProgramError::at(inner, over_cap()));
        }
    }
    Ok(())
}

fn over_cap() -> String {
    format!("the program would execute more than {MAX_EXECUTED_OPS} ops: lower a repeat count")
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
