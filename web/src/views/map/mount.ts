// The map's mount: toolbar, svg, card and the view state kept between
// renders, one per container. Zoom and pan act on the address axis of every
// row at once (d3-zoom, with buttons and the +, - and 0 keys); the zoom kept
// here in plot pixels is the source of truth and d3-zoom's state follows it.
// The card shows the block (or bin) under the pointer or with keyboard focus.

import { select, type Selection } from "d3-selection";
import type {} from "d3-transition";
import type { D3ZoomEvent, ZoomBehavior } from "d3-zoom";
import type { ChunkView } from "../../model/chunks";
import { appendMapDefs, type MapDefIds } from "../../share/mapDefs";
import { h } from "../dom";
import { setStyle } from "./attrs";
import { binCard, blockCard, createCardElement, showCard } from "./card";
import { BAR_H, BAR_Y, blockIn, EMPTY_H, MARGIN, PTR_Y, ROW_H, type MapLayout, type MemoryMapData, type RowLayout } from "./layout";
import { animatable, stopMotion } from "./motion";
import { IDENTITY, zoomAbout, type AxisZoom } from "./scale";

/** How long an animated step or zoom takes, in milliseconds. */
export const DURATION = 220;
/** Each zoom button press or key scales by this. */
const ZOOM_STEP = 2;

type Svg = Selection<SVGSVGElement, unknown, null, undefined>;

export interface Mount {
  root: HTMLElement;
  svg: Svg;
  card: HTMLElement;
  /** Hidden in a figure, which has no zoom. */
  toolbar: HTMLElement;
  zoomIn: HTMLButtonElement;
  zoomOut: HTMLButtonElement;
  reset: HTMLButtonElement;
  level: HTMLElement;
  note: HTMLElement;
  /**
   * d3-zoom's behaviour, once its module has loaded: it is fetched after the
   * map's first render, not before it (an embed's first map needs no zoom).
   * Until then a zoom is set directly and the extents are kept for it.
   */
  behaviour: ZoomBehavior<SVGSVGElement, unknown> | null;
  /** The zoom's last extents (setExtents), applied when the behaviour arrives. */
  extent?: [[number, number], [number, number]];
  /** Draws the map again (after a zoom set before the behaviour arrived). */
  redraw: () => void;
  clipId: string;
  /** The zoom in plot pixels; the source of truth, d3-zoom's state follows it. */
  z: AxisZoom;
  /** Where an animated zoom is heading: key presses in quick succession build on it, not on a frame. */
  target?: AxisZoom;
  kMax: number;
  innerWidth: number;
  /** The chunk layout the zoom was set on (scale.ts layoutKeys). */
  keys: string[];
  data?: MemoryMapData;
  /** A layout made ahead of its render (prepareMemoryMap): taken when the render's data, width and zoom are the same. */
  prepared?: { data: MemoryMapData; width: number; z: AxisZoom; layout: MapLayout } | undefined;
  /** The previous data render's rows, when this one animates: where realloc slides start. */
  previous: readonly ChunkView[];
  /** While true, zoom events come from this module syncing d3-zoom: no redraw. */
  syncing: boolean;
  /** How many more blocks may enter in this draw (a progressive map's budget). */
  enterBudget: number;
  /** A progressive draw left blocks out: the task that draws them after the next frame is queued. */
  catchUp?: boolean;
  /** Block ids under the pointer and with keyboard focus: the card shows the first. */
  hovered?: number;
  focused?: number;
  /** The bin under the pointer in a binned row: its row's chunk id and the pointer's x in plot pixels. */
  hoveredBin?: { chunk: number; x: number };
  /**
   * The map's width as last laid out (a ResizeObserver keeps it): reading
   * clientWidth while rendering would force a layout of the whole page in the
   * middle of the frame. Undefined until first measured.
   */
  measured?: number;
  resize?: ResizeObserver;
  /** The svg height the map keeps room for (MemoryMapData.reserveRows), null when it keeps none. */
  kept: number | null;
  /** The toolbar's and note's height above the map's frame, measured after layout. */
  chrome: number;
}

const mounts = new WeakMap<HTMLElement, Mount>();
let mountCount = 0;

/** d3-zoom's module, once loaded: when a reader first reaches for a map, or once the page is idle. */
let d3Zoom: typeof import("d3-zoom") | null = null;
let d3ZoomLoading: Promise<typeof import("d3-zoom")> | null = null;
/** The maps mounted before the module arrived: each takes up its behaviour then. */
const waiting = new Set<(zoom: typeof import("d3-zoom")) => void>();

