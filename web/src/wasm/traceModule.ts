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
import { RunHandle, type WasmRun } from "./runHandle";
import { COLUMN_LAYOUT, type TraceRunLike } from "./traceView";
import type { AllocatorInfo, CapacityMeaning, ProgramError, SourceName } from "./types";

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
  /** Bytes the run holds in the module's memory, about. */
  memoryBytes(): number;
  /** Ops an op's detail re-runs at most. */
  longestRerun(): number;
}

/** A preset family: which build of the module runs it. */
export type Family = AllocatorInfo["family"];

export interface TraceModule {
  /** Fetches the build that runs `allocator`, if it is not here yet. */
  ready(allocator: string): Promise<void>;
  /**
   * A new run of `config`, not yet advanced (a program error shows in
   * `error()` once advanced). The build that runs its allocator must be
   * here (`ready`): else this throws. `parsed` is the program already parsed
   * (`parseProgram`'s words, from a worker): the text is then not parsed
   * again.
   */
  startRun(config: RunConfig, parsed?: Uint32Array): TraceRunHandle;
  allocators(): readonly AllocatorInfo[];
  /** A source file's path from the repository root (the code view's title). */
  sourcePath(name: SourceName): string | undefined;
  /** The most ops the cost module measures (its full trace's cap). */
  readonly maxCostedOps: number;
  /**
   * What a call that threw (a trap: a bug) becomes. The instance is made
   * again, so tracing goes on; `run`, the run whose call threw, stays failed
   * with this error, and every other run is made again when next asked.
   */
  internalError(thrown: unknown, run?: TraceRunHandle): ProgramError;
}

type RunClass = (new (...args: ReturnType<typeof wasmArgs>) => WasmRun) & {
  fromProgram(words: Uint32Array, ...settings: [allocator: string, target: string, capacity: number | undefined, minAlign: number | undefined, child: string | undefined]): WasmRun;
};

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
    group: String(a["group"] ?? "Other"),
    menuRank: typeof a["menu_rank"] === "number" ? a["menu_rank"] : 0,
    capacity: capacityOf(a["capacity"]),
    chunkRecord: CHUNK_RECORDS.find((r) => r === a["chunk_record"]) ?? "none",
    counterpart: isObject(a["counterpart"])
      ? { allocator: String(a["counterpart"]["allocator"] ?? ""), why: String(a["counterpart"]["why"] ?? "") }
      : { allocator: "", why: "" },
    real: String(a["real"] ?? ""),
  }));
}

const CHUNK_RECORDS = ["none", "header", "footer", "outside"] as const;

function capacityOf(c: unknown): CapacityMeaning {
  if (!isObject(c)) return { kind: "size", means: "size setting", help: "Capacity: the preset's size setting (default: the preset's own).", default: null };
  return {
    kind: c["kind"] === "retain-limit" ? "retain-limit" : "size",
    means: String(c["means"] ?? "size setting"),
    help: String(c["help"] ?? ""),
    default: typeof c["default"] === "number" ? c["default"] : null,
  };
}

/** One build's exports. */
interface Build {
  families: readonly Family[];
  Run: RunClass;
  lastPanic: (() => string | undefined) | undefined;
  /** Makes a fresh instance of the build's module (its glue's, added by scripts/build-wasm.mjs). */
  reinstantiate: (() => void) | undefined;
  /** Its runs not yet freed. */
  live: Set<RunHandle>;
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
    reinstantiate: typeof m["reinstantiate"] === "function" ? (m["reinstantiate"] as () => void) : undefined,
    live: new Set(),
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
    startRun(config, parsed) {
      const family = familyOf(config.allocator);
      const build = builds.get(family);
      if (!build) throw new Error(`the trace module's ${family} build is not loaded: call ready("${config.allocator}") first`);
      lastBuild = build;
      const [source, ...settings] = wasmArgs(config);
      // Made again from the text after a trap: the words went to the first instance.
      let words = parsed;
      const make = (): WasmRun => {
        const w = words;
        words = undefined;
        return w ? build.Run.fromProgram(w, ...settings) : new build.Run(source, ...settings);
      };
      const run = new RunHandle(make, (r) => build.live.delete(r));
      build.live.add(run);
      return run;
    },
    allocators: () => allocators,
    sourcePath(name) {
      if (!paths.has(name)) paths.set(name, sourcePath(name));
      return paths.get(name);
    },
    internalError(thrown, run) {
      const build = (run instanceof RunHandle ? [...builds.values()].find((b) => b.live.has(run)) : undefined) ?? lastBuild ?? builds.values().next().value;
      const error = internalError(thrown, build?.lastPanic);
      if (build?.reinstantiate) {
        for (const other of build.live) other.lose();
        if (run instanceof RunHandle) run.fail(JSON.stringify(error));
        build.reinstantiate();
      }
      return error;
    },
    maxCostedOps: pick<() => number>(m, "maxCostedOps")(),
  };
}
