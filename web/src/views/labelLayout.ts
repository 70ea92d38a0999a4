// Where each block's name goes on the memory map: inside the block when it
// fits, otherwise in a lane above the bar, greedily, without overlaps. Labels
// that find no room are dropped (the block keeps its aria-label and tooltip).

export interface LabelItem {
  id: number;
  /** Pixel extent of the block body. */
  x0: number;
  x1: number;
  /** Preferred text when it fits inside (e.g. "c · 24 B"). */
  full: string;
  /** The name alone. */
  short: string;
}

export type PlacedLabel =
  | { id: number; mode: "inside"; text: string; x: number }
  | { id: number; mode: "callout"; text: string; x: number; lane: number; anchorX: number };

export interface LabelOptions {
  /** Estimated text width in pixels. */
  measure: (text: string) => number;
  /** Horizontal room kept free inside a block around its label. */
  inset: number;
  lanes: number;
  /** Drawing width: callouts are kept inside 0..width. */
  width: number;
  /** Minimum horizontal gap between callouts in one lane. */
  gap: number;
}

export function layoutLabels(items: readonly LabelItem[], opts: LabelOptions): PlacedLabel[] {
  const placed: PlacedLabel[] = [];
  const outside: LabelItem[] = [];
  for (const item of items) {
    const room = item.x1 - item.x0 - 2 * opts.inset;
    const mid = (item.x0 + item.x1) / 2;
    if (opts.measure(item.full) <= room) placed.push({ id: item.id, mode: "inside", text: item.full, x: mid });
    else if (opts.measure(item.short) <= room) placed.push({ id: item.id, mode: "inside", text: item.short, x: mid });
    else outside.push(item);
  }
  outside.sort((a, b) => a.x0 + a.x1 - (b.x0 + b.x1));
  // Lane 0 is nearest the bar. A callout's leader line runs from its lane
  // down to the bar, so it must not cross the text of a nearer lane.
  const texts: { lane: number; left: number; right: number }[] = [];
  const leaders: { lane: number; x: number }[] = [];
  for (const item of outside) {
    const w = opts.measure(item.short);
    const anchorX = (item.x0 + item.x1) / 2;
    const left = Math.min(Math.max(anchorX - w / 2, 0), Math.max(0, opts.width - w));
    const right = left + w;
    let lane = -1;
    for (let k = 0; k < opts.lanes && lane === -1; k++) {
      const clashesText = texts.some(
        (t) =>
          (t.lane === k && left < t.right + opts.gap && right + opts.gap > t.left) ||
          (t.lane < k && anchorX >= t.left - 2 && anchorX <= t.right + 2),
      );
      const clashesLeader = leaders.some((l) => l.lane > k && l.x >= left - 2 && l.x <= right + 2);
      if (!clashesText && !clashesLeader) lane = k;
    }
    if (lane === -1) continue;
    texts.push({ lane, left, right });
    leaders.push({ lane, x: anchorX });
    placed.push({ id: item.id, mode: "callout", text: item.short, x: left + w / 2, lane, anchorX });
  }
  return placed;
}
