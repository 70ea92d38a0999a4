// The browser's wasm loaders (issue 7): two modules, each instantiated once.
//
// - The LEAN module (web/pkg-trace, crates/trace-wasm, ~185 kB gzip): what
//   every page needs first. Static import of its glue; its .wasm is fetched by
//   the first `loadTraceModule()`.
//
//     const lean = await loadTraceModule();
//     lean.allocators(); lean.sourceText(name); lean.sourcePath(name);
//     const run = lean.startRun({ source, allocator, target, capacity, minAlign });
//     // a TraceRun: advance(maxOps) / executed() / total() / error() / columns …
//     const outcome = await traceInSlices(lean, request, { onProgress, signal });
//     // { kind: "done", view: TraceView, run } | { kind: "failed", error } | { kind: "cancelled" }
//     // "done": the view reads op details from `run`; call run.free() when the
//     // view is replaced (failed and cancelled runs are freed here).
//
// - The METERED module (web/pkg, crates/wasm, ~380 kB gzip): costs, the real
//   crate's run, the baseline, and full JSON traces. Loaded on demand by a
//   dynamic import(), so Vite puts its glue in a chunk of its own and neither
//   its JS nor its .wasm is fetched until the first `loadCostModule()`.
//
//     const metered = await loadCostModule();
//     withCosts(view, metered.costs(request));  // per-op costs, real run, baseline, or { unavailable }
//     metered.engine.trace(request);            // the full JSON trace (export, CLI-like uses)
//
// - `loadSourceText(path)`: a source file's text (path as `sourcePath` gives
//   it) from a lazy chunk of its own, fetched when first asked for: for the
//   code view if the lean module stops embedding the texts (about 29 kB of its
//   gzip). Unused, it costs nothing (tree-shaken).
//
// - `loadEngine()`: the old single-module Engine (full JSON traces), kept for
//   callers not yet switched; it now goes through loadCostModule(), so it
//   fetches the metered module.
//
// Vite emits each .wasm as a hashed asset and rewrites the glue's
// `new URL("…_bg.wasm", import.meta.url)`.

import initTrace, * as traceGlue from "../../pkg-trace/bumplab_trace.js";
import { adaptModule, createEngine, internalError, type Engine, type WasmExports } from "./facade";
import { runInSlices, type SliceOptions, type SteppableRun } from "./slices";
import { fromRun, type TraceRunLike, type TraceView } from "./traceView";
import type { AllocatorInfo, Baseline, Cost, ProgramError, RealRun, SourceName, TraceRequest } from "./types";

// ---- The lean module's face (shared with node.ts) -----------------------------

/** A `TraceRun` of the lean module (crates/trace-wasm): what slices.ts and traceView.fromRun read, and `free`. */
export interface TraceRunHandle extends SteppableRun, TraceRunLike {
  /** Releases the run's wasm memory; the run (and a view over it) must not be used after. */
  free(): void;
}

export interface TraceModule {
  /** A new run of `request`, not yet advanced (a program error shows in `error()` once advanced). */
  startRun(request: TraceRequest): TraceRunHandle;
  allocators(): readonly AllocatorInfo[];
  /**
   * Text of an embedded source file (a trace's `source` or a step's `file`);
   * undefined when the module does not embed them (see sourceTexts.ts).
   */
  sourceText(name: SourceName): string | undefined;
  /** Its path from the repository root. */
  sourcePath(name: SourceName): string | undefined;
  /**
   * What a call that threw (a trap: a bug) becomes, with the panic's message
   * when the module kept it. After a trap the instance is unusable: reload the page.
   */
  internalError(thrown: unknown): ProgramError;
}

type TraceRunClass = new (source: string, allocator: string, target: string, capacity?: number, minAlign?: number) => TraceRunHandle;

/** Picks the lean module's exports out of its wasm-bindgen glue (an initialised namespace). */
export function adaptTraceModule(glue: object): TraceModule {
  const m = glue as Record<string, unknown>;
  const TraceRun = m["TraceRun"];
  if (typeof TraceRun !== "function") throw new Error("the lean wasm module does not export TraceRun: rebuild it (npm run build:wasm)");
  const Run = TraceRun as TraceRunClass;
  const wasm: WasmExports = {
    ...adaptModule({
      // A lean build without the texts (the page fetches them: sourceTexts.ts) answers none.
      sourceText: () => undefined,
      ...m,
      // The lean module makes no JSON traces: createEngine is used for its
      // allocator list and source texts (parsed and cached) only.
      traceProgram: () => JSON.stringify({ error: { line: 1, column: 1, message: "the lean module makes no JSON traces: use startRun" } }),
    }),
  };
  const engine = createEngine(wasm);
  return {
    startRun: (r) => new Run(r.source, r.allocator, r.target, r.capacity ?? undefined, r.minAlign ?? undefined),
    allocators: () => engine.allocators(),
    sourceText: (name) => engine.sourceText(name),
    sourcePath: (name) => engine.sourcePath(name),
    internalError(thrown) {
      const r = internalError(thrown, wasm);
      return r.ok ? { line: 1, column: 1, message: "internal error" } : r.error;
    },
  };
}

