// What views read instead of the JSON trace (issue 7): seven Uint32Array
// columns of per-op facts (28 bytes an op), the statements, the chunks, stats
// samples, and any op's full detail on demand. Built from a JSON trace
// (`fromJson`: imports, the CLI, tests, the metered module) or from the lean
// wasm module's run (`fromRun`), which keeps the detail in the engine and
// returns it in constant time.
//
// A block is identified by the index of the op that placed it. After step k
// (ops 0..k-1 ran) the block placed by op i is drawn when i < k and
// gone_at[i] >= k; it is live when dead_at[i] >= k, else "freed" when op
// dead_at[i] is a free and "leaked" when it is a realloc that moved it.

import type { Baseline, ChunkInfo, Cost, Direction, Op, OpKind, ProgramError, RealRun, SourceName, Stats, Target, Trace, TraceResult } from "./types";

/** "None" in the u32 columns (no chunk, never freed, never reclaimed). */
export const NONE = 0xffffffff;

/** Op kinds by their code in `meta` bits 0-2. */
export const KINDS: readonly OpKind[] = ["alloc", "realloc", "free", "reset", "checkpoint", "restore"];
const KIND_CODE: Record<OpKind, number> = { alloc: 0, realloc: 1, free: 2, reset: 3, checkpoint: 4, restore: 5 };

export const META_KIND = 0x7;
export const META_FAILED = 1 << 3;
export const META_MOVED = 1 << 4;
export const META_PLACED = 1 << 5;
export const META_ALIGN_SHIFT = 6;
export const META_STMT_SHIFT = 10;

export interface StmtInfo {
  line: number;
  column: number;
  kind: OpKind;
  block?: string;
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
  readonly stmts: readonly StmtInfo[];
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
  readonly real?: RealRun;
  readonly baseline?: Baseline;
  /** Why the view has no costs, when it was asked for them and could not have them. */
  readonly costsUnavailable?: string;
  /** Costs are being measured on the metered module and will replace this view. */
  readonly costsPending?: boolean;
  /** The JSON trace the view was built from (fromJson only): what export writes. */
  readonly json?: Trace;
}

/** A traced program as views take it: its view, or its error. */
export type ViewResult = { ok: true; trace: TraceView } | { ok: false; error: ProgramError };

/** The engine's JSON result as a view result (the view memoised per trace). */
export function viewResult(r: TraceResult): ViewResult {
  return r.ok ? { ok: true, trace: fromJson(r.trace) } : r;
}

// ---- Accessors --------------------------------------------------------------

/** Op i's full detail, undefined outside 0..length-1 (one op: constant time in either view). */
export function opAt(t: TraceView, i: number): Op | undefined {
  return Number.isInteger(i) && i >= 0 && i < t.length ? t.op(i) : undefined;
}
/** The op whose effect step `step` shows: op step-1 (undefined at step 0). */
export const opBefore = (t: TraceView, step: number): Op | undefined => opAt(t, Math.min(Math.trunc(step), t.length) - 1);

export const kindCode = (t: TraceView, i: number): number => (t.cols.meta[i] ?? 0) & META_KIND;
export const kindOf = (t: TraceView, i: number): OpKind => KINDS[kindCode(t, i)] ?? "alloc";
export const failed = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_FAILED) !== 0;
export const moved = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_MOVED) !== 0;
/** Whether op i placed a block (it has an address). */
export const placed = (t: TraceView, i: number): boolean => ((t.cols.meta[i] ?? 0) & META_PLACED) !== 0;
/** The op's alignment (1 when it has none). */
export const alignOf = (t: TraceView, i: number): number => 2 ** (((t.cols.meta[i] ?? 0) >>> META_ALIGN_SHIFT) & 0xf);
export const stmtIndex = (t: TraceView, i: number): number => (t.cols.meta[i] ?? 0) >>> META_STMT_SHIFT;
export const stmtOf = (t: TraceView, i: number): StmtInfo | undefined => t.stmts[stmtIndex(t, i)];
/** 1-based program line of op i (0 outside the trace). */
export const lineOf = (t: TraceView, i: number): number => (i >= 0 && i < t.length ? (stmtOf(t, i)?.line ?? 0) : 0);
export const columnOf = (t: TraceView, i: number): number => (i >= 0 && i < t.length ? (stmtOf(t, i)?.column ?? 0) : 0);
/** The block (or checkpoint) name the op's statement names. */
export const blockNameOf = (t: TraceView, i: number): string | undefined => stmtOf(t, i)?.block;
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

