// The memory map: every chunk that exists at the step, one row each, oldest
// first. A row is drawn to scale within itself, low addresses on the left,
// on its own hex axis: its header or footer at the ends, the blocks it holds
// with their padding, the used and the free bytes. The current chunk (the one
// holding the bump pointer) is highlighted and carries the pointer.
//
// Rows are joined by chunk id and blocks by the op that placed them, so both
// keep their elements, colours and positions as the view steps; a block a
// realloc made slides from the block it replaced.
//
// Zoom and pan act on the address axis of every row at once (d3-zoom, with
// buttons and the +, - and 0 keys). The zoom is view state kept per mount: it
// survives new traces that keep a chunk, and resets when none is kept. Rows
// draw only the blocks in view; a row with more than DETAIL_LIMIT of them in
// view (or packed tighter than 2 px apiece) draws bins of fill instead (mapBins.ts), so 100,000 blocks pan and zoom
// at the cost of one pass over them. A row reads its blocks from the chunk's
// held index (model/held.ts: the TraceView's columns, sorted by address once
// per step): a binary search finds those in view, and only they become
// objects; bins are summed from the columns.
//
// Stepping redraws only what changed: a row whose drawing (blocks, labels,
// bins, axis, fill) is the same as last time is left alone, and the width is
// the one a ResizeObserver last saw (no layout forced mid-render).
//
// Benchmark: `renderMemoryMap(container, data)` draws synchronously, so
// performance.now() around it times a render; mapBench.ts builds the data for
// N blocks from a synthetic TraceView (`syntheticMapData(n)`) and wraps the
// timing (`timeMapRender(container, n)`, and `timeMapSeek(container, n, step)`
// for a step of a million-op trace, in milliseconds).

import { axisBottom } from "d3-axis";
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { pointer, select, type BaseType, type Selection } from "d3-selection";
import "d3-transition";
import { zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type ZoomBehavior } from "d3-zoom";
import type { ChunkInfo, Direction } from "../../engine/types";
import type { Block } from "../../model/blocks";
import type { ChunkView } from "../../model/chunks";
import type { HeldRow } from "../../model/held";
import { bytes, hex } from "../../model/format";
import { h, setText } from "../dom";
import { layoutLabels, type LabelItem, type PlacedLabel } from "./labelLayout";
import type { Bin } from "../../model/bins";
import { binCard, blockCard, createCardElement, hideCard, showCard } from "./card";
import {
  addressTicks,
  BYTE_GRID_MIN_PX,
  clampZoom,
  IDENTITY,
  keepsZoom,
  layoutKeys,
  maxZoom,
  visibleAddresses,
  zoomAbout,
  zoomX,
  type AxisZoom,
} from "./scale";
import "./memoryMap.css";

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
  /** The traced program's lines: a block's card quotes the line of the op that made it. */
  sourceLines?: readonly string[];
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
/** A row with more blocks than this in view draws bins instead of blocks. */
export const DETAIL_LIMIT = 400;
/** A row whose blocks in view average less room than this each draws bins too. */
const MIN_BLOCK_SPACING_PX = 2;
/** Pixels per bin in a binned row. */
const BIN_PX = 2;
/** Each zoom button press or key scales by this. */
const ZOOM_STEP = 2;

// ---- Text widths: measured with a canvas when there is one, else estimated.

let canvas: CanvasRenderingContext2D | null | undefined;
const widths = new Map<string, number>();
/**
 * Widths kept at most: labels carry addresses and byte counts, so playing a
 * million-op trace would otherwise add one entry per step. Past this the
 * oldest half goes (a Map iterates in insertion order).
 */
const MAX_WIDTHS = 4096;
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
  if (widths.size >= MAX_WIDTHS) {
    let drop = MAX_WIDTHS / 2;
    for (const k of widths.keys()) {
      if (drop-- <= 0) break;
      widths.delete(k);
    }
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

// ---- Layout (pure: data, width and zoom in, positions out).

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
  /** The pointer's address is out of view: drawn pinned to the nearer edge. */
  offscreen: boolean;
}

export interface RowLayout {
  view: ChunkView;
  key: number;
  y: number;
  /** Usable bytes to (zoomed) pixels. */
  x: ScaleLinear<number, number>;
  /** The usable bytes' zoomed pixel extent (may reach past the view). */
  usable: { x0: number; x1: number };
  /** Addresses in view. */
  visible: { lo: number; hi: number };
  /** Pixels per byte at this zoom. */
  bytePx: number;
  meta: MetaRegion[];
  title: string;
  fill: string;
  /** Blocks drawn one by one: those in view, unless there are too many. */
  shown: Block[];
  /** Blocks in view; when more than DETAIL_LIMIT, the row draws `bins`. */
  inView: number;
  bins: Bin[] | null;
  labels: PlacedLabel[];
  pointer: Pointer | null;
  ticks: number[];
  /** Byte boundaries drawn as a grid when a byte is at least BYTE_GRID_MIN_PX wide. */
  grid: number[];
  /** Changes when the row's scale does: blocks then jump instead of gliding. */
  geometry: string;
}

/** Label layouts by their inputs: a row that did not change between steps is not laid out again. */
const labelCache = new Map<string, PlacedLabel[]>();
const LABEL_CACHE = 64;

function cachedLabels(
  items: LabelItem[],
  innerWidth: number,
  reserved: { lane: number; left: number; right: number }[],
): PlacedLabel[] {
  const key = [
    innerWidth,
    reserved.map((r) => `${r.lane},${r.left},${r.right}`).join(";"),
    ...items.map((i) => `${i.id},${i.x0},${i.x1},${i.full},${i.short}`),
  ].join("\n");
  const hit = labelCache.get(key);
  if (hit) return hit;
  const labels = layoutLabels(items, { measure: labelWidth, inset: 4, lanes: 2, width: innerWidth, gap: 6, reserved });
  labelCache.set(key, labels);
  if (labelCache.size > LABEL_CACHE) {
    const oldest = labelCache.keys().next();
    if (!oldest.done) labelCache.delete(oldest.value);
  }
  return labels;
}

