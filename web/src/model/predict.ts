// Predict mode: before the next op runs, the learner guesses where its block
// will land; the trace already knows. Everything here is derived from
// (trace, step), like the rest of the model.

import { chunkById, opAt, placed, type TraceView } from "../engine/traceView";
import type { ChunkInfo, Op, TraceEvent } from "../engine/types";
import { clampStep, type Block } from "./blocks";
import { heldAt } from "./held";
import { bumpOrigin, bumpPointerAt, chunkContains, currentChunkAt } from "./chunks";
import { bytes, hex } from "./format";

export interface Prediction {
  /** Index of the op the question is about (the next op: ops[step]). */
  opIndex: number;
  name: string;
  kind: "alloc" | "realloc";
  /** Where the block lands. */
  address: number;
  size: number;
  align: number;
  /** The chunk it lands in, and whether the op makes that chunk. */
  chunk: ChunkInfo;
  newChunk: boolean;
  /** One sentence on why it lands there, from the op's events. */
  reason: string;
}

/** The next op when it places a block (an alloc or realloc that did not fail). */
function placingOp(trace: TraceView, step: number): Op | undefined {
  const i = clampStep(trace, step);
  // The columns say whether it places a block: only then is its detail asked for.
  if (!placed(trace, i)) return undefined;
  const op = opAt(trace, i);
  if (!op || op.failed || op.address === undefined || op.chunk === undefined) return undefined;
  return op.kind === "alloc" || op.kind === "realloc" ? op : undefined;
}

const eventOf = (op: Op, kind: string): TraceEvent | undefined => op.events.find((e) => e.kind === kind);

/** The bump arithmetic, from where the pointer was to where the block starts. */
function bumpSentence(trace: TraceView, op: Op, from: number): string {
  const address = op.address ?? 0;
  const size = op.size ?? 0;
  const align = op.align ?? 1;
  if (trace.direction === "down") {
    const raw = from - size;
    const head = `bump down: ${hex(from)} − ${size} = ${hex(raw)}`;
    if (raw === address) return `${head}, already ${align}-aligned`;
    if (raw > address) return `${head}, rounded down to ${hex(address)} for alignment (${bytes(raw - address)} of padding)`;
    return `${head}; the block starts at ${hex(address)}`;
  }
  const head = `bump up: the block starts at the pointer, ${hex(from)}`;
  const tail = `, and the pointer moves past it to ${hex(address + size)}`;
  if (from === address) return `${head}, already ${align}-aligned${tail}`;
  if (address > from) return `bump up: ${hex(from)} rounded up to ${hex(address)} for alignment (${bytes(address - from)} of padding)${tail}`;
  return `${head}; the block starts at ${hex(address)}`;
}

/** Why the op's block lands where it does, in one sentence built from its events. */
function reasonFor(trace: TraceView, step: number, op: Op, chunk: ChunkInfo, newChunk: boolean): string {
  const name = op.block ?? "the block";
  const made = eventOf(op, "new_chunk");
  const ptr = bumpPointerAt(trace, step);
  const from = newChunk || ptr === undefined || !chunkContains(chunk, ptr) ? bumpOrigin(trace.direction, chunk) : ptr;
  const bump = bumpSentence(trace, op, from);
  const prefix = newChunk && made ? `no room where the pointer is: ${made.text}; ` : "";
  if (op.kind === "realloc") {
    const inPlace = eventOf(op, "grew_in_place") ?? eventOf(op, "shrank_in_place");
    if (inPlace) return `${name} is the last block: it ${inPlace.text}, staying at ${hex(op.address ?? 0)}`;
    const moved = eventOf(op, "moved");
    const copied = eventOf(op, "copied");
    const copiedText = copied ? `, ${copied.text}` : "";
    // Left behind: a fresh allocation somewhere else. Not left behind: the
    // last block, moved over its own old bytes (bumping down, it grows that way).
    if (eventOf(op, "leaked")) return `${prefix}${name} cannot grow where it is, so it is allocated anew: ${bump}${copiedText}, the old bytes stay behind`;
    if (moved) return `${name} is the last block: it ${moved.text}${copiedText}, over its own old bytes`;
  }
  const kept = !newChunk && eventOf(op, "chunk_reused") ? `chunk ${chunk.id} is used again; ` : "";
  return `${prefix}${kept}${bump}`;
}

