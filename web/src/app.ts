// The app's shell: the store, the controllers that run its effects
// (tracing, costs, compare columns, sweeps, playback, keys, share links, trace
// files, recorded programs), and a render of everything from the state once
// per frame (appView.ts). Every run is traced by a controller and dispatched
// into the store: a render only reads the state.

import { measureCosts } from "./wasm/costWorkerClient";
import { parseInWorker, PARSE_IN_WORKER_CHARS, warmParser } from "./wasm/parseWorkerClient";
import { fetchListing, fetchListingFunction, instructionsSource } from "./wasm/listing";
import { loadCostModule, loadSourceText } from "./wasm/load";
import { sourceTexts } from "./wasm/sourceTexts";
import type { TraceModule } from "./wasm/traceModule";
import { startCompareTracer } from "./controller/compare";
import { bindEscape } from "./controller/escape";
import { bindStepKeys } from "./controller/keyboard";
import { bindPresent, fitPresentedNarration, presentFromSearch } from "./controller/present";
import { bindPredictKeys, PREDICT_STRIP_ATTR } from "./controller/predictKeys";
import { startPlayback } from "./controller/playback";
import { openRecorded } from "./controller/recorded";
import { startSweepRunner, sweepBase } from "./controller/sweep";
import { startTracer } from "./controller/tracer";
import { traceFiles } from "./controller/traceFiles";
import { startingColumns } from "./model/compare";
import { lessonById } from "./model/lessons";
import { parseNarration, pausesAt, predictsNext, type Narration } from "./model/narration";
import { predictShown } from "./model/predict";
import { stepInView } from "./state/inView";
import { initialState, reducer, type Action, type AppState } from "./state/reducer";
import { syncShareLinks } from "./state/shareSync";
import { createStore, type Store } from "./state/store";
import { followsDrag, lessonPair, prepareFollowingDrag, renderApp, type AppViewContext } from "./appView";
import { findMounts, type Mounts } from "./mounts";
import { stagedFrameScheduler } from "./views/dom";
import { progressBar, showNotice } from "./views/notice";
import { applyTheme, storedTheme } from "./views/theme";

export { findMounts, type Mounts };

/** A typed edit waits this long for the next keystroke before it traces. */
export const TRACE_DEBOUNCE_MS = 150;

/** `f` of the last argument it saw, kept until the argument changes. */
function lastOf<T>(f: (text: string) => T): (text: string) => T {
  let key: string | null = null;
  let value: T;
  return (text) => {
    if (text !== key) {
      key = text;
      value = f(text);
    }
    return value;
  };
}

/** The program editor's module, imported on its own (see main.ts). */
export type EditorModule = typeof import("./views/editor");

