// What the memory holds after a given step, derived from the trace alone.
// `step` counts executed ops: 0 is the empty chunk, ops.length is the end.

import type { ChunkInfo, Stats, Trace } from "../engine/types";

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
}

/** Clamps a step into 0..ops.length. */
export function clampStep(trace: Trace, step: number): number {
  if (!Number.isFinite(step)) return 0;
  return Math.min(Math.max(0, Math.trunc(step)), trace.ops.length);
}

/** Blocks whose bytes are still in the chunk after `step` ops, by address. */
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

/** The chunk's first byte and one-past-the-last byte. */
export function chunkBounds(chunk: ChunkInfo): { start: number; end: number } {
  return { start: chunk.start, end: chunk.start + chunk.capacity };
}

/** The chunk's empty bump pointer: its end bumping down, its start bumping up. */
export function bumpOrigin(trace: Trace, chunk: ChunkInfo): number {
  return trace.direction === "down" ? chunk.start + chunk.capacity : chunk.start;
}

/**
 * The chunk the bump pointer is in after `step` ops: the chunk of the latest
 * op that placed a block, else the first chunk (one-chunk allocators).
 */
export function currentChunkAt(trace: Trace, step: number): ChunkInfo | undefined {
  for (let i = clampStep(trace, step) - 1; i >= 0; i--) {
    const id = trace.ops[i]?.chunk;
    if (id !== undefined) return trace.chunks.find((c) => c.id === id) ?? trace.chunks[0];
  }
  return trace.chunks[0];
}

/** The bump pointer after `step` ops (the chunk's edge before any op moved it). */
export function bumpPointerAt(trace: Trace, step: number): number {
  for (let i = clampStep(trace, step) - 1; i >= 0; i--) {
    const ptr = trace.ops[i]?.bump_ptr;
    if (ptr !== undefined) return ptr;
  }
  const chunk = trace.chunks[0];
  return chunk ? bumpOrigin(trace, chunk) : 0;
}

/** Running totals after `step` ops; the empty chunk's totals at step 0. */
export function statsAt(trace: Trace, step: number): Stats {
  const s = clampStep(trace, step);
  const op = s > 0 ? trace.ops[s - 1] : undefined;
  if (op) return op.stats;
  // Before any op: the first chunk only (later chunks do not exist yet).
  const first = trace.chunks.slice(0, 1);
  const capacity = first.reduce((n, c) => n + c.capacity, 0);
  const metadata = first.reduce((n, c) => n + c.header + c.footer, 0);
  return {
    requested: 0,
    used: 0,
    padding: 0,
    metadata,
    leaked: 0,
    copied: 0,
    unused: capacity,
    chunks: first.length,
    utilisation: 0,
  };
}
