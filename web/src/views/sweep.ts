// The sweep view: one program across the values of one parameter, one point
// per configuration on a chart of the chosen metric. The setup (parameter,
// values, a random mix's settings) is edited here and handed to `onRun`; the
// app runs the sweep and passes back its progress and the points so far.
// Hovering or focusing a point shows all its figures; clicking it (or Enter)
// opens that configuration in the main view. The chart exports as SVG or PNG
// and the figures as CSV.

import "./sweep.css";
import { axisBottom, axisLeft } from "d3-axis";
import { scaleLinear, scalePoint } from "d3-scale";
import { select } from "d3-selection";
import { line } from "d3-shape";
import type { AllocatorInfo } from "../wasm/types";
import { validateRandomMix, type RandomMixOptions } from "../model/generators";
import { metricHeading } from "../model/metrics";
import {
  defaultValues,
  figureText,
  generatorOf,
  isCategorical,
  isSweepParam,
  metricInfo,
  metricOf,
  paramName,
  parseValues,
  pointLabel,
  pointText,
  specOf,
  sweepCsv,
  sweepUnavailable,
  SWEEP_METRICS,
  SWEEP_PARAMS,
  type SweepConfig,
  type SweepMetric,
  type SweepParam,
  type SweepPointResult,
  type SweepResult,
  type SweepSetup,
  type SweepSpec,
} from "../model/sweep";
import { download, exportFileName, standaloneSvg, svgFileText, svgToPng } from "../share/export";
import { h, setText } from "./dom";

export interface SweepViewData {
  allocators: readonly AllocatorInfo[];
  /** The main view's configuration: what every point starts from. */
  base: SweepConfig;
  /** The sweep in the app state (last run, or opened from a link). */
  setup: SweepSetup;
  /** Configurations run of how many, while a sweep runs; null: not running. */
  running: { done: number; total: number } | null;
  /** The points run so far (all of them once done); null: nothing run yet. */
  result: SweepResult | null;
}

export interface SweepHandlers {
  onRun(spec: SweepSpec, setup: SweepSetup): void;
  onCancel(): void;
  onOpen(config: SweepConfig): void;
  onClose(): void;
}

/** The plot's own height: the chart's is this plus its margins, whose bottom grows with slanted tick labels. */
const PLOT_HEIGHT = 184;
const MARGIN = { top: 26, right: 20, left: 72 };
/** The x tick labels' font size (.sweep-svg) and the width of one of their characters, at most. */
const TICK_FONT_PX = 11;
const TICK_CHAR_PX = 6.6;
/** Room under the labels for the axis title. */
const TITLE_ROOM = 26;
const SVG_NS = "http://www.w3.org/2000/svg";

const X_TITLES: Record<SweepParam, string> = {
  minAlign: "MIN_ALIGN (bytes)",
  target: "target",
  preset: "preset",
  capacity: "first chunk size (bytes)",
  generatorSize: "random mix: sizes (bytes)",
  generatorAlign: "random mix: alignments (bytes)",
};

interface Refs {
  param: HTMLSelectElement;
  values: HTMLInputElement;
  valuesHint: HTMLElement;
  mix: HTMLElement;
  ops: HTMLInputElement;
  seed: HTMLInputElement;
  otherRange: HTMLInputElement;
  otherRangeLabel: HTMLElement;
  run: HTMLButtonElement;
  cancel: HTMLButtonElement;
  formError: HTMLElement;
  progress: HTMLElement;
  progressBar: HTMLElement;
  progressText: HTMLElement;
  status: HTMLElement;
  metric: HTMLSelectElement;
  chart: HTMLElement;
  card: HTMLElement;
  errors: HTMLElement;
  exports: HTMLButtonElement[];
  /** The setup the inputs were last filled from: a new one (a link) refills them. */
  shownSetup: SweepSetup | null;
  /** The allocator the form's message was last checked against: a MIN_ALIGN sweep needs one that has the setting. */
  shownAllocator: string | null;
  data: SweepViewData;
  handlers: SweepHandlers;
  /** What the chart was drawn from, so an unchanged render leaves focus alone. */
  drawn: { result: SweepResult | null; metric: string; width: number; points: number } | null;
}

