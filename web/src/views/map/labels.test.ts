import { describe, expect, it } from "vitest";
import { lodSummary } from "./labels";

describe("lodSummary", () => {
  it("says how many blocks are binned and what to do", () => {
    expect(lodSummary(100_000, 1, 1)).toBe("100000 blocks in 1 chunk; zoom in to see blocks");
    expect(lodSummary(100_000, 11, 6)).toBe("100000 blocks in 11 chunks (6 of them drawn as fill); zoom in to see blocks");
    expect(lodSummary(5, 1, 0)).toBe("");
  });
});
