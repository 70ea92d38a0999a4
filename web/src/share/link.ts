// Share links: the app's state in the URL hash, versioned so a link made
// today still opens years from now (tests/share-corpus/v1.json pins that).
//
// Format v1, short form (readable, hand-editable):
//   v1?a=bumpalo&t=64&c=256&m=8&s=3&u=1&x=hinckley-up:64:-:-,fitzgen-down:64:-:-&v=map,code&l=intro&p=a+=+alloc+1%0Ab+=+alloc+u64&end
// keys: a allocator, t target, c capacity, m minimum alignment, h child
// allocator, s step, u micro-step within the step's op (absent: the op's
// end), x compare columns (allocator:target:minAlign:capacity[:child], "-"
// for the default), v views, l lesson, w sweep (param:value,value,…, and for a
// random mix sweep :ops/minSize/maxSize/minAlign/maxAlign/seed), p program.
// A preset that takes a child allocator always has its child written (h, or
// a column's fifth field): a link without one was made before the setting
// existed, and opens with the child the preset ran over then (CHILD_BEFORE).
// Values are percent-encoded, "+" is a space. Only a and p are required; unknown keys are ignored so later v1
// writers can add optional keys. The trailing "&end" tells a whole link from
// one cut short by a chat client or a line break.
//
// Long form: "v1z" + base64url(deflate-raw(the short form's query)). The
// same parser reads both, so the two forms can never disagree.

import type { RunConfig } from "../wasm/config";
import type { Target } from "../wasm/types";
import type { CompareConfig } from "../model/compare";
import { normalizeNewlines } from "../model/format";
import { isSweepParam, MAX_CAPACITY, MAX_COMPARE, MAX_MIN_ALIGN, MAX_SWEEP_POINTS, MIN_COMPARE, type SweepParam } from "../model/limits";
import { validateRandomMix, type RandomMixInput } from "../model/randomMixOptions";
import type { SweepSetup } from "../model/sweep";

/** What a link carries: a run's configuration and what is shown of it. */
export interface SharedState extends RunConfig {
  step: number;
  /** The micro-step in view within op `step` (an index into its steps); absent or null: the op's end. */
  micro?: number | null;
  compare: CompareConfig[] | null;
  views?: string[];
  lesson?: string | null;
  /** The sweep view's parameter and values; absent or null: no sweep. */
  sweep?: SweepSetup | null;
}

export type DecodeResult = { ok: true; state: SharedState } | { ok: false; error: string };

export const SHARE_VERSION = 1;
/** Links whose short form is longer than this are compressed (when that is shorter). */
export const COMPRESS_FROM = 800;
export const MAX_SOURCE_CHARS = 100_000;
/** The longest link text decoded at all, and the most a compressed one may inflate to. */
export const MAX_LINK_CHARS = 400_000;
export const MAX_INFLATED_BYTES = 1 << 20;
export const MAX_STEP = 10_000_000;
/** More micro-steps than any op records; the app drops one its op does not have. */
export const MAX_MICRO = 1_000;
/** The engine takes capacities up to 1 GiB (it checks the finer rules itself). */
export { MAX_CAPACITY, MAX_MIN_ALIGN };
export const MAX_VIEWS = 8;

/** A preset (allocator) name as links and trace files may carry it. */
export const NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/;
const VIEW = /^[a-z][a-z0-9-]{0,31}$/;
/** A child allocator's value as links carry it. */
const CHILD = /^[a-z][a-z0-9-]{0,31}$/;

/**
 * The presets that take a child allocator: the one they run over by
 * default, and the one a link made before the setting existed meant (zig-arena
 * ran over a simulated heap that never resizes in place until page_allocator
 * became its default).
 */
export const CHILD_PRESETS: Readonly<Record<string, { default: string; before: string }>> = {
  "zig-arena": { default: "page", before: "heap" },
};

/** The child a link writes for `allocator`: its own, else the default (none for a preset without the setting). */
function childToWrite(allocator: string, child: string | null | undefined): string | null {
  const preset = CHILD_PRESETS[allocator];
  return preset ? (child ?? preset.default) : (child ?? null);
}
const TARGETS: readonly Target[] = ["64", "wasm32"];
const END = "end";

