// Running totals after the current step, over every live chunk, and a small
// chart of the byte counters over the whole program: a line per counter, a
// marker at the current step; a click on the chart seeks to the step under it.

import { max } from "d3-array";
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { line } from "d3-shape";
import type { Stats } from "../wasm/types";
import type { StatsSeries } from "../model/focus";
import { bytes, percent } from "../model/format";
import { METRICS } from "../model/metrics";
import { h, setText } from "./dom";

export interface StatsData {
  /** The chart's points: the counters at step 0, at sampled steps and at the last step. */
  series: StatsSeries;
  step: number;
  /** The counters after `step` ops (the cells). */
  current: Stats;
}

export interface StatsHandlers {
  onSeek(step: number): void;
}

type Key = keyof Stats;

interface Field {
  key: Key;
  label: string;
  title: string;
  /** The cell's text. */
  value: (s: Stats) => string;
}

/** The counters the panel lists, in order, as the metric registry names them. */
const FIELDS: readonly Field[] = (["requested", "used", "padding", "leaked", "copied", "unused", "metadata", "chunks", "utilisation"] as const).map((key) => {
  const m = METRICS[key];
  const value = m.unit === "ratio" ? (s: Stats) => percent(s[key]) : m.unit === "count" ? (s: Stats) => String(s[key]) : (s: Stats) => `${s[key]} B`;
  return { key, label: m.label, title: m.sums, value };
});

/**
 * The byte counters drawn as lines in the chart. Okabe–Ito colours
 * (distinguishable with the common colour-vision deficiencies) and a dash
 * per line, so no line is told apart by colour alone.
 */
const LINES: readonly { key: Key; colour: string; dash: string }[] = [
  { key: "requested", colour: "var(--series-requested)", dash: "" },
  { key: "used", colour: "var(--series-used)", dash: "6 3" },
  { key: "padding", colour: "var(--series-padding)", dash: "2 2" },
  { key: "leaked", colour: "var(--series-leaked)", dash: "8 3 2 3" },
];

const HEIGHT = 128;
const M = { top: 18, right: 10, bottom: 8, left: 10 };

interface Refs {
  cells: Map<Key, HTMLElement>;
  svg: SVGSVGElement;
  handlers: StatsHandlers;
  /** What the lines were drawn for: redrawn only when it changes. */
  drawn: { series: StatsSeries; width: number } | null;
  /** The chart's step scale, as last drawn (its inverse: the step at an x, fractional). */
  x: ScaleLinear<number, number>;
  steps: number;
  /**
   * The chart's width as last laid out (a ResizeObserver keeps it): reading
   * clientWidth at every step would force a layout of the whole page in the
   * middle of the frame, which dragging the scrubber pays once a frame.
   */
  measured: number | undefined;
  /** What was last rendered: a new width redraws it. */
  last: StatsData | null;
}
const views = new WeakMap<HTMLElement, Refs>();

const SVG_NS = "http://www.w3.org/2000/svg";

function build(container: HTMLElement, handlers: StatsHandlers): Refs {
  const cells = new Map<Key, HTMLElement>();
  const dl = h("dl", { class: "stats" });
  for (const f of FIELDS) {
    const dd = h("dd", { "data-stat": f.key });
    cells.set(f.key, dd);
    const line = LINES.find((l) => l.key === f.key);
    const swatch = line
      ? h("span", { class: "stat-swatch", "aria-hidden": "true", style: `--swatch: ${line.colour}`, "data-dash": line.dash || "solid" })
      : null;
    dl.append(h("div", { class: "stat", title: f.title }, h("dt", {}, swatch, f.label), dd));
  }
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", "stats-chart");
  svg.setAttribute("role", "img");
  const figure = h("figure", { class: "stats-figure" }, h("figcaption", { class: "stats-caption" }, "Over the program (click to go to a step)"));
  figure.append(svg);
  container.replaceChildren(dl, figure);
  const refs: Refs = { cells, svg, handlers, drawn: null, x: scaleLinear(), steps: 0, measured: undefined, last: null };
  if (typeof ResizeObserver !== "undefined") {
    // Called after layout, so clientWidth is read without forcing one.
    new ResizeObserver(() => {
      const width = figure.clientWidth;
      if (width === refs.measured) return;
      refs.measured = width;
      if (refs.last) renderStats(container, refs.last, refs.handlers);
    }).observe(figure);
  }
  svg.addEventListener("click", (event) => {
    // The step whose x is nearest the click (the drawing is in CSS pixels: width attribute = box width).
    const box = svg.getBoundingClientRect();
    const step = Math.round(refs.x.invert(event.clientX - box.left));
    refs.handlers.onSeek(Math.min(Math.max(0, step), refs.steps));
  });
  return refs;
}

