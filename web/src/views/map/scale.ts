// Zoom arithmetic for the memory map, pure: the pixel transform along the
// address axis, the hex ticks for what is in view, when bytes are wide enough
// to draw one by one, and when a new trace keeps the zoom.

import type { ChunkInfo } from "../../wasm/types";

/** A zoom along x only, in plot pixels: x' = x * k + x0 (d3-zoom's k and x). */
export interface AxisZoom {
  k: number;
  x: number;
}

export const IDENTITY: AxisZoom = { k: 1, x: 0 };

/** Bytes at least this wide get their own grid line. */
export const BYTE_GRID_MIN_PX = 6;
/** The deepest zoom shows a byte this wide in the biggest chunk. */
export const MAX_BYTE_PX = 48;

export function zoomX(z: AxisZoom, px: number): number {
  return px * z.k + z.x;
}

/** The zoom factor at which a chunk of `capacity` bytes drawn `pixels` wide shows each byte MAX_BYTE_PX wide (at least 1). */
export function maxZoom(capacity: number, pixels: number): number {
  if (!(capacity > 0) || !(pixels > 0)) return 1;
  return Math.max(1, (MAX_BYTE_PX * capacity) / pixels);
}

/** Keeps the zoomed content covering the view [0, width]: no empty space past either end. */
export function clampZoom(z: AxisZoom, width: number, kMax: number): AxisZoom {
  const k = Math.min(Math.max(1, z.k), Math.max(1, kMax));
  const x = Math.min(0, Math.max(width - width * k, z.x));
  return { k, x };
}

/** Scales by `factor` about the view's pixel `cx`, clamped. */
export function zoomAbout(z: AxisZoom, factor: number, cx: number, width: number, kMax: number): AxisZoom {
  const k = Math.min(Math.max(1, z.k * factor), Math.max(1, kMax));
  // Keep the content under cx where it is.
  const x = cx - ((cx - z.x) / z.k) * k;
  return clampZoom({ k, x }, width, kMax);
}

/**
 * Hex tick positions for the visible addresses [lo, hi] drawn `pixels` wide:
 * multiples of a power of two, as many as fit at `spacing` pixels apart,
 * plus any chunk edge in view, with inner ticks too close to an edge dropped.
 */
export function addressTicks(
  lo: number,
  hi: number,
  pixels: number,
  opts: { spacing: number; edges: readonly number[]; labelWidth: (address: number) => number },
): number[] {
  if (!(hi > lo) || !(pixels > 0)) return [...opts.edges].filter((e) => e >= lo && e <= hi);
  const maxTicks = Math.max(1, Math.floor(pixels / opts.spacing));
  let step = 1;
  while ((hi - lo) / step > maxTicks) step *= 2;
  const px = (a: number): number => ((a - lo) / (hi - lo)) * pixels;
  const edges = opts.edges.filter((e) => e >= lo && e <= hi);
  const ticks: number[] = [...edges];
  for (let a = Math.ceil(lo / step) * step; a <= hi; a += step) {
    if (edges.includes(a)) continue;
    // An inner tick's label must clear every edge's label.
    const clear = edges.every((e) => Math.abs(px(e) - px(a)) >= (opts.labelWidth(a) + opts.labelWidth(e)) / 2 + 10);
    if (clear) ticks.push(a);
  }
  return ticks.sort((a, b) => a - b);
}

/** The addresses in view [lo, hi] of a row whose usable bytes span pixels [x0, x1] unzoomed, in a view `width` wide. */
export function visibleAddresses(
  chunk: { start: number; capacity: number },
  x0: number,
  x1: number,
  width: number,
  z: AxisZoom,
): { lo: number; hi: number } {
  const end = chunk.start + chunk.capacity;
  const zx0 = zoomX(z, x0);
  const zx1 = zoomX(z, x1);
  const perPx = zx1 > zx0 ? chunk.capacity / (zx1 - zx0) : 0;
  const lo = chunk.start + Math.max(0, -zx0) * perPx;
  const hi = end - Math.max(0, zx1 - width) * perPx;
  return { lo: Math.max(chunk.start, Math.min(lo, end)), hi: Math.max(chunk.start, Math.min(hi, end)) };
}

/** A chunk's place in the layout: a new trace with none of these in common starts unzoomed. */
export function layoutKeys(chunks: readonly Pick<ChunkInfo, "id" | "start" | "capacity">[]): string[] {
  return chunks.map((c) => `${c.id}@${c.start}+${c.capacity}`);
}

/**
 * Whether the zoom should survive going from layout `before` to `after`: some
 * chunk is the same. No chunks on either side (a lazy allocator's step 0)
 * says nothing, and keeps it.
 */
export function keepsZoom(before: readonly string[], after: readonly string[]): boolean {
  if (before.length === 0 || after.length === 0) return true;
  const seen = new Set(before);
  return after.some((k) => seen.has(k));
}
