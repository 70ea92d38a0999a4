// The cost module's `executedOps` lists, for one op, every counted wasm
// instruction the measured code executed: the list must add up to the op's
// counts exactly (one entry per instruction, one conditional-branch entry per
// branch) in every column, on every preset and target, on fast and slow paths.
import { describe, expect, it } from "vitest";
import type { RunConfig } from "./config";
import type { ExecutedColumn } from "./costModule";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";

/** Every op kind, the fast path and (where a preset makes its chunk on demand, op 0) the slow one; as in pinnedCosts.test.ts. */
const PROGRAM = "a = alloc 1\nb = alloc u64\ncheckpoint s\nc = alloc 24 align 16\nrestore s\nb = realloc b 16\nfree b\nreset\n";
const OPS = 8;

const config = (allocator: string, target: "wasm32" | "64"): RunConfig => ({ source: PROGRAM, allocator, target, capacity: null, minAlign: null });

/** Conditional branches carry their outcome (>= 0); every other instruction -1. */
const branches = (c: ExecutedColumn) => c.executed.filter((e) => e[3] !== -1);

describe("executed instructions", () => {
  const allocators = loadTraceModuleSync()
    .allocators()
    .map((a) => a.name);

  it("covers the presets", () => {
    expect(allocators.length).toBeGreaterThanOrEqual(15);
  });

  for (const allocator of allocators) {
    for (const target of ["wasm32", "64"] as const) {
      it(`${allocator} on ${target}: one entry per counted instruction and branch, in every column`, () => {
        const cost = loadCostModuleSync();
        const costs = cost.costs(config(allocator, target));
        expect(costs.costs).toHaveLength(OPS);
        for (let op = 0; op < OPS; op++) {
          const r = cost.executed(config(allocator, target), op);
          if (!r.ok) throw new Error(`${allocator} ${target} op ${op}: ${r.error}`);
          expect(r.op).toBe(op);
          const model = r.columns.find((c) => c.column === "model");
          const want = costs.costs![op]!;
          expect(model?.cost, `op ${op} model`).toEqual([want.wasm_instructions, want.wasm_branches, want.slow_instructions, want.slow_branches]);
          const real = costs.real && "ops" in costs.real ? costs.real.ops?.[op]?.cost : undefined;
          expect(r.columns.find((c) => c.column === "real")?.cost[0], `op ${op} real`).toBe(real?.wasm_instructions);
          const baseline = costs.baseline?.ops[op]?.cost;
          expect(r.columns.find((c) => c.column === "baseline")?.cost[0], `op ${op} baseline`).toBe(baseline?.wasm_instructions);
          for (const c of r.columns) {
            const what = `${allocator} ${target} op ${op} ${c.column}`;
            expect(c.truncated, what).toBe(false);
            expect(c.executed.length, what).toBe(c.cost[0]);
            expect(branches(c).length, what).toBe(c.cost[1]);
            // A list starts in the root, and a call goes at most one frame deeper.
            if (c.executed.length > 0) expect(c.executed[0]![2], what).toBe(0);
            for (let i = 1; i < c.executed.length; i++) expect(c.executed[i]![2] - c.executed[i - 1]![2], what).toBeLessThanOrEqual(1);
          }
        }
      });
    }
  }

  it("lists fitzgen-down's `b = alloc u64` with 2 conditional branches, hinckley-up's with 1, and where they went", () => {
    const cost = loadCostModuleSync();
    const column = (allocator: string) => {
      const r = cost.executed(config(allocator, "wasm32"), 1);
      if (!r.ok) throw new Error(r.error);
      return r.columns.find((c) => c.column === "model")!;
    };
    // A u64's layout is a constant: 20 instructions down, 25 up (a run-time
    // layout's `a = alloc 1` runs 22 and 27); the branches are the same.
    const down = column("fitzgen-down");
    expect(down.executed).toHaveLength(20);
    // The bump pointer moves down by the size (no overflow: not taken), then
    // the new pointer is at or above the chunk's start: it fits (taken, to the
    // success path).
    expect(branches(down).map((e) => e[3])).toEqual([0, 1]);
    const up = column("hinckley-up");
    expect(up.executed).toHaveLength(25);
    // The padded size fits in the room left (total <= end - ptr): the br_if
    // jumps on to the bump.
    expect(branches(up).map((e) => e[3])).toEqual([1]);
  });

  it("says which op does not exist", () => {
    const r = loadCostModuleSync().executed(config("fitzgen-down", "wasm32"), 99);
    expect(r).toEqual({ ok: false, error: "op 99 does not exist: the program has 8 ops" });
  });

  it("passes a program error on", () => {
    const r = loadCostModuleSync().executed({ ...config("fitzgen-down", "wasm32"), source: "a = alloc\n" }, 0);
    expect(r.ok).toBe(false);
  });
});
