// The native x86-64 reference table (docs/bench/native-x86_64.json, written by
// `npm run bench:native`): callgrind's Ir / Bc per case for the real crates and
// for our algorithms and models. Imported at build time (no fetch), parsed and
// validated here, and matched to the current op by `caseForOp`. These are
// native counts measured once, never comparable number-for-number with the
// wasm counts of the cost chart.

import raw from "../../../docs/bench/native-x86_64.json";
import { firstChunkOp, opAt, type TraceView } from "../wasm/traceView";
import { currentOp } from "./describe";

export interface X86Count {
  ir: number;
  bc: number;
}

export interface X86Library {
  id: string;
  name: string;
  /** "real" (bumpalo, bump-scope, blink-alloc), "algorithm" or "model" (ours). */
  kind: string;
  what: string;
}

export interface X86Case {
  name: string;
  group: string;
  min_align: number;
  /** By library id; null where the library does not support the case. */
  results: Record<string, X86Count | null>;
  /** By library id: a key of `unsupported_reasons`. */
  unsupported: Record<string, string>;
  /** Lowest of ours ("lib" lists the libraries, comma-separated); null when none supports it. */
  ours_best: (X86Count & { lib: string }) | null;
  /** Why the row's numbers are what they are (the table's footnotes). */
  notes: { key: string; text: string }[];
}

export interface X86Bench {
  meta: { command: string; date: string; rustc: { version: string; release: string } };
  libraries: X86Library[];
  unsupported_reasons: Record<string, string>;
  cases: X86Case[];
}

/** The real crates' columns, in table order. */
export const REAL_COLUMNS = ["bumpalo", "bump_scope_up", "bump_scope_down", "blink_alloc"] as const;

type Obj = Record<string, unknown>;

const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0;

function fail(where: string, what: string): never {
  throw new Error(`native-x86_64.json: ${where}: ${what}`);
}

function str(o: Obj, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== "string") fail(where, `"${key}" is not a string`);
  return v;
}

function obj(o: Obj, key: string, where: string): Obj {
  const v = o[key];
  if (!isObj(v)) fail(where, `"${key}" is not an object`);
  return v;
}

function count(v: unknown, where: string): X86Count {
  if (!isObj(v) || !isCount(v["ir"]) || !isCount(v["bc"])) fail(where, "not an {ir, bc} count");
  return { ir: v["ir"], bc: v["bc"] };
}

/** Validates the benchmark JSON; throws an Error naming the first bad field. */
export function parseX86Bench(value: unknown): X86Bench {
  if (!isObj(value)) fail("root", "not an object");
  const meta = obj(value, "meta", "root");
  const rustc = obj(meta, "rustc", "meta");
  const libsRaw = value["libraries"];
  if (!Array.isArray(libsRaw) || libsRaw.length === 0) fail("root", '"libraries" is not a non-empty array');
  const libraries = libsRaw.map((l, i): X86Library => {
    const where = `libraries[${i}]`;
    if (!isObj(l)) fail(where, "not an object");
    return { id: str(l, "id", where), name: str(l, "name", where), kind: str(l, "kind", where), what: str(l, "what", where) };
  });
  const ids = new Set(libraries.map((l) => l.id));
  for (const id of REAL_COLUMNS) if (!ids.has(id)) fail("libraries", `no "${id}"`);
  const reasonsRaw = obj(value, "unsupported_reasons", "root");
  const unsupported_reasons: Record<string, string> = {};
  for (const [key, r] of Object.entries(reasonsRaw)) {
    unsupported_reasons[key] = isObj(r) ? str(r, "text", `unsupported_reasons.${key}`) : fail("unsupported_reasons", key);
  }
  const casesRaw = value["cases"];
  if (!Array.isArray(casesRaw) || casesRaw.length === 0) fail("root", '"cases" is not a non-empty array');
  const cases = casesRaw.map((c, i): X86Case => {
    let where = `cases[${i}]`;
    if (!isObj(c)) fail(where, "not an object");
    const name = str(c, "name", where);
    where = `case ${name}`;
    const minAlign = c["min_align"];
    if (!isCount(minAlign) || minAlign === 0) fail(where, '"min_align" is not a positive integer');
    const resultsRaw = obj(c, "results", where);
    const results: Record<string, X86Count | null> = {};
    for (const [lib, r] of Object.entries(resultsRaw)) {
      if (!ids.has(lib)) fail(where, `unknown library "${lib}"`);
      results[lib] = r === null ? null : count(r, `${where}.results.${lib}`);
    }
    const unsupported: Record<string, string> = {};
    for (const [lib, key] of Object.entries(isObj(c["unsupported"]) ? c["unsupported"] : {})) {
      if (typeof key === "string") unsupported[lib] = key;
    }
    const best = c["ours_best"];
    const ours_best =
      best === null || best === undefined
        ? null
        : { ...count(best, `${where}.ours_best`), lib: isObj(best) ? str(best, "lib", `${where}.ours_best`) : "" };
    const notesRaw = c["notes"];
    const notes = (Array.isArray(notesRaw) ? notesRaw : []).map((n, k) => {
      const at = `${where}.notes[${k}]`;
      if (!isObj(n)) fail(at, "not an object");
      return { key: str(n, "key", at), text: str(n, "text", at) };
    });
    return { name, group: str(c, "group", where), min_align: minAlign, results, unsupported, ours_best, notes };
  });
  return {
    meta: {
      command: str(meta, "command", "meta"),
      date: str(meta, "date", "meta"),
      rustc: { version: str(rustc, "version", "meta.rustc"), release: str(rustc, "release", "meta.rustc") },
    },
    libraries,
    unsupported_reasons,
    cases,
  };
}

