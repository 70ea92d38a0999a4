import { describe, expect, it } from "vitest";
import { overCostCap } from "../controller/costs";
import { loadTraceModuleSync } from "../engine/node";
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
    expect(overCostCap(0, cap)).toBeUndefined();
    expect(overCostCap(100_000, cap)).toBeUndefined();
    expect(overCostCap(100_002, cap)).toBe("costs are measured for programs of up to 100,000 ops, and this one runs 100,002: lower a repeat count to see them");
  });

  it("counts the ops traced so far in the status line", () => {
    expect(tracingText(4096, 1_000_000)).toBe("Tracing… 4,096 of 1,000,000 ops");
  });
});
