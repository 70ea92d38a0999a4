// Level-of-detail bins of one chunk's held blocks: the sums model/bins.ts
// describes, from the TraceView's columns, with the arithmetic of the map's
// per-block binning (test/mapOracles.ts binBlocks). A large row's bins at a
// step near one binned before are those bins plus what the ops in between
// changed, so scrubbing a million-block chunk costs the change, not the row.

import { NONE, type TraceView } from "../wasm/traceView";
import type { Bin } from "./bins";
import { chunkStarts, derivable, heldAfter, rowOf, touchedBetween } from "./heldRows";

interface Sums {
  blocks: Float64Array;
  live: Float64Array;
  dead: Float64Array;
  padding: Float64Array;
}

/** The ops a row holds by address: what binning reads of it. */
export interface BinnedRow {
  readonly count: number;
  id(j: number): number;
  firstEndingAfter(address: number): number;
}

/**
 * Reuse of nearby bins: a row keeps the bins of a step at most `maxSteps`
 * away when the ops in between touched none of its blocks; rows with at least
 * `minBlocks` blocks take them and apply what changed, while that is at
 * most an eighth of their blocks (what changed is read from the columns, so
 * a drag moving thousands of ops a frame stays cheap; tests lower
 * `minBlocks` to check the arithmetic on small traces).
 */
export const binDelta = { minBlocks: 4096, maxSteps: 1 << 17 };

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

const NO_OPS = new Int32Array(0);

/** Each list of touched ops split by row, once: every binned row of a step asks for the same list. */
const byRowOf = new WeakMap<Int32Array, Map<number, Int32Array>>();
function touchedByRow(t: TraceView, changed: Int32Array): Map<number, Int32Array> {
  let m = byRowOf.get(changed);
  if (m) return m;
  const chunkOf = t.cols.chunk;
  const lists = new Map<number, number[]>();
  for (let x = 0; x < changed.length; x++) {
    const i = changed[x] as number;
    const r = rowOf(chunkOf[i] as number);
    let l = lists.get(r);
    if (!l) lists.set(r, (l = []));
    l.push(i);
  }
  m = new Map();
  for (const [r, l] of lists) m.set(r, Int32Array.from(l));
  byRowOf.set(changed, m);
  return m;
}

