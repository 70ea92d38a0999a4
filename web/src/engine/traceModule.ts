// The trace module (crates/trace): the engine the page runs. A
// `TraceRun` runs a program in slices into seven u32 columns per op and gives
// any op's full detail on demand; that columnar run is the only
// representation of a run the page reads (traceView.ts).
//
// The module comes in two builds, one per preset family
// (bumplab_core::presets::Family): web/pkg-trace runs the source documents'
// algorithms and the Rust crates, web/pkg-trace-more the other arenas. A page
// fetches the build for the preset it shows first, and the other only when
// it shows a preset of that family (`ready`), so adding arenas to the second
// leaves the first map's download as it was. This is the module's one
// adapter: the only place that knows its export names and the columns' bit
// layout, which it takes from the module itself.

import type { RunConfig } from "./config";
import { wasmArgs } from "./config";
import { internalError } from "./errors";
import { COLUMN_LAYOUT, type TraceRunLike } from "./traceView";
import type { AllocatorInfo, ProgramError, SourceName } from "./types";

/** A `TraceRun`: what slices.ts advances, what traceView's `fromRun` reads, and `free`. */
export interface TraceRunHandle extends TraceRunLike {
  /** Runs up to `maxOps` more ops; true once finished or failed. */
  advance(maxOps: number): boolean;
  executed(): number;
  /** Ops the program will run, known once parsed. */
  total(): number;
  /** JSON `{line, column, message}` once the run failed. */
  error(): string | undefined;
  /** Releases the run's wasm memory; the run (and a view over it) must not be used after. */
  free(): void;
}

/** A preset family: which build of the module runs it. */
export type Family = AllocatorInfo["family"];

export interface TraceModule {
  /** Fetches the build that runs `allocator`, if it is not here yet. */
  ready(allocator: string): Promise<void>;
  /**
   * A new run of `config`, not yet advanced (a program error shows in
   * `error()` once advanced). The build that runs its allocator must be
   * here (`ready`): else this throws.
   */
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

/** The allocator list as `listAllocators` gives it (JSON), each with the family whose build runs it. */
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
    children: Array.isArray(a["children"]) ? a["children"].filter((c): c is string => typeof c === "string" && c !== "") : [],
    family: a["family"] === "more-arenas" ? "more-arenas" : "core",
  }));
}

/** One build's exports. */
interface Build {
  families: readonly Family[];
  Run: RunClass;
  lastPanic: (() => string | undefined) | undefined;
}

function adaptBuild(glue: object): Build {
  const m = glue as Record<string, unknown>;
  // The columns are read with traceView's constants: they must be the module's.
  const layout = Array.from(pick<() => Uint32Array>(m, "columnLayout")());
  if (layout.join() !== COLUMN_LAYOUT.join()) {
    throw new Error(`the trace module packs its columns as [${layout.join(", ")}], this page reads [${COLUMN_LAYOUT.join(", ")}]: rebuild it (npm run build:wasm)`);
  }
  return {
    families: pick<() => string[]>(m, "builtFamilies")().filter((f): f is Family => f === "core" || f === "more-arenas"),
    Run: pick<RunClass>(m, "TraceRun"),
    lastPanic: typeof m["lastPanic"] === "function" ? (m["lastPanic"] as () => string | undefined) : undefined,
  };
}

/**
 * The module's face over the initialised wasm-bindgen glue of the builds at
 * hand (the first one answers for all: every build lists every preset), and
 * how to fetch another (browser and Node alike).
 */
export function adaptTraceModule(
  glues: readonly object[],
  fetchBuild: (family: Family) => Promise<object> = (family) => Promise.reject(new Error(`the trace module's ${family} build is not available here`)),
): TraceModule {
  const first = glues[0];
  if (!first) throw new Error("no build of the trace module");
  const m = first as Record<string, unknown>;
  const listAllocators = pick<() => string>(m, "listAllocators");
  const sourcePath = pick<(name: string) => string | undefined>(m, "sourcePath");
  const builds = new Map<Family, Build>();
  const add = (glue: object): void => {
    const build = adaptBuild(glue);
    for (const family of build.families) builds.set(family, build);
  };
  for (const glue of glues) add(glue);
  const loading = new Map<Family, Promise<void>>();
  const allocators = parseAllocators(listAllocators());
  const familyOf = (allocator: string): Family => allocators.find((a) => a.name === allocator)?.family ?? "core";
  let lastBuild: Build | undefined;
  const paths = new Map<SourceName, string | undefined>();
  return {
    ready(allocator) {
      const family = familyOf(allocator);
      if (builds.has(family)) return Promise.resolve();
      let load = loading.get(family);
      if (!load) {
        load = fetchBuild(family).then(add, (error: unknown) => {
          // A failed fetch may succeed on a later try.
          loading.delete(family);
          throw error;
        });
        loading.set(family, load);
      }
      return load;
    },
    startRun(config) {
      const family = familyOf(config.allocator);
      const build = builds.get(family);
      if (!build) throw new Error(`the trace module's ${family} build is not loaded: call ready("${config.allocator}") first`);
      lastBuild = build;
      return new build.Run(...wasmArgs(config));
    },
    allocators: () => allocators,
    sourcePath(name) {
      if (!paths.has(name)) paths.set(name, sourcePath(name));
      return paths.get(name);
    },
    internalError: (thrown) => internalError(thrown, (lastBuild ?? builds.values().next().value)?.lastPanic),
    maxCostedOps: pick<() => number>(m, "maxCostedOps")(),
  };
}
