import { describe, expect, it } from "vitest";
import { loadEngineSync } from "../engine/node";
import type { Trace } from "../engine/types";
import { initialState, reducer, type Action, type AppState } from "./reducer";
import { createStore } from "./store";

function traceOf(source: string): Trace {
  const r = loadEngineSync().trace({ source, allocator: "fitzgen-down", target: "64", capacity: 256 });
  if (!r.ok) throw new Error(r.error.message);
  return r.trace;
}

const SIX = traceOf("a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc u128");
const TWO = traceOf("a = alloc 1\nb = alloc 2");

function run(state: AppState, ...actions: Action[]): AppState {
  return actions.reduce(reducer, state);
}

const loaded = (): AppState => run(initialState(), { type: "traced", trace: SIX, source: "six" });

describe("reducer: stepping", () => {
  it("the first trace shows its last op", () => {
    const s = loaded();
    expect(s.step).toBe(6);
    expect(s.tracedSource).toBe("six");
  });

  it("keeps step within 0..ops.length", () => {
    expect(run(loaded(), { type: "forward" }).step).toBe(6);
    expect(run(loaded(), { type: "first" }, { type: "back" }).step).toBe(0);
    expect(run(loaded(), { type: "back" }, { type: "back" }).step).toBe(4);
    expect(run(loaded(), { type: "first" }, { type: "forward" }).step).toBe(1);
    expect(run(loaded(), { type: "seek", step: 99 }).step).toBe(6);
    expect(run(loaded(), { type: "seek", step: -4 }).step).toBe(0);
    expect(run(loaded(), { type: "first" }, { type: "last" }).step).toBe(6);
  });

  it("returns the same state when nothing changes", () => {
    const s = loaded();
    expect(reducer(s, { type: "last" })).toBe(s);
    expect(reducer(s, { type: "pause" })).toBe(s);
  });

  it("without a trace the step stays 0", () => {
    expect(run(initialState(), { type: "forward" }, { type: "last" }).step).toBe(0);
    expect(run(initialState(), { type: "togglePlay" }).playing).toBe(false);
  });
});

describe("reducer: playback", () => {
  it("play from the end restarts at 0; ticks advance and stop at the end", () => {
    let s = run(loaded(), { type: "togglePlay" });
    expect(s).toMatchObject({ playing: true, step: 0 });
    s = run(s, { type: "tick" }, { type: "tick" });
    expect(s).toMatchObject({ playing: true, step: 2 });
    s = run(s, { type: "tick" }, { type: "tick" }, { type: "tick" }, { type: "tick" });
    expect(s).toMatchObject({ playing: false, step: 6 });
    expect(run(s, { type: "tick" }).step).toBe(6);
  });

  it("toggling twice pauses where it was", () => {
    const s = run(loaded(), { type: "seek", step: 2 }, { type: "togglePlay" });
    expect(s).toMatchObject({ playing: true, step: 2 });
    expect(run(s, { type: "togglePlay" })).toMatchObject({ playing: false, step: 2 });
    expect(run(s, { type: "pause" }).playing).toBe(false);
  });
});

describe("reducer: traces and errors", () => {
  it("an error keeps the last valid trace and step", () => {
    const s = run(loaded(), { type: "back" }, { type: "traceFailed", error: { line: 7, column: 19, message: "bad" } });
    expect(s.trace).toBe(SIX);
    expect(s.step).toBe(5);
    expect(s.error).toEqual({ line: 7, column: 19, message: "bad" });
    expect(run(s, { type: "traced", trace: SIX, source: "six" }).error).toBeNull();
  });

  it("a new trace follows the end if it was in view, otherwise clamps", () => {
    const atEnd = run(initialState(), { type: "traced", trace: TWO, source: "two" });
    expect(run(atEnd, { type: "traced", trace: SIX, source: "six" }).step).toBe(6);
    const mid = run(loaded(), { type: "seek", step: 5 });
    expect(run(mid, { type: "traced", trace: TWO, source: "two" }).step).toBe(2);
    const early = run(loaded(), { type: "seek", step: 1 });
    expect(run(early, { type: "traced", trace: TWO, source: "two" }).step).toBe(1);
  });
});

describe("store", () => {
  it("notifies subscribers with the previous state, in dispatch order", () => {
    const store = createStore(reducer, loaded());
    const seen: [number, number][] = [];
    store.subscribe((s, prev) => {
      seen.push([prev.step, s.step]);
      // A listener that dispatches: runs after this change reached everyone.
      if (s.step === 5) store.dispatch({ type: "back" });
    });
    const unsubscribe = store.subscribe((s, prev) => seen.push([prev.step * 10, s.step * 10]));
    store.dispatch({ type: "back" });
    expect(seen).toEqual([
      [6, 5],
      [60, 50],
      [5, 4],
      [50, 40],
    ]);
    unsubscribe();
    store.dispatch({ type: "first" });
    expect(seen).toHaveLength(5);
    expect(store.getState().step).toBe(0);
  });
});

describe("reducer: run settings", () => {
  it("a new allocator starts at its default minimum alignment; capacity stays", () => {
    const s = run(initialState(), { type: "selectCapacity", capacity: 1024 }, { type: "selectMinAlign", minAlign: 8 });
    expect(s).toMatchObject({ capacity: 1024, minAlign: 8 });
    expect(run(s, { type: "selectAllocator", allocator: "bumpalo" })).toMatchObject({ allocator: "bumpalo", capacity: 1024, minAlign: null });
    expect(reducer(s, { type: "selectMinAlign", minAlign: 8 })).toBe(s);
  });

  it("capacity null means the preset's default", () => {
    expect(initialState().capacity).toBeNull();
    expect(run(initialState(), { type: "selectCapacity", capacity: 64 }, { type: "selectCapacity", capacity: null }).capacity).toBeNull();
  });

  it("the cost chart counts instructions until branches are chosen; the step stays", () => {
    const s = loaded();
    expect(s.costMetric).toBe("instructions");
    const b = reducer(s, { type: "selectCostMetric", metric: "branches" });
    expect(b).toMatchObject({ costMetric: "branches", step: s.step, trace: s.trace });
    expect(reducer(b, { type: "selectCostMetric", metric: "branches" })).toBe(b);
  });
});