/** Adds the bytes [a0, a1), clipped to [lo, hi), to `arr` in every bin they touch. */
function spread(arr: Float64Array, a0: number, a1: number, lo: number, hi: number, width: number, sign: 1 | -1): void {
  const nb = arr.length;
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

/**
 * A function that adds (sign 1) or takes away (sign -1) the block op i
 * placed, as held after `step` ops, to `sums` over [lo, hi), and returns
 * false when the block (and so every later one by address) starts at or past
 * `hi`. Undefined for an empty range.
 */
function binner(t: TraceView, sums: Sums, lo: number, hi: number): ((i: number, step: number, sign: 1 | -1) => boolean) | undefined {
  const { chunk: chunks, offset: offsets, size: sizes, padding: paddings, dead_at } = t.cols;
  const starts = chunkStarts(t);
  const nStarts = starts.length;
  const down = t.direction === "down";
  const nb = sums.blocks.length;
  if (!(hi - lo > 0)) return undefined;
  const width = (hi - lo) / nb;
  return (i, step, sign) => {
    const c = chunks[i] as number;
    const off = offsets[i] as number;
    const a = c === NONE || c >= nStarts ? off : (starts[c] as number) + off;
    const s = sizes[i] as number;
    const p = paddings[i] as number;
    const pStart = down ? a + s : a - p;
    if ((p > 0 && pStart < a ? pStart : a) >= hi) return false;
    const end = a + s;
    if (s === 0 ? a >= lo && a < hi : end > lo && a < hi) {
      const from = a > lo ? a : lo;
      let bb = Math.floor((from - lo) / width);
      if (bb >= nb) bb = nb - 1;
      sums.blocks[bb] = (sums.blocks[bb] as number) + sign;
      const d = dead_at[i] as number;
      const arr = d === NONE || d >= step ? sums.live : sums.dead;
      const to = end < hi ? end : hi;
      const bh = bb === nb - 1 ? hi : lo + (bb + 1) * width;
      // Most blocks, when there are many, lie inside one bin: added inline.
      if (to > from && from >= lo + bb * width && to <= bh) arr[bb] = (arr[bb] as number) + sign * (to - from);
      else spread(arr, a, end, lo, hi, width, sign);
    }
    if (p > 0) spread(sums.padding, pStart, pStart + p, lo, hi, width, sign);
    return true;
  };
}

const newSums = (nb: number): Sums => ({
  blocks: new Float64Array(nb),
  live: new Float64Array(nb),
  dead: new Float64Array(nb),
  padding: new Float64Array(nb),
});

/** One pass over the row's blocks that reach into [lo, hi). */
function computeSums(t: TraceView, row: BinnedRow, step: number, lo: number, hi: number, nb: number): Sums {
  const sums = newSums(nb);
  const add = binner(t, sums, lo, hi);
  if (!add) return sums;
  const first = row.firstEndingAfter(lo);
  for (let j = first > 0 ? first - 1 : 0; j < row.count; j++) if (!add(row.id(j), step, 1)) break;
  return sums;
}

/**
 * The sums of chunk `chunkId`'s row after `step` ops over [lo, hi): the last
 * ones computed for this chunk and range when they are of the same step, or
 * of a nearby step when the row is large (then only the blocks the ops in
 * between touched are taken out and put back); else computed afresh.
 */
function binSums(t: TraceView, chunkId: number, row: BinnedRow, step: number, lo: number, hi: number, nb: number): Sums {
  let perChunk = binCache.get(t);
  if (!perChunk) binCache.set(t, (perChunk = new Map()));
  let list = perChunk.get(chunkId);
  if (!list) perChunk.set(chunkId, (list = []));
  const at = list.findIndex((e) => e.lo === lo && e.hi === hi && e.nb === nb);
  const hit = list[at];
  if (hit?.step === step) return hit.sums;
  let sums: Sums | undefined;
  // A row nothing touched in between has the same sums whatever its size
  // (a chunk the bump pointer left long ago): the map sees the same bins and
  // redraws nothing. A large row takes the changes into its sums.
  if (hit && Math.abs(hit.step - step) <= binDelta.maxSteps && derivable(hit.step, step)) {
    const mine = touchedByRow(t, touchedBetween(t, Math.min(hit.step, step), Math.max(hit.step, step))).get(chunkId) ?? NO_OPS;
    if (mine.length === 0) {
      hit.step = step;
      return hit.sums;
    }
    const total = hit.sums.blocks.reduce((n, x) => n + x, 0);
    if (total >= binDelta.minBlocks && mine.length <= total / 8) {
      sums = { blocks: hit.sums.blocks.slice(), live: hit.sums.live.slice(), dead: hit.sums.dead.slice(), padding: hit.sums.padding.slice() };
      const add = binner(t, sums, lo, hi);
      for (const i of mine) {
        if (!add) break;
        if (heldAfter(t, i, hit.step)) add(i, hit.step, -1);
        if (heldAfter(t, i, step)) add(i, step, 1);
      }
      // Taking away what was added leaves rounding dust: a bin that is empty must read 0.
      for (const arr of [sums.live, sums.dead, sums.padding]) {
        for (let j = 0; j < nb; j++) if (Math.abs(arr[j] as number) < 1e-6) arr[j] = 0;
      }
    }
  }
  sums ??= computeSums(t, row, step, lo, hi, nb);
  if (at >= 0) list.splice(at, 1);
  list.push({ lo, hi, nb, step, sums });
  if (list.length > BIN_RANGES) list.shift();
  return sums;
}

/** The bins made of each sums (one range each): the same sums give the same array, which the map compares. */
const binsMade = new WeakMap<Sums, Bin[]>();

/** `count` bins over [lo, hi) of chunk `chunkId`'s held blocks after `step` ops. */
export function binsOf(t: TraceView, chunkId: number, row: BinnedRow, step: number, lo: number, hi: number, count: number): Bin[] {
  const nb = Math.max(1, Math.floor(count));
  const sums = binSums(t, chunkId, row, step, lo, hi, nb);
  let bins = binsMade.get(sums);
  if (!bins) binsMade.set(sums, (bins = makeBins(sums, lo, hi, nb)));
  return bins;
}

function makeBins(sums: Sums, lo: number, hi: number, nb: number): Bin[] {
  const width = (hi - lo) / nb;
  return Array.from({ length: nb }, (_, j) => ({
    lo: lo + j * width,
    hi: j === nb - 1 ? hi : lo + (j + 1) * width,
    blocks: sums.blocks[j] as number,
    live: sums.live[j] as number,
    dead: sums.dead[j] as number,
    padding: sums.padding[j] as number,
  }));
}
