// The memory map: one chunk drawn to scale as a horizontal bar, low addresses
// on the left. Blocks are joined by id (the op that placed them), so a block
// keeps its element, colour and position as the view steps.

import { axisBottom } from "d3-axis";
import { scaleLinear, type ScaleLinear } from "d3-scale";
import { select, type Selection } from "d3-selection";
import "d3-transition";
import type { ChunkInfo, Direction } from "../engine/types";
import type { Block } from "../model/blocks";
import { bytes, hex } from "../model/format";
import { layoutLabels, type PlacedLabel } from "./labelLayout";

export interface MemoryMapData {
  chunk: ChunkInfo;
  direction: Direction;
  blocks: readonly Block[];
  bumpPtr: number;
  /** Blocks the current op placed or acted on. */
  focus: ReadonlySet<number>;
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

const MARGIN = { left: 32, right: 32 };
const LANES = 2;
const LANE_H = 16;
const BAR_Y = 6 + LANES * LANE_H + 6;
const BAR_H = 54;
const AXIS_Y = BAR_Y + BAR_H;
const PTR_Y = AXIS_Y + 36;
const HEIGHT = PTR_Y + 12;
const DURATION = 220;

const measure = (text: string): number => text.length * 7 + 2;

export function blockLabel(b: Block): string {
  const parts = [`${b.name}: ${bytes(b.size)} at ${hex(b.address)}`, `align ${b.align}`];
  if (b.padding > 0) parts.push(`${bytes(b.padding)} padding`);
  if (b.state === "freed") parts.push("freed, not reclaimed");
  if (b.state === "leaked") parts.push("left behind by a realloc");
  return parts.join(", ");
}

/** Axis ticks every power-of-two bytes, as many as fit, always both edges. */
function tickValues(start: number, capacity: number, innerWidth: number): number[] {
  const maxTicks = Math.max(2, Math.floor(innerWidth / 78));
  let step = 1;
  while (capacity / step > maxTicks) step *= 2;
  const ticks: number[] = [];
  for (let a = start; a < start + capacity; a += step) ticks.push(a);
  ticks.push(start + capacity);
  return ticks;
}

interface Previous {
  width: number;
  start: number;
  capacity: number;
}
const previous = new WeakMap<HTMLElement, Previous>();

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
  plot.append("rect").attr("class", "chunk-free").attr("y", BAR_Y).attr("height", BAR_H).attr("rx", 3);
  plot.append("g").attr("class", "blocks");
  plot.append("rect").attr("class", "chunk-outline").attr("y", BAR_Y).attr("height", BAR_H).attr("rx", 3);
  plot.append("g").attr("class", "callouts").attr("aria-hidden", "true");
  plot.append("g").attr("class", "axis").attr("aria-hidden", "true").attr("transform", `translate(0,${AXIS_Y})`);
  const ptr = plot.append("g").attr("class", "bump-pointer").attr("role", "img");
  ptr.append("line").attr("class", "ptr-line").attr("y1", BAR_Y - 5).attr("y2", BAR_Y + BAR_H + 5);
  ptr.append("path").attr("class", "ptr-head");
  ptr.append("line").attr("class", "ptr-arrow").attr("y1", PTR_Y).attr("y2", PTR_Y).attr("marker-end", "url(#bl-arrow)");
  ptr.append("text").attr("class", "ptr-text").attr("y", PTR_Y).attr("dy", "0.35em");
  return svg;
}

