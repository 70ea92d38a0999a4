// The memory map's rows: one per chunk, joined by chunk id so each keeps its
// element as the view steps, entering and leaving with a slide; each row's
// bar, metadata, axis, bins and the micro-step's marks, redrawn only where
// what it draws changed. The blocks inside a row are blocks.ts's.

import { axisBottom } from "d3-axis";
import { pointer, select, type Selection } from "d3-selection";
import type {} from "d3-transition";
import { binFill, type Bin } from "../../model/bins";
import type { Block } from "../../model/blocks";
import { bytes, hex } from "../../model/format";
import { attr, setAttr, style, text } from "./attrs";
import { drawBlocks, retireBlocks, type RowGroup } from "./blocks";
import { chunkLabel } from "./labels";
import { AXIS_Y, BAR_H, BAR_Y, MARGIN, ROW_H, TITLE_Y, type MemoryMapData, type MetaRegion, type RowLayout } from "./layout";
import { updateCard, type Mount } from "./mount";
import { stopMotion } from "./motion";

type RowSel = Selection<SVGGElement, RowLayout, SVGGElement, unknown>;

function buildRow(g: RowSel, clipId: string): void {
  g.append("rect").attr("class", "row-accent").attr("x", -MARGIN.left + 8).attr("y", 2).attr("width", 3).attr("height", ROW_H - 4).attr("rx", 1.5);
  g.append("text").attr("class", "row-title").attr("y", TITLE_Y);
  g.append("text").attr("class", "row-fill").attr("y", TITLE_Y).attr("text-anchor", "end");
  const bar = g.append("g").attr("class", "bar").attr("clip-path", `url(#${clipId})`);
  bar.append("rect").attr("class", "chunk-free").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("rect").attr("class", "chunk-used").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("g").attr("class", "meta-regions");
  // A figure's break: the chunk's bytes the run never reaches, left out of the scale.
  const cut = bar.append("g").attr("class", "row-cut").attr("role", "img").attr("display", "none");
  cut.append("rect").attr("class", "cut-body").attr("y", BAR_Y).attr("height", BAR_H);
  cut.append("path").attr("class", "cut-edge");
  cut.append("text").attr("class", "cut-label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em").attr("text-anchor", "middle");
  cut.append("title");
  const bins = bar.append("g").attr("class", "bins").attr("aria-hidden", "true");
  bins.append("path").attr("class", "bin-live");
  bins.append("path").attr("class", "bin-dead");
  bins.append("path").attr("class", "bin-pad");
  // Catches the pointer over a binned row: the card then sums the bin under it.
  bins.append("rect").attr("class", "bin-hit").attr("y", BAR_Y).attr("height", BAR_H);
  bar.append("g").attr("class", "blocks");
  // What an op's code has computed so far (a micro-step inside it): the room a
  // capacity check looked at, the padding decided, the block's place decided.
  const room = bar.append("g").attr("class", "room-check").attr("role", "img").attr("display", "none");
  room.append("rect").attr("class", "room-band").attr("y", BAR_Y + 2).attr("height", BAR_H - 4);
  room.append("text").attr("class", "room-text").attr("y", BAR_Y + 14);
  bar.append("rect").attr("class", "pending-pad").attr("role", "img").attr("y", BAR_Y + 1).attr("height", BAR_H - 2).attr("display", "none");
  const place = bar.append("g").attr("class", "pending-block").attr("role", "img").attr("display", "none");
  place.append("rect").attr("class", "pending-block-outline").attr("y", BAR_Y + 1).attr("height", BAR_H - 2).attr("rx", 2);
  place.append("text").attr("class", "pending-block-text").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em").attr("text-anchor", "middle");
  bar.append("path").attr("class", "byte-grid").attr("aria-hidden", "true");
  g.append("rect").attr("class", "chunk-outline").attr("y", BAR_Y).attr("height", BAR_H).attr("rx", 3);
  g.append("g").attr("class", "callouts").attr("aria-hidden", "true");
  // The ghost of the bump pointer: where the op's code has got to at a micro-step.
  const ghost = g.append("g").attr("class", "ptr-ghost").attr("role", "img").attr("display", "none");
  ghost.append("line").attr("class", "ghost-line").attr("y1", BAR_Y - 7).attr("y2", BAR_Y + BAR_H + 4);
  ghost.append("path").attr("class", "ghost-head");
  ghost.append("text").attr("class", "ghost-text").attr("y", BAR_Y + BAR_H - 7);
  g.append("g").attr("class", "axis").attr("aria-hidden", "true").attr("transform", `translate(0,${AXIS_Y})`);
}

