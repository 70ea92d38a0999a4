// Parameter sweeps: the current program run once per value of one parameter
// (minimum alignment, target, preset, first chunk size, or a random mix's
// size or alignment range), with each run's measured totals. Everything here
// but `runSweep` is pure; `runSweep` traces one configuration per macrotask
// so a long sweep leaves the page responsive, reports progress and stops when
// its AbortSignal fires.
//
// The figures of a point are those of one ordinary run of its configuration
// on the trace module with its costs, summed by compare mode's
// `columnTotals`: a sweep point and the main view opened on that
// configuration always agree.

import type { RunConfig } from "../wasm/config";
import type { ViewResult, TraceView } from "../wasm/traceView";
import type { AllocatorInfo, ProgramError } from "../wasm/types";
import { nextTask } from "../wasm/tasks";
import { statsAt } from "./chunks";
import { columnTotals, targetText, type ColumnTotals } from "./compare";
import { randomMix, RANDOM_MIX_DEFAULTS, RANDOM_MIX_LIMITS, type RandomMixOptions } from "./generators";
import { MAX_CAPACITY, MAX_MIN_ALIGN, MAX_SWEEP_POINTS, type SweepParam } from "./limits";
import { metricHeading, metricUnit } from "./metrics";

export { isSweepParam, MAX_SWEEP_POINTS, SWEEP_PARAMS, type SweepParam } from "./limits";

/** One configuration a sweep runs. */
export type SweepConfig = RunConfig;

/**
 * A sweep as the app state and a share link hold it: the parameter, its
 * values as text ("8", "wasm32", "bumpalo", "1-64"), and for a random-mix
 * sweep the mix's other settings.
 */
export interface SweepSetup {
  param: SweepParam;
  values: string[];
  generator?: RandomMixOptions | undefined;
}

/** A sweep ready to run: a setup whose values are checked and canonical, and the configuration every point starts from. */
export interface SweepSpec extends SweepSetup {
  base: SweepConfig;
}

/** One configuration of a sweep. */
export interface SweepPoint {
  /** The value's text ("8", "wasm32", "1-64"). */
  value: string;
  /** The value with the parameter's name ("MIN_ALIGN 8", "capacity 256"). */
  label: string;
  config: SweepConfig;
}

/** What a configuration amounted to at the end of its program: compare mode's totals, the leaked bytes and the ops run. */
export type SweepFigures = ColumnTotals & { leaked: number; ops: number };

export type SweepPointResult =
  | { point: SweepPoint; ok: true; figures: SweepFigures }
  | { point: SweepPoint; ok: false; error: ProgramError };

export interface SweepResult {
  param: SweepParam;
  /** Points run, in the order of the values (all of them unless cancelled). */
  points: SweepPointResult[];
  /** Configurations the sweep had. */
  total: number;
  cancelled: boolean;
}

export type SweepMetric = "instructions" | "branches" | "padding" | "metadata" | "leaked" | "chunks" | "peakFootprint";

/** The metrics a sweep charts, labelled as the metric registry names them. */
export const SWEEP_METRICS: readonly { metric: SweepMetric; label: string; unit: string }[] = (
  ["instructions", "branches", "padding", "metadata", "leaked", "chunks", "peakFootprint"] as const
).map((metric) => ({ metric, label: metricHeading(metric), unit: metricUnit(metric) }));

// ---- Values ---------------------------------------------------------------------

const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

const PARAM_NAMES: Record<SweepParam, string> = {
  minAlign: "MIN_ALIGN",
  target: "target",
  preset: "preset",
  capacity: "capacity",
  generatorSize: "sizes",
  generatorAlign: "aligns",
};

/** The parameter's name as the chart and labels say it. */
export function paramName(param: SweepParam): string {
  return PARAM_NAMES[param];
}

/** A point's label from its value's text: "MIN_ALIGN 8", "wasm32", "bumpalo", "sizes 1-64". */
export function pointLabel(param: SweepParam, value: string): string {
  if (param === "preset") return value;
  if (param === "target") return targetText(value === "wasm32" ? "wasm32" : "64");
  return `${paramName(param)} ${value}`;
}

