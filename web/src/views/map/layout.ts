// The map's pure half: data, width and zoom in, positions out. One row per
// chunk, drawn to scale within itself: header and footer at the ends (never
// narrower than their labels), the blocks in view or bins of fill, label
// placements, the bump pointer, axis ticks and the byte grid. No DOM: text is
// measured with a canvas when there is one, else estimated.

import { scaleLinear, type ScaleLinear } from "d3-scale";
import type { ChunkInfo, Direction } from "../../wasm/types";
import type { Bin } from "../../model/bins";
import type { Block } from "../../model/blocks";
import type { ChunkView } from "../../model/chunks";
import type { HeldRow } from "../../model/held";
import type { MicroAddress, RoomCheck } from "../../model/microMap";
import { hex } from "../../model/format";
import { cutLabel, fittedScale, rowCut, type MapFit } from "./fit";
import { layoutLabels, type LabelItem, type PlacedLabel } from "./labelLayout";
import { chunkReason } from "./labels";
import { addressTicks, BYTE_GRID_MIN_PX, IDENTITY, visibleAddresses, zoomX, type AxisZoom } from "./scale";

export interface MemoryMapData {
  direction: Direction;
  /** The chunks that exist, oldest first, with their blocks and fill. */
  rows: readonly ChunkView[];
  /** The current chunk's bump pointer (undefined while no chunk exists). */
  bumpPtr: number | undefined;
  /** Blocks the current op placed or acted on. */
  focus: ReadonlySet<number>;
  /** Blocks the lesson's narration names (`#> !highlight`): marked apart from the current op's. */
  highlight?: ReadonlySet<number>;
  /**
   * Inside an op (a micro-step before its last): the address its code holds,
   * drawn as a ghost of the bump pointer, and the padding it has decided on
   * but not yet placed.
   */
  micro?: {
    candidate: MicroAddress | null;
    padding: { chunk: number; lo: number; bytes: number } | null;
    /** The block's place, decided and not yet taken. */
    place?: { chunk: number; address: number; size: number; name: string } | null;
    /** At a capacity check: the room it looked at. */
    room?: RoomCheck | null;
  };
  /** What to say when no chunk exists. */
  emptyText: string;
  /** Animate changes (off for reduced motion). */
  animate: boolean;
  /** The traced program's lines: a block's card quotes the line of the op that made it. */
  sourceLines?: readonly string[];
  /**
   * A figure's view (fit.ts): each row narrowed to the bytes the run ever
   * uses, blocks at least `minBlockPx` wide, and no zoom of its own.
   */
  fit?: MapFit;
  /**
   * Drawn while the scrubber is dragged: at most ENTER_PER_FRAME blocks enter
   * per frame, the rest in the frames after (one step of a drag can bring
   * hundreds, and a frame that builds them all stalls the drag).
   */
  progressive?: boolean;
  /**
   * The most chunks the run has at any step. The svg keeps the height of that
   * many rows (up to RESERVED_ROWS_MAX) and its frame shows the rows there
   * are: a step that adds or drops a row then leaves the svg's size alone.
   * Chromium lays out every text of an svg again when the svg changes size,
   * which on a map of thousands of blocks took 12 to 28 ms a time.
   */
  reserveRows?: number;
}

/** Rows an svg keeps room for at most: a run of hundreds of chunks resizes as it goes instead. */
export const RESERVED_ROWS_MAX = 64;

// Geometry of one row (y relative to the row's top).
export const MARGIN = { left: 34, right: 34 };
export const TITLE_Y = 11; // title baseline; also callout lane 1
export const LANE0_Y = 28; // callout lane 0 baseline, just above the bar
export const PTR_Y = 23; // the pointer's arrow, in lane 0
export const BAR_Y = 34;
export const BAR_H = 36;
export const AXIS_Y = BAR_Y + BAR_H;
export const ROW_H = AXIS_Y + 18;
const ROW_GAP = 10;
export const EMPTY_H = 84;
/**
 * The narrowest a block is drawn, in pixels: a 1-byte block in a large chunk
 * stays visible (its card and label still give its true extent).
 */
