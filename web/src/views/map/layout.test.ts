import { describe, expect, it } from "vitest";
import { traced } from "../../test/runs";
import { bumpPointerAt, chunkViewsAt } from "../../model/chunks";
import { syntheticMapData } from "./bench";
import { zoomAbout } from "./scale";
import { blockLabel } from "./labels";
import { microMapAt } from "../../model/microMap";
import { DETAIL_LIMIT, layoutMap, metaLabel, type MemoryMapData } from "./layout";

// layoutMap is the map's pure half: data, width and zoom in, what to draw out.
// 872 px wide leaves 804 px of plot between the margins.
const WIDTH = 872;
const PLOT = WIDTH - 68;

function defaultProgram(): MemoryMapData {
  const source = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc u128";
  const t = traced(source, "fitzgen-down", { capacity: 256 });
  return {
    direction: t.direction,
    rows: chunkViewsAt(t, 6),
    bumpPtr: bumpPointerAt(t, 6),
    focus: new Set(),
    emptyText: "",
    animate: false,
  };
}

describe("layoutMap", () => {
  it("a row's title is the longest that clears its fill: the reason, then the capacity, then the chunk alone", () => {
    const titleAt = (width: number): string => layoutMap(defaultProgram(), width).rows[0]!.title;
    const fill = layoutMap(defaultProgram(), WIDTH).rows[0]!.fill;
    expect(fill).toMatch(/^\d+ \/ 256 B used$/);
    expect(titleAt(WIDTH)).toMatch(/^chunk 0 · 256 B usable · /);
    expect(titleAt(320)).toBe("chunk 0 · 256 B");
    expect(titleAt(280)).toBe("chunk 0");
  });

  it("unzoomed, the default program draws all five blocks, ticks from chunk start to end, no byte grid", () => {
    const { rows } = layoutMap(defaultProgram(), WIDTH);
    const row = rows[0]!;
    expect(row.shown.map((b) => b.name)).toEqual(["e", "d", "c", "b", "a"]);
    expect(row.bins).toBeNull();
    expect(row.ticks[0]).toBe(0x10010);
    expect(row.ticks[row.ticks.length - 1]).toBe(0x10110);
    expect(row.grid).toEqual([]);
    expect(row.bytePx).toBeCloseTo(PLOT / 256);
  });

  it("zoomed 8x about the middle: 32 bytes in view, a grid line per byte, no block in view", () => {
    const z = zoomAbout({ k: 1, x: 0 }, 8, PLOT / 2, PLOT, 100);
    const row = layoutMap(defaultProgram(), WIDTH, z).rows[0]!;
    expect(row.visible).toEqual({ lo: 0x10080, hi: 0x100a0 });
    expect(row.shown).toEqual([]);
    expect(row.grid).toHaveLength(33); // 0x10080..0x100a0, both ends
    expect(row.ticks.every((a) => a >= 0x10080 && a <= 0x100a0)).toBe(true);
  });

  it("100,000 blocks: bins at 1x, blocks one by one once few are in view", () => {
    const data = syntheticMapData(100_000);
    const wide = layoutMap(data, WIDTH).rows[0]!;
    expect(wide.inView).toBe(100_000);
    expect(wide.shown).toEqual([]);
    expect(wide.bins?.reduce((n, b) => n + b.blocks, 0)).toBe(100_000);
    expect(wide.bins?.reduce((n, b) => n + b.live, 0)).toBe(800_000);
    // 800,000 bytes in 804 px: about 1000 bytes a pixel. Zoomed 512x about the
    // used end, 1563 bytes are in view: about 196 blocks of 8.
    const z = zoomAbout({ k: 1, x: 0 }, 512, PLOT, PLOT, 1e6);
    const deep = layoutMap(data, WIDTH, z).rows[0]!;
    expect(deep.bins).toBeNull();
    expect(deep.shown.length).toBe(deep.inView);
    expect(deep.inView).toBeLessThanOrEqual(DETAIL_LIMIT);
    expect(deep.inView).toBeGreaterThan(150);
    expect(deep.shown[deep.shown.length - 1]?.address).toBe(0x10010 + 800_000 - 8);
  });

  it("blocks packed tighter than 2 px apiece are binned even when few", () => {
    const data = syntheticMapData(300);
    // 804 px for 300 blocks: 2.7 px each, drawn one by one.
    expect(layoutMap(data, WIDTH).rows[0]?.shown).toHaveLength(300);
    // 432 px: 1.4 px each, binned.
    const narrow = layoutMap(data, 500).rows[0]!;
    expect(narrow.shown).toEqual([]);
    expect(narrow.bins?.reduce((n, b) => n + b.blocks, 0)).toBe(300);
  });

  it("a block's accessible label starts with its name", () => {
    const data = defaultProgram();
    const c = data.rows[0]?.blocks.find((b) => b.name === "c");
    expect(blockLabel(c!)).toBe("c: 24 bytes at 0x100e0, align 16, 8 bytes padding");
  });
});

