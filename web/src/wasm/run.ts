// A run of the trace module, from its configuration to the view the page
// reads: in time-sized slices on the page (slices.ts), or to its end at once
// where nothing waits on it (Node: tests, the CLI).

import type { RunConfig } from "./config";
import { runInSlices, type SliceOptions } from "./slices";
import { fromRun, type TraceView } from "./traceView";
import type { TraceModule, TraceRunHandle } from "./traceModule";
import type { ProgramError } from "./types";

export type TraceOutcome = { kind: "done"; view: TraceView; run: TraceRunHandle } | { kind: "failed"; error: ProgramError } | { kind: "cancelled" };

/**
 * Runs `config` to its end in slices (about a frame each, `onProgress`
 * between them, `signal` cancels), then gives its view. A program that
 * finishes in the first slice resolves without yielding to the event loop.
 * "done": the view reads op details from `run`; free it when the view is
 * replaced (failed and cancelled runs are freed here).
 */
/**
 * Parses a program apart from the instance that runs it (a worker): its
 * words, its error, "cancelled", or "unavailable" (the run parses the text
 * itself).
 */
export type ParseApart = (source: string, signal?: AbortSignal) => Promise<
  { kind: "words"; words: Uint32Array } | { kind: "failed"; error: ProgramError } | { kind: "cancelled" } | { kind: "unavailable" }
>;

export async function traceInSlices(module: TraceModule, config: RunConfig, options: SliceOptions & { parse?: ParseApart } = {}): Promise<TraceOutcome> {
  try {
    await module.ready(config.allocator);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { kind: "failed", error: { line: 1, column: 1, message: `the engine that runs ${config.allocator} did not load (${why}): try again` } };
  }
  if (options.signal?.aborted) return { kind: "cancelled" };
  let words: Uint32Array | undefined;
  if (options.parse) {
    const parsed = await options.parse(config.source, options.signal);
    if (parsed.kind === "cancelled" || options.signal?.aborted) return { kind: "cancelled" };
    if (parsed.kind === "failed") return { kind: "failed", error: parsed.error };
    if (parsed.kind === "words") words = parsed.words;
  }
  let run: TraceRunHandle;
  try {
    run = module.startRun(config, words);
  } catch (e) {
    return { kind: "failed", error: module.internalError(e) };
  }
  try {
    const outcome = await runInSlices(run, options);
    if (outcome.kind !== "done") {
      run.free();
      return outcome;
    }
    return { kind: "done", view: fromRun(run), run };
  } catch (e) {
    const error = module.internalError(e, run);
    run.free();
    return { kind: "failed", error };
  }
}

export type TracedNow = { ok: true; view: TraceView; run: TraceRunHandle } | { ok: false; error: ProgramError };

/**
 * Runs `config` to its end in one go (free `run` when done with the view).
 * The build that runs its allocator must be here (`module.ready`).
 */
export function traceNow(module: TraceModule, config: RunConfig): TracedNow {
  let run: TraceRunHandle | undefined;
  try {
    run = module.startRun(config);
    while (!run.advance(1 << 20)) {
      // one slice after another until the run is over
    }
    const error = run.error();
    if (error !== undefined) {
      run.free();
      return { ok: false, error: JSON.parse(error) as ProgramError };
    }
    return { ok: true, view: fromRun(run), run };
  } catch (e) {
    const error = module.internalError(e, run);
    run?.free();
    return { ok: false, error };
  }
}