export const MIN_BLOCK_PX = 3;
/** A row with more blocks than this in view draws bins instead of blocks. */
export const DETAIL_LIMIT = 400;
/** A row whose blocks in view average less room than this each draws bins too. */
const MIN_BLOCK_SPACING_PX = 2;
/** Pixels per bin in a binned row. */
const BIN_PX = 2;

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

// ---- Rows.

export interface MetaRegion {
  kind: "header" | "footer";
  bytes: number;
  x: number;
  width: number;
  label: string;
}

/** A figure row's break: the chunk's bytes past the run's high-water mark, drawn as one labelled gap. */
export interface CutRegion {
  side: "start" | "end";
  bytes: number;
  x: number;
  width: number;
  label: string;
}

/** The ghost of the bump pointer inside an op: the address its code holds at the micro-step in view. */
export interface Ghost {
  address: number;
  name: string;
  x: number;
  /** Outside the chunk (a failed capacity check): drawn pinned to its nearer edge. */
  outside: "below" | "above" | null;
  textX: number;
  anchor: "start" | "end";
  text: string;
}

/** Padding an op has decided on and not yet placed, in pixels. */
export interface PendingPadding {
  x: number;
  width: number;
  lo: number;
  bytes: number;
}

/** The place an op has decided for its block and not yet taken, in pixels. */
export interface PendingPlace {
  x: number;
  width: number;
  address: number;
  size: number;
  name: string;
}

/** The room a capacity check looked at, in pixels: a band over the free bytes it spans. */
export interface RoomMark {
  x: number;
  width: number;
  check: RoomCheck;
  text: string;
  textX: number;
  anchor: "start" | "middle" | "end";
}