export function startApp(module: TraceModule, mounts: Mounts, editor: EditorModule): Store<AppState, Action> {
  const allocators = module.allocators();
  const preferred = allocators.find((a) => a.name === "fitzgen-down") ?? allocators[0];
  const store = createStore(
    reducer,
    initialState({ ...(preferred ? { allocator: preferred.name } : {}), theme: storedTheme(), present: presentFromSearch(window.location.search) }),
  );
  const { dispatch } = store;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const narrations = lastOf((text): ReadonlyMap<number, Narration> => parseNarration(text));
  const lines = lastOf((text) => text.split("\n"));
  let scheduleRender = (): void => undefined;

  // ---- Effects ----------------------------------------------------------------
  // Costs are measured in a worker: 100,000 ops take seconds that must not hold the page.
  const tracer = startTracer(module, store, {
    measure: measureCosts,
    debounceMs: TRACE_DEBOUNCE_MS,
    parse: { apart: parseInWorker, fromChars: PARSE_IN_WORKER_CHARS },
    onLiveRuns: (n) => (document.body.dataset["liveRuns"] = String(n)),
  });
  startPlayback(store, (s, step) => (s.trace ? pausesAt(s.trace, step, narrations(s.tracedSource)) : false));
  const columns = startCompareTracer(module, store, { measure: measureCosts });
  const sweeps = startSweepRunner(module, store, measureCosts, (text) => showNotice(mounts.notice, text));
  // The page is ready (body[data-ready], what tests and screenshots wait
  // for) once the start link is applied and the run it names is drawn.
  let linkSettled = false;
  const settled = (): void => {
    linkSettled = true;
    scheduleRender();
  };
  void syncShareLinks(store, {
    known: (allocator) => allocators.some((a) => a.name === allocator),
    lessonExists: (id) => lessonById(id) !== undefined,
    notice: (text, link) => showNotice(mounts.notice, text, link),
    clearNotice: () => (mounts.notice.hidden = true),
  }).then(settled, settled);
  applyTheme(store.getState().theme);
  store.subscribe((s, prev) => {
    if (s.theme !== prev.theme) applyTheme(s.theme);
  });

  // ---- Keys -------------------------------------------------------------------
  bindEscape(document, store);
  // Presentation mode's toggle goes in the header beside the theme; its P and
  // Escape keys are bound after Escape's handler above, which closes what is open first.
  const tools = mounts.theme.parentElement;
  if (tools) bindPresent(store, tools, mounts.theme);
  // While the predict panel is shown its keys come first: ←/→ move the guess, not the step.
  bindPredictKeys(document, dispatch, () => {
    const s = store.getState();
    if (!s.trace) return null;
    const { step } = stepInView(s, s.trace);
    const single = s.compare === null && s.sweep === null;
    const lessonAsks = predictsNext(s.trace, step, narrations(s.tracedSource));
    return predictShown({ predict: s.predict, single, lessonAsks }, s.trace, step) ? { trace: s.trace, step, guess: s.guess, revealed: s.revealed, present: s.present } : null;
  });
  // The sweep view has no step: the keys that step or play the hidden single view do nothing there.
  bindStepKeys(document, dispatch, { micro: true, play: true, enabled: () => store.getState().sweep === null });
  // The mode toggle: a pressed mode's button goes back to the single run, as Escape does.
  const toSingle = (): void => {
    dispatch({ type: "exitCompare" });
    dispatch({ type: "closeSweep" });
  };
  mounts.singleButton.addEventListener("click", toSingle);
  // Compare starts from the run on screen: it, then its counterpart (the
  // lesson's own while one is followed) with the same settings where they carry.
  const compareStart = (s: AppState) => startingColumns(s, allocators, lessonPair(s)?.pair);
  const nameCounterpart = (s: AppState): void => {
    const [here, there] = compareStart(s);
    const title = here && there ? `Run this program on ${here.allocator} beside ${there.allocator}` : "";
    if (mounts.compareButton.textContent !== "Compare") mounts.compareButton.textContent = "Compare";
    if (mounts.compareButton.title !== title) mounts.compareButton.title = title;
  };
  nameCounterpart(store.getState());
  store.subscribe(nameCounterpart);
  mounts.compareButton.addEventListener("click", () => {
    if (store.getState().compare !== null) toSingle();
    else dispatch({ type: "enterCompare", configs: compareStart(store.getState()) });
  });
  mounts.predictButton.addEventListener("click", () => {
    dispatch({ type: "togglePredict" });
    // The question takes the keys at once: Enter then answers it instead of
    // pressing the toggle again, which would close it.
    if (store.getState().predict) requestAnimationFrame(() => mounts.predict.querySelector<HTMLElement>(`[${PREDICT_STRIP_ATTR}]`)?.focus());
  });
  mounts.sweepButton.addEventListener("click", () => {
    const s = store.getState();
    dispatch(s.sweep !== null ? { type: "closeSweep" } : { type: "setSweep", setup: sweeps.toOpen(s) });
  });

  const files = traceFiles(module, allocators, tracer, dispatch);

  // ---- Rendering --------------------------------------------------------------
  const sourceOf = sourceTexts({ sourcePath: (name) => module.sourcePath(name), load: loadSourceText, onLoaded: () => scheduleRender() });
  // The Instructions view's data: nothing is fetched until it first opens.
  const instructions = instructionsSource({
    loadListing: fetchListing,
    loadFunction: fetchListingFunction,
    // On the page's thread: one op's replay, once the view settles on it.
    executedOps: (config, op) =>
      loadCostModule().then((m) => {
        const r = m.executed(config, op);
        return r.ok ? { op: r.op, columns: r.columns } : { error: r.error };
      }),
    onLoaded: () => scheduleRender(),
    settleMs: 120,
  });
  const showProgress = progressBar(mounts.map);
  const context = (s: AppState): AppViewContext => ({
    allocators,
    renderEditor: editor.renderEditor,
    narrations,
    lines,
    source: sourceOf,
    sourcePath: (file) => module.sourcePath(file),
    animate: () => !reducedMotion.matches,
    sweepBase: sweepBase(s),
    dispatch,
    onImportTrace: (text) => files.importTrace(text),
    onExportTrace: () => files.exportTrace(),
    onSweepRun: (_spec, setup) => {
      // The same sweep again runs again (a Run after a Cancel); another one runs through the store.
      if (s.sweep !== null && JSON.stringify(s.sweep) === JSON.stringify(setup)) sweeps.again();
      else dispatch({ type: "setSweep", setup });
    },
    onSweepCancel: () => sweeps.cancel(),
    onOpenRecorded: (id) => void openRecorded(id, document.baseURI, dispatch, (text) => showNotice(mounts.notice, text)),
    instructions,
    shownConfig: () => tracer.shownConfig(),
    onTyping: () => tracer.hold(),
    onHandedOn: () => tracer.resume(),
  });
  // A lesson just started is brought into view once drawn: it is picked from
  // the Programs menu beside the editor, which on a phone sits far under the
  // map and the lesson's narration, where the reader reads next.
  let revealLesson = false;
  store.subscribe((s, prev) => {
    if (s.lesson !== null && s.lesson !== prev.lesson) revealLesson = true;
  });
  const showLesson = (s: AppState): void => {
    if (!revealLesson || s.lesson === null || s.trace === null || s.pendingStep !== null) return;
    revealLesson = false;
    const panel = mounts.narration.firstElementChild;
    if (!(panel instanceof HTMLElement) || panel.hidden) return;
    const box = panel.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight) panel.scrollIntoView({ block: "start" });
  };
  const render = (prepared: AppState | null): void => {
    const latest = store.getState();
    // A frame following the drag draws the state its task prepared; the hand's newer step comes a frame later.
    const s = prepared !== null && followsDrag(mounts, latest) ? prepared : latest;
    showProgress(s.tracing);
    renderApp(mounts, s, context(s));
    fitPresentedNarration(mounts.narration, s.present);
    showLesson(s);
    // A run drawn (or the program's error said) for the program in view, no trace still to come.
    if (linkSettled && (s.error !== null || (s.pendingStep === null && s.trace !== null))) document.body.dataset["ready"] = "true";
    tracer.afterRender();
    columns.afterRender();
  };
  // A step of a dragged scrubber is derived (its blocks, bins and labels) in
  // a task before the frame that draws it: each task stays short, where one
  // frame doing both was the drag's longest.
  scheduleRender = stagedFrameScheduler(
    () => followsDrag(mounts, store.getState()),
    () => {
      const s = store.getState();
      return prepareFollowingDrag(mounts, s, context(s)) ? s : null;
    },
    render,
  );
  store.subscribe(scheduleRender);
  const resized = new ResizeObserver(scheduleRender);
  resized.observe(mounts.map);
  // The cost view's mount has no box of its own (display: contents).
  resized.observe(mounts.cost.parentElement ?? mounts.cost);

  tracer.retrace();
  render(null);
  warmParser();
  return store;
}
