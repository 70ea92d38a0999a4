// For benchmarks of the memory map (scripts/bench.mjs): a TraceView of N
// allocations without running the engine, and a timer around one synchronous
// render. The timer is browser only (the map draws into the DOM);
// `syntheticTrace` and `syntheticMapData` are pure.
//
//   import { timeMapRender } from "./views/map/bench";
//   const ms = timeMapRender(document.querySelector("#memory-map")!, 100_000);
//
// It goes through the app's path: chunkViewsAt on the TraceView's columns
// (model/held.ts), then renderMemoryMap.

import { META_PLACED, NONE, statsEveryFor, stmtTable, type ChunkUsed, type OpColumns, type TraceView } from "../../wasm/traceView";
import type { ChunkInfo, Direction, Op, Stats } from "../../wasm/types";
import { chunkViewsAt } from "../../model/chunks";
import type { MemoryMapData } from "./layout";
import { renderMemoryMap } from "./render";

/** Every synthetic block is this many bytes, in one chunk starting here. */
const SIZE = 8;
const START = 0x10010;
const ZERO: Stats = { requested: 0, used: 0, padding: 0, metadata: 0, leaked: 0, copied: 0, unused: 0, chunks: 1, utilisation: 0 };

/**
 * `repeat n { x = alloc 8 }` into one chunk big enough for all of it: op i
 * places block i, packed from the bump origin (bumping down, the newest block
 * is lowest). The chunk's capacity is the next multiple of 16 at or above the
 * blocks' bytes. Columns only; `op(i)` is made on demand.
 */
export function syntheticTrace(n: number, direction: Direction = "down"): TraceView {
  const count = Math.max(0, Math.floor(n));
  const capacity = Math.max(16, Math.ceil((count * SIZE) / 16) * 16);
  const chunk: ChunkInfo = { id: 0, start: START, capacity, header: 0, footer: 0, reason: "first" };
  const cols: OpColumns = {
    meta: new Uint32Array(count).fill(META_PLACED),
    chunk: new Uint32Array(count),
    offset: new Uint32Array(count),
    size: new Uint32Array(count).fill(SIZE),
    padding: new Uint32Array(count),
    dead_at: new Uint32Array(count).fill(NONE),
    gone_at: new Uint32Array(count).fill(NONE),
  };
  for (let i = 0; i < count; i++) cols.offset[i] = direction === "down" ? capacity - (i + 1) * SIZE : i * SIZE;
  const ptrAfter = (i: number): number => (direction === "down" ? START + capacity - (i + 1) * SIZE : START + (i + 1) * SIZE);
  const stats = (i: number): Stats => {
    const used = (i + 1) * SIZE;
    return { ...ZERO, requested: used, used, unused: capacity - used, utilisation: capacity ? used / capacity : 0 };
  };
  const statsEvery = statsEveryFor(count);
  const samples: Stats[] = [];
  for (let i = 0; i < count; i += statsEvery) samples.push(stats(i));
  if (count > 0 && (count - 1) % statsEvery !== 0) samples.push(stats(count - 1));
  return {
    version: 1,
    allocator: "synthetic",
    target: "64",
    direction,
    source: "bump-down",
    source_path: "",
    chunks: [chunk],
    stmts: stmtTable([{ line: 1, column: 1, kind: "alloc", block: "x" }]),
    length: count,
    cols,
    statsEvery,
    samples,
    op(i: number): Op {
      const address = START + (cols.offset[i] as number);
      return {
        index: i,
        kind: "alloc",
        block: "x",
        line: 1,
        column: 1,
        chunk: 0,
        offset: address - START,
        address,
        size: SIZE,
        align: 1,
        padding: 0,
        failed: false,
        bump_ptr: ptrAfter(i),
        events: [],
        stats: stats(i),
      };
    },
    chunksUsed(i: number): readonly ChunkUsed[] {
      const p = ptrAfter(i);
      return [direction === "down" ? { id: 0, lo: p, hi: START + capacity } : { id: 0, lo: START, hi: p }];
    },
  };
}

/** The synthetic trace of `n` blocks per direction (the columns are built once). */
const traces = new Map<string, TraceView>();
function traceFor(n: number, direction: Direction): TraceView {
  const key = `${Math.max(0, Math.floor(n))}|${direction}`;
  let t = traces.get(key);
  if (!t) {
    if (traces.size > 4) traces.clear();
    traces.set(key, (t = syntheticTrace(n, direction)));
  }
  return t;
}

function mapData(t: TraceView, step: number): MemoryMapData {
  const rows = chunkViewsAt(t, step);
  const chunk = rows[0]?.chunk;
  const used = rows[0]?.used ?? 0;
  const bumpPtr = chunk ? (t.direction === "down" ? chunk.start + chunk.capacity - used : chunk.start + used) : undefined;
  return { direction: t.direction, rows, bumpPtr, focus: new Set(), emptyText: "no chunk", animate: false };
}

/** Map data after every op of `syntheticTrace(n, direction)`, unanimated: one chunk of `n` blocks. */
export function syntheticMapData(n: number, direction: Direction = "down"): MemoryMapData {
  const t = traceFor(n, direction);
  return mapData(t, t.length);
}

/** Which of the last two steps each container showed last (timeMapRender alternates them). */
const lastStep = new WeakMap<HTMLElement, number>();

/**
 * Milliseconds one render of `n` blocks takes in `container`: the rows from
 * the columns and the render (the first render also builds the map). Calls
 * alternate between the last step and the one before it, so each render
 * draws something different (one block more or less) as scrubbing does, and
 * none is skipped as a redraw of the same picture.
 */
export function timeMapRender(container: HTMLElement, n: number): number {
  const t = traceFor(n, "down");
  const step = lastStep.get(container) === t.length ? Math.max(0, t.length - 1) : t.length;
  lastStep.set(container, step);
  const t0 = performance.now();
  renderMemoryMap(container, mapData(t, step));
  return performance.now() - t0;
}
