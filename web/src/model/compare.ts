// Compare mode: the same program run on two to four allocator configurations
// side by side. This module holds the configuration type shared by the app
// state, the compare view and share links, and the pure derivations the
// compare view draws: column labels, where each op placed its block in each
// column and where those placements differ, what each op cost in each column
// and which column was cheapest, and per-column totals.
//
// Columns line up by op index: every column ran the same program, so op i is
// the same program statement in each (a `repeat` unrolls the same way for
// every allocator). A column whose program failed has no ops at all.

import { targetText } from "./settings";
import { bisectLeft } from "d3-array";
import {
  addressOf,
  chunkOf,
  failed,
  kindOf,
  lineOf,
  META_FAILED,
  moved,
  opAt,
  paddingOf,
  placed,
  type TraceView,
  type ViewResult,
} from "../wasm/traceView";
import type { RunSettings } from "../wasm/config";
import type { AllocatorInfo, CapacityMeaning, Cost, OpKind } from "../wasm/types";
import { metricHeading } from "./metrics";
import { clampStep } from "./step";
import { statsAt } from "./chunks";
import { costOf, costSums, opNameAt, type CostMetric } from "./costs";
import { bytes, hex } from "./format";
import { MAX_COMPARE, MIN_COMPARE } from "./limits";

/** One column of compare mode: a preset and its settings (the columns share the program). */
export type CompareConfig = RunSettings;

/** A column as compare mode draws it: its settings and its run (or the program's error there). */
export interface CompareColumn {
  config: CompareConfig;
  result: ViewResult;
}

/** Compare mode shows at least two and at most four columns. */
export { MAX_COMPARE, MIN_COMPARE } from "./limits";

// ---- Configurations -----------------------------------------------------------

/** The minimum alignment a column runs with: the one chosen, else the preset's default; null when the preset has no such setting. */
export function effectiveMinAlign(config: CompareConfig, allocators: readonly AllocatorInfo[]): number | null {
  const aligns = allocators.find((a) => a.name === config.allocator)?.minAligns ?? [];
  if (aligns.length === 0) return null;
  return config.minAlign !== null && aligns.includes(config.minAlign) ? config.minAlign : (aligns[0] ?? null);
}



/** The child allocator a column runs over: the one chosen, else the preset's default; null when the preset takes none. */
export function effectiveChild(config: CompareConfig, allocators: readonly AllocatorInfo[]): string | null {
  const children = allocators.find((a) => a.name === config.allocator)?.children ?? [];
  if (children.length === 0) return null;
  return config.child != null && children.includes(config.child) ? config.child : (children[0] ?? null);
}

/** A child allocator as a column's heading names it. */
const CHILD_HEADINGS: Readonly<Record<string, string>> = { page: "over page_allocator", heap: "over a never-resizing heap" };

/**
 * One heading per column: the preset's name, then only the settings that
 * differ between columns or are not the preset's default ("bumpalo · wasm32
 * · MIN_ALIGN 8 · capacity 256"). A minimum alignment shows where columns
 * that have the setting differ in it, or where it is not the preset's
 * default (a preset without the setting is no difference). A setting of
 * column 1 that another column could not take says so in that column's
 * heading (see carryNotes). Columns that would still read the same get
 * their column number so none is ambiguous.
 */
