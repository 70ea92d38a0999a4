// What the memory map shows inside an op, at one of its micro-steps: the
// values the model's probes recorded say where the code has got to. Until the
// op's last micro-step its block is not placed and the bump pointer has not
// moved, so the map shows the memory before the op, plus what the code has
// computed so far: the address it holds (a ghost of the bump pointer: 0x10107
// after "subtract the size", 0x10100 after "round down"), the padding the
// block will skip and the place the block will take once the code has decided
// them, and at a capacity check the room it compared against. A chunk the op
// makes appears, empty, once its new_chunk event has happened. At the last
// micro-step the map is the op's end.
//
// Only the recorded values are read: nothing here re-runs an algorithm, so
// a model whose code disagrees with its narration shows the disagreement.

import { chunkMadeBy, type TraceView } from "../wasm/traceView";
import type { Op, StepOut } from "../wasm/types";
import { clampStep } from "./step";
import { bumpPointerAt, chunkView, chunkViewsAt, currentChunkAt, type ChunkView } from "./chunks";
import { microIndex, microSteps } from "./describe";
import { heldAt } from "./held";

/**
 * Value names the models give an address the code computes on its way to the
 * block: the bump pointer read, rounded, moved, or the block's start or end.
 * Chunk bounds (start, end, slab_end, base, data) are compared against, not
 * where the code is, and sizes, offsets and indices are not addresses.
 */
const ADDRESS_NAMES: ReadonlySet<string> = new Set([
  "ptr",
  "pos",
  "cursor",
  "new_ptr",
  "new_pos",
  "new_start",
  "aligned",
  "aligned_ptr",
  "aligned_down",
  "unaligned",
  "below",
  "next",
  "block_end",
  "result",
  "addr",
  "at",
]);

/**
 * Value names the models give a position counted in bytes from the start of
 * the buffer being bumped (Zig's end_index, Bumper's offset): an address once
 * that buffer's start is added.
 */
const INDEX_NAMES: ReadonlySet<string> = new Set(["offset", "new_offset", "aligned_index", "end_index", "adjusted", "new_end"]);

/** Value names the models give the padding the block skips. */
const PADDING_NAMES: ReadonlySet<string> = new Set(["padding", "adjustment", "adjust", "align_offset"]);

/**
 * Value names the models give the bytes from the bump pointer to the block's
 * far edge (Hinckley's `padding + size`): once it is known, so is the
 * block's place.
 */
const EXTENT_NAMES: ReadonlySet<string> = new Set(["total", "total_size"]);

/**
 * The markers of the micro-steps that check whether a block fits in the
 * room its chunk has left, passing or failing (`check_room:pass`): the room
 * checked runs from the address the code holds to the chunk's edge it bumps
 * towards. Checks of other things (is this the last block? did the size
 * overflow?) are not room.
 */
const ROOM_CHECKS: ReadonlySet<string> = new Set([
  "check_room",
  "check_start",
  "check_end",
  "room",
  "room_min",
  "room_eq",
  "fits",
  "up_check_end",
  "down_check_start",
  "check_slab_end",
  "check_offset",
  "align_fits",
  "align_fit",
]);

/** An address the op's code holds at a micro-step, named as the probe named it. */
export interface MicroAddress {
  address: number;
  name: string;
  /** The drawn chunk it falls in, else the current chunk (it is then outside it: a failed check). */
  chunk: number | undefined;
}

export interface MicroMap {
  /** The ops whose results the rows show: step - 1 until the op's last micro-step, then step. */
  rowsStep: number;
  rows: ChunkView[];
  /** The committed bump pointer the map draws. */
  bumpPtr: number | undefined;
  /** The index of the micro-step in view (null: the op ran no recorded code). */
  index: number | null;
  /** The last address the code computed up to this micro-step (null: none yet). */
  candidate: MicroAddress | null;
  /** The micro-step at which the op's padding is decided (null: no padding, or never recorded). */
  paddingFrom: number | null;
  /** Padding decided but the block not yet placed: [lo, lo + bytes) in `chunk`. */
  padding: { chunk: number; lo: number; bytes: number } | null;
  /** The micro-step at which the block's place is decided (null: never before it is placed). */
  placeFrom: number | null;
  /** The block's place, decided and not yet taken: [address, address + size) in `chunk`. */
  place: { chunk: number; address: number; size: number; name: string } | null;
  /** At a room check: the bytes checked, [lo, hi) in `chunk`, from the address the code holds to the edge it bumps towards. */
  room: RoomCheck | null;
}

