import { describe, expect, it } from "vitest";
import { initialState } from "./reducer";
import { isShareLink, sharedOf } from "./shareSync";

describe("share links", () => {
  it("tells links from in-page anchors", () => {
    expect(isShareLink("v1?a=bumpalo&p=a+=+alloc+1&end")).toBe(true);
    expect(isShareLink("v1zeJwrSS0u")).toBe(true);
    expect(isShareLink("v2?a=x")).toBe(true);
    expect(isShareLink("cost-model")).toBe(false);
    expect(isShareLink("")).toBe(false);
  });

  it("carries the program, its settings, the step, compare columns and the lesson, nothing derived", () => {
    const s = initialState({ source: "a = alloc 1", allocator: "bumpalo", capacity: 512, step: 1, lesson: "bump-down", speed: 4 });
    expect(sharedOf(s)).toEqual({
      source: "a = alloc 1",
      allocator: "bumpalo",
      target: "64",
      capacity: 512,
      minAlign: null,
      step: 1,
      compare: null,
      lesson: "bump-down",
    });
  });
});