export function columnLabels(configs: readonly CompareConfig[], allocators: readonly AllocatorInfo[]): string[] {
  const aligns = configs.map((c) => effectiveMinAlign(c, allocators));
  const defaults = configs.map((c) => allocators.find((a) => a.name === c.allocator)?.minAligns[0] ?? null);
  const varies = <T>(values: readonly T[]): boolean => new Set(values).size > 1;
  const showTarget = varies(configs.map((c) => c.target));
  const alignsVary = varies(aligns.filter((a) => a !== null));
  const childrenVary = varies(configs.map((c) => effectiveChild(c, allocators)).filter((c) => c !== null));
  // No control in the setup row shows the capacity: the heading does, whenever one is chosen.
  const showCapacity = varies(configs.map((c) => c.capacity)) || configs.some((c) => c.capacity !== null);
  const first = configs[0];
  const labels = configs.map((c, i) => {
    const notes = first && i > 0 ? carryNotes(first, c, allocators) : [];
    const noted = (setting: CarryNote["setting"]): boolean => notes.some((n) => n.setting === setting);
    const parts = [c.allocator];
    if (showTarget) parts.push(targetText(c.target));
    const align = aligns[i];
    if (!noted("minAlign") && align !== null && align !== undefined && (alignsVary || align !== defaults[i])) parts.push(`MIN_ALIGN ${align}`);
    const child = effectiveChild(c, allocators);
    const childDefault = allocators.find((a) => a.name === c.allocator)?.children[0] ?? null;
    if (child !== null && (childrenVary || child !== childDefault)) parts.push(CHILD_HEADINGS[child] ?? `over ${child}`);
    if (showCapacity && !noted("capacity")) parts.push(c.capacity === null ? "default capacity" : `capacity ${c.capacity}`);
    parts.push(...notes.map((n) => n.text));
    return parts.join(" · ");
  });
  return labels.map((l, i) => (labels.indexOf(l) !== labels.lastIndexOf(l) ? `${l} (column ${i + 1})` : l));
}

/** The column after choosing another preset: its default minimum alignment and child allocator (the old ones may not exist there). */
export function withAllocator(config: CompareConfig, allocator: string): CompareConfig {
  if (allocator === config.allocator) return config;
  const { child: _child, ...rest } = config;
  return { ...rest, allocator, minAlign: null };
}

/**
 * One more column, up to MAX_COMPARE: the first preset no column runs yet
 * (on the last column's target), else a copy of the last column.
 */
export function addColumn(configs: readonly CompareConfig[], allocators: readonly AllocatorInfo[]): CompareConfig[] {
  if (configs.length >= MAX_COMPARE) return [...configs];
  const last = configs[configs.length - 1];
  const target = last?.target ?? "64";
  const used = new Set(configs.map((c) => c.allocator));
  const fresh = allocators.find((a) => !used.has(a.name));
  const next: CompareConfig = fresh
    ? { allocator: fresh.name, target, minAlign: null, capacity: null }
    : last
      ? { ...last }
      : { allocator: allocators[0]?.name ?? "", target, minAlign: null, capacity: null };
  return [...configs, next];
}

/** The columns without column `index`, never fewer than MIN_COMPARE. */
export function removeColumn(configs: readonly CompareConfig[], index: number): CompareConfig[] {
  if (configs.length <= MIN_COMPARE || index < 0 || index >= configs.length) return [...configs];
  return configs.filter((_, i) => i !== index);
}

// ---- Starting from the run on screen ----------------------------------------

/** What a capacity chosen for `allocator` sets there (the registry's row, via the engine's list). */
function capacityOf(allocator: string, allocators: readonly AllocatorInfo[]): CapacityMeaning | undefined {
  return allocators.find((a) => a.name === allocator)?.capacity;
}

/**
 * Whether a capacity chosen for `from` means the same kind of thing for
 * `to`. The engine passes one number to every model; it carries from a size
 * of memory to bump through (a chunk, a buffer, a slab, a pool cap) to
 * another, but never from a size to zig-arena's limit on what a reset keeps,
 * or back.
 */
export function capacityCarries(from: string, to: string, allocators: readonly AllocatorInfo[]): boolean {
  return (capacityOf(from, allocators)?.kind === "retain-limit") === (capacityOf(to, allocators)?.kind === "retain-limit");
}

/** `allocator`'s partner in the one-click comparison and what the pair teaches (the registry's row). */
export function counterpartRow(allocator: string, allocators: readonly AllocatorInfo[]): { allocator: string; why: string } | undefined {
  return allocators.find((a) => a.name === allocator)?.counterpart;
}

/**
 * The allocator to run beside `allocator`: the lesson's own choice when it
 * names one, else the table's, else (an allocator the table does not know)
 * the first one bumping the other way, else any other.
 */