/** Blocks of a chunk (by address) with bytes in [lo, hi]: indices into its held row. */
function blocksInView(held: HeldRow, lo: number, hi: number): { from: number; to: number } {
  return { from: held.firstEndingAfter(lo), to: held.endBefore(hi + (hi === lo ? 1 : 0)) };
}

function layoutRow(
  view: ChunkView,
  y: number,
  innerWidth: number,
  direction: Direction,
  bumpPtr: number | undefined,
  z: AxisZoom,
): RowLayout {
  const { chunk } = view;
  const total = chunk.header + chunk.capacity + chunk.footer;
  // Metadata is to scale, but never narrower than its label.
  const metaWidth = (n: number, label: string): number =>
    n > 0 ? Math.min(innerWidth * 0.3, Math.max((n / total) * innerWidth, labelWidth(label) + 12)) : 0;
  const headerLabel = `header ${chunk.header} B`;
  const footerLabel = `footer ${chunk.footer} B`;
  const hw = metaWidth(chunk.header, headerLabel);
  const fw = metaWidth(chunk.footer, footerLabel);
  const base = { x0: hw, x1: innerWidth - fw };
  const usable = { x0: zoomX(z, base.x0), x1: zoomX(z, base.x1) };
  const end = chunk.start + chunk.capacity;
  const x = scaleLinear().domain([chunk.start, end]).range([usable.x0, usable.x1]);
  const visible = visibleAddresses(chunk, base.x0, base.x1, innerWidth, z);
  const bytePx = chunk.capacity > 0 ? (usable.x1 - usable.x0) / chunk.capacity : 0;
  const meta: MetaRegion[] = [];
  if (hw > 0) meta.push({ kind: "header", bytes: chunk.header, x: zoomX(z, 0), width: hw * z.k, label: headerLabel });
  if (fw > 0) meta.push({ kind: "footer", bytes: chunk.footer, x: usable.x1, width: fw * z.k, label: footerLabel });

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
    const at = x(bumpPtr);
    const px = Math.min(Math.max(at, Math.max(0, usable.x0)), Math.min(innerWidth, usable.x1));
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
    pointer = { x: px, tip, textX, anchor, text, offscreen: at < -0.5 || at > innerWidth + 0.5 };
    const left = anchor === "end" ? textX - textW : textX;
    reserved.push({ lane: 0, left: Math.min(left, px, tip) - 1, right: Math.max(left + textW, px, tip) + 1 });
  }

  // Only the blocks in view are drawn; too many of them and the row draws bins.
  const range = blocksInView(view.held, visible.lo, visible.hi);
  const inView = Math.max(0, range.to - range.from);
  const viewX0 = Math.max(0, usable.x0);
  const viewX1 = Math.min(innerWidth, usable.x1);
  // Blocks packed tighter than MIN_BLOCK_SPACING_PX would draw as noise: bin them too.
  const detailed = inView <= DETAIL_LIMIT && (inView === 0 || (viewX1 - viewX0) / inView >= MIN_BLOCK_SPACING_PX);
  const shown = detailed ? view.held.slice(range.from, range.to) : [];
  const bins = detailed ? null : view.held.bins(visible.lo, visible.hi, Math.max(1, Math.ceil((viewX1 - viewX0) / BIN_PX)));

  const labels = cachedLabels(
    shown.map((b) => {
      // Labels go over the part of a block that is in view.
      const x0 = Math.max(0, x(b.address));
      const x1 = Math.min(innerWidth, x(b.address) + Math.max(1.5, x(b.address + b.size) - x(b.address)));
      // A block a moving realloc left behind says so where it has room.
      const full = b.state === "leaked" ? `${b.name} · leaked` : `${b.name} · ${b.size} B`;
      return { id: b.id, x0, x1: Math.max(x0, x1), full, short: b.name };
    }),
    innerWidth,
    reserved,
  );

  const edges = [chunk.start, end];
  const ticks = addressTicks(visible.lo, visible.hi, viewX1 - viewX0, {
    spacing: 84,
    edges,
    labelWidth: (a) => axisWidth(hex(a)),
  });
  const grid: number[] = [];
  if (bytePx >= BYTE_GRID_MIN_PX) {
    for (let a = Math.ceil(visible.lo); a <= visible.hi; a++) if (a > chunk.start && a < end) grid.push(a);
  }
  const geometry = `${innerWidth}|${chunk.start}|${chunk.capacity}|${hw}|${fw}|${z.k}|${z.x}`;
  return {
    view,
    key: chunk.id,
    y,
    x,
    usable,
    visible,
    bytePx,
    meta,
    title,
    fill,
    shown,
    inView,
    bins,
    labels,
    pointer,
    ticks,
    grid,
    geometry,
  };
}

/** The unzoomed usable pixel width of each row: what the zoom limits are computed from. */
function baseUsableWidth(view: ChunkView, innerWidth: number): number {
  const { chunk } = view;
  const total = chunk.header + chunk.capacity + chunk.footer;
  const metaWidth = (n: number, label: string): number =>
    n > 0 ? Math.min(innerWidth * 0.3, Math.max((n / total) * innerWidth, labelWidth(label) + 12)) : 0;
  return innerWidth - metaWidth(chunk.header, `header ${chunk.header} B`) - metaWidth(chunk.footer, `footer ${chunk.footer} B`);
}

export function layoutMap(data: MemoryMapData, width: number, z: AxisZoom = IDENTITY): { rows: RowLayout[]; height: number } {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const rows = data.rows.map((view, i) => layoutRow(view, i * (ROW_H + ROW_GAP), innerWidth, data.direction, data.bumpPtr, z));
  const height = rows.length === 0 ? EMPTY_H : rows.length * (ROW_H + ROW_GAP) - ROW_GAP + 4;
  return { rows, height };
}

