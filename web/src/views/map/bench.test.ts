import { describe, expect, it } from "vitest";
import { binBlocks } from "../../test/mapOracles";
import { bumpPointerAt, chunkViewsAt, statsAt } from "../../model/chunks";
import { syntheticMapData, syntheticTrace } from "./bench";

describe("synthetic map data", () => {
  it("packs n blocks from the bump origin, listed by address", () => {
    const [row] = syntheticMapData(3, "down").rows;
    expect(row?.chunk.capacity).toBe(32);
    expect(row?.blocks.map((b) => [b.id, b.address - 0x10010])).toEqual([
      [2, 8],
      [1, 16],
      [0, 24],
    ]);
    expect(syntheticMapData(3, "up").rows[0]?.blocks.map((b) => b.address - 0x10010)).toEqual([0, 8, 16]);
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

  it("a synthetic TraceView of a million allocations: any step's row without an object per block", () => {
    const t = syntheticTrace(1_000_000);
    expect(t.length).toBe(1_000_000);
    const [row] = chunkViewsAt(t, 600_000);
    expect(row?.held.count).toBe(600_000);
    expect(row?.used).toBe(4_800_000);
    expect(bumpPointerAt(t, 600_000)).toBe(0x10010 + 8_000_000 - 4_800_000);
    expect(statsAt(t, 600_000).used).toBe(4_800_000);
    // By address: bumping down, the newest block is the lowest.
    expect(row?.held.block(0)).toMatchObject({ id: 599_999, address: 0x10010 + 8_000_000 - 4_800_000, size: 8, state: "live" });
    const bins = row?.held.bins(0x10010, 0x10010 + 8_000_000, 400) ?? [];
    expect(bins.reduce((n, b) => n + b.blocks, 0)).toBe(600_000);
    expect(bins.reduce((n, b) => n + b.live, 0)).toBe(4_800_000);
  });
});
