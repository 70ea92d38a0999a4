// The bump pointer: a mark in the current chunk's row at the address the
// next allocation bumps from, labelled, with an arrow the way it bumps. It
// glides within a row and jumps to another.

import type { Selection } from "d3-selection";
import type {} from "d3-transition";
import { hex } from "../../model/format";
import { attr, text } from "./attrs";
import { BAR_Y, type MemoryMapData, type RowLayout } from "./layout";
import { stopMotion } from "./motion";

/** Draws the pointer mark `ptr` in the row of `rows` that has it (hidden when none does), gliding for `duration` ms. */
export function drawPointer(ptr: Selection<SVGGElement, unknown, null, undefined>, rows: readonly RowLayout[], data: MemoryMapData, duration: number): void {
  const pointerRow = rows.find((r) => r.pointer !== null);
  attr(ptr, "display", pointerRow ? null : "none");
  attr(ptr, "aria-label", data.bumpPtr !== undefined ? `bump pointer at ${hex(data.bumpPtr)}, bumping ${data.direction}` : null);
  attr(ptr, "data-address", data.bumpPtr ?? null);
  attr(ptr, "data-direction", data.direction);
  attr(ptr, "data-chunk", pointerRow ? pointerRow.view.chunk.id : null);
  ptr.node()?.classList.toggle("is-offscreen", pointerRow?.pointer?.offscreen ?? false);
  if (pointerRow?.pointer) {
    const p = pointerRow.pointer;
    // A pointer that changed rows jumps there; within a row it glides.
    const moved = ptr.attr("data-row-y") !== String(pointerRow.y) || ptr.attr("data-geometry") !== pointerRow.geometry;
    attr(attr(ptr, "data-row-y", pointerRow.y), "data-geometry", pointerRow.geometry);
    const d = moved ? 0 : duration;
    const head = `M${p.x - 5},${BAR_Y - 7} h10 l-5,7 z`;
    const arrowShown = p.tip === p.x ? "none" : null;
    const label = ptr.select<SVGTextElement>("text.ptr-text");
    attr(attr(label, "text-anchor", p.anchor), "y", p.textY);
    text(label, p.text);
    if (d === 0) {
      // The glide's parts run on the line, head, arrow and label themselves:
      // left running, they would end where an earlier draw aimed them.
      stopMotion(ptr, "ptr");
      stopMotion(ptr.selectAll("line, path, text"), "ptr");
      attr(ptr, "transform", `translate(0,${pointerRow.y})`);
      attr(attr(ptr.select("line.ptr-line"), "x1", p.x), "x2", p.x);
      attr(ptr.select("path.ptr-head"), "d", head);
      attr(attr(attr(ptr.select("line.ptr-arrow"), "x1", p.x), "x2", p.tip), "display", arrowShown);
      attr(label, "x", p.textX);
    } else {
      const t = ptr.transition("ptr").duration(d);
      t.attr("transform", `translate(0,${pointerRow.y})`);
      t.select("line.ptr-line").attr("x1", p.x).attr("x2", p.x);
      t.select("path.ptr-head").attr("d", head);
      t.select("line.ptr-arrow").attr("x1", p.x).attr("x2", p.tip).attr("display", arrowShown);
      t.select("text.ptr-text").attr("x", p.textX);
    }
  }
}
