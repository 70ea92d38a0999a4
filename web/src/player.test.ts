import { describe, expect, it } from "vitest";
import { overCostCap } from "./controller/costs";
import { loadTraceModuleSync } from "./wasm/node";
import { needsCosts, parseViews, tracingText } from "./player";

describe("the player's costs and status", () => {
  it("loads the cost module only for the cost view or compare columns", () => {
    expect(needsCosts(parseViews(""), false)).toBe(false);
    expect(needsCosts(parseViews("code,stats"), false)).toBe(false);
    expect(needsCosts(parseViews("code, COST"), false)).toBe(true);
    expect(needsCosts(parseViews(""), true)).toBe(true);
  });

  it("says why a run over the cost module's cap has no costs, and nothing up to it", () => {
    // The cap is the cost module's full trace's (crates/core), as the trace module reports it.
    const cap = loadTraceModuleSync().maxCostedOps;
    expect(cap).toBe(100_000);
    const looped = "a = alloc 1\nrepeat 100001 {\n  b = alloc 8\n}\n";
    expect(overCostCap(0, cap, looped)).toBeUndefined();
    expect(overCostCap(100_000, cap, looped)).toBeUndefined();
    expect(overCostCap(100_002, cap, looped)).toBe("costs are measured for programs of up to 100,000 ops, and this one runs 100,002: lower a repeat count to see them");
    // A recording has no repeat to lower: its advice is a shorter recording.
    const recorded = "# recorded by bumplab-record\na = alloc 16\nb = alloc 8\n";
    expect(overCostCap(100_002, cap, recorded)).toBe(
      "costs are measured for programs of up to 100,000 ops, and this one runs 100,002: record or keep fewer ops to see them (bumplab-record --max-ops)",
    );
  });

  it("counts the ops traced so far in the status line", () => {
    expect(tracingText(4096, 1_000_000)).toBe("Tracing… 4,096 of 1,000,000 ops");
  });
});
