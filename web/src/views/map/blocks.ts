// A row's blocks and the callouts of those too narrow for their names. Blocks
// are joined by the op that placed them, so each keeps its element, colour
// and position as the view steps; a block a realloc made slides from the
// block it replaced (and back, stepping back).

import type { ScaleLinear } from "d3-scale";
import { select, type BaseType, type Selection } from "d3-selection";
import type { Block } from "../../model/blocks";
import type { PlacedLabel } from "./labelLayout";
import { blockLabel } from "./labels";
import { BAR_H, BAR_Y, blockIn, LANE0_Y, TITLE_Y, type MemoryMapData, type RowLayout } from "./layout";
import { updateCard, type Mount } from "./mount";
import { setAttr, setStyle, setTextOf, style } from "./attrs";
import { stopMotion } from "./motion";
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

/**
 * What drawBlocks last wrote into a block's elements: its attributes (as one
 * key) and its geometry. A step leaves most of a row's blocks as they were,
 * and comparing here skips them without reading the DOM (tens of reads per
 * block, for hundreds of blocks, at every step of a drag). A transition
 * writes behind its back, so an animated draw forgets what it holds.
 */
interface Drawn {
  key: string;
  geometry?: Geometry;
}
const drawn = new WeakMap<Element, Drawn>();

const sameGeometry = (a: Geometry | undefined, b: Geometry): boolean =>
  a !== undefined && a.padX === b.padX && a.padW === b.padW && a.bodyX === b.bodyX && a.bodyW === b.bodyW;