// ---- The mount: toolbar, svg, card and the view state kept between renders.

type Svg = Selection<SVGSVGElement, unknown, null, undefined>;

interface Mount {
  root: HTMLElement;
  svg: Svg;
  card: HTMLElement;
  zoomIn: HTMLButtonElement;
  zoomOut: HTMLButtonElement;
  reset: HTMLButtonElement;
  level: HTMLElement;
  note: HTMLElement;
  behaviour: ZoomBehavior<SVGSVGElement, unknown>;
  clipId: string;
  /** The zoom in plot pixels; the source of truth, d3-zoom's state follows it. */
  z: AxisZoom;
  /** Where an animated zoom is heading: key presses in quick succession build on it, not on a frame. */
  target: AxisZoom | undefined;
  kMax: number;
  innerWidth: number;
  /** The chunk layout the zoom was set on (mapScale.layoutKeys). */
  keys: string[];
  data: MemoryMapData | undefined;
  /** The previous data render's rows, when this one animates: where realloc slides start. */
  previous: readonly ChunkView[];
  /** While true, zoom events come from this module syncing d3-zoom: no redraw. */
  syncing: boolean;
  /** Block ids under the pointer and with keyboard focus: the card shows the first. */
  hovered: number | undefined;
  focused: number | undefined;
  /** The bin under the pointer in a binned row: its row's chunk id and the pointer's x in plot pixels. */
  hoveredBin: { chunk: number; x: number } | undefined;
  /**
   * The map's width as last laid out (a ResizeObserver keeps it): reading
   * clientWidth while rendering would force a layout of the whole page in the
   * middle of the frame. Undefined until first measured.
   */
  measured: number | undefined;
  resize: ResizeObserver | undefined;
}

const mounts = new WeakMap<HTMLElement, Mount>();
let mountCount = 0;

/** d3-zoom works in svg coordinates; the map's zoom is in plot coordinates (shifted by the left margin). */
function toD3(z: AxisZoom): ReturnType<typeof zoomIdentity.translate> {
  return zoomIdentity.translate(z.x - (z.k - 1) * MARGIN.left, 0).scale(z.k);
}

function buildDefs(svg: Svg, clipId: string): void {
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
  // Zoomed content stays inside the plot's width (row coordinates).
  defs.append("clipPath").attr("id", clipId).append("rect").attr("class", "clip-rect").attr("x", 0).attr("y", 0).attr("height", ROW_H);
}

function zoomButton(label: string, text: string): HTMLButtonElement {
  return h("button", { type: "button", class: "map-zoom-button", "aria-label": label, title: label }, text);
}

function mount(container: HTMLElement): Mount {
  const existing = mounts.get(container);
  if (existing && existing.root.isConnected && existing.root.parentElement === container) return existing;
  existing?.resize?.disconnect();
  mountCount += 1;
  const clipId = `bl-clip-${mountCount}`;
  const cardId = `bl-card-${mountCount}`;
  const zoomIn = zoomButton("Zoom in", "+");
  const zoomOut = zoomButton("Zoom out", "−");
  const reset = h("button", { type: "button", class: "map-zoom-button map-zoom-reset", "aria-label": "Reset zoom" }, "Reset zoom");
  const level = h("span", { class: "map-zoom-level", "data-testid": "zoom-level" }, "1×");
  const hint = h("span", { class: "map-zoom-hint" }, "+ − 0 keys, Ctrl+wheel to zoom, drag to pan");
  const toolbar = h("div", { class: "map-toolbar", role: "toolbar", "aria-label": "Memory map zoom" }, zoomOut, zoomIn, reset, level, hint);
  const note = h("p", { class: "map-lod-note", role: "status", hidden: true });
  const frame = h("div", { class: "map-frame" });
  const card = createCardElement(cardId);
  const root = h("div", { class: "map-view", "data-view": "memory-map" }, toolbar, note, frame);
  container.replaceChildren(root);

  const svg: Svg = select(frame)
    .append("svg")
    .attr("class", "memory-map")
    .attr("role", "group")
    .attr("tabindex", 0)
    .attr("aria-roledescription", "memory map");
  buildDefs(svg, clipId);
  const plot = svg.append("g").attr("class", "plot").attr("transform", `translate(${MARGIN.left},0)`);
  plot.append("g").attr("class", "rows");
  const empty = plot.append("g").attr("class", "map-empty").attr("role", "note");
  empty.append("rect").attr("class", "empty-box").attr("y", 8).attr("height", EMPTY_H - 16).attr("rx", 6);
  empty.append("text").attr("class", "empty-text").attr("y", EMPTY_H / 2).attr("dy", "0.35em");
  const ptr = plot.append("g").attr("class", "bump-pointer").attr("role", "img");
  ptr.append("line").attr("class", "ptr-line").attr("y1", PTR_Y - 5).attr("y2", BAR_Y + BAR_H + 4);
  ptr.append("path").attr("class", "ptr-head");
  ptr.append("line").attr("class", "ptr-arrow").attr("y1", PTR_Y).attr("y2", PTR_Y).attr("marker-end", "url(#bl-arrow)");
  ptr.append("text").attr("class", "ptr-text").attr("y", PTR_Y).attr("dy", "0.35em");
  frame.append(card);

  const behaviour = d3zoom<SVGSVGElement, unknown>()
    // The wheel scrolls the page unless Ctrl or ⌘ is held (a trackpad pinch sets Ctrl).
    .filter((event: Event) => {
      if (event.type === "wheel") return (event as WheelEvent).ctrlKey || (event as WheelEvent).metaKey;
      return !(event as MouseEvent).ctrlKey && !(event as MouseEvent).button;
    });
  const m: Mount = {
    root,
    svg,
    card,
    zoomIn,
    zoomOut,
    reset,
    level,
    note,
    behaviour,
    clipId,
    z: IDENTITY,
    target: undefined,
    kMax: 1,
    innerWidth: 0,
    keys: [],
    data: undefined,
    previous: [],
    syncing: false,
    hovered: undefined,
    focused: undefined,
    hoveredBin: undefined,
    measured: undefined,
    resize: undefined,
  };
  if (typeof ResizeObserver !== "undefined") {
    // Called after layout: clientWidth is then read without forcing one. The
    // app re-renders on a resize of its own, which picks the new width up.
    m.resize = new ResizeObserver(() => {
      m.measured = root.clientWidth || container.clientWidth;
    });
    m.resize.observe(root);
  }
  behaviour.on("zoom", (event: D3ZoomEvent<SVGSVGElement, unknown>) => {
    const t = event.transform;
    m.z = { k: t.k, x: t.x + (t.k - 1) * MARGIN.left };
    // A wheel or a drag takes over from any animated zoom.
    if (event.sourceEvent) m.target = undefined;
    if (!m.syncing) draw(m, 0);
  });
  svg.call(behaviour).on("dblclick.zoom", null);
  // Vertical swipes still scroll the page on touch screens.
  svg.style("touch-action", "pan-y");

  const zoomBy = (factor: number): void => {
    // About the focused block when there is one, else the middle of the view.
    const focusedBody = m.focused !== undefined ? blockBody(m, m.focused) : null;
    let cx = m.innerWidth / 2;
    if (focusedBody) {
      const r = focusedBody.getBoundingClientRect();
      const s = m.svg.node()?.getBoundingClientRect();
      if (s) cx = r.left + r.width / 2 - s.left - MARGIN.left;
    }
    setZoom(m, zoomAbout(m.target ?? m.z, factor, cx, m.innerWidth, m.kMax), true);
  };
  zoomIn.addEventListener("click", () => zoomBy(ZOOM_STEP));
  zoomOut.addEventListener("click", () => zoomBy(1 / ZOOM_STEP));
  reset.addEventListener("click", () => setZoom(m, IDENTITY, true));
  root.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return;
    if (event.target instanceof HTMLButtonElement && (event.key === " " || event.key === "Enter")) return;
    if (event.key === "+" || event.key === "=") zoomBy(ZOOM_STEP);
    else if (event.key === "-" || event.key === "_") zoomBy(1 / ZOOM_STEP);
    else if (event.key === "0") setZoom(m, IDENTITY, true);
    else return;
    event.preventDefault();
  });
  // The card is fixed in the viewport: it follows its block when the page or the map scrolls.
  const follow = (): void => {
    if (!m.card.hidden) updateCard(m);
  };
  container.addEventListener("scroll", follow, { passive: true });
  window.addEventListener("scroll", follow, { passive: true });
  mounts.set(container, m);
  return m;
}