/**
 * How many chunk rows may enter a progressive map per frame. The first step
 * of a drag from op 0 brings every row at once, each with a title, fill,
 * axis and header labels to lay out and paint.
 */
const ROWS_PER_FRAME = 1;

/** The rows to draw now in a progressive map: those drawn already, and a few new ones, the current chunk's first. */
function progressiveRows(group: Selection<SVGGElement, unknown, null, undefined>, rows: RowLayout[]): RowLayout[] {
  const have = new Set<number>();
  group.selectAll<SVGGElement, RowLayout>("g.chunk-row").each((d) => have.add(d.key));
  const fresh = rows.filter((r) => !have.has(r.key));
  if (fresh.length <= ROWS_PER_FRAME) return rows;
  const chosen = new Set(
    fresh
      .slice()
      .sort((a, b) => Number(b.view.current) - Number(a.view.current))
      .slice(0, ROWS_PER_FRAME)
      .map((r) => r.key),
  );
  return rows.filter((r) => have.has(r.key) || chosen.has(r.key));
}

/**
 * Joins the rows of `rows` to the row group's elements by chunk id and
 * draws each, sliding for `duration` ms. False when a progressive map left
 * rows or blocks for a later frame.
 */
export function drawRows(m: Mount, rowsGroup: Selection<SVGGElement, unknown, null, undefined>, rows: RowLayout[], data: MemoryMapData, innerWidth: number, duration: number): boolean {
  // Rows, keyed by chunk id, oldest first.
  const rowsNow = data.progressive ? progressiveRows(rowsGroup, rows) : rows;
  const rowSel: RowSel = rowsGroup
    .selectAll<SVGGElement, RowLayout>("g.chunk-row")
    .data(rowsNow, (d) => d.key)
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
          .call((row) => retireBlocks(row.selectAll("g.block")));
        if (!duration) {
          exit.remove();
          return;
        }
        exit.select("g.bar").transition("grow").duration(duration).attr("transform", "scale(0.2,1)");
        exit.transition("row").duration(duration).style("opacity", 0).remove();
      },
    );
  // Every row's attributes are computed at every step; only those that changed are written.
  rowSel.each(function (d) {
    const set = (name: string, value: string | number | null): void => setAttr(this, name, value);
    set("class", `chunk-row${d.view.current ? " is-current" : ""}${d.bins ? " is-binned" : ""}`);
    set("role", "group");
    set("aria-label", chunkLabel(d.view));
    set("data-chunk-id", d.view.chunk.id);
    set("data-capacity", d.view.chunk.capacity);
    set("data-start", d.view.chunk.start);
    set("data-header", d.view.chunk.header);
    set("data-footer", d.view.chunk.footer);
    set("data-used", d.view.used);
    set("data-view-start", Math.floor(d.visible.lo));
    set("data-view-end", Math.ceil(d.visible.hi));
    set("data-unused-cut", d.cut?.bytes ?? null);
    set("data-blocks-in-view", d.inView);
  });
  if (duration > 0) {
    rowSel
      .transition("row")
      .duration(duration)
      .attr("transform", (d) => `translate(0,${d.y})`)
      .style("opacity", 1);
  } else {
    // At once, not through a transition of no length: that would write every row again a frame later.
    stopMotion(rowSel, "row");
    attr(rowSel, "transform", (d) => `translate(0,${d.y})`);
    style(rowSel, "opacity", 1);
  }

  let partial = rowsNow.length < rows.length;
  rowSel.each(function (row) {
    const g = select<SVGGElement, RowLayout>(this);
    drawMicro(g, row);
    if (!drawRow(m, g, row, data, innerWidth, duration)) partial = true;
  });
  return !partial;
}

/**
 * Inside an op: the ghost pointer at the address its code holds and the
 * padding it has decided on, drawn at once (they change with every
 * micro-step, and a glide would show addresses the code never held).
 */