/**
 * The table's footnotes, numbered in the order rows first cite them; a text
 * several rows share is one note. `byCase` gives each row's note numbers.
 */
export function x86Notes(bench: X86Bench): { notes: { n: number; text: string }[]; byCase: Map<string, number[]> } {
  const numberOf = new Map<string, number>();
  const byCase = new Map<string, number[]>();
  for (const c of bench.cases) {
    const ns: number[] = [];
    for (const note of c.notes) {
      let n = numberOf.get(note.text);
      if (n === undefined) numberOf.set(note.text, (n = numberOf.size + 1));
      if (!ns.includes(n)) ns.push(n);
    }
    byCase.set(c.name, ns);
  }
  return { notes: [...numberOf].map(([text, n]) => ({ n, text })), byCase };
}

export type X86Reference = { ok: true; bench: X86Bench } | { ok: false; error: string };

function load(): X86Reference {
  try {
    return { ok: true, bench: parseX86Bench(raw as unknown) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The checked-in table, parsed once (a bad file shows as an error, not a crash). */
export const X86_REFERENCE: X86Reference = load();

/** "10 / 1". */
export function countText(c: X86Count): string {
  return `${c.ir} / ${c.bc}`;
}

/** The library measuring the preset's own code ("bumpalo" -> model bumpalo, "fitzgen-down" -> fitzgen-down). */
export function presetLibrary(bench: X86Bench, preset: string): X86Library | undefined {
  return bench.libraries.find((l) => l.kind !== "real" && (l.name === preset || l.name === `model ${preset}`));
}

/**
 * `base` or its `_aligned`/`_overaligned`/`_underaligned` variant: the case
 * measured with the preset's minimum alignment, when it is known and one
 * matches it exactly.
 */
function withMinAlign(bench: X86Bench | undefined, base: string, minAlign: number | undefined): string {
  if (!bench || minAlign === undefined || minAlign <= 1) return base;
  const variant = bench.cases.find((c) => /^_(over|under)?aligned$/.test(c.name.slice(base.length)) && c.name.startsWith(base) && c.min_align === minAlign);
  return variant?.name ?? base;
}

/** The x86-64 cases of a typed value or a slice, by the element's size in bytes (the table measures u8, u32, u64 and u128). */
const TYPED_CASES: Record<number, string> = { 1: "alloc_u8", 4: "alloc_u32", 8: "alloc_u64", 16: "alloc_u128" };
const SLICE_CASES: Record<number, string> = { 1: "alloc_u8_slice", 4: "alloc_u32_slice" };

/**
 * The reference case that performs the same operation as the op step `step`
 * shows, in the same shape (undefined: none, or step 0): a typed `alloc u64`
 * is `alloc_u64` (its layout a constant in both), a run-time layout is the
 * `black_box_` case. `minAlign` is the preset's minimum alignment when known
 * (the trace does not carry it); without it the `_aligned`/`_overaligned`
 * variants are never chosen.
 */
export function caseForOp(trace: TraceView, step: number, minAlign?: number): string | undefined {
  const bench = X86_REFERENCE.ok ? X86_REFERENCE.bench : undefined;
  const op = currentOp(trace, step);
  if (!op || op.failed) return undefined;
  let name: string | undefined;
  switch (op.kind) {
    case "alloc": {
      // The op that made the allocator's first chunk lazily (no chunk came from the constructor).
      if (firstChunkOp(trace) === op.index) name = "warm_up";
      else if (op.shape?.kind === "typed") name = TYPED_CASES[op.size ?? 0];
      else if (op.shape?.kind === "array") name = SLICE_CASES[op.align ?? 0];
      else name = "black_box_allocate";
      if (name !== undefined && name !== "warm_up") name = withMinAlign(bench, name, minAlign);
      break;
    }
    case "realloc": {
      // The table's grow and shrink cases have either both layouts constant
      // or both black-boxed: only a run-time layout's resize has the same
      // shape (a typed or array block's keeps its alignment constant and its
      // sizes at run time, which no case measures).
      const before = op.target_op !== undefined ? opAt(trace, op.target_op)?.size : undefined;
      if (op.shape?.kind === "layout" && before !== undefined && op.size !== undefined && op.size !== before) {
        name = op.size > before ? "black_box_grow_same_align" : "black_box_shrink_same_align";
      }
      break;
    }
    case "free": {
      // `deallocate` frees a u32 with its constant layout, `black_box_` one
      // with a run-time layout; an array's free (size at run time) has no case.
      const last = op.events.some((e) => e.kind === "freed") ? "deallocate" : "deallocate_non_last";
      if (op.shape?.kind === "typed") name = last;
      else if (op.shape?.kind === "layout") name = `black_box_${last}`;
      break;
    }
    case "reset":
      name = "reset";
      break;
  }
  return name !== undefined && bench && !bench.cases.some((c) => c.name === name) ? undefined : name;
}
