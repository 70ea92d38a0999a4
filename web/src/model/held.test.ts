import { describe, expect, it } from "vitest";
import type { TraceView } from "../wasm/traceView";
import type { ChunkInfo } from "../wasm/types";
import { traced as run } from "../test/runs";
import { binBlocks } from "../test/mapOracles";
import { blockAt, blocksAt } from "../test/blocks";
import type { Block } from "./blocks";
import { bumpPointerAt, chunkViewsAt, currentChunkAt } from "./chunks";
import { heldAt } from "./held";
import { binDelta } from "./heldBins";

// The oracle: every step replays ops 0..step-1 through op(i), each op's full
// detail, so the columns' reading is checked against the ops themselves.

function oracleBlocks(t: TraceView, step: number): Block[] {
  const blocks = new Map<number, Block>();
  for (let i = 0; i < step; i++) {
    const op = t.op(i);
    if ((op.kind === "alloc" || op.kind === "realloc") && !op.failed && op.address !== undefined) {
      const size = op.size ?? 0;
      const padding = op.padding ?? 0;
      blocks.set(op.index, {
        id: op.index,
        name: op.block ?? `#${op.index}`,
        chunk: op.chunk ?? 0,
        address: op.address,
        size,
        align: op.align ?? 1,
        padding,
        paddingStart: t.direction === "down" ? op.address + size : op.address - padding,
        state: "live",
        kind: op.kind,
        line: op.line,
        ...(op.kind === "realloc" && op.target_op !== undefined ? { from: op.target_op } : {}),
      });
      if (op.kind === "realloc" && op.target_op !== undefined && op.target_op !== op.index) {
        if (op.moved === false) blocks.delete(op.target_op);
        else {
          const old = blocks.get(op.target_op);
          if (old) old.state = "leaked";
        }
      }
    }
    if (op.kind === "free" && op.target_op !== undefined) {
      const freed = blocks.get(op.target_op);
      if (freed) freed.state = "freed";
    }
    for (const id of op.reclaimed ?? []) blocks.delete(id);
  }
  return [...blocks.values()].sort((a, b) => a.address - b.address);
}

const alive = (c: ChunkInfo, s: number): boolean =>
  (c.created_by === undefined || c.created_by < s) && (c.freed_by === undefined || c.freed_by >= s);
const contains = (c: ChunkInfo, a: number): boolean => a >= c.start && a <= c.start + c.capacity;

function pick(live: ChunkInfo[], ptr: number | undefined, last: number | undefined): ChunkInfo | undefined {
  if (live.length === 0) return undefined;
  const byLast = live.find((c) => c.id === last);
  if (ptr === undefined) return byLast ?? live[0];
  const inside = live.filter((c) => contains(c, ptr));
  if (inside.length === 1) return inside[0];
  if (inside.length > 1) return inside.find((c) => c.id === last) ?? inside[inside.length - 1];
  return byLast ?? live[live.length - 1];
}

/** The old walk: pointer and current chunk after `step` ops. */
function oraclePointer(t: TraceView, step: number): { ptr: number | undefined; current: number | undefined } {
  let last: number | undefined;
  let ptr: number | undefined;
  let current: ChunkInfo | undefined;
  for (let i = 0; i < step; i++) {
    const op = t.op(i);
    if (op.chunk !== undefined && !op.failed) last = op.chunk;
    const live = t.chunks.filter((c) => alive(c, i + 1));
    if (op.bump_ptr !== undefined) ptr = op.bump_ptr;
    else if (ptr !== undefined && !live.some((c) => contains(c, ptr as number))) ptr = undefined;
    current = pick(live, ptr, last);
  }
  const live = t.chunks.filter((c) => alive(c, step));
  if (step === 0) {
    current = pick(live, undefined, undefined);
    ptr = current ? (t.direction === "down" ? current.start + current.capacity : current.start) : undefined;
  } else if (ptr === undefined && live.length > 0) {
    current = pick(live, undefined, last);
    ptr = current ? (t.direction === "down" ? current.start + current.capacity : current.start) : undefined;
  }
  return { ptr, current: current?.id };
}

