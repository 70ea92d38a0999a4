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
  /** Lane extents already taken by other text (a title, the bump pointer's label). */
  reserved?: readonly { lane: number; left: number; right: number }[];
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
  // Reserved extents come padded by their owner: they only need a hairline gap.
  const texts: { lane: number; left: number; right: number; gap: number }[] = (opts.reserved ?? []).map((r) => ({ ...r, gap: 2 }));
  const leaders: { lane: number; x: number }[] = [];
  const clamp = (left: number, w: number): number => Math.min(Math.max(left, 0), Math.max(0, opts.width - w));
  for (const item of outside) {
    const w = opts.measure(item.short);
    const anchorX = (item.x0 + item.x1) / 2;
    // Centred over the block first; then ending or starting at its leader;
    // then wholly beside the leader.
    const lefts = [anchorX - w / 2, anchorX + 3 - w, anchorX - 3, anchorX + 3, anchorX - 3 - w].map((l) => clamp(l, w));
    let spot: { lane: number; left: number } | undefined;
    for (let k = 0; k < opts.lanes && !spot; k++) {
      for (const left of lefts) {
        const right = left + w;
        const clashesText = texts.some(
          (t) =>
            (t.lane === k && left < t.right + t.gap && right + t.gap > t.left) ||
            (t.lane < k && anchorX >= t.left - 2 && anchorX <= t.right + 2),
        );
        const clashesLeader = leaders.some((l) => l.lane > k && l.x >= left - 2 && l.x <= right + 2);
        if (!clashesText && !clashesLeader) {
          spot = { lane: k, left };
          break;
        }
      }
    }
    if (!spot) continue;
    texts.push({ lane: spot.lane, left: spot.left, right: spot.left + w, gap: opts.gap });
    leaders.push({ lane: spot.lane, x: anchorX });
    placed.push({ id: item.id, mode: "callout", text: item.short, x: spot.left + w / 2, lane: spot.lane, anchorX });
  }
  return placed;
}
