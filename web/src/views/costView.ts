// The cost chart: one bar per op (or per bin of ops in a long program), its
// height the op's measured wasm instructions or branches, the fast part and
// the slow part stacked, a running total on a second axis, the current op
// highlighted. A bar jumps to its op (click, or Enter on the focused bar);
// the bars are one roving-tabindex group moved with the arrow keys. Drawn
// from (trace, step, metric) alone.

import { axisBottom, axisLeft, axisRight } from "d3-axis";
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { select, type Selection } from "d3-selection";
import type { TraceView } from "../wasm/traceView";
import {
  notComparedCount,
  barIndexOf,
  baselineLabel,
  COST_MODEL,
  costBars,
  crateLabel,
  hasCosts,
  mismatchesFor,
  mismatchOps,
  mismatchText,
  plural,
  realRan,
  realUnavailable,
  type CostBars,
  type CostMetric,
} from "../model/costs";
import type { Action } from "../state/reducer";
import { h, setText } from "./dom";

export interface CostViewData {
  trace: TraceView;
  /** Ops executed in the view: the current op is ops[step - 1]. */
  step: number;
  metric: CostMetric;
  /** Where the cost model is documented. */
  docsHref: string;
}

const HEIGHT = 150;
const MARGIN = { top: 20, right: 54, bottom: 22, left: 46 };
/**
 * Height of the band above an axis break: where the global allocator's marks
 * go when they are above the model's scale (a reset that frees every block one
 * by one can cost a hundred times a bump). The model's bars keep their scale
 * below the break; the band's label says how far up the marks really are.
 */
const BREAK_BAND = 20;
/** Bars narrower than this touch; wider ones get a gap. */
const GAP_FROM = 4;

/** Axis labels: 950, 1.5k, 12k. */
export function countTick(n: number): string {
  return n >= 1000 ? `${Number((n / 1000).toFixed(n >= 10_000 ? 0 : 1))}k` : String(n);
}

/** A bar with its drawn geometry. */
type Drawn = ReturnType<typeof layout>[number];

interface Refs {
  radios: Record<CostMetric, HTMLInputElement>;
  legend: HTMLElement;
  banner: HTMLElement;
  note: HTMLElement;
  status: HTMLElement;
  chart: HTMLElement;
  svg: Selection<SVGSVGElement, unknown, null, undefined>;
  tooltip: HTMLElement;
  link: HTMLAnchorElement;
  /** What the counts are on this target, beside the cost model. */
  targetNote: HTMLElement;
  dispatch: (a: Action) => void;
  /** What the bars were last drawn from (trace, metric, width). */
  drawnFor: { trace: TraceView; metric: CostMetric; width: number } | null;
  drawn: Drawn[];
  /** The running total's scale, as last drawn. */
  y2: (n: number) => number;
  /** The bar holding the roving tabindex after the user moved to it. */
  focusKey: number | null;
  /** The bar whose tooltip shows. */
  tipKey: number | null;
}

const views = new WeakMap<HTMLElement, Refs>();

const metricWords: Record<CostMetric, { label: string; unit: string }> = {
  instructions: { label: "Instructions", unit: "wasm instructions" },
  branches: { label: "Branches", unit: "conditional branches" },
};

function swatch(kind: string): HTMLElement {
  return h("span", { class: `cost-swatch cost-swatch-${kind}`, "aria-hidden": "true" });
}

