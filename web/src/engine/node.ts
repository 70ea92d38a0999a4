// Node-only loaders for unit tests and the CLI: `init()` cannot fetch a file:
// URL there, so each module is instantiated from its file's bytes, once.
// The same faces as browser.ts: the lean module (loadTraceModuleSync) and the
// metered one (loadCostModuleSync); loadEngineSync is the metered module's
// full-JSON Engine, as before issue 7.

import { readFileSync } from "node:fs";
import * as bumplab from "../../pkg/bumplab.js";
import * as traceGlue from "../../pkg-trace/bumplab_trace.js";
import { adaptCostModule, adaptTraceModule, type CostModule, type TraceModule } from "./browser";
import type { Engine } from "./facade";

let lean: TraceModule | undefined;
let metered: CostModule | undefined;

export function loadTraceModuleSync(): TraceModule {
  if (!lean) {
    traceGlue.initSync({ module: readFileSync(new URL("../../pkg-trace/bumplab_trace_bg.wasm", import.meta.url)) });
    lean = adaptTraceModule(traceGlue);
  }
  return lean;
}

export function loadCostModuleSync(): CostModule {
  if (!metered) {
    bumplab.initSync({ module: readFileSync(new URL("../../pkg/bumplab_bg.wasm", import.meta.url)) });
    metered = adaptCostModule(bumplab);
  }
  return metered;
}

export function loadEngineSync(): Engine {
  return loadCostModuleSync().engine;
}
