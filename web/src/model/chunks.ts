// Which chunks exist after a step, which one holds the bump pointer, what each
// one holds and how full it is. Derived from the trace alone.
//
// A trace lists every chunk the run ever had; chunk `c` exists after step `s`
// (s ops executed) when the constructor made it (`created_by` absent) or an
// earlier op did (`created_by < s`), and no op up to s freed it
// (`freed_by` absent or `freed_by >= s`). Only the current chunk's bump
// pointer is in an op; the current chunk is the live chunk containing it.

import type { ChunkInfo, Direction, Stats, Trace } from "../engine/types";
import { blocksAt, clampStep, type Block } from "./blocks";

/** Whether `chunk` exists after `step` ops. */
export function chunkAliveAt(chunk: ChunkInfo, step: number): boolean {
  const made = chunk.created_by === undefined || chunk.created_by < step;
  const kept = chunk.freed_by === undefined || chunk.freed_by >= step;
  return made && kept;
}

/** The chunks that exist after `step` ops, oldest first. */
export function chunksAt(trace: Trace, step: number): ChunkInfo[] {
  const s = clampStep(trace, step);
  return trace.chunks.filter((c) => chunkAliveAt(c, s));
}

/** Whether `address` is in the chunk's usable bytes, both ends included (a bump pointer may sit on either). */
export function chunkContains(chunk: ChunkInfo, address: number): boolean {
  return address >= chunk.start && address <= chunk.start + chunk.capacity;
}

/** The chunk's empty bump pointer: its end bumping down, its start bumping up. */
export function bumpOrigin(direction: Direction, chunk: ChunkInfo): number {
  return direction === "down" ? chunk.start + chunk.capacity : chunk.start;
}

/** Bytes between the chunk's bump origin and `ptr`, within 0..capacity. */
export function usedFromPointer(direction: Direction, chunk: ChunkInfo, ptr: number): number {
  const used = direction === "down" ? chunk.start + chunk.capacity - ptr : ptr - chunk.start;
  return Math.min(Math.max(0, used), chunk.capacity);
}

/** Bytes from the chunk's bump origin to the far edge of its farthest block (padding included). */
export function blockExtent(direction: Direction, chunk: ChunkInfo, blocks: readonly Block[]): number {
  let used = 0;
  for (const b of blocks) {
    const low = Math.min(b.address, b.paddingStart);
    const high = Math.max(b.address + b.size, b.paddingStart + b.padding);
    used = Math.max(used, direction === "down" ? chunk.start + chunk.capacity - low : high - chunk.start);
  }
  return Math.min(Math.max(0, used), chunk.capacity);
}

interface Walk {
  alive: ChunkInfo[];
  ptr: number | undefined;
  current: ChunkInfo | undefined;
  /** Last known bump pointer of each chunk that was current at some point (dropped by reset/restore). */
  recorded: Map<number, number>;
}

/**
 * Picks the chunk the bump pointer is in: the live chunk containing it; if
 * several do (chunks back to back), the one the latest block went into; if
 * none does, the latest block's chunk, else the newest live chunk.
 */
function pickCurrent(alive: readonly ChunkInfo[], ptr: number | undefined, lastChunk: number | undefined): ChunkInfo | undefined {
  if (alive.length === 0) return undefined;
  const byLast = alive.find((c) => c.id === lastChunk);
  if (ptr === undefined) return byLast ?? alive[0];
  const containing = alive.filter((c) => chunkContains(c, ptr));
  if (containing.length === 1) return containing[0];
  if (containing.length > 1) return containing.find((c) => c.id === lastChunk) ?? containing[containing.length - 1];
  return byLast ?? alive[alive.length - 1];
}

