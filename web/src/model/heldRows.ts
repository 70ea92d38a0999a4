// Which ops' blocks each chunk holds after a step, as op ids by address,
// straight from the TraceView's columns (held.ts makes blocks of them).
//
// The block placed by op i is held after step k when i < k and
// gone_at[i] >= k. One tight pass over the columns of ops 0..k-1 sorts the
// held ops into their chunks (a counting sort, so each chunk's list is in op
// order) and checks that each is in address order: a bump allocator places a
// chunk's held blocks in address order already (up: rising, down: falling,
// read backwards); anything else is sorted. A step a few ops from one already
// computed is derived from it instead: only the rows the ops in between
// touched are rebuilt, so scrubbing costs what changed. What the ops in
// between touched is read from the columns too (an index of dead_at and
// gone_at by op, built once per trace), so a drag across a million ops that
// moves a few thousand ops a frame costs those few thousand.
//
// A block placed outside every chunk (a zero-sized dangling pointer) belongs
// to chunk 0's row, as the map draws it.

import { META_PLACED, NONE, type OpColumns, type TraceView } from "../wasm/traceView";

/** A row's held ops: in op order (read backwards when `backwards`, addresses falling), or sorted by address. */
export interface RowIds {
  ids: Int32Array;
  backwards: boolean;
  /** Not in op order (sorted by address): a step cannot be derived from it. */
  sorted: boolean;
}

/** What a step holds, per row (index: chunk id; the last slot: ids past the known chunks). */
export interface Core {
  step: number;
  rows: RowIds[];
  total: number;
}

export const EMPTY_ROW: RowIds = { ids: new Int32Array(0), backwards: false, sorted: false };

/** At most this many ops apart, a step is derived from one computed before (derivable). */
export const DELTA_MAX_OPS = 1 << 17;

/**
 * Whether step `to` is better derived from step `from` than computed with a
 * full pass: a derivation costs a few times more per op in between (listing
 * what they touched, a copy of the rows it is in) than the full pass costs
 * per op before the step, so it pays up to a quarter of the way.
 */
export function derivable(from: number, to: number): boolean {
  const apart = Math.abs(to - from);
  return apart <= 64 || (apart <= DELTA_MAX_OPS && 4 * apart <= Math.max(from, to));
}

/** Chunk start by id, per trace (ids index the array; NaN where no chunk). */
const startsOf = new WeakMap<TraceView, Float64Array>();
export function chunkStarts(t: TraceView): Float64Array {
  let s = startsOf.get(t);
  if (!s) {
    const max = t.chunks.reduce((m, c) => Math.max(m, c.id), -1);
    s = new Float64Array(max + 1).fill(Number.NaN);
    for (const c of t.chunks) s[c.id] = c.start;
    startsOf.set(t, s);
  }
  return s;
}

/** Absolute address of the block op `id` placed (its chunk's start plus the offset, or the offset alone). */
export function addressOfId(t: TraceView, starts: Float64Array, id: number): number {
  const c = t.cols.chunk[id] as number;
  const off = t.cols.offset[id] as number;
  if (c === NONE) return off;
  const s = starts[c];
  return s === undefined || Number.isNaN(s) ? off : s + off;
}

/** The row a placed op's block is listed in: its chunk, or chunk 0 when it has none. */
export const rowOf = (c: number): number => (c === NONE ? 0 : c);

/** Whether op i's block is held after `step` ops. */
export const heldAfter = (t: TraceView, i: number, step: number): boolean =>
  i < step && ((t.cols.meta[i] as number) & META_PLACED) !== 0 && (t.cols.gone_at[i] as number) >= step;

/** For each op j, the ops whose block it freed or replaced (dead_at = j) or reclaimed (gone_at = j): ids[begin[j]..begin[j + 1]). */
interface EndedBy {
  begin: Int32Array;
  ids: Int32Array;
}

/** Per run (its columns, which every copy of a view shares). */
const endedByOf = new WeakMap<OpColumns, EndedBy>();

/**
 * Per run: which call of touchedBetween last listed each op (it lists each
 * once without a Set), and its last answer (a step's rows and each binned
 * row ask for the same span).
 */
const listedOf = new WeakMap<OpColumns, { mark: Uint32Array; call: number; last: { from: number; to: number; ops: Int32Array } | null }>();

