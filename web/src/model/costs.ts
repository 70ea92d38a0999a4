// What each op cost, derived from the trace alone: the measured wasm counts
// split into their fast and slow parts, running totals, bins for long
// programs, the real crate's and the global allocator's counts when the trace
// carries them, and where the model differs from the real crate.

import { blockNameOf, chunkMadeBy, kindOf, type TraceView } from "../wasm/traceView";
import type { ChunkRecord, Cost, Op, RealMismatch, RealRun, Shape } from "../wasm/types";
import { shapeName, shapeTag } from "./shape";

export type CostMetric = "instructions" | "branches";

/** One sentence on how the numbers are counted (docs/trace-format.md, "Cost"). */
export const COST_MODEL =
  "Counted on the compiled wasm: 1 per executed instruction (block/loop/end/else/nop count 0); " +
  "branches are executed if/br_if/br_table. Wasm and x86-64 counts are different instruction sets.";

/** Per-op bars up to this many ops; beyond it, bins. */
const MAX_BARS = 500;
/** About this many bins for a long program. */
const BIN_TARGET = 200;

/** One op's count in the chosen metric: its total, fast and slow parts. */
export function split(cost: Cost | undefined, metric: CostMetric): { total: number; fast: number; slow: number } {
  if (!cost) return { total: 0, fast: 0, slow: 0 };
  const total = metric === "instructions" ? cost.wasm_instructions : cost.wasm_branches;
  const slow = Math.min(total, metric === "instructions" ? cost.slow_instructions : cost.slow_branches);
  return { total, fast: total - slow, slow };
}

/** Whether the trace carries measured costs (the metered module made it). */
export function hasCosts(trace: TraceView): boolean {
  return trace.costs !== undefined && trace.length > 0;
}

/** Op i's measured cost, when the metered module ran the program. */
export function costOf(trace: TraceView, index: number): Cost | undefined {
  return trace.costs?.[index];
}

const sumsMemo = new WeakMap<TraceView, Record<CostMetric, Float64Array> | null>();
/**
 * Running sums of a metered trace's costs, once per trace (null: not
 * metered): sums.instructions[i] is the wasm instructions of ops 0..i-1
 * (length ops + 1); branches the same.
 */
export function costSums(t: TraceView): Record<CostMetric, Float64Array> | null {
  let sums = sumsMemo.get(t);
  if (sums === undefined) {
    const costs = t.costs;
    if (!costs) sums = null;
    else {
      const instructions = new Float64Array(t.length + 1);
      const branches = new Float64Array(t.length + 1);
      for (let i = 0; i < t.length; i++) {
        const c = costs[i];
        instructions[i + 1] = (instructions[i] as number) + (c?.wasm_instructions ?? 0);
        branches[i + 1] = (branches[i] as number) + (c?.wasm_branches ?? 0);
      }
      sums = { instructions, branches };
    }
    sumsMemo.set(t, sums);
  }
  return sums;
}

// ---- The real crate and the baseline ----------------------------------------

type RealRan = Extract<RealRun, { ops: unknown }>;

/** The real crate's run when it ran (not `unavailable`). */
export function realRan(trace: TraceView): RealRan | undefined {
  const real = trace.real;
  return real && "ops" in real && Array.isArray(real.ops) ? real : undefined;
}

const notComparedMemo = new WeakMap<TraceView, number>();
/** How many ops the real crate did not run (each has a note), counted once per trace. */
export function notComparedCount(trace: TraceView): number {
  let n = notComparedMemo.get(trace);
  if (n === undefined) {
    n = realRan(trace)?.ops.filter((o) => o.note !== undefined).length ?? 0;
    notComparedMemo.set(trace, n);
  }
  return n;
}

/** Why the real crate did not run, when it did not. */
export function realUnavailable(trace: TraceView): string | undefined {
  const real = trace.real;
  return real && "unavailable" in real ? real.unavailable : undefined;
}

/** "bumpalo 3.20.4": the crate, with its version when given apart. */
export function crateLabel(real: RealRun): string {
  const { crate, version } = real;
  return version && !crate.includes(version) ? `${crate} ${version}` : crate;
}