interface Pointer {
  x: number;
  tip: number;
  textX: number;
  /** The text's baseline: lane 0 beside the arrow, or lane 1 when it had to go behind the pointer. */
  textY: number;
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
  /** In a figure, the unused bytes left out of the scale; null when the row is drawn whole. */
  cut: CutRegion | null;
  /** The narrowest a block is drawn here, in pixels. */
  minBlockPx: number;
  title: string;
  fill: string;
  /** Blocks drawn one by one: those in view, unless there are too many. */
  shown: Block[];
  /** Blocks in view; when more than DETAIL_LIMIT, the row draws `bins`. */
  inView: number;
  bins: Bin[] | null;
  labels: PlacedLabel[];
  pointer: Pointer | null;
  ghost: Ghost | null;
  pending: PendingPadding | null;
  place: PendingPlace | null;
  room: RoomMark | null;
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

/**
 * A header's or footer's label, as long as its box has room for: "header
 * 16 B", else "16 B", else none (its title still names it). A compare
 * column's row caps the box at 30% of a narrow row, under the long label.
 */
export function metaLabel(kind: "header" | "footer", n: number, width: number): string {
  for (const label of [`${kind} ${n} B`, `${n} B`]) if (labelWidth(label) + 8 <= width) return label;
  return "";
}

/**
 * The unzoomed pixel widths of a chunk's header and footer: to scale, but
 * never narrower than their labels nor wider than 30% of the row.
 */
function metaWidths(chunk: ChunkInfo, innerWidth: number): { header: number; footer: number } {
  const total = chunk.header + chunk.capacity + chunk.footer;
  const width = (n: number, label: string): number =>
    n > 0 ? Math.min(innerWidth * 0.3, Math.max((n / total) * innerWidth, labelWidth(label) + 12)) : 0;
  return { header: width(chunk.header, `header ${chunk.header} B`), footer: width(chunk.footer, `footer ${chunk.footer} B`) };
}

/** The unzoomed usable pixel width of a row: what the zoom limits are computed from. */
export function baseUsableWidth(view: ChunkView, innerWidth: number): number {
  const meta = metaWidths(view.chunk, innerWidth);
  return innerWidth - meta.header - meta.footer;
}

/** The ghost pointer in a row: at its address, or pinned to the chunk's edge it fell past. */
function layoutGhost(
  candidate: MicroAddress,
  chunk: ChunkInfo,
  x: ScaleLinear<number, number>,
  innerWidth: number,
  direction: Direction,
): Ghost {
  const end = chunk.start + chunk.capacity;
  const outside = candidate.address < chunk.start ? "below" : candidate.address > end ? "above" : null;
  const at = x(Math.min(Math.max(candidate.address, chunk.start), end));
  const px = Math.min(Math.max(at, 0), innerWidth);
  const text = `${candidate.name} ${hex(candidate.address)}${outside === "below" ? " (below the chunk)" : outside === "above" ? " (past the chunk)" : ""}`;
  const w = monoWidth(text);
  // The text goes the way the pointer moves, into the free bytes; flipped where the plot ends.
  let anchor: "start" | "end" = direction === "down" ? "end" : "start";
  if (anchor === "end" && px - 6 - w < -MARGIN.left + 2) anchor = "start";
  else if (anchor === "start" && px + 6 + w > innerWidth + MARGIN.right - 2) anchor = "end";
  return { address: candidate.address, name: candidate.name, x: px, outside, textX: anchor === "end" ? px - 6 : px + 6, anchor, text };
}

/** The words in a room check's band: how much room, and whether the block fits in it. */
export function roomText(check: RoomCheck): string {
  const room = check.hi - check.lo;
  return `${room} B from ${check.from} to the chunk's ${check.edge}: ${check.fits ? "fits" : "does not fit"}`;
}

/** A room check's band, its text centred in it and kept inside the bar (which clips it). */
function layoutRoom(check: RoomCheck, x: ScaleLinear<number, number>, innerWidth: number): RoomMark {
  const x0 = Math.min(Math.max(x(check.lo), 0), innerWidth);
  const x1 = Math.min(Math.max(x(check.hi), 0), innerWidth);
  const text = roomText(check);
  const w = monoWidth(text);
  const mid = (x0 + x1) / 2;
  let anchor: RoomMark["anchor"] = "middle";
  let textX = mid;
  if (mid - w / 2 < 4) {
    anchor = "start";
    textX = 4;
  } else if (mid + w / 2 > innerWidth - 4) {
    anchor = "end";
    textX = innerWidth - 4;
  }
  return { x: x0, width: Math.max(0, x1 - x0), check, text, textX, anchor };
}

function layoutRow(
  view: ChunkView,
  y: number,
  innerWidth: number,
  data: MemoryMapData,
  viewZoom: AxisZoom,
): RowLayout {
  // A figure has no zoom of its own: its rows are already fitted to their bytes.
  const z = data.fit ? IDENTITY : viewZoom;
  const { direction, bumpPtr } = data;
  const { chunk } = view;
  const { header: hw, footer: fw } = metaWidths(chunk, innerWidth);
  const end = chunk.start + chunk.capacity;
  const base = { x0: hw, x1: innerWidth - fw };
  // A figure narrows the row to the bytes in use and puts the rest in a break
  // at the far end; the span between is drawn to scale, unzoomed.
  const rc = rowCut(chunk, direction, data.fit);
  let cut: CutRegion | null = null;
  let domain = { lo: chunk.start, hi: end };
  if (rc) {
    // The break takes what its words need, up to 45% of the row; a narrow row says less.
    const room = (base.x1 - base.x0) * 0.45;
    const full = cutLabel(rc.bytes);
    const label = labelWidth(full) + 16 <= room ? full : cutLabel(rc.bytes, true);
    const width = Math.min(room, labelWidth(label) + 16);
    cut = { side: rc.side, bytes: rc.bytes, x: rc.side === "end" ? base.x1 - width : base.x0, width, label };
    if (rc.side === "end") base.x1 -= width;
    else base.x0 += width;
    domain = rc.span;
  }
  const span = domain.hi - domain.lo;
  const usable = { x0: zoomX(z, base.x0), x1: zoomX(z, base.x1) };
  const minBlockPx = Math.max(MIN_BLOCK_PX, data.fit?.minBlockPx ?? 0);
  // A figure's row is linear unless a block would fall under the minimum width; then each block gets it (fittedScale).
  const scale = data.fit ? fittedScale(domain.lo, domain.hi, data.fit.bodies.get(chunk.id), usable.x0, usable.x1, data.fit.minBlockPx) : { domain: [domain.lo, domain.hi], range: [usable.x0, usable.x1] };
  const x = scaleLinear().domain(scale.domain).range(scale.range);
  const visible = visibleAddresses({ start: domain.lo, capacity: span }, base.x0, base.x1, innerWidth, z);
  const bytePx = span > 0 ? (usable.x1 - usable.x0) / span : 0;
  const meta: MetaRegion[] = [];
  if (hw > 0) meta.push({ kind: "header", bytes: chunk.header, x: zoomX(z, 0), width: hw * z.k, label: metaLabel("header", chunk.header, hw * z.k) });
  if (fw > 0) meta.push({ kind: "footer", bytes: chunk.footer, x: zoomX(z, innerWidth - fw), width: fw * z.k, label: metaLabel("footer", chunk.footer, fw * z.k) });

  const fill = `${view.used} / ${chunk.capacity} B used`;
  const reason = chunkReason(chunk);
  const long = `chunk ${chunk.id} · ${chunk.capacity} B usable${reason ? ` · ${reason}` : ""}`;
  const room = innerWidth - titleWidth(fill) - 16;
  // The longest title that clears the fill on its right (a phone's row has room for "chunk 5" alone; the fill still gives the capacity).
  const short = `chunk ${chunk.id}`;
  const title = [long, `${short} · ${chunk.capacity} B`].find((t) => titleWidth(t) <= room) ?? short;

  // Only the blocks in view are drawn; too many of them and the row draws bins.
  const range = blocksInView(view.held, visible.lo, visible.hi);
  const inView = Math.max(0, range.to - range.from);
  const viewX0 = Math.max(0, usable.x0);
  const viewX1 = Math.min(innerWidth, usable.x1);
  // Blocks packed tighter than MIN_BLOCK_SPACING_PX would draw as noise: bin them too.
  const detailed = inView <= DETAIL_LIMIT && (inView === 0 || (viewX1 - viewX0) / inView >= MIN_BLOCK_SPACING_PX);
  const shown = detailed ? view.held.slice(range.from, range.to) : [];
  const bins = detailed ? null : view.held.bins(visible.lo, visible.hi, Math.max(1, Math.ceil((viewX1 - viewX0) / BIN_PX)));

  // The bump pointer: an arrow the way it moves, in the lane above the bar.
  // Block labels keep clear of it and of the title and fill in lane 1.
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
    const left = anchor === "end" ? textX - textW : textX;
    // Behind the pointer the text would lie over the newest blocks, whose
    // names then find no lane: it goes up to lane 1 when the title and fill
    // leave it room there, and lane 0 keeps only the arrow.
    const behind = anchor !== (sign < 0 ? "end" : "start");
    const up = behind && !reserved.some((r) => r.lane === 1 && left < r.right + 2 && left + textW + 2 > r.left);
    // Else, in lane 0, it moves back past the newest block when that block is
    // too narrow for its name, far enough for the name to fit between: the
    // block just placed is the one a reader looks for.
    // The newest block touches the pointer: it ends there bumping up, starts there bumping down.
    const touches = (b: { address: number; size: number } | undefined): boolean =>
      b !== undefined && (sign > 0 ? b.address + b.size === bumpPtr : b.address === bumpPtr);
    const ends = [shown[0], shown[shown.length - 1]];
    const newest = behind && !up ? ends.find(touches) : undefined;
    let shift = 0;
    if (newest) {
      const bx0 = x(newest.address);
      const bx1 = bx0 + Math.max(minBlockPx, x(newest.address + newest.size) - bx0);
      const w = labelWidth(newest.name);
      if (w + 8 > bx1 - bx0) {
        // The callout goes wholly beside its leader, on the text's side (labelLayout.ts).
        const clear = sign > 0 ? bx0 - w - 8 - (left + textW) : bx1 + w + 8 - left;
        if (sign > 0 ? clear < 0 : clear > 0) shift = clear;
      }
    }
    textX += shift;
    pointer = { x: px, tip, textX, textY: up ? TITLE_Y : PTR_Y, anchor, text, offscreen: at < -0.5 || at > innerWidth + 0.5 };
    if (up || shift !== 0) {
      reserved.push(up ? { lane: 1, left: left - 1, right: left + textW + 1 } : { lane: 0, left: left + shift - 1, right: left + shift + textW + 1 });
      reserved.push({ lane: 0, left: Math.min(px, tip) - 1, right: Math.max(px, tip) + 1 });
    } else reserved.push({ lane: 0, left: Math.min(left, px, tip) - 1, right: Math.max(left + textW, px, tip) + 1 });
  }

