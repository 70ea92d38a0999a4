// The embeddable player: the memory map and step controls, optionally the
// code, cost and stats views, for one shared state. The iframe embed
// (embed.ts) and the <bump-lab> element (component.ts) both run it, on the
// app's reducer, controllers and views, with minimal chrome and effects
// scoped to its own root (several on one page stay independent). It traces
// with the trace module, fetches the cost module only when something it
// shows reads costs, and frees its runs when destroyed.

import { configOf } from "./wasm/config";
import { sourceShown, sourceTexts } from "./wasm/sourceTexts";
import { loadSourceText } from "./wasm/load";
import type { TraceModule } from "./wasm/traceModule";
import { startCompareTracer } from "./controller/compare";
import { measureOnPage } from "./controller/costs";
import { bindStepKeys } from "./controller/keyboard";
import { startPlayback } from "./controller/playback";
import { startTracer } from "./controller/tracer";
import { compareStepText } from "./model/describe";
import { stepInView } from "./state/inView";
import { initialState, reducer, type Action, type AppState } from "./state/reducer";
import { createStore, type Store } from "./state/store";
import { frameScheduler, h, setText } from "./views/dom";
import { renderRun, type RunRenderers } from "./views/runView";
import { renderStepper } from "./views/stepper";
import { encodeShare, type SharedState } from "./share/link";

/** Views an embed may show besides the map (the map is always shown). */
export const OPTIONAL_VIEWS = ["code", "cost", "stats"] as const;
export type OptionalView = (typeof OPTIONAL_VIEWS)[number];

/** The program's narration and how to draw it, for a program that has `#>` comments. */
type PlayerNarration = typeof import("./playerNarration");

/**
 * The optional views' modules, each imported only when shown (an embed of the
 * map alone fetches none), and the narration's only for a program that narrates.
 */
async function loadViews(
  views: ReadonlySet<OptionalView>,
  comparing: boolean,
  narrates: boolean,
): Promise<RunRenderers & { compare?: typeof import("./views/compare").renderCompare; narration?: PlayerNarration }> {
  const [code, cost, stats, compare, narration] = await Promise.all([
    !comparing && views.has("code") ? import("./views/codeView") : undefined,
    !comparing && views.has("cost") ? import("./views/costView") : undefined,
    !comparing && views.has("stats") ? import("./views/stats") : undefined,
    comparing ? import("./views/compare") : undefined,
    !comparing && narrates ? import("./playerNarration") : undefined,
  ]);
  return { code: code?.renderCodeView, cost: cost?.renderCostView, stats: stats?.renderStats, compare: compare?.renderCompare, narration };
}

/** Whether the player shows anything that reads costs (so it loads the cost module). */
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
  /**
   * Announced as the embed's name. Without one, a figure with a caption is
   * named by its caption (what a reader of the post sees under it), and
   * anything else is "Bump Lab figure".
   */
  label?: string | null | undefined;
  /**
   * A figure for a post or slide: read-only (compare columns are headed by
   * their allocators, with no setup row or table), each map fitted to the
   * bytes its run uses with no zoom controls. Step controls follow `controls`.
   */
  figure?: boolean;
  /** A figure's caption, shown below it (plain text). */
  caption?: string | null;
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
    const known = OPTIONAL_VIEWS.find((x) => x === v.trim().toLowerCase());
    if (known) out.add(known);
  }
  return out;
}

/** Players made on this page, for ids unique among them (a caption's id). */
let players = 0;

