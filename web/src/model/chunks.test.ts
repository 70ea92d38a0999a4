import { describe, expect, it } from "vitest";
import { kindOf, type TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import { blocksAt } from "../test/blocks";
import { bumpPointerAt, chunkAliveAt, chunksAt, chunkViewsAt, currentChunkAt, mostChunksAlive, noChunkYet, statsAt } from "./chunks";
import { describeStep } from "./describe";

function trace(source: string, allocator: string, capacity?: number, target: "64" | "wasm32" = "64"): TraceView {
  return traced(source, allocator, { target, capacity: capacity ?? null });
}

/** Chunk ids alive after each step 0..ops.length. */
const aliveIds = (t: TraceView): number[][] =>
  Array.from({ length: t.length + 1 }, (_, s) => chunksAt(t, s).map((c) => c.id));

/** [id, capacity, used, current] per live chunk: the rows the map draws. */
const rows = (t: TraceView, step: number): [number, number, number, boolean][] =>
  chunkViewsAt(t, step).map((v) => [v.chunk.id, v.chunk.capacity, v.used, v.current]);

describe("bumpalo: lazy first chunk, then chunks that double", () => {
  const t = trace("repeat 20 { x = alloc 64 }", "bumpalo");

  it("makes chunks of 448 and 960 usable bytes, each with a 48-byte footer (64-bit)", () => {
    expect(t.chunks.map((c) => [c.capacity, c.header, c.footer])).toEqual([
      [448, 0, 48],
      [960, 0, 48],
    ]);
    // 7 blocks of 64 fill the first chunk; the 8th needs the second.
    expect(t.chunks.map((c) => c.created_by)).toEqual([0, 7]);
  });

  it("has no chunk before the first allocation", () => {
    expect(chunksAt(t, 0)).toEqual([]);
    expect(noChunkYet(t, 0)).toBe(true);
    expect(noChunkYet(t, 1)).toBe(false);
    expect(currentChunkAt(t, 0)).toBeUndefined();
    expect(bumpPointerAt(t, 0)).toBeUndefined();
    expect(chunkViewsAt(t, 0)).toEqual([]);
    expect(statsAt(t, 0)).toMatchObject({ chunks: 0, unused: 0, metadata: 0 });
    expect(describeStep(t, 0)).toBe("No chunk yet: bumpalo allocates its first chunk lazily");
  });

  it("a chunk exists from the step after the op that made it", () => {
    const [first, second] = t.chunks;
    if (!first || !second) throw new Error("two chunks");
    expect([0, 1, 7, 8].map((s) => chunkAliveAt(second, s))).toEqual([false, false, false, true]);
    expect(chunkAliveAt(first, 1)).toBe(true);
    const ids = aliveIds(t);
    expect(ids[1]).toEqual([0]);
    expect(ids[7]).toEqual([0]);
    expect(ids[8]).toEqual([0, 1]);
    expect(ids[20]).toEqual([0, 1]);
  });

  it("the current chunk is the one holding the bump pointer; the full one keeps its fill", () => {
    expect(currentChunkAt(t, 7)?.id).toBe(0);
    expect(currentChunkAt(t, 8)?.id).toBe(1);
    const [first, second] = t.chunks;
    if (!first || !second) throw new Error("two chunks");
    // Bumping down: the pointer moves from the chunk's end towards its start.
    expect(bumpPointerAt(t, 8)).toBe(second.start + second.capacity - 64);
    expect(rows(t, 7)).toEqual([[0, 448, 448, true]]);
    expect(rows(t, 8)).toEqual([
      [0, 448, 448, false],
      [1, 960, 64, true],
    ]);
    expect(rows(t, 20)).toEqual([
      [0, 448, 448, false],
      [1, 960, 13 * 64, true],
    ]);
  });

  it("blocks per chunk: 7 in the first, the rest in the second", () => {
    const views = chunkViewsAt(t, 20);
    expect(views.map((v) => v.blocks.length)).toEqual([7, 13]);
    expect(views.every((v) => v.blocks.every((b) => b.chunk === v.chunk.id))).toBe(true);
    expect(views.flatMap((v) => v.blocks).length).toBe(blocksAt(t, 20).length);
  });

  it("three chunks: 448, 960, 1984", () => {
    const three = trace("repeat 30 { x = alloc 64 }", "bumpalo");
    expect(chunkViewsAt(three, 30).map((v) => v.chunk.capacity)).toEqual([448, 960, 1984]);
    expect(currentChunkAt(three, 30)?.id).toBe(2);
  });

  it("wasm32 keeps a 32-byte footer", () => {
    const w = trace("repeat 10 { x = alloc 64 }", "bumpalo", undefined, "wasm32");
    expect(w.chunks[0]).toMatchObject({ capacity: 464, footer: 32 });
  });
});

describe("bump-scope: eager first chunk with a header", () => {
  it("bump-scope-up's first chunk (464 usable, 32-byte header) exists at step 0", () => {
    const t = trace("a = alloc 8", "bump-scope-up");
    const first = t.chunks[0];
    expect(first).toMatchObject({ capacity: 464, header: 32, footer: 0 });
    expect(first?.created_by).toBeUndefined();
    expect(chunksAt(t, 0).map((c) => c.id)).toEqual([0]);
    expect(currentChunkAt(t, 0)?.id).toBe(0);
    // Bumping up: the empty chunk's pointer is at its start.
    expect(bumpPointerAt(t, 0)).toBe(first?.start);
    expect(statsAt(t, 0)).toMatchObject({ chunks: 1, unused: 464, metadata: 32 });
    expect(rows(t, 1)).toEqual([[0, 464, 8, true]]);
  });

  it("after a restore the checkpoint's chunk is current and the kept chunk is empty", () => {
    const t = trace("a = alloc 8\ncheckpoint s\nrepeat 10 { x = alloc 64 }\nrestore s\nb = alloc 500", "bump-scope-up");
    const restore = Array.from({ length: t.length }, (_, i) => kindOf(t, i)).indexOf("restore");
    expect(rows(t, restore)).toEqual([
      [0, 464, 456, false],
      [1, 976, 192, true],
    ]);
    // The pointer goes back into chunk 0; chunk 1 is kept for reuse, empty.
    expect(rows(t, restore + 1)).toEqual([
      [0, 464, 8, true],
      [1, 976, 0, false],
    ]);
    expect(chunkViewsAt(t, restore + 1)[1]?.blocks).toEqual([]);
    // The next big block reuses the kept chunk, which becomes current again.
    expect(rows(t, restore + 2)).toEqual([
      [0, 464, 8, false],
      [1, 976, 500, true],
    ]);
  });

  it("bump-scope-down puts the header at the chunk's end", () => {
    const t = trace("a = alloc 8", "bump-scope-down");
    expect(t.chunks[0]).toMatchObject({ capacity: 464, header: 0, footer: 32 });
    const first = t.chunks[0];
    if (!first) throw new Error("a chunk");
    expect(bumpPointerAt(t, 0)).toBe(first.start + first.capacity);
  });
});

describe("bumper-slab: custom slabs, and restore frees slabs", () => {
  const t = trace(
    "a = alloc 8\ncheckpoint s\nb = alloc 600000\nc = alloc 600000\nd = alloc 100\nrestore s\ne = alloc 16",
    "bumper-slab",
  );

  it("a custom slab is never current; its fill is its block", () => {
    expect(t.chunks.map((c) => [c.id, c.capacity, c.reason, c.created_by, c.freed_by])).toEqual([
      [0, 1048576, "first", undefined, undefined],
      [1, 600000, "custom_slab", 3, 5],
    ]);
    expect(rows(t, 5)).toEqual([
      [0, 1048576, 600108, true],
      [1, 600000, 600000, false],
    ]);
  });

  it("the restore frees the custom slab: it is gone from that step on", () => {
    expect(aliveIds(t)).toEqual([[0], [0], [0], [0], [0, 1], [0, 1], [0], [0]]);
    expect(rows(t, 6)).toEqual([[0, 1048576, 8, true]]);
    expect(describeStep(t, 6)).toBe(`restore s: 3 blocks reclaimed, 1 chunk freed, bump pointer back at 0x${(t.chunks[0]!.start + 8).toString(16)}`);
  });
});

describe("cpp-arena: pools with a header, freed by reset", () => {
  const t = trace("a = alloc 8\nb = alloc 1000\nc = alloc 3000 align 64\nreset\nd = alloc 8", "cpp-arena");

  it("reset frees every pool: no chunk and no pointer until the next allocation", () => {
    expect(t.chunks.map((c) => c.header)).toEqual([24, 24, 24]);
    expect(aliveIds(t)).toEqual([[], [0], [0], [0, 1], [], [2]]);
    expect(bumpPointerAt(t, 4)).toBeUndefined();
    expect(currentChunkAt(t, 4)).toBeUndefined();
    expect(noChunkYet(t, 4)).toBe(false);
    // The new pool reuses the freed one's address: only the live one is current.
    expect(t.chunks[2]?.start).toBe(t.chunks[0]?.start);
    expect(currentChunkAt(t, 5)?.id).toBe(2);
  });

  it("padding counts towards a chunk's fill", () => {
    expect(rows(t, 3)).toEqual([
      [0, 2048, 1008, false],
      [1, 4096, 3040, true],
    ]);
  });
});

/** Programs over chunk makes, frees, resets and restores, on allocators that keep or return chunks. */
const PROGRAMS: [string, string][] = [
  ["bumpalo", "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nrepeat 8 { x = alloc 64 }\nfree x\nd = realloc c 40\nrepeat 20 { y = alloc 64 }\nreset\nz = alloc 8"],
  ["bumpalo", "a = alloc 8\ncheckpoint s\nrepeat 12 { x = alloc 64 }\nrestore s\nb = alloc 16"],
  ["bump-scope-up", "a = alloc 8\ncheckpoint s\nrepeat 10 { x = alloc 64 }\nrestore s\nb = alloc 500\nc = realloc b 600\nreset"],
  ["bump-scope-down", "repeat 9 { x = alloc 64 align 16 }\ny = realloc x 128\ncheckpoint s\nrepeat 20 { z = alloc 100 }\nrestore s"],
  ["cpp-arena", "a = alloc 8\nb = alloc 1000\nc = alloc 3000 align 64\nreset\nd = alloc 8"],
  ["bumper-slab", "a = alloc 8\ncheckpoint s\nb = alloc 600000\nc = alloc 600000\nd = alloc 100\nrestore s\ne = alloc 16"],
  ["fitzgen-down", "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nfree b\nreset\nd = alloc 4"],
];

describe("fill per chunk adds up to the engine's used bytes", () => {
  it.each(PROGRAMS)("%s", (allocator, source) => {
    const t = trace(source, allocator);
    for (let s = 0; s <= t.length; s++) {
      const views = chunkViewsAt(t, s);
      const sum = views.reduce((n, v) => n + v.used, 0);
      expect(sum, `step ${s}`).toBe(statsAt(t, s).used);
      expect(views.length, `step ${s}`).toBe(statsAt(t, s).chunks);
      expect(views.filter((v) => v.current).length, `step ${s}`).toBe(views.length > 0 ? 1 : 0);
    }
  });
});

describe("mostChunksAlive: the rows a map of the run shows at most", () => {
  it.each(PROGRAMS)("%s: the most of any step", (allocator, source) => {
    const t = trace(source, allocator);
    const most = Math.max(...Array.from({ length: t.length + 1 }, (_, s) => chunksAt(t, s).length));
    expect(mostChunksAlive(t)).toBe(most);
  });

  it("bumpalo, 20 blocks of 64 bytes: 2 chunks at the end, none freed", () => {
    expect(mostChunksAlive(trace("repeat 20 { x = alloc 64 }", "bumpalo"))).toBe(2);
  });

  it("bumpalo's reset keeps only the newest chunk: the most is before it, not after", () => {
    const t = trace("repeat 100 { x = alloc 64 }\nreset\nrepeat 3 { y = alloc 64 }", "bumpalo");
    expect(chunksAt(t, t.length).length).toBe(1);
    // 100 blocks of 64 bytes: chunks of 7, 15, 31 and 63 blocks.
    expect(chunksAt(t, 100).length).toBe(4);
    expect(mostChunksAlive(t)).toBe(4);
  });
});
