// One plain sentence for the op that produced the current step.

import type { Op, Trace } from "../engine/types";
import { bumpPointerAt, clampStep, statsAt } from "./blocks";
import { bytes, hex } from "./format";

/** The op whose effect step `step` shows (undefined at step 0). */
export function currentOp(trace: Trace, step: number): Op | undefined {
  const s = clampStep(trace, step);
  return s > 0 ? trace.ops[s - 1] : undefined;
}

function reclaimedText(op: Op): string {
  const n = op.reclaimed?.length ?? 0;
  return n === 0 ? "nothing to reclaim" : `${n} ${n === 1 ? "block" : "blocks"} reclaimed`;
}

function placement(op: Op): string {
  const pad = op.padding ? `, ${bytes(op.padding)} padding` : "";
  return `${bytes(op.size ?? 0)} at ${hex(op.address ?? 0)}${pad}`;
}

export function describeOp(trace: Trace, op: Op): string {
  const name = op.block ?? "";
  const ptr = bumpPointerAt(trace, op.index + 1);
  switch (op.kind) {
    case "alloc":
      return op.failed
        ? `${name}: ${bytes(op.size ?? 0)} (align ${op.align ?? 1}) do not fit: the chunk is full`
        : `${name}: ${placement(op)}`;
    case "realloc": {
      const from = op.target_op !== undefined ? trace.ops[op.target_op]?.block : undefined;
      const head = from && from !== name ? `${name} = realloc ${from}` : `realloc ${name}`;
      if (op.failed) return `${head}: ${bytes(op.size ?? 0)} do not fit: the chunk is full`;
      if (op.moved === false) return `${head}: resized in place, ${placement(op)}`;
      return `${head}: moved to ${placement(op)}, old bytes left behind`;
    }
    case "free":
      return `free ${name}: not reclaimed`;
    case "reset":
      return `reset: ${reclaimedText(op)}, bump pointer back at ${hex(ptr)}`;
    case "checkpoint":
      return `checkpoint ${name}: saves bump pointer ${hex(ptr)}`;
    case "restore":
      return `restore ${name}: ${reclaimedText(op)}, bump pointer back at ${hex(ptr)}`;
  }
}

/** The sentence for a step: the op that produced it, or the empty chunk. */
export function describeStep(trace: Trace, step: number): string {
  const op = currentOp(trace, step);
  if (op) return describeOp(trace, op);
  const free = statsAt(trace, 0).unused;
  return `Empty chunk: ${bytes(free)} free, bump pointer at ${hex(bumpPointerAt(trace, 0))}`;
}