/** The room a capacity check looked at, and what it found. */
export interface RoomCheck {
  chunk: number;
  lo: number;
  hi: number;
  /** The chunk's edge the room runs to: its start bumping down, its end bumping up. */
  edge: "start" | "end";
  /** The check passed: the block fits. */
  fits: boolean;
  /** The value the room runs from, as the code named it (the bump pointer when the code holds no other). */
  from: string;
}

/**
 * The last address a micro-step recorded: an address-named value, or an
 * index into the buffer starting at `indexBase` (undefined: indices are not
 * read, as when the op makes the buffer they count in).
 */
function addressIn(step: StepOut, indexBase: number | undefined): { address: number; name: string } | null {
  for (let j = step.values.length - 1; j >= 0; j--) {
    const v = step.values[j];
    if (v && ADDRESS_NAMES.has(v.name)) return { address: v.value, name: v.name };
    if (v && indexBase !== undefined && INDEX_NAMES.has(v.name)) return { address: indexBase + v.value, name: v.name };
  }
  return null;
}

/**
 * The chunks op made before micro-step `index`: each appears, empty, from
 * the first micro-step after its new_chunk event (the n-th such event made
 * the op's n-th chunk). It is not yet current: the bump pointer moves there
 * at the op's last micro-step.
 */
function chunksMadeSoFar(trace: TraceView, op: Op, index: number): ChunkView[] {
  const made = trace.chunks.filter((c) => c.created_by === op.index);
  if (made.length === 0) return [];
  const appearsAt: number[] = [];
  let count = 0;
  for (const e of op.events) {
    if (e.kind === "new_chunk") appearsAt.push(count);
    count += e.steps?.length ?? 0;
  }
  const before = heldAt(trace, op.index);
  return made.flatMap((chunk, n) => {
    const at = appearsAt[n];
    return at !== undefined && index >= at ? [chunkView(chunk, before.row(chunk.id), 0, false)] : [];
  });
}

const inChunk = (row: ChunkView, address: number): boolean =>
  address >= row.chunk.start && address <= row.chunk.start + row.chunk.capacity;

/**
 * The map at micro-step `micro` of the op that produced `step` (null or the
 * last index: the op's end, exactly what the map shows at `step`).
 */
