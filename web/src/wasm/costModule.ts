// The cost module (crates/cost, built into web/pkg-cost): the metered build, loaded
// only when something shown reads costs. It replays a run on the instrumented
// models and counts what each op executes, runs the real crate and the global
// allocator beside it, and writes the full JSON trace (export, the CLI).
//
// This is the module's one adapter: the only place that knows its export names.

import type { RunConfig } from "./config";
import { wasmArgs } from "./config";
import { internalError } from "./errors";
import { TRACE_VERSION, type Baseline, type Cost, type Prim, type ProgramError, type RealRun, type Shape, type Trace, type TraceResult } from "./types";

/** What the cost view reads, in the shape traceView's `withCosts` takes. */
export interface CostsResult {
  costs?: (Cost | undefined)[];
  /** Each op's shape, which its cost was measured with (undefined: an op with no layout). */
  shapes?: (Shape | undefined)[];
  real?: RealRun;
  baseline?: Baseline;
  /** Why there are no costs (a program error, a trap, an old module). */
  unavailable?: string;
}

/** A measured column of `executedOps`: the model, the real crate or the dlmalloc baseline. */
export type ExecutedColumnName = "model" | "real" | "baseline";

/**
 * One executed counted wasm instruction: [function index, op index, depth, taken].
 * (function, op index) names an operator of the unmetered module (listing.json
 * has its text); depth is the call depth below the measured root (0); taken is a
 * conditional branch's outcome (1 jumped, 0 went on with the next operator, a
 * br_table's chosen label index, the default being the label count) and -1 for
 * every other instruction.
 */
export type ExecutedOp = readonly [func: number, op: number, depth: number, taken: number];

export interface ExecutedColumn {
  column: ExecutedColumnName;
  /** [instructions, branches, slow instructions, slow branches]: `executed.length` is `cost[0]`. */
  cost: readonly [number, number, number, number];
  executed: readonly ExecutedOp[];
  /** The recording ran out of room: `executed` stops early. */
  truncated: boolean;
}

/** What one op executed, per column; or why not. */
export type ExecutedResult = { ok: true; op: number; columns: ExecutedColumn[] } | { ok: false; error: string };

export interface CostModule {
  /** Per-op costs, the real crate's run and the baseline for `config`'s run. */
  costs(config: RunConfig): CostsResult & { trapped?: boolean };
  /** The wasm instructions op `op` of `config`'s run executed, in order, per measured column. */
  executed(config: RunConfig, op: number): ExecutedResult;
  /** The full JSON trace (export), or the program's error. */
  trace(config: RunConfig): TraceResult;
}

type Traced = (...args: ReturnType<typeof wasmArgs>) => string;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null;

function isProgramError(v: unknown): v is ProgramError {
  return isObject(v) && typeof v["line"] === "number" && typeof v["column"] === "number" && typeof v["message"] === "string";
}

const failure = (message: string): TraceResult => ({ ok: false, error: { line: 1, column: 1, message } });

/** `traceProgram`'s JSON: a trace, or `{"error": {line, column, message}}`. */
export function parseTraceResult(json: string): TraceResult {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return failure("the cost module returned malformed JSON");
  }
  if (isObject(value) && "error" in value) {
    const error = value["error"];
    return isProgramError(error) ? { ok: false, error } : failure(String(error));
  }
  if (!isObject(value) || !Array.isArray(value["ops"]) || !Array.isArray(value["chunks"])) return failure("the cost module returned no trace");
  if (value["version"] !== TRACE_VERSION) return failure(`unsupported trace version ${String(value["version"])}`);
  return { ok: true, trace: value as unknown as Trace };
}

const PRIMS: readonly Prim[] = ["u8", "u16", "u32", "u64", "u128", "usize"];
const LAYOUT: Shape = { kind: "layout" };
const SHAPES = new Map<string, Shape>([
  ["layout", LAYOUT],
  ...PRIMS.flatMap((p): [string, Shape][] => [
    [p, { kind: "typed", type: p }],
    [`[${p}]`, { kind: "array", type: p }],
  ]),
]);

/** `traceCosts`' short shape names: "u64" typed, "[u32]" an array's, "layout" a run-time layout. */
export function shapeFromName(name: unknown): Shape | undefined {
  return typeof name === "string" ? SHAPES.get(name) : undefined;
}

