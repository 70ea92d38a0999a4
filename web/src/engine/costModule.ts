// The cost module (crates/cost, built into web/pkg-cost): the metered build, loaded
// only when something shown reads costs. It replays a run on the instrumented
// models and counts what each op executes, runs the real crate and the global
// allocator beside it, and writes the full JSON trace (export, the CLI).
//
// This is the module's one adapter: the only place that knows its export names.

import type { RunConfig } from "./config";
import { wasmArgs } from "./config";
import { internalError } from "./errors";
import { TRACE_VERSION, type Baseline, type Cost, type ProgramError, type RealRun, type Trace, type TraceResult } from "./types";

/** What the cost view reads, in the shape traceView's `withCosts` takes. */
export interface CostsResult {
  costs?: (Cost | undefined)[];
  real?: RealRun;
  baseline?: Baseline;
  /** Why there are no costs (a program error, a trap, an old module). */
  unavailable?: string;
}

export interface CostModule {
  /** Per-op costs, the real crate's run and the baseline for `config`'s run. */
  costs(config: RunConfig): CostsResult & { trapped?: boolean };
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

/** `traceCosts`' JSON: `{ops, costs: [[instructions, branches, slow instructions, slow branches] | null], real?, baseline?}`. */
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
  return {
    costs,
    ...(v["real"] ? { real: v["real"] as RealRun } : {}),
    ...(v["baseline"] ? { baseline: v["baseline"] as Baseline } : {}),
  };
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
  const lastPanic = typeof m["lastPanic"] === "function" ? (m["lastPanic"] as () => string | undefined) : undefined;
  return {
    costs(config) {
      try {
        return parseCosts(traceCosts(...wasmArgs(config)));
      } catch (e) {
        return { unavailable: internalError(e, lastPanic).message, trapped: true };
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