/** The inverse of dead_at and gone_at, as a counting sort: two passes over the columns, once per run. */
function endedBy(t: TraceView): EndedBy {
  let e = endedByOf.get(t.cols);
  if (e) return e;
  const { dead_at, gone_at } = t.cols;
  const n = t.length;
  const begin = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) {
    const d = dead_at[i] as number;
    const g = gone_at[i] as number;
    if (d < n) begin[d + 1] = (begin[d + 1] as number) + 1;
    if (g < n && g !== d) begin[g + 1] = (begin[g + 1] as number) + 1;
  }
  for (let j = 0; j < n; j++) begin[j + 1] = (begin[j + 1] as number) + (begin[j] as number);
  const ids = new Int32Array(begin[n] as number);
  const fill = begin.slice(0, n);
  for (let i = 0; i < n; i++) {
    const d = dead_at[i] as number;
    const g = gone_at[i] as number;
    if (d < n) ids[(fill[d] as number)++] = i;
    if (g < n && g !== d) ids[(fill[g] as number)++] = i;
  }
  e = { begin, ids };
  endedByOf.set(t.cols, e);
  return e;
}

/** Runs whose index of ended blocks is asked for in an idle moment. */
const preparing = new WeakSet<OpColumns>();

/** From this many ops on, a run's index of ended blocks is built ahead of need. */
const PREPARE_FROM_OPS = 50_000;

/**
 * Builds a long run's index of ended blocks when the page is next idle: over
 * a million ops it takes tens of milliseconds, which the first step of a
 * scrubber drag (the first step derived from another) cannot spare. Where
 * nothing schedules idle work (a worker, a test) it is built on first need.
 */
function prepareLater(t: TraceView): void {
  if (t.length < PREPARE_FROM_OPS || endedByOf.has(t.cols) || preparing.has(t.cols)) return;
  const idle = (globalThis as { requestIdleCallback?: (f: () => void, o?: { timeout: number }) => number }).requestIdleCallback;
  if (typeof idle !== "function") return;
  preparing.add(t.cols);
  idle(() => void endedBy(t), { timeout: 1000 });
}

/**
 * The ops whose block the ops from..to-1 made held or not, or changed the
 * state of: those they placed (held from the next step), and those they
 * freed or replaced (dead_at: live to freed or leaked) or reclaimed
 * (gone_at: no longer held). Read from the columns alone.
 */
export function touchedBetween(t: TraceView, from: number, to: number): Int32Array {
  const { begin, ids } = endedBy(t);
  const meta = t.cols.meta;
  const lo = Math.max(0, from);
  const hi = Math.min(t.length, to);
  let listed = listedOf.get(t.cols);
  if (!listed) listedOf.set(t.cols, (listed = { mark: new Uint32Array(t.length), call: 0, last: null }));
  if (listed.last?.from === lo && listed.last.to === hi) return listed.last.ops;
  // A new mark per call (0 is never one): an op is listed when its mark is not this call's.
  if (++listed.call === 0xffffffff) {
    listed.mark.fill(0);
    listed.call = 1;
  }
  const { mark, call } = listed;
  const out = new Int32Array(hi > lo ? (hi - lo) + (begin[hi] as number) - (begin[lo] as number) : 0);
  let n = 0;
  for (let j = lo; j < hi; j++) {
    if (((meta[j] as number) & META_PLACED) !== 0 && mark[j] !== call) {
      mark[j] = call;
      out[n++] = j;
    }
    for (let e = begin[j] as number; e < (begin[j + 1] as number); e++) {
      const i = ids[e] as number;
      if (mark[i] === call) continue;
      mark[i] = call;
      out[n++] = i;
    }
  }
  const ops = out.subarray(0, n);
  listed.last = { from: lo, to: hi, ops };
  return ops;
}

