// What a call into a wasm module that threw becomes. A Rust panic in the
// module is a trap (`WebAssembly.RuntimeError: unreachable`), whose own
// message says little; the panic's message, when the module kept it
// (`lastPanic`), says what went wrong. After a trap the instance's memory is
// whatever the panic left: the adapters make a fresh instance before tracing
// again (traceModule.ts), and the cost worker a fresh worker.

import type { ProgramError } from "./types";

export function internalError(thrown: unknown, lastPanic: (() => string | undefined) | undefined): ProgramError {
  let panic: string | undefined;
  try {
    panic = lastPanic?.();
  } catch {
    // The trapped instance cannot even say why: report the trap itself.
  }
  const what = thrown instanceof Error ? `${thrown.name}: ${thrown.message}` : String(thrown);
  return {
    line: 1,
    column: 1,
    message: `internal error: ${panic ?? what} (this is a bug in Bump Lab, not in the program)`,
  };
}

/** `{line, column, message}`, or undefined when `v` is not one. */
function oneError(v: unknown): ProgramError | undefined {
  if (typeof v !== "object" || v === null) return undefined;
  const e = v as Record<string, unknown>;
  if (typeof e["line"] !== "number" || typeof e["column"] !== "number" || typeof e["message"] !== "string") return undefined;
  return { line: e["line"], column: e["column"], message: e["message"] };
}

/**
 * `{line, column, message, more}` from the modules' error JSON, or a
 * description of what came back. `more` keeps the further errors that read
 * as errors.
 */
export function parseProgramError(json: string | undefined): ProgramError {
  try {
    const v: unknown = JSON.parse(json ?? "");
    const first = oneError(v);
    if (first) {
      const more = (v as Record<string, unknown>)["more"];
      const rest = Array.isArray(more) ? more.map(oneError).filter((e): e is ProgramError => e !== undefined) : [];
      return rest.length > 0 ? { ...first, more: rest } : first;
    }
  } catch {
    // fall through: report what came back
  }
  return { line: 1, column: 1, message: `the engine failed without a readable error (${String(json)})` };
}

/** Every error in `error`, the first and then `more`, in line order. */
export function allErrors(error: ProgramError): ProgramError[] {
  return [error, ...(error.more ?? [])];
}