/** Where the next op's block will land, or null when the next op places none. */
export function predictionAt(trace: TraceView, step: number): Prediction | null {
  const s = clampStep(trace, step);
  const op = placingOp(trace, s);
  if (!op || op.address === undefined) return null;
  const chunk = op.chunk !== undefined ? chunkById(trace, op.chunk) : undefined;
  if (!chunk) return null;
  const newChunk = chunk.created_by === op.index;
  return {
    opIndex: op.index,
    name: op.block ?? `#${op.index}`,
    kind: op.kind === "realloc" ? "realloc" : "alloc",
    address: op.address,
    size: op.size ?? 0,
    align: op.align ?? 1,
    chunk,
    newChunk,
    reason: reasonFor(trace, s, op, chunk, newChunk),
  };
}

/** What the strip shows before the guess: the chunk's range and what is in it at `step`. */
export interface StripData {
  start: number;
  /** One past the last usable byte. */
  end: number;
  /** Blocks in the chunk at `step` (none yet when the op makes the chunk): the STRIP_BLOCKS nearest the bump pointer's side. */
  blocks: Block[];
  /** Blocks of the chunk left out (the oldest, far from the pointer; a few hundred pixels show them as one band anyway). */
  hidden: number;
  /** The bump pointer, when it is in this chunk. */
  pointer: number | undefined;
}

/** At most this many blocks drawn on the strip. */
export const STRIP_BLOCKS = 1000;

export function stripAt(trace: TraceView, step: number, p: Prediction): StripData {
  const s = clampStep(trace, step);
  const start = p.chunk.start;
  const end = p.chunk.start + p.chunk.capacity;
  if (p.newChunk) return { start, end, blocks: [], hidden: 0, pointer: bumpOrigin(trace.direction, p.chunk) };
  const row = heldAt(trace, s).row(p.chunk.id);
  const shown = Math.min(row.count, STRIP_BLOCKS);
  // By address: bumping down the newest blocks are the lowest, bumping up the highest.
  const blocks = trace.direction === "down" ? row.slice(0, shown) : row.slice(row.count - shown, row.count);
  const ptr = bumpPointerAt(trace, s);
  const inChunk = ptr !== undefined && currentChunkAt(trace, s)?.id === p.chunk.id && chunkContains(p.chunk, ptr);
  return { start, end, blocks, hidden: row.count - shown, pointer: inChunk ? ptr : undefined };
}

/**
 * Bytes either side of the block that still count as right. A strip is a few
 * hundred pixels wide and a block may be one byte: a guess within a few
 * pixels of it is a right answer, not a near miss. The view passes how many
 * bytes its pixels span; without it a guess must hit the block's bytes.
 */
export function toleranceFor(bytesPerPixel: number, pixels = 4): number {
  if (!Number.isFinite(bytesPerPixel) || bytesPerPixel <= 0) return 0;
  return Math.floor(bytesPerPixel * pixels);
}

export interface Score {
  right: boolean;
  /** Bytes from the guess to the nearest byte of the block (0 inside it). */
  distance: number;
}

/** Right when the guess falls on the block's bytes, or within `tolerance` bytes of them. */
export function scoreGuess(p: Prediction, guess: number, tolerance = 0): Score {
  const last = p.address + Math.max(p.size, 1) - 1;
  const distance = guess < p.address ? p.address - guess : guess > last ? guess - last : 0;
  return { right: distance <= Math.max(0, tolerance), distance };
}

/** The cursor's first place: the middle of the strip, which gives nothing away. */
export function cursorStart(strip: StripData): number {
  return clampAddress(strip, (strip.start + strip.end) / 2);
}

/** An address kept within the strip's bytes. */
export function clampAddress(strip: StripData, address: number): number {
  return Math.min(Math.max(Math.round(address), strip.start), Math.max(strip.start, strip.end - 1));
}

/** How far one arrow key moves the cursor: the block's alignment, a coarse step with Shift. */
export function cursorStep(p: Prediction, strip: StripData, coarse: boolean): number {
  const fine = Math.max(1, p.align);
  if (!coarse) return fine;
  const sixteenth = Math.max(1, Math.floor((strip.end - strip.start) / 16));
  return Math.max(fine, Math.ceil(sixteenth / fine) * fine);
}
