// The embeddable player: the memory map and step controls, optionally the
// code, cost and stats views, for one shared state. The iframe embed
// (embed.ts) and the <bump-lab> element (component.ts) both run it: the same
// reducer and store as the app and the same views, with minimal chrome and
// effects scoped to its own root (several on one page stay independent).

import { fromJson, viewResult } from "../engine/traceView";
import traceFormatUrl from "../../../docs/trace-format.md?url";
import type { Engine } from "../engine/facade";
import { clampStep } from "../model/blocks";
import type { CompareConfig } from "../model/compare";
import { bumpPointerAt, chunkViewsAt, noChunkYet, statsAt } from "../model/chunks";
import { currentOp, describeMicro, describeStep, microSteps } from "../model/describe";
import { codeFocus, focusOf, highlighted, statsSeries } from "../model/focus";
import { narrationAt, parseNarration, type Narration } from "../model/narration";
import { initialState, reducer, type Action, type AppState } from "../state/reducer";
import { createStore, type Store } from "../state/store";
import { renderCodeView } from "../views/codeView";
import { renderCompare, type CompareColumn } from "../views/compare";
import { renderCostView } from "../views/costView";
import { frameScheduler, h, setText } from "../views/dom";
import { renderMapSummary } from "../views/mapSummary";
import { renderMemoryMap } from "../views/memoryMap";
import { renderNarration } from "../views/narration";
import { renderStats } from "../views/stats";
import { renderStepper } from "../views/stepper";
import { encodeShare, type SharedState } from "./link";

/** Views an embed may show besides the map (the map is always shown). */
export const OPTIONAL_VIEWS = ["code", "cost", "stats"] as const;
export type OptionalView = (typeof OPTIONAL_VIEWS)[number];

export const PLAY_INTERVAL_MS = 700;

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

export function startPlayer(engine: Engine, root: HTMLElement, shared: SharedState, options: PlayerOptions): Player {
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
  const allocators = engine.allocators();

  // ---- DOM ------------------------------------------------------------------
  const open = h("a", { class: "bl-open", href: options.appUrl, target: "_blank", rel: "noopener" }, "Open in Bump Lab ↗");
  const title = h("span", { class: "bl-title" });
  const error = h("p", { class: "bl-error", role: "alert", hidden: true });
  const summary = h("div", { class: "map-summary" });
  const map = h("div", { class: "map-container bl-map", id: "memory-map" });
  const compare = h("div", { class: "bl-compare" });
  const stepper = h("div", { class: "stepper" });
  const stats = h("div", { class: "bl-stats" });
  const cost = h("div", { class: "cost-view bl-cost", id: "cost-view" });
  const code = h("div", { class: "code-view bl-code" });
  // The program's `#>` narration at the step in view (hidden when it has none).
  const narration = h("div", { class: "bl-narration" });
  const comparing = shared.compare !== null;
  root.replaceChildren(
    h(
      "div",
      { class: "bl-player", role: "region", "aria-label": options.label },
      h("div", { class: "bl-head" }, title, open),
      error,
      comparing ? compare : null,
      comparing ? null : summary,
      comparing ? null : map,
      comparing ? null : narration,
      options.controls ? stepper : null,
      !comparing && options.views.has("stats") ? stats : null,
      !comparing && options.views.has("cost") ? cost : null,
      !comparing && options.views.has("code") ? code : null,
    ),
  );

  // ---- Tracing ----------------------------------------------------------------
  const s0 = store.getState();
  const result = engine.trace({
    source: s0.source,
    allocator: s0.allocator,
    target: s0.target,
    capacity: s0.capacity ?? undefined,
    minAlign: s0.minAlign ?? undefined,
  });
  // The player traces its program once: its narration is parsed once too.
  const narrations: ReadonlyMap<number, Narration> = parseNarration(s0.source);
  if (result.ok) {
    dispatch({ type: "traced", trace: fromJson(result.trace), source: s0.source });
    dispatch({ type: "seek", step: shared.step });
  } else {
    dispatch({ type: "traceFailed", error: result.error });
    error.hidden = false;
    setText(error, `${result.error.line}:${result.error.column}: ${result.error.message}`);
  }

  // ---- Playback (ticks only while visible) -------------------------------------
  let visible = true;
  let playTimer: number | undefined;
  const syncTimer = (s: AppState): void => {
    const want = s.playing && visible;
    if (want && playTimer === undefined) {
      playTimer = window.setInterval(() => dispatch({ type: "tick" }), PLAY_INTERVAL_MS / s.speed);
    } else if (!want && playTimer !== undefined) {
      window.clearInterval(playTimer);
      playTimer = undefined;
    }
  };
  store.subscribe(syncTimer);

  // ---- Keyboard, scoped to the player ------------------------------------------
  root.addEventListener("keydown", (event) => {
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
  });

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

  // Compare columns traced once per (program, columns): stepping never re-traces.
  let columnsKey = "";
  let columns: CompareColumn[] = [];
  const compareColumns = (source: string, configs: readonly CompareConfig[]): CompareColumn[] => {
    const key = JSON.stringify([source, configs]);
    if (key !== columnsKey) {
      columnsKey = key;
      columns = configs.map((config) => ({
        config,
        result: viewResult(
          engine.trace({
            source,
            allocator: config.allocator,
            target: config.target,
            capacity: config.capacity ?? undefined,
            minAlign: config.minAlign ?? undefined,
          }),
        ),
      }));
    }
    return columns;
  };

  const render = (): void => {
    const s = store.getState();
    setText(title, s.compare ? `${s.compare.map((c) => c.allocator).join(" vs ")}` : `${s.allocator} · ${s.target === "64" ? "64-bit" : "wasm32"}`);
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
      renderCompare(
        compare,
        {
          allocators,
          columns: compareColumns(s.tracedSource, s.compare),
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
      root.dataset["ready"] = "true";
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
    if (options.views.has("stats")) renderStats(stats, { series, step, current }, { onSeek: (to) => dispatch({ type: "seek", step: to }) });
    if (options.views.has("cost")) renderCostView(cost, { trace, step, metric: s.costMetric, docsHref: `${traceFormatUrl}#cost` }, dispatch);
    renderNarration(narration, { narration: said, lesson: null }, { onExitLesson: () => undefined });
    if (options.views.has("code")) {
      const focus = codeFocus(trace, op, s.micro);
      renderCodeView(code, {
        path: engine.sourcePath(focus.file) ?? (focus.file === trace.source ? trace.source_path : focus.file),
        source: engine.sourceText(focus.file) ?? `// the source of ${focus.file} is unavailable`,
        currentLine: focus.current,
        touched: focus.touched,
        label: focus.label,
        values: focus.values,
      });
    }
    root.dataset["ready"] = "true";
    updateOpenLink();
  };

  const scheduleRender = frameScheduler(render);
  store.subscribe(scheduleRender);
  new ResizeObserver(scheduleRender).observe(root);
  render();

  return {
    store,
    setVisible(v) {
      visible = v;
      syncTimer(store.getState());
    },
    shared: sharedNow,
  };
}
