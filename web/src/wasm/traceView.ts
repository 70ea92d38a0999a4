// What views read of a run: the trace module's seven u32 columns per op (28
// bytes an op), the statements, the chunks, stats samples, and any op's full
// detail on demand, asked of the run (`fromRun`). The only representation of
// a run on the page: the map, the stepper, compare columns, sweeps and the
// unit tests all read this, from the same module. The cost module's numbers
// are added by `withCosts`, indexed by op.
//
// A block is identified by the index of the op that placed it. After step k
// (ops 0..k-1 ran) the block placed by op i is drawn when i < k and
// gone_at[i] >= k; it is live when dead_at[i] >= k, else "freed" when op
// dead_at[i] is a free and "leaked" when it is a realloc that moved it.

import type { Baseline, ChunkInfo, Cost, Direction, Op, OpKind, ProgramError, RealRun, Shape, SourceName, Stats, Target } from "./types";

/** "None" in the u32 columns (no chunk, never freed, never reclaimed). */
export const NONE = 0xffffffff;

/** Op kinds by their code in `meta` bits 0-2. */
export const KINDS: readonly OpKind[] = ["alloc", "realloc", "free", "reset", "checkpoint", "restore"];

export const META_KIND = 0x7;
export const META_FAILED = 1 << 3;
export const META_MOVED = 1 << 4;
export const META_PLACED = 1 << 5;
export const META_ALIGN_SHIFT = 6;
export const META_STMT_SHIFT = 10;
/** A repeat's kind in the run's statement kinds (no op has it). */
export const STMT_REPEAT = 7;
/**
 * The layout above as the trace module exports it (`columnLayout`): the
 * adapter refuses a module that packs its columns differently.
 */
export const COLUMN_LAYOUT: readonly number[] = [META_KIND, META_FAILED, META_MOVED, META_PLACED, META_ALIGN_SHIFT, META_STMT_SHIFT, NONE, STMT_REPEAT];

/** One statement of the program: an op's `meta` holds its index. */
export interface StmtInfo {
  line: number;
  column: number;
  kind: OpKind | "repeat";
  block?: string;
}

/**
 * The program's statements, repeats included, by index. A recording's
 * million are read from the run as four typed arrays, not made objects.
 */
export interface StmtTable {
  readonly length: number;
  /** Statement i, or undefined past the end. */
  at(i: number): StmtInfo | undefined;
  /** Statement i's line (0 past the end). */
  line(i: number): number;
  /** The block or checkpoint name statement i names, if any. */
  block(i: number): string | undefined;
}

/** A table over a list of statements (tests, synthetic traces). */
export function stmtTable(list: readonly StmtInfo[]): StmtTable {
  return {
    length: list.length,
    at: (i) => list[i],
    line: (i) => list[i]?.line ?? 0,
    block: (i) => list[i]?.block,
  };
}

/**
 * The table from the run's statement columns: lines, columns, and
 * `kind | (name + 1) << 3` with `names` one a line.
 */
export function stmtColumns(lines: Uint32Array, columns: Uint32Array, kinds: Uint32Array, names: readonly string[]): StmtTable {
  const block = (i: number): string | undefined => {
    const k = kinds[i];
    if (k === undefined || k >>> 3 === 0) return undefined;
    return names[(k >>> 3) - 1];
  };
  return {
    length: lines.length,
    at(i) {
      const line = lines[i];
      if (line === undefined) return undefined;
      const code = (kinds[i] ?? 0) & META_KIND;
      const kind = code === STMT_REPEAT ? "repeat" : (KINDS[code] ?? "alloc");
      const name = block(i);
      return { line, column: columns[i] ?? 0, kind, ...(name === undefined ? {} : { block: name }) };
    },
    line: (i) => lines[i] ?? 0,
    block,
  };
}

/** A chunk's bytes in use after an op: absolute addresses, [lo, hi). */
export interface ChunkUsed {
  id: number;
  lo: number;
  hi: number;
}

