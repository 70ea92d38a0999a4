// What the app draws, from its state: the editor and the header's controls,
// then one of the three modes (the single view of one run, compare's
// columns, the sweep's chart), the lesson's narration and the predict
// question. A function of the state (whose runs the controllers traced and
// dispatched) and what the context looks up; it never starts a trace, and
// its only effects are the handlers it is given.

import type { RunConfig } from "./wasm/config";
import { sourceShown, type SourceLookup } from "./wasm/sourceTexts";
import type { TraceView } from "./wasm/traceView";
import { overInstructionsCap, type InstructionsLookup, type InstructionsSource } from "./wasm/listing";
import type { AllocatorInfo, Op, Trace } from "./wasm/types";
import { carrySettings, columnLabels, compareStepText, pairReason, type CompareColumn } from "./model/compare";
import { opCostSummary } from "./model/costs";
import { currentOp, microIndex } from "./model/describe";
import { codeFocus } from "./model/focus";
import { galleryById } from "./model/gallery";
import { departureFrom, LESSONS, lessonById, recordedLesson, triedConfig } from "./model/lessons";
import { narrationAt, narrationErrors, predictsNext, tryProblem, type Narration, type TryAction } from "./model/narration";
import { predictShown } from "./model/predict";
import type { SweepSetup, SweepSpec } from "./model/sweep";
import { caseForOp, X86_REFERENCE } from "./model/x86";
import { stepInView } from "./state/inView";
import type { Action, AppState } from "./state/reducer";
import type { Mounts } from "./mounts";
import { sharedOf } from "./state/shareSync";
import { renderCodeView } from "./views/codeView";
import { renderCompare } from "./views/compare";
import { renderCostView } from "./views/costView";
import { h, markCatchingUp } from "./views/dom";
import { renderInstructions, renderInstructionsToggle, unlinkCode } from "./views/instructions";
import { renderCompareInstructions } from "./views/instructionsCompare";
import type { renderEditor } from "./views/editor";
import { renderNarration } from "./views/narration";
import { renderOpDetails } from "./views/opDetails";
import { renderPredict } from "./views/predict";
import { renderPresentStatement } from "./views/presentStatement";
import { renderSummarySlide } from "./views/summarySlide";
import { summarySlide } from "./model/summarySlide";
import { prepareRun, renderRun, renderRunStepper, runStepText, type RunViewInput } from "./views/runView";
import { isScrubbing, renderStepper, whenScrubSettles } from "./views/stepper";
import { renderSharePanel } from "./views/sharePanel";
import { renderStats } from "./views/stats";
import { renderSweep } from "./views/sweep";
import { renderThemeToggle } from "./views/theme";
import { renderX86Table } from "./views/x86Table";

/** docs/trace-format.md's "Cost" section, rendered as a page of its own (scripts/vite-docs.mjs). */
const COST_DOCS = "docs/trace-format.html#cost";

/** What the app draws besides its state: lookups, settings and the handlers of its effects. */
export interface AppViewContext {
  allocators: readonly AllocatorInfo[];
  /** The program editor's view (views/editor.ts), loaded by the app alone: embeds never fetch it. */
  renderEditor: typeof renderEditor;
  narrations: (source: string) => ReadonlyMap<number, Narration>;
  lines: (source: string) => readonly string[];
  source: (file: string) => SourceLookup;
  sourcePath: (file: string) => string | undefined;
  animate: () => boolean;
  sweepBase: RunConfig;
  dispatch: (a: Action) => void;
  onImportTrace: (text: string) => Promise<string>;
  onExportTrace: () => Promise<Trace | string>;
  onSweepRun: (spec: SweepSpec, setup: SweepSetup) => void;
  onSweepCancel: () => void;
  /** Fetches a recorded program's file and opens it like a lesson. */
  onOpenRecorded: (id: string) => void;
  /** The ops' executed wasm and the compiled code's listing, fetched when the Instructions view first asks. */
  instructions?: InstructionsSource;
  /** The configuration that made the run on screen (the settings may have changed since). */
  shownConfig?: () => RunConfig | undefined;
  /** The program is being typed into, its edit not handed on yet: the run under way waits (Tracer.hold). */
  onTyping?: () => void;
  /** An edit of the program was handed on (after its configure): a held run starts again if it changed nothing. */
  onHandedOn?: () => void;
}

/**
 * A narration's Try-it action: the run on another allocator (as the editor's
 * menu would choose it), compare mode with the run on screen as its first
 * column, or another op.
 */