/** "global allocator (dlmalloc, wasm32)" from "Rust's global allocator (dlmalloc, wasm32)". */
export function baselineLabel(trace: TraceView): string {
  const name = trace.baseline?.allocator;
  if (name === undefined) return "global allocator";
  const inner = /\(([^)]+)\)/.exec(name)?.[1];
  return `global allocator (${inner ?? name})`;
}

export function realCost(trace: TraceView, index: number): Cost | undefined {
  return realRan(trace)?.ops[index]?.cost;
}

export function baselineCost(trace: TraceView, index: number): Cost | undefined {
  return trace.baseline?.ops[index]?.cost;
}

/** The real crate's disagreements with the model at op `index`. */
export function mismatchesFor(trace: TraceView, index: number): RealMismatch[] {
  return (realRan(trace)?.mismatches ?? []).filter((m) => m.op === index);
}

/** Indices of the ops where the model differs from the real crate, ascending. */
const mismatchMemo = new WeakMap<TraceView, number[]>();
export function mismatchOps(trace: TraceView): number[] {
  let ops = mismatchMemo.get(trace);
  if (!ops) {
    ops = [...new Set((realRan(trace)?.mismatches ?? []).map((m) => m.op))].sort((a, b) => a - b);
    mismatchMemo.set(trace, ops);
  }
  return ops;
}

function valueText(v: unknown): string {
  if (v === null || v === undefined) return "none";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v as string | number | boolean);
}

/** "offset model 24 real 32". */
export function mismatchText(m: RealMismatch): string {
  return `${m.field.replaceAll("_", " ")} model ${valueText(m.model)} real ${valueText(m.real)}`;
}

// ---- Text -------------------------------------------------------------------

/** "alloc c", "free x", "reset", from the columns and statements (no op detail needed). */
export function opNameAt(trace: TraceView, index: number): string {
  const block = blockNameOf(trace, index);
  const kind = kindOf(trace, index);
  return block !== undefined ? `${kind} ${block}` : kind;
}

/** Why the op went through the slow path, from its events. */
export function slowReason(trace: TraceView, op: Op): string | null {
  const has = (kind: string): boolean => op.events.some((e) => e.kind === kind);
  if (has("new_chunk")) {
    const made = chunkMadeBy(trace, op.index);
    switch (made?.reason) {
      case "oversized":
        return "new oversized chunk";
      case "slab":
        return "new slab";
      case "custom_slab":
        return "new custom slab";
      default:
        return "new chunk";
    }
  }
  // A reset or restore that gives chunks back (and keeps one to bump in
  // again): the base allocator's frees are the slow part, not the keeping.
  const freed = op.events.filter((e) => e.kind === "chunk_freed").length;
  if (freed > 0) return `${plural(freed, "chunk")} freed`;
  if (has("chunk_reused")) return "kept chunk reused";
  if (has("out_of_memory")) return "out of memory";
  return null;
}

/** "1 op", "3 ops". */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

const METRIC_NOUN: Record<CostMetric, [string, string]> = {
  instructions: ["wasm instruction", "wasm instructions"],
  branches: ["wasm branch", "wasm branches"],
};

/**
 * The tooltip and accessible name of one op's bar:
 * "op 12 · alloc c · typed u64 · 84 wasm instructions (fast 84, slow 0) · 5 branches".
 * Ops are numbered from 1, as the step counter counts them.
 */
export function opTooltip(trace: TraceView, index: number, metric: CostMetric): string {
  if (!(index >= 0 && index < trace.length)) return `op ${index + 1}`;
  const cost = costOf(trace, index);
  const s = split(cost, metric);
  const [one, many] = METRIC_NOUN[metric];
  const other =
    metric === "instructions" ? plural(cost?.wasm_branches ?? 0, "branch", "branches") : plural(cost?.wasm_instructions ?? 0, "instruction");
  const head = cost ? `${plural(s.total, one, many)} (fast ${s.fast}, slow ${s.slow}) · ${other}` : "not measured";
  const shape = trace.shapes?.[index];
  const parts = [`op ${index + 1}`, opNameAt(trace, index), ...(shape ? [shapeTag(shape)] : []), head];
  const real = realRan(trace);
  const rc = realCost(trace, index);
  if (real && rc) parts.push(`real ${real.crate}: ${split(rc, metric).total}`);
  const bc = baselineCost(trace, index);
  if (bc) parts.push(`global allocator: ${split(bc, metric).total}`);
  return parts.join(" · ");
}