/** The values a sweep starts with for a parameter, from the current configuration. */
export function defaultValues(param: SweepParam, base: SweepConfig, allocators: readonly AllocatorInfo[]): string[] {
  switch (param) {
    case "minAlign": {
      const aligns = allocators.find((a) => a.name === base.allocator)?.minAligns ?? [];
      // Up to 64: past that a minimum alignment only repeats the same story.
      return [...aligns].filter((a) => a <= 64).sort((a, b) => a - b).map(String);
    }
    case "target":
      return ["64", "wasm32"];
    case "preset":
      return allocators.map((a) => a.name);
    case "capacity":
      return ["64", "128", "256", "512", "1024", "2048", "4096"];
    case "generatorSize":
      return ["1-8", "1-16", "1-32", "1-64", "1-128", "1-256"];
    case "generatorAlign":
      return ["1-1", "1-2", "1-4", "1-8", "1-16", "1-32"];
  }
}

export type ParsedValues = { ok: true; values: string[] } | { ok: false; error: string };

/**
 * Reads a value list as typed: items separated by commas or spaces. Numbers
 * also take ranges: "1..16" doubles from 1 to 16 (1, 2, 4, 8, 16), and
 * "64..512 by 64" steps by 64. Random-mix ranges are written "1-64".
 * Values come back in their canonical text, duplicates dropped.
 */
export function parseValues(param: SweepParam, text: string, allocators: readonly AllocatorInfo[]): ParsedValues {
  const out: string[] = [];
  const add = (v: string): void => {
    if (!out.includes(v)) out.push(v);
  };
  // "64..512 by 64" is one item: its spaces go before splitting on spaces.
  const items = text
    .replace(/\s+by\s+/gi, "by")
    .split(/[\s,]+/)
    .filter((s) => s !== "");
  if (items.length === 0) return { ok: false, error: "Enter at least one value." };
  for (const item of items) {
    switch (param) {
      case "target":
        if (item !== "64" && item !== "wasm32") return { ok: false, error: `"${item}" is not a target: use 64 or wasm32.` };
        add(item);
        break;
      case "preset":
        if (!allocators.some((a) => a.name === item)) return { ok: false, error: `"${item}" is not a preset.` };
        add(item);
        break;
      case "minAlign":
      case "capacity": {
        const m = /^(\d{1,10})(?:\.\.(\d{1,10})(?:by(\d{1,10}))?)?$/.exec(item);
        if (!m) return { ok: false, error: `"${item}" is not a whole number or a range like 1..16 or 64..512 by 64.` };
        const lo = Number(m[1]);
        const hi = m[2] === undefined ? lo : Number(m[2]);
        const by = m[3] === undefined ? null : Number(m[3]);
        if (lo < 1 || hi < lo) return { ok: false, error: `"${item}": the range must run from 1 or more upwards.` };
        if (by !== null && by < 1) return { ok: false, error: `"${item}": the step must be 1 or more.` };
        const largest = param === "capacity" ? MAX_CAPACITY : MAX_MIN_ALIGN;
        if (hi > largest) return { ok: false, error: `"${item}": the largest ${param === "capacity" ? "capacity" : "minimum alignment"} is ${largest}.` };
        for (let v = lo; v <= hi && out.length <= MAX_SWEEP_POINTS; v = by === null ? v * 2 : v + by) add(String(v));
        break;
      }
      case "generatorSize":
      case "generatorAlign": {
        const m = /^(\d{1,10})-(\d{1,10})$/.exec(item);
        if (!m) return { ok: false, error: `"${item}" is not a range like 1-64.` };
        const min = Number(m[1]);
        const max = Number(m[2]);
        if (min > max) return { ok: false, error: `"${item}": the smallest comes first.` };
        if (param === "generatorSize" && max > RANDOM_MIX_LIMITS.maxSize) {
          return { ok: false, error: `"${item}": sizes go up to ${RANDOM_MIX_LIMITS.maxSize}.` };
        }
        if (param === "generatorAlign" && (!isPowerOfTwo(min) || !isPowerOfTwo(max) || max > RANDOM_MIX_LIMITS.maxAlign)) {
          return { ok: false, error: `"${item}": alignments are powers of two up to ${RANDOM_MIX_LIMITS.maxAlign}.` };
        }
        add(`${min}-${max}`);
        break;
      }
    }
    if (out.length > MAX_SWEEP_POINTS) return { ok: false, error: `A sweep runs at most ${MAX_SWEEP_POINTS} configurations.` };
  }
  return { ok: true, values: out };
}

const RANDOM_MIX_HEADER = /^# Random mix: (\d+) ops, sizes (\d+)\.\.(\d+), align (\d+)\.\.(\d+), seed (\d+)\s*$/m;

