// Predict mode: before the next op runs, the learner guesses where its block
// will land; the trace already knows. Everything here is derived from
// (trace, step), like the rest of the model.

import { chunkById, opAt, placed, type TraceView } from "../wasm/traceView";
import type { ChunkInfo, Op, TraceEvent } from "../wasm/types";
import type { Block } from "./blocks";
import { clampStep } from "./step";
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
  direction: "up" | "down";
  /**
   * The bump pointer the block is bumped from (in its chunk, before the op),
   * or null when the op places it without bumping: a realloc that stays in
   * place, or the last block moved over its own old bytes.
   */
  bumpFrom: number | null;
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

/**
 * The bump arithmetic, from where the pointer was to where the block starts;
 * bumping up, on to where the pointer is after it (`after`, in the block's
 * chunk), which a minimum alignment rounds up past the block's end.
 */
function bumpSentence(trace: TraceView, op: Op, from: number, after: number | undefined): string {
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
  const end = address + size;
  const tail = after !== undefined && after > end ? `, and the pointer moves past it to ${hex(end)}, rounded up to ${hex(after)}` : `, and the pointer moves past it to ${hex(end)}`;
  if (from === address) return `${head}, already ${align}-aligned${tail}`;
  if (address > from) return `bump up: ${hex(from)} rounded up to ${hex(address)} for alignment (${bytes(address - from)} of padding)${tail}`;
  return `${head}; the block starts at ${hex(address)}`;
}

/** Why the op's block lands where it does (one sentence built from its events), and the pointer it is bumped from. */
function reasonFor(trace: TraceView, step: number, op: Op, chunk: ChunkInfo, newChunk: boolean): { reason: string; bumpFrom: number | null } {
  const name = op.block ?? "the block";
  const made = eventOf(op, "new_chunk");
  const ptr = bumpPointerAt(trace, step);
  const from = newChunk || ptr === undefined || !chunkContains(chunk, ptr) ? bumpOrigin(trace.direction, chunk) : ptr;
  const next = bumpPointerAt(trace, step + 1);
  const bump = bumpSentence(trace, op, from, next !== undefined && chunkContains(chunk, next) ? next : undefined);
  const prefix = newChunk && made ? `no room where the pointer is: ${made.text}; ` : "";
  if (op.kind === "realloc") {
    const inPlace = eventOf(op, "grew_in_place") ?? eventOf(op, "shrank_in_place");
    if (inPlace) return { reason: `${name} is the last block: it ${inPlace.text}, staying at ${hex(op.address ?? 0)}`, bumpFrom: null };
    const moved = eventOf(op, "moved");
    const copied = eventOf(op, "copied");
    const copiedText = copied ? `, ${copied.text}` : "";
    // Left behind: a fresh allocation somewhere else. Not left behind: the
    // last block, moved over its own old bytes (bumping down, it grows that way).
    if (eventOf(op, "leaked")) return { reason: `${prefix}${name} cannot grow where it is, so it is allocated anew: ${bump}${copiedText}, the old bytes stay behind`, bumpFrom: from };
    if (moved) return { reason: `${name} is the last block: it ${moved.text}${copiedText}, over its own old bytes`, bumpFrom: null };
  }
  const kept = !newChunk && eventOf(op, "chunk_reused") ? `chunk ${chunk.id} is used again; ` : "";
  return { reason: `${prefix}${kept}${bump}`, bumpFrom: from };
}