export const COLUMN_NAMES = ["meta", "chunk", "offset", "size", "padding", "dead_at", "gone_at"] as const;
export type ColumnName = (typeof COLUMN_NAMES)[number];
export type OpColumns = Record<ColumnName, Uint32Array>;

export interface TraceView {
  readonly version: number;
  readonly allocator: string;
  readonly target: Target;
  readonly direction: Direction;
  readonly source: SourceName;
  readonly source_path: string;
  readonly chunks: readonly ChunkInfo[];
  readonly stmts: StmtTable;
  /** Executed ops. */
  readonly length: number;
  readonly cols: OpColumns;
  /** Samples are the Stats after ops 0, statsEvery, 2 * statsEvery, … and after the last op. */
  readonly statsEvery: number;
  readonly samples: readonly Stats[];
  /** Full detail of op i (the JSON trace's Op); throws RangeError outside 0..length-1. */
  op(i: number): Op;
  /** For each chunk live after op i: its bytes in use. */
  chunksUsed(i: number): readonly ChunkUsed[];
  /** Costs from the metered module: absent when it did not run (not loaded, or over its cap). */
  readonly costs?: readonly (Cost | undefined)[];
  /** Each op's shape, the layout knowledge its cost was measured with (beside `costs`). */
  readonly shapes?: readonly (Shape | undefined)[];
  readonly real?: RealRun;
  readonly baseline?: Baseline;
  /** Why the view has no costs, when it was asked for them and could not have them. */
  readonly costsUnavailable?: string;
  /** Costs are being measured on the metered module and will replace this view. */
  readonly costsPending?: boolean;
}

/** A traced program as views take it: its view, or its error. */
export type ViewResult = { ok: true; trace: TraceView } | { ok: false; error: ProgramError };

// ---- Accessors --------------------------------------------------------------

/** Op i's full detail, undefined outside 0..length-1 (one op: constant time in either view). */
export function opAt(t: TraceView, i: number): Op | undefined {
  return Number.isInteger(i) && i >= 0 && i < t.length ? t.op(i) : undefined;
}

export const kindCode = (t: TraceView, i: number): number => (t.cols.meta[i] ?? 0) & META_KIND;
export const kindOf = (t: TraceView, i: number): OpKind => KINDS[kindCode(t, i)] ?? "alloc";
export const failed = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_FAILED) !== 0;
export const moved = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_MOVED) !== 0;
/** Whether op i placed a block (it has an address). */
export const placed = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_PLACED) !== 0;
/** The op's alignment (1 when it has none). */
export const alignOf = (t: TraceView, i: number): number => 2 ** (((t.cols.meta[i] ?? 0) >>> META_ALIGN_SHIFT) & 0xf);
export const stmtIndex = (t: TraceView, i: number): number => (t.cols.meta[i] ?? 0) >>> META_STMT_SHIFT;
export const stmtOf = (t: TraceView, i: number): StmtInfo | undefined => t.stmts.at(stmtIndex(t, i));
/** 1-based program line of op i (0 outside the trace). */
export const lineOf = (t: TraceView, i: number): number => (i >= 0 && i < t.length ? t.stmts.line(stmtIndex(t, i)) : 0);
/** The block (or checkpoint) name the op's statement names. */
export const blockNameOf = (t: TraceView, i: number): string | undefined => t.stmts.block(stmtIndex(t, i));
/** Chunk id of the placed block, undefined when none. */
export function chunkOf(t: TraceView, i: number): number | undefined {
  const c = t.cols.chunk[i];
  return c === undefined || c === NONE ? undefined : c;
}
/** Address of the block op i placed, undefined when it placed none. */
export function addressOf(t: TraceView, i: number): number | undefined {
  if (!placed(t, i)) return undefined;
  const offset = t.cols.offset[i] ?? 0;
  const c = chunkOf(t, i);
  if (c === undefined) return offset;
  const chunk = chunkById(t, c);
  return chunk ? chunk.start + offset : offset;
}
export const sizeOf = (t: TraceView, i: number): number => t.cols.size[i] ?? 0;
export const paddingOf = (t: TraceView, i: number): number => t.cols.padding[i] ?? 0;
/** The op that freed or replaced the block op i placed, undefined when none did. */
export function deadAt(t: TraceView, i: number): number | undefined {
  const d = t.cols.dead_at[i];
  return d === undefined || d === NONE ? undefined : d;
}
/** The op that reclaimed the bytes of the block op i placed, undefined when none did. */
export function goneAt(t: TraceView, i: number): number | undefined {
  const g = t.cols.gone_at[i];
  return g === undefined || g === NONE ? undefined : g;
}

