import { describe, expect, it } from "vitest";
import type { TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import { chunkViewsAt, statsAt } from "./chunks";
import { currentOp } from "./describe";
import { codeFocus, focusOf, highlighted, statsSeries } from "./focus";
import { narrationAt, parseNarration } from "./narration";

const SOURCE = ["a = alloc 8", "b = alloc 16", "#> look at a", "#> !highlight a", "free b", "c = alloc 8"].join("\n");

function trace(): TraceView {
  return traced(SOURCE);
}

describe("focusOf", () => {
  it("an alloc focuses its own block, a free the block it frees, no op nothing", () => {
    const t = trace();
    expect([...focusOf(currentOp(t, 2))]).toEqual([1]);
    expect([...focusOf(currentOp(t, 3))]).toEqual([1]);
    expect([...focusOf(currentOp(t, 4))]).toEqual([3]);
    expect(focusOf(undefined).size).toBe(0);
  });
});

describe("highlighted", () => {
  it("adds the blocks the narration names to the op's", () => {
    const t = trace();
    const narration = narrationAt(t, 3, parseNarration(SOURCE));
    expect(narration?.highlight).toEqual(["a"]);
    expect([...highlighted(focusOf(currentOp(t, 3)), chunkViewsAt(t, 3), narration)].sort()).toEqual([0, 1]);
    expect([...highlighted(focusOf(currentOp(t, 4)), chunkViewsAt(t, 4), null)]).toEqual([3]);
    // The same from the columns, with the trace given.
    expect([...highlighted(focusOf(currentOp(t, 3)), chunkViewsAt(t, 3), narration, t)].sort()).toEqual([0, 1]);
    expect([...highlighted(new Set(), chunkViewsAt(t, 4), narration, t)]).toEqual([0]);
  });
});

describe("codeFocus", () => {
  it("the micro-step in view (the last at the op's end), in the trace's bumping file; no op, no line", () => {
    const t = trace();
    const op = currentOp(t, 1);
    const end = codeFocus(t, op, null);
    expect(end.file).toBe(t.source);
    expect(end.current).not.toBeNull();
    const first = codeFocus(t, op, 0);
    expect(first.current).not.toBeNull();
    expect(first.current).not.toBe(end.current);
    expect(end.touched.has(first.current ?? -1) && end.touched.has(end.current ?? -1)).toBe(true);
    const none = codeFocus(t, undefined, null);
    expect(none).toEqual({ file: t.source, current: null, label: null, values: [], touched: new Set() });
  });
});

describe("statsSeries", () => {
  it("the counters at every step of a short program, computed once per trace", () => {
    const t = trace();
    const series = statsSeries(t);
    expect(series.stats).toHaveLength(t.length + 1);
    expect(series.steps).toEqual([0, 1, 2, 3, 4]);
    expect(series.total).toBe(4);
    expect(series.stats[2]).toEqual(statsAt(t, 2));
    expect(series.stats[0]).toEqual(statsAt(t, 0));
    expect(statsSeries(t)).toBe(series);
  });

  it("the sampled steps of a long program: step 0, every statsEvery-th op and the last", () => {
    const t = traced("repeat 5000 {\n  a = alloc 8\n  free a\n}\nb = alloc 1", "bumpalo");
    const series = statsSeries(t);
    expect(t.statsEvery).toBe(3);
    expect(series.steps.slice(0, 4)).toEqual([0, 1, 4, 7]);
    expect(series.steps[series.steps.length - 1]).toBe(10001);
    expect(series.stats.length).toBe(series.steps.length);
    series.steps.forEach((step, k) => expect(series.stats[k]).toEqual(statsAt(t, step)));
  });
});
