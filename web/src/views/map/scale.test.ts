import { describe, expect, it } from "vitest";
import { addressTicks, clampZoom, keepsZoom, layoutKeys, maxZoom, visibleAddresses, zoomAbout, zoomX } from "./scale";

const hexWidth = (a: number): number => `0x${a.toString(16)}`.length * 6.4;

describe("addressTicks", () => {
  it("unzoomed 256-byte chunk: both edges and power-of-two multiples between them", () => {
    const ticks = addressTicks(0x10010, 0x10110, 600, { spacing: 84, edges: [0x10010, 0x10110], labelWidth: hexWidth });
    expect(ticks[0]).toBe(0x10010);
    expect(ticks[ticks.length - 1]).toBe(0x10110);
    // 600 px fit 7 ticks: a step of 64 bytes.
    expect(ticks.slice(1, -1)).toEqual([0x10040, 0x10080, 0x100c0]);
  });

  it("zoomed in to 16 bytes: a tick every few bytes, no chunk edge in view", () => {
    const ticks = addressTicks(0x10080, 0x10090, 600, { spacing: 84, edges: [0x10010, 0x10110], labelWidth: hexWidth });
    expect(ticks).toEqual([0x10080, 0x10084, 0x10088, 0x1008c, 0x10090]);
  });

  it("drops inner ticks whose labels would touch an edge's", () => {
    const ticks = addressTicks(0x10010, 0x10110, 600, { spacing: 84, edges: [0x10010, 0x10110], labelWidth: () => 300 });
    expect(ticks).toEqual([0x10010, 0x10110]);
  });
});

describe("zoom arithmetic", () => {
  it("zooming about a point keeps the content under it", () => {
    const z = zoomAbout({ k: 1, x: 0 }, 2, 300, 600, 100);
    expect(z).toEqual({ k: 2, x: -300 });
    expect(zoomX(z, 300)).toBe(300);
  });

  it("clamps to 1..kMax and keeps the content covering the view", () => {
    expect(clampZoom({ k: 0.5, x: 40 }, 600, 8)).toEqual({ k: 1, x: 0 });
    expect(clampZoom({ k: 16, x: -100 }, 600, 8)).toEqual({ k: 8, x: -100 });
    expect(clampZoom({ k: 2, x: -900 }, 600, 8)).toEqual({ k: 2, x: -600 });
  });

  it("the deepest zoom shows a byte 48 px wide", () => {
    expect(maxZoom(256, 512)).toBe(24);
    expect(maxZoom(16, 800)).toBe(1);
  });

  it("the addresses in view of a zoomed row", () => {
    // 256 bytes over pixels 0..512, zoomed 4x about the middle: the middle 64 bytes.
    const z = zoomAbout({ k: 1, x: 0 }, 4, 256, 512, 100);
    expect(visibleAddresses({ start: 0x1000, capacity: 256 }, 0, 512, 512, z)).toEqual({ lo: 0x1060, hi: 0x10a0 });
    expect(visibleAddresses({ start: 0x1000, capacity: 256 }, 0, 512, 512, { k: 1, x: 0 })).toEqual({ lo: 0x1000, hi: 0x1100 });
  });
});

describe("keepsZoom", () => {
  const a = layoutKeys([{ id: 0, start: 0x10010, capacity: 256 }]);
  it("keeps the zoom while a chunk is the same, resets when none is", () => {
    expect(keepsZoom(a, layoutKeys([{ id: 0, start: 0x10010, capacity: 256 }, { id: 1, start: 0x20000, capacity: 512 }]))).toBe(true);
    expect(keepsZoom(a, layoutKeys([{ id: 0, start: 0x10010, capacity: 1024 }]))).toBe(false);
    expect(keepsZoom(a, [])).toBe(true);
  });
});