/** Whether any op ran (an empty program has none). */
export const isEmpty = (t: TraceView): boolean => t.length === 0;

/**
 * The index of the sample holding the Stats after op i when one does
 * (i a multiple of statsEvery, or the last op), else undefined.
 */
export function sampleFor(t: TraceView, i: number): number | undefined {
  if (i < 0 || i >= t.length) return undefined;
  if (i % t.statsEvery === 0) return i / t.statsEvery;
  return i === t.length - 1 ? t.samples.length - 1 : undefined;
}

/** The op index each sample follows (samples[j] is the Stats after op sampleOps[j]). */
export function sampleOp(t: TraceView, j: number): number {
  return Math.min(j * t.statsEvery, t.length - 1);
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

// ---- From the JSON trace ----------------------------------------------------

const sat = (n: number | undefined): number => (n === undefined || !(n > 0) ? 0 : Math.min(Math.trunc(n), NONE));

function log2Align(align: number | undefined): number {
  if (align === undefined || !(align > 1)) return 0;
  return Math.min(15, Math.round(Math.log2(align)));
}

const viewOfJson = new WeakMap<Trace, TraceView>();

/** A view over a JSON trace: columns built in one pass; `op(i)` is the stored op. Memoised per trace. */
export function fromJson(trace: Trace): TraceView {
  const known = viewOfJson.get(trace);
  if (known) return known;
  const ops = trace.ops;
  const n = ops.length;
  const cols: OpColumns = {
    meta: new Uint32Array(n),
    chunk: new Uint32Array(n).fill(NONE),
    offset: new Uint32Array(n),
    size: new Uint32Array(n),
    padding: new Uint32Array(n),
    dead_at: new Uint32Array(n).fill(NONE),
    gone_at: new Uint32Array(n).fill(NONE),
  };
  const stmts: StmtInfo[] = [];
  const stmtKeys = new Map<string, number>();
  const byId = new Map(trace.chunks.map((c) => [c.id, c]));
  for (let i = 0; i < n; i++) {
    const op = ops[i] as Op;
    const key = `${op.line}:${op.column}:${op.kind}:${op.block ?? ""}`;
    let stmt = stmtKeys.get(key);
    if (stmt === undefined) {
      stmt = stmts.length;
      stmts.push({ line: op.line, column: op.column, kind: op.kind, ...(op.block !== undefined ? { block: op.block } : {}) });
      stmtKeys.set(key, stmt);
    }
    const isPlacing = (op.kind === "alloc" || op.kind === "realloc") && !op.failed && op.address !== undefined;
    let meta = KIND_CODE[op.kind] ?? 0;
    if (op.failed) meta |= META_FAILED;
    if (op.kind === "realloc" && op.moved === true && !op.failed) meta |= META_MOVED;
    if (isPlacing) meta |= META_PLACED;
    meta |= log2Align(op.align) << META_ALIGN_SHIFT;
    cols.meta[i] = (meta | (stmt << META_STMT_SHIFT)) >>> 0;
    cols.size[i] = sat(op.size);
    cols.padding[i] = sat(op.padding);
    if (isPlacing && op.address !== undefined) {
      const chunk = op.chunk !== undefined ? byId.get(op.chunk) : undefined;
      if (chunk) {
        cols.chunk[i] = chunk.id;
        cols.offset[i] = sat(op.address - chunk.start);
      } else {
        cols.offset[i] = sat(op.address);
      }
    }
    // What this op does to earlier blocks (as the map has always drawn them).
    const target = op.target_op;
    if (target !== undefined && target !== i && target >= 0 && target < i) {
      if (op.kind === "free" || (op.kind === "realloc" && !op.failed && op.address !== undefined)) {
        if (cols.dead_at[target] === NONE) cols.dead_at[target] = i;
      }
      if (op.kind === "realloc" && !op.failed && op.address !== undefined && op.moved === false) {
        if (cols.gone_at[target] === NONE) cols.gone_at[target] = i;
      }
    }
    for (const id of op.reclaimed ?? []) {
      if (id >= 0 && id < i && cols.gone_at[id] === NONE) cols.gone_at[id] = i;
    }
  }
  const statsEvery = statsEveryFor(n);
  const samples: Stats[] = [];
  for (let i = 0; i < n; i += statsEvery) samples.push((ops[i] as Op).stats);
  if (n > 0 && (n - 1) % statsEvery !== 0) samples.push((ops[n - 1] as Op).stats);
  const metered = ops.some((o) => o.cost !== undefined);
  let used: ((i: number) => readonly ChunkUsed[]) | undefined;
  const view: TraceView = {
    version: trace.version,
    allocator: trace.allocator,
    target: trace.target,
    direction: trace.direction,
    source: trace.source,
    source_path: trace.source_path,
    chunks: trace.chunks,
    stmts,
    length: n,
    cols,
    statsEvery,
    samples,
    op(i) {
      checkIndex(n, i);
      return ops[i] as Op;
    },
    chunksUsed(i) {
      checkIndex(n, i);
      used ??= usedDeriver(trace, cols);
      return used(i);
    },
    ...(metered ? { costs: ops.map((o) => o.cost) } : {}),
    ...(trace.real !== undefined ? { real: trace.real } : {}),
    ...(trace.baseline !== undefined ? { baseline: trace.baseline } : {}),
    json: trace,
  };
  viewOfJson.set(trace, view);
  return view;
}

// The JSON trace has no used extents: they are derived as the map always
// derived them. Only the current chunk's bump pointer is in an op; another
// live chunk is used up to the pointer it had when it was last current (unless
// a reset or restore rewound it since) and at least to the far edge of the
// blocks it still holds. One pass records the current chunk and pointer after
// every op; the pointers each chunk last had are snapshotted every SNAP ops,
// so an op's extents cost at most SNAP steps plus its chunks' blocks.

const SNAP = 1024;

function usedDeriver(trace: Trace, cols: OpColumns): (i: number) => readonly ChunkUsed[] {
  const ops = trace.ops;
  const n = ops.length;
  const down = trace.direction === "down";
  const contains = (c: ChunkInfo, a: number): boolean => a >= c.start && a <= c.start + c.capacity;
  const aliveAfter = (c: ChunkInfo, step: number): boolean =>
    (c.created_by === undefined || c.created_by < step) && (c.freed_by === undefined || c.freed_by >= step);
  const origin = (c: ChunkInfo): number => (down ? c.start + c.capacity : c.start);
  const usedFrom = (c: ChunkInfo, ptr: number): number =>
    Math.min(Math.max(0, down ? c.start + c.capacity - ptr : ptr - c.start), c.capacity);

  // Chunks change only at the ops that create or free one.
  const changes = new Set<number>();
  for (const c of trace.chunks) {
    if (c.created_by !== undefined) changes.add(c.created_by);
    if (c.freed_by !== undefined) changes.add(c.freed_by);
  }
  const current = new Int32Array(n).fill(-1);
  const pointer = new Float64Array(n).fill(NaN);
  /** 1 where the op left a bump pointer in the current chunk (the walk records it for that chunk). */
  const hasPtr = new Uint8Array(n);
  const snaps: Map<number, number>[] = [];
  const recorded = new Map<number, number>();
  let alive = trace.chunks.filter((c) => aliveAfter(c, 0));
  let lastChunk: number | undefined;
  let ptr: number | undefined;
  for (let i = 0; i < n; i++) {
    if (i % SNAP === 0) snaps.push(new Map(recorded));
    const op = ops[i] as Op;
    if (op.chunk !== undefined && !op.failed) lastChunk = op.chunk;
    if (op.kind === "reset" || op.kind === "restore") recorded.clear();
    if (changes.has(i) || i === 0) alive = trace.chunks.filter((c) => aliveAfter(c, i + 1));
    if (op.bump_ptr !== undefined) ptr = op.bump_ptr;
    else if (ptr !== undefined && !alive.some((c) => contains(c, ptr as number))) ptr = undefined;
    const cur = pickCurrent(alive, ptr, lastChunk, contains);
    if (cur) {
      current[i] = cur.id;
      if (ptr !== undefined) {
        recorded.set(cur.id, ptr);
        pointer[i] = ptr;
        hasPtr[i] = 1;
      } else {
        pointer[i] = origin(cur);
      }
    }
  }
  // The ops that placed a block in each chunk, in order.
  const placedIn = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const c = cols.chunk[i] as number;
    if (c === NONE || ((cols.meta[i] as number) & META_PLACED) === 0) continue;
    let list = placedIn.get(c);
    if (!list) placedIn.set(c, (list = []));
    list.push(i);
  }
  const cache = new Lru<number, readonly ChunkUsed[]>(16);
  return (i) => {
    const hit = cache.get(i);
    if (hit) return hit;
    const step = i + 1;
    const last = new Map(snaps[Math.floor(i / SNAP)]);
    for (let j = Math.floor(i / SNAP) * SNAP; j <= i; j++) {
      const kind = (ops[j] as Op).kind;
      if (kind === "reset" || kind === "restore") last.clear();
      const c = current[j] as number;
      if (c >= 0 && hasPtr[j] === 1) last.set(c, pointer[j] as number);
    }
    const out: ChunkUsed[] = [];
    for (const chunk of trace.chunks) {
      if (!aliveAfter(chunk, step)) continue;
      let used: number;
      if (chunk.id === current[i]) {
        used = usedFrom(chunk, pointer[i] as number);
      } else {
        const p = last.get(chunk.id);
        used = Math.max(p !== undefined ? usedFrom(chunk, p) : 0, extent(chunk, placedIn.get(chunk.id), step));
      }
      out.push(down ? { id: chunk.id, lo: chunk.start + chunk.capacity - used, hi: chunk.start + chunk.capacity } : { id: chunk.id, lo: chunk.start, hi: chunk.start + used });
    }
    cache.set(i, out);
    return out;
  };

  /** Bytes from the chunk's origin to the far edge of the blocks it holds after `step` ops. */
  function extent(chunk: ChunkInfo, placers: readonly number[] | undefined, step: number): number {
    let used = 0;
    for (const b of placers ?? []) {
      if (b >= step) break;
      if ((cols.gone_at[b] as number) < step) continue;
      const address = chunk.start + (cols.offset[b] as number);
      const size = (ops[b] as Op).size ?? 0;
      const padding = cols.padding[b] as number;
      const paddingStart = down ? address + size : address - padding;
      const low = Math.min(address, paddingStart);
      const high = Math.max(address + size, paddingStart + padding);
      used = Math.max(used, down ? chunk.start + chunk.capacity - low : high - chunk.start);
    }
    return Math.min(Math.max(0, used), chunk.capacity);
  }
}

