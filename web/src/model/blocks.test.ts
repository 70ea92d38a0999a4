import { describe, expect, it } from "vitest";
import type { TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import { blocksAt } from "../test/blocks";
import { clampStep } from "./step";
import { bumpPointerAt, statsAt } from "./chunks";
import { describeStep } from "./describe";
import { hex } from "./format";

const DEFAULT_PROGRAM = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc u128";

function trace(source: string, allocator = "fitzgen-down", capacity = 256): TraceView {
  return traced(source, allocator, { capacity });
}

/**
 * First usable byte of the (single) chunk. Today's engine puts it at 0x10000;
 * a base allocator with malloc headers moves it, so assertions use offsets
 * from it, which is what the bump algorithms decide.
 */
const start = (t: TraceView): number => t.chunks[0]?.start ?? Number.NaN;

/** [name, offset from the chunk start, size, padding, state] for compact assertions. */
function summary(t: TraceView, step: number): [string, number, number, number, string][] {
  return blocksAt(t, step).map((b) => [b.name, b.address - start(t), b.size, b.padding, b.state]);
}

describe("blocksAt on the default program", () => {
  it("bumping down: places blocks below the chunk end with their padding", () => {
    const t = trace(DEFAULT_PROGRAM);
    expect(t.length).toBe(6);
    expect(t.chunks).toHaveLength(1);
    expect(start(t) % 16).toBe(0);
    expect(summary(t, 6)).toEqual([
      ["e", 0xa0, 16, 12, "live"],
      ["d", 0xbc, 20, 0, "live"],
      ["c", 0xd0, 24, 8, "live"],
      ["b", 0xf0, 8, 7, "freed"],
      ["a", 0xff, 1, 0, "live"],
    ]);
    const c = blocksAt(t, 6).find((b) => b.name === "c");
    expect(c).toMatchObject({ id: 2, align: 16, paddingStart: start(t) + 0xe8 });
  });

  it("steps: empty at 0, b live until its free", () => {
    const t = trace(DEFAULT_PROGRAM);
    expect(blocksAt(t, 0)).toEqual([]);
    expect(summary(t, 1)).toEqual([["a", 0xff, 1, 0, "live"]]);
    expect(blocksAt(t, 4).map((b) => b.state)).toEqual(["live", "live", "live", "live"]);
    expect(blocksAt(t, 5).find((b) => b.name === "b")?.state).toBe("freed");
    expect(blocksAt(t, 99)).toHaveLength(5);
    expect(blocksAt(t, -3)).toEqual([]);
  });

  it("bumping up: the first block is at the chunk start, padding below blocks", () => {
    const t = trace(DEFAULT_PROGRAM, "hinckley-up");
    expect(summary(t, 6)).toEqual([
      ["a", 0x00, 1, 0, "live"],
      ["b", 0x08, 8, 7, "freed"],
      ["c", 0x10, 24, 0, "live"],
      ["d", 0x28, 20, 0, "live"],
      ["e", 0x40, 16, 4, "live"],
    ]);
    expect(blocksAt(t, 6).find((b) => b.name === "e")?.paddingStart).toBe(start(t) + 0x3c);
  });
});

describe("blocksAt with reset, restore, realloc and failures", () => {
  it("reset reclaims every block; the next block starts at the edge again", () => {
    const t = trace("a = alloc 8\nb = alloc 16\nfree a\nreset\nc = alloc 4");
    expect(summary(t, 3)).toEqual([
      ["b", 0xe8, 16, 0, "live"],
      ["a", 0xf8, 8, 0, "freed"],
    ]);
    expect([...(t.op(3).reclaimed ?? [])].sort()).toEqual([0, 1]);
    expect(blocksAt(t, 4)).toEqual([]);
    expect(bumpPointerAt(t, 4)).toBe(start(t) + 256);
    expect(summary(t, 5)).toEqual([["c", 0xfc, 4, 0, "live"]]);
  });

  it("restore reclaims what came after the checkpoint, including a moved block", () => {
    // x after b: b is not the last block, so its realloc moves it.
    const t = trace("a = alloc 8\ncheckpoint s\nb = alloc 8\nx = alloc 8\nc = realloc b 16\nrestore s\nd = alloc 8", "hinckley-up");
    expect(summary(t, 5)).toEqual([
      ["a", 0x00, 8, 0, "live"],
      ["b", 0x08, 8, 0, "leaked"],
      ["x", 0x10, 8, 0, "live"],
      ["c", 0x18, 16, 0, "live"],
    ]);
    expect([...(t.op(5).reclaimed ?? [])].sort()).toEqual([2, 3, 4]);
    expect(summary(t, 6)).toEqual([["a", 0x00, 8, 0, "live"]]);
    expect(bumpPointerAt(t, 6)).toBe(start(t) + 8);
    expect(summary(t, 7)).toEqual([
      ["a", 0x00, 8, 0, "live"],
      ["d", 0x08, 8, 0, "live"],
    ]);
  });

  it("a block carries the op that placed it and, for a realloc, the block it replaced", () => {
    const t = trace("a = alloc 8\nb = alloc 8\na = realloc a 16\nc = alloc 4", "hinckley-up");
    const byName = (step: number) => blocksAt(t, step).map((b) => [b.name, b.id, b.kind, b.line, b.from, b.state]);
    // Op 2 moved a (op 0's block, not the last one) to a new place: the old bytes stay behind.
    expect(byName(4)).toEqual([
      ["a", 0, "alloc", 1, undefined, "leaked"],
      ["b", 1, "alloc", 2, undefined, "live"],
      ["a", 2, "realloc", 3, 0, "live"],
      ["c", 3, "alloc", 4, undefined, "live"],
    ]);
  });

  it("a failed alloc places nothing and leaves the pointer", () => {
    const t = trace("a = alloc 200\nb = alloc 100");
    expect(t.op(1).failed).toBe(true);
    expect(summary(t, 2)).toEqual([["a", 0x38, 200, 0, "live"]]);
    expect(bumpPointerAt(t, 2)).toBe(start(t) + 0x38);
    expect(describeStep(t, 2)).toBe("b: 100 bytes (align 1) do not fit: the chunk is full");
  });
});

describe("pointer, stats and descriptions per step", () => {
  it("step 0 is the empty chunk", () => {
    const down = trace(DEFAULT_PROGRAM);
    const up = trace(DEFAULT_PROGRAM, "hinckley-up");
    expect(bumpPointerAt(down, 0)).toBe(start(down) + 256);
    expect(bumpPointerAt(up, 0)).toBe(start(up));
    expect(statsAt(down, 0)).toMatchObject({ requested: 0, used: 0, unused: 256, utilisation: 0 });
    expect(describeStep(down, 0)).toBe(`Empty chunk: 256 bytes free, bump pointer at ${hex(start(down) + 256)}`);
  });

  it("later steps read the op's own numbers", () => {
    const t = trace(DEFAULT_PROGRAM);
    expect(bumpPointerAt(t, 3)).toBe(start(t) + 0xd0);
    expect(statsAt(t, 3)).toMatchObject({ requested: 33, used: 48, padding: 15, unused: 208 });
    expect(statsAt(t, 6)).toMatchObject({ requested: 61, used: 96, padding: 27, leaked: 8, unused: 160 });
    expect(describeStep(t, 1)).toBe(`a: 1 byte at ${hex(start(t) + 0xff)}`);
    expect(describeStep(t, 3)).toBe(`c: 24 bytes at ${hex(start(t) + 0xd0)}, 8 bytes padding`);
    expect(describeStep(t, 5)).toBe("free b: not reclaimed");
  });

  it("clampStep keeps steps in 0..ops.length", () => {
    const t = trace(DEFAULT_PROGRAM);
    expect([clampStep(t, -1), clampStep(t, 2.7), clampStep(t, 7), clampStep(t, Number.NaN)]).toEqual([0, 2, 6, 0]);
  });
});