/** d3-zoom works in svg coordinates; the map's zoom is in plot coordinates (shifted by the left margin). */
function toD3(zoom: typeof import("d3-zoom"), z: AxisZoom): ReturnType<typeof zoom.zoomIdentity.translate> {
  return zoom.zoomIdentity.translate(z.x - (z.k - 1) * MARGIN.left, 0).scale(z.k);
}

/** The map's patterns and arrow (ids of its own: share/mapDefs.ts) and the clip of its zoomed rows. */
function buildDefs(svg: Svg, clipId: string): MapDefIds {
  const defs = svg.append("defs");
  const ids = appendMapDefs(svg.node()!, defs.node()!);
  // Zoomed content stays inside the plot's width (row coordinates).
  defs.append("clipPath").attr("id", clipId).append("rect").attr("class", "clip-rect").attr("x", 0).attr("y", 0).attr("height", ROW_H);
  return ids;
}

function zoomButton(label: string, text: string): HTMLButtonElement {
  return h("button", { type: "button", class: "map-zoom-button", "aria-label": label, title: label }, text);
}

/**
 * The map in `container`, built on first use (or when something replaced it).
 * `redraw` draws the map again after a zoom or pan.
 */
/** The map already built in `container`, if any. */
export const mountOf = (container: HTMLElement): Mount | undefined => mounts.get(container);

export function mount(container: HTMLElement, redraw: (m: Mount) => void): Mount {
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
  const defIds = buildDefs(svg, clipId);
  const plot = svg.append("g").attr("class", "plot").attr("transform", `translate(${MARGIN.left},0)`);
  plot.append("g").attr("class", "rows");
  const empty = plot.append("g").attr("class", "map-empty").attr("role", "note");
  empty.append("rect").attr("class", "empty-box").attr("y", 8).attr("height", EMPTY_H - 16).attr("rx", 6);
  empty.append("text").attr("class", "empty-text").attr("y", EMPTY_H / 2).attr("dy", "0.35em");
  const ptr = plot.append("g").attr("class", "bump-pointer").attr("role", "img");
  ptr.append("line").attr("class", "ptr-line").attr("y1", PTR_Y - 5).attr("y2", BAR_Y + BAR_H + 4);
  ptr.append("path").attr("class", "ptr-head");
  ptr.append("line").attr("class", "ptr-arrow").attr("y1", PTR_Y).attr("y2", PTR_Y).attr("marker-end", `url(#${defIds.arrow})`);
  ptr.append("text").attr("class", "ptr-text").attr("y", PTR_Y).attr("dy", "0.35em");
  frame.append(card);

  const m: Mount = {
    root,
    svg,
    card,
    toolbar,
    zoomIn,
    zoomOut,
    reset,
    level,
    note,
    behaviour: null,
    redraw: () => redraw(m),
    clipId,
    z: IDENTITY,
    kMax: 1,
    innerWidth: 0,
    keys: [],
    previous: [],
    syncing: false,
    enterBudget: Infinity,
    kept: null,
    chrome: 0,
  };
  if (typeof ResizeObserver !== "undefined") {
    // Called after layout: clientWidth is then read without forcing one. The
    // app re-renders on a resize of its own, which picks the new width up.
    m.resize = new ResizeObserver(() => {
      m.measured = root.clientWidth || container.clientWidth;
      // After layout, so read without forcing one: a note that came or went changes the room to keep.
      const chrome = Math.round(frame.getBoundingClientRect().top - root.getBoundingClientRect().top);
      if (chrome !== m.chrome) {
        m.chrome = chrome;
        keepRoom(m, m.kept);
      }
    });
    m.resize.observe(root);
  }
  const attach = (zoom: typeof import("d3-zoom")): void => {
    if (m.behaviour || mounts.get(container) !== m) return;
    const behaviour = zoom
      .zoom<SVGSVGElement, unknown>()
      // The wheel scrolls the page unless Ctrl or ⌘ is held (a trackpad pinch sets Ctrl).
      .filter((event: Event) => {
        if (event.type === "wheel") return (event as WheelEvent).ctrlKey || (event as WheelEvent).metaKey;
        return !(event as MouseEvent).ctrlKey && !(event as MouseEvent).button;
      });
    behaviour.on("zoom", (event: D3ZoomEvent<SVGSVGElement, unknown>) => {
      const t = event.transform;
      m.z = { k: t.k, x: t.x + (t.k - 1) * MARGIN.left };
      // A wheel or a drag takes over from any animated zoom.
      if (event.sourceEvent) m.target = undefined;
      if (!m.syncing) redraw(m);
    });
    m.behaviour = behaviour;
    if (m.extent) behaviour.extent(m.extent).translateExtent(m.extent).scaleExtent([1, m.kMax]);
    svg.call(behaviour).on("dblclick.zoom", null);
    syncZoom(m);
  };
  if (d3Zoom) attach(d3Zoom);
  else {
    // When the reader reaches for the map, or once the page is idle after drawing it.
    const load = (): void => {
      if (d3ZoomLoading) return;
      d3ZoomLoading = import("d3-zoom").then((zoom) => (d3Zoom = zoom));
      d3ZoomLoading.then(
        (zoom) => {
          for (const attachTo of waiting) attachTo(zoom);
          waiting.clear();
        },
        () => {
          // Offline after the page loaded: the buttons and keys still zoom; the wheel and drag do not.
        },
      );
    };
    for (const type of ["pointerenter", "focusin", "touchstart"]) root.addEventListener(type, load, { once: true, passive: true });
    waiting.add(attach);
    if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: 3000 });
    else setTimeout(load, 1500);
  }
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