// ---- Encoding -------------------------------------------------------------

/** Percent-encoding that leaves the characters a fragment allows unescaped where it keeps the link readable. */
function encodeValue(value: string): string {
  // A lone surrogate (half an emoji pasted into the editor) cannot be
  // percent-encoded: it becomes U+FFFD, as a text file would store it.
  const wellFormed = value.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  return encodeURIComponent(wellFormed)
    .replaceAll("%20", "+")
    .replace(/%(3D|3A|2C|3B|2F|40|5B|5D)/g, (_, code: string) => String.fromCharCode(parseInt(code, 16)));
}

function orDash(n: number | null): string {
  return n === null ? "-" : String(n);
}

/** The short form's query (after "v1?"), keys in a fixed order so equal states give equal links. */
export function shareQuery(s: SharedState): string {
  const parts: string[] = [`a=${encodeValue(s.allocator)}`, `t=${s.target}`];
  if (s.capacity !== null) parts.push(`c=${s.capacity}`);
  if (s.minAlign !== null) parts.push(`m=${s.minAlign}`);
  const child = childToWrite(s.allocator, s.child);
  if (child !== null) parts.push(`h=${encodeValue(child)}`);
  parts.push(`s=${s.step}`);
  if (s.micro !== undefined && s.micro !== null) parts.push(`u=${s.micro}`);
  if (s.compare !== null) {
    const cols = s.compare.map((c) => {
      const fields = [c.allocator, c.target, orDash(c.minAlign), orDash(c.capacity)];
      const child = childToWrite(c.allocator, c.child);
      if (child !== null) fields.push(child);
      return fields.join(":");
    });
    parts.push(`x=${cols.map(encodeValue).join(",")}`);
  }
  if (s.views !== undefined) parts.push(`v=${s.views.map(encodeValue).join(",")}`);
  if (s.lesson !== undefined && s.lesson !== null) parts.push(`l=${encodeValue(s.lesson)}`);
  if (s.sweep !== undefined && s.sweep !== null) parts.push(`w=${sweepText(s.sweep)}`);
  // The program last: it is the long part, and what a reader edits by hand.
  parts.push(`p=${encodeValue(s.source)}`, END);
  return parts.join("&");
}

const GENERATOR_FIELDS = ["ops", "minSize", "maxSize", "minAlign", "maxAlign", "seed"] as const;

/** "minAlign:1,2,4,8,16", or "generatorSize:1-8,1-64:40/1/64/1/16/1" with the random mix's settings. */
function sweepText(sweep: SweepSetup): string {
  const fields = [sweep.param, sweep.values.map(encodeValue).join(",")];
  if (sweep.generator) fields.push(GENERATOR_FIELDS.map((f) => String(sweep.generator?.[f] ?? 0)).join("/"));
  return fields.join(":");
}

