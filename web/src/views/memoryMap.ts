// The memory map: every chunk that exists at the step, one row each, oldest
// first. A row is drawn to scale within itself, low addresses on the left,
// on its own hex axis: its header or footer at the right end, the blocks it
// holds with their padding, the used and the free bytes. The current chunk
// (the one holding the bump pointer) is highlighted and carries the pointer.
// Rows are joined by chunk id and blocks by the op that placed them, so both
// keep their elements, colours and positions as the view steps.

import { axisBottom } from "d3-axis";
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { select, type BaseType, type Selection } from "d3-selection";
import "d3-transition";
import type { ChunkInfo, Direction } from "../engine/types";
import type { Block } from "../model/blocks";
import type { ChunkView } from "../model/chunks";
import { bytes, hex } from "../model/format";
import { layoutLabels, type PlacedLabel } from "./labelLayout";

export interface MemoryMapData {
  direction: Direction;
  /** The chunks that exist, oldest first, with their blocks and fill. */
  rows: readonly ChunkView[];
  /** The current chunk's bump pointer (undefined while no chunk exists). */
  bumpPtr: number | undefined;
  /** Blocks the current op placed or acted on. */
  focus: ReadonlySet<number>;
  /** What to say when no chunk exists. */
  emptyText: string;
  /** Animate changes (off for reduced motion). */
  animate: boolean;
}

/** Okabe–Ito: distinguishable with the common colour-vision deficiencies. */
const PALETTE = [
  { fill: "#56B4E9", ink: "#0b1f2b" },
  { fill: "#E69F00", ink: "#231600" },
  { fill: "#009E73", ink: "#00130e" },
  { fill: "#F0E442", ink: "#242100" },
  { fill: "#0072B2", ink: "#ffffff" },
  { fill: "#D55E00", ink: "#1e0b00" },
  { fill: "#CC79A7", ink: "#25101c" },
] as const;

export function blockColour(id: number): { fill: string; ink: string } {
  return PALETTE[id % PALETTE.length] ?? PALETTE[0];
}

// Geometry of one row (y relative to the row's top).
const MARGIN = { left: 34, right: 34 };
const TITLE_Y = 11; // title baseline; also callout lane 1
const LANE0_Y = 28; // callout lane 0 baseline, just above the bar
const PTR_Y = 23; // the pointer's arrow, in lane 0
const BAR_Y = 34;
const BAR_H = 36;
const AXIS_Y = BAR_Y + BAR_H;
const ROW_H = AXIS_Y + 18;
const ROW_GAP = 10;
const EMPTY_H = 84;
const DURATION = 220;

// ---- Text widths: measured with a canvas when there is one, else estimated.

let canvas: CanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();
const UI_FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif';
const MONO_FONT = 'ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", "DejaVu Sans Mono", monospace';

function textWidth(text: string, font: string, perChar: number): number {
  const key = `${font}|${text}`;
  const known = widths.get(key);
  if (known !== undefined) return known;
  if (canvas === undefined) canvas = typeof document !== "undefined" ? document.createElement("canvas").getContext("2d") : null;
  let w = text.length * perChar;
  if (canvas) {
    canvas.font = font;
    w = canvas.measureText(text).width;
  }
  widths.set(key, w);
  return w;
}
const labelWidth = (t: string): number => textWidth(t, `650 12px ${UI_FONT}`, 7) + 2;
const titleWidth = (t: string): number => textWidth(t, `600 12px ${UI_FONT}`, 6.8);
const monoWidth = (t: string): number => textWidth(t, `600 12px ${MONO_FONT}`, 7.3);
const axisWidth = (t: string): number => textWidth(t, `10.5px ${MONO_FONT}`, 6.4);

// ---- Text.

