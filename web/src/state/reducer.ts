// The app state and its pure reducer. Everything drawn is derived from the
// runs (the single run's trace, compare's columns, the sweep's points), the
// step and the view settings; nothing derived from them is stored here. The
// runs are traced by the controllers and dispatched here, so a render only
// reads them.

import { configOf, sameConfig, type RunConfig } from "../wasm/config";
import type { ExecutedColumnName } from "../wasm/listing";
import { opAt, placed, type TraceView } from "../wasm/traceView";
import type { ProgramError } from "../wasm/types";
import type { CompareColumn, CompareConfig } from "../model/compare";
import { MAX_COMPARE, MIN_COMPARE } from "../model/limits";
import type { CostMetric } from "../model/costs";
import { DEFAULT_CONFIG } from "../model/defaults";
import type { SweepResult, SweepSetup } from "../model/sweep";
import type { SharedState } from "../share/link";
import { microSteps } from "../model/describe";

/** Playback speeds offered, in ops per beat of the base interval. */
export const SPEEDS = [0.5, 1, 2, 4] as const;
export type Speed = (typeof SPEEDS)[number];

/** The theme chosen in the header; auto follows the system. */
export type Theme = "auto" | "light" | "dark";

/** A lesson as it starts: its id and the run it was written for. */
export interface LessonStart {
  id: string;
  config: RunConfig;
  /** The op it opens at (clamped once traced); a lesson is read from its first op by default. */
  step?: number;
}

/** The sweep's runs as far as they went. */
export interface SweepRun {
  /** Configurations run of how many, while a sweep runs; null: not running. */
  running: { done: number; total: number } | null;
  /** The points so far (all of them once done). */
  result: SweepResult | null;
}

/** The app's state: the run's configuration (its source as typed), and what is shown of it. */
export interface AppState extends RunConfig {
  /** The last trace that ran without error: kept while the program has an error. */
  trace: TraceView | null;
  /**
   * A step asked for before the trace that has it ran (a share link's, a
   * lesson's first op): the next trace opens there instead of following the end.
   */
  pendingStep: number | null;
  /** The program text `trace` ran (differs from `source` while it has an error). */
  tracedSource: string;
  /** A long program being traced in slices: how far it got (null when no run is under way). */
  tracing: { executed: number; total: number } | null;
  /** The current program's error, if it has one. */
  error: ProgramError | null;
  /** Ops executed in the view: 0 (before the first op) .. trace.length. */
  step: number;
  /**
   * The micro-step in view within the current op (an index into its events'
   * steps, flattened); null: the op's end. The last micro-step is stored as
   * null, so each position has one value.
   */
  micro: number | null;
  playing: boolean;
  speed: Speed;
  theme: Theme;
  /** Compare mode's columns (the same program on each); null: single view. */
  compare: CompareConfig[] | null;
  /**
   * Compare's columns as last traced (controller/compare.ts), with their
   * costs once measured; null before any. Those on screen stay until their
   * replacements are traced, so they may be of an earlier `compare`.
   */
  compareColumns: CompareColumn[] | null;
  /** The sweep view's parameter and values (it replaces the single view); null: closed. */
  sweep: SweepSetup | null;
  /** The sweep's runs (controller/sweep.ts); null: none since the sweep view last closed. */
  sweepRun: SweepRun | null;
  /** The lesson being followed (its id), if any. */
  lesson: string | null;
  /**
   * The program's `#>` narration is put away (Exit lesson), until the program
   * is edited or another lesson or link opens.
   */
  narrationHidden: boolean;
  /** Predict mode: guess where the next block lands before stepping to it. */
  predict: boolean;
  /** The address guessed for the next block (null: no guess yet). */
  guess: number | null;
  /** Whether the next block's real address is shown. */
  revealed: boolean;
  /** What the cost chart counts: executed wasm instructions or conditional branches. */
  costMetric: CostMetric;
  /**
   * Whether the code panel shows the compiled wasm the current op executed
   * beside its Rust source (the Instructions view). A view setting: it stays
   * as the step moves, and share links leave it out.
   */
  instructions: boolean;
  /** Whose executed wasm the Instructions view lists: the model's (what the cost chart counts), the real crate's or the global allocator's. */
  instructionsColumn: ExecutedColumnName;
  /** Presentation mode: large type, high contrast, the editing panels put away, stepped by keys (for a projector). */
  present: boolean;
  /** Compare's one-slide summary is open (a view setting, left out of share links; compare closing closes it). */
  summary: boolean;
}