const views = new WeakMap<HTMLElement, Refs>();
let instances = 0;

/** The random mix's settings from the form, or why not (only read for a random-mix sweep). */
function mixFromForm(refs: Refs, param: SweepParam, base: RandomMixOptions): { ok: true; options: RandomMixOptions } | { ok: false; error: string } {
  const [lo = "", hi = ""] = refs.otherRange.value.trim().split("-");
  const size = param === "generatorSize";
  const checked = validateRandomMix({
    ops: refs.ops.value,
    seed: refs.seed.value,
    // The swept range is replaced per point: the base's stands in for the check.
    minSize: size ? String(base.minSize) : lo,
    maxSize: size ? String(base.maxSize) : hi,
    minAlign: size ? lo : String(base.minAlign),
    maxAlign: size ? hi : String(base.maxAlign),
  });
  return checked.ok ? checked : { ok: false, error: checked.errors.map((e) => e.message).join(" ") };
}

function fillForm(refs: Refs, setup: SweepSetup): void {
  refs.param.value = setup.param;
  refs.values.value = setup.values.join(", ");
  const mix = setup.generator ?? generatorOf(refs.data.base.source);
  refs.ops.value = String(mix.ops);
  refs.seed.value = String(mix.seed);
  refs.otherRange.value = setup.param === "generatorSize" ? `${mix.minAlign}-${mix.maxAlign}` : `${mix.minSize}-${mix.maxSize}`;
  showMixFields(refs, setup.param);
}

function showMixFields(refs: Refs, param: SweepParam): void {
  const mix = param === "generatorSize" || param === "generatorAlign";
  refs.mix.hidden = !mix;
  setText(refs.otherRangeLabel, param === "generatorSize" ? "Alignments" : "Sizes");
  setText(
    refs.valuesHint,
    param === "minAlign" || param === "capacity"
      ? "Comma-separated; 1..16 doubles, 64..512 by 64 steps."
      : mix
        ? "Ranges such as 1-8, 1-64."
        : param === "preset"
          ? "Preset names, comma-separated."
          : "64 and/or wasm32.",
  );
}

function run(refs: Refs): void {
  const { data, handlers } = refs;
  const param = isSweepParam(refs.param.value) ? refs.param.value : "minAlign";
  const unavailable = sweepUnavailable(param, data.base, data.allocators);
  if (unavailable !== null) {
    setText(refs.formError, unavailable);
    return;
  }
  const parsed = parseValues(param, refs.values.value, data.allocators);
  if (!parsed.ok) {
    setText(refs.formError, parsed.error);
    return;
  }
  const setup: SweepSetup = { param, values: parsed.values };
  if (param === "generatorSize" || param === "generatorAlign") {
    const mix = mixFromForm(refs, param, data.setup.generator ?? generatorOf(data.base.source));
    if (!mix.ok) {
      setText(refs.formError, mix.error);
      return;
    }
    setup.generator = mix.options;
  }
  const spec = specOf(setup, data.base, data.allocators);
  if (!spec.ok) {
    setText(refs.formError, spec.error);
    return;
  }
  setText(refs.formError, "");
  refs.shownSetup = setup;
  handlers.onRun(spec.spec, setup);
  // Said at once: the last sweep's "N configurations run" must not stand for this one until the next frame.
  setText(refs.status, "Running the sweep…");
}

