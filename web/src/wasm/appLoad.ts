// The app's engine: the trace module's build for speed (web/pkg-trace-fast,
// every preset in one), since the app traces programs of a million ops,
// where the size-optimised builds (load.ts's, the embed's and <bump-lab>'s)
// take half as long again. A module of its own, imported by the app's entry
// alone: Vite emits a `new URL("…_bg.wasm")` asset for every bundle that
// holds it, used or not, and the embed and bump-lab.js must not carry this
// build.

import initFast, * as fastGlue from "../../pkg-trace-fast/trace.js";
import { instantiate, once } from "./load";
import { adaptTraceModule, type TraceModule } from "./traceModule";

export const loadAppTraceModule: () => Promise<TraceModule> = once(async () => {
  await instantiate(initFast, new URL("../../pkg-trace-fast/trace_bg.wasm", import.meta.url));
  return adaptTraceModule([fastGlue]);
});
