// The blocks a trace's chunks hold after a step, straight from the TraceView's
// columns: no replay of ops, no object per block unless one is asked for.
//
// The block placed by op i is held (drawn) after step k when i < k and
// gone_at[i] >= k. One tight pass over the columns of ops 0..k-1 sorts the
// held ops into their chunks (a counting sort, so each chunk's list is in op
// order) and checks that each is in address order: a bump allocator places a
// chunk's held blocks in address order already (up: rising, down: falling,
// read backwards); anything else is sorted. The result is memoised per trace
// for the last two steps, and a step a few ops from a cached one is derived
// from it (only the rows the ops in between touched are rebuilt), so
// scrubbing costs what changed, and zooming and panning at one step cost a
// binary search plus the blocks (or bins) in view. Bins of a large row are
// likewise the last ones of a nearby step plus what changed.
//
// A block placed outside every chunk (a zero-sized dangling pointer) belongs
// to chunk 0's list, as the map has always drawn it.

import { META_ALIGN_SHIFT, META_KIND, META_PLACED, META_STMT_SHIFT, NONE, type TraceView } from "../engine/traceView";
import type { Block, BlockState } from "./blocks";
import type { Bin } from "./bins";

/** One chunk's held blocks after a step, by address. */
export interface HeldRow {
  readonly chunk: number;
  /** Held blocks in this chunk. */
  readonly count: number;
  /** The op that placed the j-th block by address (ties in op order). */
  id(j: number): number;
  /** Address of the j-th block by address. */
  address(j: number): number;
  size(j: number): number;
  /** Index of the first block whose bytes reach past `address` (as mapBins.firstBlockEndingAfter). */
  firstEndingAfter(address: number): number;
  /** Index one past the last block starting before `address` (as mapBins.endOfBlocksBefore). */
  endBefore(address: number): number;
  /** The j-th block by address, as an object (made on demand, kept for the step). */
  block(j: number): Block;
  /** Blocks j in [from, to), by address. */
  slice(from: number, to: number): Block[];
  /** Every block, by address: O(count). */
  all(): Block[];
  /** The block op `id` placed, when this chunk holds it: O(1). */
  find(id: number): Block | undefined;
  /** The held block of the realloc that replaced block `id` (moved it or grew it in place), if any: O(1). */
  successor(id: number): Block | undefined;
  /** Level-of-detail bins over [lo, hi): mapBins.binBlocks of this row's blocks, from the columns. */
  bins(lo: number, hi: number, count: number): Bin[];
}

export interface Held {
  readonly step: number;
  /** Held blocks over every chunk. */
  readonly total: number;
  /** The row of chunk `id` (an empty row when it holds nothing). */
  row(id: number): HeldRow;
  /** The block op `id` placed, when it is held after the step. */
  find(id: number): Block | undefined;
  /** The held block of the realloc that replaced block `id`, if any. */
  successor(id: number): Block | undefined;
  /** Ids of the rows that hold something. */
  chunkIds(): number[];
}

/** Steps kept per trace: the one shown and the one before it (4 bytes per held block each). */
const CACHE = 2;
const cache = new WeakMap<TraceView, Held[]>();