export type Action =
  /**
   * A change to the run's configuration: the program typed, a preset or a
   * setting chosen. Another preset starts at its default minimum alignment
   * unless the change names one (each preset has its own).
   */
  | { type: "configure"; config: Partial<RunConfig> }
  | { type: "selectCostMetric"; metric: CostMetric }
  | { type: "showInstructions"; shown: boolean }
  | { type: "selectInstructionsColumn"; column: ExecutedColumnName }
  | { type: "traced"; trace: TraceView; source: string }
  | { type: "traceFailed"; error: ProgramError }
  /** A long run's progress, between its slices. */
  | { type: "traceProgress"; executed: number; total: number }
  /** Costs measured for `base`: `trace` replaces it if it is still shown. */
  | { type: "costsMeasured"; base: TraceView; trace: TraceView }
  | { type: "first" }
  | { type: "last" }
  | { type: "back" }
  | { type: "forward" }
  | { type: "seek"; step: number }
  /** Shift+→ / Shift+←: one micro-step, into the next/previous op at the ends. */
  | { type: "microForward" }
  | { type: "microBack" }
  | { type: "togglePlay" }
  | { type: "pause" }
  /**
   * One beat of playback: advance, and stop at the end, or where the op
   * arrived at asks to (`pause`: a lesson's pause directive).
   */
  | { type: "tick"; pause?: boolean }
  | { type: "setSpeed"; speed: Speed }
  | { type: "setTheme"; theme: Theme }
  | { type: "setPresent"; present: boolean }
  /** Opens or closes compare's one-slide summary. */
  | { type: "showSummary"; shown: boolean }
  | { type: "enterCompare"; configs: readonly CompareConfig[] }
  | { type: "setCompare"; configs: readonly CompareConfig[] }
  | { type: "exitCompare" }
  /** Opens the sweep view, or sets the sweep it runs (a Run). */
  | { type: "setSweep"; setup: SweepSetup }
  | { type: "closeSweep" }
  /** Compare's columns traced (or their costs measured). */
  | { type: "compareTraced"; columns: CompareColumn[] }
  /** The sweep's progress and points so far; null: its runs were dropped. */
  | { type: "sweepRan"; run: SweepRun | null }
  /** A sweep point chosen: that configuration in the single view, at its last op. */
  | { type: "openConfig"; config: RunConfig }
  | { type: "startLesson"; lesson: LessonStart }
  | { type: "exitLesson" }
  /**
   * Back to the settings a lesson was written for (from a detour or a change
   * of settings), at the same op, so its narration describes the map again.
   */
  | { type: "backToLesson"; lesson: LessonStart }
  | { type: "togglePredict" }
  | { type: "guess"; address: number }
  | { type: "reveal" }
  /** Predict mode's "next": step to the block just revealed. */
  | { type: "predictNext" }
  | { type: "applyShared"; shared: SharedState };

export function initialState(overrides: Partial<AppState> = {}): AppState {
  return {
    ...DEFAULT_CONFIG,
    trace: null,
    tracedSource: "",
    tracing: null,
    pendingStep: null,
    error: null,
    step: 0,
    micro: null,
    playing: false,
    speed: 1,
    theme: "auto",
    compare: null,
    compareColumns: null,
    sweep: null,
    sweepRun: null,
    lesson: null,
    narrationHidden: false,
    predict: false,
    guess: null,
    revealed: false,
    costMetric: "instructions",
    instructions: false,
    instructionsColumn: "model",
    present: false,
    summary: false,
    ...overrides,
  };
}

function lastStep(state: AppState): number {
  return state.trace?.length ?? 0;
}

function clampTo(state: AppState, step: number): number {
  const max = lastStep(state);
  return Number.isFinite(step) ? Math.min(Math.max(0, Math.trunc(step)), max) : 0;
}

/** Moves to the end of op `step` (micro null), keeping the state when nothing changes. */
function seek(state: AppState, step: number): AppState {
  const next = clampTo(state, step);
  return next === state.step && state.micro === null ? state : { ...state, step: next, micro: null };
}

/** Micro-steps of the op that produced `step`. */
function microCount(state: AppState, step: number): number {
  return step > 0 && state.trace ? microSteps(opAt(state.trace, step - 1)).length : 0;
}

/** Canonical micro: null for the op's end, and for its last micro-step too. */
function normalMicro(count: number, micro: number | null): number | null {
  return micro !== null && micro >= 0 && micro < count - 1 ? micro : null;
}

function microForward(state: AppState): AppState {
  const n = microCount(state, state.step);
  if (state.micro !== null && state.micro + 1 < n - 1) return { ...state, micro: state.micro + 1 };
  if (state.micro !== null) return { ...state, micro: null };
  // At the op's end: the next op's first micro-step.
  if (state.step >= lastStep(state)) return state;
  const step = state.step + 1;
  return { ...state, step, micro: normalMicro(microCount(state, step), 0) };
}

