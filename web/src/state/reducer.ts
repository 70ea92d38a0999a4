// The app state and its pure reducer. Everything drawn is derived from
// (trace, step) plus view settings; nothing derived is stored here.

import type { ProgramError, Target, Trace } from "../engine/types";
import type { CostMetric } from "../model/costs";

export interface AppState {
  /** Program text as typed. */
  source: string;
  allocator: string;
  target: Target;
  /** The preset's size knob; null: the preset's default. */
  capacity: number | null;
  /** One of the preset's minimum alignments; null: its default (the first). */
  minAlign: number | null;
  /** The last trace that ran without error: kept while the program has an error. */
  trace: Trace | null;
  /** The program text `trace` ran (differs from `source` while it has an error). */
  tracedSource: string;
  /** The current program's error, if it has one. */
  error: ProgramError | null;
  /** Ops executed in the view: 0 (before the first op) .. trace.ops.length. */
  step: number;
  playing: boolean;
  /** What the cost chart counts: executed wasm instructions or conditional branches. */
  costMetric: CostMetric;
}

export type Action =
  | { type: "edit"; source: string }
  | { type: "selectAllocator"; allocator: string }
  | { type: "selectTarget"; target: Target }
  | { type: "selectCapacity"; capacity: number | null }
  | { type: "selectMinAlign"; minAlign: number | null }
  | { type: "selectCostMetric"; metric: CostMetric }
  | { type: "traced"; trace: Trace; source: string }
  | { type: "traceFailed"; error: ProgramError }
  | { type: "first" }
  | { type: "last" }
  | { type: "back" }
  | { type: "forward" }
  | { type: "seek"; step: number }
  | { type: "togglePlay" }
  | { type: "pause" }
  /** One beat of playback: advance, and stop at the end. */
  | { type: "tick" };

export const DEFAULT_PROGRAM = [
  "a = alloc 1",
  "b = alloc u64",
  "c = alloc 24 align 16",
  "d = alloc [u32; 5]",
  "free b",
  "e = alloc u128",
].join("\n");

export function initialState(overrides: Partial<AppState> = {}): AppState {
  return {
    source: DEFAULT_PROGRAM,
    allocator: "fitzgen-down",
    target: "64",
    capacity: null,
    minAlign: null,
    trace: null,
    tracedSource: "",
    error: null,
    step: 0,
    playing: false,
    costMetric: "instructions",
    ...overrides,
  };
}

function lastStep(state: AppState): number {
  return state.trace?.ops.length ?? 0;
}

function seek(state: AppState, step: number): AppState {
  const max = lastStep(state);
  const next = Number.isFinite(step) ? Math.min(Math.max(0, Math.trunc(step)), max) : 0;
  return next === state.step ? state : { ...state, step: next };
}

export function reducer(state: AppState, action: Action): AppState {
  switch (action.type) {
    case "edit":
      return action.source === state.source ? state : { ...state, source: action.source };
    case "selectAllocator":
      // Minimum alignments differ per preset: a new preset starts at its default.
      return action.allocator === state.allocator ? state : { ...state, allocator: action.allocator, minAlign: null };
    case "selectTarget":
      return action.target === state.target ? state : { ...state, target: action.target };
    case "selectCapacity":
      return action.capacity === state.capacity ? state : { ...state, capacity: action.capacity };
    case "selectMinAlign":
      return action.minAlign === state.minAlign ? state : { ...state, minAlign: action.minAlign };
    case "selectCostMetric":
      return action.metric === state.costMetric ? state : { ...state, costMetric: action.metric };
    case "traced": {
      // Follow the end while it is in view (the first trace, or editing at the
      // last op shows the new last op); otherwise stay on the same step.
      const wasAtEnd = state.trace === null || state.step >= lastStep(state);
      const max = action.trace.ops.length;
      const step = wasAtEnd ? max : Math.min(state.step, max);
      return {
        ...state,
        trace: action.trace,
        tracedSource: action.source,
        error: null,
        step,
        playing: state.playing && step < max,
      };
    }
    case "traceFailed":
      return { ...state, error: action.error };
    case "first":
      return seek(state, 0);
    case "last":
      return seek(state, lastStep(state));
    case "back":
      return seek(state, state.step - 1);
    case "forward":
      return seek(state, state.step + 1);
    case "seek":
      return seek(state, action.step);
    case "togglePlay": {
      if (state.playing) return { ...state, playing: false };
      const max = lastStep(state);
      if (max === 0) return state;
      // Playing from the end replays from the empty chunk.
      return { ...state, playing: true, step: state.step >= max ? 0 : state.step };
    }
    case "pause":
      return state.playing ? { ...state, playing: false } : state;
    case "tick": {
      if (!state.playing) return state;
      const max = lastStep(state);
      const step = Math.min(state.step + 1, max);
      return { ...state, step, playing: step < max };
    }
  }
}