/** Chunk start by id, per trace (ids index the array; NaN where no chunk). */
const startsOf = new WeakMap<TraceView, Float64Array>();
function chunkStarts(t: TraceView): Float64Array {
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
const rowOf = (c: number): number => (c === NONE ? 0 : c);

/** A row's held ops: in op order (read backwards when `backwards`, addresses falling), or sorted by address. */
interface RowIds {
  ids: Int32Array;
  backwards: boolean;
  /** Not in op order (sorted by address): a step cannot be derived from it. */
  sorted: boolean;
}

/** What a step holds, per row (index: chunk id; the last slot: ids past the known chunks). */
interface Core {
  step: number;
  rows: RowIds[];
  total: number;
}

const EMPTY: RowIds = { ids: new Int32Array(0), backwards: false, sorted: false };

/** What the chunks hold after `step` ops (step clamped to 0..length). */
export function heldAt(t: TraceView, step: number): Held {
  const k = Math.min(Math.max(0, Math.trunc(Number.isFinite(step) ? step : 0)), t.length);
  let list = cache.get(t);
  if (!list) cache.set(t, (list = []));
  const hit = list.findIndex((h) => h.step === k);
  if (hit >= 0) {
    const h = list[hit] as Held;
    if (hit !== list.length - 1) {
      list.splice(hit, 1);
      list.push(h);
    }
    return h;
  }
  // From the nearest cached step when it is close (scrubbing, playing): only
  // the rows the ops in between touched change.
  let core: Core | undefined;
  let near: Held | undefined;
  for (const h of list) if (!near || Math.abs(h.step - k) < Math.abs(near.step - k)) near = h;
  const nearCore = near ? cores.get(near) : undefined;
  if (nearCore && Math.abs(nearCore.step - k) <= DELTA_MAX_OPS) core = deltaCore(t, nearCore, k);
  core ??= fullCore(t, k);
  const h = wrap(t, core);
  cores.set(h, core);
  list.push(h);
  if (list.length > CACHE) list.shift();
  return h;
}

/** How many ops apart a cached step may be for a step to be derived from it. */
const DELTA_MAX_OPS = 64;
const cores = new WeakMap<Held, Core>();

/** Orders a row's ids (given in op order) by address: a check, else a sort. */
function orderRow(t: TraceView, starts: Float64Array, ids: Int32Array, byOffset: boolean): RowIds {
  const n = ids.length;
  if (n < 2) return { ids, backwards: false, sorted: false };
  let rising = true;
  let falling = true;
  const { offset } = t.cols;
  if (!byOffset) {
    let prev = addressOfId(t, starts, ids[0] as number);
    for (let j = 1; j < n; j++) {
      const x = addressOfId(t, starts, ids[j] as number);
      if (x < prev) rising = false;
      else falling = false;
      if (!rising && !falling) break;
      prev = x;
    }
  } else {
    let prev = offset[ids[0] as number] as number;
    for (let j = 1; j < n; j++) {
      const x = offset[ids[j] as number] as number;
      if (x < prev) rising = false;
      else falling = false;
      if (!rising && !falling) break;
      prev = x;
    }
  }
  // Falling rows stay in op order and are read backwards (reversing a
  // million-entry typed array costs more than the pass that made it).
  if (rising) return { ids, backwards: false, sorted: false };
  if (falling) return { ids, backwards: true, sorted: false };
  const addr = (i: number): number => addressOfId(t, starts, i);
  const sorted = Int32Array.from(Array.from(ids).sort((p, q) => addr(p) - addr(q) || p - q));
  return { ids: sorted, backwards: false, sorted: true };
}

/** One pass over the columns of ops 0..k-1. */
function fullCore(t: TraceView, k: number): Core {
  const { meta, chunk, gone_at } = t.cols;
  const starts = chunkStarts(t);
  const rows = Math.max(1, starts.length);
  // Pass 1: held ops in op order, counted per row (chunk ids past the known
  // chunks share the last slot; a block without a chunk goes to row 0).
  const counts = new Int32Array(rows + 1);
  const tmp = new Int32Array(k);
  let total = 0;
  let loose = 0;
  for (let i = 0; i < k; i++) {
    if (((meta[i] as number) & META_PLACED) === 0 || (gone_at[i] as number) < k) continue;
    tmp[total++] = i;
    const c = chunk[i] as number;
    if (c < rows) counts[c] = (counts[c] as number) + 1;
    else if (c === NONE) {
      counts[0] = (counts[0] as number) + 1;
      loose++;
    } else counts[rows] = (counts[rows] as number) + 1;
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
      const c = chunk[i] as number;
      const r = c < rows ? c : c === NONE ? 0 : rows;
      const at = fill[r] as number;
      ids[at] = i;
      fill[r] = at + 1;
    }
  }
  // Then by address within each row: within one chunk the offsets order it.
  const out: RowIds[] = [];
  for (let r = 0; r <= rows; r++) {
    const a = begin[r] as number;
    const b = begin[r + 1] as number;
    if (b === a) out.push(EMPTY);
    else {
      const row = orderRow(t, starts, ids.subarray(a, b), !(r === rows || (r === 0 && loose > 0)));
      // The last slot mixes chunks: never derived from.
      out.push(r === rows ? { ...row, sorted: true } : row);
    }
  }
  return { step: k, rows: out, total };
}

/**
 * The core of step k from that of a nearby step: the ops in between placed,
 * freed, replaced or reclaimed only some blocks; their rows are rebuilt (a
 * copy, an append), the others shared. Undefined when a touched row is not in
 * op order or loses its order (then a full pass it is).
 */
