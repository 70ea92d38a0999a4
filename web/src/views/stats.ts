// Running totals after the current step, over every live chunk.

import type { Stats } from "../engine/types";
import { percent } from "../model/format";
import { h, setText } from "./dom";

export interface StatsData {
  stats: Stats;
}

const FIELDS: { key: string; label: string; value: (s: Stats) => string; title: string }[] = [
  { key: "requested", label: "Requested", value: (s) => `${s.requested} B`, title: "Bytes requested by live blocks" },
  { key: "used", label: "Used", value: (s) => `${s.used} B`, title: "Bytes between each chunk's bump origin and its bump pointer" },
  { key: "padding", label: "Padding", value: (s) => `${s.padding} B`, title: "Alignment padding in the used bytes" },
  { key: "leaked", label: "Leaked", value: (s) => `${s.leaked} B`, title: "Freed or moved blocks whose bytes are not reclaimed yet" },
  { key: "unused", label: "Unused", value: (s) => `${s.unused} B`, title: "Usable bytes beyond the bump pointers" },
  { key: "metadata", label: "Metadata", value: (s) => `${s.metadata} B`, title: "Chunk headers and footers" },
  { key: "chunks", label: "Chunks", value: (s) => String(s.chunks), title: "Chunks the allocator holds now" },
  {
    key: "utilisation",
    label: "Utilisation",
    value: (s) => percent(s.utilisation),
    title: "Requested bytes over all the bytes the chunks take (usable and metadata)",
  },
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
    if (dd) setText(dd, f.value(data.stats));
  }
}