function tryLessonAction(s: AppState, action: TryAction, dispatch: (a: Action) => void, allocators: readonly AllocatorInfo[]): void {
  switch (action.kind) {
    case "allocator":
      dispatch({ type: "configure", config: triedConfig(s, action.allocator) });
      return;
    case "compare": {
      const here = { allocator: s.allocator, target: s.target, capacity: s.capacity, minAlign: s.minAlign, child: s.child ?? null };
      // Each named column takes the settings its allocator can take, as Compare's own partner does.
      const others = action.allocators.map((allocator) => carrySettings(here, allocator, allocators));
      dispatch({ type: "enterCompare", configs: [here, ...others] });
      return;
    }
    case "step":
      dispatch({ type: "seek", step: action.step });
      return;
  }
}

/** The lesson's own Compare partner, while the run on screen is on the lesson's allocator. */
export function lessonPair(s: AppState): { allocator: string; pair: string; why: string } | undefined {
  const lesson = s.lesson !== null ? lessonById(s.lesson) : undefined;
  const pair = lesson?.compareWith;
  return lesson && pair && lesson.config.allocator === s.allocator ? { allocator: lesson.config.allocator, pair: pair.allocator, why: pair.why } : undefined;
}

/** The lesson's narration for the op in view, and the predict question for the next op. */
function renderLearning(m: Mounts, s: AppState, trace: TraceView, step: number, ctx: AppViewContext): void {
  const narr = ctx.narrations(s.tracedSource);
  // Narration describes the single run: in compare mode it waits (the compare view says so) until compare closes.
  const narration = s.compare === null ? narrationAt(trace, step, narr) : null;
  const lesson = s.lesson !== null ? (lessonById(s.lesson) ?? null) : null;
  const errors = s.narrationHidden ? [] : narrationErrors(s.source);
  // A sweep has no op in view to narrate. Mounts are emptied when unused, so their live regions go too.
  if (s.sweep === null && (lesson || (!s.narrationHidden && (narration || errors.length > 0)))) {
    const known = { allocators: new Set(ctx.allocators.map((a) => a.name)), ops: trace.length };
    const tries = (narration?.tries ?? []).map((action) => ({
      action,
      problem: tryProblem(action, known),
      taken: action.kind === "allocator" && action.allocator === s.allocator,
    }));
    renderNarration(
      m.narration,
      // Until the lesson's program is traced, the map is the previous run's.
      {
        narration,
        lesson,
        departure: lesson ? departureFrom(lesson, s) : null,
        tries,
        errors,
        pending: s.tracing !== null && s.tracedSource !== s.source,
        // The panel keeps the tallest step's height while it narrates steps:
        // not in compare (it shows the lesson's summary alone), nor on a
        // projector (the panel fits the screen: present.css).
        ...(s.present || s.compare !== null ? {} : { all: [...narr.values()] }),
      },
      {
        onExitLesson: () => ctx.dispatch({ type: "exitLesson" }),
        onBackToLesson: () => lesson && ctx.dispatch({ type: "backToLesson", lesson: { id: lesson.id, config: lesson.config } }),
        onTry: (action) => tryLessonAction(s, action, ctx.dispatch, ctx.allocators),
      },
    );
  } else if (m.narration.firstChild) m.narration.replaceChildren();
  const asking = predictShown({ predict: s.predict, single: s.compare === null && s.sweep === null, lessonAsks: predictsNext(trace, step, narr) }, trace, step);
  m.predict.hidden = !asking;
  // While a question is open ←/→ move the guess: the stepper's key hints would say otherwise.
  m.stepper.toggleAttribute("data-predicting", asking);
  m.predictButton.setAttribute("aria-pressed", s.predict ? "true" : "false");
  if (asking) {
    renderPredict(
      m.predict,
      { trace, step, guess: s.guess, revealed: s.revealed, present: s.present },
      {
        onGuess: (address) => ctx.dispatch({ type: "guess", address }),
        onReveal: () => ctx.dispatch({ type: "reveal" }),
        onNext: () => ctx.dispatch({ type: "predictNext" }),
        onStartOver: () => ctx.dispatch({ type: "first" }),
      },
    );
  } else if (m.predict.firstChild) m.predict.replaceChildren();
}

type Mode = "single" | "compare" | "sweep";

/** What the shared panel shows in each mode, as its heading says it. */
export const MODE_HEADINGS: Record<Mode, string> = {
  single: "Memory",
  compare: "Memory, side by side",
  sweep: "Sweep: one run per value",
};