function drawMicro(g: Selection<SVGGElement, RowLayout, null, undefined>, row: RowLayout): void {
  // Drawn at every step in every row, nearly always hidden: only changed values are written.
  const ghost = g.select<SVGGElement>("g.ptr-ghost");
  const gh = row.ghost;
  attr(ghost, "display", gh ? null : "none");
  attr(ghost, "data-address", gh?.address ?? null);
  attr(ghost, "data-name", gh?.name ?? null);
  attr(ghost, "data-outside", gh?.outside ?? null);
  attr(ghost, "aria-label", gh ? `${gh.name} holds ${hex(gh.address)}${gh.outside ? `, ${gh.outside === "below" ? "below" : "past"} the chunk` : ""}: not yet the bump pointer` : null);
  if (gh) {
    attr(attr(ghost.select("line.ghost-line"), "x1", gh.x), "x2", gh.x);
    attr(ghost.select("path.ghost-head"), "d", `M${gh.x - 5},${BAR_Y - 7} h10 l-5,7 z`);
    text(attr(attr(ghost.select("text.ghost-text"), "x", gh.textX), "text-anchor", gh.anchor), gh.text);
  }
  const pad = row.pending;
  const padRect = g.select("rect.pending-pad");
  attr(padRect, "display", pad ? null : "none");
  attr(padRect, "x", pad?.x ?? 0);
  attr(padRect, "width", pad ? Math.max(0, pad.width) : 0);
  attr(padRect, "data-padding-start", pad?.lo ?? null);
  attr(padRect, "data-bytes", pad?.bytes ?? null);
  attr(padRect, "aria-label", pad ? `${bytes(pad.bytes)} of padding at ${hex(pad.lo)}, decided: the block is not placed yet` : null);

  const pl = row.place;
  const place = g.select<SVGGElement>("g.pending-block");
  attr(place, "display", pl ? null : "none");
  attr(place, "data-address", pl?.address ?? null);
  attr(place, "data-size", pl?.size ?? null);
  attr(place, "aria-label", pl ? `${pl.name} will take ${bytes(pl.size)} at ${hex(pl.address)}: decided, not placed yet` : null);
  if (pl) {
    attr(attr(place.select("rect.pending-block-outline"), "x", pl.x), "width", Math.max(0, pl.width));
    // Its name inside when it fits; the accessible name says it either way.
    const name = pl.width >= 8 * pl.name.length + 6 ? pl.name : "";
    text(attr(place.select("text.pending-block-text"), "x", pl.x + pl.width / 2), name);
  }

  const rm = row.room;
  const room = g.select<SVGGElement>("g.room-check");
  attr(room, "display", rm ? null : "none");
  attr(room, "data-lo", rm?.check.lo ?? null);
  attr(room, "data-hi", rm?.check.hi ?? null);
  attr(room, "data-fits", rm ? String(rm.check.fits) : null);
  attr(room, "aria-label", rm ? `The check: ${rm.text}` : null);
  if (rm) {
    attr(attr(room.select("rect.room-band"), "x", rm.x), "width", rm.width);
    text(attr(attr(room.select("text.room-text"), "x", rm.textX), "text-anchor", rm.anchor), rm.text);
  }
}

/** Path data for one rectangle per bin, `value(bin)` of BAR_H tall, stacked above `below(bin)`. */
function binPath(row: RowLayout, value: (b: Bin) => number, below: (b: Bin) => number): string {
  const parts: string[] = [];
  for (const bin of row.bins ?? []) {
    const w = bin.hi - bin.lo;
    const v = value(bin);
    if (!(w > 0) || v <= 0) continue;
    const x0 = row.x(bin.lo);
    const dx = Math.max(0.5, row.x(bin.hi) - x0);
    // Anything taken shows at least a hairline: a bin of one 8-byte block must not vanish.
    const hgt = Math.max(1.5, Math.min(1, v / w) * (BAR_H - 2));
    const base = BAR_Y + BAR_H - 1 - Math.min(1, below(bin) / w) * (BAR_H - 2);
    parts.push(`M${x0.toFixed(1)},${(base - hgt).toFixed(1)}h${dx.toFixed(1)}v${hgt.toFixed(1)}h${(-dx).toFixed(1)}z`);
  }
  return parts.join("");
}