/** Moves the zoom to `z` (animated when the data allows), keeping d3-zoom's state in step. */
function setZoom(m: Mount, z: AxisZoom, animated: boolean): void {
  const node = m.svg.node();
  if (!node) return;
  const duration = animated && m.data?.animate ? DURATION : 0;
  if (duration > 0) {
    m.target = z;
    m.svg
      .transition("zoom")
      .duration(duration)
      .call(m.behaviour.transform, toD3(z))
      .on("end", () => {
        m.target = undefined;
      });
  } else {
    m.target = undefined;
    m.svg.interrupt("zoom");
    m.svg.call(m.behaviour.transform, toD3(z));
  }
}

/** The zoom's limits: the plot's width in view, zoomed from 1x to kMax. */
function setExtents(m: Mount, height: number): void {
  const left = MARGIN.left;
  const box: [[number, number], [number, number]] = [
    [left, 0],
    [left + m.innerWidth, Math.max(1, height)],
  ];
  m.behaviour.extent(box).translateExtent(box).scaleExtent([1, m.kMax]);
}

/** Sets d3-zoom's stored transform to the map's zoom without drawing (after a reset or a resize). */
function syncZoom(m: Mount): void {
  m.target = undefined;
  m.syncing = true;
  m.svg.interrupt("zoom");
  m.svg.call(m.behaviour.transform, toD3(m.z));
  m.syncing = false;
}

function blockBody(m: Mount, id: number): SVGRectElement | null {
  return m.svg.node()?.querySelector<SVGRectElement>(`g.block[data-id="${id}"] rect.body`) ?? null;
}

/** Shows the card of the hovered bin, else the hovered (else focused) block, or hides it. */
function updateCard(m: Mount): void {
  if (m.hoveredBin && showBinCard(m, m.hoveredBin)) return;
  const id = m.hovered ?? m.focused;
  const block = id !== undefined ? findIn(m.data?.rows ?? [], id) : undefined;
  const body = id !== undefined ? blockBody(m, id) : null;
  if (!block || !body) {
    hideCard(m.card);
    return;
  }
  const r = body.getBoundingClientRect();
  // Only the part of a block in view: a zoomed block may reach far past the map.
  const frame = m.svg.node()?.getBoundingClientRect();
  const left = Math.max(r.left, frame?.left ?? r.left);
  const right = Math.min(r.right, frame?.right ?? r.right);
  showCard(
    m.card,
    blockCard(block, m.data?.sourceLines),
    { left, top: r.top, width: Math.max(0, right - left), height: r.height },
    { width: window.innerWidth, height: window.innerHeight },
  );
}

/** The card of the bin at plot pixel `x` in chunk `chunk`'s row, if that row is binned. */
function showBinCard(m: Mount, at: { chunk: number; x: number }): boolean {
  const g = m.svg.node()?.querySelector<SVGGElement>(`g.chunk-row[data-chunk-id="${at.chunk}"]`);
  const row = g ? select<SVGGElement, RowLayout>(g).datum() : undefined;
  const bar = g?.querySelector("rect.chunk-outline")?.getBoundingClientRect();
  if (!row?.bins || !bar) return false;
  const address = row.x.invert(at.x);
  const bin = row.bins.find((b) => address >= b.lo && address < b.hi) ?? row.bins[row.bins.length - 1];
  if (!bin) return false;
  const x0 = Math.max(0, row.x(bin.lo));
  const x1 = Math.min(m.innerWidth, row.x(bin.hi));
  showCard(
    m.card,
    binCard(bin),
    { left: bar.left + x0, top: bar.top, width: Math.max(1, x1 - x0), height: bar.height },
    { width: window.innerWidth, height: window.innerHeight },
  );
  return true;
}

