// What the memory holds after a given step, derived from the trace alone.
// `step` counts executed ops: 0 is before the first op, trace.length is the end.
//
// Read from the TraceView's columns (model/held.ts), not replayed: the block
// op i placed is held after step k when i < k and gone_at[i] >= k.

import type { TraceView } from "../engine/traceView";

// Block is defined in held.ts, which makes blocks; views import it from here.
export type { Block, BlockState } from "./held";

/** Clamps a step into 0..length. */
export function clampStep(trace: Pick<TraceView, "length">, step: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.min(Math.max(0, Math.trunc(step)), trace.length);
}