export function microMapAt(trace: TraceView, step: number, micro: number | null): MicroMap {
  const s = clampStep(trace, step);
  const op = s > 0 ? trace.op(s - 1) : undefined;
  const steps = microSteps(op);
  const index = microIndex(op, micro);
  const last = index === null || index === steps.length - 1;
  const rowsStep = last ? s : s - 1;
  const rows = chunkViewsAt(trace, rowsStep);
  if (op && index !== null && !last) rows.push(...chunksMadeSoFar(trace, op, index));
  const base: MicroMap = {
    rowsStep,
    rows,
    bumpPtr: bumpPointerAt(trace, rowsStep),
    index,
    candidate: null,
    paddingFrom: null,
    padding: null,
    placeFrom: null,
    place: null,
    room: null,
  };
  if (!op || index === null) return base;

  const current = currentChunkAt(trace, rowsStep);
  // An op that makes a buffer counts its indices from that buffer's start, which the micro-steps do not record.
  const indexBase = current && chunkMadeBy(trace, op.index) === undefined ? current.start : undefined;
  let candidate: { address: number; name: string } | null = null;
  for (let j = index; j >= 0 && !candidate; j--) {
    const at = steps[j];
    if (at) candidate = addressIn(at, indexBase);
  }
  const row = candidate ? rows.find((r) => inChunk(r, candidate.address)) : undefined;

  // The block's padding and place, as the op's end shows them; each decided
  // at the first micro-step that records it: the padding, the block's start,
  // bumping down the block's end (where its padding starts), or for the place
  // the bytes from the bump pointer to the block's far edge.
  const end = chunkViewsAt(trace, s);
  const block = op.address !== undefined ? end.flatMap((r) => r.held.find(op.index) ?? []).at(0) : undefined;
  const firstStep = (records: (name: string, value: number) => boolean): number | null => {
    const at = steps.findIndex((st) => st.values.some((v) => records(v.name, v.value)));
    return at < 0 ? null : at;
  };
  let paddingFrom: number | null = null;
  let placeFrom: number | null = null;
  if (block) {
    const blockEnd = block.address + block.size;
    const placing = (name: string, value: number): boolean =>
      ADDRESS_NAMES.has(name) && (value === block.address || (trace.direction === "down" && value === blockEnd));
    if (block.padding > 0) paddingFrom = firstStep((name, value) => (PADDING_NAMES.has(name) && value === block.padding) || placing(name, value));
    // An extent counts from the bump pointer before the op to the block's far edge.
    const before = bumpPointerAt(trace, s - 1);
    const reaches = (value: number): boolean =>
      before !== undefined && (trace.direction === "down" ? before - value === block.address : before + value === blockEnd);
    placeFrom = firstStep((name, value) => placing(name, value) || (EXTENT_NAMES.has(name) && reaches(value)));
  }
  // An address in a chunk the op has yet to make is drawn nowhere, not pinned to a chunk it is outside.
  const unmade = candidate !== null && !row && trace.chunks.some((c) => c.created_by === op.index && candidate.address >= c.start && candidate.address <= c.start + c.capacity);
  const drawnChunk = block !== undefined && rows.some((r) => r.chunk.id === block.chunk);
  const pending = (from: number | null): boolean => !last && drawnChunk && from !== null && from <= index;
  const candidateChunk = row?.chunk.id ?? (unmade ? undefined : current?.id);
  return {
    ...base,
    candidate: candidate ? { ...candidate, chunk: candidateChunk } : null,
    paddingFrom,
    padding: block && pending(paddingFrom) ? { chunk: block.chunk, lo: block.paddingStart, bytes: block.padding } : null,
    placeFrom,
    place: block && pending(placeFrom) ? { chunk: block.chunk, address: block.address, size: block.size, name: block.name } : null,
    room: last ? null : roomChecked(trace, steps[index], rows, candidate, candidateChunk, base.bumpPtr),
  };
}

/**
 * The room a capacity check at `step` looked at: from the address the code
 * holds (the bump pointer when it holds none) to the edge of its chunk the
 * pointer moves towards. An address past that edge (a failed check) leaves
 * no room: lo = hi at the edge.
 */
function roomChecked(
  trace: TraceView,
  step: StepOut | undefined,
  rows: readonly ChunkView[],
  candidate: { address: number; name: string } | null,
  candidateChunk: number | undefined,
  bumpPtr: number | undefined,
): RoomCheck | null {
  if (!step) return null;
  const [marker, outcome] = step.id.split(":");
  if (marker === undefined || !ROOM_CHECKS.has(marker) || (outcome !== "pass" && outcome !== "fail")) return null;
  const from = candidate ?? (bumpPtr !== undefined ? { address: bumpPtr, name: "bump pointer" } : null);
  if (!from) return null;
  const row = candidate ? rows.find((r) => r.chunk.id === candidateChunk) : rows.find((r) => r.current);
  if (!row) return null;
  const start = row.chunk.start;
  const end = row.chunk.start + row.chunk.capacity;
  const at = Math.min(Math.max(from.address, start), end);
  const down = trace.direction === "down";
  return {
    chunk: row.chunk.id,
    lo: down ? start : at,
    hi: down ? at : end,
    edge: down ? "start" : "end",
    fits: outcome === "pass",
    from: from.name,
  };
}
