// The embeddable player: the memory map and step controls, optionally the
// code, cost and stats views, for one shared state. The iframe embed
// (embed.ts) and the <bump-lab> element (component.ts) both run it: the same
// reducer and store as the app and the same views, with minimal chrome and
// effects scoped to its own root (several on one page stay independent).
//
// Issue 7: it traces with the LEAN module (engine/browser.ts) in time-sized
// slices, saying "Tracing… N of M ops" while a long run is in them, and
// fetches the METERED module only when something it shows reads costs (the
// cost view, or compare columns): an embed of the map alone never loads it.
// Runs are freed when their views are replaced and when the player is
// destroyed.

import { loadCostModule, loadSourceText, traceInSlices, type CostsResult, type TraceModule, type TraceRunHandle } from "../engine/browser";
import { sourceShown, sourceTexts } from "../engine/sourceTexts";
import { withCosts, type TraceView, type ViewResult } from "../engine/traceView";
import type { TraceRequest } from "../engine/types";
import { clampStep } from "../model/blocks";
import type { CompareConfig } from "../model/compare";
import { bumpPointerAt, chunkViewsAt, noChunkYet, statsAt } from "../model/chunks";
import { currentOp, describeMicro, describeStep, microSteps } from "../model/describe";
import { codeFocus, focusOf, highlighted, statsSeries } from "../model/focus";
import { narrationAt, parseNarration, type Narration } from "../model/narration";
import { initialState, reducer, type Action, type AppState } from "../state/reducer";
import { createStore, type Store } from "../state/store";
import type { CompareColumn } from "../views/compare";
import { frameScheduler, h, setText } from "../views/dom";
import { renderMapSummary } from "../views/mapSummary";
import { renderMemoryMap } from "../views/memoryMap";
import { renderNarration } from "../views/narration";
import { renderStepper } from "../views/stepper";
import { encodeShare, type SharedState } from "./link";

/** Views an embed may show besides the map (the map is always shown). */
export const OPTIONAL_VIEWS = ["code", "cost", "stats"] as const;
export type OptionalView = (typeof OPTIONAL_VIEWS)[number];

export const PLAY_INTERVAL_MS = 700;

/** The most ops the metered module traces (crates/core's MAX_FULL_TRACE_OPS): longer runs have no costs. */
export const MAX_COST_OPS = 100_000;

/** Why a run of `ops` ops has no costs, or undefined when the metered module can measure it. */
export function overCostCap(ops: number): string | undefined {
  return ops > MAX_COST_OPS
    ? `the program runs ${ops.toLocaleString("en-US")} ops and costs are measured for at most ${MAX_COST_OPS.toLocaleString("en-US")} (the metered module's full trace): lower a repeat count to see them`
    : undefined;
}

/**
 * The optional views' modules, each imported only when the player shows it
 * (chunks of their own: an embed of the map alone fetches none of them, nor
 * the d3 modules only they use, nor compare's setup row).
 */
interface LazyViews {
  code?: typeof import("../views/codeView");
  cost?: typeof import("../views/costView");
  stats?: typeof import("../views/stats");
  compare?: typeof import("../views/compare");
}

async function loadViews(views: ReadonlySet<OptionalView>, comparing: boolean): Promise<LazyViews> {
  const [code, cost, stats, compare] = await Promise.all([
    !comparing && views.has("code") ? import("../views/codeView") : undefined,
    !comparing && views.has("cost") ? import("../views/costView") : undefined,
    !comparing && views.has("stats") ? import("../views/stats") : undefined,
    comparing ? import("../views/compare") : undefined,
  ]);
  return { ...(code ? { code } : {}), ...(cost ? { cost } : {}), ...(stats ? { stats } : {}), ...(compare ? { compare } : {}) };
}

/** Whether the player shows anything that reads costs (so it loads the metered module). */
export function needsCosts(views: ReadonlySet<OptionalView>, comparing: boolean): boolean {
  return comparing || views.has("cost");
}