function traced(source: string, allocator: string, capacity?: number): TraceView {
  return run(source, allocator, { capacity: capacity ?? null });
}

const PROGRAMS: [string, string, number?][] = [
  ["fitzgen-down", "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc u128", 256],
  ["hinckley-up", "a = alloc 8\ncheckpoint s\nb = alloc 8\nc = realloc b 16\nrestore s\nd = alloc 8\nd = realloc d 24\nd = realloc d 4"],
  ["bumpalo", "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nrepeat 8 { x = alloc 64 }\nfree x\nd = realloc c 40\nrepeat 20 { y = alloc 64 }\nreset\nz = alloc 8"],
  ["bumpalo", "a = alloc 8\ncheckpoint s\nrepeat 12 { x = alloc 64 }\nrestore s\nb = alloc 16\nz = alloc 0\nw = alloc 0 align 8"],
  ["bump-scope-up", "repeat 60 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}"],
  ["bump-scope-down", "repeat 9 { x = alloc 64 align 16 }\ny = realloc x 128\ncheckpoint s\nrepeat 20 { z = alloc 100 }\nrestore s\nq = alloc 0"],
  ["cpp-arena", "a = alloc 8\nb = alloc 1000\nc = alloc 3000 align 64\nreset\nd = alloc 8"],
  ["bumper-slab", "a = alloc 8\ncheckpoint s\nb = alloc 600000\nc = alloc 600000\nd = alloc 100\nrestore s\ne = alloc 16"],
  ["fitzgen-down", "repeat 30 { a = alloc 8\nreset }\nb = alloc 4", 256],
];

describe("held blocks from the columns equal the old replay", () => {
  it.each(PROGRAMS)("%s: %s", (allocator, source, capacity) => {
    const t = traced(source, allocator, capacity);
    // Forward, backward and in jumps: each step is derived from a nearby cached one, or made afresh.
    const order = [
      ...Array.from({ length: t.length + 1 }, (_, s) => s),
      ...Array.from({ length: t.length + 1 }, (_, s) => t.length - s),
      ...Array.from({ length: t.length + 1 }, (_, s) => (s * 7) % (t.length + 1)),
    ];
    for (const s of order) {
      const want = oracleBlocks(t, s);
      expect(blocksAt(t, s), `step ${s}`).toEqual(want);
      for (const b of want) expect(blockAt(t, s, b.id), `step ${s} block ${b.id}`).toEqual(b);
      const { ptr, current } = oraclePointer(t, s);
      expect(bumpPointerAt(t, s), `pointer, step ${s}`).toBe(ptr);
      expect(currentChunkAt(t, s)?.id, `current, step ${s}`).toBe(current);
      // Per chunk: the row's blocks are the chunk's, by address, and bin as the objects do.
      for (const v of chunkViewsAt(t, s)) {
        const own = want.filter((b) => b.chunk === v.chunk.id);
        expect(v.held.count, `step ${s} chunk ${v.chunk.id}`).toBe(own.length);
        expect(v.blocks).toEqual(own);
        const lo = v.chunk.start;
        const hi = v.chunk.start + v.chunk.capacity;
        for (const [a, b, n] of [
          [lo, hi, 7],
          [lo + 5, hi - 9, 13],
          [lo, lo + (hi - lo) / 3, 4],
        ] as const) {
          expect(v.held.bins(a, b, n), `bins step ${s}`).toEqual(binBlocks(own, a, b, n));
        }
        for (const a of [lo, lo + 8, (lo + hi) / 2, hi]) {
          expect(v.held.firstEndingAfter(a)).toBe(own.findIndex((b) => (b.size === 0 ? b.address >= a : b.address + b.size > a)) === -1 ? own.length : own.findIndex((b) => (b.size === 0 ? b.address >= a : b.address + b.size > a)));
          expect(v.held.endBefore(a)).toBe(own.filter((b) => b.address < a).length);
        }
      }
    }
  }, 30_000);
});

