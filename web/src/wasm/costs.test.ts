// The costs in a trace come from the metered module: every op carries what
// its compiled code executed, the slow part only where a slow path ran.
import { describe, expect, it } from "vitest";
import * as bumplab from "../../pkg-cost/cost.js";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";

interface RawCost {
  wasm_instructions: number;
  wasm_branches: number;
  slow_instructions: number;
  slow_branches: number;
}
interface RawOp {
  kind: string;
  cost?: RawCost;
}

function rawTrace(source: string, allocator: string, target = "64"): { ops: RawOp[]; chunks: { created_by?: number }[] } {
  loadCostModuleSync(); // initialises the module once
  return JSON.parse(bumplab.traceProgram(source, allocator, target, undefined, undefined)) as {
    ops: RawOp[];
    chunks: { created_by?: number }[];
  };
}

const PROGRAM = "a = alloc 1\nrepeat 20 {\n  x = alloc 64 align 8\n}\nfree x\nreset\n";

describe("measured costs", () => {
  it("the per-op costs the page's worker asks for (traceCosts) are the full trace's, counted, on the metered module", () => {
    // The same comparison runs under wasm-pack test on an unmetered build,
    // where both sides are null; here the numbers are real counts.
    const src = "a = alloc 8\nb = alloc 24 align 16\nb = realloc b 64\nfree a\nreset\n";
    loadCostModuleSync(); // initialises the module once
    for (const allocator of ["bumpalo", "bump-scope-up", "fitzgen-down"]) {
      const full = JSON.parse(bumplab.traceProgram(src, allocator, "wasm32", undefined, undefined)) as {
        ops: RawOp[];
        real?: unknown;
        baseline?: unknown;
      };
      const fromWorker = JSON.parse(bumplab.traceCosts(src, allocator, "wasm32", undefined, undefined)) as {
        costs: (readonly number[] | null)[];
        real?: unknown;
        baseline?: unknown;
      };
      const counted = full.ops.map((o) => (o.cost ? [o.cost.wasm_instructions, o.cost.wasm_branches, o.cost.slow_instructions, o.cost.slow_branches] : null));
      expect(fromWorker.costs, allocator).toEqual(counted);
      // The first alloc ran compiled code: a count, not a placeholder.
      expect(counted[0]?.[0], allocator).toBeGreaterThan(10);
      expect(fromWorker.real, allocator).toEqual(full.real);
      expect(fromWorker.baseline, allocator).toEqual(full.baseline);
    }
  });

  it("every op of every preset carries a cost", () => {
    const names = loadTraceModuleSync()
      .allocators()
      .map((a) => a.name);
    for (const name of names) {
      const t = rawTrace("a = alloc 8 align 8\nb = alloc 8\nfree b\n", name);
      expect(t.ops.length, name).toBe(3);
      for (const op of t.ops) expect(op.cost, `${name} ${op.kind}`).toBeDefined();
      // A free that reclaims nothing may compile to nothing at all (0 is a
      // measurement too); an allocation always runs code.
      expect(t.ops[0]!.cost!.wasm_instructions, name).toBeGreaterThan(0);
    }
  });

  it("only ops that make a chunk run a slow path", () => {
    const t = rawTrace(PROGRAM, "bumpalo");
    const makers = new Set(t.chunks.map((c) => c.created_by));
    t.ops.forEach((op, i) => {
      const cost = op.cost!;
      if (op.kind === "alloc" && makers.has(i)) expect(cost.slow_instructions, `op ${i}`).toBeGreaterThan(0);
      else if (op.kind === "alloc") expect(cost.slow_instructions, `op ${i}`).toBe(0);
      expect(cost.slow_instructions).toBeLessThanOrEqual(cost.wasm_instructions);
      expect(cost.slow_branches).toBeLessThanOrEqual(cost.wasm_branches);
    });
    // The same fast path costs the same every time.
    const fast = t.ops.filter((op, i) => op.kind === "alloc" && i > 0 && !makers.has(i)).map((op) => op.cost!.wasm_instructions);
    expect(fast.length).toBeGreaterThan(10);
    expect(new Set(fast).size).toBe(1);
  });

  it("costs are deterministic and differ between targets", () => {
    const a = rawTrace(PROGRAM, "bump-scope-up");
    const b = rawTrace(PROGRAM, "bump-scope-up");
    expect(a.ops.map((o) => o.cost)).toEqual(b.ops.map((o) => o.cost));
    const w = rawTrace(PROGRAM, "bump-scope-up", "wasm32");
    expect(w.ops.map((o) => o.cost)).not.toEqual(a.ops.map((o) => o.cost));
  });
});
