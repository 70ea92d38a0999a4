//! The trace: what running a program did, op by op. Serialised as the
//! versioned JSON format documented in `docs/trace-format.md`.

use crate::algorithms::Direction;
use crate::events::ChunkReason;
use crate::model::Child;
use crate::program::{Prim, SizeExpr};
use crate::source::Source;
use crate::word::Target;
use serde::Serialize;

/// Bumped when the JSON format changes incompatibly.
pub const TRACE_VERSION: u32 = 1;

#[derive(Clone, Debug, Serialize)]
pub struct Trace {
    pub version: u32,
    pub allocator: &'static str,
    pub target: Target,
    pub direction: Direction,
    /// The file that does the bumping, shown first in the code view.
    pub source: Source,
    /// Its path from the repository root.
    pub source_path: &'static str,
    /// What ran: the program and the preset's settings. A reader that has
    /// the engine replays this rather than trusting the ops below, so a
    /// trace file shows exactly what the allocator does (an imported file
    /// whose ops differ from the replay is refused).
    pub program: ProgramInfo,
    pub chunks: Vec<ChunkInfo>,
    pub ops: Vec<Op>,
    /// The same ops replayed on the real crate the preset models (bumpalo,
    /// bump-scope), filled in by the wasm module; absent for other presets.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub real: Option<RealRun>,
    /// The same allocation sizes on a general-purpose allocator, filled in
    /// by the metered wasm module; absent elsewhere.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Baseline>,
}

/// The program a trace ran and the settings it ran with (`None`: the
/// preset's default).
#[derive(Clone, Debug, Serialize)]
pub struct ProgramInfo {
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_align: Option<u64>,
    /// The child allocator, for a preset that takes one (written even when
    /// it is the preset's default).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child: Option<Child>,
}

/// One chunk obtained from the simulated base allocator.
#[derive(Clone, Debug, Serialize)]
pub struct ChunkInfo {
    pub id: u32,
    /// Address the base allocator returned.
    pub base: u64,
    /// Bytes obtained from the base allocator (metadata included).
    pub size: u64,
    /// Address of the first usable byte.
    pub start: u64,
    /// Usable bytes (metadata excluded).
    pub capacity: u64,
    /// Bytes of header before `start`.
    pub header: u64,
    /// Bytes of footer after `start + capacity`.
    pub footer: u64,
    pub reason: ChunkReason,
    /// Bytes the request that needed the chunk asked for.
    pub requested: u64,
    /// Index of the op that created it; absent for chunks the constructor made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub created_by: Option<u32>,
    /// Index of the op that returned it to the base allocator.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub freed_by: Option<u32>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum OpKind {
    Alloc,
    Realloc,
    Free,
    Reset,
    Checkpoint,
    Restore,
}