describe("bins of a nearby step plus what changed equal bins computed afresh", () => {
  it.each(PROGRAMS)("%s: %s", (allocator, source, capacity) => {
    const t = traced(source, allocator, capacity);
    const old = binDelta.minBlocks;
    binDelta.minBlocks = 1;
    try {
      // Forward, backward and in jumps, over the whole chunk and a window of it.
      const steps = [...Array.from({ length: t.length + 1 }, (_, s) => s), ...Array.from({ length: t.length + 1 }, (_, s) => t.length - s), 0, 5, 1, 9, 3];
      for (const s of steps.map((x) => Math.min(x, t.length))) {
        for (const v of chunkViewsAt(t, s)) {
          const own = oracleBlocks(t, s).filter((b) => b.chunk === v.chunk.id);
          const lo = v.chunk.start;
          const hi = v.chunk.start + v.chunk.capacity;
          for (const [a, b, n] of [
            [lo, hi, 7],
            [lo + 5, hi - 9, 13],
          ] as const) {
            const got = v.held.bins(a, b, n);
            const want = binBlocks(own, a, b, n);
            expect(got.map((x) => x.blocks), `step ${s}`).toEqual(want.map((x) => x.blocks));
            got.forEach((x, j) => {
              const w = want[j]!;
              expect(x.live, `live, step ${s} bin ${j}`).toBeCloseTo(w.live, 6);
              expect(x.dead, `dead, step ${s} bin ${j}`).toBeCloseTo(w.dead, 6);
              expect(x.padding, `padding, step ${s} bin ${j}`).toBeCloseTo(w.padding, 6);
              // An empty bin reads 0, not rounding dust.
              if (w.live === 0) expect(x.live).toBe(0);
              if (w.dead === 0) expect(x.dead).toBe(0);
              if (w.padding === 0) expect(x.padding).toBe(0);
            });
          }
        }
      }
    } finally {
      binDelta.minBlocks = old;
    }
  }, 30_000);
});

describe("heldAt", () => {
  it("memoises steps per trace and clamps", () => {
    const t = traced("repeat 10 { x = alloc 8 }", "bump-scope-up");
    expect(heldAt(t, 5)).toBe(heldAt(t, 5));
    expect(heldAt(t, 99).step).toBe(10);
    expect(heldAt(t, -1).total).toBe(0);
    expect(heldAt(t, 10).total).toBe(10);
    expect(heldAt(t, 10).find(11)).toBeUndefined();
  });

  it("a step keeps the block objects of the step before it that it leaves in the same state", () => {
    // a is freed by op 2 and stays (b lies above it); b is untouched.
    const t = traced("a = alloc 8\nb = alloc 8\nfree a\nc = alloc 8", "bump-scope-up");
    const before = heldAt(t, 2);
    const [a2, b2] = [before.find(0), before.find(1)];
    expect([a2?.state, b2?.state]).toEqual(["live", "live"]);
    const after = heldAt(t, 3);
    expect(after.find(1)).toBe(b2);
    expect(after.find(0)).not.toBe(a2);
    expect(after.find(0)?.state).toBe("freed");
    expect(after.find(0)).toEqual({ ...a2, state: "freed" });
  });

  it("a 10,000-op trace: each row by address, 2 blocks held per 4 ops", () => {
    const t = traced("repeat 2500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}", "bump-scope-up");
    const h = heldAt(t, t.length);
    expect(h.total).toBe(5_000);
    for (const id of h.chunkIds()) {
      const row = h.row(id).all();
      for (let j = 1; j < row.length; j++) expect(row[j]!.address > row[j - 1]!.address).toBe(true);
    }
  });
});