  const labels = cachedLabels(
    shown.map((b) => {
      // Labels go over the part of a block that is in view.
      const x0 = Math.max(0, x(b.address));
      const x1 = Math.min(innerWidth, x(b.address) + Math.max(minBlockPx, x(b.address + b.size) - x(b.address)));
      // A block a moving realloc left behind says so where it has room.
      const full = b.state === "leaked" ? `${b.name} · leaked` : `${b.name} · ${b.size} B`;
      return { id: b.id, x0, x1: Math.max(x0, x1), full, short: b.name };
    }),
    innerWidth,
    reserved,
  );

  const ticks = addressTicks(visible.lo, visible.hi, viewX1 - viewX0, {
    spacing: 84,
    edges: [domain.lo, domain.hi],
    labelWidth: (a) => axisWidth(hex(a)),
  });
  const grid: number[] = [];
  if (bytePx >= BYTE_GRID_MIN_PX) {
    for (let a = Math.ceil(visible.lo); a <= visible.hi; a++) if (a > domain.lo && a < domain.hi) grid.push(a);
  }
  const geometry = `${innerWidth}|${chunk.start}|${chunk.capacity}|${hw}|${fw}|${z.k}|${z.x}|${domain.lo}|${domain.hi}`;
  const candidate = data.micro?.candidate;
  const ghost = candidate && candidate.chunk === chunk.id && candidate.address !== bumpPtr ? layoutGhost(candidate, chunk, x, innerWidth, direction) : null;
  const pad = data.micro?.padding;
  const pending = pad && pad.chunk === chunk.id ? { x: x(pad.lo), width: x(pad.lo + pad.bytes) - x(pad.lo), lo: pad.lo, bytes: pad.bytes } : null;
  const pl = data.micro?.place;
  const place =
    pl && pl.chunk === chunk.id
      ? { x: x(pl.address), width: Math.max(minBlockPx, x(pl.address + pl.size) - x(pl.address)), address: pl.address, size: pl.size, name: pl.name }
      : null;
  const checked = data.micro?.room;
  const roomMark = checked && checked.chunk === chunk.id ? layoutRoom(checked, x, innerWidth) : null;
  return {
    view,
    key: chunk.id,
    y,
    x,
    usable,
    visible,
    bytePx,
    meta,
    cut,
    minBlockPx,
    title,
    fill,
    shown,
    inView,
    bins,
    labels,
    pointer,
    ghost,
    pending,
    place,
    room: roomMark,
    ticks,
    grid,
    geometry,
  };
}

