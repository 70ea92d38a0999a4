import { describe, expect, it } from "vitest";
import { MAX_COST_OPS, needsCosts, overCostCap, parseViews, tracingText } from "./player";

describe("the player's costs and status", () => {
  it("loads the metered module only for the cost view or compare columns", () => {
    expect(needsCosts(parseViews(""), false)).toBe(false);
    expect(needsCosts(parseViews("code,stats"), false)).toBe(false);
    expect(needsCosts(parseViews("code, COST"), false)).toBe(true);
    expect(needsCosts(parseViews(""), true)).toBe(true);
  });

  it("says why a run over the metered module's cap has no costs, and nothing up to it", () => {
    expect(MAX_COST_OPS).toBe(100_000);
    expect(overCostCap(0)).toBeUndefined();
    expect(overCostCap(100_000)).toBeUndefined();
    expect(overCostCap(100_002)).toBe(
      "the program runs 100,002 ops and costs are measured for at most 100,000 (the metered module's full trace): lower a repeat count to see them",
    );
  });

  it("counts the ops traced so far in the status line", () => {
    expect(tracingText(4096, 1_000_000)).toBe("Tracing… 4,096 of 1,000,000 ops");
  });
});