export function counterpartOf(allocator: string, allocators: readonly AllocatorInfo[], lessonPair?: string): string {
  const known = (name: string | undefined): name is string => name !== undefined && name !== allocator && allocators.some((a) => a.name === name);
  if (known(lessonPair)) return lessonPair;
  const listed = counterpartRow(allocator, allocators)?.allocator;
  if (known(listed)) return listed;
  const direction = allocators.find((a) => a.name === allocator)?.direction;
  return (allocators.find((a) => a.name !== allocator && a.direction !== direction) ?? allocators.find((a) => a.name !== allocator))?.name ?? allocator;
}

/**
 * `settings` moved to `allocator`: the same target; the same minimum
 * alignment where `allocator` offers it; the same capacity where it means
 * the same there. What cannot carry is the preset's default (null), and
 * `carryNotes` says so in the column's label.
 */
export function carrySettings(settings: CompareConfig, allocator: string, allocators: readonly AllocatorInfo[]): CompareConfig {
  const info = allocators.find((a) => a.name === allocator);
  const aligns = info?.minAligns ?? [];
  const out: CompareConfig = {
    allocator,
    target: settings.target,
    minAlign: settings.minAlign !== null && aligns.includes(settings.minAlign) ? settings.minAlign : null,
    capacity: settings.capacity !== null && capacityCarries(settings.allocator, allocator, allocators) ? settings.capacity : null,
  };
  if (settings.child != null && info?.children.includes(settings.child)) out.child = settings.child;
  return out;
}

/** Compare mode as the Compare button opens it: the run on screen, then its counterpart with the same settings where they carry. */
export function startingColumns(run: CompareConfig, allocators: readonly AllocatorInfo[], lessonPair?: string): CompareConfig[] {
  const settings: CompareConfig = { allocator: run.allocator, target: run.target, minAlign: run.minAlign, capacity: run.capacity };
  if (run.child != null) settings.child = run.child;
  return [settings, carrySettings(settings, counterpartOf(run.allocator, allocators, lessonPair), allocators)];
}

/**
 * Why two columns sit side by side, when they are a counterpart pair (the
 * lesson's, given its allocator and its pair, or the table's); null for
 * columns chosen otherwise.
 */
export function pairReason(configs: readonly CompareConfig[], allocators: readonly AllocatorInfo[], lesson?: { allocator: string; pair: string; why: string }): string | null {
  const [first, second, ...rest] = configs;
  if (!first || !second || rest.length > 0) return null;
  if (lesson && first.allocator === lesson.allocator && second.allocator === lesson.pair) return lesson.why;
  const listed = counterpartRow(first.allocator, allocators);
  return listed && listed.allocator === second.allocator ? listed.why : null;
}

/** A setting of column 1 that another column runs without, and why. */
export interface CarryNote {
  setting: "minAlign" | "capacity";
  text: string;
}

/**
 * What of column 1's settings `to` runs without, and why: a minimum
 * alignment its preset does not offer (where it has the setting), a
 * capacity that means another thing there. Empty when everything carried, or when `to` chose its own value.
 */
export function carryNotes(from: CompareConfig, to: CompareConfig, allocators: readonly AllocatorInfo[]): CarryNote[] {
  const notes: CarryNote[] = [];
  const aligns = allocators.find((a) => a.name === to.allocator)?.minAligns ?? [];
  // A preset without the setting is no difference (as in columnLabels): only a value it lacks is noted.
  if (from.minAlign !== null && to.minAlign === null && aligns.length > 0 && !aligns.includes(from.minAlign)) {
    notes.push({ setting: "minAlign", text: `MIN_ALIGN ${aligns[0]}, its default: column 1's ${from.minAlign} is not offered here` });
  }
  if (from.capacity !== null && to.capacity === null && !capacityCarries(from.allocator, to.allocator, allocators)) {
    const there = capacityOf(from.allocator, allocators)?.means ?? "size setting";
    const here = capacityOf(to.allocator, allocators)?.means ?? "size setting";
    notes.push({ setting: "capacity", text: `default capacity: column 1's ${from.capacity} is its ${there}, here capacity is the ${here}` });
  }
  return notes;
}

