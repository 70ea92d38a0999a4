// A figure's fit: each chunk's row narrowed to the bytes the program ever
// uses in it, so a post's small blocks are not a sliver in a mostly empty
// chunk. The span is taken over the whole run (not the step in view), so the
// rows keep their scale while stepping; it reaches from the chunk's bump
// origin to the furthest byte ever in use (blocks, their padding and the
// bump pointer), and the rest of the chunk is drawn as one "unused" break at
// the far end. Pure: the run in, spans out; the run itself is never altered.

import type { ChunkInfo, Direction } from "../../wasm/types";
import { chunkById, chunkOf, paddingOf, placed, sizeOf, type TraceView } from "../../wasm/traceView";

/** Addresses [lo, hi) of a chunk. */
export interface AddressSpan {
  lo: number;
  hi: number;
}

/** The map's figure setting: rows narrowed to these spans (by chunk id), blocks at least `minBlockPx` wide. */
export interface MapFit {
  spans: ReadonlyMap<number, AddressSpan>;
  /**
   * Per chunk, every block body the run ever placed in it ([lo, hi) addresses),
   * so the row's scale can give each its minimum width without overlapping a
   * neighbour; a chunk with more than MAX_FITTED_BODIES has none (drawn linear).
   */
  bodies: ReadonlyMap<number, readonly AddressSpan[]>;
  minBlockPx: number;
}

/** Bodies per chunk past which a row keeps a linear scale (its blocks are bins anyway). */
export const MAX_FITTED_BODIES = 2048;

/** A figure's narrowest block, in pixels: an 8-byte block in a large chunk still reads as a block. */
export const FIGURE_MIN_BLOCK_PX = 6;

/**
 * A chunk whose unused bytes are less than this share of it is drawn whole:
 * a break saving a few pixels would cost more room than it frees.
 */
export const MIN_CUT_SHARE = 0.1;

/**
 * Op details read at most: one per chunk, at the op that placed its furthest
 * block. Each re-runs ops from the run's nearest snapshot (about 50 ms on a
 * 20,000-op run), so a run of more chunks than this has the rest fitted to
 * their blocks alone (the map keeps a pointer past them on the row's edge).
 */
export const DETAIL_READS = 16;

/** The bytes the run ever used in each chunk, from its bump origin to the furthest byte in use. */
export function usedSpans(trace: TraceView): Map<number, AddressSpan> {
  return measure(trace).spans;
}

/** usedSpans, and every block body placed in each chunk (none past MAX_FITTED_BODIES). */
function measure(trace: TraceView): { spans: Map<number, AddressSpan>; bodies: Map<number, AddressSpan[]> } {
  const extent = new Map<number, AddressSpan>();
  const widen = (id: number, lo: number, hi: number): void => {
    if (!(hi > lo)) return;
    const e = extent.get(id);
    if (e) {
      e.lo = Math.min(e.lo, lo);
      e.hi = Math.max(e.hi, hi);
    } else extent.set(id, { lo, hi });
  };
  const down = trace.direction === "down";
  // Every block with its padding, from the columns (no op detail needed), and
  // per chunk the op whose block reaches furthest from the bump origin.
  const starts = new Map(trace.chunks.map((c) => [c.id, c.start] as const));
  const furthest = new Map<number, { op: number; reach: number }>();
  const bodies = new Map<number, Map<string, AddressSpan>>();
  for (let i = 0; i < trace.length; i++) {
    if (!placed(trace, i)) continue;
    const id = chunkOf(trace, i);
    const start = id === undefined ? undefined : starts.get(id);
    if (id === undefined || start === undefined) continue;
    const address = start + (trace.cols.offset[i] ?? 0);
    const size = sizeOf(trace, i);
    const padding = paddingOf(trace, i);
    const lo = down ? address : address - padding;
    const hi = down ? address + size + padding : address + size;
    widen(id, lo, hi);
    if (size > 0) {
      let known = bodies.get(id);
      if (!known) bodies.set(id, (known = new Map()));
      if (known.size <= MAX_FITTED_BODIES) known.set(`${address}:${size}`, { lo: address, hi: address + size });
    }
    const reach = down ? -lo : hi;
    const best = furthest.get(id);
    if (!best || reach > best.reach) furthest.set(id, { op: i, reach });
  }
  // The bump pointer may round up past that block: the bytes in use right
  // after it say by how much (and the last op's, for what came after).
  const reads = [...furthest.values()].slice(0, DETAIL_READS).map((f) => f.op);
  if (trace.length > 0) reads.push(trace.length - 1);
  for (const i of new Set(reads)) for (const u of trace.chunksUsed(i)) widen(u.id, u.lo, u.hi);
  const spans = new Map<number, AddressSpan>();
  for (const [id, e] of extent) {
    const chunk = chunkById(trace, id);
    if (!chunk) continue;
    const end = chunk.start + chunk.capacity;
    // From the bump origin: the break is only ever at the far end, past the high-water mark.
    spans.set(id, trace.direction === "down" ? { lo: Math.max(chunk.start, Math.min(e.lo, end)), hi: end } : { lo: chunk.start, hi: Math.min(end, Math.max(e.hi, chunk.start)) });
  }
  const fitted = new Map<number, AddressSpan[]>();
  for (const [id, known] of bodies) if (known.size <= MAX_FITTED_BODIES) fitted.set(id, [...known.values()]);
  return { spans, bodies: fitted };
}

