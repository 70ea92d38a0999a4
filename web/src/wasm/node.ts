// Node's loaders, for unit tests and the CLI: `init()` cannot fetch a file:
// URL there, so each module is instantiated from its file's bytes, once.
// The same adapters as the page's (load.ts).

import { readFileSync } from "node:fs";
import * as costGlue from "../../pkg-cost/cost.js";
import * as traceGlue from "../../pkg-trace/trace.js";
import * as moreGlue from "../../pkg-trace-more/trace.js";
import { adaptCostModule, type CostModule } from "./costModule";
import { adaptTraceModule, type TraceModule } from "./traceModule";

let trace: TraceModule | undefined;
let cost: CostModule | undefined;

export function loadTraceModuleSync(): TraceModule {
  if (!trace) {
    traceGlue.initSync({ module: readFileSync(new URL("../../pkg-trace/trace_bg.wasm", import.meta.url)) });
    moreGlue.initSync({ module: readFileSync(new URL("../../pkg-trace-more/trace_bg.wasm", import.meta.url)) });
    // Both builds at once: nothing in Node waits for a fetch.
    trace = adaptTraceModule([traceGlue, moreGlue]);
  }
  return trace;
}

export function loadCostModuleSync(): CostModule {
  if (!cost) {
    costGlue.initSync({ module: readFileSync(new URL("../../pkg-cost/cost_bg.wasm", import.meta.url)) });
    cost = adaptCostModule(costGlue);
  }
  return cost;
}

/** A source file's text, from the files the modules were built from. */
export function sourceTextSync(path: string): string | undefined {
  try {
    return readFileSync(new URL(`../../../${path}`, import.meta.url), "utf8");
  } catch {
    return undefined;
  }
}