/** The trace of a column whose program ran, else null. */
export function traceOf(result: ViewResult | null | undefined): TraceView | null {
  return result?.ok ? result.trace : null;
}

// ---- Placements -----------------------------------------------------------------

/** Where one column's op put its block (all absent for ops that place nothing). */
export interface Placement {
  chunk: number | undefined;
  offset: number | undefined;
  address: number | undefined;
  padding: number | undefined;
  moved: boolean | undefined;
  failed: boolean;
}

export type PlacementField = "failed" | "chunk" | "offset" | "padding" | "moved" | "address";

/** The fields compared, most telling first. */
const PLACEMENT_FIELDS: readonly PlacementField[] = ["failed", "chunk", "offset", "padding", "moved", "address"];

/** One column's view of one op: where it placed the block and what it cost. */
export interface ColumnOp {
  placement: Placement;
  cost: Cost | undefined;
  /** Instructions and branches of this op (null: the trace was not metered). */
  instructions: number | null;
  branches: number | null;
  /** Sums over ops 0..this one. */
  cumulativeInstructions: number;
  cumulativeBranches: number;
}

/** One op across the columns. */
export interface OpComparison {
  index: number;
  kind: OpKind;
  /** "alloc a", "reset". */
  name: string;
  /** 1-based program line. */
  line: number;
  /** One entry per column; null where that column has no such op (its program failed). */
  columns: (ColumnOp | null)[];
  /** Placement fields whose values are not the same in every column that has the op. */
  differs: PlacementField[];
  /** Columns with the fewest of each metric when the columns' counts differ (ties: all of them); empty when all are equal. */
  cheapest: Record<CostMetric, number[]>;
}

/** Columns holding the smallest of `values` when they are not all equal (null: not counted). */
export function cheapestOf(values: readonly (number | null)[]): number[] {
  const counted = values.filter((v): v is number => v !== null);
  if (counted.length < 2) return [];
  const min = Math.min(...counted);
  if (counted.every((v) => v === min)) return [];
  return values.flatMap((v, i) => (v === min ? [i] : []));
}

/**
 * Where op `i` of `t` put its block, read from the columns (no op detail
 * needed). Only allocs and reallocs place one: a free's address is the freed
 * block's, already compared where it was placed.
 */
export function placementAt(t: TraceView, i: number): Placement {
  const kind = kindOf(t, i);
  const isFailed = failed(t, i);
  if ((kind !== "alloc" && kind !== "realloc") || !placed(t, i)) {
    return { chunk: undefined, offset: undefined, address: undefined, padding: undefined, moved: undefined, failed: isFailed };
  }
  const chunk = chunkOf(t, i);
  return {
    chunk,
    offset: chunk === undefined ? undefined : t.cols.offset[i],
    address: addressOf(t, i),
    padding: paddingOf(t, i),
    moved: kind === "realloc" ? moved(t, i) : undefined,
    failed: isFailed,
  };
}

/**
 * The ops `from`..`to`-1 of the program across the columns (null: a column
 * whose program failed); all of them by default. Rows come from the columns
 * and the costs alone, never an op's detail: a page of rows costs the same
 * at op 1,000,000 as at 100, and nothing is re-run.
 */
export function compareOps(traces: readonly (TraceView | null)[], from = 0, to = Infinity): OpComparison[] {
  const count = Math.min(to, Math.max(0, ...traces.map((t) => t?.length ?? 0)));
  const sums = traces.map((t) => (t ? costSums(t) : null));
  const rows: OpComparison[] = [];
  for (let i = Math.max(0, from); i < count; i++) {
    const columns = traces.map((t, c): ColumnOp | null => {
      if (!t || i >= t.length) return null;
      const cost = costOf(t, i);
      return {
        placement: placementAt(t, i),
        cost,
        instructions: cost?.wasm_instructions ?? null,
        branches: cost?.wasm_branches ?? null,
        cumulativeInstructions: sums[c]?.instructions[i + 1] ?? 0,
        cumulativeBranches: sums[c]?.branches[i + 1] ?? 0,
      };
    });
    const first = traces.find((t): t is TraceView => t !== null && i < t.length);
    const present = columns.filter((c): c is ColumnOp => c !== null);
    const differs = PLACEMENT_FIELDS.filter((f) => new Set(present.map((c) => c.placement[f])).size > 1);
    rows.push({
      index: i,
      kind: first ? kindOf(first, i) : "alloc",
      name: first ? opNameAt(first, i) : "alloc",
      line: first ? lineOf(first, i) : 0,
      columns,
      differs,
      cheapest: {
        instructions: cheapestOf(columns.map((c) => c?.instructions ?? null)),
        branches: cheapestOf(columns.map((c) => c?.branches ?? null)),
      },
    });
  }
  return rows;
}