describe("layoutMap inside an op", () => {
  const t = traced("a = alloc u8\nb = alloc u64", "fitzgen-down", { capacity: 256 });
  const micro = (step: number, k: number): MemoryMapData => {
    const m = microMapAt(t, step, k);
    return { ...defaultProgram(), rows: m.rows, bumpPtr: m.bumpPtr, micro: { candidate: m.candidate, padding: m.padding } };
  };

  it("draws the ghost at the address the code holds, on the row's own axis, and the padding once decided", () => {
    const at0 = layoutMap(micro(2, 0), WIDTH).rows[0]!;
    expect(at0.ghost?.address).toBe(0x10107);
    expect(at0.ghost?.x).toBeCloseTo(at0.x(0x10107));
    expect(at0.ghost?.text).toBe("new_ptr 0x10107");
    expect(at0.pending).toBeNull();
    expect(at0.shown.map((b) => b.name)).toEqual(["a"]);
    const at1 = layoutMap(micro(2, 1), WIDTH).rows[0]!;
    expect(at1.pending).toEqual({ x: at1.x(0x10108), width: at1.x(0x1010f) - at1.x(0x10108), lo: 0x10108, bytes: 7 });
  });

  it("pins an address below the chunk to its start, and says so", () => {
    const full = traced("a = alloc u8\nc = alloc [u8; 300]", "fitzgen-down", { capacity: 256 });
    const m = microMapAt(full, 2, 0);
    const row = layoutMap({ ...defaultProgram(), rows: m.rows, bumpPtr: m.bumpPtr, micro: { candidate: m.candidate, padding: null } }, WIDTH).rows[0]!;
    expect(row.ghost?.outside).toBe("below");
    expect(row.ghost?.x).toBeCloseTo(row.x(0x10010));
    expect(row.ghost?.text).toBe(`new_ptr 0x${(0x1010f - 300).toString(16)} (below the chunk)`);
  });

  it("draws no ghost where the code's address is the bump pointer", () => {
    const m = microMapAt(t, 2, null);
    expect(m.candidate?.address).toBe(0x10100);
    const row = layoutMap({ ...defaultProgram(), rows: m.rows, bumpPtr: m.bumpPtr, micro: { candidate: m.candidate, padding: m.padding } }, WIDTH).rows[0]!;
    expect(row.ghost).toBeNull();
    expect(row.pending).toBeNull();
  });
});

describe("metaLabel", () => {
  it("names a header or footer as fully as its box has room for, never past its edges", () => {
    // Without a canvas a label is 7 px a character (+2), with 4 px of room each side.
    expect(metaLabel("header", 16, 200)).toBe("header 16 B");
    expect(metaLabel("footer", 16, 11 * 7 + 2 + 8)).toBe("footer 16 B");
    expect(metaLabel("header", 16, 11 * 7 + 2 + 7)).toBe("16 B");
    expect(metaLabel("header", 16, 4 * 7 + 2 + 8)).toBe("16 B");
    expect(metaLabel("header", 16, 4 * 7 + 2 + 7)).toBe("");
  });
});