/** Shows one mode's mounts and hides the others'. */
function showMode(m: Mounts, mode: Mode): void {
  m.sweep.hidden = mode !== "sweep";
  m.compare.hidden = mode !== "compare";
  // A sweep is of whole programs: no step to move, no blocks to key.
  m.stepper.hidden = mode === "sweep";
  m.mapLegend.hidden = mode === "sweep";
  // The active mode stays in sight, pressed, whichever view is open.
  m.singleButton.setAttribute("aria-pressed", String(mode === "single"));
  m.compareButton.setAttribute("aria-pressed", String(mode === "compare"));
  m.sweepButton.setAttribute("aria-pressed", String(mode === "sweep"));
  if (m.mapHeading.textContent !== MODE_HEADINGS[mode]) m.mapHeading.textContent = MODE_HEADINGS[mode];
  for (const el of [m.mapSummary, m.map, m.stats, m.costPanel, m.details]) el.hidden = mode !== "single";
  // Dropped, not hidden: their live regions must not linger.
  if (mode !== "sweep" && m.sweep.firstChild) m.sweep.replaceChildren();
  if (mode !== "compare" && m.compare.firstChild) m.compare.replaceChildren();
}

/** The single view's run at `s`'s step, as its map, stepper and (unless `following`) the rest show it. */
function singleRunInput(s: AppState, trace: TraceView, ctx: AppViewContext, following: boolean): RunViewInput {
  const { step } = stepInView(s, trace);
  return {
    state: s,
    trace,
    narration: s.narrationHidden ? null : narrationAt(trace, step, ctx.narrations(s.tracedSource)),
    sourceLines: ctx.lines(s.tracedSource),
    // Following the hand, the map jumps to each step: a glide would draw frames the hand has left.
    animate: !following && ctx.animate(),
    micro: true,
    docsHref: COST_DOCS,
    source: (file) => ({ path: ctx.sourcePath(file) ?? (file === trace.source ? trace.source_path : file), text: sourceShown(ctx.source(file)) }),
    // On a projector the map is a figure: fitted to the bytes in use, every block wide enough to see.
    figure: s.present,
    following,
  };
}

/**
 * The single view at the step in view. While the scrubber is dragged
 * (`following`) only the stepper, the map and its summary follow the hand:
 * the charts, the code, the op's details and the x86 table catch up when
 * the drag settles (renderApp).
 */
function renderSingle(m: Mounts, s: AppState, trace: TraceView, ctx: AppViewContext, following = false): void {
  const { step, op } = stepInView(s, trace);
  if (following) catchingUp(m, true);
  renderRun(
    following ? { stepper: m.stepper, mapSummary: m.mapSummary, map: m.map } : m,
    following ? {} : { stats: renderStats, cost: renderCostView, code: renderCodeView },
    singleRunInput(s, trace, ctx, following),
    ctx.dispatch,
  );
  if (following) return;
  renderInstructionsPanel(m, s, trace, op, ctx);
  // The preset's minimum alignment: the one chosen, else its default (none: no such setting).
  const minAlign = s.minAlign ?? ctx.allocators.find((a) => a.name === trace.allocator)?.minAligns[0];
  renderX86Table(m.x86, { reference: X86_REFERENCE, preset: trace.allocator, currentCase: caseForOp(trace, step, minAlign) });
  renderOpDetails(m.opDetails, {
    op,
    sourceLine: op ? (ctx.lines(s.tracedSource)[op.line - 1] ?? null) : null,
    cost: op ? opCostSummary(trace, op, ctx.allocators.find((a) => a.name === trace.allocator)?.chunkRecord ?? "none") : null,
    micro: microIndex(op, s.micro),
  });
}

/** What the Instructions view shows for `op` of a run of `config` (null: no op yet). */
function instructionsOf(ctx: AppViewContext, trace: TraceView, config: RunConfig | undefined, op: Op | undefined): InstructionsLookup | null {
  if (!op) return null;
  // Over the cost cap (or with no cost module) there is nothing measured to list.
  if (trace.costsUnavailable !== undefined) return { state: "failed", message: `No measured costs: ${trace.costsUnavailable}` };
  const over = overInstructionsCap(trace.length);
  if (over !== undefined) return { state: "failed", message: over };
  if (!ctx.instructions || !config) return { state: "loading", what: "Waiting for the run…" };
  return ctx.instructions.lookup(config, op.index);
}