// ---- Bars -------------------------------------------------------------------

export interface CostBar {
  /** Stable join key: the op index, or the bin's first op index. */
  key: number;
  /** First and last op index the bar covers (equal for a single op). */
  first: number;
  last: number;
  /** The op the bar stands for and jumps to: the costliest op of a bin. */
  pick: number;
  /** That op's count, fast and slow parts. */
  total: number;
  fast: number;
  slow: number;
  /** Mean count per op over the bar's ops. */
  mean: number;
  /** Total count over ops 0..last. */
  cumulative: number;
  /** The real crate's and the global allocator's count for `pick`, when the trace has them. */
  real: number | undefined;
  baseline: number | undefined;
  /** The model differs from the real crate at one of the bar's ops. */
  mismatch: boolean;
  /** `pick`'s shape, short ("u64", "[u32]", "layout"), when its op has a layout. */
  shape: string | undefined;
  /** Tooltip and accessible name, starting with "op N". */
  label: string;
}

export interface CostBars {
  metric: CostMetric;
  /** Ops per bar: 1 unless the program is long. */
  binSize: number;
  binned: boolean;
  bars: CostBar[];
  /** Largest model or real-crate count, for the y scale. */
  max: number;
  /** Largest global-allocator count (drawn clipped when above `max`). */
  baselineMax: number;
  /** Sum over every op. */
  total: number;
  /** The same sums for the real crate and the global allocator, when the trace has them. */
  realTotal: number | undefined;
  baselineTotal: number | undefined;
}

const shapeOf = (shape: Shape | undefined): string | undefined => (shape ? shapeName(shape) : undefined);

/** Ops per bar: 1 up to MAX_BARS ops, else about BIN_TARGET bins. */
export function binSizeFor(ops: number): number {
  return ops <= MAX_BARS ? 1 : Math.ceil(ops / BIN_TARGET);
}

const memo = new WeakMap<TraceView, Map<CostMetric, CostBars>>();

/** The bars the cost chart draws (memoised per trace and metric). */
export function costBars(trace: TraceView, metric: CostMetric): CostBars {
  let byMetric = memo.get(trace);
  const known = byMetric?.get(metric);
  if (known) return known;

  // No costs (not metered, or over the metered module's cap): nothing to chart, and no pass over the ops.
  const n = trace.costs ? trace.length : 0;
  const splits = Array.from({ length: n }, (_, i) => split(costOf(trace, i), metric));
  const sums = costSums(trace)?.[metric];
  const wrong = new Set(mismatchOps(trace));
  const hasReal = realRan(trace) !== undefined;
  const metricOf = (c: Cost | undefined): number | undefined => (c ? split(c, metric).total : undefined);
  const binSize = binSizeFor(n);
  const [one, many] = METRIC_NOUN[metric];
  const bars: CostBar[] = [];
  let max = 0;
  let baselineMax = 0;
  for (let first = 0; first < n; first += binSize) {
    const last = Math.min(first + binSize, n) - 1;
    let pick = first;
    let sum = 0;
    let mismatch = false;
    for (let i = first; i <= last; i++) {
      const t = splits[i]?.total ?? 0;
      sum += t;
      if (t > (splits[pick]?.total ?? 0)) pick = i;
      if (wrong.has(i)) mismatch = true;
    }
    const s = splits[pick] ?? { total: 0, fast: 0, slow: 0 };
    const mean = sum / (last - first + 1);
    const real = hasReal ? metricOf(realCost(trace, pick)) : undefined;
    const baseline = metricOf(baselineCost(trace, pick));
    // The global allocator can cost far more (a reset frees every block one
    // by one): it does not set the scale, so the model's bars stay readable.
    max = Math.max(max, s.total, real ?? 0);
    baselineMax = Math.max(baselineMax, baseline ?? 0);
    const label =
      binSize === 1
        ? opTooltip(trace, pick, metric)
        : [
            `op ${pick + 1} (costliest of ops ${first + 1}–${last + 1})`,
            ...opTooltip(trace, pick, metric).split(" · ").slice(1),
            `mean ${Math.round(mean)} ${mean === 1 ? one : many} per op`,
          ].join(" · ");
    bars.push({
      key: first,
      first,
      last,
      pick,
      total: s.total,
      fast: s.fast,
      slow: s.slow,
      mean,
      cumulative: sums?.[last + 1] ?? 0,
      real,
      baseline,
      mismatch,
      shape: shapeOf(trace.shapes?.[pick]),
      label,
    });
  }
  const sumOf = (costs: (Cost | undefined)[] | undefined): number | undefined =>
    costs?.some((c) => c !== undefined) ? costs.reduce((n, c) => n + (metricOf(c) ?? 0), 0) : undefined;
  const result: CostBars = {
    metric,
    binSize,
    binned: binSize > 1,
    bars,
    max,
    baselineMax,
    total: sums?.[n] ?? 0,
    realTotal: sumOf(realRan(trace)?.ops.map((o) => o.cost)),
    baselineTotal: sumOf(trace.baseline?.ops.map((o) => o.cost)),
  };
  if (!byMetric) memo.set(trace, (byMetric = new Map()));
  byMetric.set(metric, result);
  return result;
}

