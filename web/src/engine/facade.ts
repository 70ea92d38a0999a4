// A typed facade over the raw wasm exports: JSON in, TS types out. It does not
// know how the module was instantiated (browser or Node), and it is the one
// place that knows the engine's export names.

import {
  TRACE_VERSION,
  type AllocatorInfo,
  type ProgramError,
  type SourceName,
  type Trace,
  type TraceRequest,
  type TraceResult,
} from "./types";

/** The functions the engine needs from the initialised wasm module. */
export interface WasmExports {
  traceProgram(source: string, allocator: string, target: string, capacity?: number, minAlign?: number): string;
  listAllocators(): string;
  /** Text of an embedded source file, by name. */
  sourceText(name: string): string | undefined;
  /** Repository path of an embedded source file, by name. */
  sourcePath(name: string): string | undefined;
  /**
   * The message of the panic that trapped the last call, once (absent from
   * modules built before it existed).
   */
  lastPanic?(): string | undefined;
}

export interface Engine {
  allocators(): readonly AllocatorInfo[];
  trace(request: TraceRequest): TraceResult;
  /** Text of a source file (a trace's `source` or a step's `file`). */
  sourceText(name: SourceName): string | undefined;
  /** Its path from the repository root (for the code view's title). */
  sourcePath(name: SourceName): string | undefined;
}

type Fn = (...args: never[]) => unknown;

/** Picks the engine's functions out of the wasm-bindgen module namespace. */
export function adaptModule(mod: object): WasmExports {
  const m = mod as Record<string, Fn | undefined>;
  const pick = (name: string): Fn => {
    const f = m[name];
    if (typeof f === "function") return f;
    throw new Error(`the wasm module does not export ${name}: rebuild it (npm run build:wasm)`);
  };
  return {
    traceProgram: pick("traceProgram") as unknown as WasmExports["traceProgram"],
    listAllocators: pick("listAllocators") as unknown as WasmExports["listAllocators"],
    sourceText: pick("sourceText") as unknown as WasmExports["sourceText"],
    sourcePath: pick("sourcePath") as unknown as WasmExports["sourcePath"],
    ...(typeof m["lastPanic"] === "function" ? { lastPanic: m["lastPanic"] as unknown as WasmExports["lastPanic"] } : {}),
  };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null;
}

function isProgramError(v: unknown): v is ProgramError {
  return (
    isObject(v) &&
    typeof v["line"] === "number" &&
    typeof v["column"] === "number" &&
    typeof v["message"] === "string"
  );
}

const engineError = (message: string): TraceResult => ({ ok: false, error: { line: 1, column: 1, message } });

/**
 * What a call that threw becomes: a Rust panic in the module is a trap
 * (`WebAssembly.RuntimeError: unreachable`), whose own message says little;
 * the panic's message, when the module kept it, says what went wrong. After
 * a trap the instance's memory is whatever the panic left: the page should
 * load a fresh instance before tracing again.
 */
export function internalError(thrown: unknown, wasm: Pick<WasmExports, "lastPanic">): TraceResult {
  let panic: string | undefined;
  try {
    panic = wasm.lastPanic?.();
  } catch {
    // The trapped instance cannot even say why: report the trap itself.
  }
  const what = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  return engineError(`internal error: ${panic ?? what} (this is a bug in Bump Lab, not in the program: reload the page before tracing again)`);
}

/** Parses `traceProgram`'s JSON: a trace, or `{"error": {line, column, message}}`. */
export function parseTraceResult(json: string): TraceResult {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    return engineError("the engine returned malformed JSON");
  }
  if (isObject(value) && "error" in value) {
    const error = value["error"];
    return isProgramError(error) ? { ok: false, error } : engineError(String(error));
  }
  if (!isObject(value) || !Array.isArray(value["ops"]) || !Array.isArray(value["chunks"])) {
    return engineError("the engine returned no trace");
  }
  if (value["version"] !== TRACE_VERSION) {
    return engineError(`unsupported trace version ${String(value["version"])}`);
  }
  return { ok: true, trace: value as unknown as Trace };
}

function parseAllocators(json: string): AllocatorInfo[] {
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

export function createEngine(wasm: WasmExports): Engine {
  let allocators: readonly AllocatorInfo[] | undefined;
  const sources = new Map<SourceName, string | undefined>();
  const paths = new Map<SourceName, string | undefined>();
  return {
    allocators() {
      allocators ??= parseAllocators(wasm.listAllocators());
      return allocators;
    },
    trace({ source, allocator, target, capacity, minAlign }) {
      let json: string;
      try {
        json = wasm.traceProgram(source, allocator, target, capacity, minAlign);
      } catch (e) {
        return internalError(e, wasm);
      }
      return parseTraceResult(json);
    },
    sourceText(name) {
      if (!sources.has(name)) sources.set(name, wasm.sourceText(name));
      return sources.get(name);
    },
    sourcePath(name) {
      if (!paths.has(name)) paths.set(name, wasm.sourcePath(name));
      return paths.get(name);
    },
  };
}
