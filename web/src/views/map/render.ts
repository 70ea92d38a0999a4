// The memory map: every chunk that exists at the step, one row each, oldest
// first, drawn to scale within itself (layout.ts) on its own hex axis. The
// current chunk (the one holding the bump pointer) is highlighted and carries
// the pointer. Rows are joined by chunk id, so each keeps its element as the
// view steps.
//
// The zoom is view state kept per mount (mount.ts): it survives traces that
// keep a chunk, and resets when none is kept. Rows draw only the blocks in
// view; a row with more than DETAIL_LIMIT of them in view (or packed tighter
// than 2 px apiece) draws bins of fill instead, summed from the chunk's held
// index (model/held.ts), so 100,000 blocks pan and zoom at the cost of one
// pass over them.
//
// Stepping redraws only what changed: a row whose drawing (blocks, labels,
// bins, axis, fill) is the same as last time is left alone, and the width is
// the one a ResizeObserver last saw (no layout forced mid-render).
// `renderMemoryMap` draws synchronously, so timing it times a render
// (bench.ts).
//
// Each mark is drawn by a module of its own: the rows (rows.ts) and the
// blocks in them (blocks.ts), the bump pointer (pointer.ts), the toolbar
// (toolbar.ts); a progressive map's later frames are scheduled apart
// (schedule.ts). This module lays the map out and calls them in turn.

import type { Selection } from "d3-selection";
import { attr, setAttr, setStyle, text } from "./attrs";
import { ENTER_PER_FRAME } from "./blocks";
import { baseUsableWidth, keepsHeight, layoutMap, MARGIN, type MapLayout, svgHeight, type MemoryMapData, type RowLayout } from "./layout";
import { DURATION, keepRoom, mount, mountOf, setExtents, syncZoom, updateCard, type Mount } from "./mount";
import { clampZoom, IDENTITY, keepsZoom, layoutKeys, maxZoom, type AxisZoom } from "./scale";
import { animatable, loadMotionWhenIdle } from "./motion";
import { drawPointer } from "./pointer";
import { binData, drawRows } from "./rows";
import { catchUpAfterFrame } from "./schedule";
import { drawToolbar } from "./toolbar";
import "./memoryMap.css";


/**
 * Draws `data` into `container` (building the map on first use). Synchronous:
 * the map is drawn when it returns, so a benchmark can time it.
 */
export function renderMemoryMap(container: HTMLElement, data: MemoryMapData): void {
  const m = mount(container, (zoomed) => draw(zoomed, 0));
  // Only animated renders slide blocks; the previous rows answer by id in O(rows).
  m.previous = data.animate ? (m.data?.rows ?? []) : [];
  m.data = data;
  if (!m.measured) m.measured = m.root.clientWidth || container.clientWidth;
  const width = Math.max(260, Math.round(m.measured || 720));
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const was = m.z;
  // A new width keeps the same part of the addresses in view.
  if (m.innerWidth > 0 && innerWidth !== m.innerWidth) m.z = { k: m.z.k, x: (m.z.x * innerWidth) / m.innerWidth };
  m.innerWidth = innerWidth;
  const next = zoomFor(m, data, innerWidth);
  if (next.keys.length > 0) m.keys = next.keys;
  m.kMax = next.kMax;
  m.root.classList.toggle("is-figure", data.fit !== undefined);
  m.toolbar.hidden = data.fit !== undefined;
  m.z = next.z;
  // Only a zoom this render changed is pushed to d3-zoom: an animated zoom in flight keeps going.
  if (m.z.k !== was.k || m.z.x !== was.x) syncZoom(m);
  draw(m, data.animate && animatable() ? DURATION : 0);
  // The next draws may slide: d3-transition is fetched once the page is idle after the first.
  if (!animatable()) loadMotionWhenIdle();
}

/** The zoom `data` is drawn at in `m` at `innerWidth`, with the keys it keeps and the most zoom its rows allow. */
function zoomFor(m: Mount, data: MemoryMapData, innerWidth: number): { z: AxisZoom; keys: string[]; kMax: number } {
  const keys = layoutKeys(data.rows.map((r) => r.chunk));
  const kept = keepsZoom(m.keys, keys) && !data.fit ? m.z : IDENTITY;
  // A figure's rows are fitted already: no zoom, and no zoom controls.
  const kMax = data.fit ? 1 : data.rows.reduce((k, r) => Math.max(k, maxZoom(r.chunk.capacity, baseUsableWidth(r, innerWidth))), 1);
  return { z: clampZoom(kept, innerWidth, kMax), keys, kMax };
}

/**
 * Lays `data` out as `renderMemoryMap` would draw it now, at the map's width
 * and zoom, and draws nothing: the rows' bins and labels wait in their caches
 * for that render. The map keeps its state; a map not built yet is left alone.
 */
