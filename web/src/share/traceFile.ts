// Trace files: "Export trace (JSON)" writes the cost module's full trace
// (byte for byte what `bumplab trace` prints); "Import trace" reads one back
// by running the program it records on this engine and checking that every
// op lands where the file says. So an imported file is never shown as if
// Bump Lab had traced it when it did not: a hand-edited file, or one made by
// another version whose placements differ, is refused with the first
// difference, and nothing on screen changes.

import type { RunConfig } from "../wasm/config";
import { addressOf, blockNameOf, chunkOf, failed, kindOf, sizeOf, type TraceView } from "../wasm/traceView";
import { TRACE_VERSION, type AllocatorInfo, type Trace } from "../wasm/types";
import { CHILD_PRESETS } from "./link";
import { excerpt, normalizeNewlines } from "../model/format";
import { MAX_CAPACITY, MAX_MIN_ALIGN } from "../model/limits";

/** Larger files are refused before parsing (a real trace of 100k ops is ~130 MB). */
export const MAX_TRACE_FILE_BYTES = 256 * 1024 * 1024;

/** What an import checks of each op against the replay. */
export interface FileOp {
  kind: string;
  /** The block or checkpoint it names (absent for a reset). */
  block: string | null;
  failed: boolean;
  address: number | null;
  chunk: number | null;
  size: number | null;
}

export type TraceFile = { ok: true; config: RunConfig; ops: FileOp[] } | { ok: false; error: string };

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

/** A JSON value as a message quotes it: numbers as written, text cut to an excerpt. */
function shown(v: unknown): string {
  if (typeof v === "string") return `${excerpt(v, '"')} (text)`;
  // Past 2^53 a double no longer holds every whole number: the file's digits were rounded when read.
  if (typeof v === "number") return Math.abs(v) > Number.MAX_SAFE_INTEGER && Number.isFinite(v) ? `${v} (past 2^53, not read exactly)` : String(v);
  if (v === null) return "null";
  return Array.isArray(v) ? "a list" : typeof v === "object" ? "an object" : String(v);
}

/**
 * Reads optional whole-number field `name` (absent or null: null), from
 * `min` to `max`: a number outside that range is refused with the field's
 * name and its value as written, never passed on to be wrapped to 32 bits by
 * the wasm boundary (4294967552 would run as 256) or rounded by a double.
 */
function wholeField(v: unknown, name: string, min: number, max: number): number | null | string {
  if (v === undefined || v === null) return null;
  if (typeof v === "number" && Number.isInteger(v) && v >= min && v <= max) return v;
  return `${name} must be a whole number from ${min} to ${max}, not ${shown(v)}`;
}

/** A trace's "version" as the refusal names it: what the file has, in its own type. */
function versionOf(v: unknown): string {
  if (v === undefined) return "no version";
  if (typeof v === "number") return `version ${v}`;
  if (typeof v === "string") return `version ${excerpt(v, '"')}, which is text, not a number`;
  return `a version that is not a number (${shown(v)})`;
}