const chunkIndex = new WeakMap<readonly ChunkInfo[], Map<number, ChunkInfo>>();
/** The chunk with this id (chunk ids are their index in every engine so far; looked up by id anyway). */
export function chunkById(t: TraceView, id: number): ChunkInfo | undefined {
  const direct = t.chunks[id];
  if (direct?.id === id) return direct;
  let byId = chunkIndex.get(t.chunks);
  if (!byId) {
    byId = new Map(t.chunks.map((c) => [c.id, c]));
    chunkIndex.set(t.chunks, byId);
  }
  return byId.get(id);
}

interface ChunkMakers {
  byOp: Map<number, ChunkInfo>;
  /** The op that made the first chunk; undefined when the constructor made one (or no chunk exists). */
  first: number | undefined;
}
const makersMemo = new WeakMap<readonly ChunkInfo[], ChunkMakers>();
function makers(t: TraceView): ChunkMakers {
  let m = makersMemo.get(t.chunks);
  if (!m) {
    const byOp = new Map<number, ChunkInfo>();
    let first: number | undefined;
    let eager = false;
    for (const c of t.chunks) {
      if (c.created_by === undefined) eager = true;
      else {
        if (!byOp.has(c.created_by)) byOp.set(c.created_by, c);
        first = first === undefined ? c.created_by : Math.min(first, c.created_by);
      }
    }
    m = { byOp, first: eager ? undefined : first };
    makersMemo.set(t.chunks, m);
  }
  return m;
}
/** The (first) chunk op i made, if it made one. */
export const chunkMadeBy = (t: TraceView, i: number): ChunkInfo | undefined => makers(t).byOp.get(i);
/** The op that made a lazy allocator's first chunk (undefined when the constructor made one). */
export const firstChunkOp = (t: TraceView): number | undefined => makers(t).first;

/**
 * The index of the sample holding the Stats after op i when one does
 * (i a multiple of statsEvery, or the last op), else undefined.
 */
export function sampleFor(t: TraceView, i: number): number | undefined {
  if (i < 0 || i >= t.length) return undefined;
  if (i % t.statsEvery === 0) return i / t.statsEvery;
  return i === t.length - 1 ? t.samples.length - 1 : undefined;
}

/** max(1, ceil(ops / 4096)): the engine's sampling interval. */
export function statsEveryFor(ops: number): number {
  return Math.max(1, Math.ceil(ops / 4096));
}

// ---- A small LRU ------------------------------------------------------------

class Lru<K, V> {
  private readonly map = new Map<K, V>();
  constructor(private readonly capacity: number) {}
  get(key: K): V | undefined {
    const v = this.map.get(key);
    if (v !== undefined) {
      this.map.delete(key);
      this.map.set(key, v);
    }
    return v;
  }
  set(key: K, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.capacity) {
      const oldest = this.map.keys().next();
      if (!oldest.done) this.map.delete(oldest.value);
    }
  }
}

function checkIndex(length: number, i: number): void {
  if (!Number.isInteger(i) || i < 0 || i >= length) throw new RangeError(`op ${i} is not in the trace (0..${length - 1})`);
}

// ---- From a run of the trace module --------------------------------------------