function build(mount: HTMLElement, data: SweepViewData, handlers: SweepHandlers): Refs {
  const n = ++instances;
  const id = (what: string): string => `sweep-${n}-${what}`;
  const refs = { data, handlers, shownSetup: null, shownAllocator: null, drawn: null } as unknown as Refs;

  refs.param = h("select", { id: id("param") }, ...SWEEP_PARAMS.map((p) => h("option", { value: p.param }, p.label)));
  refs.values = h("input", { id: id("values"), type: "text", class: "sweep-values", spellcheck: "false", autocomplete: "off" });
  refs.valuesHint = h("span", { class: "sweep-hint", id: id("values-hint") });
  refs.values.setAttribute("aria-describedby", refs.valuesHint.id);
  refs.ops = h("input", { id: id("ops"), type: "text", inputmode: "numeric", class: "sweep-small" });
  refs.seed = h("input", { id: id("seed"), type: "text", inputmode: "numeric", class: "sweep-small" });
  refs.otherRange = h("input", { id: id("other"), type: "text", class: "sweep-small" });
  refs.otherRangeLabel = h("label", { for: id("other") }, "Sizes");
  refs.mix = h(
    "div",
    { class: "sweep-mix", role: "group", "aria-label": "Random mix settings" },
    h("div", { class: "sweep-field" }, h("label", { for: id("ops") }, "Ops"), refs.ops),
    h("div", { class: "sweep-field" }, refs.otherRangeLabel, refs.otherRange),
    h("div", { class: "sweep-field" }, h("label", { for: id("seed") }, "Seed"), refs.seed),
  );
  refs.run = h("button", { type: "button", class: "sweep-button sweep-run" }, "Run sweep");
  refs.cancel = h("button", { type: "button", class: "sweep-button" }, "Cancel");
  const close = h("button", { type: "button", class: "sweep-button sweep-close" }, "Close sweep");
  refs.formError = h("p", { class: "sweep-form-error", role: "alert" });

  refs.progressBar = h("div", { class: "sweep-progress-bar" });
  refs.progressText = h("span", { class: "sweep-progress-text" });
  refs.progress = h(
    "div",
    { class: "sweep-progress", role: "progressbar", "aria-label": "Sweep progress", "aria-valuemin": 0 },
    h("div", { class: "sweep-progress-track" }, refs.progressBar),
    refs.progressText,
  );
  refs.status = h("p", { class: "sweep-status", role: "status", "aria-live": "polite" });

  refs.metric = h("select", { id: id("metric") }, ...SWEEP_METRICS.map((m) => h("option", { value: m.metric }, m.label)));
  refs.chart = h("div", { class: "sweep-chart" });
  refs.card = h("div", { class: "sweep-card", id: id("card"), hidden: true });
  refs.errors = h("ul", { class: "sweep-errors", "aria-label": "Configurations whose program failed" });
  const exportButton = (label: string, onClick: () => Promise<void> | void): HTMLButtonElement => {
    const b = h("button", { type: "button", class: "sweep-button sweep-export" }, label);
    b.addEventListener("click", () => {
      Promise.resolve(onClick()).catch((error: unknown) => setText(refs.status, `${label} failed: ${error instanceof Error ? error.message : String(error)}`));
    });
    return b;
  };
  refs.exports = [
    exportButton("Export SVG", () => exportChart(refs, false)),
    exportButton("Export PNG", () => exportChart(refs, true)),
    exportButton("Export CSV", () => {
      const result = refs.data.result;
      if (!result) return;
      download(new Blob([sweepCsv(result)], { type: "text/csv" }), fileName(refs, "csv"));
      setText(refs.status, "Exported the sweep as CSV.");
    }),
  ];

  refs.param.addEventListener("change", () => {
    const param = isSweepParam(refs.param.value) ? refs.param.value : "minAlign";
    refs.values.value = defaultValues(param, refs.data.base, refs.data.allocators).join(", ");
    const mix = refs.data.setup.generator ?? generatorOf(refs.data.base.source);
    refs.otherRange.value = param === "generatorSize" ? `${mix.minAlign}-${mix.maxAlign}` : `${mix.minSize}-${mix.maxSize}`;
    showMixFields(refs, param);
    // Said on choosing it, before Run: this allocator has no such setting to sweep.
    setText(refs.formError, sweepUnavailable(param, refs.data.base, refs.data.allocators) ?? "");
  });
  refs.values.addEventListener("keydown", (event) => {
    if (event.key === "Enter") {
      event.preventDefault();
      run(refs);
    }
  });
  refs.run.addEventListener("click", () => run(refs));
  refs.cancel.addEventListener("click", () => refs.handlers.onCancel());
  close.addEventListener("click", () => refs.handlers.onClose());
  refs.metric.addEventListener("change", () => draw(refs));

  const root = h(
    "div",
    { class: "sweep" },
    h(
      "div",
      { class: "sweep-setup", role: "group", "aria-label": "Sweep setup" },
      h("div", { class: "sweep-field" }, h("label", { for: id("param") }, "Parameter"), refs.param),
      h("div", { class: "sweep-field sweep-field-wide" }, h("label", { for: id("values") }, "Values"), refs.values, refs.valuesHint),
      refs.mix,
      h("div", { class: "sweep-actions" }, refs.run, refs.cancel, close),
    ),
    refs.formError,
    refs.progress,
    refs.status,
    h(
      "div",
      { class: "sweep-chart-head" },
      h("div", { class: "sweep-field" }, h("label", { for: id("metric") }, "Metric"), refs.metric),
      h("div", { class: "sweep-exports", role: "group", "aria-label": "Export the sweep" }, ...refs.exports),
    ),
    h("div", { class: "sweep-chart-wrap" }, refs.chart, refs.card),
    refs.errors,
  );
  root.dataset["view"] = "sweep";
  mount.replaceChildren(root);
  // The chart is drawn at its box's width: a resized window redraws it (draw skips an unchanged width).
  new ResizeObserver(() => draw(refs)).observe(refs.chart);
  return refs;
}