function fieldValue(field: PlacementField, p: Placement): string {
  switch (field) {
    case "failed":
      return p.failed ? "failed" : "succeeded";
    case "chunk":
      return p.chunk === undefined ? "no chunk" : `chunk ${p.chunk}`;
    case "offset":
      return p.offset === undefined ? "none" : hex(p.offset);
    case "address":
      return p.address === undefined ? "none" : hex(p.address);
    case "padding":
      return p.padding === undefined ? "none" : String(p.padding);
    case "moved":
      return p.moved === undefined ? "not a realloc" : p.moved ? "moved" : "in place";
  }
}

/**
 * The placement differences of one op in words, one per differing field:
 * "offset 0x8 vs 0xf0", "padding 7 vs 0", "alloc a failed in hinckley-up".
 * A failure hides the rest (a failed op places nothing to compare), and the
 * address is left out when the chunk or offset already differ (it follows).
 * `labels` names the columns.
 */
export function differenceTexts(row: OpComparison, labels: readonly string[]): string[] {
  const present = row.columns.flatMap((c, i) => (c ? [{ c, label: labels[i] ?? `column ${i + 1}` }] : []));
  if (row.differs.includes("failed")) {
    const failed = present.filter((p) => p.c.placement.failed).map((p) => p.label);
    return [`${row.name} failed in ${failed.join(" and ")}`];
  }
  const fields = row.differs.filter(
    (f) => !(f === "address" && (row.differs.includes("chunk") || row.differs.includes("offset"))),
  );
  return fields.map((f) => {
    const values = present.map((p) => fieldValue(f, p.c.placement));
    switch (f) {
      case "moved":
        return `realloc ${values.join(" vs ")}`;
      case "chunk":
        return values.join(" vs ");
      default:
        return `${f} ${values.join(" vs ")}`;
    }
  });
}

/** One column's placement of an op in a few words: "chunk 0 + 0x8 (0x10018), 7 B padding". Empty for ops that place nothing. */
export function placementText(p: Placement): string {
  if (p.failed) return "failed";
  if (p.address === undefined) return "";
  const where = p.offset !== undefined ? `chunk ${p.chunk ?? 0} + ${hex(p.offset)} (${hex(p.address)})` : hex(p.address);
  const parts = [where];
  if (p.padding !== undefined && p.padding > 0) parts.push(`${bytes(p.padding)} padding`);
  if (p.moved === true) parts.push("moved");
  if (p.moved === false) parts.push("in place");
  return parts.join(", ");
}

// ---- Totals ---------------------------------------------------------------------

/** What one column's run amounted to after `step` ops. */
export interface ColumnTotals {
  /** Wasm instructions and branches of ops 1..step (null: not metered). */
  instructions: number | null;
  branches: number | null;
  /** Alignment padding skipped so far. */
  padding: number;
  /** Header and footer bytes of the chunks that exist. */
  metadata: number;
  /** Chunks that exist. */
  chunks: number;
  /** Bytes requested by the program. */
  requested: number;
  /** Bytes held from the base allocator now: usable, header and footer of every chunk. */
  footprint: number;
  /** The most bytes held from the base allocator at any step up to this one. */
  peakFootprint: number;
  /** Ops that failed (out of memory) so far. */
  failed: number;
}

