// A bin of a level-of-detail row: when a chunk holds more blocks than can be
// drawn one by one, its visible address range is cut into equal bins and each
// is drawn by how much of it is taken. The held index sums them from the
// trace's columns; the map draws them.

export interface Bin {
  /** Address range [lo, hi) the bin covers (fractional when bins do not divide the range evenly). */
  lo: number;
  hi: number;
  /** Blocks whose first byte inside the range falls in this bin: each block is counted once. */
  blocks: number;
  /** Bytes of live blocks in the bin. */
  live: number;
  /** Bytes of freed blocks and of blocks a moving realloc left behind: taken, but dead. */
  dead: number;
  /** Alignment padding bytes in the bin. */
  padding: number;
}

/** Taken bytes of a bin (live, dead and padding) over its width, 0..1. */
export function binFill(bin: Bin): number {
  const w = bin.hi - bin.lo;
  return w > 0 ? Math.min(1, (bin.live + bin.dead + bin.padding) / w) : 0;
}