/** What `fromRun` reads of a trace module's `TraceRun` (traceModule.ts's TraceRunHandle). */
export interface TraceRunLike {
  column(which: ColumnName): Uint32Array;
  /** 9 numbers per sample, in Stats field order. */
  statsSamples(): Float64Array;
  /** JSON {version, allocator, target, direction, source, source_path, stats_every}. */
  header(): string;
  /** Each statement's line, column, and `kind | (name + 1) << 3`. */
  stmtLines(): Uint32Array;
  stmtColumns(): Uint32Array;
  stmtKinds(): Uint32Array;
  /** The program's names, one a line. */
  names(): string;
  /** JSON [ChunkInfo]. */
  chunks(): string;
  /** JSON {"op": Op, "chunks_used": [{id, lo, hi}]}. */
  detail(i: number): string;
}

interface RunHeader {
  version: number;
  allocator: string;
  target: Target;
  direction: Direction;
  source: SourceName;
  source_path: string;
  stats_every: number;
}

interface RunDetail {
  op: Op;
  chunks_used: ChunkUsed[];
}

const STATS_FIELDS = ["requested", "used", "padding", "metadata", "leaked", "copied", "unused", "chunks", "utilisation"] as const;

/** Stats from the run's flat samples (9 numbers each). */
export function statsFromSamples(flat: ArrayLike<number>): Stats[] {
  const out: Stats[] = [];
  for (let k = 0; k + STATS_FIELDS.length <= flat.length; k += STATS_FIELDS.length) {
    const s = {} as Record<(typeof STATS_FIELDS)[number], number>;
    STATS_FIELDS.forEach((f, j) => (s[f] = flat[k + j] as number));
    out.push(s);
  }
  return out;
}

/**
 * A view over a finished (or failed) run of the trace module: its columns and
 * tables copied out once; an op's detail asked of the run and kept in a small
 * LRU. The run must stay alive (not freed) as long as the view is used.
 */
export function fromRun(run: TraceRunLike): TraceView {
  const header = JSON.parse(run.header()) as RunHeader;
  const chunks = JSON.parse(run.chunks()) as ChunkInfo[];
  const cols = Object.fromEntries(COLUMN_NAMES.map((name) => [name, run.column(name)])) as OpColumns;
  const n = cols.meta.length;
  const details = new Lru<number, RunDetail>(64);
  const detail = (i: number): RunDetail => {
    checkIndex(n, i);
    let d = details.get(i);
    if (!d) {
      d = JSON.parse(run.detail(i)) as RunDetail;
      details.set(i, d);
    }
    return d;
  };
  return {
    version: header.version,
    allocator: header.allocator,
    target: header.target,
    direction: header.direction,
    source: header.source,
    source_path: header.source_path,
    chunks,
    stmts: stmtColumns(run.stmtLines(), run.stmtColumns(), run.stmtKinds(), run.names().split("\n")),
    length: n,
    cols,
    statsEvery: Math.max(1, header.stats_every),
    samples: statsFromSamples(run.statsSamples()),
    op: (i) => detail(i).op,
    chunksUsed: (i) => detail(i).chunks_used,
  };
}

/** The same view with the metered module's costs (one per op), the real crate's run and the baseline. */
export function withCosts(
  view: TraceView,
  costs: {
    costs?: readonly (Cost | undefined)[] | undefined;
    shapes?: readonly (Shape | undefined)[] | undefined;
    real?: RealRun | undefined;
    baseline?: Baseline | undefined;
    unavailable?: string | undefined;
    /** Say that costs are on their way (the cost view shows it until they come). */
    pending?: boolean | undefined;
  },
): TraceView {
  const { costsPending: _settled, ...rest } = view;
  return {
    ...rest,
    ...(costs.pending ? { costsPending: true } : {}),
    ...(costs.costs ? { costs: costs.costs } : {}),
    ...(costs.shapes ? { shapes: costs.shapes } : {}),
    ...(costs.real ? { real: costs.real } : {}),
    ...(costs.baseline ? { baseline: costs.baseline } : {}),
    ...(costs.unavailable !== undefined ? { costsUnavailable: costs.unavailable } : {}),
  };
}