function fileName(refs: Refs, extension: string): string {
  const param = refs.data.result?.param ?? refs.data.setup.param;
  return exportFileName(`sweep-${paramName(param)}`, refs.data.base.allocator, null, extension);
}

async function exportChart(refs: Refs, png: boolean): Promise<void> {
  const svg = refs.chart.querySelector<SVGSVGElement>("svg");
  if (!svg) {
    setText(refs.status, "There is no chart to export yet: run the sweep.");
    return;
  }
  const surface = getComputedStyle(svg.closest(".panel") ?? document.body).backgroundColor;
  const metric = metricInfo(currentMetric(refs)).label;
  const copy = standaloneSvg(svg, { title: `Bump Lab sweep: ${metric} by ${paramName(refs.data.result?.param ?? refs.data.setup.param)}`, background: surface || null });
  const text = svgFileText(copy);
  if (png) download(await svgToPng(text, Number(copy.getAttribute("width")), Number(copy.getAttribute("height"))), fileName(refs, "png"));
  else download(new Blob([text], { type: "image/svg+xml" }), fileName(refs, "svg"));
  setText(refs.status, `Exported the chart as ${png ? "PNG" : "SVG"}.`);
}

function currentMetric(refs: Refs): SweepMetric {
  return SWEEP_METRICS.find((m) => m.metric === refs.metric.value)?.metric ?? "instructions";
}

