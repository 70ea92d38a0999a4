// Test oracles for the held index (model/held.ts): the same searches and
// bins computed the plain way, over an array of blocks sorted by address.
// The page never calls these; tests compare the columnar answers with them.

import type { Bin } from "../model/bins";
import type { BlockState } from "../model/blocks";

/** The parts of a block the bins need (a model Block fits). */
export interface BlockSpan {
  address: number;
  size: number;
  padding: number;
  paddingStart: number;
  state: BlockState;
}

/**
 * Index of the first block whose bytes reach past `address` (blocks sorted by
 * address and not overlapping, as a chunk's blocks are).
 */
export function firstBlockEndingAfter(blocks: readonly { address: number; size: number }[], address: number): number {
  let lo = 0;
  let hi = blocks.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const b = blocks[mid];
    // A zero-sized block at `address` still counts as reaching it.
    if (b && (b.size === 0 ? b.address < address : b.address + b.size <= address)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Cuts [lo, hi) into `count` equal bins and adds each block's bytes (clipped
 * to the range) to the bins they fall in. `blocks` must be sorted by address.
 * Cost: a binary search, then one pass over the blocks in range and the bins
 * they span.
 */
export function binBlocks(blocks: readonly BlockSpan[], lo: number, hi: number, count: number): Bin[] {
  const n = Math.max(1, Math.floor(count));
  const span = hi - lo;
  const width = span / n;
  const bins: Bin[] = Array.from({ length: n }, (_, i) => ({
    lo: lo + i * width,
    hi: i === n - 1 ? hi : lo + (i + 1) * width,
    blocks: 0,
    live: 0,
    dead: 0,
    padding: 0,
  }));
  if (!(span > 0)) return bins;
  const binOf = (a: number): number => Math.min(n - 1, Math.max(0, Math.floor((a - lo) / width)));
  // Adds the bytes [a0, a1) to `field` of every bin they touch.
  const spread = (a0: number, a1: number, field: "live" | "dead" | "padding"): void => {
    const from = Math.max(a0, lo);
    const to = Math.min(a1, hi);
    if (to <= from) return;
    for (let i = binOf(from); i < n; i++) {
      const bin = bins[i];
      if (!bin || bin.lo >= to) break;
      const overlap = Math.min(to, bin.hi) - Math.max(from, bin.lo);
      if (overlap > 0) bin[field] += overlap;
    }
  };
  // Padding may lie above a block (bumping down): start from blocks a little
  // before `lo` would miss it only if padding alone crossed `lo`; the scan
  // below starts at the first block ending after `lo` and also takes padding
  // of that block, which is the only one that can straddle `lo`.
  const first = firstBlockEndingAfter(blocks, lo);
  const start = Math.max(0, first - 1);
  for (let i = start; i < blocks.length; i++) {
    const b = blocks[i];
    if (!b) break;
    const low = Math.min(b.address, b.padding > 0 ? b.paddingStart : b.address);
    if (low >= hi) break;
    const end = b.address + b.size;
    const inRange = b.size === 0 ? b.address >= lo && b.address < hi : end > lo && b.address < hi;
    if (inRange) {
      const bin = bins[binOf(Math.max(b.address, lo))];
      if (bin) bin.blocks += 1;
      spread(b.address, end, b.state === "live" ? "live" : "dead");
    }
    if (b.padding > 0) spread(b.paddingStart, b.paddingStart + b.padding, "padding");
  }
  return bins;
}