// ---- Drawing.

type RowSel = Selection<SVGGElement, RowLayout, SVGGElement, unknown>;

function buildRow(g: Selection<SVGGElement, RowLayout, SVGGElement, unknown>, clipId: string): void {
  g.append("rect").attr("class", "row-accent").attr("x", -MARGIN.left + 8).attr("y", 2).attr("width", 3).attr("height", ROW_H - 4).attr("rx", 1.5);
  g.append("text").attr("class", "row-title").attr("y", TITLE_Y);
  g.append("text").attr("class", "row-fill").attr("y", TITLE_Y).attr("text-anchor", "end");
  const bar = g.append("g").attr("class", "bar").attr("clip-path", `url(#${clipId})`);
  bar.append("rect").attr("class", "chunk-free").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("rect").attr("class", "chunk-used").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("g").attr("class", "meta-regions");
  const bins = bar.append("g").attr("class", "bins").attr("aria-hidden", "true");
  bins.append("path").attr("class", "bin-live");
  bins.append("path").attr("class", "bin-dead");
  bins.append("path").attr("class", "bin-pad");
  // Catches the pointer over a binned row: the card then sums the bin under it.
  bins.append("rect").attr("class", "bin-hit").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("g").attr("class", "blocks");
  bar.append("path").attr("class", "byte-grid").attr("aria-hidden", "true");
  g.append("rect").attr("class", "chunk-outline").attr("y", BAR_Y).attr("height", BAR_H).attr("rx", 3);
  g.append("g").attr("class", "callouts").attr("aria-hidden", "true");
  g.append("g").attr("class", "axis").attr("aria-hidden", "true").attr("transform", `translate(0,${AXIS_Y})`);
}

const previousGeometry = new WeakMap<SVGGElement, string>();

/** The block op `id` placed, in whichever of `rows` holds it: O(rows). */
function findIn(rows: readonly ChunkView[], id: number): Block | undefined {
  for (const r of rows) {
    const b = r.held.find(id);
    if (b) return b;
  }
  return undefined;
}

/** The block in `rows` a realloc made of block `id` (its successor), if any: O(rows). */
function successorIn(rows: readonly ChunkView[], id: number): Block | undefined {
  for (const r of rows) {
    const b = r.held.successor(id);
    if (b) return b;
  }
  return undefined;
}

/**
 * Draws `data` into `container` (building the map on first use). Synchronous:
 * the map is drawn when it returns, so a benchmark can time it.
 */
export function renderMemoryMap(container: HTMLElement, data: MemoryMapData): void {
  const m = mount(container);
  const before = m.data;
  // Only animated renders slide blocks; the previous rows answer by id in O(rows).
  m.previous = data.animate ? (before?.rows ?? []) : [];
  m.data = data;
  if (!m.measured) m.measured = m.root.clientWidth || container.clientWidth;
  const width = Math.max(260, Math.round(m.measured || 720));
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const was = m.z;
  // A new width keeps the same part of the addresses in view.
  if (m.innerWidth > 0 && innerWidth !== m.innerWidth) m.z = { k: m.z.k, x: (m.z.x * innerWidth) / m.innerWidth };
  m.innerWidth = innerWidth;
  const keys = layoutKeys(data.rows.map((r) => r.chunk));
  if (!keepsZoom(m.keys, keys)) m.z = IDENTITY;
  if (keys.length > 0) m.keys = keys;
  m.kMax = data.rows.reduce((k, r) => Math.max(k, maxZoom(r.chunk.capacity, baseUsableWidth(r, innerWidth))), 1);
  m.z = clampZoom(m.z, innerWidth, m.kMax);
  // Only a zoom this render changed is pushed to d3-zoom: an animated zoom in flight keeps going.
  if (m.z.k !== was.k || m.z.x !== was.x) syncZoom(m);
  draw(m, data.animate ? DURATION : 0);
}

