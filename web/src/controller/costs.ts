// Costs for a run the page shows: measured on the cost module for the same
// configuration, after the run's first map (the trace module never waits for
// it), and only for runs the cost module can replay.

import type { RunConfig } from "../wasm/config";
import type { CostsResult } from "../wasm/costModule";
import { loadCostModule } from "../wasm/load";

/** Measures a configuration's costs somewhere: in a worker (the app), on the page (embeds). */
export type Measure = (config: RunConfig) => Promise<CostsResult>;

/** A `repeat` statement starts a line (the program language is one statement per line). */
const REPEAT = /^[ \t]*repeat\b/m;

/**
 * Why a run of `ops` ops of `source` has no costs, or undefined when the cost
 * module can measure it. The advice is the change that can help: a repeat
 * count where the program has one; a recording (ops written out one per
 * line) can only be recorded shorter.
 */
export function overCostCap(ops: number, cap: number, source: string): string | undefined {
  if (ops <= cap) return undefined;
  const fix = REPEAT.test(source) ? "lower a repeat count to see them" : "record or keep fewer ops to see them (bumplab-record --max-ops)";
  return `costs are measured for programs of up to ${cap.toLocaleString("en-US")} ops, and this one runs ${ops.toLocaleString("en-US")}: ${fix}`;
}

/** The cost module on the page's own thread; a failed load is said, and tried again next time. */
export const measureOnPage: Measure = (config) =>
  loadCostModule().then(
    (m) => m.costs(config),
    (error: unknown) => ({ unavailable: `the cost module did not load (${error instanceof Error ? error.message : String(error)})` }),
  );

/** `config`'s costs for a run of `ops` ops: over the cap without loading anything. */
export function costsFor(ops: number, config: RunConfig, measure: Measure, cap: number): Promise<CostsResult> {
  const over = overCostCap(ops, cap, config.source);
  return over !== undefined ? Promise.resolve({ unavailable: over }) : measure(config);
}
