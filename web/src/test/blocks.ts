// Test oracles over a step's held blocks: every block at once, one object
// each. The page reads `heldAt` rows instead, which make objects only for the
// blocks in view.

import type { TraceView } from "../wasm/traceView";
import { clampStep } from "../model/step";
import { heldAt, type Block } from "../model/held";

/**
 * Blocks whose bytes are still in a chunk after `step` ops, by address (ties
 * in op order). Makes an object per block: O(blocks held).
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