export function startPlayer(module: TraceModule, root: HTMLElement, shared: SharedState, options: PlayerOptions): Player {
  const comparing = shared.compare !== null;
  const { source, allocator, target, capacity, minAlign, child, compare, step } = shared;
  // A link taken inside an op opens the figure at that micro-step (dropped once traced if the op has no such step).
  const micro = shared.micro ?? null;
  const store = createStore(reducer, initialState({ source, allocator, target, capacity, minAlign, child: child ?? null, compare, pendingStep: step, micro }));
  const { dispatch } = store;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
  const life = new AbortController();
  let destroyed = false;
  let markReady: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (markReady = resolve));

  // ---- DOM ------------------------------------------------------------------
  const open = h("a", { class: "bl-open", href: options.appUrl, target: "_blank", rel: "noopener" }, "Open in Bump Lab ↗");
  const title = h("span", { class: "bl-title" });
  // "Tracing… N of M ops" while a long run is in slices; empty otherwise.
  const status = h("span", { class: "bl-status", role: "status" });
  const error = h("p", { class: "bl-error", role: "alert", hidden: true });
  const mounts = {
    mapSummary: h("div", { class: "map-summary" }),
    map: h("div", { class: "map-container bl-map", id: "memory-map" }),
    stepper: h("div", { class: "stepper" }),
    stats: h("div", { class: "bl-stats" }),
    cost: h("div", { class: "cost-view bl-cost", id: "cost-view" }, h("p", { class: "cost-note" }, "Measuring costs…")),
    code: h("div", { class: "code-view bl-code" }),
  };
  const compareMount = h("div", { class: "bl-compare" });
  // The program's `#>` narration at the step in view (hidden when it has none).
  const narration = h("div", { class: "bl-narration" });
  const shows = (v: OptionalView): boolean => !comparing && options.views.has(v);
  const figure = options.figure === true;
  const captionText = options.caption?.trim() ?? "";
  const captionId = `bl-caption-${++players}`;
  const caption = figure && captionText !== "" ? h("figcaption", { class: "bl-caption", id: captionId }, captionText) : null;
  // An explicit label wins; else a captioned figure is named by its caption
  // (aria-label would hide the caption from the figure's accessible name).
  const name: Record<string, string> =
    options.label != null ? { "aria-label": options.label } : caption ? { "aria-labelledby": captionId } : { "aria-label": "Bump Lab figure" };
  root.replaceChildren(
    h(
      figure ? "figure" : "div",
      figure ? { class: "bl-player is-figure", ...name } : { class: "bl-player", role: "region", ...name },
      h("div", { class: "bl-head" }, title, status, open),
      error,
      comparing ? compareMount : null,
      comparing ? null : mounts.mapSummary,
      comparing ? null : mounts.map,
      comparing ? null : narration,
      options.controls ? mounts.stepper : null,
      shows("stats") ? mounts.stats : null,
      shows("cost") ? mounts.cost : null,
      shows("code") ? mounts.code : null,
      caption,
    ),
  );

  // ---- Effects ----------------------------------------------------------------
  // The cost module is fetched only when something shown reads costs, and
  // only after the first map: it never competes with what that needs.
  const measure = needsCosts(options.views, comparing) ? (c: Parameters<typeof measureOnPage>[0]) => ready.then(() => measureOnPage(c)) : undefined;
  const onProgress = (executed: number, total: number): void => setText(status, tracingText(executed, total));
  store.subscribe((s) => setText(status, s.tracing ? tracingText(s.tracing.executed, s.tracing.total) : ""));
  const tracer = startTracer(module, store, measure ? { measure } : {});
  const columns = startCompareTracer(module, store, { ...(measure ? { measure } : {}), onProgress });
  const playback = startPlayback(store);
  bindStepKeys(root, dispatch, { micro: false, play: false, signal: life.signal });

  // The link follows the step; encoding is async, so only the latest result is kept.
  const sharedNow = (): SharedState => {
    const s = store.getState();
    const at: SharedState = { ...shared, ...configOf(s), step: s.step, compare: s.compare };
    if (s.micro !== null) at.micro = s.micro;
    else delete at.micro;
    return at;
  };
  let linkRevision = 0;
  const updateOpenLink = (): void => {
    const revision = ++linkRevision;
    void encodeShare(sharedNow()).then((hash) => {
      if (revision === linkRevision) open.href = `${options.appUrl}#${hash}`;
    });
  };

  // ---- Rendering ------------------------------------------------------------------
  let views: Awaited<ReturnType<typeof loadViews>> | null = null;
  const sourceOf = sourceTexts({ sourcePath: (name) => module.sourcePath(name), load: loadSourceText, onLoaded: () => scheduleRender() });
  const render = (): void => {
    if (destroyed) return;
    const s = store.getState();
    setText(title, s.compare ? s.compare.map((c) => c.allocator).join(" vs ") : `${s.allocator} · ${s.target === "64" ? "64-bit" : "wasm32"}`);
    if (s.error && !s.trace) {
      error.hidden = false;
      setText(error, `${s.error.line}:${s.error.column}: ${s.error.message}`);
      markReady();
    }
    const trace = s.trace;
    if (!views || !trace) return;
    if (s.compare) {
      // The stepper names the op every column ran, not what the single run's allocator did.
      if (options.controls) {
        const description = compareStepText(trace, s.step, s.tracedSource.split("\n"));
        renderStepper(mounts.stepper, { step: stepInView(s, trace).step, total: trace.length, playing: s.playing, speed: s.speed, description, micro: null }, dispatch);
      }
      const shown = s.compareColumns;
      if (!shown || !views.compare) return;
      views.compare(
        compareMount,
        { allocators: module.allocators(), columns: shown, step: s.step, animate: !reducedMotion.matches, sourceLines: s.tracedSource.split("\n"), figure },
        { onSeek: (to) => dispatch({ type: "seek", step: to }), onConfigs: (configs) => dispatch({ type: "setCompare", configs }), onExit: () => undefined },
      );
      columns.afterRender();
    } else {
      const narrates = views.narration;
      const said = narrates ? narrates.narrationAt(trace, s.step, narrates.parseNarration(source)) : null;
      renderRun(
        { ...mounts, stepper: options.controls ? mounts.stepper : undefined },
        views,
        {
          state: s,
          trace,
          narration: said,
          animate: !reducedMotion.matches,
          micro: true,
          docsHref: new URL("docs/trace-format.html#cost", options.appUrl).href,
          source: (file) => ({ path: module.sourcePath(file) ?? (file === trace.source ? trace.source_path : file), text: sourceShown(sourceOf(file)) }),
          figure,
        },
        dispatch,
      );
      narrates?.renderNarration(narration, { narration: said, lesson: null }, { onExitLesson: () => undefined });
      tracer.afterRender();
    }
    root.dataset["ready"] = "true";
    markReady();
    updateOpenLink();
  };
  const scheduleRender = frameScheduler(render);
  store.subscribe(scheduleRender);
  const resize = new ResizeObserver(scheduleRender);
  resize.observe(root);
  loadViews(options.views, comparing, source.includes("#>")).then(
    (loaded) => {
      views = loaded;
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
  tracer.retrace();

  return {
    store,
    ready,
    setVisible: (v) => playback.setVisible(v),
    shared: sharedNow,
    destroy() {
      if (destroyed) return;
      destroyed = true;
      life.abort();
      playback.destroy();
      resize.disconnect();
      // Nothing drawn may read a freed run: the root is emptied first.
      root.replaceChildren();
      delete root.dataset["ready"];
      tracer.destroy();
      columns.destroy();
      markReady();
    },
  };
}
