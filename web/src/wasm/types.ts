// TypeScript mirror of the trace format (crates/core/src/trace.rs, version 1;
// docs/trace-format.md). Optional Rust fields (`skip_serializing_if`) are
// optional here; numbers are JSON numbers (addresses stay far below 2^53).
// The engine's adapters (traceModule.ts, costModule.ts) read its JSON into these shapes.

export const TRACE_VERSION = 1;

export type Direction = "up" | "down";
export type Target = "64" | "wasm32";
/** A source file the engine embeds ("bump-down", "bump-up", "fixed", …). */
export type SourceName = string;

export type OpKind = "alloc" | "realloc" | "free" | "reset" | "checkpoint" | "restore";

export type KnownEventKind =
  | "bump"
  | "no_room"
  | "steps"
  | "new_chunk"
  | "chunk_freed"
  | "chunk_reused"
  | "copied"
  | "note"
  | "padding"
  | "placed"
  | "grew_in_place"
  | "shrank_in_place"
  | "moved"
  | "leaked"
  | "freed"
  | "not_reclaimed"
  | "reclaimed"
  | "out_of_memory"
  | "checkpoint"
  | "restored"
  | "reset";
/** Known kinds, open to kinds a newer engine adds. */
export type EventKind = KnownEventKind | (string & {});

export interface ChunkInfo {
  id: number;
  /** Address the base allocator returned. */
  base?: number;
  /** Bytes obtained from the base allocator (metadata included). */
  size?: number;
  /** Address of the first usable byte. */
  start: number;
  /** Usable bytes (metadata excluded). */
  capacity: number;
  header: number;
  footer: number;
  /** Why it was made ("first", "full", …). */
  reason?: string;
  requested?: number;
  /** Index of the op that created it; absent when the constructor did. */
  created_by?: number;
  /** Index of the op that returned it to the base allocator. */
  freed_by?: number;
}

export interface NamedValue {
  name: string;
  value: number;
}

export interface StepOut {
  id: string;
  label: string;
  /** The source file the step's code is in (absent: the trace's `source`). */
  file?: SourceName;
  /** 1-based line in that file. */
  line: number;
  values: NamedValue[];
}

export interface TraceEvent {
  kind: EventKind;
  text: string;
  steps?: StepOut[];
}

export interface Stats {
  requested: number;
  used: number;
  padding: number;
  metadata: number;
  leaked: number;
  copied: number;
  unused: number;
  chunks: number;
  /** requested / (capacity + metadata), 0..1. */
  utilisation: number;
}

/** A primitive type of the program language. */
export type Prim = "u8" | "u16" | "u32" | "u64" | "u128" | "usize";

/**
 * What a Rust caller's compiler knows of an op's layout, which the op's cost
 * is measured with (docs/trace-format.md, "Shape"): a type's constant layout
 * (`alloc u64`, a typed block freed), an element's constant alignment with a
 * run-time size (`alloc [u32; N]`, a typed or array block resized or an array
 * freed), or both at run time (`alloc 24 align 8`).
 */
export type Shape = { kind: "typed"; type: Prim } | { kind: "array"; type: Prim } | { kind: "layout" };

export interface Op {
  index: number;
  kind: OpKind;
  /** Block name (alloc/realloc/free) or checkpoint name (checkpoint/restore). */
  block?: string;
  line: number;
  column: number;
  chunk?: number;
  offset?: number;
  address?: number;
  size?: number;
  align?: number;
  padding?: number;
  /** Alloc, realloc and free: what the compiler of a Rust caller knows of the layout. */
  shape?: Shape;
  moved?: boolean;
  failed: boolean;
  /** For free and realloc: index of the op that placed the block acted on. */
  target_op?: number;
  /** Ops whose blocks' bytes this op returned to free space. */
  reclaimed?: number[];
  /** The current chunk's bump pointer after the op (absent before the first chunk). */
  bump_ptr?: number;
  events: TraceEvent[];
  stats: Stats;
  /** What the op's compiled code executed (present when traced by the metered module). */
  cost?: Cost;
}