function deltaCore(t: TraceView, prev: Core, k: number): Core | undefined {
  const from = Math.min(prev.step, k);
  const to = Math.max(prev.step, k);
  const { meta, chunk } = t.cols;
  const starts = chunkStarts(t);
  const rows = prev.rows.length - 1;
  const changed = new Set<number>();
  for (let j = from; j < to; j++) {
    if (((meta[j] as number) & META_PLACED) !== 0) changed.add(j);
    const op = t.op(j);
    if (op.target_op !== undefined) changed.add(op.target_op);
    for (const r of op.reclaimed ?? []) changed.add(r);
  }
  const byRow = new Map<number, { add: number[]; remove: Set<number> }>();
  let total = prev.total;
  for (const i of changed) {
    if (!Number.isInteger(i) || i < 0 || i >= t.length) continue;
    const was = heldAfter(t, i, prev.step);
    const is = heldAfter(t, i, k);
    if (was === is) continue;
    const c = chunk[i] as number;
    const r = c === NONE ? 0 : c < rows ? c : rows;
    if (r === rows) return undefined;
    let e = byRow.get(r);
    if (!e) byRow.set(r, (e = { add: [], remove: new Set() }));
    if (is) {
      e.add.push(i);
      total++;
    } else {
      e.remove.add(i);
      total--;
    }
  }
  const out = prev.rows.slice();
  for (const [r, { add, remove }] of byRow) {
    const old = prev.rows[r] ?? EMPTY;
    if (old.sorted) return undefined;
    add.sort((p, q) => p - q);
    const n = old.ids.length;
    // Common case: the removed ones are the newest (a rewind) and the added ones newer still.
    let keep = n;
    while (keep > 0 && remove.has(old.ids[keep - 1] as number)) keep--;
    let ids: Int32Array;
    if (n - keep === remove.size && (add.length === 0 || keep === 0 || (add[0] as number) > (old.ids[keep - 1] as number))) {
      ids = new Int32Array(keep + add.length);
      ids.set(old.ids.subarray(0, keep));
      ids.set(add, keep);
    } else {
      // Anything else: filter and merge, in op order.
      ids = new Int32Array(n - remove.size + add.length);
      let a = 0;
      let w = 0;
      for (let j = 0; j < n; j++) {
        const id = old.ids[j] as number;
        while (a < add.length && (add[a] as number) < id) ids[w++] = add[a++] as number;
        if (!remove.has(id)) ids[w++] = id;
      }
      while (a < add.length) ids[w++] = add[a++] as number;
    }
    // Order by address: small rows are checked whole; a large one keeps its
    // direction, so only the added blocks' neighbours are checked.
    if (ids.length <= 64 || n < 2) {
      const row = orderRow(t, starts, ids, false);
      if (row.sorted) return undefined;
      out[r] = row;
      continue;
    }
    const addr = (i: number): number => addressOfId(t, starts, i);
    const fits = (j: number): boolean => {
      if (j <= 0 || j >= ids.length) return true;
      const x = addr(ids[j - 1] as number);
      const y = addr(ids[j] as number);
      return old.backwards ? y < x : y >= x;
    };
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
    out[r] = { ids, backwards: old.backwards, sorted: false };
  }
  return { step: k, rows: out, total };
}

function wrap(t: TraceView, core: Core): Held {
  const { meta, gone_at } = t.cols;
  const k = core.step;
  const starts = chunkStarts(t);
  const rows = core.rows.length - 1;
  const addr = (i: number): number => addressOfId(t, starts, i);
  const blocks = new Map<number, Block>();
  const made = (i: number): Block => {
    let b = blocks.get(i);
    if (!b) blocks.set(i, (b = makeBlock(t, starts, i, k)));
    return b;
  };
  const find = (id: number): Block | undefined => {
    if (!Number.isInteger(id) || id < 0 || id >= k) return undefined;
    if (((meta[id] as number) & META_PLACED) === 0 || (gone_at[id] as number) < k) return undefined;
    return made(id);
  };
  const successor = (id: number): Block | undefined => {
    if (!Number.isInteger(id) || id < 0 || id >= t.length) return undefined;
    const d = t.cols.dead_at[id] as number;
    if (d === NONE || ((meta[d] as number) & META_KIND) !== 1) return undefined;
    const b = find(d);
    return b && b.from === id ? b : undefined;
  };
  const rowCache = new Map<number, HeldRow>();
  const row = (id: number): HeldRow => {
    let hr = rowCache.get(id);
    if (!hr) {
      const r = Number.isInteger(id) && id >= 0 && id < rows ? (core.rows[id] ?? EMPTY) : EMPTY;
      hr = makeRow(t, id, r.ids, r.backwards, addr, made, k, find, successor);
      rowCache.set(id, hr);
    }
    return hr;
  };
  return {
    step: k,
    total: core.total,
    row,
    find,
    successor,
    chunkIds() {
      const out: number[] = [];
      for (let r = 0; r < rows; r++) if ((core.rows[r]?.ids.length ?? 0) > 0) out.push(r);
      return out;
    },
  };
}