export function base64url(bytes: Uint8Array): string {
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text) || text.length % 4 === 1) return null;
  const padded = text.replaceAll("-", "+").replaceAll("_", "/") + "=".repeat((4 - (text.length % 4)) % 4);
  try {
    return Uint8Array.from(atob(padded), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

async function deflate(text: string): Promise<Uint8Array> {
  const stream = new Blob([new TextEncoder().encode(text)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Inflates at most `limit` bytes: a hostile link cannot make the page allocate more. */
async function inflate(bytes: Uint8Array, limit: number): Promise<{ ok: true; text: string } | { ok: false; error: string }> {
  const stream = new Blob([bytes as Uint8Array<ArrayBuffer>]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, error: `the link's compressed data inflates to more than ${limit} bytes` };
      }
      chunks.push(value);
    }
  } catch {
    return { ok: false, error: "the link is truncated or damaged: its compressed data does not decode (was it copied whole?)" };
  }
  const all = await new Blob(chunks as Uint8Array<ArrayBuffer>[]).arrayBuffer();
  try {
    return { ok: true, text: new TextDecoder("utf-8", { fatal: true }).decode(all) };
  } catch {
    return { ok: false, error: "the link's compressed data is not UTF-8 text" };
  }
}

/** "v1…" for the URL hash (without '#'): short and readable, or compressed when long. */
export async function encodeShare(s: SharedState): Promise<string> {
  // The decoder refuses longer programs: a link must survive address bars
  // and chat clients, and a recording of a real program is megabytes.
  if (s.source.length > MAX_SOURCE_CHARS) {
    throw new Error(
      `this program is ${s.source.length.toLocaleString("en-US")} characters, too long for a link (a link carries up to ${MAX_SOURCE_CHARS.toLocaleString("en-US")}): share its file instead`,
    );
  }
  const query = shareQuery(s);
  const short = `v${SHARE_VERSION}?${query}`;
  if (short.length <= COMPRESS_FROM) return short;
  const packed = `v${SHARE_VERSION}z${base64url(await deflate(query))}`;
  return packed.length < short.length ? packed : short;
}

// ---- Decoding -------------------------------------------------------------

class LinkError extends Error {}

function fail(message: string): never {
  throw new LinkError(message);
}

function decodeValue(key: string, raw: string): string {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "));
  } catch {
    return fail(`the value of "${key}" has a broken percent-escape`);
  }
}

function integer(key: string, text: string, min: number, max: number): number {
  if (!/^\d{1,12}$/.test(text)) fail(`"${key}" must be a whole number, not "${clip(text)}"`);
  const n = Number(text);
  if (n < min || n > max) fail(`"${key}" must be from ${min} to ${max}, not ${n}`);
  return n;
}

function optionalInteger(key: string, text: string, min: number, max: number): number | null {
  return text === "-" ? null : integer(key, text, min, max);
}

function minAlign(key: string, text: string): number | null {
  const n = optionalInteger(key, text, 1, MAX_MIN_ALIGN);
  if (n !== null && (n & (n - 1)) !== 0) fail(`"${key}" must be a power of two, not ${n}`);
  return n;
}

function name(key: string, text: string): string {
  if (!NAME.test(text)) fail(`"${key}" must be a preset name (lower-case letters, digits, "-"), not "${clip(text)}"`);
  return text;
}

function target(key: string, text: string): Target {
  const t = TARGETS.find((x) => x === text);
  if (t === undefined) fail(`"${key}" must be 64 or wasm32, not "${clip(text)}"`);
  return t;
}

function clip(text: string): string {
  return text.length > 24 ? `${text.slice(0, 24)}…` : text;
}

function compareColumns(raw: string): CompareConfig[] {
  const cols = raw.split(",");
  if (cols.length < MIN_COMPARE || cols.length > MAX_COMPARE) {
    fail(`"x" (compare) must list ${MIN_COMPARE} to ${MAX_COMPARE} columns, not ${cols.length}`);
  }
  return cols.map((col, i) => {
    const fields = decodeValue("x", col).split(":");
    if (fields.length !== 4 && fields.length !== 5) fail(`compare column ${i + 1} must be allocator:target:minAlign:capacity[:child]`);
    const [a = "", t = "", m = "", c = "", h] = fields;
    const column: CompareConfig = {
      allocator: name(`x[${i + 1}] allocator`, a),
      target: target(`x[${i + 1}] target`, t),
      minAlign: minAlign(`x[${i + 1}] minAlign`, m),
      capacity: optionalInteger(`x[${i + 1}] capacity`, c, 1, MAX_CAPACITY),
    };
    const chosen = childRead(`x[${i + 1}] child`, column.allocator, h);
    if (chosen !== null) column.child = chosen;
    return column;
  });
}

/** The child a link says `allocator` runs over: the one written, else what a link without one meant. */
function childRead(key: string, allocator: string, text: string | undefined): string | null {
  if (text === undefined) return CHILD_PRESETS[allocator]?.before ?? null;
  if (!CHILD.test(text)) fail(`"${key}" must be a child allocator's name (lower-case letters, digits, "-"), not "${clip(text)}"`);
  return text;
}

/** Compare columns written as in a link ("hinckley-up:64:-:-,fitzgen-down:64:-:-"), or why not. */
export function parseCompare(text: string): { ok: true; compare: CompareConfig[] } | { ok: false; error: string } {
  try {
    return { ok: true, compare: compareColumns(text) };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

function viewList(raw: string): string[] {
  if (raw === "") return [];
  const views = raw.split(",").map((v) => decodeValue("v", v));
  if (views.length > MAX_VIEWS) fail(`"v" (views) lists at most ${MAX_VIEWS} views, not ${views.length}`);
  for (const v of views) if (!VIEW.test(v)) fail(`"v" (views) has a name that is not a view: "${clip(v)}"`);
  if (new Set(views).size !== views.length) fail(`"v" (views) names a view twice`);
  return views;
}

/** What a value of each swept parameter looks like (whether the app can run it is the app's to say). */
const SWEEP_VALUE: Record<SweepParam, RegExp> = {
  minAlign: /^\d{1,4}$/,
  capacity: /^\d{1,10}$/,
  target: /^(64|wasm32)$/,
  preset: NAME,
  generatorSize: /^\d{1,5}-\d{1,5}$/,
  generatorAlign: /^\d{1,4}-\d{1,4}$/,
};

function sweepSetup(raw: string): SweepSetup {
  const fields = raw.split(":");
  if (fields.length < 2 || fields.length > 3) fail('"w" (sweep) must be param:value,value,…');
  const [p = "", list = "", mix] = fields;
  const param = decodeValue("w", p);
  if (!isSweepParam(param)) fail(`"w" (sweep) names no parameter a sweep varies: "${clip(param)}"`);
  const values = list.split(",").map((v) => decodeValue("w", v));
  if (values.length > MAX_SWEEP_POINTS) fail(`"w" (sweep) lists at most ${MAX_SWEEP_POINTS} values, not ${values.length}`);
  for (const v of values) if (!SWEEP_VALUE[param].test(v)) fail(`"w" (sweep) has a value that is not a ${param} value: "${clip(v)}"`);
  const largest = param === "capacity" ? MAX_CAPACITY : param === "minAlign" ? MAX_MIN_ALIGN : null;
  for (const v of values) if (largest !== null && Number(v) > largest) fail(`"w" (sweep) has a ${param} past the largest, ${largest}: ${v}`);
  const setup: SweepSetup = { param, values };
  if (mix !== undefined) {
    const numbers = mix.split("/");
    if (numbers.length !== GENERATOR_FIELDS.length) fail('"w" (sweep) random mix must be ops/minSize/maxSize/minAlign/maxAlign/seed');
    // The random mix form's own checks: a link cannot ask for a mix the form would refuse.
    const input = Object.fromEntries(GENERATOR_FIELDS.map((f, i) => [f, numbers[i] ?? ""])) as RandomMixInput;
    const checked = validateRandomMix(input);
    if (!checked.ok) fail(`"w" (sweep) random mix: ${checked.errors.map((e) => e.message).join("; ")}`);
    setup.generator = checked.options;
  }
  return setup;
}

/** Parses the short form's query (after "v1?" or inflated from "v1z"). */
function parseQuery(query: string): SharedState {
  const parts = query.split("&");
  if (parts[parts.length - 1] !== END) {
    fail('the link is truncated: a whole link ends with "&end" (was it copied whole?)');
  }
  const fields = new Map<string, string>();
  for (const part of parts.slice(0, -1)) {
    const eq = part.indexOf("=");
    if (eq <= 0) fail(`"${clip(part)}" is not a key=value pair`);
    const key = part.slice(0, eq);
    if (fields.has(key)) fail(`"${clip(key)}" appears twice`);
    fields.set(key, part.slice(eq + 1));
  }

  const a = fields.get("a");
  if (a === undefined) fail('the link names no allocator ("a")');
  const p = fields.get("p");
  if (p === undefined) fail('the link has no program ("p")');
  // Line endings as a text box keeps them: a hand-made "%0D" reads as a line break, as the engine reads it.
  const source = normalizeNewlines(decodeValue("p", p));
  if (source.length > MAX_SOURCE_CHARS) fail(`the program is longer than ${MAX_SOURCE_CHARS} characters`);

  const c = fields.get("c");
  const m = fields.get("m");
  const s = fields.get("s");
  const u = fields.get("u");
  const x = fields.get("x");
  const v = fields.get("v");
  const l = fields.get("l");
  const w = fields.get("w");
  const hChild = fields.get("h");
  const state: SharedState = {
    source,
    allocator: name("a", decodeValue("a", a)),
    target: target("t", decodeValue("t", fields.get("t") ?? "64")),
    capacity: c === undefined ? null : integer("c", c, 1, MAX_CAPACITY),
    minAlign: m === undefined ? null : minAlign("m", m),
    step: s === undefined ? 0 : integer("s", s, 0, MAX_STEP),
    compare: x === undefined ? null : compareColumns(x),
  };
  const child = childRead("h", state.allocator, hChild === undefined ? undefined : decodeValue("h", hChild));
  if (child !== null) state.child = child;
  if (u !== undefined) state.micro = integer("u", u, 0, MAX_MICRO);
  if (v !== undefined) state.views = viewList(v);
  if (l !== undefined) state.lesson = name("l", decodeValue("l", l));
  if (w !== undefined) state.sweep = sweepSetup(w);
  return state;
}

/**
 * The text with each HTML-escaped "&" ("&amp;", escaped once or more) put
 * back to "&". Links reach us copied out of a page's source, or through site
 * generators that escape an attribute value a second time (the iframe then
 * receives "&amp;" literally). A link as written never holds "&amp;" itself:
 * an "&" inside a value is "%26", and no key is named "amp;…", so this
 * cannot change what a whole link says, nor make a cut one look whole.
 */
export function unescapeAmpersands(text: string): string {
  return text.replace(/&(?:amp;)+/g, "&");
}

/** An embed URL's parameters (its query, before the "#"), read the same whether its "&"s arrive plain or HTML-escaped. */
export function queryParams(search: string): URLSearchParams {
  return new URLSearchParams(unescapeAmpersands(search));
}

/**
 * Reads a share link: the hash text with or without its '#', or a whole URL.
 * "&amp;" reads as "&" (see unescapeAmpersands).
 * Never throws: every problem comes back as a sentence for the reader.
 */
export async function decodeShare(text: string): Promise<DecodeResult> {
  try {
    if (typeof text !== "string") fail("a share link is text");
    let body = text.trim();
    const hash = body.indexOf("#");
    if (hash >= 0) body = body.slice(hash + 1);
    body = unescapeAmpersands(body);
    if (body === "") fail("the link is empty");
    if (body.length > MAX_LINK_CHARS) fail(`the link is longer than ${MAX_LINK_CHARS} characters`);
    const version = /^v(\d{1,6})(?=[?z]|$)/.exec(body);
    if (!version && /^[?&]?[a-z]\w*=/i.test(body)) {
      fail('the link has lost its version: it should start with "v1?", as in "#v1?a=bumpalo&…&end" (add "v1?" after the "#" to open it)');
    }
    if (!version) fail('this is not a Bump Lab share link (it should start with "v1")');
    const n = Number(version[1]);
    if (n > SHARE_VERSION) {
      fail(`this link was made by a newer Bump Lab (v${n}); this one reads v${SHARE_VERSION} links: open it in the latest Bump Lab`);
    }
    if (n !== SHARE_VERSION) fail(`v${n} is not a Bump Lab link version (this one reads v${SHARE_VERSION})`);
    const rest = body.slice(version[0].length);
    if (rest.startsWith("?")) return { ok: true, state: parseQuery(rest.slice(1)) };
    if (rest.startsWith("z")) {
      const bytes = fromBase64url(rest.slice(1));
      if (bytes === null || bytes.length === 0) fail("the link is truncated or damaged: its compressed part is not base64url");
      const inflated = await inflate(bytes, MAX_INFLATED_BYTES);
      if (!inflated.ok) fail(inflated.error);
      return { ok: true, state: parseQuery(inflated.text) };
    }
    return fail('the link is truncated: "v1" must be followed by "?" or "z"');
  } catch (error) {
    // Anything else is a bug here, but a link from a stranger must still not break the page.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, error: `Cannot open this link: ${message}.` };
  }
}