export function prepareMemoryMap(container: HTMLElement, data: MemoryMapData): void {
  const m = mountOf(container);
  if (!m || m.innerWidth <= 0) return;
  const width = m.innerWidth + MARGIN.left + MARGIN.right;
  const z = zoomFor(m, data, m.innerWidth).z;
  const layout = layoutMap(data, width, z);
  // The bins' paths too: drawn from the same bins at the same geometry, they are the same strings.
  for (const row of layout.rows) binData(row);
  m.prepared = { data, width, z, layout };
}

/**
 * The layout of `data` at `width` and the mount's zoom: the prepared one when
 * it is of the same (a progressive map's catch-up draws take it too).
 */
function layoutOf(m: Mount, data: MemoryMapData, width: number): MapLayout {
  const p = m.prepared;
  if (p && p.data === data && p.width === width && p.z.k === m.z.k && p.z.x === m.z.x) return p.layout;
  return layoutMap(data, width, m.z);
}


/** Lays the map out at the mount's width and zoom and draws it, animating for `duration` ms. */
function draw(m: Mount, duration: number): void {
  const data = m.data;
  if (!data) return;
  const innerWidth = m.innerWidth;
  const width = innerWidth + MARGIN.left + MARGIN.right;
  const { rows, height } = layoutOf(m, data, width);
  m.enterBudget = data.progressive ? ENTER_PER_FRAME : Infinity;
  setExtents(m, height);
  const blockCount = rows.reduce((n, r) => n + r.view.held.count, 0);
  const binned = rows.filter((r) => r.bins !== null).length;
  drawFrame(m, data, rows, { width, height, blockCount, binned });
  drawToolbar(m, rows.length, blockCount, binned);
  const plot = m.svg.select<SVGGElement>("g.plot");
  drawEmpty(plot, rows.length === 0 ? data.emptyText : null, innerWidth);
  const whole = drawRows(m, plot.select<SVGGElement>("g.rows"), rows, data, innerWidth, duration);
  drawPointer(plot.select<SVGGElement>("g.bump-pointer"), rows, data, duration);
  updateCard(m);
  if (!whole) catchUpAfterFrame(m, () => draw(m, 0));
}

/**
 * The svg's size and viewBox, and the attributes that say what it shows
 * (its chunks, zoom and blocks: its accessible name and the tests' reading).
 */
function drawFrame(m: Mount, data: MemoryMapData, rows: readonly RowLayout[], size: { width: number; height: number; blockCount: number; binned: number }): void {
  const { width, height, blockCount, binned } = size;
  const svg = m.svg;
  const first = rows[0]?.view.chunk;
  const current = rows.find((r) => r.view.current)?.view.chunk;
  const root = svg.node();
  if (root) {
    // The svg's size and viewBox above all: a write, even of the same value, lays out everything in it.
    const set = (name: string, value: string | number | null): void => setAttr(root, name, value);
    const kept = svgHeight(data, height);
    set("width", width);
    set("height", kept);
    set("viewBox", `0 0 ${width} ${kept}`);
    // The frame shows the rows there are; the rest of a kept height is clipped (an export takes this height).
    set("data-content-height", height);
    const frame = root.parentElement;
    // Set alike at every step of a run, the step with the most rows too: a
    // change of them is a change of style, and lays the map out again.
    const keeping = keepsHeight(data);
    keepRoom(m, keeping ? kept : null);
    if (frame) {
      setStyle(frame, "height", keeping ? `${height}px` : "");
      frame.classList.toggle("keeps-height", keeping);
    }
    set("data-chunks", rows.length);
    set("data-chunk-start", first ? first.start : null);
    set("data-chunk-capacity", first ? first.capacity : null);
    set("data-current-chunk", current ? current.id : null);
    set("data-zoom", m.z.k);
    set("data-min-block-px", data.fit ? data.fit.minBlockPx : null);
    root.classList.toggle("is-zoomed", m.z.k > 1);
    set("data-binned-rows", binned);
    set(
      "aria-label",
      rows.length === 0
        ? data.emptyText
        : `${rows.length} ${rows.length === 1 ? "chunk" : "chunks"}, ${blockCount} ${blockCount === 1 ? "block" : "blocks"}`,
    );
  }
  attr(svg.select("rect.clip-rect"), "width", m.innerWidth);
}

/** The empty state: no chunk exists (a lazy allocator before its first allocation); `emptyText` null: there are rows. */
function drawEmpty(plot: Selection<SVGGElement, unknown, null, undefined>, emptyText: string | null, innerWidth: number): void {
  const empty = attr(plot.select<SVGGElement>("g.map-empty"), "display", emptyText !== null ? null : "none");
  attr(attr(empty.select("rect.empty-box"), "x", 0), "width", innerWidth);
  text(attr(empty.select("text.empty-text"), "x", innerWidth / 2), emptyText ?? "");
}
