// A figure's fit: each chunk's row narrowed to the bytes the program ever
// uses in it, so a post's small blocks are not a sliver in a mostly empty
// chunk. The span is taken over the whole run (not the step in view), so the
// rows keep their scale while stepping; it reaches from the chunk's bump
// origin to the furthest byte ever in use (blocks, their padding and the
// bump pointer), and the rest of the chunk is drawn as one "unused" break at
// the far end. Pure: the run in, spans out; the run itself is never altered.

import type { ChunkInfo, Direction } from "../../engine/types";
import { chunkById, chunkOf, paddingOf, placed, sizeOf, type TraceView } from "../../engine/traceView";

/** Addresses [lo, hi) of a chunk. */
export interface AddressSpan {
  lo: number;
  hi: number;
}

/** The map's figure setting: rows narrowed to these spans (by chunk id), blocks at least `minBlockPx` wide. */
export interface MapFit {
  spans: ReadonlyMap<number, AddressSpan>;
  minBlockPx: number;
}

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
  return spans;
}

const fits = new WeakMap<TraceView, MapFit>();

/** A run's figure fit, computed once per run (it reads every op's bytes in use). */
export function figureFit(trace: TraceView, minBlockPx = FIGURE_MIN_BLOCK_PX): MapFit {
  const known = fits.get(trace);
  if (known && known.minBlockPx === minBlockPx) return known;
  const fit = { spans: usedSpans(trace), minBlockPx };
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