interface RunFacts {
  /** Steps at which the chunks' bytes change, ascending, and the peak footprint up to each. */
  steps: number[];
  peaks: number[];
  /** Indices of the ops that failed, ascending. */
  failed: number[];
}
const factsMemo = new WeakMap<TraceView, RunFacts>();
/**
 * Once per trace: the footprint's peak from the chunks' lifetimes (a chunk
 * holds header + capacity + footer bytes from the step after the op that
 * made it to the step of the op that freed it), and the failed ops from the
 * meta column.
 */
function runFacts(t: TraceView): RunFacts {
  let facts = factsMemo.get(t);
  if (facts) return facts;
  const delta = new Map<number, number>();
  const add = (step: number, bytes: number): void => void delta.set(step, (delta.get(step) ?? 0) + bytes);
  for (const c of t.chunks) {
    const bytes = c.header + c.capacity + c.footer;
    add(c.created_by === undefined ? 0 : c.created_by + 1, bytes);
    if (c.freed_by !== undefined) add(c.freed_by + 1, -bytes);
  }
  const steps = [...delta.keys()].sort((a, b) => a - b);
  const peaks: number[] = [];
  let now = 0;
  let peak = 0;
  for (const s of steps) {
    now += delta.get(s) ?? 0;
    peak = Math.max(peak, now);
    peaks.push(peak);
  }
  const failed: number[] = [];
  const meta = t.cols.meta;
  for (let i = 0; i < meta.length; i++) if (((meta[i] as number) & META_FAILED) !== 0) failed.push(i);
  facts = { steps, peaks, failed };
  factsMemo.set(t, facts);
  return facts;
}

export function columnTotals(trace: TraceView, step: number = trace.length): ColumnTotals {
  const s = clampStep(trace, step);
  const stats = statsAt(trace, s);
  const sums = costSums(trace);
  const facts = runFacts(trace);
  // Bytes held from the base allocator: the chunks' usable bytes and metadata.
  const footprint = stats.used + stats.unused + stats.metadata;
  // bisectLeft: how many of the ascending values are below the limit.
  const changes = bisectLeft(facts.steps, s + 1);
  return {
    instructions: sums ? (sums.instructions[s] ?? 0) : null,
    branches: sums ? (sums.branches[s] ?? 0) : null,
    padding: stats.padding,
    metadata: stats.metadata,
    chunks: stats.chunks,
    requested: stats.requested,
    footprint,
    peakFootprint: Math.max(footprint, changes > 0 ? (facts.peaks[changes - 1] ?? 0) : 0),
    failed: bisectLeft(facts.failed, s),
  };
}

/** The totals compare mode lists, lower being better for each, labelled as the metric registry names them. */
export const TOTAL_FIELDS: readonly { key: Exclude<keyof ColumnTotals, "requested">; label: string }[] = (
  ["instructions", "branches", "padding", "metadata", "chunks", "footprint", "peakFootprint", "failed"] as const
).map((key) => ({ key, label: metricHeading(key) }));

/** For each total, the columns with the least of it when the columns differ (null totals: columns whose program failed). */
export function bestTotals(totals: readonly (ColumnTotals | null)[]): Record<(typeof TOTAL_FIELDS)[number]["key"], number[]> {
  const out = {} as Record<(typeof TOTAL_FIELDS)[number]["key"], number[]>;
  for (const { key } of TOTAL_FIELDS) out[key] = cheapestOf(totals.map((t) => (t ? t[key] : null)));
  return out;
}

// ---- The map -------------------------------------------------------------------

/** Blocks the op before `step` placed or acted on (highlighted on each column's map). */
export function focusAt(trace: TraceView, step: number): Set<number> {
  const s = clampStep(trace, step);
  const op = s > 0 ? opAt(trace, s - 1) : undefined;
  const ids = new Set<number>();
  if (!op) return ids;
  if ((op.kind === "alloc" || op.kind === "realloc") && !op.failed) ids.add(op.index);
  if (op.target_op !== undefined) ids.add(op.target_op);
  return ids;
}

// ---- The stepper -----------------------------------------------------------------


export { targetText };
export { compareStepText } from "./describe";
