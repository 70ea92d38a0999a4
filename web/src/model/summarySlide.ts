// A one-slide summary for a lecture: the program's ops down the side, the
// compared allocators across, and in each cell what that allocator's code
// did for that op (wasm instructions, conditional branches, alignment
// padding), with each run's totals and the chunks it made at the bottom.
// Every number comes from the columns' traces (compareOps, columnTotals): the
// same counts the compare table and the Cost panel show.

import type { TraceView } from "../wasm/traceView";
import { cheapestOf, columnTotals, compareOps, placementAt } from "./compare";

/** The most op rows a slide holds: more would not read from the back of a room. */
export const SLIDE_ROWS = 12;

export interface SlideCell {
  instructions: number | null;
  branches: number | null;
  /** Alignment padding this op's placement skipped (null: it placed no block). */
  padding: number | null;
  /** The op failed in this column (out of memory). */
  failed: boolean;
}

export interface SlideRow {
  /** 0-based op index. */
  index: number;
  /** The op's line of the program, trimmed. */
  statement: string;
  /** One per column; null where the column's program did not run. */
  cells: (SlideCell | null)[];
  /** Columns with the fewest instructions for this op, when the columns differ. */
  fewest: number[];
  /** The op in view. */
  current: boolean;
}

export interface SlideTotal {
  label: string;
  /** One per column: the number, null where the column did not run or was not measured. */
  values: (number | null)[];
  /** Columns with the least, when they differ. */
  least: number[];
}

export interface SummarySlide {
  columns: string[];
  rows: SlideRow[];
  /** The ops the rows are (0-based, [from, to)) and how many the program has. */
  from: number;
  to: number;
  ops: number;
  totals: SlideTotal[];
  /** What the program is, in a line: "5 ops on 3 allocators" or the ops shown of how many. */
  subtitle: string;
}

/**
 * The slide for `columns` (each compare column's label and its run) at
 * `step`: every op of a program of up to SLIDE_ROWS, else the SLIDE_ROWS
 * around the op in view; totals over the whole run.
 */
export function summarySlide(
  columns: readonly { label: string; trace: TraceView | null }[],
  sourceLines: readonly string[],
  step: number,
): SummarySlide {
  const traces = columns.map((c) => c.trace);
  const ops = Math.max(0, ...traces.map((t) => t?.length ?? 0));
  const inView = Math.max(0, Math.min(step, ops) - 1);
  const from = ops <= SLIDE_ROWS ? 0 : Math.min(Math.max(0, inView - Math.floor(SLIDE_ROWS / 2)), ops - SLIDE_ROWS);
  const to = Math.min(ops, from + SLIDE_ROWS);
  const current = step > 0 ? Math.min(step, ops) - 1 : -1;
  const rows: SlideRow[] = compareOps(traces, from, to).map((r) => ({
    index: r.index,
    statement: sourceLines[r.line - 1]?.trim() || r.name,
    cells: r.columns.map((c) =>
      c ? { instructions: c.instructions, branches: c.branches, padding: c.placement.address !== undefined ? (c.placement.padding ?? 0) : null, failed: c.placement.failed } : null,
    ),
    fewest: r.cheapest.instructions,
    current: r.index === current,
  }));
  // Totals over every op of the run, not only the rows shown.
  const totals = traces.map((t) => (t ? columnTotals(t) : null));
  const total = (label: string, values: (number | null)[]): SlideTotal => ({ label, values, least: cheapestOf(values) });
  const slideTotals = [
    total("Instructions", totals.map((t) => t?.instructions ?? null)),
    total("Branches", totals.map((t) => t?.branches ?? null)),
    total("Padding bytes", traces.map((t) => (t ? paddingPaid(t) : null))),
    total("Chunks made", traces.map((t) => (t ? t.chunks.length : null))),
  ];
  const n = columns.length;
  const subtitle =
    ops <= SLIDE_ROWS
      ? `${ops} ${ops === 1 ? "op" : "ops"} on ${n} allocators`
      : `Ops ${from + 1}–${to} of ${ops} on ${n} allocators (totals: every op)`;
  return { columns: columns.map((c) => c.label), rows, from, to, ops, totals: slideTotals, subtitle };
}

/** Alignment padding every placement of the run skipped, together (a reset does not give it back: it was paid). */
export function paddingPaid(trace: TraceView): number {
  let total = 0;
  for (let i = 0; i < trace.length; i++) total += placementAt(trace, i).padding ?? 0;
  return total;
}
