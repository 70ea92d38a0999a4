// The app's shell: the store, the controllers that run its effects
// (tracing, costs, playback, keys, compare columns, sweeps, share links), and
// a render of everything from the state once per frame (appView.ts).

import type { RunConfig } from "./engine/config";
import { measureCosts } from "./engine/costWorkerClient";
import { fetchListing, fetchListingFunction, instructionsSource } from "./engine/listing";
import { loadCostModule, loadSourceText } from "./engine/load";
import { traceNow } from "./engine/run";
import { sourceTexts } from "./engine/sourceTexts";
import type { TraceModule } from "./engine/traceModule";
import type { Trace } from "./engine/types";
import { compareTracer } from "./controller/compare";
import { bindStepKeys } from "./controller/keyboard";
import { bindPresent, presentFromSearch } from "./controller/present";
import { bindPredictKeys, PREDICT_STRIP_ATTR } from "./controller/predictKeys";
import { startPlayback } from "./controller/playback";
import { sweepBase, sweepRunner } from "./controller/sweep";
import { startTracer } from "./controller/tracer";
import { startingColumns } from "./model/compare";
import { lessonById, recordedLesson } from "./model/lessons";
import { clampStep } from "./model/blocks";
import { parseNarration, pausesAt, predictsNext, type Narration } from "./model/narration";
import { predictShown } from "./model/predict";
import { parseTraceFile, replayDiffers } from "./share/traceFile";
import { initialState, reducer, type Action, type AppState } from "./state/reducer";
import { syncShareLinks } from "./state/shareSync";
import { createStore, type Store } from "./state/store";
import { findMounts, followsDrag, lessonPair, prepareFollowingDrag, progressBar, renderApp, showNotice, type AppViewContext, type Mounts } from "./appView";
import { stagedFrameScheduler } from "./views/dom";
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

