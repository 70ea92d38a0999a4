// Export and import: the figures as files that stand alone (SVG with its
// computed styles inlined, PNG at 2×) and the trace as JSON, read back with
// every field checked so a hand-edited or hostile file gives a sentence, not
// an exception.

import type { TraceView } from "../engine/traceView";
import { TRACE_VERSION, type OpKind, type Target, type Trace } from "../engine/types";
import { NAME as PRESET_NAME } from "./link";

// ---- Trace files ------------------------------------------------------------

export type TraceCheck = { ok: true; trace: Trace } | { ok: false; error: string };

/** Larger files are refused before parsing (a real trace of 100k ops is ~60 MB). */
export const MAX_TRACE_FILE_BYTES = 64 * 1024 * 1024;

const OP_KINDS: readonly OpKind[] = ["alloc", "realloc", "free", "reset", "checkpoint", "restore"];
const TARGETS: readonly Target[] = ["64", "wasm32"];
const STAT_FIELDS = ["requested", "used", "padding", "metadata", "leaked", "copied", "unused", "chunks", "utilisation"] as const;

class Invalid extends Error {}

type Obj = Record<string, unknown>;

function isObj(v: unknown): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function bad(path: string, what: string): never {
  throw new Invalid(`${path} ${what}`);
}

function obj(v: unknown, path: string): Obj {
  if (!isObj(v)) bad(path, "must be an object");
  return v;
}

function arr(v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) bad(path, "must be a list");
  return v;
}

function str(o: Obj, key: string, path: string): string {
  const v = o[key];
  if (typeof v !== "string") bad(`${path}.${key}`, "must be text");
  return v;
}

function num(o: Obj, key: string, path: string, optional = false): void {
  const v = o[key];
  if (v === undefined && optional) return;
  if (typeof v !== "number" || !Number.isFinite(v)) bad(`${path}.${key}`, "must be a number");
}

function nat(o: Obj, key: string, path: string, optional = false): number | undefined {
  const v = o[key];
  if (v === undefined && optional) return undefined;
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v < 0) bad(`${path}.${key}`, "must be a whole number ≥ 0");
  return v;
}

/** The program language's names (crates/core/src/program.rs): ASCII letters, digits and _. */
const BLOCK_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