/**
 * What each row element last drew and at which geometry: a redraw with the
 * same signature is skipped, and a changed geometry makes blocks jump instead
 * of gliding.
 */
const drawn = new WeakMap<SVGGElement, { signature: string; geometry: string }>();

/** Each block's fields as one string, made once per block object (a step keeps the objects of blocks it leaves alone). */
const blockKeys = new WeakMap<Block, string>();
function blockKey(b: Block): string {
  let key = blockKeys.get(b);
  if (key === undefined) {
    key = `${b.id}:${b.name}:${b.state}:${b.chunk}:${b.address}:${b.size}:${b.align}:${b.padding}:${b.paddingStart}`;
    blockKeys.set(b, key);
  }
  return key;
}

/** Each placed label as one string, made once per label object (labels are laid out again only when their row changed). */
const labelKeys = new WeakMap<object, string>();

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
    row.cut ? `${row.cut.side}:${row.cut.x}:${row.cut.width}:${row.cut.label}` : "-",
    binD ? binD.join("|") : "-",
  ];
  for (const b of row.shown) parts.push(`${blockKey(b)}:${data.focus.has(b.id) ? 1 : 0}${data.highlight?.has(b.id) ? 1 : 0}`);
  for (const l of row.labels) {
    let key = labelKeys.get(l);
    if (key === undefined) labelKeys.set(l, (key = JSON.stringify(l)));
    parts.push(key);
  }
  return parts.join("\n");
}

/**
 * The bins' path data at a geometry, per bins array: the held index hands out
 * the same array while a row's blocks have not changed (a chunk the bump
 * pointer left), so scrubbing does not rebuild the paths of the rows it
 * does not change.
 */
const binPaths = new WeakMap<readonly Bin[], { geometry: string; d: string[] }>();

export function binData(row: RowLayout): string[] | null {
  const bins = row.bins;
  if (!bins) return null;
  const known = binPaths.get(bins);
  if (known?.geometry === row.geometry) return known.d;
  const d = [
    binPath(row, (b) => b.live, () => 0),
    binPath(row, (b) => b.dead, (b) => b.live),
    binPath(row, (b) => b.padding, (b) => b.live + b.dead),
    (bins.reduce((n, b) => n + binFill(b), 0) / Math.max(1, bins.length)).toFixed(3),
  ];
  binPaths.set(bins, { geometry: row.geometry, d });
  return d;
}

/**
 * What each part of a row element last drew: a part whose inputs are the same
 * as last time is left alone (the current chunk's fill changes at every
 * step; its axis, header, footer and blocks seldom do).
 */
const drawnParts = new WeakMap<SVGGElement, Map<string, string>>();

/** Whether `part` of `node` draws something new with `signature` (and notes it as drawn). */
function partChanged(node: SVGGElement | null, part: string, signature: string): boolean {
  if (!node) return true;
  let parts = drawnParts.get(node);
  if (!parts) drawnParts.set(node, (parts = new Map()));
  if (parts.get(part) === signature) return false;
  parts.set(part, signature);
  return true;
}

/**
 * Draws one row into its group `g`, unless it would draw what it drew last
 * time. False when a progressive map left some of its blocks for a later frame.
 */
