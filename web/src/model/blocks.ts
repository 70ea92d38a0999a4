// What the memory holds after a given step, derived from the trace alone.
// `step` counts executed ops: 0 is before the first op, trace.length is the end.
//
// Read from the TraceView's columns (model/held.ts), not replayed: the block
// op i placed is held after step k when i < k and gone_at[i] >= k.

import type { TraceView } from "../engine/traceView";
import { heldAt, type Block } from "./held";

// Block is defined in held.ts, which makes blocks (so it needs nothing from
// here); views import it from here.
export type { Block, BlockState } from "./held";

/** Clamps a step into 0..length. */
export function clampStep(trace: Pick<TraceView, "length">, step: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.min(Math.max(0, Math.trunc(step)), trace.length);
}

/**
 * Blocks whose bytes are still in a chunk after `step` ops, by address (ties
 * in op order). Makes an object per block: O(blocks held). The map reads
 * `heldAt` rows instead, which make objects only for the blocks in view.
 */
export function blocksAt(trace: TraceView, step: number): Block[] {
  const held = heldAt(trace, clampStep(trace, step));
  const out: Block[] = [];
  for (const id of held.chunkIds()) for (const b of held.row(id).all()) out.push(b);
  return out.sort((a, b) => a.address - b.address || a.id - b.id);
}

/** The held block op `id` placed after `step` ops, if any: O(1). */
export function blockAt(trace: TraceView, step: number, id: number): Block | undefined {
  return heldAt(trace, clampStep(trace, step)).find(id);
}