function build(container: HTMLElement, dispatch: (a: Action) => void): Refs {
  const radio = (metric: CostMetric): [HTMLElement, HTMLInputElement] => {
    const input = h("input", { type: "radio", name: "cost-metric", value: metric, id: `cost-metric-${metric}` });
    input.addEventListener("change", () => {
      if (input.checked) dispatch({ type: "selectCostMetric", metric });
    });
    return [h("label", { class: "segment", for: input.id }, input, h("span", {}, metricWords[metric].label)), input];
  };
  const [iLabel, iInput] = radio("instructions");
  const [bLabel, bInput] = radio("branches");
  const legend = h("ul", { class: "legend cost-legend", "aria-label": "Cost legend" });
  const controls = h(
    "div",
    { class: "cost-controls" },
    h("div", { class: "segmented", role: "radiogroup", "aria-label": "Count" }, iLabel, bLabel),
    legend,
  );
  const banner = h("div", { class: "cost-banner", "data-tone": "bad", hidden: true });
  const note = h("p", { class: "cost-note" });
  const status = h("p", { class: "cost-status", hidden: true });
  const tooltip = h("div", { class: "cost-tooltip", role: "tooltip", id: "cost-tooltip", hidden: true });
  const chart = h("div", { class: "cost-chart" });
  const link = h("a", { class: "cost-docs", href: "#", target: "_blank", rel: "noopener" }, "How it is measured");
  const targetNote = h("span", { class: "cost-target-note" });
  const model = h("p", { class: "cost-model", id: "cost-model" }, `${COST_MODEL} `, targetNote, link);
  container.replaceChildren(controls, banner, chart, note, status, model);

  const svg = select(chart)
    .append("svg")
    .attr("class", "cost-svg")
    .attr("role", "group")
    .attr("aria-label", "Cost per op")
    .attr("height", HEIGHT);
  const plot = svg.append("g").attr("class", "plot").attr("transform", `translate(${MARGIN.left},${MARGIN.top})`);
  plot.append("g").attr("class", "grid").attr("aria-hidden", "true");
  plot.append("g").attr("class", "axis y-axis").attr("aria-hidden", "true");
  plot.append("g").attr("class", "axis y2-axis").attr("aria-hidden", "true");
  plot.append("g").attr("class", "axis x-axis").attr("aria-hidden", "true");
  const brk = plot.append("g").attr("class", "axis-break").attr("aria-hidden", "true").attr("display", "none");
  brk.append("path").attr("class", "axis-break-mark");
  brk.append("text").attr("class", "axis-break-label").attr("text-anchor", "end");
  plot.append("text").attr("class", "axis-title y-title").attr("x", -MARGIN.left + 2).attr("y", -9);
  plot.append("text").attr("class", "axis-title y2-title").attr("y", -9).attr("text-anchor", "end").text("running total");
  const bars = plot
    .append("g")
    .attr("class", "cost-bars")
    .attr("role", "group")
    .attr("aria-label", "Cost of each op: arrow keys move between ops, Enter jumps to one");
  plot.append("path").attr("class", "cumulative").attr("aria-hidden", "true");
  plot.append("circle").attr("class", "cumulative-dot").attr("r", 3.5).attr("aria-hidden", "true");
  chart.append(tooltip);

  const refs: Refs = {
    radios: { instructions: iInput, branches: bInput },
    legend,
    banner,
    note,
    status,
    chart,
    svg,
    tooltip,
    link,
    targetNote,
    dispatch,
    drawnFor: null,
    drawn: [],
    y2: () => 0,
    focusKey: null,
    tipKey: null,
  };

  const barOf = (target: EventTarget | null): { el: SVGGElement; d: Drawn } | null => {
    const el = target instanceof Element ? target.closest<SVGGElement>("g.cost-bar") : null;
    if (!el) return null;
    const d = select<SVGGElement, Drawn>(el).datum();
    return d ? { el, d } : null;
  };
  const jump = (d: Drawn): void => {
    refs.focusKey = d.key;
    refs.dispatch({ type: "seek", step: d.pick + 1 });
  };
  const node = bars.node();
  if (node) {
    node.addEventListener("click", (e) => {
      const hit = barOf(e.target);
      if (hit) jump(hit.d);
    });
    node.addEventListener("pointerover", (e) => {
      const hit = barOf(e.target);
      if (hit) showTip(refs, hit.d);
    });
    node.addEventListener("pointerleave", () => {
      const active = document.activeElement;
      const focused = active instanceof Element ? barOf(active) : null;
      if (focused) showTip(refs, focused.d);
      else hideTip(refs);
    });
    node.addEventListener("focusin", (e) => {
      const hit = barOf(e.target);
      if (!hit) return;
      refs.focusKey = hit.d.key;
      rove(refs);
      showTip(refs, hit.d);
    });
    node.addEventListener("focusout", (e) => {
      if (!(e.relatedTarget instanceof Element && node.contains(e.relatedTarget))) hideTip(refs);
    });
    node.addEventListener("keydown", (e) => {
      const hit = barOf(e.target);
      if (!hit || e.altKey || e.ctrlKey || e.metaKey) return;
      const i = refs.drawn.findIndex((d) => d.key === hit.d.key);
      const last = refs.drawn.length - 1;
      const moves: Record<string, number> = {
        ArrowRight: i + 1,
        ArrowDown: i + 1,
        ArrowLeft: i - 1,
        ArrowUp: i - 1,
        PageDown: i + 10,
        PageUp: i - 10,
        Home: 0,
        End: last,
      };
      if (e.key === "Enter" || e.key === " ") {
        e.preventDefault();
        jump(hit.d);
        return;
      }
      if (e.key === "Escape") {
        hideTip(refs);
        return;
      }
      const to = moves[e.key];
      if (to === undefined) return;
      // Handled here: the page's step keys must not also see it.
      e.preventDefault();
      const next = refs.drawn[Math.min(Math.max(0, to), last)];
      if (!next) return;
      refs.focusKey = next.key;
      rove(refs);
      node.querySelector<SVGGElement>(`g.cost-bar[data-key="${next.key}"]`)?.focus();
    });
  }
  return refs;
}