/**
 * Makes the map's container keep room for an svg `kept` pixels tall with the
 * toolbar and note above it (null: no room kept), up to the container's own
 * maximum height: the page below then does not move as rows come and go.
 * The same value at every step of a run, the step with the most rows
 * too, since a change of it restyles and lays out the container.
 */
export function keepRoom(m: Mount, kept: number | null): void {
  m.kept = kept;
  const container = m.root.parentElement;
  if (container) setStyle(container, "--map-kept-height", kept === null ? "" : `${kept + m.chrome}px`);
}

/** Moves the zoom to `z` (animated when the data allows), keeping d3-zoom's state in step. */
function setZoom(m: Mount, z: AxisZoom, animated: boolean): void {
  const node = m.svg.node();
  if (!node) return;
  const behaviour = m.behaviour;
  if (!behaviour || !d3Zoom) {
    // Before d3-zoom has loaded: the zoom set at once (the behaviour takes it up when it arrives).
    m.target = undefined;
    m.z = z;
    m.redraw();
    return;
  }
  const duration = animated && m.data?.animate && animatable() ? DURATION : 0;
  if (duration > 0) {
    m.target = z;
    m.svg
      .transition("zoom")
      .duration(duration)
      .call(behaviour.transform, toD3(d3Zoom, z))
      .on("end", () => {
        m.target = undefined;
      });
  } else {
    m.target = undefined;
    stopMotion(m.svg, "zoom");
    m.svg.call(behaviour.transform, toD3(d3Zoom, z));
  }
}

/** The zoom's limits: the plot's width in view, zoomed from 1x to kMax. */
export function setExtents(m: Mount, height: number): void {
  const left = MARGIN.left;
  const box: [[number, number], [number, number]] = [
    [left, 0],
    [left + m.innerWidth, Math.max(1, height)],
  ];
  m.extent = box;
  m.behaviour?.extent(box).translateExtent(box).scaleExtent([1, m.kMax]);
}

/** Sets d3-zoom's stored transform to the map's zoom without drawing (after a reset or a resize). */
export function syncZoom(m: Mount): void {
  m.target = undefined;
  if (!m.behaviour || !d3Zoom) return;
  m.syncing = true;
  stopMotion(m.svg, "zoom");
  m.svg.call(m.behaviour.transform, toD3(d3Zoom, m.z));
  m.syncing = false;
}

function blockBody(m: Mount, id: number): SVGRectElement | null {
  return m.svg.node()?.querySelector<SVGRectElement>(`g.block[data-id="${id}"] rect.body`) ?? null;
}

/** Shows the card of the hovered bin, else the hovered (else focused) block, or hides it. */
export function updateCard(m: Mount): void {
  if (m.hoveredBin && showBinCard(m, m.hoveredBin)) return;
  const id = m.hovered ?? m.focused;
  const block = id !== undefined ? blockIn(m.data?.rows ?? [], id) : undefined;
  const body = id !== undefined ? blockBody(m, id) : null;
  if (!block || !body) {
    m.card.hidden = true;
    return;
  }
  const r = body.getBoundingClientRect();
  // Only the part of a block in view: a zoomed block may reach far past the map.
  const frame = m.svg.node()?.getBoundingClientRect();
  const left = Math.max(r.left, frame?.left ?? r.left);
  const right = Math.min(r.right, frame?.right ?? r.right);
  showCard(m.card, blockCard(block, m.data?.sourceLines), { left, top: r.top, width: Math.max(0, right - left), height: r.height });
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
  showCard(m.card, binCard(bin), { left: bar.left + x0, top: bar.top, width: Math.max(1, x1 - x0), height: bar.height });
  return true;
}