function drawRow(m: Mount, g: RowGroup, row: RowLayout, data: MemoryMapData, innerWidth: number, animate: number): boolean {
  const { view, x, usable } = row;
  const node = g.node();
  // Bins first: their paths are part of what the row draws.
  const binD = binData(row);
  // A row drawing exactly what it drew last time is left alone: stepping
  // redraws only the rows the step changed (a large map has many rows).
  const signature = rowSignature(row, data, innerWidth, binD);
  const last = node ? drawn.get(node) : undefined;
  if (last?.signature === signature) return true;
  if (node) drawn.set(node, { signature, geometry: row.geometry });
  const duration = last?.geometry === row.geometry ? animate : 0;

  text(attr(g.select("text.row-title"), "x", 0), row.title);
  text(attr(g.select("text.row-fill"), "x", innerWidth), row.fill);
  attr(attr(g.select("rect.chunk-free"), "x", usable.x0), "width", usable.x1 - usable.x0);
  attr(attr(g.select("rect.chunk-outline"), "x", 0), "width", innerWidth);

  // The used bytes: from the bump origin to the pointer (or the chunk's fill),
  // on the row's scale (a figure's row starts at its span, not the chunk).
  const { start, capacity } = view.chunk;
  // Clamped to the row's span: a figure's break is never drawn over.
  const inSpan = (px: number): number => Math.min(Math.max(px, usable.x0), usable.x1);
  const usedFrom = inSpan(data.direction === "down" ? x(start + capacity - view.used) : x(start));
  const usedTo = inSpan(data.direction === "down" ? x(start + capacity) : x(start + view.used));
  const used = g.select<SVGRectElement>("rect.chunk-used");
  if (duration === 0) {
    stopMotion(used, "used");
    attr(attr(used, "x", usedFrom), "width", Math.max(0, usedTo - usedFrom));
  } else {
    used
      .transition("used")
      .duration(duration)
      .attr("x", usedFrom)
      .attr("width", Math.max(0, usedTo - usedFrom));
  }

  // A figure's break past the high-water mark: a zigzag edge where the scale stops, and what it leaves out.
  const cut = row.cut;
  if (partChanged(node, "cut", cut ? `${cut.side}:${cut.x}:${cut.width}:${cut.label}:${cut.bytes}` : "-")) {
    const cutG = g
      .select<SVGGElement>("g.row-cut")
      .attr("display", cut ? null : "none")
      .attr("data-bytes", cut?.bytes ?? null)
      .attr("data-side", cut?.side ?? null)
      .attr("aria-label", cut ? `${bytes(cut.bytes)} never used, not drawn to scale` : null);
    if (cut) {
      const edge = cut.side === "end" ? cut.x : cut.x + cut.width;
      const zig = [0, 1, 2, 3, 4, 5].map((k) => `${(edge + (k % 2 === 0 ? -3 : 3)).toFixed(1)},${(BAR_Y + (k * BAR_H) / 5).toFixed(1)}`).join("L");
      cutG.select("rect.cut-body").attr("x", cut.x).attr("width", cut.width);
      cutG.select("path.cut-edge").attr("d", `M${zig}`);
      cutG.select("text.cut-label").attr("x", cut.x + cut.width / 2).text(cut.label);
      cutG.select("title").text(`${bytes(cut.bytes)} of the chunk never used, not drawn to scale`);
    }
  }

  // Header or footer: chunk metadata, solid and labelled.
  if (partChanged(node, "meta", row.meta.map((r) => `${r.kind}:${r.x}:${r.width}:${r.label}:${r.bytes}`).join(","))) {
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
  }

  // Axis: hex addresses of the usable bytes in view, re-ticked at every zoom.
  if (partChanged(node, "axis", row.ticks.map((t) => `${t}@${x(t).toFixed(2)}`).join(","))) {
    const axis = axisBottom(x)
      .tickValues(row.ticks)
      .tickFormat((d) => hex(Math.round(Number(d))))
      .tickSizeOuter(0)
      .tickSize(4);
    g.select<SVGGElement>("g.axis").call(axis);
  }

  // One grid line per byte boundary once a byte is wide enough to count.
  const grid = g.select("path.byte-grid");
  attr(grid, "data-lines", row.grid.length);
  attr(grid, "d", row.grid.map((a) => `M${x(a).toFixed(1)},${BAR_Y + 1}v${BAR_H - 2}`).join(""));

  // Binned rows: fill per bin, live at the bottom, then dead bytes, then padding.
  const bins = g.select<SVGGElement>("g.bins");
  attr(attr(bins, "display", row.bins ? null : "none"), "data-bins", row.bins?.length ?? 0);
  attr(bins.select("path.bin-live"), "d", binD?.[0] ?? "");
  attr(bins.select("path.bin-dead"), "d", binD?.[1] ?? "");
  attr(bins.select("path.bin-pad"), "d", binD?.[2] ?? "");
  attr(attr(bins.select("rect.bin-hit"), "x", 0), "width", innerWidth);
  if (binD) attr(bins, "data-fill", binD[3] ?? "0");

  // Blocks left for a later frame: the row is drawn again then, whatever else it keeps.
  if (drawBlocks(m, g, row, data, duration)) return true;
  if (node) drawn.set(node, { signature: "", geometry: row.geometry });
  return false;
}
