// What the memory holds after a given step, derived from the trace alone.
// `step` counts executed ops: 0 is before the first op, ops.length is the end.

import type { Trace } from "../engine/types";

export type BlockState = "live" | "freed" | "leaked";

export interface Block {
  /** Index of the op that placed it: stable across steps, the data-join key. */
  id: number;
  name: string;
  chunk: number;
  address: number;
  size: number;
  align: number;
  /** Alignment padding skipped to place it. */
  padding: number;
  /** First byte of that padding: above the block bumping down, below it bumping up. */
  paddingStart: number;
  state: BlockState;
  /** The op that placed it: its kind and 1-based program line (for the block's card). */
  kind?: "alloc" | "realloc";
  line?: number;
  /** For a realloc: the op id of the block it replaced (moved away from, or grew in place). */
  from?: number;
}

/** Clamps a step into 0..ops.length. */
export function clampStep(trace: Trace, step: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.min(Math.max(0, Math.trunc(step)), trace.ops.length);
}

/** Blocks whose bytes are still in a chunk after `step` ops, by address. */
export function blocksAt(trace: Trace, step: number): Block[] {
  const end = clampStep(trace, step);
  const blocks = new Map<number, Block>();
  for (let i = 0; i < end; i++) {
    const op = trace.ops[i];
    if (!op) break;
    if ((op.kind === "alloc" || op.kind === "realloc") && !op.failed && op.address !== undefined) {
      const size = op.size ?? 0;
      const padding = op.padding ?? 0;
      blocks.set(op.index, {
        id: op.index,
        name: op.block ?? `#${op.index}`,
        chunk: op.chunk ?? 0,
        address: op.address,
        size,
        align: op.align ?? 1,
        padding,
        paddingStart: trace.direction === "down" ? op.address + size : op.address - padding,
        state: "live",
        kind: op.kind,
        line: op.line,
        ...(op.kind === "realloc" && op.target_op !== undefined ? { from: op.target_op } : {}),
      });
      if (op.kind === "realloc" && op.target_op !== undefined && op.target_op !== op.index) {
        // Moved: the old bytes stay behind. In place: the new block replaces it.
        if (op.moved === false) blocks.delete(op.target_op);
        else {
          const old = blocks.get(op.target_op);
          if (old) old.state = "leaked";
        }
      }
    }
    if (op.kind === "free" && op.target_op !== undefined) {
      const freed = blocks.get(op.target_op);
      if (freed) freed.state = "freed";
    }
    for (const id of op.reclaimed ?? []) blocks.delete(id);
  }
  return [...blocks.values()].sort((a, b) => a.address - b.address);
}