export function blockLabel(b: Block): string {
  const parts = [`${b.name}: ${bytes(b.size)} at ${hex(b.address)}`, `align ${b.align}`];
  if (b.padding > 0) parts.push(`${bytes(b.padding)} padding`);
  if (b.state === "freed") parts.push("freed, not reclaimed");
  if (b.state === "leaked") parts.push("left behind by a realloc");
  return parts.join(", ");
}

/** Why the chunk exists, in a few words. */
export function chunkReason(chunk: ChunkInfo): string {
  const need = chunk.requested !== undefined ? ` (${chunk.requested} B request)` : "";
  switch (chunk.reason) {
    case "first":
      return chunk.created_by === undefined ? "first chunk, made up front" : "first chunk, made on first use";
    case "full":
      return "new: current chunk full";
    case "oversized":
      return `new: oversized request${need}`;
    case "slab":
      return "new slab";
    case "custom_slab":
      return `custom slab${need}`;
    case undefined:
      return "";
    default:
      return chunk.reason.replaceAll("_", " ");
  }
}

function metadataText(chunk: ChunkInfo): string {
  const parts: string[] = [];
  if (chunk.header > 0) parts.push(`${bytes(chunk.header)} header`);
  if (chunk.footer > 0) parts.push(`${bytes(chunk.footer)} footer`);
  return parts.join(", ");
}

/** "chunk 1: 960 bytes usable, 48 bytes footer, 120 used". */
export function chunkLabel(view: ChunkView): string {
  const { chunk } = view;
  const meta = metadataText(chunk);
  return [`chunk ${chunk.id}: ${chunk.capacity} bytes usable`, meta, `${view.used} used`, view.current ? "current chunk" : ""]
    .filter((p) => p !== "")
    .join(", ");
}

// ---- Layout (pure: data and width in, positions out).

interface MetaRegion {
  kind: "header" | "footer";
  bytes: number;
  x: number;
  width: number;
  label: string;
}

interface Pointer {
  x: number;
  tip: number;
  textX: number;
  anchor: "start" | "end";
  text: string;
}

interface RowLayout {
  view: ChunkView;
  key: number;
  y: number;
  /** Usable bytes to pixels. */
  x: ScaleLinear<number, number>;
  usable: { x0: number; x1: number };
  meta: MetaRegion[];
  title: string;
  fill: string;
  labels: PlacedLabel[];
  pointer: Pointer | null;
  geometry: string;
}

/** Axis ticks every power-of-two bytes, as many as fit, always both edges. */
function tickValues(start: number, capacity: number, pixels: number, label: (a: number) => number): number[] {
  const maxTicks = Math.max(1, Math.floor(pixels / 84));
  let step = 1;
  while (capacity / step > maxTicks) step *= 2;
  const end = start + capacity;
  const ticks: number[] = [];
  const px = (a: number): number => (capacity ? ((a - start) / capacity) * pixels : 0);
  for (let a = start; a < end; a += step) {
    // Keep the inner ticks' labels clear of the end tick's.
    if (a > start && px(end) - px(a) < (label(a) + label(end)) / 2 + 10) break;
    ticks.push(a);
  }
  ticks.push(end);
  return ticks;
}