/// One executed operation (repeat loops expanded).
#[derive(Clone, Debug, Serialize)]
pub struct Op {
    pub index: u32,
    pub kind: OpKind,
    /// The block the op names (`a` in `a = alloc 8`, `free a`); checkpoint name for checkpoint/restore.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    pub line: u32,
    pub column: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u32>,
    /// Bytes from the chunk's first usable byte to the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub address: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub align: Option<u64>,
    /// Alignment padding bytes skipped to place this block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub padding: Option<u64>,
    /// What the compiler of a Rust caller knows of the op's layout (alloc,
    /// realloc and free): the op is measured with exactly that known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shape: Option<Shape>,
    /// For realloc: whether the block moved to a new address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<bool>,
    /// The allocation did not fit (the fixed chunk is full).
    pub failed: bool,
    /// For free and realloc: index of the op that placed the block acted on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_op: Option<u32>,
    /// Ops whose blocks' bytes this op returned to free space.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reclaimed: Vec<u32>,
    /// The current chunk's bump pointer after the op (absent before the first chunk).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bump_ptr: Option<u64>,
    pub events: Vec<Event>,
    pub stats: Stats,
    /// What the op's compiled code executed, when the trace comes from the
    /// metered wasm module (absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

/// How Rust code makes a request, by what its compiler knows of the
/// `Layout`, as bump-scope's benchmark tables sort their cases
/// (`alloc_u32`, `alloc_u32_slice`, `allocate`). A constant layout lets the
/// optimiser decide an allocator's alignment tests and roundings at compile
/// time: "Bump Allocation: Up or Down?" counts a minimum alignment's saving
/// on exactly that, so an op's cost is measured with the same knowledge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind", content = "type")]
pub enum Shape {
    /// `alloc u64`, or freeing such a block: size and alignment are the
    /// type's, both constants (`bump.alloc(value)`,
    /// `Layout::new::<u64>()`, a `Box<u64>` dropped).
    Typed(Prim),
    /// `alloc [u32; N]`, or resizing or freeing a typed or array block: the
    /// alignment is the element's constant, the size is known at run time
    /// (`alloc_slice_copy`, `Layout::array::<u32>(n)`, a `Vec<u32>` growing).
    Array(Prim),
    /// `alloc 24 align 8`: size and alignment known only at run time
    /// (`alloc_layout(layout)` with a layout built from values).
    Layout,
}

impl Shape {
    /// The shape of a request written as `size` with an explicit `align`
    /// or none: a type or array at its natural alignment keeps what the
    /// compiler knows of it; any other alignment is no Rust type's layout,
    /// so it is a run-time layout.
    pub fn of_request(size: SizeExpr, explicit_align: Option<u64>, usize_bytes: u64) -> Shape {
        let natural = |p: Prim| explicit_align.is_none_or(|a| a == p.size(usize_bytes));
        match size {
            SizeExpr::Type(p) if natural(p) => Shape::Typed(p),
            SizeExpr::Array(p, _) if natural(p) => Shape::Array(p),
            _ => Shape::Layout,
        }
    }

    /// The shape of resizing a block of this shape: its new size comes at run
    /// time, its alignment stays what the compiler knew.
    pub fn resized(self) -> Shape {
        match self {
            Shape::Typed(p) | Shape::Array(p) => Shape::Array(p),
            Shape::Layout => Shape::Layout,
        }
    }

    /// The alignment the compiler knows, if any.
    pub fn known_align(self, usize_bytes: u64) -> Option<u64> {
        match self {
            Shape::Typed(p) | Shape::Array(p) => Some(p.size(usize_bytes)),
            Shape::Layout => None,
        }
    }

    /// The size the compiler knows, if any.
    pub fn known_size(self, usize_bytes: u64) -> Option<u64> {
        match self {
            Shape::Typed(p) => Some(p.size(usize_bytes)),
            Shape::Array(_) | Shape::Layout => None,
        }
    }
}

/// Executed wasm instructions and conditional branches of one op, counted by
/// bumplab-meter on the final module. The slow part (a new chunk, a move
/// through the allocator's cold path) is included in the totals and also
/// reported on its own.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Cost {
    pub wasm_instructions: u64,
    pub wasm_branches: u64,
    pub slow_instructions: u64,
    pub slow_branches: u64,
}

/// A trace's ops replayed on the real crate (docs/trace-format.md, "Real").
/// Either `ops` and `mismatches`, or `unavailable`.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct RealRun {
    /// The crate and its version, e.g. `"bumpalo 3.20.4"`.
    #[serde(rename = "crate")]
    pub krate: String,
    /// Why the program was not run on the real crate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// One entry per trace op, in the same order.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ops: Option<Vec<RealOp>>,
    /// Where the model's placement differs from the real crate's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mismatches: Option<Vec<Mismatch>>,
}

impl RealRun {
    pub fn unavailable(krate: &str, why: String) -> Self {
        RealRun {
            krate: krate.to_string(),
            unavailable: Some(why),
            ops: None,
            mismatches: None,
        }
    }
}