/** One pass over the first `step` ops: pointer, current chunk and each chunk's last pointer. */
function walk(trace: Trace, step: number): Walk {
  const s = clampStep(trace, step);
  const recorded = new Map<number, number>();
  let lastChunk: number | undefined;
  let ptr: number | undefined;
  let current: ChunkInfo | undefined;
  for (let i = 0; i < s; i++) {
    const op = trace.ops[i];
    if (!op) break;
    if (op.chunk !== undefined && !op.failed) lastChunk = op.chunk;
    // A reset or restore rewinds chunks other than the current one too (or
    // frees them): their old pointers no longer say how full they are.
    if (op.kind === "reset" || op.kind === "restore") recorded.clear();
    const alive = trace.chunks.filter((c) => chunkAliveAt(c, i + 1));
    if (op.bump_ptr !== undefined) {
      ptr = op.bump_ptr;
    } else if (ptr !== undefined && !alive.some((c) => chunkContains(c, ptr as number))) {
      // The op left no pointer (no chunk left, as after a C++ arena reset).
      ptr = undefined;
    }
    current = pickCurrent(alive, ptr, lastChunk);
    if (current && ptr !== undefined) recorded.set(current.id, ptr);
  }
  const alive = trace.chunks.filter((c) => chunkAliveAt(c, s));
  if (s === 0) {
    current = pickCurrent(alive, undefined, undefined);
    ptr = current ? bumpOrigin(trace.direction, current) : undefined;
  } else if (ptr === undefined && alive.length > 0) {
    // Chunks but no pointer: an engine that left it out; start at the origin.
    current = pickCurrent(alive, undefined, lastChunk);
    ptr = current ? bumpOrigin(trace.direction, current) : undefined;
  }
  return { alive, ptr, current, recorded };
}

/** The bump pointer after `step` ops: the current chunk's origin at step 0; undefined while no chunk exists. */
export function bumpPointerAt(trace: Trace, step: number): number | undefined {
  return walk(trace, step).ptr;
}

/** The chunk holding the bump pointer after `step` ops (undefined while no chunk exists). */
export function currentChunkAt(trace: Trace, step: number): ChunkInfo | undefined {
  return walk(trace, step).current;
}

export interface ChunkView {
  chunk: ChunkInfo;
  /** Blocks whose bytes are in this chunk, by address. */
  blocks: Block[];
  /** Bytes between the chunk's bump origin and its bump pointer. */
  used: number;
  /** Holds the bump pointer. */
  current: boolean;
}

/**
 * Every chunk that exists after `step` ops, oldest first, with its blocks and
 * fill. The current chunk's fill comes from the bump pointer; another chunk's
 * from the pointer it had when it was last current (unless a reset or restore
 * rewound it since), and at least to the far edge of the blocks it holds.
 */
export function chunkViewsAt(trace: Trace, step: number): ChunkView[] {
  const { alive, ptr, current, recorded } = walk(trace, step);
  const blocks = blocksAt(trace, step);
  return alive.map((chunk) => {
    const own = blocks.filter((b) => b.chunk === chunk.id);
    const isCurrent = chunk.id === current?.id;
    let used: number;
    if (isCurrent && ptr !== undefined) {
      used = usedFromPointer(trace.direction, chunk, ptr);
    } else {
      const last = recorded.get(chunk.id);
      const byPtr = last !== undefined ? usedFromPointer(trace.direction, chunk, last) : 0;
      used = Math.max(byPtr, blockExtent(trace.direction, chunk, own));
    }
    return { chunk, blocks: own, used, current: isCurrent };
  });
}

/** Whether no chunk existed at any step up to `step` (a lazy allocator before its first allocation). */
export function noChunkYet(trace: Trace, step: number): boolean {
  const s = clampStep(trace, step);
  return !trace.chunks.some((c) => c.created_by === undefined || c.created_by < s);
}

/** Running totals after `step` ops; before any op, the constructor's chunks empty. */
export function statsAt(trace: Trace, step: number): Stats {
  const s = clampStep(trace, step);
  const op = s > 0 ? trace.ops[s - 1] : undefined;
  if (op) return op.stats;
  const alive = chunksAt(trace, 0);
  return {
    requested: 0,
    used: 0,
    padding: 0,
    metadata: alive.reduce((n, c) => n + c.header + c.footer, 0),
    leaked: 0,
    copied: 0,
    unused: alive.reduce((n, c) => n + c.capacity, 0),
    chunks: alive.length,
    utilisation: 0,
  };
}