function checkTrace(value: unknown): Trace {
  const t = obj(value, "the file");
  if (t["version"] !== TRACE_VERSION) {
    const v = typeof t["version"] === "number" ? `version ${t["version"]}` : "no version";
    bad("the trace", `has ${v}; this Bump Lab reads trace format version ${TRACE_VERSION}`);
  }
  str(t, "allocator", "trace");
  // Names a program could not make are refused, so an imported file never
  // shows as if Bump Lab had traced it.
  if (!PRESET_NAME.test(String(t["allocator"]))) bad("trace.allocator", "must be a preset name (lower-case letters, digits, - and _)");
  if (!TARGETS.includes(t["target"] as Target)) bad("trace.target", 'must be "64" or "wasm32"');
  if (t["direction"] !== "up" && t["direction"] !== "down") bad("trace.direction", 'must be "up" or "down"');
  str(t, "source", "trace");
  str(t, "source_path", "trace");

  const chunkIds = new Set<number>();
  arr(t["chunks"], "trace.chunks").forEach((c, i) => {
    const p = `trace.chunks[${i}]`;
    const chunk = obj(c, p);
    const id = nat(chunk, "id", p) ?? 0;
    for (const k of ["start", "capacity", "header", "footer"]) nat(chunk, k, p);
    for (const k of ["base", "size", "requested", "created_by", "freed_by"]) nat(chunk, k, p, true);
    if (chunk["reason"] !== undefined && typeof chunk["reason"] !== "string") bad(`${p}.reason`, "must be text");
    if (chunkIds.has(id)) bad(`${p}.id`, `repeats chunk ${id}`);
    chunkIds.add(id);
  });

  const ops = arr(t["ops"], "trace.ops");
  ops.forEach((o, i) => {
    const p = `trace.ops[${i}]`;
    const op = obj(o, p);
    if (op["index"] !== i) bad(`${p}.index`, `must be ${i} (ops are listed in order)`);
    if (!OP_KINDS.includes(op["kind"] as OpKind)) bad(`${p}.kind`, `must be one of ${OP_KINDS.join(", ")}`);
    if (op["block"] !== undefined && (typeof op["block"] !== "string" || !BLOCK_NAME.test(op["block"]))) {
      bad(`${p}.block`, "must be a block or checkpoint name (letters, digits and _, not starting with a digit)");
    }
    nat(op, "line", p);
    nat(op, "column", p);
    for (const k of ["offset", "address", "size", "align", "padding", "bump_ptr"]) nat(op, k, p, true);
    const chunk = nat(op, "chunk", p, true);
    if (chunk !== undefined && !chunkIds.has(chunk)) bad(`${p}.chunk`, `names chunk ${chunk}, which the trace does not list`);
    if (typeof op["failed"] !== "boolean") bad(`${p}.failed`, "must be true or false");
    if (op["moved"] !== undefined && typeof op["moved"] !== "boolean") bad(`${p}.moved`, "must be true or false");
    const target = nat(op, "target_op", p, true);
    if (target !== undefined && target >= i) bad(`${p}.target_op`, "must name an earlier op");
    if (op["reclaimed"] !== undefined) {
      arr(op["reclaimed"], `${p}.reclaimed`).forEach((r, j) => {
        if (typeof r !== "number" || !Number.isSafeInteger(r) || r < 0 || r >= i) bad(`${p}.reclaimed[${j}]`, "must name an earlier op");
      });
    }
    arr(op["events"], `${p}.events`).forEach((e, j) => {
      const ep = `${p}.events[${j}]`;
      const ev = obj(e, ep);
      str(ev, "kind", ep);
      str(ev, "text", ep);
      if (ev["steps"] !== undefined) {
        arr(ev["steps"], `${ep}.steps`).forEach((s, k) => {
          const sp = `${ep}.steps[${k}]`;
          const step = obj(s, sp);
          str(step, "id", sp);
          str(step, "label", sp);
          nat(step, "line", sp);
          if (step["file"] !== undefined && typeof step["file"] !== "string") bad(`${sp}.file`, "must be text");
          arr(step["values"], `${sp}.values`).forEach((v, n) => {
            const vp = `${sp}.values[${n}]`;
            const value = obj(v, vp);
            str(value, "name", vp);
            num(value, "value", vp);
          });
        });
      }
    });
    const stats = obj(op["stats"], `${p}.stats`);
    for (const k of STAT_FIELDS) num(stats, k, `${p}.stats`);
    if (op["cost"] !== undefined) {
      const cost = obj(op["cost"], `${p}.cost`);
      for (const k of ["wasm_instructions", "wasm_branches", "slow_instructions", "slow_branches"]) nat(cost, k, `${p}.cost`);
    }
  });
  // `real` and `baseline` only annotate the cost chart: a malformed one is
  // dropped rather than refusing the whole file.
  const trace = t as unknown as Trace;
  if (t["real"] !== undefined && !isRealRun(t["real"], ops.length)) delete trace.real;
  if (t["baseline"] !== undefined && !isBaseline(t["baseline"], ops.length)) delete trace.baseline;
  return trace;
}

function isCost(v: unknown): boolean {
  return (
    v === undefined ||
    (isObj(v) && ["wasm_instructions", "wasm_branches", "slow_instructions", "slow_branches"].every((k) => typeof v[k] === "number"))
  );
}