function showTip(refs: Refs, d: Drawn): void {
  const tip = refs.tooltip;
  refs.tipKey = d.key;
  setText(tip, d.label);
  tip.hidden = false;
  const width = refs.chart.clientWidth;
  const w = tip.offsetWidth;
  const cx = MARGIN.left + d.slotX + d.slotW / 2;
  tip.style.left = `${Math.min(Math.max(cx - w / 2, 0), Math.max(0, width - w))}px`;
  tip.style.top = `${MARGIN.top + d.top - 8}px`;
}

function hideTip(refs: Refs): void {
  refs.tipKey = null;
  refs.tooltip.hidden = true;
}

/** One bar is in the tab order: the one last moved to, else the current op's, else the first. */
function rove(refs: Refs): void {
  const keys = new Set(refs.drawn.map((d) => d.key));
  const current = refs.drawn.find((d) => d.current);
  const key = refs.focusKey !== null && keys.has(refs.focusKey) ? refs.focusKey : (current?.key ?? refs.drawn[0]?.key);
  refs.svg.selectAll<SVGGElement, Drawn>("g.cost-bar").attr("tabindex", (d) => (d.key === key ? 0 : -1));
}

type YScale = { y: ScaleLinear<number, number>; top: number; broken: boolean };

/** The model's scale: it starts below the break band when the global allocator goes above it. */
function yScale(bars: CostBars, innerH: number): YScale {
  const nice = scaleLinear().domain([0, Math.max(1, bars.max)]).nice();
  const top = nice.domain()[1] ?? 1;
  const broken = bars.baselineMax > top;
  return { y: nice.copy().range([innerH, broken ? BREAK_BAND + 4 : 0]), top, broken };
}

/** Each bar's geometry on the chart's scales (`x` places op numbers). */
function layout(bars: CostBars, x: ScaleLinear<number, number>, { y, top }: YScale, innerH: number, currentBar: number | undefined) {
  return bars.bars.map((b, i) => {
    const slotX = x(b.first + 0.5);
    const slotW = x(b.last + 1.5) - slotX;
    const gap = slotW >= GAP_FROM ? Math.max(1, slotW * 0.22) : 0;
    const totalH = innerH - y(b.total);
    // A slow part is never thinner than 2 px: it is what the chart is for.
    const slowH = b.slow > 0 ? Math.min(totalH, Math.max(2, innerH - y(b.slow))) : 0;
    return {
      ...b,
      current: i === currentBar,
      // The whole slot: the hit area.
      slotX,
      slotW,
      x: slotX + gap / 2,
      width: Math.max(1, slotW - gap),
      // The stacked bar's top, and the heights of its parts.
      top: innerH - totalH,
      fastH: totalH - slowH,
      slowH,
      meanY: bars.binned ? y(b.mean) : null,
      realY: b.real !== undefined ? y(b.real) : null,
      baselineY: b.baseline === undefined ? null : b.baseline > top ? BREAK_BAND - 5 : y(b.baseline),
      // The global allocator's count is above the scale: its mark sits in the band above the axis break.
      baselineClipped: b.baseline !== undefined && b.baseline > top,
    };
  });
}

function renderLegend(refs: Refs, trace: TraceView, binned: boolean): void {
  const real = realRan(trace);
  const items: [string, string][] = [
    ["fast", "fast path"],
    ["slow", "slow path"],
    ["cumulative", "running total"],
  ];
  if (binned) items.push(["mean", "mean of the bin"]);
  if (real) items.push(["real", `real ${crateLabel(real)}`]);
  if (trace.baseline && trace.baseline.unavailable === undefined) items.push(["baseline", baselineLabel(trace)]);
  if (mismatchOps(trace).length > 0) items.push(["mismatch", "differs from the real crate"]);
  const key = items.map((i) => i.join(":")).join("|");
  if (refs.legend.dataset["key"] === key) return;
  refs.legend.dataset["key"] = key;
  refs.legend.replaceChildren(...items.map(([kind, text]) => h("li", {}, swatch(kind), text)));
}

