// Compare mode's columns: the program traced once per column on the trace
// module, so stepping never re-traces, then each column's costs from the
// cost module. The columns traced are dispatched into the store, as the
// single run's trace is: views only read them. The columns on screen stay
// until their replacements are traced; the replaced runs are freed after the
// next render.

import type { RunSettings } from "../wasm/config";
import { traceInSlices } from "../wasm/run";
import { withCosts } from "../wasm/traceView";
import type { TraceModule, TraceRunHandle } from "../wasm/traceModule";
import type { CompareColumn } from "../model/compare";
import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";
import { costsFor, type Measure } from "./costs";

export interface CompareTracer {
  /** Frees the runs of replaced columns: call after each render. */
  afterRender(): void;
  destroy(): void;
}

export interface CompareTracerOptions {
  /** Where costs are measured; absent: the columns show none. */
  measure?: Measure;
  /** While a long column is in slices. */
  onProgress?: (executed: number, total: number) => void;
}

/**
 * Traces the store's compare columns whenever what they run changes (the
 * columns' settings, or the program as last traced without error), and
 * dispatches them: `compareTraced` once traced, again once their costs are
 * measured.
 */
export function startCompareTracer(module: TraceModule, store: Store<AppState, Action>, options: CompareTracerOptions = {}): CompareTracer {
  const { dispatch } = store;
  /** The runs behind the columns in the store, and what they were traced from. */
  let shown: { key: string; runs: TraceRunHandle[] } | null = null;
  let tracingKey = "";
  let abort: AbortController | null = null;
  let retired: TraceRunHandle[] = [];
  let destroyed = false;
  const freeAll = (runs: readonly TraceRunHandle[]): void => {
    for (const run of runs) run.free();
  };

  const trace = (key: string, source: string, configs: readonly RunSettings[]): void => {
    abort?.abort();
    const controller = new AbortController();
    abort = controller;
    tracingKey = key;
    void (async () => {
      const runs: TraceRunHandle[] = [];
      const columns: CompareColumn[] = [];
      for (const config of configs) {
        const outcome = await traceInSlices(module, { ...config, source }, { signal: controller.signal, onProgress: options.onProgress });
        if (outcome.kind === "done") runs.push(outcome.run);
        if (controller.signal.aborted || destroyed || outcome.kind === "cancelled") {
          freeAll(runs);
          return;
        }
        columns.push({ config, result: outcome.kind === "done" ? { ok: true, trace: outcome.view } : { ok: false, error: outcome.error } });
      }
      tracingKey = "";
      abort = null;
      if (shown) retired.push(...shown.runs);
      const mine = { key, runs };
      shown = mine;
      dispatch({ type: "compareTraced", columns });
      const measure = options.measure;
      if (!measure) return;
      const measured = await Promise.all(
        columns.map(async (column): Promise<CompareColumn> => {
          if (!column.result.ok) return column;
          const view = column.result.trace;
          const costs = await costsFor(view.length, { ...column.config, source }, measure, module.maxCostedOps);
          return { config: column.config, result: { ok: true, trace: withCosts(view, costs) } };
        }),
      );
      // Replaced meanwhile: the newer columns measure their own.
      if (destroyed || shown !== mine) return;
      dispatch({ type: "compareTraced", columns: measured });
    })();
  };

  // The columns run the program the map shows (the last one traced without
  // error): nothing to run until it is traced.
  const sync = (s: AppState): void => {
    if (destroyed || s.compare === null || s.trace === null) return;
    const key = JSON.stringify([s.tracedSource, s.compare]);
    if (key !== shown?.key && key !== tracingKey) trace(key, s.tracedSource, s.compare);
  };
  const unsubscribe = store.subscribe(sync);
  sync(store.getState());

  return {
    afterRender() {
      freeAll(retired);
      retired = [];
    },
    destroy() {
      destroyed = true;
      unsubscribe();
      abort?.abort();
      if (shown) freeAll(shown.runs);
      shown = null;
      freeAll(retired);
      retired = [];
    },
  };
}
