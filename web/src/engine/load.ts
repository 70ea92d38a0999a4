// The browser's loaders: each wasm module instantiated once. The trace
// module's core build is what every page needs first (its glue is a static
// import; its .wasm is fetched by the first `loadTraceModule()`); its build
// for the other arenas and the cost module are dynamic imports, so Vite puts
// their glue in chunks of their own and nothing of them is fetched until a
// page shows such an arena or reads costs. Vite emits each .wasm as a hashed
// asset and rewrites the glue's `new URL("…_bg.wasm", import.meta.url)`.

import initTrace, * as traceGlue from "../../pkg-trace/trace.js";
import { adaptCostModule, type CostModule } from "./costModule";
import { adaptTraceModule, type TraceModule } from "./traceModule";

/** Runs `load` once; a failure (offline for a moment, a new deploy) is not kept, so the next call tries again. */
function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

export const loadTraceModule: () => Promise<TraceModule> = once(() =>
  initTrace().then(() =>
    adaptTraceModule([traceGlue], async () => {
      const more = await import("../../pkg-trace-more/trace.js");
      await more.default();
      return more;
    }),
  ),
);

export const loadCostModule: () => Promise<CostModule> = once(async () => {
  const glue = await import("../../pkg-cost/cost.js");
  await glue.default();
  return adaptCostModule(glue);
});

// The files the models' steps point into, each a chunk of its own (Vite's
// glob): the very files the modules were compiled from, at build time. The
// trace module does not embed them (they would be a sixth of its download).
const SOURCE_FILES = import.meta.glob<string>("../../../crates/core/src/{algorithms,models}/*.rs", { query: "?raw", import: "default" });

/** The text of a source file by its repository path ("crates/core/src/algorithms/bump_down.rs"), or undefined. */
export function loadSourceText(path: string): Promise<string | undefined> {
  const load = SOURCE_FILES[`../../../${path}`];
  return load ? load() : Promise.resolve(undefined);
}