/**
 * The code panel's Instructions view beside the Rust source, while the view
 * setting is on: the panel then takes the detail grid's whole width.
 */
function renderInstructionsPanel(m: Mounts, s: AppState, trace: TraceView, op: Op | undefined, ctx: AppViewContext): void {
  const panel = m.code.parentElement;
  if (!panel) return;
  renderInstructionsToggle(panel, s.instructions, (shown) => ctx.dispatch({ type: "showInstructions", shown }));
  const wasShown = panel.classList.contains("with-instructions");
  panel.classList.toggle("with-instructions", s.instructions);
  m.details.classList.toggle("with-instructions", s.instructions);
  let mount = panel.querySelector<HTMLElement>(":scope > .instructions-view");
  if (!s.instructions) {
    if (wasShown) {
      mount?.remove();
      unlinkCode(m.code);
    }
    return;
  }
  if (!mount) {
    mount = h("div", { class: "instructions-view", id: "instructions-view", "aria-label": "Instructions", role: "region" });
    m.code.after(mount);
  }
  const focus = codeFocus(trace, op, s.micro);
  const path = ctx.sourcePath(focus.file) ?? (focus.file === trace.source ? trace.source_path : focus.file);
  renderInstructions(
    mount,
    {
      lookup: instructionsOf(ctx, trace, ctx.shownConfig?.(), op),
      column: s.instructionsColumn,
      codePath: path,
      current: focus.current !== null ? { path, line: focus.current } : null,
      shape: op?.shape ?? null,
    },
    { onRetry: () => ctx.instructions?.retry(), onColumn: (column) => ctx.dispatch({ type: "selectInstructionsColumn", column }) },
    m.code,
  );
}

/** Compare mode's side-by-side Instructions, under the columns (created on first use). */
function renderCompareInstructionsPanel(m: Mounts, s: AppState, columns: readonly CompareColumn[] | null, ctx: AppViewContext): void {
  let mount = m.stepper.parentElement?.querySelector<HTMLElement>(":scope > .compare-instructions") ?? null;
  if (s.compare === null || s.sweep !== null || !columns) {
    if (mount) {
      mount.hidden = true;
      mount.replaceChildren();
    }
    return;
  }
  if (!mount) {
    mount = h("div", { class: "compare-instructions" });
    m.stepper.after(mount);
  }
  mount.hidden = false;
  const labels = columnLabels(
    columns.map((c) => c.config),
    ctx.allocators,
  );
  renderCompareInstructions(
    mount,
    {
      shown: s.instructions,
      step: s.step,
      sourceText: (file) => {
        const text = ctx.source(file);
        return text.state === "ready" ? text.text : undefined;
      },
      columns: columns.map((c, i) => {
        const view = c.result.ok ? c.result.trace : null;
        // Each column is a run of its own: its op at the step in view.
        const op = view ? currentOp(view, s.step) : undefined;
        return {
          label: labels[i] ?? c.config.allocator,
          lookup: !s.instructions ? null : view ? instructionsOf(ctx, view, { ...c.config, source: s.tracedSource }, op) : { state: "failed", message: "This column's program did not run." },
        };
      }),
    },
    { onToggle: (shown) => ctx.dispatch({ type: "showInstructions", shown }), onRetry: () => ctx.instructions?.retry() },
  );
}

/**
 * Presentation mode's statement line above the narration (created on first
 * use): the op in view as the program wrote it, what it did, and its
 * measured cost.
 */
function renderStatementLine(m: Mounts, s: AppState, trace: TraceView, ctx: AppViewContext): void {
  let mount = m.narration.parentElement?.querySelector<HTMLElement>(":scope > .present-statement") ?? null;
  if (!s.present || s.sweep !== null) {
    if (mount) mount.hidden = true;
    return;
  }
  if (!mount) {
    mount = h("div", { class: "present-statement" });
    m.narration.before(mount);
  }
  mount.hidden = false;
  const { step, op } = stepInView(s, trace);
  // In compare mode each column's cost is its own: the line names the op alone.
  const cost = op && s.compare === null ? (opCostSummary(trace, op, ctx.allocators.find((a) => a.name === trace.allocator)?.chunkRecord ?? "none")?.text ?? null) : null;
  const lines = ctx.lines(s.tracedSource);
  renderPresentStatement(mount, {
    step,
    total: trace.length,
    statement: op ? (lines[op.line - 1]?.trim() ?? null) : null,
    // The stepper's sentence (the stepper itself is put away on a projector).
    // In compare mode each column says what its allocator did.
    outcome: s.compare === null ? runStepText(s, trace) : "",
    cost,
  });
}