/** The bar holding op `index` (undefined before the first op). */
export function barIndexOf(bars: CostBars, index: number | undefined): number | undefined {
  if (index === undefined || index < 0) return undefined;
  const i = Math.floor(index / bars.binSize);
  return i < bars.bars.length ? i : undefined;
}

// ---- The step panel's summary ------------------------------------------------

export interface OpCostSummary {
  /** "84 wasm instructions · 5 conditional branches (fast path)". */
  text: string;
  slow: boolean;
  /** "real bumpalo 3.20.4: 80 wasm instructions", when the real crate ran this op. */
  real: string | null;
  /** Why the model's count and the crate's differ, when they do. */
  realWhy: string | null;
  /** "global allocator (dlmalloc, wasm32): 212 instructions". */
  baseline: string | null;
  /** Placement against the real crate: null when there is nothing to say. */
  verdict: { ok: boolean; text: string } | null;
  /** Why the real crate did not run the program, or this op; why the baseline is missing. */
  notes: string[];
}

/**
 * Why the model's count differs from the real crate's for `op`. The model
 * runs the crate's algorithm, not its code: where the two are laid out
 * differently the counts differ, and the page says how.
 */
function realDifference(trace: TraceView, op: Op, model: Cost, real: Cost, record: ChunkRecord): string | null {
  const diff = model.wasm_instructions - real.wasm_instructions;
  if (diff === 0) return null;
  const by = `${plural(Math.abs(diff), "instruction")} ${diff > 0 ? "more" : "fewer"} than the crate`;
  const ran = realRan(trace);
  const crate = ran ? crateLabel(ran) : "the crate";
  const copied = copiedBy(trace, op);
  if (copied > 0 && diff < 0) {
    return `Model ${by}: among other things, ${crate} copies the block's ${plural(copied, "byte")} (a memmove), where the model moves no bytes at all.`;
  }
  if (model.slow_instructions > 0 || real.slow_instructions > 0 || op.events.some((e) => e.kind === "new_chunk")) {
    return `Model ${by}: both took their slow path, which asks a different base allocator for a chunk: the model the simulated heap (a first-fit free list), ${crate} the module's own allocator (a bump region while the program is replayed).`;
  }
  if (op.kind === "restore" && trace.allocator.startsWith("bump-scope")) {
    return `Model ${by}: it keeps the chunks before and after the current one in two lists, and a restore moves the later ones across; ${crate}'s chunks form a linked list, so reset_to only moves its current-chunk pointer.`;
  }
  if (op.kind === "alloc" && diff < 0) {
    return `Model ${by}: it holds the current chunk's bump pointer and bounds in the allocator itself, where ${crate} reaches them through a pointer to the chunk's ${record === "footer" ? "footer" : "header"}: a load more on every bump.`;
  }
  return `Model ${by}: the same algorithm in other code (one Model trait for every preset: one realloc for grow and shrink, the chunk list in vectors), compiled by the same compiler.`;
}

