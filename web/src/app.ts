// Wires the engine, the store and the views. Effects live here (tracing,
// playback timer, keyboard); views stay functions of derived data.

import { loadCostModule, loadSourceText, traceInSlices, type CostModule, type TraceModule, type TraceRunHandle } from "./engine/browser";
import { measureCosts as measureInWorker } from "./engine/costWorkerClient";
import type { Engine } from "./engine/facade";
import { sourceShown, sourceTexts } from "./engine/sourceTexts";
import { fromJson, viewResult, withCosts, type OpColumns, type TraceView, type ViewResult } from "./engine/traceView";
import type { TraceRequest } from "./engine/types";
import { clampStep } from "./model/blocks";
import { bumpPointerAt, chunkViewsAt, noChunkYet, statsAt } from "./model/chunks";
import { UP_VS_DOWN, type CompareConfig } from "./model/compare";
import { opCostSummary } from "./model/costs";
import { codeFocus, focusOf, highlighted, statsSeries } from "./model/focus";
import { defaultValues, runSweep, specOf, type SweepConfig, type SweepResult, type SweepSetup, type SweepSpec } from "./model/sweep";
import { LESSONS, lessonById } from "./model/lessons";
import { narrationAt, parseNarration, pausesAt, predictsNext, type Narration } from "./model/narration";
import { currentOp, describeMicro, describeStep, microIndex, microSteps } from "./model/describe";
import { caseForOp, X86_REFERENCE } from "./model/x86";
import { initialState, reducer, type Action, type AppState } from "./state/reducer";
import { sharedOf, syncShareLinks } from "./state/shareSync";
import { createStore, type Store } from "./state/store";
import { frameScheduler, h } from "./views/dom";
import { renderCodeView } from "./views/codeView";
import { renderCompare } from "./views/compare";
import { renderCostView } from "./views/costView";
import { renderEditor } from "./views/editor";
import { renderMapSummary } from "./views/mapSummary";
import { renderMemoryMap } from "./views/memoryMap";
import { renderNarration } from "./views/narration";
import { renderOpDetails } from "./views/opDetails";
import { renderPredict } from "./views/predict";
import { renderSharePanel } from "./views/sharePanel";
import { renderStats } from "./views/stats";
import { renderStepper } from "./views/stepper";
import { renderSweep } from "./views/sweep";
import { applyTheme, renderThemeToggle, storedTheme } from "./views/theme";
import { renderX86Table } from "./views/x86Table";

export const TRACE_DEBOUNCE_MS = 150;
/** docs/trace-format.md's "Cost" section, rendered as a page of its own (scripts/vite-docs.mjs). */
const COST_DOCS = "docs/trace-format.html#cost";
/** One op per beat at 1×; the speed divides it. */
export const PLAY_INTERVAL_MS = 700;

export interface Mounts {
  editor: HTMLElement;
  mapSummary: HTMLElement;
  map: HTMLElement;
  stepper: HTMLElement;
  stats: HTMLElement;
  cost: HTMLElement;
  x86: HTMLElement;
  opDetails: HTMLElement;
  code: HTMLElement;
  theme: HTMLElement;
  compare: HTMLElement;
  compareButton: HTMLElement;
  /** The sweep view, in place of the single map and cost panels. */
  sweep: HTMLElement;
  sweepButton: HTMLElement;
  /** The map's legend: nothing on a sweep's chart is a block. */
  mapLegend: HTMLElement;
  /** Messages that are not the program's error (a share link that did not open). */
  notice: HTMLElement;
  narration: HTMLElement;
  predict: HTMLElement;
  share: HTMLElement;
  predictButton: HTMLElement;
  /** Shown only in the single view: compare mode draws its own maps and costs. */
  costPanel: HTMLElement;
  details: HTMLElement;
}

function byId(id: string): HTMLElement {
  const el = document.getElementById(id);
  if (!el) throw new Error(`#${id} is missing from index.html`);
  return el;
}