function isRealRun(v: unknown, ops: number): boolean {
  if (!isObj(v) || typeof v["crate"] !== "string") return false;
  if (typeof v["unavailable"] === "string") return true;
  return Array.isArray(v["ops"]) && v["ops"].length === ops && v["ops"].every((o) => isObj(o) && isCost(o["cost"])) &&
    (v["mismatches"] === undefined || (Array.isArray(v["mismatches"]) && v["mismatches"].every((m) => isObj(m) && typeof m["op"] === "number" && typeof m["field"] === "string")));
}

function isBaseline(v: unknown, ops: number): boolean {
  return isObj(v) && typeof v["allocator"] === "string" && Array.isArray(v["ops"]) && v["ops"].length === ops && v["ops"].every((o) => isObj(o) && isCost(o["cost"]));
}

/** Checks a parsed value against the trace format (docs/trace-format.md). */
export function validateTrace(value: unknown): TraceCheck {
  try {
    return { ok: true, trace: checkTrace(value) };
  } catch (error) {
    if (error instanceof Invalid) return { ok: false, error: `Not a Bump Lab trace: ${error.message}.` };
    return { ok: false, error: `Not a Bump Lab trace: ${error instanceof Error ? error.message : String(error)}.` };
  }
}

/** Parses and checks the text of a trace file. Never throws. */
export function parseTraceFile(text: string): TraceCheck {
  if (text.length > MAX_TRACE_FILE_BYTES) return { ok: false, error: `The file is larger than ${MAX_TRACE_FILE_BYTES / 1024 / 1024} MiB.` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `The file is not JSON (${detail}).` };
  }
  return validateTrace(value);
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
 * 128 MB on one line and twice that indented.
 */
export function traceJson(trace: Trace): string {
  return `${JSON.stringify(trace)}\n`;
}

/** The JSON path's cap (the core's MAX_FULL_TRACE_OPS): a longer run's JSON would be gigabytes. */
export const EXPORT_MAX_OPS = 100_000;

/** The JSON trace to export for a view, or why there is none. */
export function exportableTrace(
  view: TraceView,
  handlers: { onExportTrace?(trace: TraceView): Trace | string | Promise<Trace | string> },
): Trace | string | Promise<Trace | string> {
  if (view.json) return view.json;
  if (view.length > EXPORT_MAX_OPS) {
    return `Export is capped at ${EXPORT_MAX_OPS.toLocaleString("en")} ops (the JSON trace's limit): this program ran ${view.length.toLocaleString("en")}.`;
  }
  return handlers.onExportTrace?.(view) ?? "This trace cannot be exported.";
}

// ---- File names --------------------------------------------------------------

/** "bumplab-bumpalo-op-3.svg": the preset and the step, safe on every file system. */
export function exportFileName(what: string, allocator: string, step: number | null, extension: string): string {
  const safe = (s: string): string => s.replace(/[^a-z0-9-]+/gi, "-").replace(/^-+|-+$/g, "").toLowerCase() || "x";
  const parts = ["bumplab", safe(allocator), safe(what)];
  if (step !== null) parts.push(`op-${step}`);
  return `${parts.join("-")}.${extension}`;
}

// ---- SVG ---------------------------------------------------------------------

/**
 * Presentation properties a figure's look depends on. Computed values are
 * copied into each element's style attribute so the file no longer needs the
 * page's stylesheet (its custom properties are resolved by then).
 */
export const INLINED_PROPERTIES = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "stroke-linecap",
  "stroke-linejoin",
  "opacity",
  "visibility",
  "display",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "font-variant-numeric",
  "letter-spacing",
  "text-anchor",
  "dominant-baseline",
  "paint-order",
  "shape-rendering",
] as const;

/** A style attribute from computed values; values equal to the inherited ones are left out to keep files small. */
export function inlineStyle(own: (p: string) => string, inherited: ((p: string) => string) | null): string {
  const parts: string[] = [];
  for (const p of INLINED_PROPERTIES) {
    const v = own(p);
    if (v === "" || NOT_INHERITED_DEFAULTS[p] === v) continue;
    if (inherited && inherited(p) === v && INHERITED.has(p)) continue;
    parts.push(`${p}: ${v}`);
  }
  return parts.join("; ");
}