/** Orders a row's ids (given in op order) by address: a check, else a sort. */
function orderRow(t: TraceView, starts: Float64Array, ids: Int32Array): RowIds {
  const n = ids.length;
  if (n < 2) return { ids, backwards: false, sorted: false };
  let rising = true;
  let falling = true;
  let prev = addressOfId(t, starts, ids[0] as number);
  for (let j = 1; j < n && (rising || falling); j++) {
    const x = addressOfId(t, starts, ids[j] as number);
    if (x < prev) rising = false;
    else falling = false;
    prev = x;
  }
  // Falling rows stay in op order and are read backwards (reversing a
  // million-entry typed array costs more than the pass that made it).
  if (rising) return { ids, backwards: false, sorted: false };
  if (falling) return { ids, backwards: true, sorted: false };
  const addr = (i: number): number => addressOfId(t, starts, i);
  const sorted = Int32Array.from(Array.from(ids).sort((p, q) => addr(p) - addr(q) || p - q));
  return { ids: sorted, backwards: false, sorted: true };
}

/** What step k holds: one pass over the columns of ops 0..k-1. */
export function fullCore(t: TraceView, k: number): Core {
  prepareLater(t);
  const { meta, chunk, gone_at } = t.cols;
  const starts = chunkStarts(t);
  const rows = Math.max(1, starts.length);
  // Pass 1: held ops in op order, counted per row (chunk ids past the known
  // chunks share the last slot; a block without a chunk goes to row 0).
  const counts = new Int32Array(rows + 1);
  const tmp = new Int32Array(k);
  let total = 0;
  for (let i = 0; i < k; i++) {
    if (((meta[i] as number) & META_PLACED) === 0 || (gone_at[i] as number) < k) continue;
    tmp[total++] = i;
    const c = rowOf(chunk[i] as number);
    const r = c < rows ? c : rows;
    counts[r] = (counts[r] as number) + 1;
  }
  // Pass 2: a stable counting sort by row; one row in use needs none.
  const begin = new Int32Array(rows + 2);
  let used = 0;
  for (let r = 0; r <= rows; r++) {
    begin[r + 1] = (begin[r] as number) + (counts[r] as number);
    if ((counts[r] as number) > 0) used++;
  }
  let ids: Int32Array;
  // (Right-sized: a cached step keeps 4 bytes per held block, not per op.)
  if (used <= 1) ids = total === k ? tmp : tmp.slice(0, total);
  else {
    const fill = begin.slice(0, rows + 1);
    ids = new Int32Array(total);
    for (let j = 0; j < total; j++) {
      const i = tmp[j] as number;
      const c = rowOf(chunk[i] as number);
      const r = c < rows ? c : rows;
      const at = fill[r] as number;
      ids[at] = i;
      fill[r] = at + 1;
    }
  }
  // Then by address within each row.
  const out: RowIds[] = [];
  for (let r = 0; r <= rows; r++) {
    const a = begin[r] as number;
    const b = begin[r + 1] as number;
    if (b === a) out.push(EMPTY_ROW);
    else {
      const row = orderRow(t, starts, ids.subarray(a, b));
      // The last slot mixes chunks: never derived from.
      out.push(r === rows ? { ...row, sorted: true } : row);
    }
  }
  return { step: k, rows: out, total };
}

/**
 * Row buffers a derivation may append to in place: for each, how many of its
 * ids the longest row written in it uses. A row that ends there and starts
 * the buffer owns the slack after it, so a step forward that only adds newer
 * blocks writes those and copies nothing (older steps' rows are shorter views
 * of the same buffer, and see none of it).
 */
const appendable = new WeakMap<ArrayBufferLike, number>();

/** `old`'s first `keep` ids then `add` (newer ops): in place when `old` owns its buffer's slack, else into a new buffer with room to grow. */
function appended(old: Int32Array, keep: number, add: Int32Array): Int32Array {
  const len = keep + add.length;
  const buf = old.buffer;
  if (keep === old.length && old.byteOffset === 0 && appendable.get(buf) === keep && buf.byteLength >= len * 4) {
    const ids = new Int32Array(buf, 0, len);
    ids.set(add, keep);
    appendable.set(buf, len);
    return ids;
  }
  const store = new Int32Array(len + Math.max(256, len >> 1));
  store.set(old.subarray(0, keep));
  store.set(add, keep);
  appendable.set(store.buffer, len);
  return store.subarray(0, len);
}

/** Per run: a mark per op for deltaCore's blocks leaving a row (the call's number; 0 is never one). */
const leavingOf = new WeakMap<OpColumns, { mark: Uint32Array; call: number }>();

