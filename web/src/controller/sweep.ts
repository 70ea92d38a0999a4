// The sweep view's runs. The store holds what to sweep; the points arrive
// one per macrotask and are dispatched into the store as they do (its
// `sweepRun`), so the view only reads them. A sweep (re)runs when what it
// sweeps or the configuration it starts from changes; a new run cancels the
// one before. Each point runs on the trace module with its costs, like any
// run the page shows, and its run is freed once summed.

import { configOf, type RunConfig } from "../wasm/config";
import { traceNow } from "../wasm/run";
import { withCosts } from "../wasm/traceView";
import type { TraceModule } from "../wasm/traceModule";
import { defaultValues, runSweep, specOf, type PointRunner, type SweepResult, type SweepSetup } from "../model/sweep";
import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";
import { costsFor, type Measure } from "./costs";

export interface SweepRunner {
  /** Runs the state's sweep again, though that sweep of that base already ran (a Run after a Cancel). */
  again(): void;
  cancel(): void;
  /** What the Sweep button opens: the last sweep closed, else MIN_ALIGN where the preset has it, else the presets. */
  toOpen(s: AppState): SweepSetup;
}

/** The program as last traced: an edit with an error keeps sweeping the last good one, as the map does. */
export const sweepBase = (s: AppState): RunConfig => ({ ...configOf(s), source: s.tracedSource });

/**
 * Runs the store's sweep whenever it or the configuration it starts from
 * changes, dispatching its progress and points (`sweepRan`).
 */
export function startSweepRunner(module: TraceModule, store: Store<AppState, Action>, measure: Measure, onFailure: (message: string) => void): SweepRunner {
  const allocators = module.allocators();
  const onChange = (): void => store.dispatch({ type: "sweepRan", run: { running: run ? { done: run.done, total: run.total } : null, result: result?.result ?? null } });
  let run: { key: string; controller: AbortController; done: number; total: number } | null = null;
  let result: { key: string; result: SweepResult } | null = null;
  let last: SweepSetup | null = null;

  const point: PointRunner = async (config) => {
    await module.ready(config.allocator);
    const traced = traceNow(module, config);
    if (!traced.ok) return { result: traced };
    const costs = await costsFor(traced.view.length, config, measure, module.maxCostedOps);
    return { result: { ok: true, trace: withCosts(traced.view, costs) }, done: () => traced.run.free() };
  };

  const start = (s: AppState, again: boolean): void => {
    if (s.sweep === null) return;
    const base = sweepBase(s);
    const key = JSON.stringify([s.sweep, base]);
    if (!again && (run?.key === key || result?.key === key)) return;
    run?.controller.abort();
    run = null;
    const spec = specOf(s.sweep, base, allocators);
    if (!spec.ok) {
      // A link's values this version cannot run: nothing runs, the view's form says why on Run.
      result = { key, result: { param: s.sweep.param, points: [], total: 0, cancelled: false } };
      onChange();
      return;
    }
    const mine = { key, controller: new AbortController(), done: 0, total: spec.spec.values.length };
    run = mine;
    result = { key, result: { param: spec.spec.param, points: [], total: mine.total, cancelled: false } };
    onChange();
    runSweep(point, spec.spec, allocators, {
      signal: mine.controller.signal,
      onProgress: (done, total, latest) => {
        if (run !== mine || !result) return;
        mine.done = done;
        mine.total = total;
        result = { key, result: { ...result.result, points: [...result.result.points, latest] } };
        onChange();
      },
    }).then(
      (r) => {
        // A newer run (or closing the view) replaced this one.
        if (run !== mine) return;
        run = null;
        result = { key, result: r };
        onChange();
      },
      (error: unknown) => {
        if (run !== mine) return;
        run = null;
        result = { key, result: { param: spec.spec.param, points: [], total: mine.total, cancelled: true } };
        onFailure(`The sweep could not run: ${error instanceof Error ? error.message : String(error)}.`);
        onChange();
      },
    );
  };

  const sync = (s: AppState, again = false): void => {
    if (s.sweep !== null) {
      start(s, again);
      last = s.sweep;
    } else if (run || result) {
      run?.controller.abort();
      run = null;
      result = null;
      store.dispatch({ type: "sweepRan", run: null });
    }
  };
  store.subscribe((s) => sync(s));
  sync(store.getState());

  return {
    again: () => sync(store.getState(), true),
    cancel: () => run?.controller.abort(),
    toOpen(s) {
      const hasAligns = (allocators.find((a) => a.name === s.allocator)?.minAligns.length ?? 0) > 0;
      // Minimum alignments are the preset's own: a remembered list may not fit this one.
      if (last && last.param !== "minAlign") return last;
      const param = hasAligns ? "minAlign" : "preset";
      return { param, values: defaultValues(param, sweepBase(s), allocators) };
    },
  };
}