function draw(m: Mount, animate: number): void {
  const data = m.data;
  if (!data) return;
  const innerWidth = m.innerWidth;
  const width = innerWidth + MARGIN.left + MARGIN.right;
  const { rows, height } = layoutMap(data, width, m.z);
  setExtents(m, height);
  const duration = animate;
  const svg = m.svg;
  const first = rows[0]?.view.chunk;
  const current = rows.find((r) => r.view.current)?.view.chunk;
  const blockCount = rows.reduce((n, r) => n + r.view.held.count, 0);
  const binned = rows.filter((r) => r.bins !== null).length;
  svg
    .attr("width", width)
    .attr("height", height)
    .attr("viewBox", `0 0 ${width} ${height}`)
    .attr("data-chunks", rows.length)
    .attr("data-chunk-start", first ? first.start : null)
    .attr("data-chunk-capacity", first ? first.capacity : null)
    .attr("data-current-chunk", current ? current.id : null)
    .attr("data-zoom", m.z.k)
    .classed("is-zoomed", m.z.k > 1)
    .attr("data-binned-rows", binned)
    .attr(
      "aria-label",
      rows.length === 0
        ? data.emptyText
        : `${rows.length} ${rows.length === 1 ? "chunk" : "chunks"}, ${blockCount} ${blockCount === 1 ? "block" : "blocks"}`,
    );
  svg.select("rect.clip-rect").attr("width", innerWidth);

  // Toolbar: the zoom level and which buttons can act.
  const k = m.z.k;
  setText(m.level, `${k < 10 ? Math.round(k * 10) / 10 : Math.round(k)}×`);
  m.zoomIn.disabled = rows.length === 0 || k >= m.kMax;
  m.zoomOut.disabled = k <= 1;
  m.reset.disabled = k <= 1 && m.z.x === 0;
  const note = lodSummary(blockCount, rows.length, binned);
  setText(m.note, note);
  m.note.hidden = note === "";

  const plot = svg.select<SVGGElement>("g.plot");

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
        // A new chunk fades in and grows out of its row from the left.
        const g = enter
          .append("g")
          .attr("class", "chunk-row")
          .attr("transform", (d) => `translate(0,${d.y - (duration ? 10 : 0)})`)
          .style("opacity", duration ? 0 : 1);
        buildRow(g, m.clipId);
        g.select<SVGRectElement>("rect.bin-hit")
          .on("pointermove", function (event: PointerEvent, d: RowLayout) {
            m.hoveredBin = { chunk: d.key, x: pointer(event, this)[0] };
            updateCard(m);
          })
          .on("pointerleave", () => {
            m.hoveredBin = undefined;
            updateCard(m);
          });
        if (duration) {
          g.select("g.bar").attr("transform", "scale(0.2,1)").transition("grow").duration(duration * 1.5).attr("transform", "scale(1,1)");
        }
        return g;
      },
      (update) => update,
      (exit) => {
        // A chunk that went back to the base allocator (or, stepping back, was
        // not made yet) leaves the accessibility tree and the tests' selectors
        // at once, then shrinks and fades: the reverse of its entrance.
        exit
          .attr("class", "chunk-row-exit")
          .attr("role", null)
          .attr("aria-label", null)
          .attr("data-chunk-id", null)
          .attr("aria-hidden", "true")
          .selectAll("g.block")
          .attr("class", "block-exit")
          .attr("role", null)
          .attr("aria-label", null)
          .attr("data-block", null)
          .attr("tabindex", null);
        if (!duration) {
          exit.remove();
          return;
        }
        exit.select("g.bar").transition("grow").duration(duration).attr("transform", "scale(0.2,1)");
        exit.transition("row").duration(duration).style("opacity", 0).remove();
      },
    );
  rowSel
    .attr("class", (d) => `chunk-row${d.view.current ? " is-current" : ""}${d.bins ? " is-binned" : ""}`)
    .attr("role", "group")
    .attr("aria-label", (d) => chunkLabel(d.view))
    .attr("data-chunk-id", (d) => d.view.chunk.id)
    .attr("data-capacity", (d) => d.view.chunk.capacity)
    .attr("data-start", (d) => d.view.chunk.start)
    .attr("data-header", (d) => d.view.chunk.header)
    .attr("data-footer", (d) => d.view.chunk.footer)
    .attr("data-used", (d) => d.view.used)
    .attr("data-view-start", (d) => Math.floor(d.visible.lo))
    .attr("data-view-end", (d) => Math.ceil(d.visible.hi))
    .attr("data-blocks-in-view", (d) => d.inView);
  rowSel
    .transition("row")
    .duration(duration)
    .attr("transform", (d) => `translate(0,${d.y})`)
    .style("opacity", 1);

  rowSel.each(function (row) {
    drawRow(m, select<SVGGElement, RowLayout>(this), row, data, innerWidth, duration);
  });

  // The bump pointer, in the current chunk's row.
  const pointerRow = rows.find((r) => r.pointer !== null);
  const ptr = plot
    .select<SVGGElement>("g.bump-pointer")
    .attr("display", pointerRow ? null : "none")
    .attr("aria-label", data.bumpPtr !== undefined ? `bump pointer at ${hex(data.bumpPtr)}, bumping ${data.direction}` : null)
    .attr("data-address", data.bumpPtr ?? null)
    .attr("data-direction", data.direction)
    .attr("data-chunk", pointerRow ? pointerRow.view.chunk.id : null)
    .classed("is-offscreen", pointerRow?.pointer?.offscreen ?? false);
  if (pointerRow?.pointer) {
    const p = pointerRow.pointer;
    // A pointer that changed rows jumps there; within a row it glides.
    const moved = ptr.attr("data-row-y") !== String(pointerRow.y) || ptr.attr("data-geometry") !== pointerRow.geometry;
    ptr.attr("data-row-y", pointerRow.y).attr("data-geometry", pointerRow.geometry);
    const d = moved ? 0 : duration;
    if (d === 0) ptr.interrupt("ptr");
    const t = ptr.transition("ptr").duration(d);
    t.attr("transform", `translate(0,${pointerRow.y})`);
    t.select("line.ptr-line").attr("x1", p.x).attr("x2", p.x);
    t.select("path.ptr-head").attr("d", `M${p.x - 5},${BAR_Y - 7} h10 l-5,7 z`);
    t.select("line.ptr-arrow").attr("x1", p.x).attr("x2", p.tip).attr("display", p.tip === p.x ? "none" : null);
    ptr.select("text.ptr-text").attr("text-anchor", p.anchor).text(p.text);
    t.select("text.ptr-text").attr("x", p.textX);
  }
  updateCard(m);
}

/** Path data for one rectangle per bin, `value(bin)` of BAR_H tall, stacked above `below(bin)`. */
function binPath(row: RowLayout, value: (b: Bin) => number, below: (b: Bin) => number): string {
  const bins = row.bins ?? [];
  const parts: string[] = [];
  for (const bin of bins) {
    const w = bin.hi - bin.lo;
    const v = value(bin);
    if (!(w > 0) || v <= 0) continue;
    const x0 = row.x(bin.lo);
    const x1 = row.x(bin.hi);
    // Anything taken shows at least a hairline: a bin of one 8-byte block must not vanish.
    const hgt = Math.max(1.5, (Math.min(1, v / w) * (BAR_H - 2)));
    const base = BAR_Y + BAR_H - 1 - (Math.min(1, below(bin) / w) * (BAR_H - 2));
    parts.push(`M${x0.toFixed(1)},${(base - hgt).toFixed(1)}h${Math.max(0.5, x1 - x0).toFixed(1)}v${hgt.toFixed(1)}h${(-Math.max(0.5, x1 - x0)).toFixed(1)}z`);
  }
  return parts.join("");
}