function showCard(refs: Refs, result: SweepPointResult, x: number, y: number): void {
  const card = refs.card;
  card.replaceChildren(
    h("strong", {}, result.point.label),
    result.ok
      ? h(
          "dl",
          {},
          ...[...SWEEP_METRICS, { metric: "failed" as const, label: metricHeading("failed") }].flatMap((m) => [
            h("dt", {}, m.label),
            h("dd", {}, figureText(result.figures[m.metric])),
          ]),
        )
      : h("p", { class: "sweep-card-error" }, `Line ${result.error.line}, column ${result.error.column}: ${result.error.message}`),
    h(
      "p",
      { class: "sweep-card-hint" },
      h("span", { class: "key-hint" }, "Click or press Enter to open it."),
      h("span", { class: "touch-hint" }, "Tap it to open it."),
    ),
  );
  card.hidden = false;
  // Beside the point, kept inside the chart's box.
  const width = refs.chart.clientWidth || 600;
  card.style.left = `${Math.min(Math.max(0, x + 12), Math.max(0, width - 230))}px`;
  card.style.top = `${Math.max(0, y - 20)}px`;
}

function draw(refs: Refs): void {
  const result = refs.data.result;
  const metric = currentMetric(refs);
  const width = Math.max(320, Math.round(refs.chart.clientWidth || 640));
  const drawnFor = { result, metric, width, points: result?.points.length ?? 0 };
  const d = refs.drawn;
  if (d && d.result === drawnFor.result && d.metric === metric && d.width === width && d.points === drawnFor.points) return;
  refs.drawn = drawnFor;
  refs.card.hidden = true;

  const points = result?.points ?? [];
  if (!result || points.length === 0) {
    refs.chart.replaceChildren(h("p", { class: "sweep-empty" }, result ? "No configuration ran." : "Choose a parameter and its values, then run the sweep."));
    refs.errors.replaceChildren();
    for (const b of refs.exports) b.disabled = true;
    return;
  }
  for (const b of refs.exports) b.disabled = false;
  const info = metricInfo(metric);
  const innerW = width - MARGIN.left - MARGIN.right;
  const innerH = PLOT_HEIGHT;
  // Every value of the sweep has its place, run yet or not, so points do not shift as they arrive.
  const labels = pointLabels(refs, result);
  const x = scalePoint<string>().domain(labels).range([0, innerW]).padding(0.5);
  // Ticks name the value alone; the axis title names the parameter.
  const prefix = `${paramName(result.param)} `;
  const tick = (label: string): string => (label.startsWith(prefix) ? label.slice(prefix.length) : label);
  const slant = tickSlant(labels.map(tick), x.step());
  const marginBottom = slant.drop + TITLE_ROOM;
  const height = MARGIN.top + innerH + marginBottom;
  const values = points.map((p) => metricOf(p, metric));
  const top = Math.max(1, ...values.filter((v): v is number => v !== null));
  const y = scaleLinear().domain([0, top]).nice().range([innerH, 0]);
  const categorical = isCategorical(result.param);

  const svg = document.createElementNS(SVG_NS, "svg");
  const sel = select(svg)
    .attr("class", "sweep-svg")
    .attr("width", width)
    .attr("height", height)
    .attr("viewBox", `0 0 ${width} ${height}`)
    .attr("role", "group")
    .attr("aria-label", `${info.label} by ${paramName(result.param)}: one ${categorical ? "bar" : "point"} per configuration`);
  const plot = sel.append("g").attr("transform", `translate(${MARGIN.left},${MARGIN.top})`);
  plot
    .append("g")
    .attr("class", "axis axis-y")
    .attr("aria-hidden", "true")
    .call(axisLeft(y).ticks(5).tickFormat((v) => Number(v).toLocaleString("en-US")));
  const xAxis = plot
    .append("g")
    .attr("class", "axis axis-x")
    .attr("aria-hidden", "true")
    .attr("transform", `translate(0,${innerH})`)
    .call(axisBottom(x).tickFormat(tick));
  if (slant.angle > 0) {
    // Slanted far enough that neighbouring labels, a step apart, clear each other (see tickSlant).
    xAxis
      .selectAll("text")
      .attr("transform", `rotate(-${slant.angle})`)
      .attr("text-anchor", "end")
      .attr("dx", "-0.5em")
      .attr("dy", "0.35em")
      .attr("data-angle", String(slant.angle));
  }
  plot
    .append("text")
    .attr("class", "axis-title")
    .attr("x", innerW / 2)
    .attr("y", innerH + marginBottom - 8)
    .attr("text-anchor", "middle")
    .attr("aria-hidden", "true")
    .text(X_TITLES[result.param]);
  plot.append("text").attr("class", "axis-title").attr("x", -MARGIN.left + 4).attr("y", -12).attr("aria-hidden", "true").text(info.label);

  const xOf = (p: SweepPointResult): number => x(p.point.label) ?? 0;
  // Amounts (alignments, sizes) lie on a scale, so a line shows the trend
  // between them; presets and targets are categories with no order, so each
  // stands alone as a bar and nothing joins them.
  if (!categorical) {
    const drawnLine = line<SweepPointResult>()
      .defined((p) => metricOf(p, metric) !== null)
      .x(xOf)
      .y((p) => y(metricOf(p, metric) ?? 0));
    plot.append("path").attr("class", "sweep-line").attr("aria-hidden", "true").attr("d", drawnLine(points) ?? "");
  }
  const barWidth = Math.max(4, Math.min(40, x.step() * 0.6));
  const cardId = refs.card.id;
  points.forEach((p, i) => {
    const v = values[i] ?? null;
    const cx = xOf(p);
    const cy = v === null ? innerH : y(v);
    const g = plot
      .append("g")
      .attr("class", p.ok ? "sweep-point" : "sweep-point sweep-point-error")
      .attr("transform", `translate(${cx},${cy})`)
      .attr("tabindex", 0)
      .attr("role", "button")
      .attr("aria-label", pointText(p, metric))
      .attr("aria-describedby", cardId)
      .attr("data-value", p.point.value)
      .attr("data-metric-value", v === null ? "" : String(v));
    if (p.ok && categorical) {
      // The bar runs from the value down to zero: the group sits at the value.
      g.append("rect")
        .attr("class", "sweep-bar")
        .attr("x", -barWidth / 2)
        .attr("y", 0)
        .attr("width", barWidth)
        .attr("height", Math.max(0, innerH - cy));
    } else if (p.ok) g.append("circle").attr("r", 6);
    else g.append("path").attr("d", "M-6,-6L6,6M6,-6L-6,6");
    // A larger invisible target for the pointer.
    g.append("circle").attr("class", "sweep-hit").attr("r", 12);
    const node = g.node();
    if (!node) return;
    const show = (): void => showCard(refs, p, MARGIN.left + cx, MARGIN.top + cy);
    node.addEventListener("mouseenter", show);
    node.addEventListener("focus", show);
    node.addEventListener("mouseleave", () => {
      if (document.activeElement !== node) refs.card.hidden = true;
    });
    node.addEventListener("blur", () => (refs.card.hidden = true));
    node.addEventListener("click", () => refs.handlers.onOpen(p.point.config));
    node.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        refs.handlers.onOpen(p.point.config);
      } else if (event.key === "ArrowLeft" || event.key === "ArrowRight" || event.key === "Home" || event.key === "End") {
        // Arrows walk the points (and so do not step the main view behind the sweep).
        event.preventDefault();
        const all = [...refs.chart.querySelectorAll<SVGGElement>(".sweep-point")];
        const to = event.key === "Home" ? 0 : event.key === "End" ? all.length - 1 : i + (event.key === "ArrowRight" ? 1 : -1);
        all[Math.min(Math.max(0, to), all.length - 1)]?.focus();
      }
    });
  });
  refs.chart.replaceChildren(svg);

  const failed = points.filter((p): p is Extract<SweepPointResult, { ok: false }> => !p.ok);
  refs.errors.replaceChildren(
    ...failed.map((p) => h("li", {}, h("strong", {}, p.point.label), `: line ${p.error.line}, column ${p.error.column}: ${p.error.message}`)),
  );
}