/**
 * The chunk the bump pointer is in: the live chunk containing it; if several
 * do (chunks back to back), the one the latest block went into; if none does,
 * the latest block's chunk, else the newest live chunk.
 */
function pickCurrent(
  alive: readonly ChunkInfo[],
  ptr: number | undefined,
  lastChunk: number | undefined,
  contains: (c: ChunkInfo, a: number) => boolean,
): ChunkInfo | undefined {
  if (alive.length === 0) return undefined;
  const byLast = alive.find((c) => c.id === lastChunk);
  if (ptr === undefined) return byLast ?? alive[0];
  const containing = alive.filter((c) => contains(c, ptr));
  if (containing.length === 1) return containing[0];
  if (containing.length > 1) return containing.find((c) => c.id === lastChunk) ?? containing[containing.length - 1];
  return byLast ?? alive[alive.length - 1];
}

// ---- From the lean module's run ---------------------------------------------

/** What `fromRun` needs of the lean module's `TraceRun` (crates/trace-wasm). */
export interface TraceRunLike {
  column(which: ColumnName): Uint32Array;
  /** 9 numbers per sample, in Stats field order. */
  statsSamples(): Float64Array;
  /** JSON {version, allocator, target, direction, source, source_path, stmts, stats_every}. */
  header(): string;
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
  stmts: StmtInfo[];
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
 * A view over a finished (or failed) run of the lean module: its columns and
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
    stmts: header.stmts,
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
    ...(costs.real ? { real: costs.real } : {}),
    ...(costs.baseline ? { baseline: costs.baseline } : {}),
    ...(costs.unavailable !== undefined ? { costsUnavailable: costs.unavailable } : {}),
  };
}