/** What a row drew, per row element: a redraw with the same signature is skipped. */
const drawnSignature = new WeakMap<SVGGElement, string>();

/** Everything drawRow draws from, as one string (its blocks' fields, labels, bins, axis, fill). */
function rowSignature(row: RowLayout, data: MemoryMapData, innerWidth: number, binD: string[] | null): string {
  const { view } = row;
  const parts: (string | number)[] = [
    row.geometry,
    innerWidth,
    data.direction,
    row.title,
    row.fill,
    view.used,
    view.chunk.capacity,
    view.current ? 1 : 0,
    row.ticks.join(","),
    row.grid.length,
    row.meta.map((r) => `${r.kind}:${r.x}:${r.width}:${r.label}`).join(","),
    binD ? binD.join("|") : "-",
  ];
  for (const b of row.shown) {
    parts.push(`${b.id}:${b.name}:${b.state}:${data.focus.has(b.id) ? 1 : 0}:${b.chunk}:${b.address}:${b.size}:${b.align}:${b.padding}:${b.paddingStart}`);
  }
  for (const l of row.labels) parts.push(JSON.stringify(l));
  return parts.join("\n");
}

function drawRow<P extends BaseType, PD>(
  m: Mount,
  g: Selection<SVGGElement, RowLayout, P, PD>,
  row: RowLayout,
  data: MemoryMapData,
  innerWidth: number,
  animate: number,
): void {
  const { view, x, usable } = row;
  const node = g.node();
  // Bins first: their paths are part of what the row draws.
  const binD = row.bins
    ? [
        binPath(row, (b) => b.live, () => 0),
        binPath(row, (b) => b.dead, (b) => b.live),
        binPath(row, (b) => b.padding, (b) => b.live + b.dead),
        (row.bins.reduce((n, b) => n + binFill(b), 0) / Math.max(1, row.bins.length)).toFixed(3),
      ]
    : null;
  // A row drawing exactly what it drew last time is left alone: stepping
  // redraws only the rows the step changed (a large map has many rows).
  const signature = rowSignature(row, data, innerWidth, binD);
  if (node && drawnSignature.get(node) === signature) return;
  if (node) drawnSignature.set(node, signature);
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
  const used = g.select<SVGRectElement>("rect.chunk-used");
  if (duration === 0) used.interrupt("used");
  used
    .transition("used")
    .duration(duration)
    .attr("x", data.direction === "down" ? origin - usedW : origin)
    .attr("width", usedW);

  // Header or footer: chunk metadata, solid and labelled.
  g.select<SVGGElement>("g.meta-regions")
    .selectAll<SVGGElement, MetaRegion>("g.meta")
    .data(row.meta, (d) => d.kind)
    .join((enter) => {
      const mg = enter.append("g").attr("class", "meta");
      mg.append("rect").attr("class", "meta-body").attr("y", BAR_Y).attr("height", BAR_H);
      mg.append("text").attr("class", "meta-label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
      mg.append("title");
      return mg;
    })
    .attr("data-meta", (d) => d.kind)
    .attr("data-bytes", (d) => d.bytes)
    .call((mg) => {
      mg.select("rect.meta-body").attr("x", (d) => d.x).attr("width", (d) => d.width);
      mg.select("text.meta-label")
        .attr("x", (d) => d.x + d.width / 2)
        .text((d) => d.label);
      mg.select("title").text((d) => `${d.kind}: ${bytes(d.bytes)} of chunk metadata`);
    });

  // Axis: hex addresses of the usable bytes in view, re-ticked at every zoom.
  const axis = axisBottom(x)
    .tickValues(row.ticks)
    .tickFormat((d) => hex(Math.round(Number(d))))
    .tickSizeOuter(0)
    .tickSize(4);
  g.select<SVGGElement>("g.axis").call(axis);

  // One grid line per byte boundary once a byte is wide enough to count.
  g.select("path.byte-grid")
    .attr("data-lines", row.grid.length)
    .attr("d", row.grid.map((a) => `M${x(a).toFixed(1)},${BAR_Y + 1}v${BAR_H - 2}`).join(""));

  // Binned rows: fill per bin, live at the bottom, then dead bytes, then padding.
  const bins = g.select<SVGGElement>("g.bins").attr("display", row.bins ? null : "none").attr("data-bins", row.bins?.length ?? 0);
  bins.select("path.bin-live").attr("d", binD?.[0] ?? "");
  bins.select("path.bin-dead").attr("d", binD?.[1] ?? "");
  bins.select("path.bin-pad").attr("d", binD?.[2] ?? "");
  bins.select("rect.bin-hit").attr("x", 0).attr("width", innerWidth);
  if (binD) bins.attr("data-fill", binD[3] ?? "0");

  drawBlocks(m, g, row, data, duration);
}

type Placeable = Selection<SVGGElement, Block, SVGGElement, unknown>;

interface Geometry {
  padX: number;
  padW: number;
  bodyX: number;
  bodyW: number;
}

function geometryOf(x: ScaleLinear<number, number>, b: Pick<Block, "address" | "size" | "padding" | "paddingStart">): Geometry {
  return {
    padX: x(b.paddingStart),
    padW: x(b.paddingStart + b.padding) - x(b.paddingStart),
    bodyX: x(b.address),
    bodyW: Math.max(1.5, x(b.address + b.size) - x(b.address)),
  };
}

function place(s: Placeable | ReturnType<Placeable["transition"]>, geo: (b: Block) => Geometry): void {
  // Selections and transitions share attr(); TypeScript needs the two calls split.
  if ("duration" in s) {
    s.select("rect.pad").attr("x", (d) => geo(d).padX).attr("width", (d) => geo(d).padW);
    s.select("rect.body").attr("x", (d) => geo(d).bodyX).attr("width", (d) => geo(d).bodyW);
  } else {
    s.select("rect.pad").attr("x", (d) => geo(d).padX).attr("width", (d) => geo(d).padW);
    s.select("rect.body").attr("x", (d) => geo(d).bodyX).attr("width", (d) => geo(d).bodyW);
  }
}

function drawBlocks<P extends BaseType, PD>(
  m: Mount,
  g: Selection<SVGGElement, RowLayout, P, PD>,
  row: RowLayout,
  data: MemoryMapData,
  duration: number,
): void {
  const { view, x } = row;
  const labelOf = new Map<number, PlacedLabel>(row.labels.map((l) => [l.id, l]));
  const focus = data.focus;
  const now = (b: Block): Geometry => geometryOf(x, b);
  // The chunk's blocks by id (O(1) each, from the held index).
  const here = (id: number): Block | undefined => view.held.find(id);
  // Where a block slides in from: the block a realloc replaced (stepping
  // forward), or the realloc's block that replaced it (stepping back).
  const slideFrom = (b: Block): Block | undefined => {
    if (duration === 0) return undefined;
    if (b.from !== undefined && !findIn(m.previous, b.id)) {
      const old = findIn(m.previous, b.from) ?? here(b.from);
      if (old && old.chunk === b.chunk) return old;
    }
    const later = successorIn(m.previous, b.id);
    if (later && later.chunk === b.chunk && !here(later.id)) return later;
    return undefined;
  };
  const groups = g
    .select<SVGGElement>("g.blocks")
    .selectAll<SVGGElement, Block>("g.block")
    .data(row.shown, (d) => d.id)
    .join(
      (enter) => {
        const b = enter
          .append("g")
          .attr("class", "block")
          .attr("tabindex", 0)
          .style("opacity", duration ? 0 : 1);
        b.append("rect").attr("class", "pad").attr("y", BAR_Y + 1).attr("height", BAR_H - 2);
        b.append("rect").attr("class", "body").attr("y", BAR_Y + 1).attr("height", BAR_H - 2).attr("rx", 2);
        b.append("text").attr("class", "label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
        b.append("title");
        b.on("pointerenter", (_event: PointerEvent, d: Block) => {
          m.hovered = d.id;
          updateCard(m);
        })
          .on("pointerleave", (_event: PointerEvent, d: Block) => {
            if (m.hovered === d.id) m.hovered = undefined;
            updateCard(m);
          })
          .on("focus", (_event: FocusEvent, d: Block) => {
            m.focused = d.id;
            updateCard(m);
          })
          .on("blur", (_event: FocusEvent, d: Block) => {
            if (m.focused === d.id) m.focused = undefined;
            updateCard(m);
          });
        // A realloc's block starts where the block it replaced was, then slides.
        place(b, (d) => now(slideFrom(d) ?? d));
        b.filter((d) => slideFrom(d) !== undefined).style("opacity", 1);
        return b;
      },
      (update) => update,
      (exit) => {
        // Leave the accessibility tree, the tab order and the tests' selectors at once.
        const gone = exit
          .attr("class", "block-exit")
          .attr("role", null)
          .attr("aria-label", null)
          .attr("data-block", null)
          .attr("tabindex", null)
          .attr("aria-hidden", "true");
        if (duration === 0) {
          gone.remove();
          return;
        }
        // Stepping back over a realloc: its block slides back onto the one it replaced.
        const t = gone.transition().duration(duration);
        t.call((tt) =>
          place(tt, (d) => {
            const back = d.from !== undefined ? here(d.from) : undefined;
            return geometryOf(x, back && back.chunk === d.chunk ? back : d);
          }),
        );
        t.style("opacity", 0).remove();
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
  // Tab order follows addresses, whatever order the blocks entered in.
  groups.order();
  groups.select("title").text(blockLabel);
  groups
    .select<SVGTextElement>("text.label")
    .text((d) => {
      const l = labelOf.get(d.id);
      return l?.mode === "inside" ? l.text : "";
    })
    .attr("x", (d) => labelOf.get(d.id)?.x ?? 0);
  if (duration > 0) {
    groups.transition().duration(duration).style("opacity", 1);
    groups.transition("geometry").duration(duration).call((t) => place(t, now));
  } else {
    groups.interrupt().interrupt("geometry").style("opacity", 1);
    place(groups, now);
  }

  // Callouts for blocks too narrow for their name: lane 0 above the bar, lane 1 in the title line.
  const callouts = row.labels.filter((l): l is Extract<PlacedLabel, { mode: "callout" }> => l.mode === "callout");
  const stateOf = new Map(row.shown.map((b) => [b.id, b.state] as const));
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
    .attr("class", (d) => `callout is-${stateOf.get(d.id) ?? "live"}`)
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

/** Taken bytes of a bin (live, dead and padding) over its width, 0..1. */
export function binFill(bin: Bin): number {
  const w = bin.hi - bin.lo;
  return w > 0 ? Math.min(1, (bin.live + bin.dead + bin.padding) / w) : 0;
}

/**
 * What a screen reader (and everyone) is told when rows are binned:
 * "100000 blocks in 1 chunk; zoom in to see blocks". Empty when every row
 * draws its blocks one by one.
 */
export function lodSummary(blocks: number, chunks: number, binnedRows: number): string {
  if (binnedRows === 0) return "";
  const b = `${blocks} ${blocks === 1 ? "block" : "blocks"}`;
  const c = `${chunks} ${chunks === 1 ? "chunk" : "chunks"}`;
  const which = binnedRows === chunks ? "" : ` (${binnedRows} of them drawn as fill)`;
  return `${b} in ${c}${which}; zoom in to see blocks`;
}
