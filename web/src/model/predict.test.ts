import { describe, expect, it } from "vitest";
import type { TraceView } from "../engine/traceView";
import type { Target } from "../engine/types";
import { traced } from "../test/runs";
import { clampAddress, cursorStart, cursorStep, predictionAt, scoreGuess, stripAt, toleranceFor } from "./predict";

function trace(source: string, allocator: string, capacity?: number, target: Target = "wasm32"): TraceView {
  return traced(source, allocator, { target, capacity: capacity ?? null });
}

describe("predictionAt", () => {
  it("bumping down: subtract, then round down to the alignment", () => {
    const t = trace("a = alloc u8\nb = alloc u64\nc = alloc u128", "fitzgen-down", 256);
    // The chunk is [0x10010, 0x10110): a takes the last byte.
    expect(predictionAt(t, 0)).toMatchObject({ opIndex: 0, name: "a", address: 0x1010f, size: 1, newChunk: false });
    expect(predictionAt(t, 0)?.reason).toBe("bump down: 0x10110 − 1 = 0x1010f, already 1-aligned");
    const b = predictionAt(t, 1);
    expect(b).toMatchObject({ name: "b", address: 0x10100, size: 8, align: 8 });
    expect(b?.reason).toBe("bump down: 0x1010f − 8 = 0x10107, rounded down to 0x10100 for alignment (7 bytes of padding)");
    expect(predictionAt(t, 2)?.reason).toBe("bump down: 0x10100 − 16 = 0x100f0, already 16-aligned");
    // After the last op there is nothing to predict.
    expect(predictionAt(t, 3)).toBeNull();
  });

  it("bumping up: round the pointer up, then move it past the block", () => {
    const t = trace("a = alloc u8\nb = alloc u64", "hinckley-up", 256);
    expect(predictionAt(t, 1)?.reason).toBe(
      "bump up: 0x10011 rounded up to 0x10018 for alignment (7 bytes of padding), and the pointer moves past it to 0x10020",
    );
    expect(predictionAt(t, 0)?.reason).toBe("bump up: the block starts at the pointer, 0x10010, already 1-aligned, and the pointer moves past it to 0x10011");
  });

  it("a block that needs a new chunk lands in that chunk, empty on the strip", () => {
    const t = trace("a = alloc u64", "bumpalo");
    const p = predictionAt(t, 0);
    expect(p).toMatchObject({ name: "a", newChunk: true, address: 0x101d8 });
    expect(p?.chunk.id).toBe(0);
    expect(p?.reason).toMatch(/^no room where the pointer is: new chunk 0: 464 usable bytes at 0x10010 .*; bump down: 0x101e0 − 8 = 0x101d8, already 8-aligned$/);
    const strip = p ? stripAt(t, 0, p) : undefined;
    expect(strip).toEqual({ start: 0x10010, end: 0x10010 + 464, blocks: [], hidden: 0, pointer: 0x101e0 });
  });

  it("realloc: in place bumping up, a copy over its old bytes bumping down, a fresh block when not last", () => {
    const src = "s = alloc 8\ns = realloc s 16\nt = alloc 8\ns = realloc s 64";
    const up = trace(src, "bump-scope-up");
    expect(predictionAt(up, 1)).toMatchObject({ kind: "realloc", address: 0x10020, size: 16 });
    expect(predictionAt(up, 1)?.reason).toBe("s is the last block: it grew in place from 8 to 16 bytes, staying at 0x10020");
    expect(predictionAt(up, 3)?.reason).toBe(
      "s cannot grow where it is, so it is allocated anew: bump up: the block starts at the pointer, 0x10038, already 1-aligned, and the pointer moves past it to 0x10078, 16 bytes copied, the old bytes stay behind",
    );
    const down = trace(src, "bumpalo");
    expect(predictionAt(down, 1)?.reason).toBe("s is the last block: it moved from 0x101d8 to 0x101d0, 8 bytes copied, over its own old bytes");
  });

  it("asks nothing about ops that place no block", () => {
    const t = trace("a = alloc 8\ncheckpoint c\nfree a\nb = alloc 300\nreset", "fitzgen-down", 256);
    expect([0, 1, 2, 3, 4].map((s) => predictionAt(t, s) !== null)).toEqual([true, false, false, false, false]);
    expect(t.op(3).failed).toBe(true);
  });

  it("every reason names the address it predicts, across presets", () => {
    const src = "a = alloc u8\nb = alloc u64\nb = realloc b 24\nc = alloc u128\nrepeat 40 {\n  x = alloc [u8; 13]\n}\nd = alloc 3";
    let checked = 0;
    const allocators = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align", "bumper-slab", "cpp-arena", "bump-scope-up", "bump-scope-down", "bumpalo"];
    allocators.push("blink-alloc", "llvm-bump-ptr", "pmr-monotonic", "zig-arena", "zig-fixed-buffer");
    for (const allocator of allocators) {
      const t = trace(src, allocator, allocator === "bumper-slab" ? 256 : undefined);
      for (let s = 0; s < t.length; s++) {
        const p = predictionAt(t, s);
        if (!p) continue;
        checked++;
        expect(p.reason, `${allocator} step ${s}`).toContain(`0x${p.address.toString(16)}`);
        // The arithmetic explains the address (not the fallback that only states it).
        expect(p.reason, `${allocator} step ${s}`).not.toContain("; the block starts at");
        expect(p.address, `${allocator} step ${s}`).toBeGreaterThanOrEqual(p.chunk.start);
        expect(p.address + p.size, `${allocator} step ${s}`).toBeLessThanOrEqual(p.chunk.start + p.chunk.capacity);
      }
    }
    expect(checked).toBeGreaterThan(300);
  });
});

