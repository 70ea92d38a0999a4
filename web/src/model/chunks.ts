// Which chunks exist after a step, which one holds the bump pointer, what each
// one holds and how full it is. Derived from the trace alone.
//
// A trace lists every chunk the run ever had; chunk `c` exists after step `s`
// (s ops executed) when the constructor made it (`created_by` absent) or an
// earlier op did (`created_by < s`), and no op up to s freed it
// (`freed_by` absent or `freed_by >= s`). Only the current chunk's bump
// pointer is in an op; the current chunk is the live chunk containing it.
// Everything here reads the TraceView (columns, `op(i)`, `chunksUsed(i)`):
// no step replays the ops before it.

import { NONE, sampleFor, type TraceView } from "../wasm/traceView";
import type { ChunkInfo, Direction, Stats } from "../wasm/types";
import type { Block } from "./blocks";
import { clampStep } from "./step";
import { heldAt, type HeldRow } from "./held";

/** Whether `chunk` exists after `step` ops. */
export function chunkAliveAt(chunk: ChunkInfo, step: number): boolean {
  const made = chunk.created_by === undefined || chunk.created_by < step;
  const kept = chunk.freed_by === undefined || chunk.freed_by >= step;
  return made && kept;
}

const mostAlive = new WeakMap<TraceView, { chunks: number; most: number }>();

/**
 * The most chunks that exist together after any step of the trace: the rows
 * a map of it ever shows. One sweep over the chunks' lifetimes, kept per
 * trace (and done again when a trace still running has listed more chunks).
 */
export function mostChunksAlive(trace: TraceView): number {
  const known = mostAlive.get(trace);
  if (known && known.chunks === trace.chunks.length) return known.most;
  // Chunk c exists after steps (created_by, freed_by]: +1 from the step after
  // it was made, −1 from the step after the op that freed it.
  const changes: [number, number][] = [];
  for (const c of trace.chunks) {
    changes.push([c.created_by === undefined ? 0 : c.created_by + 1, 1]);
    if (c.freed_by !== undefined) changes.push([c.freed_by + 1, -1]);
  }
  // At one step, frees first: a chunk freed and one made by the same op do not both count.
  changes.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let alive = 0;
  let most = 0;
  for (const [, d] of changes) {
    alive += d;
    if (alive > most) most = alive;
  }
  mostAlive.set(trace, { chunks: trace.chunks.length, most });
  return most;
}

/** The chunks that exist after `step` ops, oldest first. */
export function chunksAt(trace: TraceView, step: number): ChunkInfo[] {
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

/** How far back an op without a bump pointer looks for the last one an op left. */
const PTR_LOOKBACK = 16;

interface Pointer {
  alive: ChunkInfo[];
  ptr: number | undefined;
  current: ChunkInfo | undefined;
}

/**
 * The bump pointer and the chunk holding it after `step` ops: the last op's
 * pointer, its chunk the live one containing it. O(chunks), plus a scan back
 * over the chunk column to the latest placed block (one op, as a rule).
 */
function pointerAt(trace: TraceView, step: number): Pointer {
  const s = clampStep(trace, step);
  const alive = chunksAt(trace, s);
  if (s === 0) {
    const current = pickCurrent(alive, undefined, undefined);
    return { alive, current, ptr: current ? bumpOrigin(trace.direction, current) : undefined };
  }
  // The chunk the latest block went into.
  let lastChunk: number | undefined;
  const col = trace.cols.chunk;
  for (let i = s - 1; i >= 0; i--) {
    const c = col[i] as number;
    if (c !== NONE) {
      lastChunk = c;
      break;
    }
  }
  let ptr = trace.op(s - 1).bump_ptr;
  if (ptr === undefined) {
    // An op that left no pointer keeps the last one while a live chunk holds it
    // (none does after a C++ arena's reset: no chunk left).
    for (let i = s - 2; i >= Math.max(0, s - 1 - PTR_LOOKBACK); i--) {
      const p = trace.op(i).bump_ptr;
      if (p !== undefined) {
        if (alive.some((c) => chunkContains(c, p))) ptr = p;
        break;
      }
    }
  }
  let current = pickCurrent(alive, ptr, lastChunk);
  if (ptr === undefined && current) {
    // Chunks but no pointer: an engine that left it out; start at the origin.
    ptr = bumpOrigin(trace.direction, current);
  }
  if (alive.length === 0) current = undefined;
  return { alive, ptr, current };
}

/** The bump pointer after `step` ops: the current chunk's origin at step 0; undefined while no chunk exists. */
export function bumpPointerAt(trace: TraceView, step: number): number | undefined {
  return pointerAt(trace, step).ptr;
}

/** The chunk holding the bump pointer after `step` ops (undefined while no chunk exists). */
export function currentChunkAt(trace: TraceView, step: number): ChunkInfo | undefined {
  return pointerAt(trace, step).current;
}

export interface ChunkView {
  chunk: ChunkInfo;
  /** The blocks this chunk holds, by address, indexed on the columns: the map reads only those in view. */
  held: HeldRow;
  /** Blocks whose bytes are in this chunk, by address: made on first read, O(blocks) (prefer `held`). */
  readonly blocks: Block[];
  /** Bytes between the chunk's bump origin and its bump pointer. */
  used: number;
  /** Holds the bump pointer. */
  current: boolean;
}

/** A chunk's view; its block objects are made only if `blocks` is read. */
export function chunkView(chunk: ChunkInfo, held: HeldRow, used: number, current: boolean): ChunkView {
  let blocks: Block[] | undefined;
  return {
    chunk,
    held,
    used,
    current,
    get blocks(): Block[] {
      return (blocks ??= held.all());
    },
  };
}

/**
 * Every chunk that exists after `step` ops, oldest first, with its blocks and
 * fill. The current chunk's fill comes from the bump pointer; another chunk's
 * from the trace's used extents after the last op (`chunksUsed`: the pointer
 * it had when it was last current, unless a reset or restore rewound it
 * since, and at least to the far edge of the blocks it holds).
 * Cost: O(chunks) plus `heldAt` (memoised per step).
 */
export function chunkViewsAt(trace: TraceView, step: number): ChunkView[] {
  const s = clampStep(trace, step);
  const { alive, ptr, current } = pointerAt(trace, s);
  const extents = s > 0 ? trace.chunksUsed(s - 1) : [];
  const held = heldAt(trace, s);
  return alive.map((chunk) => {
    const isCurrent = chunk.id === current?.id;
    let used: number;
    if (isCurrent && ptr !== undefined) {
      used = usedFromPointer(trace.direction, chunk, ptr);
    } else {
      const e = extents.find((u) => u.id === chunk.id);
      used = e ? Math.min(Math.max(0, e.hi - e.lo), chunk.capacity) : 0;
    }
    return chunkView(chunk, held.row(chunk.id), used, isCurrent);
  });
}

/** Whether no chunk existed at any step up to `step` (a lazy allocator before its first allocation). */
export function noChunkYet(trace: TraceView, step: number): boolean {
  const s = clampStep(trace, step);
  return !trace.chunks.some((c) => c.created_by === undefined || c.created_by < s);
}

/** Running totals after `step` ops; before any op, the constructor's chunks empty. */
export function statsAt(trace: TraceView, step: number): Stats {
  const s = clampStep(trace, step);
  if (s > 0) {
    const sample = sampleFor(trace, s - 1);
    return sample !== undefined ? (trace.samples[sample] ?? trace.op(s - 1).stats) : trace.op(s - 1).stats;
  }
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