/** Where the next op's block will land, or null when the next op places none. */
export function predictionAt(trace: TraceView, step: number): Prediction | null {
  const s = clampStep(trace, step);
  const op = placingOp(trace, s);
  if (!op || op.address === undefined) return null;
  const chunk = op.chunk !== undefined ? chunkById(trace, op.chunk) : undefined;
  if (!chunk) return null;
  const newChunk = chunk.created_by === op.index;
  const { reason, bumpFrom } = reasonFor(trace, s, op, chunk, newChunk);
  return {
    opIndex: op.index,
    name: op.block ?? `#${op.index}`,
    kind: op.kind === "realloc" ? "realloc" : "alloc",
    address: op.address,
    size: op.size ?? 0,
    align: op.align ?? 1,
    chunk,
    newChunk,
    direction: trace.direction,
    bumpFrom,
    reason,
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


// ---- The learner's guess -------------------------------------------------------

/** The guess's first place when none is made yet: the middle of the strip, which gives nothing away. */
export function cursorStart(strip: StripData): number {
  return clampAddress(strip, (strip.start + strip.end) / 2);
}

/** An address kept within the strip's bytes, on a whole byte. */
export function clampAddress(strip: StripData, address: number): number {
  return Math.min(Math.max(Math.floor(address), strip.start), Math.max(strip.start, strip.end - 1));
}

/**
 * How a key moves the guess: one byte; to the previous or next multiple of
 * the block's alignment (a place the block could start); a sixteenth of the
 * chunk; or to either end of it.
 */
export type GuessMove = "byteDown" | "byteUp" | "alignDown" | "alignUp" | "pageDown" | "pageUp" | "start" | "end";

/** The guess after `move`, from the guess made (or, with none, from the strip's middle). */
export function moveGuess(p: Prediction, strip: StripData, guess: number | null, move: GuessMove): number {
  const from = guess ?? cursorStart(strip);
  const align = Math.max(1, p.align);
  const page = Math.max(1, Math.floor((strip.end - strip.start) / 16));
  const to: Record<GuessMove, number> = {
    byteDown: from - 1,
    byteUp: from + 1,
    // Strictly past `from`: an aligned guess moves one alignment step.
    alignDown: (Math.ceil(from / align) - 1) * align,
    alignUp: (Math.floor(from / align) + 1) * align,
    pageDown: from - page,
    pageUp: from + page,
    start: strip.start,
    end: strip.end - 1,
  };
  return clampAddress(strip, to[move]);
}

// ---- The zoomed strip -----------------------------------------------------------

/** The fewest and the most bytes the zoomed strip shows, one cell each. */
export const ZOOM_MIN_BYTES = 32;
export const ZOOM_MAX_BYTES = 64;

/**
 * The bytes the zoomed strip shows, [lo, hi): around the bump pointer (its
 * origin in a chunk the op makes), most of them on the side it bumps
 * towards, as many as two alignment steps and a few more need (32 to 64
 * bytes: on a phone's strip a byte is then a finger's few pixels, and the
 * ±1 buttons do the rest). A guess outside that window moves it: the zoom
 * then shows the bytes around the guess, to be refined by tapping.
 */
export function zoomWindow(p: Prediction, strip: StripData, guess: number | null): { lo: number; hi: number } {
  const bytesShown = Math.min(ZOOM_MAX_BYTES, Math.max(ZOOM_MIN_BYTES, 2 * Math.max(1, p.align) + 8), strip.end - strip.start);
  const ptr = strip.pointer ?? bumpOrigin(p.direction, p.chunk);
  // A few bytes on the far side of the pointer: the room to show it, and a guess past it.
  const behind = Math.min(4, Math.floor(bytesShown / 8));
  let lo = p.direction === "down" ? ptr - (bytesShown - behind) : ptr - behind;
  if (guess !== null && (guess < lo || guess >= lo + bytesShown)) lo = guess - Math.floor(bytesShown / 2);
  lo = Math.min(Math.max(lo, strip.start), strip.end - bytesShown);
  return { lo, hi: lo + bytesShown };
}

export interface Grade {
  /** Right only on the exact byte where the block starts. */
  right: boolean;
  /** The guess minus where the block starts: positive when the guess is too high. */
  offset: number;
  /** The verdict, with the guess and the real address. */
  verdict: string;
  /**
   * The mistake a wrong guess most likely is, worked out from the op's own
   * numbers (empty when right, or when no common mistake gives that address).
   */
  mistake: string;
}

const tooFar = (offset: number): string => `${bytes(Math.abs(offset))} too ${offset > 0 ? "high" : "low"}`;

/** The common mistake that gives `guess`, from the bump arithmetic, or "". */
function mistakeFor(p: Prediction, guess: number): string {
  const { name, address: at, size, align, bumpFrom: from } = p;
  const end = p.chunk.start + p.chunk.capacity;
  if (guess < p.chunk.start || guess >= end) {
    return p.newChunk
      ? `${name} does not fit where the bump pointer is: a new chunk is made, ${hex(p.chunk.start)}–${hex(end)}, and ${name} lands in it.`
      : `${hex(guess)} is outside chunk ${p.chunk.id} (${hex(p.chunk.start)}–${hex(end)}), where ${name} lands.`;
  }
  if (from === null) return "";
  const oneStep = align > 1 && Math.abs(guess - at) === align;
  if (p.direction === "down") {
    const raw = from - size;
    const padding = raw - at;
    // The arithmetic does not explain the address (it always should): no diagnosis beats a wrong one.
    if (padding < 0 || padding >= align) return "";
    if (padding > 0 && guess === raw) {
      return `You subtracted the size but did not round down to the alignment: ${hex(from)} − ${size} = ${hex(raw)}, which is not ${align}-aligned; rounding down to ${hex(at)} leaves ${bytes(padding)} of padding.`;
    }
    if (guess === from) {
      return padding === 0
        ? `Bumping down, the block ends at the old bump pointer, ${hex(from)}: it starts ${bytes(size)} below it, at ${hex(at)}.`
        : `Bumping down, the block does not start at the old bump pointer, ${hex(from)}: it starts ${bytes(size)} below it, ${hex(raw)}, rounded down to ${align}-aligned: ${hex(at)} (${bytes(padding)} of padding).`;
    }
    if (padding > 0 && guess === at + align) {
      return `You rounded up: bumping down rounds ${hex(from)} − ${size} = ${hex(raw)} down to ${align}-aligned, to ${hex(at)}, not up to ${hex(guess)}.`;
    }
    if (oneStep) {
      return padding === 0
        ? `One alignment step (${bytes(align)}) off: ${hex(from)} − ${size} = ${hex(at)} is already ${align}-aligned.`
        : `One alignment step (${bytes(align)}) off: ${hex(from)} − ${size} = ${hex(raw)} rounds down to ${hex(at)}, the nearest ${align}-aligned address at or below it.`;
    }
    return "";
  }
  const padding = at - from;
  if (padding < 0 || padding >= align) return "";
  if (padding > 0 && guess === from) {
    return `You did not round up to the alignment: the bump pointer ${hex(from)} is not ${align}-aligned; rounding up to ${hex(at)} leaves ${bytes(padding)} of padding.`;
  }
  if (padding > 0 && guess === at - align) {
    return `You rounded down: bumping up rounds the bump pointer ${hex(from)} up to ${align}-aligned, to ${hex(at)}, not down to ${hex(guess)}.`;
  }
  if (size > 0 && guess === at + size) {
    return `That is where ${name} ends, not where it starts: bumping up, the block starts at the pointer${padding > 0 ? `, rounded up to ${hex(at)}` : `, ${hex(at)}`}, and ends at ${hex(guess)}.`;
  }
  if (oneStep) {
    return padding === 0
      ? `One alignment step (${bytes(align)}) off: the bump pointer ${hex(from)} is already ${align}-aligned.`
      : `One alignment step (${bytes(align)}) off: the bump pointer ${hex(from)} rounds up to ${hex(at)}, the nearest ${align}-aligned address at or above it.`;
  }
  return "";
}

/** Grades a guess to the exact byte: the question is where the block starts. */
export function gradeGuess(p: Prediction, guess: number): Grade {
  const offset = guess - p.address;
  if (offset === 0) return { right: true, offset, verdict: `Right: ${p.name} lands at ${hex(p.address)}.`, mistake: "" };
  return {
    right: false,
    offset,
    verdict: `Wrong: you picked ${hex(guess)}, ${tooFar(offset)}: ${p.name} lands at ${hex(p.address)}.`,
    mistake: mistakeFor(p, guess),
  };
}

/**
 * Whether the predict panel is shown: in the single view only, in predict
 * mode (to the program's end, where it says so), or where a lesson asks about
 * the next op.
 */
export function predictShown(mode: { predict: boolean; single: boolean; lessonAsks: boolean }, trace: TraceView, step: number): boolean {
  if (!mode.single) return false;
  return mode.predict || (mode.lessonAsks && clampStep(trace, step) < trace.length);
}
