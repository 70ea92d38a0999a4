// Runs a lean-module TraceRun to its end in slices, so a million-op program
// never holds the main thread for more than about one frame: between slices
// the page paints the progress bar and handles input (a new edit cancels the
// run it supersedes). Slices are sized by measured time, not by op count,
// since an op's cost differs by preset and machine.

import { parseProgramError } from "./errors";
import { nextTask } from "./tasks";
import type { TraceRunHandle } from "./traceModule";
import type { ProgramError } from "./types";

/** What the slicer needs of the trace module's `TraceRun`. */
export type SteppableRun = Pick<TraceRunHandle, "advance" | "executed" | "total" | "error">;

export interface SliceOptions {
  /** Wall time one slice aims at, in ms (default 12: most of a 60 Hz frame). */
  sliceMs?: number;
  /**
   * Called after the first slice that did not finish the run, then after
   * the next one ending at least `progressEveryMs` after the last call.
   */
  onProgress?: (executed: number, total: number) => void;
  /**
   * Least time between two `onProgress` calls, in ms (default 0: after
   * every slice). A page that re-renders on progress asks for less: a
   * render per frame would cost about as much as the run itself.
   */
  progressEveryMs?: number;
  /** Aborting stops the run after its current slice. */
  signal?: AbortSignal;
  /** Lets the page breathe between slices (default: a macrotask). */
  pause?: () => Promise<void>;
  /** Clock in ms (default performance.now). */
  now?: () => number;
}

export type SliceOutcome = { kind: "done" } | { kind: "failed"; error: ProgramError } | { kind: "cancelled" };

/** Ops the first slice runs; later ones are scaled to `sliceMs`. */
export const FIRST_SLICE_OPS = 4096;
const MAX_SLICE_OPS = 1 << 20;

/** Ops for the next slice: the last slice's rate scaled to `sliceMs`, growing at most 4× at a time. */
export function nextSliceOps(lastOps: number, lastMs: number, sliceMs: number): number {
  if (!(lastMs > 0)) return Math.min(MAX_SLICE_OPS, lastOps * 4);
  const scaled = Math.floor((lastOps * sliceMs) / lastMs);
  return Math.max(256, Math.min(MAX_SLICE_OPS, lastOps * 4, scaled));
}

/**
 * Advances `run` to its end. A program that finishes within the first slice
 * (most hand-written ones) never yields, so it shows in the same task.
 */
export async function runInSlices(run: SteppableRun, options: SliceOptions = {}): Promise<SliceOutcome> {
  const sliceMs = options.sliceMs ?? 12;
  const now = options.now ?? (() => performance.now());
  const pause = options.pause ?? nextTask;
  const progressEveryMs = options.progressEveryMs ?? 0;
  let ops = FIRST_SLICE_OPS;
  let reportedAt = -Infinity;
  for (;;) {
    if (options.signal?.aborted) return { kind: "cancelled" };
    const before = run.executed();
    const t0 = now();
    const finished = run.advance(ops);
    const ms = now() - t0;
    const error = run.error();
    if (error !== undefined) return { kind: "failed", error: parseProgramError(error) };
    if (finished) return { kind: "done" };
    const ran = run.executed() - before;
    // An engine that neither ran an op nor finished would spin here for ever.
    if (ran <= 0) {
      return { kind: "failed", error: { line: 1, column: 1, message: `internal error: the run stopped at op ${run.executed()} of ${run.total()} without finishing (this is a bug in Bump Lab, not in the program)` } };
    }
    ops = nextSliceOps(Math.max(1, ran), ms, sliceMs);
    const end = t0 + ms;
    if (options.onProgress && end - reportedAt >= progressEveryMs) {
      reportedAt = end;
      options.onProgress(run.executed(), run.total());
    }
    await pause();
  }
}
