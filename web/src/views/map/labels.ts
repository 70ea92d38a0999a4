// The map's words: accessible names of blocks and chunks, a chunk's reason
// for existing, and the note shown when rows draw fill instead of blocks.

import type { ChunkInfo } from "../../wasm/types";
import type { Block } from "../../model/blocks";
import type { ChunkView } from "../../model/chunks";
import { bytes, hex } from "../../model/format";

export function blockLabel(b: Block): string {
  const parts = [`${b.name}: ${bytes(b.size)} at ${hex(b.address)}`, `align ${b.align}`];
  if (b.padding > 0) parts.push(`${bytes(b.padding)} padding`);
  if (b.state === "freed") parts.push("freed, not reclaimed");
  if (b.state === "leaked") parts.push("left behind by a realloc");
  return parts.join(", ");
}

/** Why the chunk exists, in a few words. */
export function chunkReason(chunk: ChunkInfo): string {
  const need = chunk.requested !== undefined ? ` (${chunk.requested} B request)` : "";
  switch (chunk.reason) {
    case "first":
      return chunk.created_by === undefined ? "first chunk, made up front" : "first chunk, made on first use";
    case "full":
      return "new: current chunk full";
    case "oversized":
      return `new: oversized request${need}`;
    case "slab":
      return "new slab";
    case "custom_slab":
      return `custom slab${need}`;
    case undefined:
      return "";
    default:
      return chunk.reason.replaceAll("_", " ");
  }
}

/** "chunk 1: 960 bytes usable, 48 bytes footer, 120 used". */
export function chunkLabel(view: ChunkView): string {
  const { chunk } = view;
  const parts = [`chunk ${chunk.id}: ${chunk.capacity} bytes usable`];
  if (chunk.header > 0) parts.push(`${bytes(chunk.header)} header`);
  if (chunk.footer > 0) parts.push(`${bytes(chunk.footer)} footer`);
  parts.push(`${view.used} used`);
  if (view.current) parts.push("current chunk");
  return parts.join(", ");
}

/**
 * What a screen reader (and everyone) is told when rows are binned:
 * "100000 blocks in 1 chunk; zoom in to see blocks". Empty when every row
 * draws its blocks one by one.
 */
export function lodSummary(blocks: number, chunks: number, binnedRows: number): string {
  if (binnedRows === 0) return "";
  const b = `${blocks} ${blocks === 1 ? "block" : "blocks"}`;
  const c = `${chunks} ${chunks === 1 ? "chunk" : "chunks"}`;
  const which = binnedRows === chunks ? "" : ` (${binnedRows} of them drawn as fill)`;
  return `${b} in ${c}${which}; zoom in to see blocks`;
}