/**
 * Compare's one-slide summary (created on first use, after the compare
 * mount): a button that opens it, and while it is open the slide in place
 * of the columns and the table.
 */
function renderSlide(m: Mounts, s: AppState, columns: readonly CompareColumn[] | null, ctx: AppViewContext): void {
  const parent = m.compare.parentElement;
  if (!parent) return;
  let bar = parent.querySelector<HTMLElement>(":scope > .summary-slide-bar");
  let mount = parent.querySelector<HTMLElement>(":scope > .summary-slide-mount");
  const open = s.compare !== null && columns !== null;
  if (!open) {
    if (bar) bar.hidden = true;
    if (mount) mount.hidden = true;
    return;
  }
  if (!bar || !mount) {
    const button = h("button", { type: "button", class: "compare-button summary-slide-button", "aria-pressed": "false" }, "Summary slide");
    button.addEventListener("click", () => ctx.dispatch({ type: "showSummary", shown: button.getAttribute("aria-pressed") !== "true" }));
    bar = h("div", { class: "summary-slide-bar" }, button);
    mount = h("div", { class: "summary-slide-mount" });
    m.compare.before(bar);
    m.compare.after(mount);
  }
  bar.hidden = false;
  bar.querySelector(".summary-slide-button")?.setAttribute("aria-pressed", String(s.summary));
  mount.hidden = !s.summary;
  m.compare.hidden = s.summary;
  if (!s.summary) return;
  const labels = columnLabels(
    columns.map((c) => c.config),
    ctx.allocators,
  );
  const slide = summarySlide(
    columns.map((c, i) => ({ label: labels[i] ?? c.config.allocator, trace: c.result.ok ? c.result.trace : null })),
    ctx.lines(s.tracedSource),
    s.step,
  );
  renderSummarySlide(mount, slide, s.theme, { onClose: () => ctx.dispatch({ type: "showSummary", shown: false }) });
}

/** How many times renderApp has run per page (keyed by its stepper): a catch-up only draws the latest state. */
const renders = new WeakMap<HTMLElement, number>();

/**
 * Renders the single view's map and stepper alone while the scrubber is
 * dragged, and the whole page once the drag settles: a step of a drag then
 * costs the map's redraw, not the editor's scroll, the code view's and the
 * charts' (each forcing layout and paint). False when the page must be drawn
 * whole now.
 */
function renderFollowingDrag(m: Mounts, s: AppState, ctx: AppViewContext): boolean {
  const generation = (renders.get(m.stepper) ?? 0) + 1;
  renders.set(m.stepper, generation);
  if (!followsDrag(m, s)) {
    whenScrubSettles(m.stepper, null);
    return false;
  }
  renderSingle(m, s, s.trace, ctx, true);
  let frame: number | undefined;
  whenScrubSettles(m.stepper, () => {
    frame ??= requestAnimationFrame(() => {
      // A render since then drew a newer state (or waits for its own drag to settle).
      if (renders.get(m.stepper) !== generation || isScrubbing(m.stepper)) return;
      renderApp(m, s, ctx);
    });
  });
  return true;
}

/** Whether a render of `s` now follows a dragged scrubber (draws the map and stepper alone). */
export function followsDrag(m: Mounts, s: AppState): s is AppState & { trace: TraceView } {
  return s.trace !== null && s.compare === null && s.sweep === null && isScrubbing(m.stepper);
}

/**
 * Derives what a render of `s` following the dragged scrubber will draw
 * (runView.ts's prepareRun), drawing nothing. False when a render of `s` would
 * not follow the drag.
 */
export function prepareFollowingDrag(m: Mounts, s: AppState, ctx: AppViewContext): boolean {
  if (!followsDrag(m, s)) return false;
  prepareRun({ stepper: m.stepper, mapSummary: m.mapSummary, map: m.map }, singleRunInput(s, s.trace, ctx, true));
  return true;
}

/**
 * Marks the views a dragged scrubber leaves at the settled step (the drag
 * draws the map, its summary and the stepper alone): they say so, and show no
 * number the map's would contradict.
 */
function catchingUp(m: Mounts, on: boolean): void {
  for (const lagging of [m.stats, m.cost, m.x86, m.opDetails, m.code, m.narration]) markCatchingUp(lagging, on);
}

