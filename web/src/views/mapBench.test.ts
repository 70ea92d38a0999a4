import { describe, expect, it } from "vitest";
import { binBlocks } from "./mapBins";
import { syntheticMapData, syntheticRows } from "./mapBench";

describe("syntheticRows", () => {
  it("packs n blocks from the bump origin, listed by address", () => {
    const [row] = syntheticRows(3, 8, "down");
    expect(row?.chunk.capacity).toBe(32);
    expect(row?.blocks.map((b) => [b.id, b.address - 0x10010])).toEqual([
      [2, 8],
      [1, 16],
      [0, 24],
    ]);
    expect(syntheticRows(3, 8, "up")[0]?.blocks.map((b) => b.address - 0x10010)).toEqual([0, 8, 16]);
  });

  it("100,000 blocks: 800,000 bytes used, and binned they add up", () => {
    const data = syntheticMapData(100_000);
    const row = data.rows[0];
    expect(row?.blocks).toHaveLength(100_000);
    expect(row?.used).toBe(800_000);
    expect(data.bumpPtr).toBe(0x10010);
    const bins = binBlocks(row?.blocks ?? [], 0x10010, 0x10010 + 800_000, 500);
    expect(bins.reduce((n, b) => n + b.blocks, 0)).toBe(100_000);
    expect(bins.reduce((n, b) => n + b.live, 0)).toBe(800_000);
  });
});