/** A loud banner above the chart when the model differs from the real crate; a quiet line below it otherwise. */
function renderComparison(refs: Refs, trace: TraceView): void {
  const real = trace.real;
  const wrong = mismatchOps(trace);
  const ran = realRan(trace);
  const first = wrong[0];
  let bannerKey = "none";
  let banner: (Node | string)[] = [];
  if (ran && first !== undefined) {
    const detail = mismatchesFor(trace, first).map(mismatchText).join("; ");
    bannerKey = `${crateLabel(ran)}|${wrong.join(",")}|${detail}`;
    const go = h("button", { type: "button", class: "link-button" }, `Go to op ${first + 1}`);
    go.addEventListener("click", () => refs.dispatch({ type: "seek", step: first + 1 }));
    banner = [
      h("strong", {}, `✗ The model differs from ${crateLabel(ran)} at ${plural(wrong.length, "op")}`),
      ` (first: op ${first + 1}, ${detail}). `,
      go,
    ];
  }
  if (refs.banner.dataset["key"] !== bannerKey) {
    refs.banner.dataset["key"] = bannerKey;
    refs.banner.hidden = bannerKey === "none";
    refs.banner.replaceChildren(...banner);
  }

  const lines: { tone: string; text: string }[] = [];
  const unavailable = realUnavailable(trace);
  if (ran && first === undefined) {
    const skipped = notComparedCount(trace);
    const except = skipped > 0 ? ` (${plural(skipped, "op")} not compared)` : "";
    lines.push({ tone: "good", text: `✓ Placements match ${crateLabel(ran)}, run live compiled to wasm32${except}.` });
  }
  else if (real && unavailable !== undefined) lines.push({ tone: "muted", text: `${crateLabel(real)} not compared: ${unavailable}` });
  if (trace.baseline?.unavailable !== undefined) {
    lines.push({ tone: "muted", text: `${baselineLabel(trace)} not measured: ${trace.baseline.unavailable}` });
  }
  const statusKey = JSON.stringify(lines);
  if (refs.status.dataset["key"] !== statusKey) {
    refs.status.dataset["key"] = statusKey;
    refs.status.hidden = lines.length === 0;
    refs.status.replaceChildren(...lines.map((l) => h("span", { class: `cost-status-line is-${l.tone}` }, l.text)));
  }
}