/** `traceCosts`' JSON: `{ops, costs: [[instructions, branches, slow instructions, slow branches] | null], shapes: [name | null], real?, baseline?}`. */
export function parseCosts(json: string): CostsResult {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return { unavailable: "the cost module returned malformed JSON" };
  }
  if (!isObject(v)) return { unavailable: "the cost module returned no costs" };
  if ("error" in v) {
    const e = v["error"];
    return { unavailable: isProgramError(e) ? e.message : String(e) };
  }
  if (!Array.isArray(v["costs"])) return { unavailable: "the cost module returned no costs" };
  const costs = (v["costs"] as unknown[]).map((c): Cost | undefined =>
    Array.isArray(c) && c.length === 4
      ? { wasm_instructions: Number(c[0]), wasm_branches: Number(c[1]), slow_instructions: Number(c[2]), slow_branches: Number(c[3]) }
      : undefined,
  );
  const shapes = Array.isArray(v["shapes"]) ? (v["shapes"] as unknown[]).map(shapeFromName) : undefined;
  return {
    costs,
    ...(shapes ? { shapes } : {}),
    ...(v["real"] ? { real: v["real"] as RealRun } : {}),
    ...(v["baseline"] ? { baseline: v["baseline"] as Baseline } : {}),
  };
}

const isExecutedOp = (e: unknown): e is ExecutedOp => Array.isArray(e) && e.length === 4 && e.every((n) => typeof n === "number");

/** `executedOps`' JSON: `{op, columns: [{column, cost, executed, truncated}]}` or `{"error": ...}`. */
export function parseExecuted(json: string): ExecutedResult {
  let v: unknown;
  try {
    v = JSON.parse(json);
  } catch {
    return { ok: false, error: "the cost module returned malformed JSON" };
  }
  if (!isObject(v)) return { ok: false, error: "the cost module returned no executed instructions" };
  if ("error" in v) {
    const e = v["error"];
    return { ok: false, error: isProgramError(e) ? e.message : String(e) };
  }
  const columns = v["columns"];
  if (typeof v["op"] !== "number" || !Array.isArray(columns)) return { ok: false, error: "the cost module returned no executed instructions" };
  const parsed: ExecutedColumn[] = [];
  for (const c of columns as unknown[]) {
    if (!isObject(c)) return { ok: false, error: "the cost module returned a malformed column" };
    const { column, cost, executed, truncated } = c;
    const known = column === "model" || column === "real" || column === "baseline";
    const costOk = Array.isArray(cost) && cost.length === 4 && cost.every((n) => typeof n === "number");
    if (!known || !costOk || !Array.isArray(executed) || !executed.every(isExecutedOp)) {
      return { ok: false, error: "the cost module returned a malformed column" };
    }
    parsed.push({ column, cost: cost as [number, number, number, number], executed, truncated: truncated === true });
  }
  return { ok: true, op: v["op"], columns: parsed };
}

function pick<T>(glue: Record<string, unknown>, name: string): T {
  const f = glue[name];
  if (typeof f !== "function") throw new Error(`the cost module does not export ${name}: rebuild it (npm run build:wasm)`);
  return f as T;
}

/** The module's face over its initialised wasm-bindgen glue (page, worker and Node alike). */
export function adaptCostModule(glue: object): CostModule {
  const m = glue as Record<string, unknown>;
  const traceProgram = pick<Traced>(m, "traceProgram");
  const traceCosts = pick<Traced>(m, "traceCosts");
  // Looked up on first use, so a module built before it still serves the rest.
  const executedOps = () => pick<(...args: [...ReturnType<typeof wasmArgs>, number]) => string>(m, "executedOps");
  const lastPanic = typeof m["lastPanic"] === "function" ? (m["lastPanic"] as () => string | undefined) : undefined;
  return {
    costs(config) {
      try {
        return parseCosts(traceCosts(...wasmArgs(config)));
      } catch (e) {
        return { unavailable: internalError(e, lastPanic).message, trapped: true };
      }
    },
    executed(config, op) {
      try {
        return parseExecuted(executedOps()(...wasmArgs(config), op));
      } catch (e) {
        return { ok: false, error: e instanceof Error && /does not export/.test(e.message) ? e.message : internalError(e, lastPanic).message };
      }
    },
    trace(config) {
      try {
        return parseTraceResult(traceProgram(...wasmArgs(config)));
      } catch (e) {
        return { ok: false, error: internalError(e, lastPanic) };
      }
    },
  };
}
