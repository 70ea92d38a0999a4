// A row's blocks and the callouts of those too narrow for their names. Blocks
// are joined by the op that placed them, so each keeps its element, colour
// and position as the view steps; a block a realloc made slides from the
// block it replaced (and back, stepping back).

import type { ScaleLinear } from "d3-scale";
import type { BaseType, Selection } from "d3-selection";
import type { Block } from "../../model/blocks";
import type { PlacedLabel } from "./labelLayout";
import { blockLabel } from "./labels";
import { BAR_H, BAR_Y, blockIn, LANE0_Y, TITLE_Y, type MemoryMapData, type RowLayout } from "./layout";
import { updateCard, type Mount } from "./mount";
import { setAttr, setStyle, setTextOf, style } from "./attrs";
import { blockColour } from "./palette";

interface Geometry {
  padX: number;
  padW: number;
  bodyX: number;
  bodyW: number;
}

function geometryOf(x: ScaleLinear<number, number>, b: Pick<Block, "address" | "size" | "padding" | "paddingStart">, minPx: number): Geometry {
  const bodyW = Math.max(minPx, x(b.address + b.size) - x(b.address));
  // Widened past its bytes, a block at the chunk's end grows inwards, not over the footer.
  const end = x.range()[1] ?? Infinity;
  return {
    padX: x(b.paddingStart),
    padW: x(b.paddingStart + b.padding) - x(b.paddingStart),
    bodyX: Math.min(x(b.address), Math.max(x(b.address + b.size), end) - bodyW),
    bodyW,
  };
}

/** How far the narration's highlight ring stands off a block's body, in pixels. */
const HL_GAP = 3;

type Placeable = Selection<SVGGElement, Block, SVGGElement, unknown>;

/** Sets the pad and body rectangles of blocks, at once or through a transition. */
function place(s: Placeable | ReturnType<Placeable["transition"]>, geo: (b: Block) => Geometry): void {
  // A transition's select and attr take a selection's arguments; TypeScript cannot call the union's overloads.
  const sel = s as Pick<Placeable, "select">;
  sel.select("rect.pad").attr("x", (d) => geo(d).padX).attr("width", (d) => geo(d).padW);
  sel.select("rect.body").attr("x", (d) => geo(d).bodyX).attr("width", (d) => geo(d).bodyW);
  sel.select("rect.hl").attr("x", (d) => geo(d).bodyX - HL_GAP).attr("width", (d) => geo(d).bodyW + 2 * HL_GAP);
}

/** Sets the pad and body rectangles of blocks at once, writing only the values that changed. */
function placeNow(s: Placeable, geo: (b: Block) => Geometry): void {
  s.each(function (d) {
    const g = geo(d);
    const pad = this.querySelector("rect.pad");
    const body = this.querySelector("rect.body");
    const hl = this.querySelector("rect.hl");
    if (pad) {
      setAttr(pad, "x", g.padX);
      setAttr(pad, "width", g.padW);
    }
    if (body) {
      setAttr(body, "x", g.bodyX);
      setAttr(body, "width", g.bodyW);
    }
    if (hl) {
      setAttr(hl, "x", g.bodyX - HL_GAP);
      setAttr(hl, "width", g.bodyW + 2 * HL_GAP);
    }
  });
}

/**
 * Takes leaving blocks out of the accessibility tree, the tab order and the
 * tests' selectors at once, before they fade out.
 */
export function retireBlocks<E extends BaseType, D, P extends BaseType, PD>(s: Selection<E, D, P, PD>): Selection<E, D, P, PD> {
  return s
    .attr("class", "block-exit")
    .attr("role", null)
    .attr("aria-label", null)
    .attr("data-block", null)
    .attr("tabindex", null)
    .attr("aria-hidden", "true");
}

/** One row's group, as drawRow selects it. */
export type RowGroup = Selection<SVGGElement, RowLayout, null, undefined>;

