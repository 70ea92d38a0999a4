import { describe, expect, it } from "vitest";
import type { TraceView } from "../wasm/traceView";
import type { Target } from "../wasm/types";
import { traced } from "../test/runs";
import { hex } from "./format";
import { clampAddress, cursorStart, gradeGuess, moveGuess, predictionAt, stripAt, zoomWindow, type Prediction } from "./predict";

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
    expect(b).toMatchObject({ name: "b", address: 0x10100, size: 8, align: 8, direction: "down", bumpFrom: 0x1010f });
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

  it("bumping up with a minimum alignment: the pointer moves past the block, then rounds up to it", () => {
    const t = trace("a = alloc u8\nb = alloc 3", "up-min-align", 256);
    expect(predictionAt(t, 0)?.reason).toBe("bump up: the block starts at the pointer, 0x10010, already 1-aligned, and the pointer moves past it to 0x10011, rounded up to 0x10018");
    expect(predictionAt(t, 1)?.reason).toBe("bump up: the block starts at the pointer, 0x10018, already 1-aligned, and the pointer moves past it to 0x1001b, rounded up to 0x10020");
  });

  it("a block that needs a new chunk lands in that chunk, empty on the strip", () => {
    const t = trace("a = alloc u64", "bumpalo");
    const p = predictionAt(t, 0);
    expect(p).toMatchObject({ name: "a", newChunk: true, address: 0x101d8 });
    expect(p?.chunk.id).toBe(0);
    expect(p?.reason).toMatch(/^no room where the pointer is: new chunk 0: 464 (usable bytes|bytes usable) at 0x10010 .*; bump down: 0x101e0 − 8 = 0x101d8, already 8-aligned$/);
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
  });

  it("moves the guess a byte, to the alignment, a sixteenth, or an end, never off the chunk", () => {
    const t = trace("a = alloc u8\nb = alloc u64", "fitzgen-down", 256);
    const p = predictionAt(t, 1);
    if (!p) throw new Error("no prediction");
    const strip = stripAt(t, 1, p);
    // No guess yet: the first move starts from the middle, 0x10090.
    expect(moveGuess(p, strip, null, "byteUp")).toBe(0x10091);
    expect(moveGuess(p, strip, 0x10107, "byteDown")).toBe(0x10106);
    // b is 8-aligned: Shift moves to the next multiple of 8, strictly past the guess.
    expect(moveGuess(p, strip, 0x10107, "alignDown")).toBe(0x10100);
    expect(moveGuess(p, strip, 0x10100, "alignDown")).toBe(0x100f8);
    expect(moveGuess(p, strip, 0x10101, "alignUp")).toBe(0x10108);
    expect(moveGuess(p, strip, 0x10100, "alignUp")).toBe(0x10108);
    expect(moveGuess(p, strip, 0x10100, "pageUp")).toBe(0x1010f);
    expect(moveGuess(p, strip, 0x10100, "pageDown")).toBe(0x100f0);
    expect(moveGuess(p, strip, 0x10100, "start")).toBe(0x10010);
    expect(moveGuess(p, strip, 0x10100, "end")).toBe(0x1010f);
    expect(moveGuess(p, strip, 0x10010, "byteDown")).toBe(0x10010);
    expect(moveGuess(p, strip, 0x1010f, "alignUp")).toBe(0x1010f);
  });
});

const at = (t: TraceView, step: number): Prediction => {
  const p = predictionAt(t, step);
  if (!p) throw new Error(`no prediction at step ${step}`);
  return p;
};