/**
 * The random mix a program was generated from (its first line, as
 * `randomMix` writes it), else the menu's defaults: a generator sweep of a
 * generated program varies that program's mix.
 */
export function generatorOf(source: string): RandomMixOptions {
  const m = RANDOM_MIX_HEADER.exec(source.split("\n", 1)[0] ?? "");
  if (!m) return { ...RANDOM_MIX_DEFAULTS };
  const [ops, minSize, maxSize, minAlign, maxAlign, seed] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return { ops, minSize, maxSize, minAlign, maxAlign, seed };
}

export type SpecResult = { ok: true; spec: SweepSpec } | { ok: false; error: string };

/**
 * Whether the parameter's values are categories (presets, targets) rather
 * than amounts: their order means nothing, so no line may join their points.
 */
export function isCategorical(param: SweepParam): boolean {
  return param === "preset" || param === "target";
}

/**
 * Why a sweep of this parameter cannot run on the base's allocator, or null:
 * a minimum alignment sweep needs a preset built with that setting, and a
 * sweep of one that has none would only show the engine refusing each value.
 */
export function sweepUnavailable(param: SweepParam, base: SweepConfig, allocators: readonly AllocatorInfo[]): string | null {
  if (param !== "minAlign") return null;
  const info = allocators.find((a) => a.name === base.allocator);
  if (!info || info.minAligns.length > 0) return null;
  const withIt = allocators.filter((a) => a.minAligns.length > 0).map((a) => a.name);
  return `${base.allocator} has no MIN_ALIGN setting, so a minimum alignment sweep has nothing to vary. Presets that have one: ${withIt.join(", ")}.`;
}

/** The sweep a setup describes from `base`, or why it cannot run (its values do not parse, or the allocator lacks the parameter). */
export function specOf(setup: SweepSetup, base: SweepConfig, allocators: readonly AllocatorInfo[]): SpecResult {
  const unavailable = sweepUnavailable(setup.param, base, allocators);
  if (unavailable !== null) return { ok: false, error: unavailable };
  const parsed = parseValues(setup.param, setup.values.join(", "), allocators);
  return parsed.ok ? { ok: true, spec: { ...setup, values: parsed.values, base } } : parsed;
}

/** The configuration of one of the sweep's values. */
function configAt(spec: SweepSpec, value: string, allocators: readonly AllocatorInfo[]): SweepConfig {
  const base = spec.base;
  switch (spec.param) {
    case "minAlign":
      return { ...base, minAlign: Number(value) };
    case "capacity":
      return { ...base, capacity: Number(value) };
    case "target":
      return { ...base, target: value === "wasm32" ? "wasm32" : "64" };
    case "preset": {
      // The base's minimum alignment where this preset has it, else its default.
      // Likewise its child allocator.
      const info = allocators.find((a) => a.name === value);
      const aligns = info?.minAligns ?? [];
      const point: SweepConfig = { ...base, allocator: value, minAlign: base.minAlign !== null && aligns.includes(base.minAlign) ? base.minAlign : null };
      if (base.child == null || !info?.children.includes(base.child)) delete point.child;
      return point;
    }
    case "generatorSize":
    case "generatorAlign": {
      // The random mix the base program was generated from (or the setup's), with the swept range replaced.
      const mix = spec.generator ?? generatorOf(base.source);
      const [min = 0, max = 0] = value.split("-").map(Number);
      const options = spec.param === "generatorSize" ? { ...mix, minSize: min, maxSize: max } : { ...mix, minAlign: min, maxAlign: max };
      return { ...base, source: randomMix(options) };
    }
  }
}

/** One configuration per value, in order. */
export function sweepPoints(spec: SweepSpec, allocators: readonly AllocatorInfo[]): SweepPoint[] {
  return spec.values.map((value) => ({ value, label: pointLabel(spec.param, value), config: configAt(spec, value, allocators) }));
}

// ---- Running ----------------------------------------------------------------------

function figuresOf(trace: TraceView): SweepFigures {
  return { ...columnTotals(trace), leaked: statsAt(trace, trace.length).leaked, ops: trace.length };
}

/**
 * Runs one configuration and gives its figures (from the run with its
 * costs); `done` is called after, with the run no longer needed.
 */
export type PointRunner = (config: RunConfig) => Promise<{ result: ViewResult; done?: () => void }>;

