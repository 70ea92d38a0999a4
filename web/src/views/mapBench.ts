// For benchmarks of the memory map: a chunk of N blocks without running the
// engine, and a timer around one synchronous render. Browser only (the map
// draws into the DOM); `syntheticRows` itself is pure.
//
//   import { syntheticRows, timeMapRender } from "./views/mapBench";
//   const ms = timeMapRender(document.querySelector("#memory-map")!, 100_000);
//
// or call renderMemoryMap(container, { ...syntheticMapData(n) }) yourself
// between performance.now() calls.

import type { ChunkInfo, Direction } from "../engine/types";
import type { Block } from "../model/blocks";
import type { ChunkView } from "../model/chunks";
import { renderMemoryMap, type MemoryMapData } from "./memoryMap";

/**
 * One chunk holding `n` blocks of `size` bytes packed from its bump origin,
 * as `repeat n { x = alloc size }` leaves it: bumping down, the newest block
 * is lowest. The chunk's capacity is the next multiple of 16 at or above the
 * blocks' bytes.
 */
export function syntheticRows(n: number, size = 8, direction: Direction = "down", start = 0x10010): ChunkView[] {
  const count = Math.max(0, Math.floor(n));
  const usedBytes = count * size;
  const capacity = Math.max(16, Math.ceil(usedBytes / 16) * 16);
  const chunk: ChunkInfo = { id: 0, start, capacity, header: 0, footer: 0, reason: "first" };
  const blocks: Block[] = [];
  for (let i = 0; i < count; i++) {
    const address = direction === "down" ? start + capacity - (i + 1) * size : start + i * size;
    blocks.push({
      id: i,
      name: "x",
      chunk: 0,
      address,
      size,
      align: 1,
      padding: 0,
      paddingStart: direction === "down" ? address + size : address,
      state: "live",
      kind: "alloc",
      line: 1,
    });
  }
  // A chunk's blocks are listed by address.
  if (direction === "down") blocks.reverse();
  return [{ chunk, blocks, used: usedBytes, current: true }];
}

/** Map data for `syntheticRows(n)`, unanimated. */
export function syntheticMapData(n: number, direction: Direction = "down"): MemoryMapData {
  const rows = syntheticRows(n, 8, direction);
  const chunk = rows[0]?.chunk;
  const used = rows[0]?.used ?? 0;
  const bumpPtr = chunk ? (direction === "down" ? chunk.start + chunk.capacity - used : chunk.start + used) : undefined;
  return { direction, rows, bumpPtr, focus: new Set(), emptyText: "no chunk", animate: false };
}

/** Milliseconds one render of `n` blocks takes in `container` (the first render also builds the map). */
export function timeMapRender(container: HTMLElement, n: number): number {
  const data = syntheticMapData(n);
  const t0 = performance.now();
  renderMemoryMap(container, data);
  return performance.now() - t0;
}