function layoutRow(view: ChunkView, y: number, innerWidth: number, direction: Direction, bumpPtr: number | undefined): RowLayout {
  const { chunk } = view;
  const total = chunk.header + chunk.capacity + chunk.footer;
  // Metadata is to scale, but never narrower than its label.
  const metaWidth = (n: number, label: string): number =>
    n > 0 ? Math.min(innerWidth * 0.3, Math.max((n / total) * innerWidth, labelWidth(label) + 12)) : 0;
  const headerLabel = `header ${chunk.header} B`;
  const footerLabel = `footer ${chunk.footer} B`;
  const hw = metaWidth(chunk.header, headerLabel);
  const fw = metaWidth(chunk.footer, footerLabel);
  const usable = { x0: hw, x1: innerWidth - fw };
  const x = scaleLinear().domain([chunk.start, chunk.start + chunk.capacity]).range([usable.x0, usable.x1]);
  const meta: MetaRegion[] = [];
  if (hw > 0) meta.push({ kind: "header", bytes: chunk.header, x: 0, width: hw, label: headerLabel });
  if (fw > 0) meta.push({ kind: "footer", bytes: chunk.footer, x: usable.x1, width: fw, label: footerLabel });

  const fill = `${view.used} / ${chunk.capacity} B used`;
  const reason = chunkReason(chunk);
  const long = `chunk ${chunk.id} · ${chunk.capacity} B usable${reason ? ` · ${reason}` : ""}`;
  const room = innerWidth - titleWidth(fill) - 16;
  const title = titleWidth(long) <= room ? long : `chunk ${chunk.id} · ${chunk.capacity} B`;

  // The bump pointer: an arrow the way it moves, in the lane above the bar.
  let pointer: Pointer | null = null;
  const reserved: { lane: number; left: number; right: number }[] = [
    { lane: 1, left: -MARGIN.left, right: titleWidth(title) + 4 },
    { lane: 1, left: innerWidth - titleWidth(fill) - 4, right: innerWidth + MARGIN.right },
  ];
  if (view.current && bumpPtr !== undefined) {
    const px = Math.min(Math.max(x(bumpPtr), usable.x0), usable.x1);
    const sign = direction === "down" ? -1 : 1;
    const text = `bump ptr ${hex(bumpPtr)}`;
    const textW = monoWidth(text);
    let tip = px + sign * 24;
    let textX = tip + sign * 7;
    let anchor: "start" | "end" = sign < 0 ? "end" : "start";
    // Past the plot's edge: the text goes behind the pointer instead.
    if (sign < 0 ? textX - textW < -MARGIN.left + 2 : textX + textW > innerWidth + MARGIN.right - 2) {
      textX = px - sign * 8;
      anchor = sign < 0 ? "start" : "end";
    }
    if (sign < 0 && anchor === "start" && textX + textW > innerWidth + MARGIN.right) tip = px;
    pointer = { x: px, tip, textX, anchor, text };
    const left = anchor === "end" ? textX - textW : textX;
    reserved.push({ lane: 0, left: Math.min(left, px, tip) - 1, right: Math.max(left + textW, px, tip) + 1 });
  }

  const labels = layoutLabels(
    view.blocks.map((b) => ({
      id: b.id,
      x0: x(b.address),
      x1: x(b.address) + Math.max(1.5, x(b.address + b.size) - x(b.address)),
      full: `${b.name} · ${b.size} B`,
      short: b.name,
    })),
    { measure: labelWidth, inset: 4, lanes: 2, width: innerWidth, gap: 6, reserved },
  );
  const geometry = `${innerWidth}|${chunk.start}|${chunk.capacity}|${hw}|${fw}`;
  return { view, key: chunk.id, y, x, usable, meta, title, fill, labels, pointer, geometry };
}

export function layoutMap(data: MemoryMapData, width: number): { rows: RowLayout[]; height: number } {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const rows = data.rows.map((view, i) => layoutRow(view, i * (ROW_H + ROW_GAP), innerWidth, data.direction, data.bumpPtr));
  const height = rows.length === 0 ? EMPTY_H : rows.length * (ROW_H + ROW_GAP) - ROW_GAP + 4;
  return { rows, height };
}

// ---- Drawing.

type RowSel = Selection<SVGGElement, RowLayout, SVGGElement, unknown>;