/** One configuration's figures; a runner that throws is that point's error, not the sweep's. */
async function runPoint(run: PointRunner, point: SweepPoint): Promise<SweepPointResult> {
  try {
    const { result, done } = await run(point.config);
    try {
      return result.ok ? { point, ok: true, figures: figuresOf(result.trace) } : { point, ok: false, error: result.error };
    } finally {
      done?.();
    }
  } catch (error) {
    return { point, ok: false, error: { line: 1, column: 1, message: error instanceof Error ? error.message : String(error) } };
  }
}

export interface RunOptions {
  signal?: AbortSignal | undefined;
  /** After each configuration: how many of how many have run, and the latest. */
  onProgress?: ((done: number, total: number, latest: SweepPointResult) => void) | undefined;
}

/**
 * Runs every configuration of the sweep, one per macrotask, so the page can
 * draw progress and take a Cancel click between them. Cancelling stops before
 * the next configuration and resolves with the points run so far.
 */
export async function runSweep(run: PointRunner, spec: SweepSpec, allocators: readonly AllocatorInfo[], options: RunOptions = {}): Promise<SweepResult> {
  const points = sweepPoints(spec, allocators);
  const results: SweepPointResult[] = [];
  for (const point of points) {
    await nextTask();
    if (options.signal?.aborted) return { param: spec.param, points: results, total: points.length, cancelled: true };
    const result = await runPoint(run, point);
    results.push(result);
    options.onProgress?.(results.length, points.length, result);
  }
  return { param: spec.param, points: results, total: points.length, cancelled: false };
}

// ---- Reading the results -------------------------------------------------------

/** A point's value of a metric (null: the point failed, or the trace was not metered). */
export function metricOf(result: SweepPointResult, metric: SweepMetric): number | null {
  return result.ok ? result.figures[metric] : null;
}

export function metricInfo(metric: SweepMetric): { metric: SweepMetric; label: string; unit: string } {
  return SWEEP_METRICS.find((m) => m.metric === metric) ?? { metric, label: metric, unit: metric };
}

/** "1,234", or "not measured". */
export function figureText(n: number | null): string {
  return n === null ? "not measured" : n.toLocaleString("en-US");
}

/** "MIN_ALIGN 8: 1,234 wasm instructions", or the point's error. */
export function pointText(result: SweepPointResult, metric: SweepMetric): string {
  if (!result.ok) return `${result.point.label}: error: ${result.error.message}`;
  return `${result.point.label}: ${figureText(metricOf(result, metric))} ${metricInfo(metric).unit}`;
}

// ---- CSV ------------------------------------------------------------------------------

/** A figure's field: empty where the point's program failed. */
function figure(key: keyof SweepFigures): (r: SweepPointResult) => number | null {
  return (r) => (r.ok ? r.figures[key] : null);
}

/** The CSV's columns: each one's header and its field of a point's row. */
const CSV_COLUMNS: readonly [string, (r: SweepPointResult, param: SweepParam) => string | number | null][] = [
  ["parameter", (_, param) => param],
  ["value", (r) => r.point.value],
  ["allocator", (r) => r.point.config.allocator],
  ["target", (r) => r.point.config.target],
  ["capacity", (r) => r.point.config.capacity],
  ["min_align", (r) => r.point.config.minAlign],
  ["wasm_instructions", figure("instructions")],
  ["wasm_branches", figure("branches")],
  ["padding_bytes", figure("padding")],
  ["metadata_bytes", figure("metadata")],
  ["leaked_bytes", figure("leaked")],
  ["chunks", figure("chunks")],
  ["peak_footprint_bytes", figure("peakFootprint")],
  ["ops", figure("ops")],
  ["failed_ops", figure("failed")],
  ["error", (r) => (r.ok ? null : `line ${r.error.line}, column ${r.error.column}: ${r.error.message}`)],
];

/** RFC 4180: quoted when it holds a comma, quote or line break; quotes doubled. */
function csvField(value: string | number | null): string {
  const text = value === null ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/**
 * The sweep as CSV, one row per point run, CRLF line ends (RFC 4180). Empty
 * fields: the preset's default (capacity, min_align), not measured, or a
 * point whose program failed (its message in `error`).
 */
export function sweepCsv(result: SweepResult): string {
  const rows = [
    CSV_COLUMNS.map(([name]) => name),
    ...result.points.map((r) => CSV_COLUMNS.map(([, field]) => csvField(field(r, result.param)))),
  ];
  return `${rows.map((row) => row.join(",")).join("\r\n")}\r\n`;
}