export function renderApp(m: Mounts, s: AppState, ctx: AppViewContext): void {
  if (renderFollowingDrag(m, s, ctx)) return;
  catchingUp(m, false);
  const { dispatch } = ctx;
  const op = s.trace ? stepInView(s, s.trace).op : undefined;
  ctx.renderEditor(
    m.editor,
    {
      config: s,
      allocators: ctx.allocators,
      error: s.error,
      currentLine: op && s.source === s.tracedSource ? op.line : null,
      ops: s.trace && s.source === s.tracedSource ? s.trace.length : null,
      lessons: LESSONS.map(({ id, title, summary }) => ({ id, title, summary })),
    },
    {
      onConfigure: (config) => {
        dispatch({ type: "configure", config });
        if (config.source !== undefined) ctx.onHandedOn?.();
      },
      onTyping: () => ctx.onTyping?.(),
      onLesson: (id) => {
        // A recorded program's file is fetched first.
        if (recordedLesson(id)) return ctx.onOpenRecorded(id);
        const lesson = lessonById(id);
        if (lesson) dispatch({ type: "startLesson", lesson: { id: lesson.id, config: lesson.config } });
      },
      // A known behaviour: its program on the allocator it is about, and side
      // by side with the others it names, where it names any.
      onGallery: (id) => {
        const entry = galleryById(id);
        const first = entry?.allocators[0];
        if (!entry || !first) return;
        dispatch({ type: "exitLesson" });
        dispatch({ type: "configure", config: { source: entry.program, ...first } });
        dispatch(entry.allocators.length > 1 ? { type: "enterCompare", configs: entry.allocators } : { type: "exitCompare" });
      },
    },
  );
  renderThemeToggle(m.theme, s.theme, (theme) => dispatch({ type: "setTheme", theme }));
  renderSharePanel(m.share, { state: sharedOf(s), trace: s.trace }, { onImportTrace: ctx.onImportTrace, onExportTrace: ctx.onExportTrace });
  const trace = s.trace;
  if (!trace) return;
  const { step } = stepInView(s, trace);
  // Compare columns run different code: the stepper names the op they all ran,
  // not what the single run's allocator did (nor its micro-steps).
  if (s.compare === null) renderRunStepper(m.stepper, s, trace, true, dispatch);
  else {
    const description = compareStepText(trace, step, ctx.lines(s.tracedSource));
    renderStepper(m.stepper, { step, total: trace.length, playing: s.playing, speed: s.speed, description, micro: null }, dispatch);
  }
  renderLearning(m, s, trace, step, ctx);
  renderStatementLine(m, s, trace, ctx);
  if (s.sweep !== null) {
    showMode(m, "sweep");
    renderSlide(m, s, null, ctx);
    renderCompareInstructionsPanel(m, s, null, ctx);
    renderSweep(
      m.sweep,
      { allocators: ctx.allocators, base: ctx.sweepBase, setup: s.sweep, running: s.sweepRun?.running ?? null, result: s.sweepRun?.result ?? null },
      {
        onRun: ctx.onSweepRun,
        onCancel: ctx.onSweepCancel,
        onOpen: (config) => dispatch({ type: "openConfig", config }),
        onClose: () => dispatch({ type: "closeSweep" }),
      },
    );
  } else if (s.compare !== null) {
    showMode(m, "compare");
    // Until the columns are traced (a few ms) the mount keeps what it showed.
    const columns = s.compareColumns;
    renderCompareInstructionsPanel(m, s, columns, ctx);
    if (!columns) return;
    renderSlide(m, s, columns, ctx);
    renderCompare(
      m.compare,
      {
        allocators: ctx.allocators,
        columns,
        step: s.step,
        animate: ctx.animate(),
        sourceLines: ctx.lines(s.tracedSource),
        why: pairReason(s.compare, ctx.allocators, lessonPair(s)),
        narrationWaits: !s.narrationHidden && (s.lesson !== null || ctx.narrations(s.tracedSource).size > 0),
      },
      {
        onSeek: (to) => dispatch({ type: "seek", step: to }),
        onConfigs: (configs) => dispatch({ type: "setCompare", configs }),
        onExit: () => dispatch({ type: "exitCompare" }),
      },
    );
  } else {
    showMode(m, "single");
    renderSlide(m, s, null, ctx);
    renderCompareInstructionsPanel(m, s, null, ctx);
    renderSingle(m, s, trace, ctx);
  }
}