/** Reads a file's text: the run it records and its ops, or why it is not a trace this page can replay. */
export function parseTraceFile(text: string, allocators: readonly AllocatorInfo[]): TraceFile {
  const refuse = (why: string): TraceFile => ({ ok: false, error: `Not a Bump Lab trace: ${why}.` });
  if (text.length > MAX_TRACE_FILE_BYTES) return { ok: false, error: `The file is larger than ${MAX_TRACE_FILE_BYTES / 1024 / 1024} MiB.` };
  let t: unknown;
  try {
    t = JSON.parse(text);
  } catch (error) {
    return { ok: false, error: `The file is not JSON (${error instanceof Error ? error.message : String(error)}).` };
  }
  if (!isObj(t)) return refuse("the file must hold an object");
  if (t["version"] !== TRACE_VERSION) {
    return refuse(`it has ${versionOf(t["version"])}; this Bump Lab reads trace format version ${TRACE_VERSION}`);
  }
  const allocator = t["allocator"];
  if (typeof allocator !== "string" || !allocators.some((a) => a.name === allocator)) {
    return refuse(`trace.allocator must be one of this Bump Lab's allocators (${allocators.map((a) => a.name).join(", ")})`);
  }
  const target = t["target"];
  if (target !== "64" && target !== "wasm32") return refuse('trace.target must be "64" or "wasm32"');
  const program = t["program"];
  if (!isObj(program) || typeof program["text"] !== "string") {
    return refuse("it has no program to replay (trace.program.text): export it again with this version of Bump Lab or the CLI");
  }
  // The ranges a share link carries (link.ts): an imported run must make a link that opens.
  const capacity = wholeField(program["capacity"], "trace.program.capacity", 1, MAX_CAPACITY);
  if (typeof capacity === "string") return refuse(capacity);
  const minAlign = wholeField(program["min_align"], "trace.program.min_align", 1, MAX_MIN_ALIGN);
  if (typeof minAlign === "string") return refuse(minAlign);
  // A file written before the child allocator setting existed ran over the
  // child the preset had then (see CHILD_PRESETS).
  const written = program["child"];
  if (written !== undefined && (typeof written !== "string" || !/^[a-z][a-z0-9-]{0,31}$/.test(written))) {
    return refuse(`trace.program.child must be a child allocator's name (lower-case letters, digits, "-"), not ${excerpt(JSON.stringify(written) ?? String(written))}`);
  }
  const child = typeof written === "string" ? written : (CHILD_PRESETS[allocator]?.before ?? null);
  if (!Array.isArray(t["ops"])) return refuse("trace.ops must be a list");
  const ops: FileOp[] = [];
  for (const [i, o] of (t["ops"] as unknown[]).entries()) {
    if (!isObj(o) || typeof o["kind"] !== "string" || typeof o["failed"] !== "boolean") return refuse(`trace.ops[${i}] must have a kind and failed`);
    if (o["block"] !== undefined && typeof o["block"] !== "string") return refuse(`trace.ops[${i}].block must be text`);
    // Addresses, chunk ids and sizes fit in 2^53 (docs/trace-format.md): a larger number cannot be read exactly.
    const [address, chunk, size] = (["address", "chunk", "size"] as const).map((f) => wholeField(o[f], `trace.ops[${i}].${f}`, 0, Number.MAX_SAFE_INTEGER));
    for (const v of [address, chunk, size]) if (typeof v === "string") return refuse(v);
    ops.push({
      kind: o["kind"],
      block: typeof o["block"] === "string" ? o["block"] : null,
      failed: o["failed"],
      address: address as number | null,
      chunk: chunk as number | null,
      size: size as number | null,
    });
  }
  const config: RunConfig = { source: normalizeNewlines(program["text"]), allocator, target, capacity, minAlign };
  if (child !== null) config.child = child;
  return { ok: true, config, ops };
}

/** The first op where the replay differs from the file, in words; null when every op matches. */
export function replayDiffers(view: TraceView, ops: readonly FileOp[]): string | null {
  if (view.length !== ops.length) return `the program runs ${view.length} ops here and the file lists ${ops.length}`;
  const hex = (n: number | null): string => (n === null ? "none" : `0x${n.toString(16)}`);
  const a = (word: string): string => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;
  for (const [i, op] of ops.entries()) {
    const kind = kindOf(view, i);
    const fails = failed(view, i);
    // A free names the block it frees; only a placing op's address is its own.
    const places = (kind === "alloc" || kind === "realloc") && !fails;
    const address = addressOf(view, i) ?? null;
    const chunk = chunkOf(view, i) ?? null;
    const block = blockNameOf(view, i) ?? null;
    const differences: [boolean, string][] = [
      [op.kind !== kind, `it is ${a(kind)} here and ${a(excerpt(op.kind))} in the file`],
      [op.block !== block, `it names ${block ?? "nothing"} here and ${op.block === null ? "nothing" : excerpt(op.block)} in the file`],
      [op.failed !== fails, `it ${fails ? "fails" : "succeeds"} here and ${op.failed ? "fails" : "succeeds"} in the file`],
      [places && op.address !== address, `its block is at ${hex(address)} here and at ${hex(op.address)} in the file`],
      [places && op.chunk !== chunk, `its block is in chunk ${chunk ?? "none"} here and ${op.chunk ?? "none"} in the file`],
      [places && op.size !== null && op.size !== sizeOf(view, i), `its size is ${sizeOf(view, i)} here and ${op.size ?? 0} in the file`],
    ];
    const what = differences.find(([differs]) => differs)?.[1];
    if (what) return `op ${i + 1}: ${what} (the file was edited, or made by another version of Bump Lab)`;
  }
  return null;
}

/**
 * A trace file's text, in the one canonical form that the page's "Export
 * trace (JSON)" and the CLI's `bumplab trace` (web/cli/bumplab.mjs) both
 * write, so the same program, preset, target, capacity and minimum alignment
 * give byte-identical files (tests/e2e/determinism.spec.ts):
 *
 *   JSON.stringify(JSON.parse(engine output)) + "\n"
 *
 * that is the engine's JSON parsed and written back by ECMAScript's
 * JSON.stringify: one line, no spaces, keys in the engine's order, numbers
 * in their shortest round-trip form (the engine's f64 `1.0` is written `1`),
 * then a newline. Compact rather than indented: a 100,000-op trace is about
 * 130 MB on one line and twice that indented.
 */
export function traceJson(trace: Trace): string {
  return `${JSON.stringify(trace)}\n`;
}