/** What the player's status line says while a run is in slices. */
export function tracingText(executed: number, total: number): string {
  return `Tracing… ${executed.toLocaleString("en-US")} of ${total.toLocaleString("en-US")} ops`;
}

export interface PlayerOptions {
  /** Show the step controls. */
  controls: boolean;
  views: ReadonlySet<OptionalView>;
  /** The app's index.html: "Open in Bump Lab" links there with the state in the hash. */
  appUrl: string;
  /** Announced as the embed's name. */
  label: string;
}

export interface Player {
  readonly store: Store<AppState, Action>;
  /** Offscreen players stop playback ticks (and resume when visible). */
  setVisible(visible: boolean): void;
  /** The state the player shows now, as a share link would carry it. */
  shared(): SharedState;
  /** Settles once the program is drawn or its error shown. */
  readonly ready: Promise<void>;
  /** Stops tracing and playback, frees the runs and empties the root: the player is unusable after. */
  destroy(): void;
}

/** Parses a views list ("code,cost"): known names only, the map implied. */
export function parseViews(text: string | null | undefined): Set<OptionalView> {
  const out = new Set<OptionalView>();
  for (const v of (text ?? "").split(",")) {
    const name = v.trim().toLowerCase();
    const known = OPTIONAL_VIEWS.find((x) => x === name);
    if (known) out.add(known);
  }
  return out;
}