/**
 * Executed wasm instructions and conditional branches of one op, counted on
 * the compiled module (docs/trace-format.md, "Cost"). The slow part (a new
 * chunk, a slab, a pool) is included in the totals and also given alone.
 */
export interface Cost {
  /** 1 per executed instruction; block/loop/else/end/nop count 0. */
  wasm_instructions: number;
  /** Executed if/br_if/br_table, taken or not. */
  wasm_branches: number;
  slow_instructions: number;
  slow_branches: number;
}

/** What the real crate, compiled to wasm32, did for one trace op. */
export interface RealOp {
  cost?: Cost;
  chunk?: number;
  chunk_capacity?: number;
  offset?: number;
  moved?: boolean;
  /** Why the op did not run on the real crate, or what to keep in mind. */
  note?: string;
}

/** A field where the model and the real crate disagree for one op. */
export interface RealMismatch {
  /** Index of the trace op. */
  op: number;
  /** The field compared: "chunk", "chunk_capacity", "offset", "aligned" or "moved". */
  field: string;
  model: unknown;
  real: unknown;
}

/**
 * The same program run on the real crate (bumpalo, bump-scope) compiled to
 * wasm32: one entry per trace op, and where the model differs. Or why it
 * could not run (docs/trace-format.md, "Real").
 */
export type RealRun =
  | { crate: string; version?: string; ops: RealOp[]; mismatches?: RealMismatch[] }
  | { crate: string; version?: string; unavailable: string };

/** The same program on a general-purpose allocator (one entry per trace op). */
export interface Baseline {
  /** e.g. "Rust's global allocator (dlmalloc, wasm32)". */
  allocator: string;
  /** Why nothing was measured (every `cost` is then absent). */
  unavailable?: string;
  ops: { cost?: Cost }[];
}

export interface Trace {
  version: number;
  allocator: string;
  target: Target;
  direction: Direction;
  /** The file that does the bumping, shown in the code view. */
  source: SourceName;
  /** Its path from the repository root. */
  source_path: string;
  /** What ran: the program and the preset's settings (absent: the preset's default). */
  program: { text: string; capacity?: number; min_align?: number };
  chunks: ChunkInfo[];
  ops: Op[];
  /** wasm32 traces of bumpalo/bump-scope: the real crate's run alongside the model. */
  real?: RealRun;
  /** The same ops on the global allocator, for scale. */
  baseline?: Baseline;
}

export interface ProgramError {
  line: number;
  column: number;
  message: string;
  /** The program's other errors, on later lines (one a line), when it has more than one. */
  more?: ProgramError[];
}

export type TraceResult = { ok: true; trace: Trace } | { ok: false; error: ProgramError };

export interface AllocatorInfo {
  name: string;
  direction: Direction;
  source: SourceName;
  description: string;
  /** Minimum alignments the preset accepts, its default first; empty: no such setting. */
  minAligns: readonly number[];
  /** Child allocators the preset can run over, its default first; empty: no such setting. */
  children: readonly string[];
  /** Which build of the trace module runs it (bumplab_core::presets::Family). */
  family: "core" | "more-arenas";
  /** The allocator chooser's group, and the place in it. */
  group: string;
  menuRank: number;
  /** What the capacity setting sets (bumplab_core::presets::Capacity). */
  capacity: CapacityMeaning;
  /** Where a chunk's bookkeeping sits, as the real code names it. */
  chunkRecord: ChunkRecord;
  /** The preset run beside this one in the one-click comparison, and what the pair teaches. */
  counterpart: { allocator: string; why: string };
  /** The real code the model reproduces. */
  real: string;
}

/** Where a chunk's bookkeeping sits: at its start, at its end, in a list outside the chunks, or nowhere. */
export type ChunkRecord = "none" | "header" | "footer" | "outside";

/** What a preset's capacity setting sets: a size to bump through, or a limit on what a reset keeps. */
export interface CapacityMeaning {
  kind: "size" | "retain-limit";
  /** In a few words ("chunk size"). */
  means: string;
  /** The Capacity knob's help, naming the default. */
  help: string;
  /** The model's default, where it is one number. */
  default: number | null;
}
