// The trace module (crates/trace-wasm, built into web/pkg-trace): the engine
// every page runs first. A `TraceRun` runs a program in slices into seven u32
// columns per op and gives any op's full detail on demand; that columnar run
// is the only representation of a run the page reads (traceView.ts).
//
// This is the module's one adapter: the only place that knows its export
// names and the columns' bit layout, which it takes from the module itself.

import type { RunConfig } from "./config";
import { wasmArgs } from "./config";
import { internalError } from "./errors";
import { COLUMN_LAYOUT, type ColumnName } from "./traceView";
import type { AllocatorInfo, ProgramError, SourceName } from "./types";

/** A `TraceRun`: what slices.ts advances, what traceView's `fromRun` reads, and `free`. */
export interface TraceRunHandle {
  /** Runs up to `maxOps` more ops; true once finished or failed. */
  advance(maxOps: number): boolean;
  executed(): number;
  /** Ops the program will run, known once parsed. */
  total(): number;
  /** JSON `{line, column, message}` once the run failed. */
  error(): string | undefined;
  column(which: ColumnName): Uint32Array;
  /** 9 numbers per sample, in Stats field order. */
  statsSamples(): Float64Array;
  /** JSON {version, allocator, target, direction, source, source_path, stmts, stats_every}. */
  header(): string;
  /** JSON [ChunkInfo]. */
  chunks(): string;
  /** JSON {"op": Op, "chunks_used": [{id, lo, hi}]}. */
  detail(i: number): string;
  /** Releases the run's wasm memory; the run (and a view over it) must not be used after. */
  free(): void;
}

export interface TraceModule {
  /** A new run of `config`, not yet advanced (a program error shows in `error()` once advanced). */
  startRun(config: RunConfig): TraceRunHandle;
  allocators(): readonly AllocatorInfo[];
  /** A source file's path from the repository root (the code view's title). */
  sourcePath(name: SourceName): string | undefined;
  /** The most ops the cost module measures (its full trace's cap). */
  readonly maxCostedOps: number;
  /** What a call that threw (a trap: a bug) becomes; after one, the page must be reloaded. */
  internalError(thrown: unknown): ProgramError;
}

type RunClass = new (...args: ReturnType<typeof wasmArgs>) => TraceRunHandle;

function pick<T>(glue: Record<string, unknown>, name: string): T {
  const f = glue[name];
  if (typeof f !== "function") throw new Error(`the trace module does not export ${name}: rebuild it (npm run build:wasm)`);
  return f as T;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

/** The allocator list as `listAllocators` gives it (JSON). */
export function parseAllocators(json: string): AllocatorInfo[] {
  const list: unknown = JSON.parse(json);
  if (!Array.isArray(list)) return [];
  return list.filter(isObject).map((a) => ({
    name: String(a["name"]),
    direction: a["direction"] === "down" ? "down" : "up",
    source: String(a["source"] ?? ""),
    description: String(a["description"] ?? ""),
    minAligns: Array.isArray(a["min_aligns"])
      ? a["min_aligns"].filter((n): n is number => typeof n === "number" && Number.isInteger(n) && n > 0)
      : [],
  }));
}

/** The module's face over its initialised wasm-bindgen glue (browser and Node alike). */
export function adaptTraceModule(glue: object): TraceModule {
  const m = glue as Record<string, unknown>;
  const Run = pick<RunClass>(m, "TraceRun");
  const listAllocators = pick<() => string>(m, "listAllocators");
  const sourcePath = pick<(name: string) => string | undefined>(m, "sourcePath");
  const lastPanic = typeof m["lastPanic"] === "function" ? (m["lastPanic"] as () => string | undefined) : undefined;
  // The columns are read with traceView's constants: they must be the module's.
  const layout = Array.from(pick<() => Uint32Array>(m, "columnLayout")());
  if (layout.join() !== COLUMN_LAYOUT.join()) {
    throw new Error(`the trace module packs its columns as [${layout.join(", ")}], this page reads [${COLUMN_LAYOUT.join(", ")}]: rebuild it (npm run build:wasm)`);
  }
  let allocators: readonly AllocatorInfo[] | undefined;
  const paths = new Map<SourceName, string | undefined>();
  return {
    startRun: (config) => new Run(...wasmArgs(config)),
    allocators() {
      allocators ??= parseAllocators(listAllocators());
      return allocators;
    },
    sourcePath(name) {
      if (!paths.has(name)) paths.set(name, sourcePath(name));
      return paths.get(name);
    },
    internalError: (thrown) => internalError(thrown, lastPanic),
    maxCostedOps: pick<() => number>(m, "maxCostedOps")(),
  };
}