describe("gradeGuess: to the exact byte", () => {
  // The lesson's question: b = alloc u64 from the bump pointer 0x1010f, bumping down.
  const b = at(trace("a = alloc u8\nb = alloc u64\nc = alloc u128", "fitzgen-down", 256), 1);

  it("is right only on the byte where the block starts", () => {
    expect(gradeGuess(b, 0x10100)).toEqual({ right: true, offset: 0, verdict: "Right: b lands at 0x10100.", mistake: "" });
    // Inside b's bytes, or one byte off, is wrong.
    expect(gradeGuess(b, 0x10101)).toEqual({ right: false, offset: 1, verdict: "Wrong: you picked 0x10101, 1 byte too high: b lands at 0x10100.", mistake: "" });
    expect(gradeGuess(b, 0x100ff)).toMatchObject({ right: false, offset: -1, verdict: "Wrong: you picked 0x100ff, 1 byte too low: b lands at 0x10100." });
    expect(gradeGuess(b, 0x10090)).toMatchObject({ right: false, offset: -112, verdict: "Wrong: you picked 0x10090, 112 bytes too low: b lands at 0x10100.", mistake: "" });
  });

  it("bumping down: the subtraction without the round-down is the classic mistake", () => {
    expect(gradeGuess(b, 0x10107)).toEqual({
      right: false,
      offset: 7,
      verdict: "Wrong: you picked 0x10107, 7 bytes too high: b lands at 0x10100.",
      mistake: "You subtracted the size but did not round down to the alignment: 0x1010f − 8 = 0x10107, which is not 8-aligned; rounding down to 0x10100 leaves 7 bytes of padding.",
    });
  });

  it("bumping down: the old bump pointer, a round-up, one alignment step off", () => {
    expect(gradeGuess(b, 0x1010f).mistake).toBe(
      "Bumping down, the block does not start at the old bump pointer, 0x1010f: it starts 8 bytes below it, 0x10107, rounded down to 8-aligned: 0x10100 (7 bytes of padding).",
    );
    expect(gradeGuess(b, 0x10108).mistake).toBe("You rounded up: bumping down rounds 0x1010f − 8 = 0x10107 down to 8-aligned, to 0x10100, not up to 0x10108.");
    expect(gradeGuess(b, 0x100f8).mistake).toBe(
      "One alignment step (8 bytes) off: 0x1010f − 8 = 0x10107 rounds down to 0x10100, the nearest 8-aligned address at or below it.",
    );
    // c needs no padding: the block ends exactly at the old bump pointer.
    const c = at(trace("a = alloc u8\nb = alloc u64\nc = alloc u128", "fitzgen-down", 256), 2);
    expect(gradeGuess(c, 0x10100).mistake).toBe("Bumping down, the block ends at the old bump pointer, 0x10100: it starts 16 bytes below it, at 0x100f0.");
    expect(gradeGuess(c, 0x100e0).mistake).toBe("One alignment step (16 bytes) off: 0x10100 − 16 = 0x100f0 is already 16-aligned.");
  });

  it("bumping up: no round-up, a round-down, the pointer after the block", () => {
    const t = trace("a = alloc u8\nb = alloc u64", "hinckley-up", 256);
    const up = at(t, 1);
    expect(up).toMatchObject({ address: 0x10018, bumpFrom: 0x10011, direction: "up" });
    expect(gradeGuess(up, 0x10011)).toMatchObject({
      offset: -7,
      verdict: "Wrong: you picked 0x10011, 7 bytes too low: b lands at 0x10018.",
      mistake: "You did not round up to the alignment: the bump pointer 0x10011 is not 8-aligned; rounding up to 0x10018 leaves 7 bytes of padding.",
    });
    expect(gradeGuess(up, 0x10010).mistake).toBe("You rounded down: bumping up rounds the bump pointer 0x10011 up to 8-aligned, to 0x10018, not down to 0x10010.");
    expect(gradeGuess(up, 0x10020).mistake).toBe(
      "That is where b ends, not where it starts: bumping up, the block starts at the pointer, rounded up to 0x10018, and ends at 0x10020.",
    );
    const a = at(t, 0);
    expect(gradeGuess(a, 0x10011).mistake).toBe("That is where a ends, not where it starts: bumping up, the block starts at the pointer, 0x10010, and ends at 0x10011.");
  });

  it("a new chunk: a guess outside it says so; a realloc in place has no bump to diagnose", () => {
    const fresh = at(trace("a = alloc u64", "bumpalo"), 0);
    expect(gradeGuess(fresh, 0x10000).mistake).toBe("a does not fit where the bump pointer is: a new chunk is made, 0x10010–0x101e0, and a lands in it.");
    const grown = at(trace("s = alloc 8\ns = realloc s 16", "bump-scope-up"), 1);
    expect(grown.bumpFrom).toBeNull();
    expect(gradeGuess(grown, 0x10028)).toMatchObject({ right: false, offset: 8, mistake: "" });
  });

  it("every sentence agrees with the numbers it shows, across presets and guesses", () => {
    const src = "a = alloc u8\nb = alloc u64\nb = realloc b 24\nc = alloc u128\nrepeat 20 {\n  x = alloc [u8; 13]\n  y = alloc u32\n}\nd = alloc 3";
    const allocators = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align", "bump-scope-up", "bump-scope-down", "bumpalo", "zig-arena"];
    const hexes = (text: string): number[] => [...text.matchAll(/0x[0-9a-f]+/g)].map((m) => parseInt(m[0], 16));
    const counts = { graded: 0, diagnosed: 0 };
    for (const allocator of allocators) {
      const t = trace(src, allocator);
      for (let s = 0; s < t.length; s++) {
        const p = predictionAt(t, s);
        if (!p) continue;
        const from = p.bumpFrom ?? p.address;
        const raw = p.direction === "down" ? from - p.size : from;
        const end = p.chunk.start + p.chunk.capacity;
        const guesses = [from, raw, p.address - 1, p.address + 1, p.address - p.align, p.address + p.align, p.address + p.size, p.chunk.start, end - 1];
        for (const guess of guesses.filter((g) => g >= p.chunk.start && g < end)) {
          const g = gradeGuess(p, guess);
          const where = `${allocator} step ${s} guess ${hex(guess)}`;
          counts.graded++;
          expect(g.right, where).toBe(guess === p.address);
          expect(g.offset, where).toBe(guess - p.address);
          if (g.right) continue;
          const side = g.offset > 0 ? "high" : "low";
          expect(g.verdict, where).toBe(`Wrong: you picked ${hex(guess)}, ${Math.abs(g.offset)} ${Math.abs(g.offset) === 1 ? "byte" : "bytes"} too ${side}: ${p.name} lands at ${hex(p.address)}.`);
          if (!g.mistake) continue;
          counts.diagnosed++;
          // Every address named is one of the op's own numbers.
          const known = new Set([guess, p.address, from, raw, p.address + p.size, p.chunk.start, end]);
          for (const n of hexes(g.mistake)) expect(known.has(n), `${where}: ${hex(n)} in "${g.mistake}"`).toBe(true);
          // Arithmetic shown is arithmetic done.
          for (const m of g.mistake.matchAll(/(0x[0-9a-f]+) − (\d+) = (0x[0-9a-f]+)/g)) {
            expect(parseInt(m[1] ?? "", 16) - Number(m[2]), `${where}: ${m[0]}`).toBe(parseInt(m[3] ?? "", 16));
          }
          // Padding is the distance from the bump arithmetic to the block.
          for (const m of g.mistake.matchAll(/(\d+) bytes? of padding/g)) expect(Number(m[1]), where).toBe(Math.abs(raw - p.address));
          // "not N-aligned" and "already N-aligned" are true of the address they follow.
          for (const m of g.mistake.matchAll(/(0x[0-9a-f]+)(?:, which)? is not (\d+)-aligned/g)) expect(parseInt(m[1] ?? "", 16) % Number(m[2]), where).not.toBe(0);
          for (const m of g.mistake.matchAll(/(0x[0-9a-f]+) is already (\d+)-aligned/g)) expect(parseInt(m[1] ?? "", 16) % Number(m[2]), where).toBe(0);
          // An alignment step is the alignment, and the guess is that far off.
          for (const m of g.mistake.matchAll(/One alignment step \((\d+) bytes?\)/g)) expect(Math.abs(g.offset), where).toBe(Number(m[1]));
        }
      }
    }
    expect(counts.graded).toBeGreaterThan(1000);
    expect(counts.diagnosed).toBeGreaterThan(100);
  });
});

describe("zoomWindow", () => {
  it("shows 32 bytes around the bump pointer, most on the side it bumps towards, inside the chunk; a guess outside moves it", () => {
    // fitzgen-down, 0x10010..0x10110: b (u64, align 8) asked with the pointer at 0x1010f.
    const down = traced("a = alloc u8\nb = alloc u64", "fitzgen-down", { target: "wasm32", capacity: 256 });
    const p = predictionAt(down, 1);
    if (!p) throw new Error("no question");
    const strip = stripAt(down, 1, p);
    expect(zoomWindow(p, strip, null)).toEqual({ lo: 0x100f0, hi: 0x10110 });
    expect(zoomWindow(p, strip, 0x10050)).toEqual({ lo: 0x10050 - 16, hi: 0x10050 + 16 });
    // hinckley-up: the pointer at 0x10011 after a; 4 bytes behind it, the rest ahead.
    const up = traced("a = alloc u8\nb = alloc u64", "hinckley-up", { target: "wasm32", capacity: 256 });
    const q = predictionAt(up, 1);
    if (!q) throw new Error("no question");
    expect(zoomWindow(q, stripAt(up, 1, q), null)).toEqual({ lo: 0x10010, hi: 0x10030 });
  });
});
