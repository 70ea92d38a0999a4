import { describe, expect, it } from "vitest";
import { decodeShare, encodeShare, MAX_STEP, shareQuery } from "../share/link";
import { traced } from "../test/runs";
import { initialState, reducer, type Action, type AppState } from "./reducer";
import { isShareLink, sharedOf } from "./shareSync";

const SOURCE = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16";
// Each alloc on fitzgen-down runs the bump-down algorithm's 4 recorded
// micro-steps (subtract, round down, check the start, bump).
const TRACE = traced(SOURCE, "fitzgen-down", { capacity: 256 });

function run(state: AppState, ...actions: Action[]): AppState {
  return actions.reduce(reducer, state);
}

const loaded = (): AppState =>
  run(initialState({ source: SOURCE, allocator: "fitzgen-down", capacity: 256 }), { type: "traced", trace: TRACE, source: SOURCE });

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

  it("carry the step a trace still to come opens at, not op 0 of the page before it", async () => {
    // A link opened in a fresh page, copied before its trace arrives.
    const shared = { ...sharedOf(loaded()), step: 2, micro: 1 };
    const opening = run(initialState(), { type: "applyShared", shared });
    expect([opening.step, opening.pendingStep]).toEqual([0, 2]);
    expect(shareQuery(sharedOf(opening))).toMatch(/&s=2&u=1&/);
    // A program opened at its last op: the link asks for the largest step, which opens at the last op.
    const last = run(loaded(), { type: "openConfig", config: { source: SOURCE, allocator: "fitzgen-down", target: "64", capacity: 256, minAlign: null, child: null } });
    expect(sharedOf(last).step).toBe(MAX_STEP);
    const decoded = await decodeShare(await encodeShare(sharedOf(last)));
    if (!decoded.ok) throw new Error(decoded.error);
    expect(run(initialState(), { type: "applyShared", shared: decoded.state }, { type: "traced", trace: TRACE, source: SOURCE }).step).toBe(3);
  });
});

describe("share links at a micro-step", () => {
  it("carry the micro-step inside an op as u, and none at an op's end", async () => {
    // Op 2 (b = alloc u64), its second micro-step (round down to the alignment).
    const inside = run(loaded(), { type: "seek", step: 1 }, { type: "microForward" }, { type: "microForward" });
    expect([inside.step, inside.micro]).toEqual([2, 1]);
    expect(sharedOf(inside).micro).toBe(1);
    expect(shareQuery(sharedOf(inside))).toMatch(/&s=2&u=1&/);
    const end = run(loaded(), { type: "seek", step: 2 });
    expect(sharedOf(end)).not.toHaveProperty("micro");
    expect(shareQuery(sharedOf(end))).not.toContain("u=");
  });

  it("reopen at the same micro-step, in a fresh page and in one already showing the program", async () => {
    const inside = run(loaded(), { type: "seek", step: 1 }, { type: "microForward" }, { type: "microForward" }, { type: "microForward" });
    expect([inside.step, inside.micro]).toEqual([2, 2]);
    const decoded = await decodeShare(await encodeShare(sharedOf(inside)));
    if (!decoded.ok) throw new Error(decoded.error);
    expect(decoded.state.micro).toBe(2);

    // A fresh page: the micro-step waits for the trace with the step.
    const fresh = run(initialState(), { type: "applyShared", shared: decoded.state }, { type: "traced", trace: TRACE, source: SOURCE });
    expect([fresh.step, fresh.micro]).toEqual([2, 2]);
    // The page already shows this program at its end: it moves there at once.
    const open = run(loaded(), { type: "applyShared", shared: decoded.state });
    expect([open.step, open.micro]).toEqual([2, 2]);
  });

  it("drop a micro-step the op does not have, and refuse one out of range", async () => {
    const shared = { ...sharedOf(loaded()), step: 2, micro: 3 };
    // 3 is the last of 4 micro-steps: the op's end, which is null.
    expect(run(initialState(), { type: "applyShared", shared }, { type: "traced", trace: TRACE, source: SOURCE }).micro).toBeNull();
    const none = run(initialState(), { type: "applyShared", shared: { ...shared, step: 0, micro: 1 } }, { type: "traced", trace: TRACE, source: SOURCE });
    expect([none.step, none.micro]).toEqual([0, null]);
    expect(await decodeShare("v1?a=bumpalo&s=1&u=x&p=a&end")).toEqual({ ok: false, error: 'Cannot open this link: "u" must be a whole number, not "x".' });
    expect(await decodeShare("v1?a=bumpalo&s=1&u=5000&p=a&end")).toEqual({ ok: false, error: 'Cannot open this link: "u" must be from 0 to 1000, not 5000.' });
  });
});