/**
 * The core of step k from that of a nearby step: the ops in between placed,
 * freed, replaced or reclaimed only some blocks; their rows are rebuilt, the
 * others shared. A row that only loses its newest blocks (a step back) is a
 * shorter view of the same ids, and one that only gains newer blocks (a step
 * forward) is written in place after them when no other step did, so a drag
 * costs what the ops in between changed, not the size of the rows. Undefined
 * when a touched row is not in op order or loses its order (then a full pass
 * it is).
 */
export function deltaCore(t: TraceView, prev: Core, k: number): Core | undefined {
  const starts = chunkStarts(t);
  const rows = prev.rows.length - 1;
  const changed = touchedBetween(t, Math.min(prev.step, k), Math.max(prev.step, k));
  let leaving = leavingOf.get(t.cols);
  if (!leaving) leavingOf.set(t.cols, (leaving = { mark: new Uint32Array(t.length), call: 0 }));
  if (++leaving.call === 0xffffffff) {
    leaving.mark.fill(0);
    leaving.call = 1;
  }
  const { mark, call } = leaving;
  const byRow = new Map<number, { add: number[]; removed: number }>();
  const chunkOf = t.cols.chunk;
  let total = prev.total;
  for (let x = 0; x < changed.length; x++) {
    const i = changed[x] as number;
    const is = heldAfter(t, i, k);
    if (heldAfter(t, i, prev.step) === is) continue;
    const c = rowOf(chunkOf[i] as number);
    if (c >= rows) return undefined;
    let e = byRow.get(c);
    if (!e) byRow.set(c, (e = { add: [], removed: 0 }));
    if (is) {
      e.add.push(i);
      total += 1;
    } else {
      mark[i] = call;
      e.removed += 1;
      total -= 1;
    }
  }
  const out = prev.rows.slice();
  for (const [r, { add: added, removed }] of byRow) {
    const old = prev.rows[r] ?? EMPTY_ROW;
    if (old.sorted) return undefined;
    const add = Int32Array.from(added);
    let inOrder = true;
    for (let j = 1; j < add.length && inOrder; j++) inOrder = (add[j] as number) > (add[j - 1] as number);
    if (!inOrder) add.sort();
    const n = old.ids.length;
    // Common case: the removed ones are the newest (a step back) and the added ones newer still (a step forward).
    let keep = n;
    while (keep > 0 && mark[old.ids[keep - 1] as number] === call) keep--;
    let ids: Int32Array;
    const tail = n - keep === removed && (add.length === 0 || keep === 0 || (add[0] as number) > (old.ids[keep - 1] as number));
    if (tail && add.length === 0) ids = old.ids.subarray(0, keep);
    else if (tail) ids = appended(old.ids, keep, add);
    else {
      // Anything else: filter and merge, in op order.
      ids = new Int32Array(n - removed + add.length);
      let a = 0;
      let w = 0;
      for (let j = 0; j < n; j++) {
        const id = old.ids[j] as number;
        while (a < add.length && (add[a] as number) < id) ids[w++] = add[a++] as number;
        if (mark[id] !== call) ids[w++] = id;
      }
      while (a < add.length) ids[w++] = add[a++] as number;
    }
    // Order by address: small rows are checked whole; a large one keeps its
    // direction, so only the added blocks' neighbours are checked.
    if (ids.length <= 64 || n < 2) {
      const row = orderRow(t, starts, ids);
      if (row.sorted) return undefined;
      out[r] = row;
      continue;
    }
    const fits = (j: number): boolean => {
      if (j <= 0 || j >= ids.length) return true;
      const x = addressOfId(t, starts, ids[j - 1] as number);
      const y = addressOfId(t, starts, ids[j] as number);
      return old.backwards ? y < x : y >= x;
    };
    if (tail) {
      // The added blocks are the row's last ones: each, and the one before the first, against its predecessor.
      for (let j = keep; j < ids.length; j++) if (!fits(j)) return undefined;
    } else {
      for (const i of add) {
        let lo = 0;
        let hi = ids.length;
        while (lo < hi) {
          const mid = (lo + hi) >>> 1;
          if ((ids[mid] as number) < i) lo = mid + 1;
          else hi = mid;
        }
        if (!fits(lo) || !fits(lo + 1)) return undefined;
      }
    }
    out[r] = { ids, backwards: old.backwards, sorted: false };
  }
  return { step: k, rows: out, total };
}