export function startApp(module: TraceModule, mounts: Mounts): Store<AppState, Action> {
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
    onLiveRuns: (n) => (document.body.dataset["liveRuns"] = String(n)),
  });
  startPlayback(store, (s, step) => (s.trace ? pausesAt(s.trace, step, narrations(s.tracedSource)) : false));
  const columns = compareTracer(module, { measure: measureCosts, onChange: () => scheduleRender() });
  const sweeps = sweepRunner(module, measureCosts, () => scheduleRender(), (text) => showNotice(mounts.notice, text));
  store.subscribe((s) => sweeps.sync(s));
  syncShareLinks(store, {
    known: (allocator) => allocators.some((a) => a.name === allocator),
    lessonExists: (id) => lessonById(id) !== undefined,
    notice: (text, link) => showNotice(mounts.notice, text, link),
    clearNotice: () => (mounts.notice.hidden = true),
  });
  applyTheme(store.getState().theme);
  store.subscribe((s, prev) => {
    if (s.theme !== prev.theme) applyTheme(s.theme);
  });

  // ---- Keys -------------------------------------------------------------------
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    // Escape closes the Share panel first, then leaves compare mode or the sweep (a select keeps it to close itself).
    const share = document.querySelector<HTMLDetailsElement>("details.share-menu[open]");
    const s = store.getState();
    if (share) {
      share.open = false;
      share.querySelector("summary")?.focus();
    } else if (event.target instanceof HTMLSelectElement) return;
    else if (s.compare !== null) dispatch({ type: "exitCompare" });
    else if (s.sweep !== null) dispatch({ type: "closeSweep" });
    else return;
    event.preventDefault();
  });
  // Presentation mode's toggle goes in the header beside the theme; its P and
  // Escape keys are bound after Escape's handler above, which closes what is open first.
  const tools = mounts.theme.parentElement;
  if (tools) bindPresent(store, tools, mounts.theme);
  // While the predict panel is shown its keys come first: ←/→ move the guess, not the step.
  bindPredictKeys(document, dispatch, () => {
    const s = store.getState();
    if (!s.trace) return null;
    const step = clampStep(s.trace, s.step);
    const single = s.compare === null && s.sweep === null;
    const lessonAsks = predictsNext(s.trace, step, narrations(s.tracedSource));
    return predictShown({ predict: s.predict, single, lessonAsks }, s.trace, step) ? { trace: s.trace, step, guess: s.guess, revealed: s.revealed } : null;
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

  // ---- Trace files ------------------------------------------------------------
  // An import replays the file's program here and shows it only if every op
  // lands where the file says; otherwise nothing changes.
  const importTrace = async (text: string): Promise<string> => {
    const file = parseTraceFile(text, allocators);
    if (!file.ok) return file.error;
    await module.ready(file.config.allocator);
    const replay = traceNow(module, file.config);
    if (!replay.ok) return `The file's program does not run here: ${replay.error.line}:${replay.error.column}: ${replay.error.message}.`;
    const differs = replayDiffers(replay.view, file.ops);
    replay.run.free();
    if (differs !== null) return `The trace was not imported: ${differs}.`;
    tracer.cancel();
    dispatch({ type: "openConfig", config: file.config });
    return `Imported a trace of ${file.ops.length} ops on ${file.config.allocator}: its program is in the editor.`;
  };
  const exportTrace = (): Promise<Trace | string> => {
    // The configuration that made the map on screen (the settings may have changed since).
    const config: RunConfig | undefined = tracer.shownConfig();
    if (!config) return Promise.resolve("There is no traced program to export.");
    return loadCostModule().then(
      (m) => {
        const r = m.trace(config);
        return r.ok ? r.trace : `The trace could not be exported: ${r.error.message}`;
      },
      (error: unknown) => `The exporter (the cost module) did not load: ${error instanceof Error ? error.message : String(error)}. Try again.`,
    );
  };

  // ---- Recorded programs --------------------------------------------------------
  // Hundreds of kB each, so a file under the site's examples/, fetched when
  // chosen; it opens at its last op, where the narration's totals hold.
  const openRecorded = async (id: string): Promise<void> => {
    const found = recordedLesson(id);
    if (!found) return;
    const { lesson, recorded } = found;
    try {
      const response = await fetch(new URL(recorded.path, document.baseURI));
      if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
      const source = await response.text();
      dispatch({ type: "startLesson", lesson: { id, config: { ...lesson.config, source }, step: Number.MAX_SAFE_INTEGER } });
    } catch (error: unknown) {
      showNotice(mounts.notice, `The recorded program ${recorded.path} did not load (${error instanceof Error ? error.message : String(error)}): the program on screen is unchanged.`);
    }
  };

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
    narrations,
    lines,
    source: sourceOf,
    sourcePath: (file) => module.sourcePath(file),
    animate: () => !reducedMotion.matches,
    columns: (source, configs) => columns.columns(source, configs),
    sweep: { running: sweeps.running(), result: sweeps.result() },
    sweepBase: sweepBase(s),
    dispatch,
    onImportTrace: importTrace,
    onExportTrace: exportTrace,
    onSweepRun: (_spec, setup) => {
      // The same sweep again runs again (a Run after a Cancel); another one runs through the store.
      if (s.sweep !== null && JSON.stringify(s.sweep) === JSON.stringify(setup)) sweeps.sync(s, true);
      else dispatch({ type: "setSweep", setup });
    },
    onSweepCancel: () => sweeps.cancel(),
    onOpenRecorded: (id) => void openRecorded(id),
    instructions,
    shownConfig: () => tracer.shownConfig(),
  });
  const render = (prepared: AppState | null): void => {
    const latest = store.getState();
    // A frame following the drag draws the state its task prepared; the hand's newer step comes a frame later.
    const s = prepared !== null && followsDrag(mounts, latest) ? prepared : latest;
    showProgress(s.tracing);
    renderApp(mounts, s, context(s));
    document.body.dataset["ready"] = "true";
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
  return store;
}