function ensureSvg(container: HTMLElement): Selection<SVGSVGElement, unknown, null, undefined> {
  const existing = container.querySelector<SVGSVGElement>("svg.memory-map");
  if (existing) return select(existing);
  const svg = select(container)
    .append("svg")
    .attr("class", "memory-map")
    .attr("role", "group")
    .attr("aria-roledescription", "memory map");
  const defs = svg.append("defs");
  const hatch = defs
    .append("pattern")
    .attr("id", "bl-hatch")
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 6)
    .attr("height", 6)
    .attr("patternTransform", "rotate(45)");
  hatch.append("rect").attr("class", "hatch-bg").attr("width", 6).attr("height", 6);
  hatch.append("line").attr("class", "hatch-line").attr("x1", 1).attr("y1", 0).attr("x2", 1).attr("y2", 6);
  const meta = defs
    .append("pattern")
    .attr("id", "bl-meta")
    .attr("patternUnits", "userSpaceOnUse")
    .attr("width", 8)
    .attr("height", 8)
    .attr("patternTransform", "rotate(-45)");
  meta.append("rect").attr("class", "meta-bg").attr("width", 8).attr("height", 8);
  meta.append("rect").attr("class", "meta-stripe").attr("width", 3).attr("height", 8);
  defs
    .append("marker")
    .attr("id", "bl-arrow")
    .attr("viewBox", "0 0 10 10")
    .attr("refX", 8)
    .attr("refY", 5)
    .attr("markerWidth", 7)
    .attr("markerHeight", 7)
    .attr("orient", "auto-start-reverse")
    .append("path")
    .attr("class", "arrow-head")
    .attr("d", "M0,0 L10,5 L0,10 z");
  const plot = svg.append("g").attr("class", "plot");
  plot.append("g").attr("class", "rows");
  const empty = plot.append("g").attr("class", "map-empty").attr("role", "note");
  empty.append("rect").attr("class", "empty-box").attr("y", 8).attr("height", EMPTY_H - 16).attr("rx", 6);
  empty.append("text").attr("class", "empty-text").attr("y", EMPTY_H / 2).attr("dy", "0.35em");
  const ptr = plot.append("g").attr("class", "bump-pointer").attr("role", "img");
  ptr.append("line").attr("class", "ptr-line").attr("y1", PTR_Y - 5).attr("y2", BAR_Y + BAR_H + 4);
  ptr.append("path").attr("class", "ptr-head");
  ptr.append("line").attr("class", "ptr-arrow").attr("y1", PTR_Y).attr("y2", PTR_Y).attr("marker-end", "url(#bl-arrow)");
  ptr.append("text").attr("class", "ptr-text").attr("y", PTR_Y).attr("dy", "0.35em");
  return svg;
}

function buildRow(g: Selection<SVGGElement, RowLayout, SVGGElement, unknown>): void {
  g.append("rect").attr("class", "row-accent").attr("x", -MARGIN.left + 8).attr("y", 2).attr("width", 3).attr("height", ROW_H - 4).attr("rx", 1.5);
  g.append("text").attr("class", "row-title").attr("y", TITLE_Y);
  g.append("text").attr("class", "row-fill").attr("y", TITLE_Y).attr("text-anchor", "end");
  g.append("rect").attr("class", "chunk-free").attr("y", BAR_Y).attr("height", BAR_H);
  g.append("rect").attr("class", "chunk-used").attr("y", BAR_Y).attr("height", BAR_H);
  g.append("g").attr("class", "meta-regions");
  g.append("g").attr("class", "blocks");
  g.append("rect").attr("class", "chunk-outline").attr("y", BAR_Y).attr("height", BAR_H).attr("rx", 3);
  g.append("g").attr("class", "callouts").attr("aria-hidden", "true");
  g.append("g").attr("class", "axis").attr("aria-hidden", "true").attr("transform", `translate(0,${AXIS_Y})`);
}

const previousGeometry = new WeakMap<SVGGElement, string>();