/** The map's height with `rows` chunk rows (none: the empty note's). */
export function mapHeight(rows: number): number {
  return rows === 0 ? EMPTY_H : rows * (ROW_H + ROW_GAP) - ROW_GAP + 4;
}

/** Whether the map keeps room for the run's most rows (MemoryMapData.reserveRows): not a figure, which is fitted. */
export const keepsHeight = (data: MemoryMapData): boolean => !data.fit && (data.reserveRows ?? 0) > 0;

/** The svg's height: the rows' height, or the reserved rows' when taller (MemoryMapData.reserveRows). */
export function svgHeight(data: MemoryMapData, height: number): number {
  if (!keepsHeight(data)) return height;
  return Math.max(height, mapHeight(Math.min(data.reserveRows ?? 0, RESERVED_ROWS_MAX)));
}

export interface MapLayout {
  rows: RowLayout[];
  height: number;
}

export function layoutMap(data: MemoryMapData, width: number, z: AxisZoom = IDENTITY): MapLayout {
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const rows = data.rows.map((view, i) => layoutRow(view, i * (ROW_H + ROW_GAP), innerWidth, data, z));
  return { rows, height: mapHeight(rows.length) };
}

/**
 * The block op `id` placed, or with "successor" the block a realloc made of
 * it, in whichever of `rows` holds it: O(rows).
 */
export function blockIn(rows: readonly ChunkView[], id: number, which: "find" | "successor" = "find"): Block | undefined {
  for (const r of rows) {
    const b = r.held[which](id);
    if (b) return b;
  }
  return undefined;
}
