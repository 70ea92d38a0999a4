// The line above the map: how full the chunks are, which one is current and
// where it lies, and whether the drawing is of an older program (the current
// one has an error).

import type { ChunkInfo, Direction } from "../../wasm/types";
import { hex } from "../../model/format";
import { h, setText } from "../dom";

export interface MapSummaryData {
  /** Used bytes over every live chunk. */
  used: number;
  /** Usable bytes over every live chunk. */
  capacity: number;
  chunks: number;
  current: ChunkInfo | undefined;
  direction: Direction;
  allocator: string;
  /** The program has an error: the map shows its last valid version. */
  stale: boolean;
}

interface Refs {
  fill: HTMLElement;
  meter: HTMLElement;
  range: HTMLElement;
  stale: HTMLElement;
}
const views = new WeakMap<HTMLElement, Refs>();

export function renderMapSummary(container: HTMLElement, data: MapSummaryData): void {
  let refs = views.get(container);
  if (!refs) {
    const fill = h("strong", { class: "fill", "data-testid": "fill" });
    const meter = h("span", { class: "meter-bar" });
    const range = h("span", { class: "chunk-range" });
    const stale = h("span", { class: "stale-badge" }, "showing the last valid program");
    container.replaceChildren(h("span", { class: "meter", "aria-hidden": "true" }, meter), fill, range, stale);
    refs = { fill, meter, range, stale };
    views.set(container, refs);
  }
  const { used, capacity, chunks, current } = data;
  const across = chunks > 1 ? ` in ${chunks} chunks` : "";
  setText(refs.fill, chunks === 0 ? "no chunk" : `${used} / ${capacity} bytes used${across}`);
  refs.meter.style.transform = `scaleX(${capacity ? Math.min(1, used / capacity) : 0})`;
  const where = current
    ? `${chunks > 1 ? `current chunk ${current.id}` : "chunk"} ${hex(current.start)}–${hex(current.start + current.capacity)}`
    : "no chunk";
  setText(refs.range, `${data.allocator} · ${where} · bumps ${data.direction}`);
  refs.stale.hidden = !data.stale;
}