export function renderMemoryMap(container: HTMLElement, data: MemoryMapData): void {
  const width = Math.max(260, Math.round(container.clientWidth || 720));
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const { rows, height } = layoutMap(data, width);
  const duration = data.animate ? DURATION : 0;
  const svg = ensureSvg(container);
  const first = rows[0]?.view.chunk;
  const current = rows.find((r) => r.view.current)?.view.chunk;
  const blockCount = rows.reduce((n, r) => n + r.view.blocks.length, 0);
  svg
    .attr("width", width)
    .attr("height", height)
    .attr("viewBox", `0 0 ${width} ${height}`)
    .attr("data-chunks", rows.length)
    .attr("data-chunk-start", first ? first.start : null)
    .attr("data-chunk-capacity", first ? first.capacity : null)
    .attr("data-current-chunk", current ? current.id : null)
    .attr(
      "aria-label",
      rows.length === 0
        ? data.emptyText
        : `${rows.length} ${rows.length === 1 ? "chunk" : "chunks"}, ${blockCount} ${blockCount === 1 ? "block" : "blocks"}`,
    );
  const plot = svg.select<SVGGElement>("g.plot").attr("transform", `translate(${MARGIN.left},0)`);

  // Empty state: no chunk exists (a lazy allocator before its first allocation).
  const empty = plot.select<SVGGElement>("g.map-empty").attr("display", rows.length === 0 ? null : "none");
  empty.select("rect.empty-box").attr("x", 0).attr("width", innerWidth);
  empty
    .select("text.empty-text")
    .attr("x", innerWidth / 2)
    .text(rows.length === 0 ? data.emptyText : "");

  // Rows, keyed by chunk id, oldest first.
  const rowSel: RowSel = plot
    .select<SVGGElement>("g.rows")
    .selectAll<SVGGElement, RowLayout>("g.chunk-row")
    .data(rows, (d) => d.key)
    .join(
      (enter) => {
        const g = enter
          .append("g")
          .attr("class", "chunk-row")
          .attr("transform", (d) => `translate(0,${d.y - (duration ? 10 : 0)})`)
          .style("opacity", duration ? 0 : 1);
        buildRow(g);
        return g;
      },
      (update) => update,
      // A chunk that went back to the base allocator is gone at once.
      (exit) => exit.remove(),
    );
  rowSel
    .attr("class", (d) => `chunk-row${d.view.current ? " is-current" : ""}`)
    .attr("role", "group")
    .attr("aria-label", (d) => chunkLabel(d.view))
    .attr("data-chunk-id", (d) => d.view.chunk.id)
    .attr("data-capacity", (d) => d.view.chunk.capacity)
    .attr("data-start", (d) => d.view.chunk.start)
    .attr("data-header", (d) => d.view.chunk.header)
    .attr("data-footer", (d) => d.view.chunk.footer)
    .attr("data-used", (d) => d.view.used);
  rowSel
    .transition("row")
    .duration(duration)
    .attr("transform", (d) => `translate(0,${d.y})`)
    .style("opacity", 1);

  rowSel.each(function (row) {
    drawRow(select<SVGGElement, RowLayout>(this), row, data, innerWidth, duration);
  });

  // The bump pointer, in the current chunk's row.
  const pointerRow = rows.find((r) => r.pointer !== null);
  const ptr = plot
    .select<SVGGElement>("g.bump-pointer")
    .attr("display", pointerRow ? null : "none")
    .attr("aria-label", data.bumpPtr !== undefined ? `bump pointer at ${hex(data.bumpPtr)}, bumping ${data.direction}` : null)
    .attr("data-address", data.bumpPtr ?? null)
    .attr("data-direction", data.direction)
    .attr("data-chunk", pointerRow ? pointerRow.view.chunk.id : null);
  if (pointerRow?.pointer) {
    const p = pointerRow.pointer;
    // A pointer that changed rows jumps there; within a row it glides.
    const moved = ptr.attr("data-row-y") !== String(pointerRow.y);
    ptr.attr("data-row-y", pointerRow.y);
    const t = ptr.transition("ptr").duration(moved ? 0 : duration);
    t.attr("transform", `translate(0,${pointerRow.y})`);
    t.select("line.ptr-line").attr("x1", p.x).attr("x2", p.x);
    t.select("path.ptr-head").attr("d", `M${p.x - 5},${BAR_Y - 7} h10 l-5,7 z`);
    t.select("line.ptr-arrow").attr("x1", p.x).attr("x2", p.tip).attr("display", p.tip === p.x ? "none" : null);
    ptr.select("text.ptr-text").attr("text-anchor", p.anchor).text(p.text);
    t.select("text.ptr-text").attr("x", p.textX);
  }
}