export function findMounts(): Mounts {
  return {
    editor: byId("editor"),
    mapSummary: byId("map-summary"),
    map: byId("memory-map"),
    stepper: byId("stepper"),
    stats: byId("stats"),
    cost: byId("cost-view"),
    x86: byId("x86-reference"),
    opDetails: byId("op-details"),
    code: byId("code-view"),
    theme: byId("theme-toggle"),
    compare: byId("compare"),
    compareButton: byId("compare-button"),
    sweep: byId("sweep"),
    sweepButton: byId("sweep-button"),
    mapLegend: byId("map-legend"),
    notice: byId("notice"),
    narration: byId("narration"),
    share: byId("share-panel"),
    predict: byId("predict"),
    predictButton: byId("predict-button"),
    costPanel: byId("cost-panel"),
    details: byId("detail-grid"),
  };
}

/** Widgets whose arrow keys, Home and End move within them (ARIA patterns). */
const OWN_ARROWS = '[role="menu"], [role="menubar"], [role="slider"], [role="listbox"], [role="grid"], [role="tablist"], [role="radiogroup"], [role="tree"]';
/** Elements that Space activates. */
const OWN_SPACE = 'button, summary, a[href], [role="button"], [role="menuitem"], [role="checkbox"], [role="switch"], [role="radio"], [role="slider"], [role="option"], [role="tab"]';

/** The traced program's lines, split once per program text. */
let linesCache: { text: string; lines: readonly string[] } = { text: "", lines: [""] };
function linesOf(text: string): readonly string[] {
  if (linesCache.text !== text) linesCache = { text, lines: text.split("\n") };
  return linesCache.lines;
}

/** The most ops the metered module measures (its full JSON trace's cap, crates/core MAX_FULL_TRACE_OPS). */
export const MAX_COSTED_OPS = 100_000;

/**
 * Compare mode's traces: one per column, of the program the single view last
 * traced. Kept per (program, column) so stepping never re-traces. They come
 * from the metered module (costs are what compare is for), which `engine`
 * gives once loaded; until then a column says it is loading.
 */
function compareTracer(engine: () => Engine | null, loadError: () => string | null) {
  let source: string | null = null;
  const results = new Map<string, ViewResult>();
  return (program: string, configs: readonly CompareConfig[]): { config: CompareConfig; result: ViewResult }[] => {
    if (program !== source) {
      source = program;
      results.clear();
    }
    const metered = engine();
    return configs.map((config) => {
      const key = JSON.stringify(config);
      let result = results.get(key);
      if (!result) {
        if (!metered) {
          const failed = loadError();
          const message = failed !== null ? `the metered module that compare runs on did not load (${failed}): trying again` : "loading the metered module that compare runs on…";
          return { config, result: { ok: false, error: { line: 1, column: 1, message } } };
        }
        result = viewResult(
          metered.trace({
            source: program,
            allocator: config.allocator,
            target: config.target,
            capacity: config.capacity ?? undefined,
            minAlign: config.minAlign ?? undefined,
          }),
        );
        results.set(key, result);
      }
      return { config, result };
    });
  };
}

/** A program's `#>` narration, parsed once per program text. */
function narrationOf(): (source: string) => Map<number, Narration> {
  let source: string | null = null;
  let parsed = new Map<number, Narration>();
  return (text) => {
    if (text !== source) {
      source = text;
      parsed = parseNarration(text);
    }
    return parsed;
  };
}

function showNotice(mount: HTMLElement, text: string): void {
  const dismiss = h("button", { type: "button", class: "link-button" }, "Dismiss");
  dismiss.addEventListener("click", () => {
    mount.hidden = true;
    mount.replaceChildren();
  });
  mount.replaceChildren(h("span", {}, text), " ", dismiss);
  mount.hidden = false;
}