describe("the strip", () => {
  it("holds the chunk's live blocks and the pointer at the step", () => {
    const t = trace("a = alloc u8\nb = alloc u64\nc = alloc 4", "fitzgen-down", 256);
    const p = predictionAt(t, 2);
    if (!p) throw new Error("no prediction");
    const strip = stripAt(t, 2, p);
    expect(strip.start).toBe(0x10010);
    expect(strip.end).toBe(0x10110);
    expect(strip.blocks.map((b) => [b.name, b.address])).toEqual([
      ["b", 0x10100],
      ["a", 0x1010f],
    ]);
    expect(strip.pointer).toBe(0x10100);
    expect(cursorStart(strip)).toBe(0x10090);
    expect(clampAddress(strip, 0)).toBe(0x10010);
    expect(clampAddress(strip, 0x20000)).toBe(0x1010f);
    expect(cursorStep(p, strip, false)).toBe(1);
    expect(cursorStep(p, strip, true)).toBe(16);
  });
});

describe("scoreGuess", () => {
  const t = trace("a = alloc u8\nb = alloc u64", "fitzgen-down", 256);
  const p = predictionAt(t, 1);
  if (!p) throw new Error("no prediction");

  it("is right on the block's bytes, wrong one byte outside", () => {
    expect(scoreGuess(p, 0x10100)).toEqual({ right: true, distance: 0 });
    expect(scoreGuess(p, 0x10107)).toEqual({ right: true, distance: 0 });
    expect(scoreGuess(p, 0x10108)).toEqual({ right: false, distance: 1 });
    expect(scoreGuess(p, 0x100f0)).toEqual({ right: false, distance: 16 });
  });

  it("forgives a few pixels' worth of bytes", () => {
    expect(toleranceFor(0.5)).toBe(2);
    expect(toleranceFor(0)).toBe(0);
    expect(scoreGuess(p, 0x100fe, toleranceFor(0.5))).toEqual({ right: true, distance: 2 });
    expect(scoreGuess(p, 0x100fd, toleranceFor(0.5))).toEqual({ right: false, distance: 3 });
  });
});