/** Draws `row`'s blocks and callouts into its group `g`, animating for `duration` ms. */
export function drawBlocks(m: Mount, g: RowGroup, row: RowLayout, data: MemoryMapData, duration: number): void {
  const { view, x } = row;
  const labelOf = new Map<number, PlacedLabel>(row.labels.map((l) => [l.id, l]));
  const focus = data.focus;
  const highlight = data.highlight;
  const now = (b: Block): Geometry => geometryOf(x, b, row.minBlockPx);
  // The chunk's blocks by id (O(1) each, from the held index).
  const here = (id: number): Block | undefined => view.held.find(id);
  // Where a block slides in from: the block a realloc replaced (stepping
  // forward), or the realloc's block that replaced it (stepping back).
  const slideFrom = (b: Block): Block | undefined => {
    if (duration === 0) return undefined;
    if (b.from !== undefined && !blockIn(m.previous, b.id)) {
      const old = blockIn(m.previous, b.from) ?? here(b.from);
      if (old && old.chunk === b.chunk) return old;
    }
    const later = blockIn(m.previous, b.id, "successor");
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
        // A ring around the body, shown for blocks the narration names: apart from the current op's border.
        b.append("rect")
          .attr("class", "hl")
          .attr("y", BAR_Y + 1 - HL_GAP)
          .attr("height", BAR_H - 2 + 2 * HL_GAP)
          .attr("rx", 4);
        b.append("text").attr("class", "label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
        b.append("title");
        b.on("pointerenter", track(m, "hovered", true))
          .on("pointerleave", track(m, "hovered", false))
          .on("focus", track(m, "focused", true))
          .on("blur", track(m, "focused", false));
        // A realloc's block starts where the block it replaced was, then slides.
        place(b, (d) => now(slideFrom(d) ?? d));
        b.filter((d) => slideFrom(d) !== undefined).style("opacity", 1);
        return b;
      },
      (update) => update,
      (exit) => {
        const gone = retireBlocks(exit);
        if (duration === 0) {
          gone.remove();
          return;
        }
        // Stepping back over a realloc: its block slides back onto the one it replaced.
        const t = gone.transition().duration(duration);
        t.call((tt) =>
          place(tt, (d) => {
            const back = d.from !== undefined ? here(d.from) : undefined;
            return geometryOf(x, back && back.chunk === d.chunk ? back : d, row.minBlockPx);
          }),
        );
        t.style("opacity", 0).remove();
      },
    );
  // A step changes few of a row's blocks: each value is written only where it changed.
  groups.each(function (d) {
    const set = (name: string, value: string | number): void => setAttr(this, name, value);
    const label = blockLabel(d);
    set("class", `block is-${d.state}${focus.has(d.id) ? " is-current" : ""}${highlight?.has(d.id) ? " is-highlight" : ""}`);
    set("role", "img");
    set("aria-label", label);
    set("data-block", d.name);
    set("data-id", d.id);
    set("data-chunk", d.chunk);
    set("data-address", d.address);
    set("data-size", d.size);
    set("data-padding", d.padding);
    set("data-state", d.state);
    const colour = blockColour(d.id);
    setStyle(this, "--block-fill", colour.fill);
    setStyle(this, "--block-ink", colour.ink);
    const title = this.querySelector("title");
    if (title) setTextOf(title, label);
    const text = this.querySelector("text.label");
    if (text) {
      const l = labelOf.get(d.id);
      setTextOf(text, l?.mode === "inside" ? l.text : "");
      setAttr(text, "x", l?.x ?? 0);
    }
  });
  // Tab order follows addresses, whatever order the blocks entered in.
  groups.order();
  if (duration > 0) {
    groups.transition().duration(duration).style("opacity", 1);
    groups.transition("geometry").duration(duration).call((t) => place(t, now));
  } else {
    groups.interrupt().interrupt("geometry");
    style(groups, "opacity", 1);
    placeNow(groups, now);
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

/** An event handler that makes a block the hovered or focused one (or stops it being so), then updates the card. */
function track(m: Mount, slot: "hovered" | "focused", on: boolean): (event: Event, d: Block) => void {
  return (_event, d) => {
    if (on) m[slot] = d.id;
    else if (m[slot] === d.id) m[slot] = undefined;
    updateCard(m);
  };
}
