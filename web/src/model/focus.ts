// What the views single out at a step, derived from the trace: the blocks the
// op placed or acted on (plus those the narration names), the code view's
// file and lines, and the counters at every step. The app (app.ts) and the
// embeddable player (player.ts) both use these, so an embed highlights
// and counts exactly as the app does.

import { stmtIndex, type TraceView } from "../wasm/traceView";
import type { NamedValue, Op, SourceName, Stats } from "../wasm/types";
import { statsAt, type ChunkView } from "./chunks";
import { microIndex, microSteps } from "./describe";
import type { Narration } from "./narration";

/** Blocks the op placed or acted on, highlighted on the map. */
export function focusOf(op: Op | undefined): Set<number> {
  const ids = new Set<number>();
  if (!op) return ids;
  if ((op.kind === "alloc" || op.kind === "realloc") && !op.failed) ids.add(op.index);
  if (op.target_op !== undefined) ids.add(op.target_op);
  return ids;
}

/** The op's blocks, plus those the narration in view names (`#> !highlight a b`). Adds to `focus` and returns it. */
export function highlighted(
  focus: Set<number>,
  rows: readonly ChunkView[],
  narration: Narration | null,
  trace?: TraceView,
): Set<number> {
  if (!narration || narration.highlight.length === 0) return focus;
  const names = new Set(narration.highlight);
  if (!trace) {
    for (const row of rows) for (const b of row.blocks) if (names.has(b.name)) focus.add(b.id);
    return focus;
  }
  // From the columns: the statements naming a highlighted block, then the held
  // blocks those statements placed (no block objects made).
  const stmts = new Set<number>();
  for (let k = 0; k < trace.stmts.length; k++) {
    const block = trace.stmts.block(k);
    if (block !== undefined && names.has(block)) stmts.add(k);
  }
  if (stmts.size === 0) return focus;
  for (const row of rows) {
    for (let j = 0; j < row.held.count; j++) {
      const id = row.held.id(j);
      if (stmts.has(stmtIndex(trace, id))) focus.add(id);
    }
  }
  return focus;
}

export interface CodeFocus {
  /** The source file shown: that of the micro-step in view, else the trace's bumping file. */
  file: SourceName;
  /** The micro-step's line, or null when no micro-step is in view. */
  current: number | null;
  label: string | null;
  values: NamedValue[];
  /** The lines the op's micro-steps ran in that file. */
  touched: Set<number>;
}

/**
 * The file the code view shows (that of the micro-step in view, else the
 * trace's bumping file), the step's line and values, and the lines the op's
 * micro-steps ran in that file.
 */
export function codeFocus(trace: TraceView, op: Op | undefined, micro: number | null): CodeFocus {
  const steps = microSteps(op);
  const index = microIndex(op, micro);
  const step = index === null ? undefined : steps[index];
  const file = step?.file ?? trace.source;
  const inFile = steps.filter((s) => (s.file ?? trace.source) === file);
  return {
    file,
    current: step ? step.line : null,
    label: step?.label ?? null,
    values: step?.values ?? [],
    touched: new Set(inFile.map((s) => s.line)),
  };
}

/** The counters over a program: `stats[k]` after `steps[k]` ops (ascending, 0 and the last step included). */
export interface StatsSeries {
  stats: readonly Stats[];
  steps: readonly number[];
  /** Ops in the program (the last step). */
  total: number;
}

/**
 * The stats chart's points, computed once per trace: step 0 (the
 * constructor's chunks), then the trace's samples (every step of a program of
 * up to 4096 ops; every `statsEvery`-th of a longer one), and the last step.
 */
const seriesCache = new WeakMap<TraceView, StatsSeries>();
export function statsSeries(trace: TraceView): StatsSeries {
  let series = seriesCache.get(trace);
  if (!series) {
    const stats: Stats[] = [statsAt(trace, 0)];
    const steps: number[] = [0];
    trace.samples.forEach((s, j) => {
      const step = Math.min(j * trace.statsEvery, trace.length - 1) + 1;
      if (step <= (steps[steps.length - 1] ?? 0)) return;
      stats.push(s);
      steps.push(step);
    });
    series = { stats, steps, total: trace.length };
    seriesCache.set(trace, series);
  }
  return series;
}
