// Traces what the store's configuration says, on the trace module, in
// slices: a progress note while a long run is under way, the last good map
// kept meanwhile, a newer edit cancelling the run it supersedes. Then the
// run's costs are measured on the cost module and replace the view's
// "pending" (when anything shown reads them). Each run's wasm memory is
// freed once the render that stops drawing it is done. The app and the
// player both run one.

import { configOf, sameConfig, type RunConfig } from "../wasm/config";
import { traceInSlices, type ParseApart } from "../wasm/run";
import { withCosts, type OpColumns } from "../wasm/traceView";
import type { TraceModule, TraceRunHandle } from "../wasm/traceModule";
import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";
import { costsFor, type Measure } from "./costs";

/** At most this many characters more or fewer is an edit typed, which waits for the next key. */
export const TYPED_CHARS = 80;

export interface TracerOptions {
  /** Where costs are measured; absent: nothing shown reads them. */
  measure?: Measure;
  /** A typed edit waits this long for the next keystroke before it traces. */
  debounceMs?: number;
  /**
   * Parses a long program apart (a worker), so a keystroke never waits for
   * its text to be read and the running instance never holds it; programs
   * shorter than `fromChars` are parsed by the run.
   */
  parse?: { apart: ParseApart; fromChars: number };
  /** Runs holding wasm memory now (the app shows it for its tests). */
  onLiveRuns?: (count: number) => void;
}

export interface Tracer {
  /** Traces the store's configuration now. */
  retrace(): void;
  /** Stops the run under way, if any (an import replaces what it would show). */
  cancel(): void;
  /**
   * The program on screen is being typed into and not yet handed on: the
   * run under way, of a text already old, stops, so its last tasks (its
   * view built, its render) never land between two keys.
   */
  hold(): void;
  /**
   * The edit was handed on: if it changed nothing the store holds (keys
   * typed and deleted again), the held run starts again.
   */
  resume(): void;
  /** Frees the runs no render draws any more: call after each render. */
  afterRender(): void;
  /** The configuration the view on screen was traced from. */
  shownConfig(): RunConfig | undefined;
  /** Stops everything and frees every run: the tracer is unusable after. */
  destroy(): void;
}

/**
 * Least time between two progress notes of a long run, in ms: each one
 * re-renders the page, which at every slice would take as long as the run.
 */
const PROGRESS_EVERY_MS = 200;

/**
 * Wall time a slice of a long run aims at, in ms: long enough that a
 * million ops yield some 40 times rather than 120 (each yield lets the
 * browser run a frame's work), short enough that a slice which overshoots
 * its estimate stays under the 50 ms at which a task delays input.
 */
const SLICE_MS = 30;

export function startTracer(module: TraceModule, store: Store<AppState, Action>, options: TracerOptions = {}): Tracer {
  const { dispatch } = store;
  // Runs and configurations by the view's columns, which every copy of a
  // view (withCosts) shares.
  const runOf = new WeakMap<OpColumns, TraceRunHandle>();
  const configFor = new WeakMap<OpColumns, RunConfig>();
  /** Runs whose views were replaced: freed after the render that stops drawing them. */
  const retired = new Set<TraceRunHandle>();
  let live = 0;
  let running: AbortController | null = null;
  let held = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let destroyed = false;

  const measure = (view: NonNullable<AppState["trace"]>, config: RunConfig): void => {
    if (!options.measure) return;
    void costsFor(view.length, config, options.measure, module.maxCostedOps).then((costs) => {
      // Edited (or replaced) meanwhile: the newer run measures its own.
      if (destroyed || store.getState().trace?.cols !== view.cols) return;
      dispatch({ type: "costsMeasured", base: store.getState().trace ?? view, trace: withCosts(view, costs) });
    });
  };

  const retrace = (): void => {
    clearTimeout(timer);
    held = false;
    const s = store.getState();
    const config = configOf(s);
    running?.abort();
    const controller = new AbortController();
    running = controller;
    const onProgress = (executed: number, total: number): void => {
      if (running === controller) dispatch({ type: "traceProgress", executed, total });
    };
    const parse = options.parse && config.source.length >= options.parse.fromChars ? { parse: options.parse.apart } : {};
    void traceInSlices(module, config, { signal: controller.signal, onProgress, progressEveryMs: PROGRESS_EVERY_MS, sliceMs: SLICE_MS, ...parse }).then((outcome) => {
      if (outcome.kind === "cancelled") return;
      if (running !== controller || destroyed) {
        // Superseded after its last slice: nobody will show it.
        if (outcome.kind === "done") outcome.run.free();
        return;
      }
      running = null;
      if (outcome.kind === "failed") {
        dispatch({ type: "traceFailed", error: outcome.error });
        return;
      }
      runOf.set(outcome.view.cols, outcome.run);
      configFor.set(outcome.view.cols, config);
      live++;
      options.onLiveRuns?.(live);
      const view = options.measure ? withCosts(outcome.view, { pending: true }) : outcome.view;
      dispatch({ type: "traced", trace: view, source: config.source });
      measure(view, config);
    });
  };

  const unsubscribe = store.subscribe((s, prev) => {
    // The run behind a view nothing shows any more is retired.
    if (prev.trace !== null && s.trace?.cols !== prev.trace.cols) {
      const old = runOf.get(prev.trace.cols);
      if (old) retired.add(old);
    }
    const now = configOf(s);
    const before = configOf(prev);
    // A lesson or link asked for a step: trace now even if the program is unchanged.
    const asked = s.pendingStep !== null && prev.pendingStep === null;
    if (asked || !sameConfig({ ...now, source: "" }, { ...before, source: "" })) retrace();
    else if (now.source !== before.source) {
      clearTimeout(timer);
      // Typing changes the text a few characters at a time, and the next
      // key is coming: wait for it. A change of more than a typed line at
      // once (a paste, a file, an undo of one) is the whole edit: run it.
      const typed = Math.abs(now.source.length - before.source.length) <= TYPED_CHARS;
      if (typed) timer = setTimeout(retrace, options.debounceMs ?? 0);
      else retrace();
    }
  });

  const freeRetired = (keepShown: boolean): void => {
    const shown = store.getState().trace;
    const keep = keepShown && shown ? runOf.get(shown.cols) : undefined;
    for (const run of retired) {
      if (run === keep) continue;
      run.free();
      live--;
    }
    retired.clear();
    options.onLiveRuns?.(live);
  };

  return {
    retrace,
    cancel() {
      clearTimeout(timer);
      running?.abort();
      running = null;
    },
    hold() {
      if (!running) return;
      running.abort();
      running = null;
      held = true;
    },
    resume() {
      if (held && running === null) retrace();
    },
    afterRender: () => freeRetired(true),
    shownConfig() {
      const shown = store.getState().trace;
      return shown ? configFor.get(shown.cols) : undefined;
    },
    destroy() {
      if (destroyed) return;
      destroyed = true;
      clearTimeout(timer);
      running?.abort();
      unsubscribe();
      const shown = store.getState().trace;
      const run = shown ? runOf.get(shown.cols) : undefined;
      if (run) retired.add(run);
      freeRetired(false);
    },
  };
}