/**
 * How far the x tick labels lean, in degrees (0: level), and how far below
 * the axis they reach. Level labels fit when the longest is narrower than
 * the step between ticks. Slanted ones are parallel strips one font size
 * tall whose anchors are a step apart, so they stand step · sin(angle)
 * apart: the angle is the least that leaves a line's height between them
 * (35° at least, so the text reads; 90° at most, past which nothing helps).
 */
export function tickSlant(ticks: readonly string[], step: number): { angle: number; drop: number } {
  const longest = Math.max(0, ...ticks.map((t) => t.length)) * TICK_CHAR_PX;
  // The tick mark and d3's padding above the text.
  const under = 9;
  if (longest + 8 <= step) return { angle: 0, drop: under + TICK_FONT_PX + 6 };
  const needed = (Math.asin(Math.min(1, (TICK_FONT_PX * 1.4) / Math.max(step, 1))) * 180) / Math.PI;
  const angle = Math.min(90, Math.max(35, Math.ceil(needed / 5) * 5));
  const rad = (angle * Math.PI) / 180;
  return { angle, drop: Math.ceil(under + longest * Math.sin(rad) + TICK_FONT_PX * Math.cos(rad) + 6) };
}

/** The chart's x domain: the labels of every value swept, from the points run and the setup. */
function pointLabels(refs: Refs, result: SweepResult): string[] {
  const labels = result.points.map((p) => p.point.label);
  if (result.points.length >= result.total) return labels;
  // Not all run yet: the rest are named by the setup the sweep was started from.
  const setup = refs.shownSetup ?? refs.data.setup;
  const spec = specOf(setup, refs.data.base, refs.data.allocators);
  if (!spec.ok || spec.spec.values.length !== result.total) return labels;
  return [...labels, ...setup.values.slice(labels.length).map((v) => pointLabel(result.param, v))];
}

