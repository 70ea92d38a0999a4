// One plain sentence for the op that produced the current step.

import { blockNameOf, kindOf, lineOf, opAt, type TraceView } from "../wasm/traceView";
import type { Op, StepOut } from "../wasm/types";
import { clampStep } from "./step";
import { bumpPointerAt, chunksAt, noChunkYet, statsAt } from "./chunks";
import { bytes, hex } from "./format";

/** The op whose effect step `step` shows (undefined at step 0). */
export function currentOp(trace: TraceView, step: number): Op | undefined {
  const s = clampStep(trace, step);
  return s > 0 ? opAt(trace, s - 1) : undefined;
}

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

function reclaimedText(op: Op): string {
  const n = op.reclaimed?.length ?? 0;
  return n === 0 ? "nothing to reclaim" : `${plural(n, "block")} reclaimed`;
}

const count = (op: Op, kind: string): number => op.events.filter((e) => e.kind === kind).length;

/** ", 2 chunks freed" when the op returned chunks to the base allocator. */
function chunksFreedText(op: Op): string {
  const n = count(op, "chunk_freed");
  return n > 0 ? `, ${plural(n, "chunk")} freed` : "";
}

/** Where the block went when that was not the current chunk's next bytes. */
function chunkNote(op: Op): string {
  if (op.chunk === undefined) return "";
  if (count(op, "new_chunk") > 0) return ` in new chunk ${op.chunk}`;
  if (count(op, "chunk_reused") > 0) return ` in kept chunk ${op.chunk}`;
  return "";
}

function placement(op: Op): string {
  const pad = op.padding ? `, ${bytes(op.padding)} padding` : "";
  return `${bytes(op.size ?? 0)} at ${hex(op.address ?? 0)}${chunkNote(op)}${pad}`;
}

/**
 * Why a request failed: the engine's own sentence when the request is larger
 * than the whole fixed chunk (no chunk could ever hold it), else the chunk
 * is full.
 */
function failedText(op: Op, what: string): string {
  const tooLarge = op.events.find((e) => e.kind === "out_of_memory" && e.text.startsWith("too large"));
  if (tooLarge) return tooLarge.text;
  return `${what} ${op.size === 1 ? "does" : "do"} not fit: the chunk is full`;
}

function pointerText(ptr: number | undefined): string {
  return ptr === undefined ? "no chunk left" : `bump pointer back at ${hex(ptr)}`;
}

export function describeOp(trace: TraceView, op: Op): string {
  const name = op.block ?? "";
  const ptr = bumpPointerAt(trace, op.index + 1);
  switch (op.kind) {
    case "alloc":
      return op.failed
        ? `${name}: ${failedText(op, `${bytes(op.size ?? 0)} (align ${op.align ?? 1})`)}`
        : `${name}: ${placement(op)}`;
    case "realloc": {
      const from = op.target_op !== undefined ? opAt(trace, op.target_op)?.block : undefined;
      const head = from && from !== name ? `${name} = realloc ${from}` : `realloc ${name}`;
      if (op.failed) return `${head}: ${failedText(op, bytes(op.size ?? 0))}`;
      if (op.moved === false) return `${head}: resized in place, ${placement(op)}`;
      const reused = op.target_op !== undefined && (op.reclaimed ?? []).includes(op.target_op);
      return `${head}: moved to ${placement(op)}, ${reused ? "old bytes reused" : "old bytes left behind"}`;
    }
    case "free": {
      const reclaimed = op.target_op !== undefined && (op.reclaimed ?? []).includes(op.target_op);
      return `free ${name}: ${reclaimed ? "reclaimed (it was the last block)" : "not reclaimed"}`;
    }
    case "reset":
      return `reset: ${reclaimedText(op)}${chunksFreedText(op)}, ${pointerText(ptr)}`;
    case "checkpoint":
      return ptr === undefined ? `checkpoint ${name}: no chunk yet` : `checkpoint ${name}: saves bump pointer ${hex(ptr)}`;
    case "restore":
      return `restore ${name}: ${reclaimedText(op)}${chunksFreedText(op)}, ${pointerText(ptr)}`;
  }
}

/** The sentence for a step: the op that produced it, or the state before the first op. */
export function describeStep(trace: TraceView, step: number): string {
  const op = currentOp(trace, step);
  if (op) return describeOp(trace, op);
  const ptr = bumpPointerAt(trace, 0);
  if (ptr === undefined || chunksAt(trace, 0).length === 0) {
    return noChunkYet(trace, 0) ? `No chunk yet: ${trace.allocator} allocates its first chunk lazily` : "No chunk";
  }
  const free = statsAt(trace, 0).unused;
  return `Empty chunk: ${bytes(free)} free, bump pointer at ${hex(ptr)}`;
}

/** The op's micro-steps in order, across its events (empty: it ran no recorded code). */
export function microSteps(op: Op | undefined): StepOut[] {
  return op ? op.events.flatMap((e) => e.steps ?? []) : [];
}

/**
 * The index of the micro-step in view: `micro` when it names one before the
 * last, else the last (null, the op's end, shows the last micro-step).
 * Null when the op ran no recorded code.
 */
export function microIndex(op: Op | undefined, micro: number | null): number | null {
  const n = microSteps(op).length;
  if (n === 0) return null;
  return micro !== null && micro >= 0 && micro < n - 1 ? micro : n - 1;
}

/** "2 of 4: round down to the alignment (one mask)", or null without micro-steps. */
export function describeMicro(op: Op | undefined, micro: number | null): string | null {
  const steps = microSteps(op);
  const i = microIndex(op, micro);
  const s = i === null ? undefined : steps[i];
  return s && i !== null ? `${i + 1} of ${steps.length}: ${s.label}` : null;
}

/**
 * The stepper's sentence in compare mode: the op every column ran (the
 * program's, so the same in each), never what one allocator did with it;
 * each column's map, summary and table cell say that for its own run.
 */
export function compareStepText(trace: TraceView, step: number, sourceLines: readonly string[]): string {
  const s = clampStep(trace, step);
  if (s === 0) return "Before the first op: each column shows its own allocator's start.";
  const line = lineOf(trace, s - 1);
  const source = sourceLines[line - 1]?.trim() || opName(trace, s - 1);
  return `Line ${line}, ${source}: each column shows what its own allocator did.`;
}

/** "alloc c", "reset": the op's kind and block from the columns alone. */
function opName(trace: TraceView, index: number): string {
  const block = blockNameOf(trace, index);
  const kind = kindOf(trace, index);
  return block !== undefined ? `${kind} ${block}` : kind;
}
