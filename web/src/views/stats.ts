// Running totals after the current step.

import type { Stats } from "../engine/types";
import { percent } from "../model/format";
import { h, setText } from "./dom";

export interface StatsData {
  stats: Stats;
  capacity: number;
}

const FIELDS: { key: string; label: string; value: (s: Stats, capacity: number) => string; title: string }[] = [
  { key: "requested", label: "Requested", value: (s) => `${s.requested} B`, title: "Bytes requested by live blocks" },
  { key: "used", label: "Used", value: (s, c) => `${s.used} / ${c} B`, title: "Bytes between the chunk's edge and the bump pointer" },
  { key: "padding", label: "Padding", value: (s) => `${s.padding} B`, title: "Alignment padding in the used region" },
  { key: "leaked", label: "Dead", value: (s) => `${s.leaked} B`, title: "Freed or moved blocks whose bytes stay until a reset" },
  { key: "unused", label: "Unused", value: (s) => `${s.unused} B`, title: "Free bytes left in the chunk" },
  { key: "utilisation", label: "Utilisation", value: (s) => percent(s.utilisation), title: "Requested bytes over the chunk's capacity" },
];

const views = new WeakMap<HTMLElement, Map<string, HTMLElement>>();

export function renderStats(container: HTMLElement, data: StatsData): void {
  let cells = views.get(container);
  if (!cells) {
    const made = new Map<string, HTMLElement>();
    const dl = h("dl", { class: "stats" });
    for (const f of FIELDS) {
      const dd = h("dd", { "data-stat": f.key });
      made.set(f.key, dd);
      dl.append(h("div", { class: "stat", title: f.title }, h("dt", {}, f.label), dd));
    }
    container.replaceChildren(dl);
    cells = made;
    views.set(container, cells);
  }
  for (const f of FIELDS) {
    const dd = cells.get(f.key);
    if (dd) setText(dd, f.value(data.stats, data.capacity));
  }
}