const fits = new WeakMap<TraceView, MapFit>();

/** A run's figure fit, computed once per run (it reads every op's bytes in use). */
export function figureFit(trace: TraceView, minBlockPx = FIGURE_MIN_BLOCK_PX): MapFit {
  const known = fits.get(trace);
  if (known && known.minBlockPx === minBlockPx) return known;
  const { spans, bodies } = measure(trace);
  const fit = { spans, bodies, minBlockPx };
  fits.set(trace, fit);
  return fit;
}

/** Where a row is cut and how many bytes the break stands for; null when the row is drawn whole. */
export interface RowCut {
  /** The span drawn to scale. */
  span: AddressSpan;
  /** The side of the row the unused bytes are on: past the high-water mark. */
  side: "start" | "end";
  bytes: number;
}

/** The cut of `chunk`'s row under `fit` (null: drawn whole, when never used or the unused share is small). */
export function rowCut(chunk: Pick<ChunkInfo, "id" | "start" | "capacity">, direction: Direction, fit: MapFit | undefined): RowCut | null {
  const span = fit?.spans.get(chunk.id);
  if (!span || !(chunk.capacity > 0)) return null;
  const bytes = chunk.capacity - (span.hi - span.lo);
  if (span.hi <= span.lo || bytes < chunk.capacity * MIN_CUT_SHARE) return null;
  return { span, side: direction === "down" ? "start" : "end", bytes };
}

/** The break's words: what the row leaves out ("⋯ 440 B" where the row has no room for more). */
export function cutLabel(bytes: number, short = false): string {
  return `⋯ ${bytes.toLocaleString("en-US")} B${short ? "" : " unused"}`;
}

/**
 * A row's scale under a fit: the addresses [lo, hi) over pixels [x0, x1],
 * linear unless some block would be narrower than `minPx`. Then each stretch
 * between block edges inside a body gets at least `minPx` and the rest share
 * what is left in proportion to their bytes, so a widened block never covers
 * its neighbour (a block widened in place would hide the next one). The
 * result is a polylinear scale's domain and range (same length, ascending).
 */
export function fittedScale(lo: number, hi: number, bodies: readonly AddressSpan[] | undefined, x0: number, x1: number, minPx: number): { domain: number[]; range: number[] } {
  const linear = { domain: [lo, hi], range: [x0, x1] };
  const width = x1 - x0;
  if (!bodies || bodies.length === 0 || !(hi > lo) || !(width > 0) || !(minPx > 0)) return linear;
  const edgeSet = new Set<number>([lo, hi]);
  for (const b of bodies) {
    if (b.lo > lo && b.lo < hi) edgeSet.add(b.lo);
    if (b.hi > lo && b.hi < hi) edgeSet.add(b.hi);
  }
  const edges = [...edgeSet].sort((a, b) => a - b);
  const n = edges.length - 1;
  const bytes = edges.slice(1).map((e, i) => e - edges[i]!);
  // Which stretches lie inside some block body (they get the minimum width).
  const inBody = new Array<boolean>(n).fill(false);
  const indexOf = (a: number): number => {
    let l = 0;
    let r = edges.length - 1;
    while (l < r) {
      const m = (l + r) >> 1;
      if (edges[m]! < a) l = m + 1;
      else r = m;
    }
    return l;
  };
  for (const b of bodies) {
    const from = indexOf(Math.max(lo, b.lo));
    const to = indexOf(Math.min(hi, b.hi));
    for (let i = from; i < to; i++) inBody[i] = true;
  }
  const total = hi - lo;
  let k = width / total;
  let clamped = new Array<boolean>(n).fill(false);
  for (let round = 0; round < 64; round++) {
    const next = bytes.map((b, i) => inBody[i]! && b * k < minPx);
    const count = next.filter(Boolean).length;
    const free = bytes.reduce((sum, b, i) => sum + (next[i] ? 0 : b), 0);
    if (count === 0) return linear;
    if (width - count * minPx <= 0 || free <= 0) return linear;
    const k2 = (width - count * minPx) / free;
    const same = next.every((c, i) => c === clamped[i]);
    clamped = next;
    k = k2;
    if (same) break;
  }
  const range = [x0];
  for (let i = 0; i < n; i++) range.push(range[i]! + (clamped[i] ? minPx : bytes[i]! * k));
  // Rounding: the last stop is exactly x1.
  range[n] = x1;
  return { domain: edges, range };
}
