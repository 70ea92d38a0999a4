// The real crate's run beside the model (trace.real) and the global
// allocator's (trace.baseline), as the metered module reports them: every
// real op is counted through its own measured root, like the model's ops.
import { describe, expect, it } from "vitest";
import * as bumplab from "../../pkg-cost/cost.js";
import { loadCostModuleSync } from "./node";

interface RawCost {
  wasm_instructions: number;
  wasm_branches: number;
  slow_instructions: number;
  slow_branches: number;
}
interface RawTrace {
  chunks: { created_by?: number }[];
  ops: { kind: string; size?: number; cost?: RawCost }[];
  real?: {
    crate: string;
    unavailable?: string;
    ops?: { cost?: RawCost; chunk?: number; chunk_capacity?: number; note?: string }[];
    mismatches?: unknown[];
  };
  baseline?: { allocator: string; unavailable?: string; ops: { cost?: RawCost }[] };
}

function rawTrace(source: string, allocator: string, target = "wasm32"): RawTrace {
  loadCostModuleSync(); // initialises the module once
  return JSON.parse(bumplab.traceProgram(source, allocator, target, undefined, undefined)) as RawTrace;
}

// 464 bytes in bumpalo's first wasm32 chunk: 8 x 8 bytes, then 600 bytes
// need a second chunk, then more fast-path allocations there.
const PROGRAM =
  "a = alloc 8 align 8\nrepeat 8 {\n  x = alloc 8 align 8\n}\nbig = alloc 600 align 8\n" +
  "repeat 4 {\n  y = alloc 8 align 8\n}\nfree y\nz = realloc big 700\nreset\n";

describe("the real crate, live", () => {
  for (const allocator of ["bumpalo", "bump-scope-up", "bump-scope-down"]) {
    it(`${allocator}: every real op is counted and the placements match`, () => {
      const t = rawTrace(PROGRAM, allocator);
      const real = t.real!;
      expect(real.unavailable).toBeUndefined();
      expect(real.mismatches).toEqual([]);
      expect(real.ops!.length).toBe(t.ops.length);
      for (const [i, op] of real.ops!.entries()) expect(op.cost, `op ${i}`).toBeDefined();

      const makers = new Set(t.chunks.map((c) => c.created_by));
      const allocs = t.ops.map((op, i) => ({ op, i })).filter(({ op }) => op.kind === "alloc");
      const fast = allocs.filter(({ op, i }) => op.size === 8 && !makers.has(i)).map(({ i }) => real.ops![i]!.cost!);
      expect(fast.length).toBeGreaterThan(8);
      const fastCost = fast[0]!.wasm_instructions;
      expect(fastCost).toBeGreaterThan(0);
      expect(new Set(fast.map((c) => c.wasm_instructions))).toEqual(new Set([fastCost]));
      for (const c of fast) expect(c.slow_instructions).toBe(0);

      // The op that made the second chunk ran the crate's slow path.
      const newChunk = allocs.find(({ op }) => op.size === 600)!.i;
      expect(makers.has(newChunk)).toBe(true);
      expect(real.ops![newChunk]!.chunk).toBe(1);
      expect(real.ops![newChunk]!.cost!.wasm_instructions).toBeGreaterThan(3 * fastCost);
      // Both crates' cold paths are split out: bumpalo's alloc_layout_slow and
      // bump-scope's alloc_in_another_chunk.
      expect(real.ops![newChunk]!.cost!.slow_instructions).toBeGreaterThan(0);
    });
  }

  it("the global allocator's baseline has a cost for every alloc", () => {
    const t = rawTrace(PROGRAM, "bumpalo");
    const base = t.baseline!;
    expect(base.allocator).toBe("Rust's global allocator (dlmalloc, wasm32)");
    expect(base.unavailable).toBeUndefined();
    expect(base.ops.length).toBe(t.ops.length);
    t.ops.forEach((op, i) => {
      if (op.kind !== "checkpoint") expect(base.ops[i]!.cost, `${op.kind} ${i}`).toBeDefined();
      if (op.kind === "alloc") expect(base.ops[i]!.cost!.wasm_instructions).toBeGreaterThan(0);
    });
    // 64-bit traces get a baseline too, but no real rows.
    const w = rawTrace(PROGRAM, "bumpalo", "64");
    expect(w.baseline!.ops[0]!.cost).toBeDefined();
    expect(w.real!.unavailable).toMatch(/64-bit/);
    expect(rawTrace(PROGRAM, "hinckley-up", "wasm32").real).toBeUndefined();
  });

  it("refuses a program too big for real memory instead of trapping", () => {
    const t = rawTrace("a = alloc 0x10000000\nb = alloc 8\n", "bumpalo");
    expect(t.real!.unavailable).toMatch(/limited to 64.0 MiB/);
    expect(t.baseline!.unavailable).toMatch(/limited to 64.0 MiB/);
    expect(t.baseline!.ops.every((o) => o.cost === undefined)).toBe(true);
  });
});