/** Sets the pad and body rectangles of blocks at once, writing only the values that changed. */
function placeNow(s: Placeable, geo: (b: Block) => Geometry): void {
  s.each(function (d) {
    const g = geo(d);
    const known = drawn.get(this);
    if (known) {
      if (sameGeometry(known.geometry, g)) return;
      known.geometry = g;
    }
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

/**
 * How many blocks may enter a progressive map (one following a dragged
 * scrubber) per frame: about a frame's worth of building and layout.
 */
export const ENTER_PER_FRAME = 50;

/** The row's blocks to draw now: all, or in a progressive map those drawn already and as many new ones as the budget allows. */
function blocksNow(m: Mount, g: RowGroup, row: RowLayout, data: MemoryMapData): Block[] {
  if (!data.progressive) return row.shown;
  const have = new Set<number>();
  g.select<SVGGElement>("g.blocks")
    .selectAll<SVGGElement, Block>("g.block")
    .each((d) => have.add(d.id));
  return row.shown.filter((b) => {
    if (have.has(b.id)) return true;
    if (m.enterBudget <= 0) return false;
    m.enterBudget -= 1;
    return true;
  });
}

/**
 * Draws `row`'s blocks and callouts into its group `g`, animating for
 * `duration` ms. False when a progressive map left some of them for a later
 * frame.
 */
export function drawBlocks(m: Mount, g: RowGroup, row: RowLayout, data: MemoryMapData, duration: number): boolean {
  listenForBlocks(m);
  const { view, x } = row;
  const shown = blocksNow(m, g, row, data);
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
    .data(shown, (d) => d.id)
    .join(
      (enter) => {
        // Copies of one built block: a row can bring hundreds at once (the first step of a drag across a long run).
        const template = blockTemplate(g.node()?.ownerDocument ?? document);
        const b = enter.append(() => template.cloneNode(true) as SVGGElement).style("opacity", duration ? 0 : 1);
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
    const l = labelOf.get(d.id);
    const current = focus.has(d.id);
    const highlit = highlight?.has(d.id) ?? false;
    const inside = l?.mode === "inside" ? `${l.text}@${l.x}` : "";
    const key = `${d.id}|${d.name}|${d.chunk}|${d.address}|${d.size}|${d.align}|${d.padding}|${d.state}|${current}|${highlit}|${inside}`;
    const known = drawn.get(this);
    if (known?.key === key) return;
    if (known) known.key = key;
    else drawn.set(this, { key });
    const set = (name: string, value: string | number): void => setAttr(this, name, value);
    const label = blockLabel(d);
    set("class", `block is-${d.state}${current ? " is-current" : ""}${highlit ? " is-highlight" : ""}`);
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
      setTextOf(text, l?.mode === "inside" ? l.text : "");
      setAttr(text, "x", l?.x ?? 0);
      // Most blocks of a full row are too narrow for a label: an empty one is not laid out at all.
      setAttr(text, "display", l?.mode === "inside" ? null : "none");
    }
  });
  // Tab order follows addresses, whatever order the blocks entered in.
  groups.order();
  if (duration > 0) {
    groups.each(function () {
      drawn.delete(this);
    });
    groups.transition().duration(duration).style("opacity", 1);
    groups.transition("geometry").duration(duration).call((t) => place(t, now));
  } else {
    stopMotion(groups);
    stopMotion(groups, "geometry");
    // A block drawn at once before holds opacity 1 already (an entering one is written here first).
    style(
      groups.filter(function () {
        return drawn.get(this)?.geometry === undefined;
      }),
      "opacity",
      1,
    );
    placeNow(groups, now);
  }

  // Callouts for blocks too narrow for their name: lane 0 above the bar, lane 1 in the title line.
  const stateOf = new Map(shown.map((b) => [b.id, b.state] as const));
  const callouts = row.labels.filter((l): l is Extract<PlacedLabel, { mode: "callout" }> => l.mode === "callout" && stateOf.has(l.id));
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
  return shown.length === row.shown.length;
}

/** One block's elements, built once per document and cloned for each block that enters. */
const templates = new WeakMap<Document, SVGGElement>();

function blockTemplate(doc: Document): SVGGElement {
  const known = templates.get(doc);
  if (known) return known;
  const NS = "http://www.w3.org/2000/svg";
  const el = (tag: string, attrs: Record<string, string | number>): Element => {
    const e = doc.createElementNS(NS, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    return e;
  };
  const g = el("g", { class: "block", tabindex: 0 }) as SVGGElement;
  g.append(
    el("rect", { class: "pad", y: BAR_Y + 1, height: BAR_H - 2 }),
    el("rect", { class: "body", y: BAR_Y + 1, height: BAR_H - 2, rx: 2 }),
    // A ring around the body, shown for blocks the narration names: apart from the current op's border.
    el("rect", { class: "hl", y: BAR_Y + 1 - HL_GAP, height: BAR_H - 2 + 2 * HL_GAP, rx: 4 }),
    el("text", { class: "label", y: BAR_Y + BAR_H / 2, dy: "0.35em" }),
    el("title", {}),
  );
  templates.set(doc, g);
  return g;
}

/** The maps whose svg listens for its blocks' hover and focus. */
const listening = new WeakSet<Mount>();

/**
 * One set of listeners on the map's svg for all its blocks (thousands may
 * enter at once): the block under the pointer or with keyboard focus is the
 * event target's nearest block, and the card follows it.
 */
function listenForBlocks(m: Mount): void {
  const svg = m.svg.node();
  if (!svg || listening.has(m)) return;
  listening.add(m);
  const blockOf = (t: EventTarget | null): SVGGElement | null => (t instanceof Element ? t.closest<SVGGElement>("g.block") : null);
  const idOf = (b: SVGGElement): number | undefined => select<SVGGElement, Block | undefined>(b).datum()?.id;
  // Moves between a block's own parts (body, label) neither enter nor leave it.
  const track = (slot: "hovered" | "focused", on: boolean) => (event: Event) => {
    const b = blockOf(event.target);
    if (!b || blockOf((event as FocusEvent | PointerEvent).relatedTarget) === b) return;
    const id = idOf(b);
    if (id === undefined) return;
    if (on) m[slot] = id;
    else if (m[slot] === id) m[slot] = undefined;
    updateCard(m);
  };
  svg.addEventListener("pointerover", track("hovered", true));
  svg.addEventListener("pointerout", track("hovered", false));
  svg.addEventListener("focusin", track("focused", true));
  svg.addEventListener("focusout", track("focused", false));
}