/** Initial values of the properties that do not inherit: not worth writing. */
const NOT_INHERITED_DEFAULTS: Readonly<Record<string, string>> = { display: "inline", opacity: "1" };

/** Inherited CSS properties (the rest must be written on every element that has them): all but those two. */
const INHERITED = new Set<string>(INLINED_PROPERTIES.filter((p) => !(p in NOT_INHERITED_DEFAULTS)));

const SVG_NS = "http://www.w3.org/2000/svg";

export interface SvgExportOptions {
  /** The file's <title>. */
  title: string;
  /** Painted behind the figure (the page's surface colour), so dark-theme text stays readable. */
  background: string | null;
}

/**
 * A standalone copy of a figure on the page: computed styles inlined, the
 * fading-out elements of a transition left out, a background and a title.
 */
export function standaloneSvg(svg: SVGSVGElement, options: SvgExportOptions): SVGSVGElement {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const view = svg.ownerDocument.defaultView;
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [clone, ...clone.querySelectorAll("*")];
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy || !view) return;
    const own = view.getComputedStyle(el);
    const parent = el === svg || !el.parentElement ? null : view.getComputedStyle(el.parentElement);
    const style = inlineStyle((p) => own.getPropertyValue(p), parent ? (p) => parent.getPropertyValue(p) : null);
    if (style) copy.setAttribute("style", style);
    else copy.removeAttribute("style");
  });
  for (const gone of clone.querySelectorAll(".block-exit")) gone.remove();
  clone.setAttribute("xmlns", SVG_NS);
  clone.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
  const width = svg.getAttribute("width") ?? String(svg.clientWidth);
  const height = svg.getAttribute("height") ?? String(svg.clientHeight);
  clone.setAttribute("width", width);
  clone.setAttribute("height", height);
  if (!clone.getAttribute("viewBox")) clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
  const doc = svg.ownerDocument;
  const title = doc.createElementNS(SVG_NS, "title");
  title.textContent = options.title;
  clone.insertBefore(title, clone.firstChild);
  if (options.background) {
    const bg = doc.createElementNS(SVG_NS, "rect");
    bg.setAttribute("width", "100%");
    bg.setAttribute("height", "100%");
    bg.setAttribute("fill", options.background);
    bg.setAttribute("class", "export-background");
    title.after(bg);
  }
  return clone;
}

/** The file's text: an XML declaration and the serialised element. */
export function svgFileText(svg: SVGSVGElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}\n`;
}

/** Pixel size of a PNG export: `scale`× the figure, whole pixels, at least 1. */
export function pngSize(width: number, height: number, scale = 2): { width: number; height: number } {
  const px = (n: number): number => Math.max(1, Math.round((Number.isFinite(n) ? n : 0) * scale));
  return { width: px(width), height: px(height) };
}

/** Renders SVG text into a PNG through a canvas (the browser rasterises it, fonts and all). */
export async function svgToPng(svgText: string, width: number, height: number, scale = 2): Promise<Blob> {
  // A data: URL, not an object URL: nothing to revoke, and the page makes no
  // request for it (a blob: URL is fetched like any other resource).
  const url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
  const image = new Image();
  image.decoding = "async";
  image.src = url;
  await image.decode();
  const size = pngSize(width, height, scale);
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("this browser gives no 2D canvas");
  ctx.drawImage(image, 0, 0, size.width, size.height);
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the canvas gave no PNG"))), "image/png"),
  );
}

/** Saves a blob as a file through a temporary link. */
export function download(blob: Blob, fileName: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = fileName;
  a.rel = "noopener";
  a.style.display = "none";
  document.body.append(a);
  a.click();
  a.remove();
  // Revoked after the click has been handled: some browsers read the URL late.
  window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