function makeBlock(t: TraceView, starts: Float64Array, i: number, k: number): Block {
  const { meta, chunk, size: sizes, padding: paddings, dead_at } = t.cols;
  const m = meta[i] as number;
  const kind = (m & META_KIND) === 1 ? "realloc" : "alloc";
  const stmt = t.stmts[m >>> META_STMT_SHIFT];
  const address = addressOfId(t, starts, i);
  const size = sizes[i] as number;
  const padding = paddings[i] as number;
  const dead = dead_at[i] as number;
  let state: BlockState = "live";
  if (dead !== NONE && dead < k) state = ((meta[dead] as number) & META_KIND) === 2 ? "freed" : "leaked";
  const block: Block = {
    id: i,
    name: stmt?.block ?? `#${i}`,
    chunk: rowOf(chunk[i] as number),
    address,
    size,
    align: 2 ** ((m >>> META_ALIGN_SHIFT) & 0xf),
    padding,
    paddingStart: t.direction === "down" ? address + size : address - padding,
    state,
    kind,
    ...(stmt ? { line: stmt.line } : {}),
  };
  if (kind === "realloc") {
    const from = t.op(i).target_op;
    if (from !== undefined) block.from = from;
  }
  return block;
}

function makeRow(
  t: TraceView,
  chunkId: number,
  ids: Int32Array,
  backwards: boolean,
  addr: (i: number) => number,
  made: (i: number) => Block,
  k: number,
  find: (id: number) => Block | undefined,
  successor: (id: number) => Block | undefined,
): HeldRow {
  const { size: sizes, padding: paddings, dead_at, chunk: chunks, offset: offsets } = t.cols;
  const starts = chunkStarts(t);
  const n = ids.length;
  const down = t.direction === "down";
  const last = n - 1;
  const idAt = backwards ? (j: number): number => ids[last - j] as number : (j: number): number => ids[j] as number;
  const address = (j: number): number => addr(idAt(j));
  const size = (j: number): number => sizes[idAt(j)] as number;
  const firstEndingAfter = (a: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const s = size(mid);
      const x = address(mid);
      if (s === 0 ? x < a : x + s <= a) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const endBefore = (a: number): number => {
    let lo = 0;
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (address(mid) < a) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const block = (j: number): Block => made(idAt(j));
  const slice = (from: number, to: number): Block[] => {
    const out: Block[] = [];
    for (let j = Math.max(0, from); j < Math.min(n, to); j++) out.push(block(j));
    return out;
  };
  return {
    chunk: chunkId,
    count: n,
    id: idAt,
    address,
    size,
    firstEndingAfter,
    endBefore,
    block,
    slice,
    all: () => slice(0, n),
    find(id) {
      const b = find(id);
      return b && b.chunk === chunkId ? b : undefined;
    },
    successor(id) {
      const b = successor(id);
      return b && b.chunk === chunkId ? b : undefined;
    },
    bins(lo, hi, count) {
      const nb = Math.max(1, Math.floor(count));
      const sums = binSums(t, chunkId, k, lo, hi, nb, () => {
        // One tight pass over the blocks in range: a block inside one bin (most
        // of them when there are many) is added inline, others spread.
        const fresh = newSums(nb);
        const span = hi - lo;
        if (!(span > 0)) return fresh;
        const width = span / nb;
        const { blocks: nBlocks, live, dead, padding } = fresh;
        const nStarts = starts.length;
        const first = firstEndingAfter(lo);
        for (let j = first > 0 ? first - 1 : 0; j < n; j++) {
          const i = (backwards ? ids[last - j] : ids[j]) as number;
          const c = chunks[i] as number;
          const off = offsets[i] as number;
          const a = c === NONE || c >= nStarts ? off : (starts[c] as number) + off;
          const sz = sizes[i] as number;
          const p = paddings[i] as number;
          const pStart = down ? a + sz : a - p;
          if ((p > 0 && pStart < a ? pStart : a) >= hi) break;
          const end = a + sz;
          if (sz === 0 ? a >= lo && a < hi : end > lo && a < hi) {
            const from = a > lo ? a : lo;
            let bb = Math.floor((from - lo) / width);
            if (bb >= nb) bb = nb - 1;
            nBlocks[bb] = (nBlocks[bb] as number) + 1;
            const d = dead_at[i] as number;
            const arr = d === NONE || d >= k ? live : dead;
            const to = end < hi ? end : hi;
            if (to > from) {
              const bl = lo + bb * width;
              const bh = bb === nb - 1 ? hi : lo + (bb + 1) * width;
              if (from >= bl && to <= bh) arr[bb] = (arr[bb] as number) + (to - from);
              else spread(fresh, arr, a, end, lo, hi, width, 1);
            }
          }
          if (p > 0) spread(fresh, padding, pStart, pStart + p, lo, hi, width, 1);
        }
        return fresh;
      });
      const width = (hi - lo) / nb;
      const bins = new Array<Bin>(nb);
      for (let j = 0; j < nb; j++) {
        bins[j] = {
          lo: lo + j * width,
          hi: j === nb - 1 ? hi : lo + (j + 1) * width,
          blocks: sums.blocks[j] as number,
          live: sums.live[j] as number,
          dead: sums.dead[j] as number,
          padding: sums.padding[j] as number,
        };
      }
      return bins;
    },
  };
}

// ---- Bins ------------------------------------------------------------------

interface Sums {
  blocks: Float64Array;
  live: Float64Array;
  dead: Float64Array;
  padding: Float64Array;
}

const newSums = (nb: number): Sums => ({
  blocks: new Float64Array(nb),
  live: new Float64Array(nb),
  dead: new Float64Array(nb),
  padding: new Float64Array(nb),
});

/**
 * Adds (sign 1) or takes away (sign -1) the block op i placed, as held after
 * `step` ops, to bins over [lo, hi): mapBins.binBlocks' arithmetic. Returns
 * false when the block (and so every later one by address) starts at or past
 * `hi`.
 */
function addBlock(t: TraceView, starts: Float64Array, sums: Sums, i: number, step: number, lo: number, hi: number, sign: 1 | -1): boolean {
  const { chunk: chunks, offset: offsets, size: sizes, padding: paddings, dead_at } = t.cols;
  const nb = sums.blocks.length;
  const span = hi - lo;
  if (!(span > 0)) return false;
  const width = span / nb;
  const c = chunks[i] as number;
  const off = offsets[i] as number;
  const a = c === NONE || c >= starts.length ? off : (starts[c] as number) + off;
  const s = sizes[i] as number;
  const p = paddings[i] as number;
  const pStart = t.direction === "down" ? a + s : a - p;
  const low = p > 0 && pStart < a ? pStart : a;
  if (low >= hi) return false;
  const end = a + s;
  if (s === 0 ? a >= lo && a < hi : end > lo && a < hi) {
    const from = a > lo ? a : lo;
    let bb = Math.floor((from - lo) / width);
    if (bb >= nb) bb = nb - 1;
    sums.blocks[bb] = (sums.blocks[bb] as number) + sign;
    const d = dead_at[i] as number;
    spread(sums, d === NONE || d >= step ? sums.live : sums.dead, a, end, lo, hi, width, sign);
  }
  if (p > 0) spread(sums, sums.padding, pStart, pStart + p, lo, hi, width, sign);
  return true;
}

/** Adds the bytes [a0, a1), clipped to [lo, hi), to `arr` in every bin they touch. */
function spread(sums: Sums, arr: Float64Array, a0: number, a1: number, lo: number, hi: number, width: number, sign: 1 | -1): void {
  const nb = sums.blocks.length;
  const from = a0 > lo ? a0 : lo;
  const to = a1 < hi ? a1 : hi;
  if (to <= from) return;
  let b = Math.min(nb - 1, Math.max(0, Math.floor((from - lo) / width)));
  for (; b < nb; b++) {
    const bl = lo + b * width;
    if (bl >= to) break;
    const bh = b === nb - 1 ? hi : lo + (b + 1) * width;
    const overlap = (to < bh ? to : bh) - (from > bl ? from : bl);
    if (overlap > 0) arr[b] = (arr[b] as number) + sign * overlap;
  }
}

/** Rows with at least this many blocks reuse the bins of a nearby step and apply what changed in between. */
let deltaMinBlocks = 4096;
/** Sets that threshold (tests lower it to check the deltas on small traces); returns the old one. */
export function setBinDeltaMin(n: number): number {
  const old = deltaMinBlocks;
  deltaMinBlocks = n;
  return old;
}
/** How many steps away a reusable step may be. */
const DELTA_MAX_STEPS = 32;

interface BinEntry {
  lo: number;
  hi: number;
  nb: number;
  step: number;
  sums: Sums;
}

/** The last bins computed per trace and chunk, for a few ranges (zooming out finds 1x's again). */
const binCache = new WeakMap<TraceView, Map<number, BinEntry[]>>();
const BIN_RANGES = 8;

/** Whether op i's block is held after `step` ops. */
const heldAfter = (t: TraceView, i: number, step: number): boolean =>
  i < step && ((t.cols.meta[i] as number) & META_PLACED) !== 0 && (t.cols.gone_at[i] as number) >= step;

/**
 * The bins of chunk `chunkId` after `step` ops over [lo, hi): the last ones
 * computed for this chunk and range when they are of the same step, or of a
 * step at most DELTA_MAX_STEPS away and the row is large (then only the
 * blocks the ops in between placed, freed, replaced or reclaimed are taken
 * out and put back); else `compute()`.
 */
function binSums(t: TraceView, chunkId: number, step: number, lo: number, hi: number, nb: number, compute: () => Sums): Sums {
  let perChunk = binCache.get(t);
  if (!perChunk) binCache.set(t, (perChunk = new Map()));
  let entries = perChunk.get(chunkId);
  if (!entries) perChunk.set(chunkId, (entries = []));
  const list = entries;
  const at = list.findIndex((e) => e.lo === lo && e.hi === hi && e.nb === nb);
  const hit = at >= 0 ? list[at] : undefined;
  const remember = (sums: Sums): Sums => {
    if (at >= 0) list.splice(at, 1);
    list.push({ lo, hi, nb, step, sums });
    if (list.length > BIN_RANGES) list.shift();
    return sums;
  };
  if (!hit) return remember(compute());
  if (hit.step === step) return hit.sums;
  const from = Math.min(hit.step, step);
  const to = Math.max(hit.step, step);
  if (to - from > DELTA_MAX_STEPS) return remember(compute());
  let total = 0;
  for (let j = 0; j < nb; j++) total += hit.sums.blocks[j] as number;
  if (total < deltaMinBlocks) return remember(compute());
  // The blocks whose being held or state can differ between the two steps.
  const changed = new Set<number>();
  for (let j = from; j < to; j++) {
    if (((t.cols.meta[j] as number) & META_PLACED) !== 0) changed.add(j);
    const op = t.op(j);
    if (op.target_op !== undefined) changed.add(op.target_op);
    for (const r of op.reclaimed ?? []) changed.add(r);
    if (changed.size > total / 8) return remember(compute());
  }
  const starts = chunkStarts(t);
  const sums: Sums = {
    blocks: hit.sums.blocks.slice(),
    live: hit.sums.live.slice(),
    dead: hit.sums.dead.slice(),
    padding: hit.sums.padding.slice(),
  };
  for (const i of changed) {
    if (i < 0 || i >= t.length || rowOf(t.cols.chunk[i] as number) !== chunkId) continue;
    if (heldAfter(t, i, hit.step)) addBlock(t, starts, sums, i, hit.step, lo, hi, -1);
    if (heldAfter(t, i, step)) addBlock(t, starts, sums, i, step, lo, hi, 1);
  }
  // Taking away what was added leaves rounding dust: a bin that is empty must read 0.
  for (const arr of [sums.live, sums.dead, sums.padding]) {
    for (let j = 0; j < nb; j++) if (Math.abs(arr[j] as number) < 1e-6) arr[j] = 0;
  }
  return remember(sums);
}
