// The step in view, clamped into its run, and the op that produced it,
// worked out once per state: the stepper, the map, the narration, the
// predict question and the statement line all read them here, so no view
// clamps the step again or looks its op up on its own.

import type { TraceView } from "../wasm/traceView";
import type { Op } from "../wasm/types";
import { currentOp } from "../model/describe";
import { clampStep } from "../model/step";
import type { AppState } from "./reducer";

export interface StepInView {
  /** Ops executed in view: 0 (before the first op) .. trace.length. */
  step: number;
  /** The op whose effect the step shows (undefined at step 0). */
  op: Op | undefined;
}

/** Each state's step in view, and the run it was found in. */
const found = new WeakMap<Pick<AppState, "step">, { trace: TraceView; at: StepInView }>();

/** The step of `s` in view on `trace` (the state's run), and its op: the same object for every view of one state. */
export function stepInView(s: Pick<AppState, "step">, trace: TraceView): StepInView {
  const known = found.get(s);
  if (known && known.trace === trace) return known.at;
  const step = clampStep(trace, s.step);
  const at = { step, op: currentOp(trace, step) };
  found.set(s, { trace, at });
  return at;
}
