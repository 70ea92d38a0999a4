import { describe, expect, it, vi } from "vitest";
import type { TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import { deltaCore, fullCore, touchedBetween, type Core } from "./heldRows";

/** A row as the map reads it: its ids by address (read backwards when the row says so). */
const byAddress = (core: Core): number[][] => core.rows.map((r) => (r.backwards ? Array.from(r.ids).reverse() : Array.from(r.ids)));

/** A small deterministic generator (mulberry32), so a failure names a seed that repeats it. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = a;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random jumps, each derived from one of the last few steps derived (so
 * rows that share a buffer are stepped from in any order, as scrubbing back
 * and forth does), every one checked against a full pass of its step.
 */
function checkJumps(t: TraceView, seed: number, jumps: number): number {
  const next = random(seed);
  const kept: Core[] = [fullCore(t, Math.floor(next() * t.length))];
  let derived = 0;
  for (let n = 0; n < jumps; n++) {
    const from = kept[Math.floor(next() * kept.length)] as Core;
    const far = next() < 0.3;
    const span = far ? Math.floor(next() * t.length) : Math.floor(next() * 400) - 200;
    const k = Math.min(t.length, Math.max(0, far ? span : from.step + span));
    const fast = deltaCore(t, from, k);
    const full = fullCore(t, k);
    if (fast) {
      derived++;
      expect(byAddress(fast), `seed ${seed}, jump ${n}: ${from.step} to ${k}`).toEqual(byAddress(full));
      expect(fast.total, `seed ${seed}, jump ${n}: total at ${k}`).toBe(full.total);
      // The rows stepped from are unchanged by the steps derived from them.
      expect(byAddress(from)).toEqual(byAddress(fullCore(t, from.step)));
    }
    kept.push(fast ?? full);
    if (kept.length > 4) kept.shift();
  }
  return derived;
}

describe("a step derived from a nearby one equals a full pass at that step", () => {
  it.each([
    ["bump-scope-up", "repeat 1500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}"],
    ["bumpalo", "repeat 300 { x = alloc 64\ny = alloc 8\nfree x }\ncheckpoint s\nrepeat 400 { z = alloc 16 }\nrestore s\nrepeat 500 { w = alloc 24\nw = realloc w 48 }\nreset\nq = alloc 8"],
    ["bump-scope-down", "repeat 800 { p = alloc 32\nq = alloc 8 align 8\nfree q\nr = alloc 16\nfree p }"],
  ])("%s: 300 random jumps, near and far, forward and back", (allocator, source) => {
    const t = traced(source, allocator);
    let derived = 0;
    for (const seed of [1, 2, 3]) derived += checkJumps(t, seed, 100);
    // Most jumps are near ones, which derive rather than fall back to a full pass.
    expect(derived).toBeGreaterThan(150);
  });

  it("a step forward that only adds newer blocks extends the row in place; stepping back is a shorter view of it", () => {
    const t = traced("repeat 1500 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}", "bump-scope-up");
    const a = fullCore(t, 5000);
    const b = deltaCore(t, a, 5040)!;
    const c = deltaCore(t, b, 5080)!;
    // The row of the chunk the bump pointer is in: the one holding the newest block.
    const r = c.rows.findIndex((row) => row.ids.length > 64 && row.ids.includes(5076));
    const rb = b.rows[r]!;
    const rc = c.rows[r]!;
    // 40 ops hold 20 more blocks (2 in each 4 ops).
    expect(rc.ids.length).toBe(rb.ids.length + 20);
    expect(rc.ids.buffer).toBe(rb.ids.buffer);
    const back = deltaCore(t, c, 5040)!;
    expect(back.rows[r]!.ids.buffer).toBe(rc.ids.buffer);
    expect(Array.from(back.rows[r]!.ids)).toEqual(Array.from(rb.ids));
    // A step forward from b again may not write over c's blocks: it takes a copy.
    const d = deltaCore(t, b, 5060)!;
    expect(d.rows[r]!.ids.buffer).not.toBe(rc.ids.buffer);
    expect(Array.from(c.rows[r]!.ids)).toEqual(Array.from(fullCore(t, 5080).rows[r]!.ids));
    expect(Array.from(d.rows[r]!.ids)).toEqual(Array.from(fullCore(t, 5060).rows[r]!.ids));
  });
});

describe("a long run's index of ended blocks is built when the page is idle", () => {
  it("a full pass of a 60,000-op run asks for one idle callback, which builds what a derivation then reads; a short run asks for none", () => {
    const asked: (() => void)[] = [];
    vi.stubGlobal("requestIdleCallback", (f: () => void) => asked.push(f));
    try {
      const short = traced("repeat 100 { a = alloc 8 }", "bumpalo");
      fullCore(short, 50);
      expect(asked).toHaveLength(0);
      const t = traced("repeat 15000 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}", "bump-scope-up");
      const from = fullCore(t, 30_000);
      fullCore(t, 40_000);
      expect(asked).toHaveLength(1);
      asked[0]!();
      // Built once: a later full pass asks for nothing more.
      fullCore(t, 50_000);
      expect(asked).toHaveLength(1);
      // The ops 30,000..30,400 placed 300 blocks and reclaimed 100 of them (each b, freed right after it).
      expect(touchedBetween(t, 30_000, 30_400)).toHaveLength(300);
      expect(byAddress(deltaCore(t, from, 30_400)!)).toEqual(byAddress(fullCore(t, 30_400)));
    } finally {
      vi.unstubAllGlobals();
    }
  });
});