export function renderSweep(mount: HTMLElement, data: SweepViewData, handlers: SweepHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.chart)) {
    refs = build(mount, data, handlers);
    views.set(mount, refs);
  }
  refs.data = data;
  refs.handlers = handlers;
  const newSetup = refs.shownSetup !== data.setup && JSON.stringify(refs.shownSetup) !== JSON.stringify(data.setup);
  if (newSetup) {
    refs.shownSetup = data.setup;
    fillForm(refs, data.setup);
  }
  if (newSetup || refs.shownAllocator !== data.base.allocator) {
    refs.shownAllocator = data.base.allocator;
    // A sweep this allocator or version cannot run (a link's, or MIN_ALIGN
    // after switching to a preset without it) says why, where Run would.
    const spec = specOf(data.setup, data.base, data.allocators);
    setText(refs.formError, spec.ok ? "" : spec.error);
  }

  const running = data.running;
  refs.run.disabled = running !== null;
  refs.cancel.disabled = running === null;
  refs.progress.hidden = running === null;
  if (running) {
    refs.progress.setAttribute("aria-valuemax", String(running.total));
    refs.progress.setAttribute("aria-valuenow", String(running.done));
    const text = `${running.done} of ${running.total} configurations`;
    refs.progress.setAttribute("aria-valuetext", text);
    setText(refs.progressText, text);
    refs.progressBar.style.width = `${running.total > 0 ? (100 * running.done) / running.total : 0}%`;
  }
  const result = data.result;
  setText(
    refs.status,
    // The progress bar counts; a live region repeating it each point would chatter.
    running
      ? "Running the sweep…"
      : result === null || result.total === 0
        ? ""
        : result.cancelled
          ? `Cancelled after ${result.points.length} of ${result.total} configurations.`
          : `${result.total} configurations run${failedNote(result)}.`,
  );
  draw(refs);
}

function failedNote(result: SweepResult): string {
  const failed = result.points.filter((p) => !p.ok).length;
  return failed === 0 ? "" : `, ${failed} failed (shown at their point)`;
}