describe("steps far apart: derived from the columns, as a full pass finds them", () => {
  // A copy of the view has no cache: each of its steps is a full pass.
  const fresh = (t: TraceView): TraceView => ({ ...t });
  const ids = (t: TraceView, step: number): number[][] => {
    const h = heldAt(t, step);
    return h.chunkIds().map((c) => Array.from({ length: h.row(c).count }, (_, j) => h.row(c).id(j)));
  };

  it.each([
    ["bump-scope-up", "repeat 2500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}"],
    ["bumpalo", "repeat 300 { x = alloc 64\ny = alloc 8\nfree x }\ncheckpoint s\nrepeat 400 { z = alloc 16 }\nrestore s\nrepeat 500 { w = alloc 24\nw = realloc w 48 }\nreset\nq = alloc 8"],
  ])("%s: thousands of ops apart, forward and back", (allocator, source) => {
    const t = traced(source, allocator);
    const steps = [1, 900, 2000, 2700, 2200, 4100, 6000, 7800, t.length, t.length - 1500, 3000].map((s) => Math.min(s, t.length));
    for (const s of steps) {
      const full = fresh(t);
      expect(ids(t, s), `step ${s}`).toEqual(ids(full, s));
      expect(heldAt(t, s).total).toBe(heldAt(full, s).total);
    }
  });

  it("a small row the ops in between did not touch keeps its bins too (the same array), below the size a row takes changes into its bins", () => {
    const t = traced("repeat 2500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}", "bump-scope-up");
    const settled = chunkViewsAt(t, 8000).find((v) => !v.current && v.held.count > 0)!;
    expect(settled.held.count).toBeLessThan(binDelta.minBlocks);
    const c = settled.chunk;
    const a = heldAt(t, 8000).row(c.id).bins(c.start, c.start + c.capacity, 40);
    const b = heldAt(t, 9000).row(c.id).bins(c.start, c.start + c.capacity, 40);
    expect(b).toBe(a);
    expect(b.reduce((n, x) => n + x.blocks, 0)).toBe(settled.held.count);
  });

  it("a row the ops in between did not touch keeps its bins (the same array); the touched row's equal a fresh count", () => {
    const t = traced("repeat 2500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}", "bump-scope-up");
    const old = binDelta.minBlocks;
    binDelta.minBlocks = 1;
    try {
      const binsAt = (view: TraceView, step: number, chunk: number) => {
        const c = view.chunks.find((x) => x.id === chunk)!;
        return heldAt(view, step).row(chunk).bins(c.start, c.start + c.capacity, 40);
      };
      const first = chunkViewsAt(t, 8000);
      const settled = first.find((v) => !v.current && v.held.count > 0)!;
      const current = first.find((v) => v.current)!;
      expect(settled).toBeDefined();
      // The same chunk is current 1,000 ops later (the next one is made later).
      expect(chunkViewsAt(t, 9000).find((v) => v.current)?.chunk.id).toBe(current.chunk.id);
      const a = binsAt(t, 8000, settled.chunk.id);
      const b = binsAt(t, 9000, settled.chunk.id);
      expect(b).toBe(a);
      // The current chunk grew by the blocks of 1,000 ops: 500 of them held (2 in 4 ops).
      const before = binsAt(t, 8000, current.chunk.id).reduce((n, x) => n + x.blocks, 0);
      const after = binsAt(t, 9000, current.chunk.id);
      expect(after.reduce((n, x) => n + x.blocks, 0)).toBe(before + 500);
      const want = binsAt(fresh(t), 9000, current.chunk.id);
      expect(after.map((x) => x.blocks)).toEqual(want.map((x) => x.blocks));
      after.forEach((x, j) => {
        expect(x.live, `live, bin ${j}`).toBeCloseTo(want[j]!.live, 6);
        expect(x.padding, `padding, bin ${j}`).toBeCloseTo(want[j]!.padding, 6);
      });
    } finally {
      binDelta.minBlocks = old;
    }
  });
});