/// What one op did on the real crate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct RealOp {
    /// What the crate's code executed (cost module only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
    /// The block's chunk, numbered in creation order from 0.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u32>,
    /// That chunk's usable bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk_capacity: Option<u64>,
    /// Bytes from the chunk's first usable byte to the block.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub offset: Option<u64>,
    /// Realloc only: whether the block got a new address.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moved: Option<bool>,
    /// Why the op did not run on the real crate, or what to keep in mind.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// One field of one op where the model and the real crate disagree.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    pub op: u32,
    /// `"chunk"`, `"chunk_capacity"`, `"offset"`, `"aligned"` or `"moved"`.
    pub field: &'static str,
    pub model: serde_json::Value,
    pub real: serde_json::Value,
}

/// The trace's allocation sizes on a general-purpose allocator, for scale
/// (docs/trace-format.md, "Baseline").
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Baseline {
    /// Which allocator, e.g. `"Rust's global allocator (dlmalloc, wasm32)"`.
    pub allocator: String,
    /// Why no costs were measured (then every op's `cost` is absent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unavailable: Option<String>,
    /// One entry per trace op, in the same order.
    pub ops: Vec<BaselineOp>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct BaselineOp {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost: Option<Cost>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EventKind {
    /// A capacity check passed and the bump pointer moved; micro-steps attached.
    Bump,
    /// A capacity check failed; micro-steps attached.
    NoRoom,
    /// Other recorded micro-steps (a reset, a copy).
    Steps,
    NewChunk,
    ChunkFreed,
    ChunkReused,
    Copied,
    /// A behaviour of the reference worth pointing out.
    Note,
    Padding,
    /// Where the block landed.
    Placed,
    GrewInPlace,
    ShrankInPlace,
    Moved,
    /// Bytes left behind by a move.
    Leaked,
    /// Freed and reclaimed (it was the last block).
    Freed,
    /// Freed but not reclaimed.
    NotReclaimed,
    Reclaimed,
    OutOfMemory,
    Checkpoint,
    Restored,
    Reset,
}

#[derive(Clone, Debug, Serialize)]
pub struct Event {
    pub kind: EventKind,
    /// One plain sentence.
    pub text: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub steps: Vec<StepOut>,
}

impl Event {
    pub fn new(kind: EventKind, text: String) -> Self {
        Event {
            kind,
            text,
            steps: Vec::new(),
        }
    }
}

/// A micro-step as it appears in the trace.
#[derive(Clone, Debug, Serialize)]
pub struct StepOut {
    /// `marker` or `marker:outcome`, unique within its file.
    pub id: String,
    #[serde(skip)]
    pub marker: &'static str,
    #[serde(skip)]
    pub outcome: &'static str,
    pub label: &'static str,
    /// The file the step's code is in.
    pub file: Source,
    /// 1-based line in that file.
    pub line: u32,
    pub values: Vec<NamedValue>,
}

#[derive(Clone, Debug, Serialize)]
pub struct NamedValue {
    pub name: &'static str,
    pub value: u64,
}

/// Running totals after an op. Byte counts unless noted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct Stats {
    /// Bytes requested by live blocks.
    pub requested: u64,
    /// Bytes between each chunk's start and its bump pointer (blocks, padding, dead blocks).
    pub used: u64,
    /// Alignment padding in the used region.
    pub padding: u64,
    /// Header and footer bytes of all chunks.
    pub metadata: u64,
    /// Bytes of blocks left behind by moves (or freed without being reclaimed).
    pub leaked: u64,
    /// Bytes copied by moves, cumulative.
    pub copied: u64,
    /// Free bytes left in all chunks.
    pub unused: u64,
    pub chunks: u32,
    /// requested / (capacity + metadata), 0..1.
    pub utilisation: f64,
}

/// Adds an event to an op, building its text only when details are kept.
pub(crate) fn note(
    detail: bool,
    events: &mut Vec<Event>,
    kind: EventKind,
    text: impl FnOnce() -> String,
) {
    if detail {
        events.push(Event::new(kind, text()));
    }
}