export function startApp(lean: TraceModule, mounts: Mounts): Store<AppState, Action> {
  const allocators = lean.allocators();
  const preferred = allocators.find((a) => a.name === "fitzgen-down") ?? allocators[0];
  const store = createStore(
    reducer,
    initialState({ ...(preferred ? { allocator: preferred.name } : {}), theme: storedTheme() }),
  );
  const { dispatch } = store;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

  // The code view's texts, fetched on first view (render again when one arrives).
  const sourceOf = sourceTexts({
    sourceText: (name) => lean.sourceText(name),
    sourcePath: (name) => lean.sourcePath(name),
    load: loadSourceText,
    onLoaded: () => scheduleRender(),
  });

  // --- The metered module ----------------------------------------------------
  // Costs, compare, sweeps and JSON export run on the metered module. The
  // first map never waits for it: it is fetched after the first trace.
  let metered: CostModule | null = null;
  let meteredLoading: Promise<CostModule> | null = null;
  /** Why the last load of the metered module failed (the next use tries again). */
  let meteredError: string | null = null;
  const loadMetered = (): Promise<CostModule> => {
    meteredLoading ??= loadCostModule().then(
      (m) => {
        metered = m;
        meteredError = null;
        scheduleRender();
        return m;
      },
      (error: unknown) => {
        // A failed fetch (offline for a moment, a new deploy) is not kept: the next use tries again.
        meteredLoading = null;
        meteredError = error instanceof Error ? error.message : String(error);
        scheduleRender();
        throw error;
      },
    );
    return meteredLoading;
  };

  // --- Tracing -----------------------------------------------------------
  // The lean module runs the program in slices (a million ops never holds the
  // page), then costs are measured on the metered module for the same request.
  // A view keeps its run's wasm memory until another view replaces it. Runs
  // and requests are kept by the view's columns, which every copy of a view
  // (withCosts) shares.
  const runOf = new WeakMap<OpColumns, TraceRunHandle>();
  const requestFor = new WeakMap<OpColumns, TraceRequest>();
  /** Runs whose views were replaced: freed after the render that stops drawing them. */
  const retired = new Set<TraceRunHandle>();
  /** Runs holding wasm memory for a view (shown on the body as data-live-runs, which tests read). */
  let liveRuns = 0;
  let tracing: AbortController | null = null;
  const requestOf = (s: AppState): TraceRequest => ({
    source: s.source,
    allocator: s.allocator,
    target: s.target,
    capacity: s.capacity ?? undefined,
    minAlign: s.minAlign ?? undefined,
  });
  const measureCosts = (view: TraceView, request: TraceRequest): void => {
    if (view.length > MAX_COSTED_OPS) {
      const n = view.length.toLocaleString("en-US");
      const unavailable = `costs are measured for programs of up to ${MAX_COSTED_OPS.toLocaleString("en-US")} ops, and this one runs ${n}`;
      dispatch({ type: "costsMeasured", base: view, trace: withCosts(view, { unavailable }) });
      return;
    }
    // In a worker: measuring 100,000 ops takes seconds that must not hold the page.
    void measureInWorker(request).then(
      (costs) => {
        // Edited (or replaced) meanwhile: the newer trace measures its own.
        if (store.getState().trace !== view) return;
        dispatch({ type: "costsMeasured", base: view, trace: withCosts(view, costs) });
      },
      (error: unknown) => {
        if (store.getState().trace !== view) return;
        const unavailable = `the metered module did not load (${error instanceof Error ? error.message : String(error)})`;
        dispatch({ type: "costsMeasured", base: view, trace: withCosts(view, { unavailable }) });
      },
    );
  };
  const retrace = (): void => {
    const s = store.getState();
    const request = requestOf(s);
    tracing?.abort();
    const controller = new AbortController();
    tracing = controller;
    void traceInSlices(lean, request, {
      signal: controller.signal,
      onProgress: (executed, total) => {
        if (tracing === controller) dispatch({ type: "traceProgress", executed, total });
      },
    }).then((outcome) => {
      if (outcome.kind === "cancelled") return;
      if (tracing !== controller) {
        // Superseded after its last slice: nobody will show it.
        if (outcome.kind === "done") outcome.run.free();
        return;
      }
      tracing = null;
      if (outcome.kind === "failed") {
        dispatch({ type: "traceFailed", error: outcome.error });
        return;
      }
      runOf.set(outcome.view.cols, outcome.run);
      liveRuns++;
      requestFor.set(outcome.view.cols, request);
      dispatch({ type: "traced", trace: withCosts(outcome.view, { pending: true }), source: s.source });
      const shown = store.getState().trace;
      if (shown) measureCosts(shown, request);
    });
  };
  // The run behind a view that nothing shows any more gives its memory back,
  // once the next render has replaced what the map drew from it (until then a
  // zoom or a hover may still ask the old view for an op).
  store.subscribe((s, prev) => {
    if (prev.trace === null || s.trace?.cols === prev.trace.cols) return;
    const old = runOf.get(prev.trace.cols);
    if (old) retired.add(old);
  });
  const freeRetired = (): void => {
    const shown = store.getState().trace;
    const keep = shown ? runOf.get(shown.cols) : undefined;
    for (const run of retired) {
      if (run === keep) continue;
      run.free();
      liveRuns--;
    }
    retired.clear();
    document.body.dataset["liveRuns"] = String(liveRuns);
  };
  let traceTimer: number | undefined;
  store.subscribe((s, prev) => {
    if (
      s.allocator !== prev.allocator ||
      s.target !== prev.target ||
      s.capacity !== prev.capacity ||
      s.minAlign !== prev.minAlign ||
      // A lesson or link asked for a step: trace now even if the program is unchanged.
      (s.pendingStep !== null && prev.pendingStep === null)
    ) {
      window.clearTimeout(traceTimer);
      retrace();
    } else if (s.source !== prev.source) {
      window.clearTimeout(traceTimer);
      traceTimer = window.setTimeout(retrace, TRACE_DEBOUNCE_MS);
    }
  });

  const narrations = narrationOf();

  // --- Playback ------------------------------------------------------------
  let playTimer: number | undefined;
  let playSpeed = 0;
  store.subscribe((s) => {
    if (s.playing && (playTimer === undefined || playSpeed !== s.speed)) {
      window.clearInterval(playTimer);
      playSpeed = s.speed;
      playTimer = window.setInterval(() => {
        // A lesson's pause directive (or a question before the next op) stops playback on arrival.
        const now = store.getState();
        const pause = now.trace ? pausesAt(now.trace, now.step + 1, narrations(now.tracedSource)) : false;
        dispatch({ type: "tick", pause });
      }, PLAY_INTERVAL_MS / s.speed);
    } else if (!s.playing && playTimer !== undefined) {
      window.clearInterval(playTimer);
      playTimer = undefined;
    }
  });

  // --- Share links -------------------------------------------------------------
  syncShareLinks(store, {
    known: (allocator) => allocators.some((a) => a.name === allocator),
    lessonExists: (id) => lessonById(id) !== undefined,
    notice: (text) => showNotice(mounts.notice, text),
    clearNotice: () => {
      mounts.notice.hidden = true;
    },
  });

  // --- Theme -----------------------------------------------------------------
  applyTheme(store.getState().theme);
  store.subscribe((s, prev) => {
    if (s.theme !== prev.theme) applyTheme(s.theme);
  });

  // --- Keyboard --------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target instanceof Element ? event.target : null;
    if (event.key === "Escape") {
      // Escape closes the Share panel first, then leaves compare mode (a select keeps it to close itself).
      const share = document.querySelector<HTMLDetailsElement>("details.share-menu[open]");
      if (share) {
        share.open = false;
        share.querySelector("summary")?.focus();
        event.preventDefault();
      } else if (store.getState().compare !== null && !(target instanceof HTMLSelectElement)) {
        event.preventDefault();
        dispatch({ type: "exitCompare" });
      } else if (store.getState().sweep !== null && !(target instanceof HTMLSelectElement)) {
        // And closes the sweep view the same way.
        event.preventDefault();
        dispatch({ type: "closeSweep" });
      }
      return;
    }
    // The sweep view has no step: the keys that step or play the hidden single view do nothing there.
    if (store.getState().sweep !== null) return;
    // Typing and native controls keep their keys (a range handles arrows itself),
    // and so do widgets whose arrows mean something of their own.
    if (
      target instanceof HTMLTextAreaElement ||
      target instanceof HTMLSelectElement ||
      target instanceof HTMLInputElement ||
      (target instanceof HTMLElement && target.isContentEditable) ||
      target?.closest(OWN_ARROWS) != null
    ) {
      return;
    }
    const keys: Record<string, Action> = {
      ArrowLeft: { type: "back" },
      ArrowRight: { type: "forward" },
      Home: { type: "first" },
      End: { type: "last" },
    };
    let action = keys[event.key];
    // Shift+arrows step through the op's micro-steps (a debugger's step into).
    if (event.shiftKey && event.key === "ArrowRight") action = { type: "microForward" };
    else if (event.shiftKey && event.key === "ArrowLeft") action = { type: "microBack" };
    else if (event.shiftKey) action = undefined;
    // Space on a control presses it (a button, a disclosure, a link); elsewhere it plays or pauses.
    if (event.key === " " && !event.shiftKey && target?.closest(OWN_SPACE) == null) action = { type: "togglePlay" };
    if (!action) return;
    event.preventDefault();
    dispatch(action);
  });

  // --- Rendering -------------------------------------------------------------
  const handlers = {
    onSource: (source: string) => dispatch({ type: "edit", source }),
    onAllocator: (allocator: string) => dispatch({ type: "selectAllocator", allocator }),
    onTarget: (target: AppState["target"]) => dispatch({ type: "selectTarget", target }),
    onCapacity: (capacity: number | null) => dispatch({ type: "selectCapacity", capacity }),
    onMinAlign: (minAlign: number | null) => dispatch({ type: "selectMinAlign", minAlign }),
    onLesson: (id: string) => {
      const lesson = lessonById(id);
      if (lesson) dispatch({ type: "startLesson", lesson });
    },
  };
  const lessonEntries = LESSONS.map(({ id, title, summary }) => ({ id, title, summary }));

  mounts.compareButton.addEventListener("click", () => dispatch({ type: "enterCompare", configs: UP_VS_DOWN }));
  mounts.predictButton.addEventListener("click", () => dispatch({ type: "togglePredict" }));

  // --- Sweeps ------------------------------------------------------------------
  // The store holds what to sweep; the points are derived and arrive one per
  // macrotask, so they live here. A sweep (re)runs when what it sweeps or the
  // configuration it starts from changes; a new run cancels the one before.
  interface SweepRun {
    key: string;
    controller: AbortController;
    done: number;
    total: number;
  }
  let sweepRun: SweepRun | null = null;
  let sweepResult: { key: string; result: SweepResult } | null = null;
  /** The last sweep closed, offered again by the Sweep button. */
  let lastSweep: SweepSetup | null = null;
  // The program as last traced: an edit with an error keeps sweeping the last good one, as the map does.
  const sweepBase = (s: AppState): SweepConfig => ({
    source: s.tracedSource,
    allocator: s.allocator,
    target: s.target,
    capacity: s.capacity,
    minAlign: s.minAlign,
  });
  const startSweep = (s: AppState, again: boolean): void => {
    if (s.sweep === null) return;
    const base = sweepBase(s);
    const key = JSON.stringify([s.sweep, base]);
    if (!again && (sweepRun?.key === key || sweepResult?.key === key)) return;
    sweepRun?.controller.abort();
    sweepRun = null;
    const spec = specOf(s.sweep, base, allocators);
    if (!spec.ok) {
      // A link's values this version cannot run: nothing runs, the view's form says why on Run.
      sweepResult = { key, result: { param: s.sweep.param, points: [], total: 0, cancelled: false } };
      scheduleRender();
      return;
    }
    const run: SweepRun = { key, controller: new AbortController(), done: 0, total: spec.spec.values.length };
    sweepRun = run;
    sweepResult = { key, result: { param: spec.spec.param, points: [], total: run.total, cancelled: false } };
    void loadMetered().then((m) => runSweep(m.engine, spec.spec, {
      signal: run.controller.signal,
      allocators,
      onProgress: (done, total, latest) => {
        if (sweepRun !== run || !sweepResult) return;
        run.done = done;
        run.total = total;
        const r = sweepResult.result;
        sweepResult = { key, result: { ...r, points: [...r.points, latest] } };
        scheduleRender();
      },
    })).then(
      (result) => {
        // A newer run (or closing the view) replaced this one.
        if (sweepRun !== run) return;
        sweepRun = null;
        sweepResult = { key, result };
        scheduleRender();
      },
      (error: unknown) => {
        if (sweepRun !== run) return;
        sweepRun = null;
        sweepResult = { key, result: { param: spec.spec.param, points: [], total: run.total, cancelled: true } };
        showNotice(mounts.notice, `The sweep could not run: the metered module did not load (${error instanceof Error ? error.message : String(error)}).`);
        scheduleRender();
      },
    );
  };
  store.subscribe((s, prev) => {
    if (s.sweep !== null) startSweep(s, false);
    else if (prev.sweep !== null) {
      lastSweep = prev.sweep;
      sweepRun?.controller.abort();
      sweepRun = null;
      sweepResult = null;
    }
  });
  /** What the Sweep button opens: the last sweep, else MIN_ALIGN where the preset has it, else the presets. */
  const sweepToOpen = (s: AppState): SweepSetup => {
    const hasAligns = (allocators.find((a) => a.name === s.allocator)?.minAligns.length ?? 0) > 0;
    // Minimum alignments are the preset's own: a remembered list may not fit this one.
    if (lastSweep && lastSweep.param !== "minAlign") return lastSweep;
    const param = hasAligns ? "minAlign" : "preset";
    return { param, values: defaultValues(param, sweepBase(s), allocators) };
  };
  mounts.sweepButton.addEventListener("click", () => {
    const s = store.getState();
    dispatch(s.sweep !== null ? { type: "closeSweep" } : { type: "setSweep", setup: sweepToOpen(s) });
  });
  const sweepHandlers = {
    // The setup, not the spec, goes to the store: it is what a share link carries, and the spec follows from it.
    onRun: (_spec: SweepSpec, setup: SweepSetup) => {
      const s = store.getState();
      // The same sweep again runs again (a Run after a Cancel); another one runs through the store.
      if (s.sweep !== null && JSON.stringify(s.sweep) === JSON.stringify(setup)) startSweep(s, true);
      else dispatch({ type: "setSweep", setup });
    },
    onCancel: () => sweepRun?.controller.abort(),
    onOpen: (config: SweepConfig) => dispatch({ type: "openConfig", config }),
    onClose: () => dispatch({ type: "closeSweep" }),
  };
  // Compare runs on the metered module: opening it fetches the module, and the columns show once it is in.
  const traceColumns = compareTracer(
    () => {
      if (!metered) void loadMetered().catch(() => undefined);
      return metered?.engine ?? null;
    },
    () => meteredError,
  );

  /**
   * The lesson's narration for the op in view, and the predict question for
   * the next op: in predict mode, or where the program's narration asks
   * (`?predict`). Mounts are emptied when unused, so their live regions go too.
   */
  const renderLearning = (s: AppState, trace: TraceView, step: number): void => {
    const narr = narrations(s.tracedSource);
    const narration = narrationAt(trace, step, narr);
    const lesson = s.lesson !== null ? (lessonById(s.lesson) ?? null) : null;
    // A sweep has no op in view to narrate.
    if (s.sweep === null && (lesson || (narration && !s.narrationHidden))) {
      renderNarration(mounts.narration, { narration, lesson }, { onExitLesson: () => dispatch({ type: "exitLesson" }) });
    } else if (mounts.narration.firstChild) {
      mounts.narration.replaceChildren();
    }
    const asking = s.compare === null && s.sweep === null && (s.predict || predictsNext(trace, step, narr)) && step < trace.length;
    mounts.predict.hidden = !asking;
    mounts.predictButton.setAttribute("aria-pressed", s.predict ? "true" : "false");
    if (asking) {
      renderPredict(
        mounts.predict,
        { trace, step, guess: s.guess, revealed: s.revealed },
        {
          onGuess: (address) => dispatch({ type: "guess", address }),
          onReveal: () => dispatch({ type: "reveal" }),
          onNext: () => dispatch({ type: "predictNext" }),
        },
      );
    } else if (mounts.predict.firstChild) {
      mounts.predict.replaceChildren();
    }
  };

  /** The sweep view in place of the single map, its stats and the cost and detail panels. */
  const renderSweepMode = (s: AppState): boolean => {
    const sweeping = s.sweep !== null;
    mounts.sweep.hidden = !sweeping;
    // A sweep is of whole programs: no step to move, no blocks to key.
    mounts.stepper.hidden = sweeping;
    mounts.mapLegend.hidden = sweeping;
    // While sweeping, the view's Close sweep button (and Escape) leave: one control, one name.
    mounts.sweepButton.hidden = sweeping;
    if (s.sweep === null) {
      // Dropped, not hidden: its live regions must not linger.
      if (mounts.sweep.firstChild) mounts.sweep.replaceChildren();
      return false;
    }
    mounts.compare.hidden = true;
    if (mounts.compare.firstChild) mounts.compare.replaceChildren();
    mounts.compareButton.hidden = false;
    for (const el of [mounts.mapSummary, mounts.map, mounts.stats, mounts.costPanel, mounts.details]) el.hidden = true;
    renderSweep(
      mounts.sweep,
      {
        allocators,
        base: sweepBase(s),
        setup: s.sweep,
        running: sweepRun ? { done: sweepRun.done, total: sweepRun.total } : null,
        result: sweepResult?.result ?? null,
      },
      sweepHandlers,
    );
    return true;
  };

  /** Compare mode (or the sweep view) in place of the single map, its stats and the cost and detail panels. */
  const renderMode = (s: AppState): boolean => {
    if (renderSweepMode(s)) return true;
    const comparing = s.compare !== null;
    mounts.compare.hidden = !comparing;
    for (const el of [mounts.mapSummary, mounts.map, mounts.stats, mounts.costPanel, mounts.details]) el.hidden = comparing;
    // While comparing, the view's own Exit compare button (and Escape) leave: one control, one name.
    mounts.compareButton.hidden = comparing;
    if (!comparing) {
      // Dropped, not hidden: its live counter must not linger.
      if (mounts.compare.firstChild) mounts.compare.replaceChildren();
      return false;
    }
    renderCompare(
      mounts.compare,
      {
        allocators,
        columns: traceColumns(s.tracedSource, s.compare ?? []),
        step: s.step,
        animate: !reducedMotion.matches,
        sourceLines: linesOf(s.tracedSource),
      },
      {
        onSeek: (step) => dispatch({ type: "seek", step }),
        onConfigs: (configs) => dispatch({ type: "setCompare", configs }),
        onExit: () => dispatch({ type: "exitCompare" }),
      },
    );
    return true;
  };

  const renderTrace = (s: AppState, trace: TraceView): void => {
    const step = clampStep(trace, s.step);
    const op = currentOp(trace, step);
    const rows = chunkViewsAt(trace, step);
    const current = rows.find((r) => r.current)?.chunk;
    const stats = statsAt(trace, step);
    const bumpPtr = bumpPointerAt(trace, step);
    renderStepper(
      mounts.stepper,
      {
        step,
        total: trace.length,
        playing: s.playing,
        speed: s.speed,
        description: describeStep(trace, step),
        // Compare columns run different code: the single view's micro-step would mislead.
        micro: s.compare === null && microSteps(op).length > 1 ? describeMicro(op, s.micro) : null,
      },
      dispatch,
    );
    renderLearning(s, trace, step);
    if (renderMode(s)) return;
    renderMapSummary(mounts.mapSummary, {
      used: stats.used,
      capacity: rows.reduce((n, r) => n + r.chunk.capacity, 0),
      chunks: rows.length,
      current,
      direction: trace.direction,
      allocator: trace.allocator,
      stale: s.error !== null,
    });
    renderMemoryMap(mounts.map, {
      direction: trace.direction,
      rows,
      bumpPtr,
      focus: highlighted(focusOf(op), rows, s.narrationHidden ? null : narrationAt(trace, step, narrations(s.tracedSource)), trace),
      sourceLines: linesOf(s.tracedSource),
      emptyText: noChunkYet(trace, step)
        ? `no chunk yet: ${trace.allocator} allocates its first chunk lazily`
        : "no chunk: every chunk went back to the base allocator; the next allocation makes one",
      animate: !reducedMotion.matches,
    });
    renderStats(mounts.stats, { series: statsSeries(trace), step, current: stats }, { onSeek: (to) => dispatch({ type: "seek", step: to }) });
    const sourceLine = op ? (linesOf(s.tracedSource)[op.line - 1] ?? null) : null;
    renderCostView(mounts.cost, { trace, step, metric: s.costMetric, docsHref: COST_DOCS }, dispatch);
    // The preset's minimum alignment: the one chosen, else its default (none: no such setting).
    const minAlign = s.minAlign ?? allocators.find((a) => a.name === trace.allocator)?.minAligns[0];
    renderX86Table(mounts.x86, {
      reference: X86_REFERENCE,
      preset: trace.allocator,
      currentCase: caseForOp(trace, step, minAlign),
    });
    renderOpDetails(mounts.opDetails, {
      op,
      sourceLine,
      cost: op ? opCostSummary(trace, op) : null,
      micro: microIndex(op, s.micro),
    });
    const code = codeFocus(trace, op, s.micro);
    renderCodeView(mounts.code, {
      path: lean.sourcePath(code.file) ?? (code.file === trace.source ? trace.source_path : code.file),
      source: sourceShown(sourceOf(code.file)),
      currentLine: code.current,
      touched: code.touched,
      label: code.label,
      values: code.values,
    });
  };

  // A long run's progress, above the map it will replace (the last good map stays meanwhile).
  const progress = h("div", { class: "trace-progress", role: "progressbar", "aria-label": "Tracing the program", hidden: "" });
  const progressText = h("span", { class: "trace-progress-text" });
  const progressBar = h("span", { class: "trace-progress-bar" });
  progress.append(progressBar, progressText);
  mounts.map.before(progress);
  const renderProgress = (tracing: AppState["tracing"]): void => {
    progress.hidden = tracing === null;
    if (!tracing) return;
    const done = Math.min(tracing.executed, tracing.total);
    progress.setAttribute("aria-valuemin", "0");
    progress.setAttribute("aria-valuemax", String(tracing.total));
    progress.setAttribute("aria-valuenow", String(done));
    const text = `Tracing… ${done.toLocaleString("en-US")} of ${tracing.total.toLocaleString("en-US")} ops`;
    progress.setAttribute("aria-valuetext", text);
    progressText.textContent = text;
    progressBar.style.width = `${tracing.total > 0 ? (100 * done) / tracing.total : 0}%`;
  };

  const render = (): void => {
    const s = store.getState();
    renderProgress(s.tracing);
    const op = s.trace ? currentOp(s.trace, s.step) : undefined;
    renderEditor(
      mounts.editor,
      {
        source: s.source,
        allocators,
        allocator: s.allocator,
        target: s.target,
        capacity: s.capacity,
        minAlign: s.minAlign,
        error: s.error,
        currentLine: op && s.source === s.tracedSource ? op.line : null,
        lessons: lessonEntries,
      },
      handlers,
    );
    renderThemeToggle(mounts.theme, s.theme, (theme) => dispatch({ type: "setTheme", theme }));
    renderSharePanel(
      mounts.share,
      { state: sharedOf(s), trace: s.trace },
      // An imported trace is shown as if traced; the next edit or setting traces the program again.
      {
        onImportTrace: (trace) => {
          // A run still under way would replace the import when it ends.
          tracing?.abort();
          tracing = null;
          window.clearTimeout(traceTimer);
          dispatch({ type: "traced", trace: fromJson(trace), source: "" });
        },
        // A view not built from JSON (the lean module's run): the JSON path traces the program again.
        onExportTrace: () => {
          const shown = store.getState().trace;
          // The request that made the map on screen (the settings may have changed since).
          const request = shown ? requestFor.get(shown.cols) : undefined;
          if (!request) return "There is no traced program to export.";
          return loadMetered().then(
            (m) => {
              const r = m.engine.trace(request);
              return r.ok ? r.trace : `The trace could not be exported: ${r.error.message}`;
            },
            (error: unknown) => `The exporter (the metered module) did not load: ${error instanceof Error ? error.message : String(error)}. Try again.`,
          );
        },
      },
    );
    if (s.trace) renderTrace(s, s.trace);
    document.body.dataset["ready"] = "true";
    freeRetired();
  };

  const scheduleRender = frameScheduler(render);
  store.subscribe(scheduleRender);
  const resized = new ResizeObserver(scheduleRender);
  resized.observe(mounts.map);
  // The cost view's mount has no box of its own (display: contents).
  resized.observe(mounts.cost.parentElement ?? mounts.cost);

  retrace();
  render();
  return store;
}