export function startPlayer(lean: TraceModule, root: HTMLElement, shared: SharedState, options: PlayerOptions): Player {
  const store = createStore(
    reducer,
    initialState({
      source: shared.source,
      allocator: shared.allocator,
      target: shared.target,
      capacity: shared.capacity,
      minAlign: shared.minAlign,
      compare: shared.compare,
    }),
  );
  const { dispatch } = store;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const allocators = lean.allocators();
  /** Aborted by destroy(): cancels tracing and removes the player's listeners. */
  const life = new AbortController();
  const unsubscribes: (() => void)[] = [];
  let destroyed = false;

  // ---- DOM ------------------------------------------------------------------
  const open = h("a", { class: "bl-open", href: options.appUrl, target: "_blank", rel: "noopener" }, "Open in Bump Lab ↗");
  const title = h("span", { class: "bl-title" });
  // "Tracing… N of M ops" while a long run is in slices; empty otherwise.
  const status = h("span", { class: "bl-status", role: "status" });
  const error = h("p", { class: "bl-error", role: "alert", hidden: true });
  const summary = h("div", { class: "map-summary" });
  const map = h("div", { class: "map-container bl-map", id: "memory-map" });
  const compare = h("div", { class: "bl-compare" });
  const stepper = h("div", { class: "stepper" });
  const stats = h("div", { class: "bl-stats" });
  const cost = h("div", { class: "cost-view bl-cost", id: "cost-view" }, h("p", { class: "cost-note" }, "Measuring costs…"));
  const code = h("div", { class: "code-view bl-code" });
  // The program's `#>` narration at the step in view (hidden when it has none).
  const narration = h("div", { class: "bl-narration" });
  const comparing = shared.compare !== null;
  const showCost = !comparing && options.views.has("cost");
  // The only time the metered module is fetched: when something shown reads costs.
  const wantsCosts = needsCosts(options.views, comparing);
  root.replaceChildren(
    h(
      "div",
      { class: "bl-player", role: "region", "aria-label": options.label },
      h("div", { class: "bl-head" }, title, status, open),
      error,
      comparing ? compare : null,
      comparing ? null : summary,
      comparing ? null : map,
      comparing ? null : narration,
      options.controls ? stepper : null,
      !comparing && options.views.has("stats") ? stats : null,
      showCost ? cost : null,
      !comparing && options.views.has("code") ? code : null,
    ),
  );

  // The optional views' modules load while the wasm does; the first render waits for them.
  let lazy: LazyViews | null = null;
  const lazyLoading = loadViews(options.views, comparing);

  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  /** Costs for `request`'s run of `view`: over the cap without loading the metered module. */
  const costsFor = async (view: TraceView, request: TraceRequest): Promise<CostsResult> => {
    const over = overCostCap(view.length);
    if (over !== undefined) return { unavailable: over };
    // After the first map is drawn: the metered module never competes with what it needs.
    await ready;
    if (destroyed) return { unavailable: "the player was removed" };
    try {
      const metered = await loadCostModule();
      return metered.costs(request);
    } catch (e) {
      return { unavailable: `the cost module could not load (${e instanceof Error ? e.message : String(e)})` };
    }
  };

  // ---- Tracing ----------------------------------------------------------------
  const s0 = store.getState();
  const request: TraceRequest = {
    source: s0.source,
    allocator: s0.allocator,
    target: s0.target,
    capacity: s0.capacity ?? undefined,
    minAlign: s0.minAlign ?? undefined,
  };
  // The player traces its program once: its narration is parsed once too.
  const narrations: ReadonlyMap<number, Narration> = parseNarration(s0.source);
  /** The run behind the store's view (the player traces its program once). */
  let mainRun: TraceRunHandle | null = null;
  const onProgress = (executed: number, total: number): void => setText(status, tracingText(executed, total));
  void traceInSlices(lean, request, { signal: life.signal, onProgress }).then((outcome) => {
    if (outcome.kind === "done" && destroyed) outcome.run.free();
    if (destroyed || outcome.kind === "cancelled") return;
    setText(status, "");
    if (outcome.kind === "failed") {
      dispatch({ type: "traceFailed", error: outcome.error });
      error.hidden = false;
      setText(error, `${outcome.error.line}:${outcome.error.column}: ${outcome.error.message}`);
      markReady();
      return;
    }
    mainRun = outcome.run;
    dispatch({ type: "traced", trace: outcome.view, source: s0.source });
    dispatch({ type: "seek", step: shared.step });
    if (wantsCosts && !comparing) {
      const view = outcome.view;
      void costsFor(view, request).then((result) => {
        // The same run with costs: the step, micro-step and playback stay as they are.
        if (!destroyed && store.getState().trace === view) dispatch({ type: "traced", trace: withCosts(view, result), source: s0.source });
      });
    }
  });

  // ---- Playback (ticks only while visible) -------------------------------------
  let visible = true;
  let playTimer: number | undefined;
  const syncTimer = (s: AppState): void => {
    const want = s.playing && visible && !destroyed;
    if (want && playTimer === undefined) {
      playTimer = window.setInterval(() => dispatch({ type: "tick" }), PLAY_INTERVAL_MS / s.speed);
    } else if (!want && playTimer !== undefined) {
      window.clearInterval(playTimer);
      playTimer = undefined;
    }
  };
  unsubscribes.push(store.subscribe(syncTimer));

  // ---- Keyboard, scoped to the player ------------------------------------------
  root.addEventListener(
    "keydown",
    (event) => {
      if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
      const target = event.composedPath()[0];
      if (target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement) return;
      const keys: Record<string, Action> = {
        ArrowLeft: { type: "back" },
        ArrowRight: { type: "forward" },
        Home: { type: "first" },
        End: { type: "last" },
      };
      const action = keys[event.key];
      if (!action) return;
      event.preventDefault();
      dispatch(action);
    },
    { signal: life.signal },
  );

  // ---- Rendering ------------------------------------------------------------------
  const sharedNow = (): SharedState => {
    const s = store.getState();
    const out: SharedState = {
      source: s.source,
      allocator: s.allocator,
      target: s.target,
      capacity: s.capacity,
      minAlign: s.minAlign,
      step: s.step,
      compare: s.compare,
    };
    if (shared.views !== undefined) out.views = shared.views;
    if (shared.lesson) out.lesson = shared.lesson;
    return out;
  };

  // The link follows the step; encoding is async, so only the latest result is kept.
  let linkRevision = 0;
  const updateOpenLink = (): void => {
    const revision = ++linkRevision;
    void encodeShare(sharedNow()).then((hash) => {
      if (revision === linkRevision) open.href = `${options.appUrl}#${hash}`;
    });
  };

  // Compare columns traced once per (program, columns) with the lean module:
  // stepping never re-traces. The columns on screen stay until their
  // replacements are traced; their runs are freed after the next render.
  interface ColumnSet {
    key: string;
    columns: CompareColumn[];
    runs: TraceRunHandle[];
  }
  let shownColumns: ColumnSet | null = null;
  let tracingKey = "";
  let columnsAbort: AbortController | null = null;
  /** Runs whose views were replaced: freed once a render has drawn their replacements. */
  let retired: TraceRunHandle[] = [];
  const freeAll = (runs: readonly TraceRunHandle[]): void => {
    for (const run of runs) run.free();
  };
  const columnRequest = (source: string, config: CompareConfig): TraceRequest => ({
    source,
    allocator: config.allocator,
    target: config.target,
    capacity: config.capacity ?? undefined,
    minAlign: config.minAlign ?? undefined,
  });
  const traceColumns = (source: string, configs: readonly CompareConfig[]): void => {
    const key = JSON.stringify([source, configs]);
    if (key === shownColumns?.key || key === tracingKey) return;
    columnsAbort?.abort();
    const abort = new AbortController();
    columnsAbort = abort;
    tracingKey = key;
    void (async () => {
      const runs: TraceRunHandle[] = [];
      const columns: CompareColumn[] = [];
      for (const config of configs) {
        const outcome = await traceInSlices(lean, columnRequest(source, config), { signal: abort.signal, onProgress });
        if (outcome.kind === "done") runs.push(outcome.run);
        if (abort.signal.aborted || destroyed || outcome.kind === "cancelled") {
          freeAll(runs);
          return;
        }
        const result: ViewResult = outcome.kind === "done" ? { ok: true, trace: outcome.view } : { ok: false, error: outcome.error };
        columns.push({ config, result });
      }
      setText(status, "");
      tracingKey = "";
      columnsAbort = null;
      if (shownColumns) retired.push(...shownColumns.runs);
      const set: ColumnSet = { key, columns, runs };
      shownColumns = set;
      scheduleRender();
      if (!wantsCosts) return;
      // The table's costs: the metered module, loaded now (the columns show without them first).
      const withColumnCosts = await Promise.all(
        columns.map(async (column): Promise<CompareColumn> => {
          if (!column.result.ok) return column;
          const result = await costsFor(column.result.trace, columnRequest(source, column.config));
          return { config: column.config, result: { ok: true, trace: withCosts(column.result.trace, result) } };
        }),
      );
      if (destroyed || shownColumns !== set) return;
      shownColumns = { ...set, columns: withColumnCosts };
      scheduleRender();
    })();
  };

  const render = (): void => {
    if (destroyed) return;
    const s = store.getState();
    setText(title, s.compare ? `${s.compare.map((c) => c.allocator).join(" vs ")}` : `${s.allocator} · ${s.target === "64" ? "64-bit" : "wasm32"}`);
    if (!lazy) return;
    const views = lazy;
    const trace = s.trace;
    if (!trace) return;
    const step = clampStep(trace, s.step);
    const op = currentOp(trace, step);
    if (options.controls) {
      renderStepper(
        stepper,
        {
          step,
          total: trace.length,
          playing: s.playing,
          speed: s.speed,
          description: describeStep(trace, step),
          micro: microSteps(op).length > 1 ? describeMicro(op, s.micro) : null,
        },
        dispatch,
      );
    }
    if (s.compare) {
      traceColumns(s.tracedSource, s.compare);
      if (!shownColumns || !views.compare) return;
      views.compare.renderCompare(
        compare,
        {
          allocators,
          columns: shownColumns.columns,
          step,
          animate: !reducedMotion.matches,
          sourceLines: s.tracedSource.split("\n"),
        },
        {
          onSeek: (to) => dispatch({ type: "seek", step: to }),
          onConfigs: (configs) => dispatch({ type: "setCompare", configs }),
          onExit: () => undefined,
        },
      );
      freeAll(retired);
      retired = [];
      root.dataset["ready"] = "true";
      markReady();
      updateOpenLink();
      return;
    }
    const rows = chunkViewsAt(trace, step);
    const said = narrationAt(trace, step, narrations);
    const series = statsSeries(trace);
    const current = statsAt(trace, step);
    renderMapSummary(summary, {
      used: current.used,
      capacity: rows.reduce((n, r) => n + r.chunk.capacity, 0),
      chunks: rows.length,
      current: rows.find((r) => r.current)?.chunk,
      direction: trace.direction,
      allocator: trace.allocator,
      stale: s.error !== null,
    });
    renderMemoryMap(map, {
      direction: trace.direction,
      rows,
      bumpPtr: bumpPointerAt(trace, step),
      focus: highlighted(focusOf(op), rows, said, trace),
      emptyText: noChunkYet(trace, step)
        ? `no chunk yet: ${trace.allocator} allocates its first chunk lazily`
        : "no chunk: every chunk went back to the base allocator; the next allocation makes one",
      animate: !reducedMotion.matches,
    });
    if (views.stats) views.stats.renderStats(stats, { series, step, current }, { onSeek: (to) => dispatch({ type: "seek", step: to }) });
    // Until the metered module has answered, the cost view says it is measuring.
    if (views.cost && (trace.costs !== undefined || trace.costsUnavailable !== undefined)) {
      views.cost.renderCostView(cost, { trace, step, metric: s.costMetric, docsHref: new URL("docs/trace-format.html#cost", options.appUrl).href }, dispatch);
    }
    renderNarration(narration, { narration: said, lesson: null }, { onExitLesson: () => undefined });
    if (views.code) {
      const focus = codeFocus(trace, op, s.micro);
      views.code.renderCodeView(code, {
        path: lean.sourcePath(focus.file) ?? (focus.file === trace.source ? trace.source_path : focus.file),
        source: sourceShown(sourceOf(focus.file)),
        currentLine: focus.current,
        touched: focus.touched,
        label: focus.label,
        values: focus.values,
      });
    }
    root.dataset["ready"] = "true";
    markReady();
    updateOpenLink();
  };

  const scheduleRender = frameScheduler(render);
  // The code view's texts, fetched on first view when the module does not embed them.
  const sourceOf = sourceTexts({
    sourceText: (name) => lean.sourceText(name),
    sourcePath: (name) => lean.sourcePath(name),
    load: loadSourceText,
    onLoaded: () => scheduleRender(),
  });
  unsubscribes.push(store.subscribe(scheduleRender));
  const resize = new ResizeObserver(scheduleRender);
  resize.observe(root);
  render();
  lazyLoading.then(
    (loaded) => {
      lazy = loaded;
      render();
    },
    (e: unknown) => {
      // A view's chunk failed to load (offline, a new deploy): say so where the figure would be.
      if (destroyed) return;
      error.hidden = false;
      setText(error, `Bump Lab could not load its views: ${e instanceof Error ? e.message : String(e)}`);
      markReady();
    },
  );

  return {
    store,
    ready,
    setVisible(v) {
      visible = v;
      syncTimer(store.getState());
    },
    shared: sharedNow,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      life.abort();
      columnsAbort?.abort();
      for (const unsubscribe of unsubscribes) unsubscribe();
      resize.disconnect();
      syncTimer(store.getState());
      // Nothing drawn may read a freed run: the root is emptied first.
      root.replaceChildren();
      delete root.dataset["ready"];
      if (mainRun) mainRun.free();
      mainRun = null;
      if (shownColumns) freeAll(shownColumns.runs);
      shownColumns = null;
      freeAll(retired);
      retired = [];
      markReady();
    },
  };
}
