// Test utilities: programs run the way the page runs them, on the trace
// module (the columnar run, to its end), with the cost module's numbers
// added where a test reads costs. Not part of the page.

import type { RunConfig, RunSettings } from "../wasm/config";
import { loadCostModuleSync, loadTraceModuleSync } from "../wasm/node";
import { traceNow } from "../wasm/run";
import { withCosts, type TraceView, type ViewResult } from "../wasm/traceView";
import type { Op, Trace } from "../wasm/types";

/** A full configuration from the parts a test names (the rest: the preset's defaults, 64-bit). */
export function config(source: string, allocator = "fitzgen-down", settings: Partial<RunSettings> = {}): RunConfig {
  return { source, allocator, target: "64", capacity: null, minAlign: null, ...settings };
}

/** `config`'s run as the page shows it, or its error. */
export function viewResult(c: RunConfig): ViewResult {
  const r = traceNow(loadTraceModuleSync(), c);
  return r.ok ? { ok: true, trace: r.view } : r;
}

/** The view of a program that must run (a test failure otherwise). */
export function traced(source: string, allocator = "fitzgen-down", settings: Partial<RunSettings> = {}): TraceView {
  const r = viewResult(config(source, allocator, settings));
  if (!r.ok) throw new Error(`${allocator}: ${r.error.line}:${r.error.column}: ${r.error.message}`);
  return r.trace;
}

/** The same, with the cost module's costs, real-crate run and baseline. */
export function measured(source: string, allocator = "fitzgen-down", settings: Partial<RunSettings> = {}): TraceView {
  const c = config(source, allocator, settings);
  return withCosts(traced(source, allocator, settings), loadCostModuleSync().costs(c));
}

/** Every op of a run in full, as the JSON trace lists them (each asked of the run: for small programs). */
export function opsOf(trace: TraceView): Op[] {
  return Array.from({ length: trace.length }, (_, i) => trace.op(i));
}

/** The cost module's full JSON trace of `c` (what export and the CLI write). */
export function jsonTrace(c: RunConfig): Trace {
  const r = loadCostModuleSync().trace(c);
  if (!r.ok) throw new Error(`${c.allocator}: ${r.error.line}:${r.error.column}: ${r.error.message}`);
  return r.trace;
}

const viewOfJson = new WeakMap<Trace, TraceView>();

/**
 * A JSON trace as the page shows it: its program run again on the trace
 * module (as an import does), with the file's costs, real-crate run and
 * baseline attached (a test may have edited those).
 */
export function viewOf(t: Trace): TraceView {
  const known = viewOfJson.get(t);
  if (known) return known;
  const view = traced(t.program.text, t.allocator, {
    target: t.target,
    capacity: t.program.capacity ?? null,
    minAlign: t.program.min_align ?? null,
  });
  const shown = withCosts(view, {
    ...(t.ops.some((o) => o.cost) ? { costs: t.ops.map((o) => o.cost) } : {}),
    ...(t.real ? { real: t.real } : {}),
    ...(t.baseline ? { baseline: t.baseline } : {}),
  });
  viewOfJson.set(t, shown);
  return shown;
}