export function renderMemoryMap(container: HTMLElement, data: MemoryMapData): void {
  const { chunk, direction, blocks, bumpPtr, focus } = data;
  const width = Math.max(240, Math.round(container.clientWidth || 720));
  const innerWidth = width - MARGIN.left - MARGIN.right;
  const svg = ensureSvg(container);
  svg
    .attr("width", width)
    .attr("height", HEIGHT)
    .attr("viewBox", `0 0 ${width} ${HEIGHT}`)
    .attr("data-chunk", chunk.id)
    .attr("data-chunk-start", chunk.start)
    .attr("data-chunk-capacity", chunk.capacity)
    .attr("aria-label", `Chunk from ${hex(chunk.start)} to ${hex(chunk.start + chunk.capacity)}, ${blocks.length} blocks`);

  const prev = previous.get(container);
  const rescaled = !prev || prev.width !== width || prev.start !== chunk.start || prev.capacity !== chunk.capacity;
  previous.set(container, { width, start: chunk.start, capacity: chunk.capacity });
  const duration = data.animate && !rescaled ? DURATION : 0;

  const x: ScaleLinear<number, number> = scaleLinear()
    .domain([chunk.start, chunk.start + chunk.capacity])
    .range([0, innerWidth]);
  const plot = svg.select<SVGGElement>("g.plot").attr("transform", `translate(${MARGIN.left},0)`);
  plot.selectAll("rect.chunk-free, rect.chunk-outline").attr("x", 0).attr("width", innerWidth);

  // Axis, hex addresses.
  const axis = axisBottom(x)
    .tickValues(tickValues(chunk.start, chunk.capacity, innerWidth))
    .tickFormat((d) => hex(Number(d)))
    .tickSizeOuter(0)
    .tickSize(5);
  plot.select<SVGGElement>("g.axis").call(axis);

  // Labels.
  const bodyX = (b: Block): number => x(b.address);
  const bodyW = (b: Block): number => Math.max(1.5, x(b.address + b.size) - x(b.address));
  const labels = layoutLabels(
    blocks.map((b) => ({
      id: b.id,
      x0: bodyX(b),
      x1: bodyX(b) + bodyW(b),
      full: `${b.name} · ${b.size} B`,
      short: b.name,
    })),
    { measure, inset: 5, lanes: LANES, width: innerWidth, gap: 6 },
  );
  const labelOf = new Map<number, PlacedLabel>(labels.map((l) => [l.id, l]));

  // Blocks, keyed by the op that placed them.
  const groups = plot
    .select<SVGGElement>("g.blocks")
    .selectAll<SVGGElement, Block>("g.block")
    .data(blocks, (d) => d.id)
    .join(
      (enter) => {
        const g = enter.append("g").attr("class", "block").style("opacity", 0);
        g.append("rect").attr("class", "pad").attr("y", BAR_Y + 1).attr("height", BAR_H - 2);
        g.append("rect").attr("class", "body").attr("y", BAR_Y + 1).attr("height", BAR_H - 2).attr("rx", 2);
        g.append("text").attr("class", "label").attr("y", BAR_Y + BAR_H / 2).attr("dy", "0.35em");
        g.append("title");
        g.call((s) => placeBlock(s, x, bodyX, bodyW));
        return g;
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

  // Callouts for blocks too narrow for their name.
  const callouts = labels.filter((l): l is Extract<PlacedLabel, { mode: "callout" }> => l.mode === "callout");
  plot
    .select<SVGGElement>("g.callouts")
    .selectAll<SVGGElement, (typeof callouts)[number]>("g.callout")
    .data(callouts, (d) => d.id)
    .join((enter) => {
      const g = enter.append("g").attr("class", "callout");
      g.append("line").attr("class", "leader");
      g.append("text").attr("class", "callout-text");
      return g;
    })
    .attr("class", (d) => {
      const b = blocks.find((bl) => bl.id === d.id);
      return `callout is-${b?.state ?? "live"}`;
    })
    .call((g) => {
      const textY = (d: { lane: number }): number => BAR_Y - 8 - d.lane * LANE_H;
      g.select("line.leader")
        .attr("x1", (d) => d.anchorX)
        .attr("x2", (d) => d.anchorX)
        .attr("y1", (d) => textY(d) + 3)
        .attr("y2", BAR_Y);
      g.select("text.callout-text")
        .attr("x", (d) => d.x)
        .attr("y", textY)
        .text((d) => d.text);
    });

  // The bump pointer, with an arrow the way it moves.
  const px = x(bumpPtr);
  const sign = direction === "down" ? -1 : 1;
  const arrowLen = 26;
  const text = `bump ptr ${hex(bumpPtr)}`;
  const textW = measure(text);
  const tip = px + sign * arrowLen;
  // Text goes past the arrow tip, unless that leaves the plot: then behind the pointer.
  let textX = tip + sign * 6;
  let anchor = sign < 0 ? "end" : "start";
  if (sign < 0 ? textX - textW < -MARGIN.left + 2 : textX + textW > innerWidth + MARGIN.right - 2) {
    textX = px - sign * 10;
    anchor = sign < 0 ? "start" : "end";
  }
  const ptr = plot
    .select<SVGGElement>("g.bump-pointer")
    .attr("aria-label", `bump pointer at ${hex(bumpPtr)}, bumping ${direction}`)
    .attr("data-address", bumpPtr)
    .attr("data-direction", direction);
  const ptrT = ptr.transition().duration(duration);
  ptrT.select("line.ptr-line").attr("x1", px).attr("x2", px);
  ptrT
    .select("path.ptr-head")
    .attr("d", `M${px},${PTR_Y - 13} l-5,7 h10 z M${px},${PTR_Y - 6} v12`);
  ptrT.select("line.ptr-arrow").attr("x1", px).attr("x2", tip);
  ptr.select("text.ptr-text").attr("text-anchor", anchor).text(text);
  ptrT.select("text.ptr-text").attr("x", textX);
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