function microBack(state: AppState): AppState {
  const n = microCount(state, state.step);
  const at = state.micro ?? n - 1;
  if (at > 0) return { ...state, micro: at - 1 };
  // At the op's first micro-step (or it has none): the previous op's end.
  if (state.step === 0) return state;
  return { ...state, step: state.step - 1, micro: null };
}

const sameConfigs = (a: readonly CompareConfig[] | null, b: readonly CompareConfig[]): boolean =>
  a !== null && a.length === b.length && a.every((c, i) => JSON.stringify(c) === JSON.stringify(b[i]));

/**
 * Compare mode's columns: at most MAX_COMPARE; fewer than MIN_COMPARE is not
 * a comparison. Only the settings are kept: a column built from a whole run
 * (the state itself, with its program and trace) must not carry them along.
 */
function compareConfigs(configs: readonly CompareConfig[]): CompareConfig[] | null {
  const list = configs
    .slice(0, MAX_COMPARE)
    .map(({ allocator, target, capacity, minAlign, child }): CompareConfig => {
      const c: CompareConfig = { allocator, target, capacity, minAlign };
      if (child != null) c.child = child;
      return c;
    });
  return list.length >= MIN_COMPARE ? list : null;
}

/** Whether predict mode has a question open at the state's step: the next op places a block. */
function asksAt(state: AppState): boolean {
  return state.trace !== null && state.step < state.trace.length && placed(state.trace, state.step);
}

