// Every run goes through the store: the controllers trace the single run,
// compare's columns and the sweep's points when the configuration changes
// and dispatch them, and reading the state (what a render does) runs
// nothing. Checked on the real trace module, counting the runs it starts.

import { describe, expect, it } from "vitest";
import type { RunConfig } from "../wasm/config";
import { loadCostModuleSync, loadTraceModuleSync } from "../wasm/node";
import { addressOf } from "../wasm/traceView";
import type { TraceModule } from "../wasm/traceModule";
import { initialState, reducer, type Action, type AppState } from "../state/reducer";
import { createStore, type Store } from "../state/store";
import { startCompareTracer } from "./compare";
import { startSweepRunner } from "./sweep";
import { startTracer } from "./tracer";

// fitzgen-down: a at 0x1010f, b at 0x10100 (7 bytes padding);
// hinckley-up: a at 0x10010, b at 0x10018 (7 bytes padding).
const PROGRAM = "a = alloc 1\nb = alloc u64";

/** The trace module, counting the runs it starts. */
function counted(): { module: TraceModule; runs: () => number } {
  const real = loadTraceModuleSync();
  let runs = 0;
  const module: TraceModule = {
    ready: (allocator) => real.ready(allocator),
    startRun: (config, parsed) => {
      runs++;
      return real.startRun(config, parsed);
    },
    allocators: () => real.allocators(),
    sourcePath: (name) => real.sourcePath(name),
    maxCostedOps: real.maxCostedOps,
    internalError: (thrown, run) => real.internalError(thrown, run),
  };
  return { module, runs: () => runs };
}

const measure = (config: RunConfig) => Promise.resolve(loadCostModuleSync().costs(config));

/** Resolves once the store's state satisfies `ok` (each change checked as it is dispatched). */
function until(store: Store<AppState, Action>, ok: (s: AppState) => boolean): Promise<AppState> {
  return new Promise((resolve, reject) => {
    if (ok(store.getState())) return resolve(store.getState());
    const timer = setTimeout(() => reject(new Error("the state never got there")), 5000);
    const stop = store.subscribe((s) => {
      if (!ok(s)) return;
      clearTimeout(timer);
      stop();
      resolve(s);
    });
  });
}

describe("every run goes through the store", () => {
  it("compare's columns are traced once per configuration and dispatched; stepping and reading run nothing", async () => {
    const { module, runs } = counted();
    const store = createStore(reducer, initialState({ source: PROGRAM, allocator: "fitzgen-down" }));
    const tracer = startTracer(module, store);
    const columns = startCompareTracer(module, store, { measure });
    tracer.retrace();
    await until(store, (s) => s.trace !== null);
    expect(runs()).toBe(1);
    const single = store.getState();
    expect(single.compareColumns).toBeNull();

    const settings = { target: "64", capacity: null, minAlign: null } as const;
    store.dispatch({ type: "enterCompare", configs: [{ allocator: "fitzgen-down", ...settings }, { allocator: "hinckley-up", ...settings }] });
    const traced = await until(store, (s) => s.compareColumns !== null);
    // One run per column, started by the controller, not by anything reading the state.
    expect(runs()).toBe(3);
    const views = (traced.compareColumns ?? []).map((c) => (c.result.ok ? c.result.trace : null));
    expect(views.map((v) => v?.allocator)).toEqual(["fitzgen-down", "hinckley-up"]);
    expect(views.map((v) => (v ? [addressOf(v, 0), addressOf(v, 1)] : null))).toEqual([
      [0x1010f, 0x10100],
      [0x10010, 0x10018],
    ]);
    // The costs arrive as a second dispatch of the same columns.
    const costed = await until(store, (s) => (s.compareColumns ?? []).every((c) => c.result.ok && c.result.trace.costs !== undefined));
    expect(costed.compareColumns?.map((c) => c.config.allocator)).toEqual(["fitzgen-down", "hinckley-up"]);

    // What a render does: read the state, at every step. Nothing runs.
    for (const step of [0, 1, 2, 1]) {
      store.dispatch({ type: "seek", step });
      expect(store.getState().step).toBe(step);
      expect(store.getState().compareColumns).toBe(costed.compareColumns);
    }
    expect(runs()).toBe(3);

    // Another column set is traced afresh; the columns on screen stay until it is.
    store.dispatch({ type: "setCompare", configs: [{ allocator: "hinckley-up", ...settings }, { allocator: "fitzgen-down", ...settings }] });
    expect(store.getState().compareColumns).toBe(costed.compareColumns);
    const swapped = await until(store, (s) => s.compareColumns?.[0]?.config.allocator === "hinckley-up");
    expect(swapped.compareColumns?.map((c) => c.config.allocator)).toEqual(["hinckley-up", "fitzgen-down"]);
    expect(runs()).toBe(5);
    columns.destroy();
    tracer.destroy();
  });

  it("a sweep's points are dispatched as they arrive, and reading them runs nothing", async () => {
    const { module, runs } = counted();
    const store = createStore(reducer, initialState({ source: PROGRAM, allocator: "fitzgen-down" }));
    const tracer = startTracer(module, store);
    const failures: string[] = [];
    const sweeps = startSweepRunner(module, store, measure, (text) => failures.push(text));
    tracer.retrace();
    await until(store, (s) => s.trace !== null);
    expect(runs()).toBe(1);

    store.dispatch({ type: "setSweep", setup: { param: "preset", values: ["fitzgen-down", "hinckley-up"] } });
    // The sweep is under way at once: its progress is in the state, no point yet.
    expect(store.getState().sweepRun?.running).toEqual({ done: 0, total: 2 });
    const done = await until(store, (s) => s.sweepRun !== null && s.sweepRun.running === null);
    const points = done.sweepRun?.result?.points ?? [];
    expect(points.map((p) => [p.point.value, p.ok ? p.ok && p.figures.ops : null])).toEqual([
      ["fitzgen-down", 2],
      ["hinckley-up", 2],
    ]);
    expect(points.map((p) => (p.ok ? p.figures.padding : null))).toEqual([7, 7]);
    expect(runs()).toBe(3);
    store.dispatch({ type: "seek", step: 1 });
    expect(store.getState().sweepRun).toBe(done.sweepRun);
    expect(runs()).toBe(3);

    // Closing the sweep drops its runs from the state.
    store.dispatch({ type: "closeSweep" });
    expect(store.getState().sweepRun).toBeNull();
    expect(failures).toEqual([]);
    sweeps.cancel();
    tracer.destroy();
  });
});