function drawLines(refs: Refs, data: StatsSeries, width: number): void {
  const series = data.stats;
  const at = data.steps;
  const steps = data.total;
  const x = scaleLinear()
    .domain([0, Math.max(1, steps)])
    .range([M.left, width - M.right]);
  const top = max(series, (s) => Math.max(...LINES.map((f) => s[f.key]))) ?? 0;
  const y = scaleLinear()
    .domain([0, Math.max(1, top)])
    .range([HEIGHT - M.bottom, M.top]);
  refs.x = x;
  refs.steps = steps;
  // Long programs: at most about two points per pixel (every k-th step and
  // the last), so the path stays small; the counters change by one op's bytes
  // at a time, so the shape survives.
  const every = Math.max(1, Math.ceil(series.length / (2 * width)));
  const points: number[] = [];
  for (let i = 0; i < series.length; i += every) points.push(i);
  if (points[points.length - 1] !== series.length - 1) points.push(series.length - 1);
  const svg = select(refs.svg).attr("viewBox", `0 0 ${width} ${HEIGHT}`).attr("width", width).attr("height", HEIGHT);
  svg
    .selectAll("line.baseline")
    .data([0])
    .join("line")
    .attr("class", "baseline")
    .attr("x1", M.left)
    .attr("x2", width - M.right)
    .attr("y1", y(0))
    .attr("y2", y(0));
  svg
    .selectAll<SVGPathElement, (typeof LINES)[number]>("path.series")
    .data(LINES, (f) => f.key)
    .join("path")
    .attr("class", "series")
    .attr("data-series", (f) => f.key)
    .style("stroke", (f) => f.colour)
    .attr("stroke-dasharray", (f) => f.dash || null)
    .attr("d", (f) =>
      line<number>()
        .x((i) => x(at[i] ?? 0))
        .y((i) => y(series[i]?.[f.key] ?? 0))(points),
    );
  // The scale's top, so the lines read as bytes.
  svg
    .selectAll("text.scale-label")
    .data([top])
    .join("text")
    .attr("class", "scale-label")
    .attr("x", M.left)
    .attr("y", M.top - 6)
    .text((d) => `max ${bytes(d)}`);
  svg.selectAll("line.marker").data([0]).join("line").attr("class", "marker").attr("y1", M.top - 4).attr("y2", HEIGHT - M.bottom);
  // The marker is drawn last so it stays on top of the lines.
  svg.select("line.marker").raise();
}

export function renderStats(container: HTMLElement, data: StatsData, handlers: StatsHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  refs.handlers = handlers;
  refs.last = data;
  const stats = data.current;
  for (const f of FIELDS) {
    const dd = refs.cells.get(f.key);
    if (dd) setText(dd, f.value(stats));
  }

  refs.measured ??= refs.svg.parentElement?.clientWidth ?? 0;
  const width = Math.max(120, Math.floor(refs.measured) || 320);
  if (refs.drawn?.series !== data.series || refs.drawn.width !== width) {
    refs.drawn = { series: data.series, width };
    drawLines(refs, data.series, width);
  }
  const mx = refs.x(data.step);
  select(refs.svg).select("line.marker").attr("x1", mx).attr("x2", mx).attr("data-step", data.step);
  const last = data.series.stats[data.series.stats.length - 1];
  refs.svg.setAttribute(
    "aria-label",
    `Counters over ${data.series.total} ops, at op ${data.step}: requested ${bytes(stats.requested)}, used ${bytes(stats.used)}, ` +
      `padding ${bytes(stats.padding)}, leaked ${bytes(stats.leaked)}; at the end requested ${bytes(last?.requested ?? 0)}`,
  );
}
