import { describe, expect, it } from "vitest";
import { binFill } from "../model/bins";
import { binBlocks, firstBlockEndingAfter, type BlockSpan } from "./mapOracles";

const live = (address: number, size: number, padding = 0, paddingStart = address + size): BlockSpan => ({
  address,
  size,
  padding,
  paddingStart,
  state: "live",
});

describe("binBlocks", () => {
  it("counts each block once, in the bin of its first byte, and clips bytes to bins", () => {
    // Bins of 16 bytes over [0x1000, 0x1040).
    const blocks = [live(0x1000, 8), live(0x1008, 12), { ...live(0x1020, 4), state: "freed" as const }, live(0x1030, 16)];
    const bins = binBlocks(blocks, 0x1000, 0x1040, 4);
    expect(bins.map((b) => [b.lo, b.hi, b.blocks, b.live, b.dead, b.padding])).toEqual([
      [0x1000, 0x1010, 2, 16, 0, 0], // 8 + the first 8 of the 12-byte block
      [0x1010, 0x1020, 0, 4, 0, 0], // its last 4
      [0x1020, 0x1030, 1, 0, 4, 0], // freed bytes are dead, not live
      [0x1030, 0x1040, 1, 16, 0, 0],
    ]);
    expect(bins.reduce((n, b) => n + b.blocks, 0)).toBe(4);
    expect(bins.reduce((n, b) => n + b.live + b.dead, 0)).toBe(8 + 12 + 4 + 16);
  });

  it("100,000 8-byte blocks in 1000 bins: 100 blocks and 800 bytes each", () => {
    const blocks = Array.from({ length: 100_000 }, (_, i) => live(0x10000 + 8 * i, 8));
    const bins = binBlocks(blocks, 0x10000, 0x10000 + 800_000, 1000);
    expect(bins).toHaveLength(1000);
    expect(bins.every((b) => b.blocks === 100 && b.live === 800 && b.dead === 0)).toBe(true);
    expect(binFill(bins[0]!)).toBe(1);
  });

  it("counts padding where it lies, including padding of a block just outside the range", () => {
    // Bumping down: a's 8 bytes of padding lie above it at 0x1018..0x1020.
    const a = live(0x1010, 8, 8, 0x1018);
    const b = live(0x1020, 16);
    const bins = binBlocks([a, b], 0x1018, 0x1028, 2);
    expect(bins.map((x) => [x.lo, x.hi, x.blocks, x.live, x.padding])).toEqual([
      [0x1018, 0x1020, 0, 0, 8], // only a's padding: a itself is out of range
      [0x1020, 0x1028, 1, 8, 0],
    ]);
  });

  it("a range with part of a block counts it in the first bin and only its bytes in range", () => {
    const bins = binBlocks([live(0x100, 0x100)], 0x180, 0x1c0, 2);
    expect(bins.map((b) => [b.blocks, b.live])).toEqual([
      [1, 0x20],
      [0, 0x20],
    ]);
    expect(binFill(bins[1]!)).toBe(1);
  });

  it("an empty range or no blocks gives empty bins", () => {
    expect(binBlocks([], 0, 64, 4).map((b) => b.blocks + b.live)).toEqual([0, 0, 0, 0]);
    expect(binBlocks([live(0, 8)], 8, 8, 3).map((b) => b.live)).toEqual([0, 0, 0]);
  });
});

describe("block search by address", () => {
  const blocks = [live(0x10, 8), live(0x18, 0), live(0x20, 8), live(0x30, 16)];
  it("finds the first block reaching past an address", () => {
    expect(firstBlockEndingAfter(blocks, 0)).toBe(0);
    expect(firstBlockEndingAfter(blocks, 0x18)).toBe(1); // the zero-sized block at 0x18
    expect(firstBlockEndingAfter(blocks, 0x19)).toBe(2);
    expect(firstBlockEndingAfter(blocks, 0x40)).toBe(4);
  });
});
