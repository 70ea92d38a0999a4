// The line above the map: how full the chunk is, where it lies, and whether
// the drawing is of an older program (the current one has an error).

import type { ChunkInfo, Direction } from "../engine/types";
import { hex } from "../model/format";
import { h, setText } from "./dom";

export interface MapSummaryData {
  chunk: ChunkInfo;
  used: number;
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
    container.replaceChildren(
      h("span", { class: "meter", "aria-hidden": "true" }, meter),
      fill,
      range,
      stale,
    );
    refs = { fill, meter, range, stale };
    views.set(container, refs);
  }
  const { chunk, used } = data;
  setText(refs.fill, `${used} / ${chunk.capacity} bytes used`);
  refs.meter.style.width = `${chunk.capacity ? (100 * used) / chunk.capacity : 0}%`;
  setText(
    refs.range,
    `${data.allocator} · chunk ${hex(chunk.start)}–${hex(chunk.start + chunk.capacity)} · bumps ${data.direction}`,
  );
  refs.stale.hidden = !data.stale;
}
