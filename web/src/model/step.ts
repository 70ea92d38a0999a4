// A step of a trace: `step` counts executed ops, 0 before the first op,
// trace.length at the end. Every view clamps the step it is given here.

import type { TraceView } from "../wasm/traceView";

/** Clamps a step into 0..length. */
export function clampStep(trace: Pick<TraceView, "length">, step: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.min(Math.max(0, Math.trunc(step)), trace.length);
}