/** Bytes op `op` copied (a realloc that moved its block), from the running count before and after it. */
function copiedBy(trace: TraceView, op: Op): number {
  if (op.kind !== "realloc" || !op.events.some((e) => e.kind === "copied")) return 0;
  const before = op.index > 0 ? trace.op(op.index - 1).stats.copied : 0;
  return Math.max(0, op.stats.copied - before);
}

/**
 * What op `op` cost, measured, and how the real crate's run compares.
 * `record` is where the preset's chunk keeps its bookkeeping (its
 * `AllocatorInfo.chunkRecord`), which a real crate reaches through a pointer.
 */
export function opCostSummary(trace: TraceView, op: Op, record: ChunkRecord): OpCostSummary | null {
  const cost = op.cost ?? costOf(trace, op.index);
  const real = trace.real;
  const ran = realRan(trace);
  let text: string | null = null;
  let slow = false;
  if (cost) {
    const branches = plural(cost.wasm_branches, "conditional branch", "conditional branches");
    if (cost.wasm_instructions === 0) text = "0 wasm instructions: this op compiles to no code";
    else if (cost.slow_instructions > 0) {
      slow = true;
      const why = slowReason(trace, op);
      text = `${plural(cost.wasm_instructions, "wasm instruction")} (${cost.slow_instructions} in the slow path${why ? `: ${why}` : ""}) · ${branches}`;
    } else text = `${plural(cost.wasm_instructions, "wasm instruction")} · ${branches} (fast path)`;
  }
  const rc = ran ? realCost(trace, op.index) : undefined;
  const bc = baselineCost(trace, op.index);
  const wrong = mismatchesFor(trace, op.index);
  const realOp = ran?.ops[op.index];
  let verdict: OpCostSummary["verdict"] = null;
  if (ran && wrong.length > 0) {
    verdict = { ok: false, text: `✗ differs from ${crateLabel(ran)}: ${wrong.map(mismatchText).join("; ")}` };
  } else if (ran && (op.kind === "alloc" || op.kind === "realloc") && !op.failed && realOp !== undefined && realOp.note === undefined) {
    // The op placed a block and the real crate ran it: no mismatch means the placements agree.
    verdict = { ok: true, text: `✓ matches ${crateLabel(ran)} placement` };
  }
  const notes: string[] = [];
  const unavailable = realUnavailable(trace);
  if (real && unavailable !== undefined) notes.push(`${crateLabel(real)} not compared: ${unavailable}`);
  if (ran && realOp?.note !== undefined) notes.push(`${crateLabel(ran)}: ${realOp.note}`);
  if (trace.baseline?.unavailable !== undefined) notes.push(`${baselineLabel(trace)}: ${trace.baseline.unavailable}`);
  const copied = copiedBy(trace, op);
  if (cost && copied > 0) {
    notes.push(
      `Not in the model's count: copying the block's ${plural(copied, "byte")}. The model tracks addresses, not the bytes at them, so its code copies nothing; a real allocator pays a memmove for them.`,
    );
  }
  if (text === null && !rc && !bc && !verdict && notes.length === 0) return null;
  return {
    text: text ?? "not measured",
    slow,
    real: ran && rc ? `real ${crateLabel(ran)}: ${plural(rc.wasm_instructions, "wasm instruction")}` : null,
    realWhy: ran && rc && cost ? realDifference(trace, op, cost, rc, record) : null,
    baseline: bc ? `${baselineLabel(trace)}: ${plural(bc.wasm_instructions, "instruction")}` : null,
    verdict,
    notes,
  };
}