export function renderCostView(container: HTMLElement, data: CostViewData, dispatch: (a: Action) => void): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, dispatch);
    views.set(container, refs);
  }
  refs.dispatch = dispatch;
  const { trace, metric } = data;
  refs.radios[metric].checked = true;
  if (refs.link.getAttribute("href") !== data.docsHref) refs.link.setAttribute("href", data.docsHref);
  setText(
    refs.targetNote,
    trace.target === "64"
      ? "Target 64-bit: these are wasm instructions of the 64-bit model (u64 words) compiled to wasm, not x86-64 instructions; the native x86-64 counts are in the x86-64 reference below. "
      : "",
  );
  renderComparison(refs, trace);

  const bars = costBars(trace, metric);
  renderLegend(refs, trace, bars.binned);
  const words = metricWords[metric];
  if (!hasCosts(trace)) {
    setText(
      refs.note,
      trace.length === 0
        ? "No ops yet: the program is empty."
        : trace.costsPending
          ? "Measuring costs on the compiled code…"
          : trace.costsUnavailable !== undefined
          ? `No measured costs: ${trace.costsUnavailable}`
          : "This trace carries no measured costs.",
    );
    refs.chart.hidden = true;
    refs.drawn = [];
    refs.drawnFor = null;
    hideTip(refs);
    return;
  }
  refs.chart.hidden = false;
  const ran = realRan(trace);
  const others = [
    ran && bars.realTotal !== undefined ? ` · real ${crateLabel(ran)}: ${bars.realTotal}` : "",
    bars.baselineTotal !== undefined ? ` · ${baselineLabel(trace)}: ${bars.baselineTotal}` : "",
  ].join("");
  const binned = bars.binned ? ` · binned: ${bars.binSize} ops per bar, each bar the costliest op of its bin, the tick its mean` : "";
  setText(refs.note, `${plural(trace.length, "op")}, ${bars.total} ${words.unit} in all${others}${binned}`);

  const width = Math.max(280, Math.round(refs.chart.clientWidth || 720));
  const innerW = width - MARGIN.left - MARGIN.right;
  const innerH = HEIGHT - MARGIN.top - MARGIN.bottom;
  const currentIndex = data.step > 0 ? Math.min(data.step, trace.length) - 1 : undefined;
  const currentBar = barIndexOf(bars, currentIndex);
  const svg = refs.svg;
  const plot = svg.select<SVGGElement>("g.plot");
  const drawnFor = refs.drawnFor;
  const sameGeometry = drawnFor?.trace === trace && drawnFor.metric === metric && drawnFor.width === width;

  if (!sameGeometry) {
    refs.drawnFor = { trace, metric, width };
    svg.attr("width", width).attr("viewBox", `0 0 ${width} ${HEIGHT}`).attr("data-binned", bars.binned ? bars.binSize : null);
    const x = scaleLinear().domain([0.5, trace.length + 0.5]).range([0, innerW]);
    const ys = yScale(bars, innerH);
    const { y, broken } = ys;
    const drawn = layout(bars, x, ys, innerH, currentBar);
    refs.drawn = drawn;
    const y2 = scaleLinear().domain([0, Math.max(1, bars.total)]).nice().range([innerH, broken ? BREAK_BAND + 4 : 0]);
    const yTicks = Math.max(2, Math.floor(innerH / 34));
    plot
      .select<SVGGElement>("g.grid")
      .selectAll("line")
      .data(y.ticks(yTicks))
      .join("line")
      .attr("x1", 0)
      .attr("x2", innerW)
      .attr("y1", (t) => y(t))
      .attr("y2", (t) => y(t));
    plot.select<SVGGElement>("g.y-axis").call(axisLeft(y).ticks(yTicks).tickFormat((t) => countTick(t.valueOf())).tickSizeOuter(0));
    plot
      .select<SVGGElement>("g.y2-axis")
      .attr("transform", `translate(${innerW},0)`)
      .call(axisRight(y2).ticks(yTicks).tickFormat((t) => countTick(t.valueOf())).tickSizeOuter(0));
    const xTicks = x
      .ticks(Math.max(2, Math.floor(innerW / 64)))
      .filter((t) => Number.isInteger(t) && t >= 1 && t <= trace.length);
    plot
      .select<SVGGElement>("g.x-axis")
      .attr("transform", `translate(0,${innerH})`)
      .call(axisBottom(x).tickValues(xTicks).tickFormat((t) => String(t)).tickSizeOuter(0));
    plot.select("text.y-title").text(`${words.unit} per op`);
    // The axis break: a zigzag across the axis, and the band's value on its left.
    const brk = plot.select<SVGGElement>("g.axis-break").attr("display", broken ? null : "none");
    brk.attr("data-baseline-max", broken ? bars.baselineMax : null);
    brk
      .select("path.axis-break-mark")
      .attr("d", `M-6,${BREAK_BAND + 5}l4,-4l4,4l4,-4M-6,${BREAK_BAND + 9}l4,-4l4,4l4,-4`);
    brk
      .select("text.axis-break-label")
      .attr("x", -4)
      .attr("y", BREAK_BAND / 2 + 4)
      .text(broken ? `≤${countTick(bars.baselineMax)}` : "");
    plot.select("text.y2-title").attr("x", innerW + MARGIN.right - 4);

    const barSel = plot
      .select<SVGGElement>("g.cost-bars")
      .selectAll<SVGGElement, Drawn>("g.cost-bar")
      .data(drawn, (d) => d.key)
      .join((enter) => {
        const g = enter.append("g").attr("class", "cost-bar").attr("role", "button");
        g.append("rect").attr("class", "hit").attr("y", 0);
        g.append("rect").attr("class", "fast");
        g.append("rect").attr("class", "slow");
        g.append("line").attr("class", "mean");
        g.append("line").attr("class", "baseline-mark");
        g.append("text").attr("class", "baseline-value").attr("text-anchor", "middle").attr("aria-hidden", "true");
        g.append("path").attr("class", "real-mark");
        g.append("path").attr("class", "mismatch-mark");
        return g;
      });
    barSel
      .attr("aria-label", (d) => d.label)
      .attr("data-key", (d) => d.key)
      .attr("data-op", (d) => d.pick)
      .attr("data-first", (d) => d.first)
      .attr("data-last", (d) => d.last)
      .attr("data-total", (d) => d.total)
      .attr("data-fast", (d) => d.fast)
      .attr("data-slow", (d) => d.slow)
      .attr("data-baseline", (d) => d.baseline ?? null)
      .attr("data-shape", (d) => d.shape ?? null);
    barSel.select("rect.hit").attr("x", (d) => d.slotX).attr("width", (d) => d.slotW).attr("height", innerH);
    barSel
      .select("rect.fast")
      .attr("x", (d) => d.x)
      .attr("width", (d) => d.width)
      .attr("y", (d) => d.top + d.slowH)
      .attr("height", (d) => d.fastH);
    barSel
      .select("rect.slow")
      .attr("x", (d) => d.x)
      .attr("width", (d) => d.width)
      .attr("y", (d) => d.top)
      .attr("height", (d) => d.slowH)
      .attr("display", (d) => (d.slowH > 0 ? null : "none"));
    barSel
      .select("line.mean")
      .attr("display", (d) => (d.meanY === null ? "none" : null))
      .attr("x1", (d) => d.x - 1)
      .attr("x2", (d) => d.x + d.width + 1)
      .attr("y1", (d) => d.meanY ?? 0)
      .attr("y2", (d) => d.meanY ?? 0);
    barSel
      .select("line.baseline-mark")
      .classed("is-clipped", (d) => d.baselineClipped)
      .attr("display", (d) => (d.baselineY === null ? "none" : null))
      .attr("x1", (d) => d.slotX)
      .attr("x2", (d) => d.slotX + d.slotW)
      .attr("y1", (d) => d.baselineY ?? 0)
      .attr("y2", (d) => d.baselineY ?? 0);
    // Above the break a mark's height says nothing: its value is written over it where there is room.
    barSel
      .select("text.baseline-value")
      .attr("display", (d) => (d.baselineClipped && d.slotW >= 28 ? null : "none"))
      .attr("x", (d) => d.slotX + d.slotW / 2)
      .attr("y", BREAK_BAND - 9)
      .text((d) => (d.baselineClipped && d.baseline !== undefined ? countTick(d.baseline) : ""));
    barSel
      .select("path.real-mark")
      .attr("display", (d) => (d.realY === null ? "none" : null))
      .attr("d", (d) => {
        const cx = d.slotX + d.slotW / 2;
        const r = Math.min(4, Math.max(2.5, d.slotW / 3));
        const cy = d.realY ?? 0;
        return `M${cx},${cy - r}L${cx + r},${cy}L${cx},${cy + r}L${cx - r},${cy}Z`;
      });
    barSel
      .select("path.mismatch-mark")
      .attr("display", (d) => (d.mismatch ? null : "none"))
      .attr("d", (d) => {
        const cx = d.slotX + d.slotW / 2;
        return `M${cx - 4},-12L${cx + 4},-12L${cx},-5Z`;
      });

    // The running total after each bar's last op.
    let path = `M0,${y2(0)}`;
    for (const d of drawn) path += `L${d.slotX + d.slotW},${y2(d.cumulative)}`;
    plot.select("path.cumulative").attr("d", path);
    refs.y2 = y2;
  }

  // The current op: its bar and its point on the running total.
  for (const [i, d] of refs.drawn.entries()) d.current = i === currentBar;
  const barSel = plot.select<SVGGElement>("g.cost-bars").selectAll<SVGGElement, Drawn>("g.cost-bar");
  barSel
    .classed("is-current", (d) => d.current)
    .classed("is-mismatch", (d) => d.mismatch)
    .attr("aria-current", (d) => (d.current ? "step" : null));
  const cur = currentBar !== undefined ? refs.drawn[currentBar] : undefined;
  const y2 = refs.y2;
  plot
    .select("circle.cumulative-dot")
    .attr("display", cur ? null : "none")
    .attr("cx", cur ? cur.slotX + cur.slotW : 0)
    .attr("cy", cur ? y2(cur.cumulative) : 0);
  svg.attr("data-current-op", currentIndex ?? null);
  rove(refs);
  if (refs.tipKey !== null) {
    const tipped = refs.drawn.find((d) => d.key === refs?.tipKey);
    if (tipped) showTip(refs, tipped);
    else hideTip(refs);
  }
}