/** What the cost view reads from the metered module, in the shape traceView's `withCosts` takes. */
export interface CostsResult {
  costs?: (Cost | undefined)[];
  real?: RealRun;
  baseline?: Baseline;
  /** Why there are no costs (a program error, a trap, an old module). */
  unavailable?: string;
}

/** Parses the metered module's `traceCosts` JSON. */
export function parseCosts(json: string): CostsResult {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return { unavailable: "the metered module returned malformed JSON" };
  }
  if (typeof v !== "object" || v === null) return { unavailable: "the metered module returned no costs" };
  const o = v as Record<string, unknown>;
  if ("error" in o) {
    const e = o["error"] as { message?: unknown } | null;
    return { unavailable: typeof e?.message === "string" ? e.message : String(o["error"]) };
  }
  if (!Array.isArray(o["costs"])) return { unavailable: "the metered module returned no costs" };
  const costs = (o["costs"] as unknown[]).map((c): Cost | undefined =>
    Array.isArray(c) && c.length === 4
      ? { wasm_instructions: Number(c[0]), wasm_branches: Number(c[1]), slow_instructions: Number(c[2]), slow_branches: Number(c[3]) }
      : undefined,
  );
  return {
    costs,
    ...(o["real"] ? { real: o["real"] as RealRun } : {}),
    ...(o["baseline"] ? { baseline: o["baseline"] as Baseline } : {}),
  };
}

/** The metered module's face over its initialised glue (shared with node.ts). */
export function adaptCostModule(glue: object): CostModule {
  const wasm = adaptModule(glue);
  const traceCosts = (glue as Record<string, unknown>)["traceCosts"];
  return {
    engine: createEngine(wasm),
    costs(request) {
      if (typeof traceCosts !== "function") return { unavailable: "the metered module has no traceCosts: rebuild it (npm run build:wasm)" };
      let json: string;
      try {
        json = (traceCosts as CostsFn)(request.source, request.allocator, request.target, request.capacity ?? undefined, request.minAlign ?? undefined);
      } catch (e) {
        const r = internalError(e, wasm);
        return { unavailable: r.ok ? "internal error" : r.error.message };
      }
      return parseCosts(json);
    },
  };
}

// ---- Loaders ---------------------------------------------------------------------

let leanLoading: Promise<TraceModule> | undefined;

/** The lean module, instantiated once (its .wasm fetched by the first call). */
export function loadTraceModule(): Promise<TraceModule> {
  leanLoading ??= initTrace().then(
    () => adaptTraceModule(traceGlue),
    (error: unknown) => {
      leanLoading = undefined; // a failed fetch may succeed on a later try
      throw error;
    },
  );
  return leanLoading;
}

/** The metered module: `engine` (full JSON traces) and `costs` (what the cost view reads). */
export interface CostModule {
  engine: Engine;
  /** Per-op costs, the real crate's run and the baseline, in the shape `withCosts` takes. */
  costs(request: TraceRequest): CostsResult;
}

let costLoading: Promise<CostModule> | undefined;

/** The metered module, imported and instantiated on the first call only. */
export function loadCostModule(): Promise<CostModule> {
  costLoading ??= import("../../pkg/bumplab.js").then(
    async (glue) => {
      await glue.default();
      return adaptCostModule(glue);
    },
    (error: unknown) => {
      costLoading = undefined;
      throw error;
    },
  );
  return costLoading;
}

type CostsFn = (source: string, allocator: string, target: string, capacity?: number, minAlign?: number) => string;

/** The full-JSON Engine of the metered module (as before issue 7). Prefer loadTraceModule + loadCostModule. */
export function loadEngine(): Promise<Engine> {
  return loadCostModule().then((m) => m.engine);
}

// The files the models' steps point into, each its own chunk (Vite's glob):
// the very files the modules were compiled from, at build time.
const SOURCE_FILES = import.meta.glob<string>("../../../crates/core/src/{algorithms,models}/*.rs", { query: "?raw", import: "default" });

/** The text of a source file by its repository path ("crates/core/src/algorithms/bump_down.rs"), or undefined. */
export function loadSourceText(path: string): Promise<string | undefined> {
  const load = SOURCE_FILES[`../../../${path}`];
  return load ? load() : Promise.resolve(undefined);
}

export type TraceOutcome = { kind: "done"; view: TraceView; run: TraceRunHandle } | { kind: "failed"; error: ProgramError } | { kind: "cancelled" };

/**
 * Runs `request` on the lean module to its end in time-sized slices
 * (slices.ts: about a frame each, `onProgress` between them, `signal`
 * cancels), then gives its TraceView. A program that finishes in the first
 * slice resolves without yielding to the event loop.
 */
export async function traceInSlices(lean: TraceModule, request: TraceRequest, options: SliceOptions = {}): Promise<TraceOutcome> {
  let run: TraceRunHandle;
  try {
    run = lean.startRun(request);
  } catch (e) {
    return { kind: "failed", error: lean.internalError(e) };
  }
  let outcome;
  try {
    outcome = await runInSlices(run, options);
  } catch (e) {
    run.free();
    return { kind: "failed", error: lean.internalError(e) };
  }
  if (outcome.kind !== "done") {
    run.free();
    return outcome;
  }
  try {
    return { kind: "done", view: fromRun(run), run };
  } catch (e) {
    run.free();
    return { kind: "failed", error: lean.internalError(e) };
  }
}
