// Compare mode's columns: the program traced once per column on the trace
// module, so stepping never re-traces, then each column's costs from the
// cost module. The columns on screen stay until their replacements are
// traced; the replaced runs are freed after the next render.

import type { RunSettings } from "../engine/config";
import { traceInSlices } from "../engine/run";
import { withCosts } from "../engine/traceView";
import type { TraceModule, TraceRunHandle } from "../engine/traceModule";
import type { CompareColumn } from "../model/compare";
import { costsFor, type Measure } from "./costs";

export interface CompareTracer {
  /** The columns for `source` on `configs`: those on screen until these are traced (null before any). */
  columns(source: string, configs: readonly RunSettings[]): CompareColumn[] | null;
  /** Frees the runs of replaced columns: call after each render. */
  afterRender(): void;
  destroy(): void;
}

export interface CompareTracerOptions {
  /** Where costs are measured; absent: the columns show none. */
  measure?: Measure;
  /** Called whenever the columns change (traced, or costs arrived). */
  onChange: () => void;
  /** While a long column is in slices. */
  onProgress?: (executed: number, total: number) => void;
}

interface ColumnSet {
  key: string;
  columns: CompareColumn[];
  runs: TraceRunHandle[];
}

export function compareTracer(module: TraceModule, options: CompareTracerOptions): CompareTracer {
  let shown: ColumnSet | null = null;
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
      const set: ColumnSet = { key, columns, runs };
      shown = set;
      options.onChange();
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
      if (destroyed || shown !== set) return;
      shown = { ...set, columns: measured };
      options.onChange();
    })();
  };

  return {
    columns(source, configs) {
      const key = JSON.stringify([source, configs]);
      if (key !== shown?.key && key !== tracingKey) trace(key, source, configs);
      return shown?.columns ?? null;
    },
    afterRender() {
      freeAll(retired);
      retired = [];
    },
    destroy() {
      destroyed = true;
      abort?.abort();
      if (shown) freeAll(shown.runs);
      shown = null;
      freeAll(retired);
      retired = [];
    },
  };
}