function base(state: AppState, action: Action): AppState {
  switch (action.type) {
    case "configure": {
      const change = action.config;
      const next: AppState = { ...state, ...change };
      if (change.allocator !== undefined && change.allocator !== state.allocator && change.minAlign === undefined) next.minAlign = null;
      if (change.allocator !== undefined && change.allocator !== state.allocator && change.child === undefined) next.child = null;
      if (sameConfig(next, state)) return state;
      // An edited program's narration shows again.
      return change.source !== undefined && change.source !== state.source ? { ...next, narrationHidden: false } : next;
    }
    case "selectCostMetric":
      return action.metric === state.costMetric ? state : { ...state, costMetric: action.metric };
    case "showInstructions":
      return action.shown === state.instructions ? state : { ...state, instructions: action.shown };
    case "selectInstructionsColumn":
      return action.column === state.instructionsColumn ? state : { ...state, instructionsColumn: action.column };
    case "traced": {
      // Follow the end while it is in view (the first trace, or editing at the
      // last op shows the new last op); otherwise stay on the same step.
      const wasAtEnd = state.trace === null || state.step >= lastStep(state);
      const max = action.trace.length;
      const step = Math.min(state.pendingStep ?? (wasAtEnd ? max : state.step), max);
      const n = step > 0 ? microSteps(opAt(action.trace, step - 1)).length : 0;
      return {
        ...state,
        trace: action.trace,
        tracing: null,
        tracedSource: action.source,
        pendingStep: null,
        error: null,
        step,
        // The same micro-step while the op still has it; a pending step (a
        // share link's) brings its own micro-step, kept by applyShared.
        micro: step === state.step || state.pendingStep !== null ? normalMicro(n, state.micro) : null,
        playing: state.playing && step < max,
      };
    }
    case "traceFailed":
      return { ...state, error: action.error, tracing: null };
    case "traceProgress":
      return { ...state, tracing: { executed: action.executed, total: action.total } };
    case "costsMeasured":
      return state.trace === action.base ? { ...state, trace: action.trace } : state;
    case "first":
      return seek(state, 0);
    case "last":
      return seek(state, lastStep(state));
    case "back":
      // From inside an op, back goes to the previous op's end (as microBack at 0).
      return seek(state, state.step - 1);
    case "forward":
      // Predicting: the first press checks the guess, the next one steps. An
      // op that places no block asks nothing, so the press steps at once.
      if (state.predict && !state.revealed && state.step < lastStep(state) && asksAt(state)) return { ...state, revealed: true };
      return seek(state, state.step + 1);
    case "seek":
      return seek(state, action.step);
    case "microForward":
      return microForward(state);
    case "microBack":
      return microBack(state);
    case "togglePlay": {
      if (state.playing) return { ...state, playing: false };
      const max = lastStep(state);
      if (max === 0) return state;
      // Playing from the end replays from the empty chunk.
      return { ...state, playing: true, step: state.step >= max ? 0 : state.step, micro: null };
    }
    case "pause":
      return state.playing ? { ...state, playing: false } : state;
    case "tick": {
      if (!state.playing) return state;
      const max = lastStep(state);
      const step = Math.min(state.step + 1, max);
      return { ...state, step, micro: null, playing: step < max && action.pause !== true };
    }
    case "setSpeed":
      return action.speed === state.speed ? state : { ...state, speed: action.speed };
    case "setTheme":
      return action.theme === state.theme ? state : { ...state, theme: action.theme };
    case "setPresent":
      return action.present === state.present ? state : { ...state, present: action.present };
    case "showSummary": {
      // The slide summarises compare's columns: there is none to show outside compare.
      const shown = action.shown && state.compare !== null;
      return shown === state.summary ? state : { ...state, summary: shown };
    }
    case "enterCompare":
    case "setCompare": {
      const configs = compareConfigs(action.configs);
      if (configs === null) return action.type === "setCompare" ? { ...state, compare: null } : state;
      // One mode at a time: comparing closes the sweep.
      if (sameConfigs(state.compare, configs)) return state;
      // A compare opened afresh starts at its columns, not at a slide left open by an earlier one.
      const summary = action.type === "setCompare" && state.compare !== null && state.summary;
      return { ...state, compare: configs, sweep: null, predict: false, summary };
    }
    case "exitCompare":
      return state.compare === null ? state : { ...state, compare: null, summary: false };
    case "setSweep":
      if (state.sweep !== null && JSON.stringify(state.sweep) === JSON.stringify(action.setup)) return state;
      return { ...state, sweep: { ...action.setup, values: [...action.setup.values] }, compare: null, predict: false, playing: false };
    case "closeSweep":
      return state.sweep === null ? state : { ...state, sweep: null };
    case "compareTraced":
      return { ...state, compareColumns: action.columns };
    case "sweepRan":
      return action.run === state.sweepRun ? state : { ...state, sweepRun: action.run };
    case "openConfig":
      return {
        ...state,
        ...action.config,
        sweep: null,
        compare: null,
        // Its figures are the whole program's: open it at the last op.
        pendingStep: Number.MAX_SAFE_INTEGER,
        micro: null,
        playing: false,
      };
    case "startLesson": {
      const l = action.lesson;
      // A lesson is read from its first op.
      return {
        ...state,
        ...l.config,
        lesson: l.id,
        narrationHidden: false,
        compare: null,
        sweep: null,
        step: 0,
        pendingStep: l.step ?? 0,
        micro: null,
        playing: false,
      };
    }
    case "exitLesson":
      return state.lesson === null ? state : { ...state, lesson: null, narrationHidden: true };
    case "backToLesson": {
      // The lesson's settings; the program stays, edits and all (its narration is its own).
      const { allocator, target, capacity, minAlign, child } = action.lesson.config;
      return {
        ...state,
        allocator,
        target,
        capacity,
        minAlign,
        child: child ?? null,
        lesson: action.lesson.id,
        narrationHidden: false,
        sweep: null,
        // The same op of the lesson's run, once it is traced again.
        pendingStep: state.step,
        micro: null,
        playing: false,
      };
    }
    case "togglePredict":
      // Predicting is done one step at a time, in the single view.
      return {
        ...state,
        predict: !state.predict,
        playing: false,
        compare: state.predict ? state.compare : null,
        sweep: state.predict ? state.sweep : null,
      };
    // A question can come from predict mode or from a lesson's `?predict`
    // (the app shows it only then): guessing does not need the mode.
    case "guess":
      if (state.revealed) return state;
      return action.address === state.guess ? state : { ...state, guess: action.address };
    case "reveal":
      return state.revealed ? state : { ...state, revealed: true };
    case "predictNext":
      return seek(state, state.step + 1);
    case "applyShared": {
      const sh = action.shared;
      const next: AppState = {
        ...state,
        ...configOf(sh),
        compare: sh.compare ? compareConfigs(sh.compare) : null,
        // One mode at a time: a hand-written link with both opens compare.
        sweep: sh.compare ? null : (sh.sweep ?? null),
        lesson: sh.lesson ?? null,
        narrationHidden: false,
        // The program is not traced yet: its trace opens at the shared step.
        pendingStep: Math.max(0, Math.trunc(sh.step) || 0),
        // Held until the trace arrives, which drops it if the op has no such micro-step.
        micro: sh.micro ?? null,
        playing: false,
      };
      // The same program and settings as the trace on screen: nothing will
      // be traced again to consume the pending step, so go there now.
      const unchanged = state.trace !== null && state.error === null && state.tracedSource === next.source && sameConfig(state, next);
      if (!unchanged) return next;
      const at = seek({ ...next, micro: null }, next.pendingStep ?? 0);
      return { ...at, pendingStep: null, micro: normalMicro(microCount(at, at.step), sh.micro ?? null) };
    }
  }
}

export function reducer(state: AppState, action: Action): AppState {
  const next = base(state, action);
  // A guess is about the op after the step in view: a new step starts afresh.
  if (next.step !== state.step && (next.guess !== null || next.revealed)) return { ...next, guess: null, revealed: false };
  return next;
}