function drawRow<P extends BaseType, PD>(
  g: Selection<SVGGElement, RowLayout, P, PD>,
  row: RowLayout,
  data: MemoryMapData,
  innerWidth: number,
  animate: number,
): void {
  const { view, x, usable } = row;
  const node = g.node();
  const rescaled = !node || previousGeometry.get(node) !== row.geometry;
  if (node) previousGeometry.set(node, row.geometry);
  const duration = rescaled ? 0 : animate;

  g.select("text.row-title").attr("x", 0).text(row.title);
  g.select("text.row-fill").attr("x", innerWidth).text(row.fill);
  g.select("rect.chunk-free").attr("x", usable.x0).attr("width", usable.x1 - usable.x0);
  g.select("rect.chunk-outline").attr("x", 0).attr("width", innerWidth);

  // The used bytes: from the bump origin to the pointer (or the chunk's fill).
  const origin = data.direction === "down" ? usable.x1 : usable.x0;
  const usedW = (view.chunk.capacity ? view.used / view.chunk.capacity : 0) * (usable.x1 - usable.x0);
  g.select<SVGRectElement>("rect.chunk-used")
    .transition("used")
    .duration(duration)
    .attr("x", data.direction === "down" ? origin - usedW : origin)
    .attr("width", usedW);

  // Header or footer: chunk metadata, solid and labelled.
  g.select<SVGGElement>("g.meta-regions")
    .selectAll<SVGGElement, MetaRegion>("g.meta")
    .data(row.meta, (d) => d.kind)
    .join((enter) => {
      const m = enter.append("g").attr("class", "meta");
      m.append("rect").attr("class", "meta-body").attr("y", BAR_Y).attr("height", BAR_H);
      m.append("text").attr("class", "meta-label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
      m.append("title");
      return m;
    })
    .attr("data-meta", (d) => d.kind)
    .attr("data-bytes", (d) => d.bytes)
    .call((m) => {
      m.select("rect.meta-body").attr("x", (d) => d.x).attr("width", (d) => d.width);
      m.select("text.meta-label")
        .attr("x", (d) => d.x + d.width / 2)
        .text((d) => d.label);
      m.select("title").text((d) => `${d.kind}: ${bytes(d.bytes)} of chunk metadata`);
    });

  // Axis: hex addresses of the usable bytes.
  const axis = axisBottom(x)
    .tickValues(tickValues(view.chunk.start, view.chunk.capacity, usable.x1 - usable.x0, (a) => axisWidth(hex(a))))
    .tickFormat((d) => hex(Number(d)))
    .tickSizeOuter(0)
    .tickSize(4);
  g.select<SVGGElement>("g.axis").call(axis);

  // Blocks, keyed by the op that placed them.
  const labelOf = new Map<number, PlacedLabel>(row.labels.map((l) => [l.id, l]));
  const bodyX = (b: Block): number => x(b.address);
  const bodyW = (b: Block): number => Math.max(1.5, x(b.address + b.size) - x(b.address));
  const focus = data.focus;
  const groups = g
    .select<SVGGElement>("g.blocks")
    .selectAll<SVGGElement, Block>("g.block")
    .data(view.blocks, (d) => d.id)
    .join(
      (enter) => {
        const b = enter.append("g").attr("class", "block").style("opacity", 0);
        b.append("rect").attr("class", "pad").attr("y", BAR_Y + 1).attr("height", BAR_H - 2);
        b.append("rect").attr("class", "body").attr("y", BAR_Y + 1).attr("height", BAR_H - 2).attr("rx", 2);
        b.append("text").attr("class", "label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
        b.append("title");
        b.call((s) => placeBlock(s, x, bodyX, bodyW));
        return b;
      },
      (update) => update,
      (exit) => {
        // Leave the accessibility tree and the tests' selectors at once; fade out.
        exit
          .attr("class", "block-exit")
          .attr("role", null)
          .attr("aria-label", null)
          .attr("data-block", null)
          .attr("aria-hidden", "true")
          .transition()
          .duration(duration)
          .style("opacity", 0)
          .remove();
      },
    );
  groups
    .attr("class", (d) => `block is-${d.state}${focus.has(d.id) ? " is-current" : ""}`)
    .attr("role", "img")
    .attr("aria-label", blockLabel)
    .attr("data-block", (d) => d.name)
    .attr("data-id", (d) => d.id)
    .attr("data-chunk", (d) => d.chunk)
    .attr("data-address", (d) => d.address)
    .attr("data-size", (d) => d.size)
    .attr("data-padding", (d) => d.padding)
    .attr("data-state", (d) => d.state)
    .style("--block-fill", (d) => blockColour(d.id).fill)
    .style("--block-ink", (d) => blockColour(d.id).ink);
  groups.select("title").text(blockLabel);
  groups
    .select<SVGTextElement>("text.label")
    .text((d) => {
      const l = labelOf.get(d.id);
      return l?.mode === "inside" ? l.text : "";
    })
    .attr("x", (d) => labelOf.get(d.id)?.x ?? 0);
  groups.transition().duration(duration).style("opacity", 1);
  if (duration > 0) groups.transition("geometry").duration(duration).call((t) => placeBlock(t, x, bodyX, bodyW));
  else placeBlock(groups, x, bodyX, bodyW);

  // Callouts for blocks too narrow for their name: lane 0 above the bar, lane 1 in the title line.
  const callouts = row.labels.filter((l): l is Extract<PlacedLabel, { mode: "callout" }> => l.mode === "callout");
  const textY = (d: { lane: number }): number => (d.lane === 0 ? LANE0_Y : TITLE_Y);
  g.select<SVGGElement>("g.callouts")
    .selectAll<SVGGElement, (typeof callouts)[number]>("g.callout")
    .data(callouts, (d) => d.id)
    .join((enter) => {
      const c = enter.append("g").attr("class", "callout");
      c.append("line").attr("class", "leader");
      c.append("text").attr("class", "callout-text");
      return c;
    })
    .attr("class", (d) => `callout is-${view.blocks.find((b) => b.id === d.id)?.state ?? "live"}`)
    .call((c) => {
      c.select("line.leader")
        .attr("x1", (d) => d.anchorX)
        .attr("x2", (d) => d.anchorX)
        .attr("y1", (d) => textY(d) + 3)
        .attr("y2", BAR_Y);
      c.select("text.callout-text")
        .attr("x", (d) => d.x)
        .attr("y", textY)
        .text((d) => d.text);
    });
}

type Placeable = Selection<SVGGElement, Block, SVGGElement, unknown>;

function placeBlock(
  s: Placeable | ReturnType<Placeable["transition"]>,
  x: ScaleLinear<number, number>,
  bodyX: (b: Block) => number,
  bodyW: (b: Block) => number,
): void {
  // Selections and transitions share attr(); TypeScript needs the two calls split.
  const pad = (d: Block): [number, number] => [x(d.paddingStart), x(d.paddingStart + d.padding) - x(d.paddingStart)];
  if ("duration" in s) {
    s.select("rect.pad").attr("x", (d) => pad(d)[0]).attr("width", (d) => pad(d)[1]);
    s.select("rect.body").attr("x", bodyX).attr("width", bodyW);
  } else {
    s.select("rect.pad").attr("x", (d) => pad(d)[0]).attr("width", (d) => pad(d)[1]);
    s.select("rect.body").attr("x", bodyX).attr("width", bodyW);
  }
}
