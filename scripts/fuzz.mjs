// Fuzzes what a user feeds Bump Lab, outside `npm test`: the program parser
// and engine (the page's own trace module, the wasm build the app and the
// CLI run), the share-link decoder and the trace-file importer (the page's
// TypeScript, bundled for Node with rolldown), on inputs from a seeded
// generator: real programs, links and traces mutated with the tokens that
// have broken readers before (numbers past 32 and 53 bits, lone CRs, long
// tokens, broken escapes, truncations), and programs written from the
// language's grammar.
//
//   npm run fuzz                               10,000,000 inputs, seed 1
//   node scripts/fuzz.mjs --inputs 100000 --seed 7 --only parser,link,trace
//
// What each input must do (anything else is a failure, saved with its input
// under target/fuzz/failures/ and the run exits 1):
// - parser: never trap; an error names a line of the text (1 to its line
//   count + 1) and a column from 1, in a message of at most 400 characters,
//   its list of further errors in line order and at most 99 long; a program
//   of up to 2,000 ops runs to its end without a trap; LF, CRLF and CR
//   line endings give the same error or the same op count. A third of the
//   programs are written to parse and run (blocks freed only once
//   allocated), so the engine runs as many as the parser refuses.
// - link: decodeShare never throws; an error is one sentence of at most 600
//   characters starting "Cannot open this link: "; a decoded state is within
//   every range a link carries, its program has no CR, and it encodes to a
//   link that decodes to the same state.
// - trace: parseTraceFile never throws; an error is at most 600
//   characters; an accepted file's capacity and minimum alignment are within
//   what a link carries and its program has no CR.
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { log, root } from "./lib.mjs";

function option(name, fallback) {
  const i = process.argv.indexOf(name);
  if (i < 0) return fallback;
  const v = process.argv[i + 1];
  if (v === undefined || v.startsWith("--")) {
    console.error(`[bump-lab] ${name} needs a value`);
    process.exit(2);
  }
  return v;
}
const TOTAL = Number(option("--inputs", "10000000"));
const SEED = Number(option("--seed", "1")) >>> 0;
const ONLY = option("--only", "parser,link,trace").split(",");
// Each target's share of the inputs.
const SHARE = { parser: 0.4, link: 0.35, trace: 0.25 };
if (!Number.isSafeInteger(TOTAL) || TOTAL < 1) {
  console.error("[bump-lab] --inputs takes a whole number from 1");
  process.exit(2);
}

const out = join(root, "target", "fuzz");
const failuresDir = join(out, "failures");
rmSync(failuresDir, { recursive: true, force: true });
mkdirSync(failuresDir, { recursive: true });

// ---- The page's readers, bundled from TypeScript --------------------------------

const entry = join(out, "entry.ts");
writeFileSync(
  entry,
  `export { decodeShare, encodeShare, MAX_CAPACITY, MAX_MIN_ALIGN, MAX_SOURCE_CHARS, MAX_STEP } from "${join(root, "web/src/share/link.ts")}";
export { parseTraceFile } from "${join(root, "web/src/share/traceFile.ts")}";
export { LESSONS } from "${join(root, "web/src/model/lessons.ts")}";
export { DEFAULT_PROGRAM } from "${join(root, "web/src/model/defaults.ts")}";
`,
);
const { rolldown } = await import("rolldown");
const bundle = await rolldown({ input: entry, platform: "node", logLevel: "silent" });
const bundled = join(out, "readers.mjs");
await bundle.write({ file: bundled, format: "esm" });
await bundle.close();
const readers = await import(pathToFileURL(bundled).href);

// ---- The engine: the app's and the CLI's trace module ---------------------------

const tracePkg = join(root, "web", "pkg-trace-fast");
const traceWasm = readFileSync(join(tracePkg, "trace_bg.wasm"));
let engine;
let instances = 0;
/**
 * A fresh instance of the module: after a trap the old one's memory is in
 * an unknown state, and wasm-bindgen's glue instantiates once per import,
 * so the glue is imported again under a new URL.
 */
async function loadEngine() {
  instances += 1;
  engine = await import(`${pathToFileURL(join(tracePkg, "trace.js")).href}?instance=${instances}`);
  engine.initSync({ module: traceWasm });
}
try {
  await loadEngine();
} catch (e) {
  console.error(`[bump-lab] the trace module is not built (${e.message}): run \`npm run build:wasm\``);
  process.exit(1);
}
const ALLOCATORS = JSON.parse(engine.listAllocators());
const NAMES = ALLOCATORS.map((a) => a.name);

// ---- A seeded generator -----------------------------------------------------------

let state = SEED || 1;
/** xorshift32: fast, repeatable from --seed. */
function next() {
  state ^= state << 13;
  state >>>= 0;
  state ^= state >>> 17;
  state ^= state << 5;
  state >>>= 0;
  return state / 4294967296;
}
const int = (n) => Math.floor(next() * n);
const pick = (xs) => xs[int(xs.length)];
const chance = (p) => next() < p;

// Numbers at the edges readers have got wrong.
const EDGE_NUMBERS = [
  "0", "1", "3", "8", "15", "16", "17", "255", "256", "4095", "4096", "4097", "65536", "1073741824", "1073741840",
  "2147483647", "2147483648", "4294967295", "4294967296", "4294967552", "9007199254740991", "9007199254740993",
  "4503599627370496", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "0x10", "0xffffffffffffffff",
  "0x1_0000_0000", "1_000", "-1", "-0", "1e3", "1e400", "0.5", "NaN", "Infinity", "00008", "0x", "0X7fffffff",
];
const WORDS = [
  "alloc", "realloc", "free", "checkpoint", "restore", "reset", "repeat", "align", "u8", "u16", "u32", "u64", "u128", "usize",
  "a", "b", "x", "_", "[", "]", ";", "{", "}", "=", "#", "#>", "!pause", "?predict", "!try", " ", "\t", "\u00a0", "\ufeff",
  "\u200b", "é", "😀", "\0", "<img src=x>", "\\", "%", "'", '"',
];
const LINE_ENDS = ["\n", "\n", "\n", "\r\n", "\r"];

function longToken() {
  const n = chance(0.001) ? 1_000_000 : 40 + int(4000);
  return pick(["9", "x", "_", "é", "1a"]).repeat(n).slice(0, n);
}

/** A statement from the grammar, right or slightly wrong. */
function statement(names) {
  const name = chance(0.9) ? pick(names) : pick(WORDS);
  const num = () => (chance(0.7) ? String(int(chance(0.5) ? 64 : 100000)) : pick(EDGE_NUMBERS));
  const size = () => (chance(0.6) ? num() : chance(0.5) ? pick(["u8", "u16", "u32", "u64", "u128", "usize"]) : `[${pick(["u8", "u32", "u64", "x"])}; ${num()}]`);
  switch (int(8)) {
    case 0:
    case 1:
    case 2:
      return `${name} = alloc ${size()}${chance(0.4) ? ` align ${chance(0.8) ? 2 ** int(13) : pick(EDGE_NUMBERS)}` : ""}`;
    case 3:
      return `${name} = realloc ${pick(names)} ${num()}`;
    case 4:
      return `free ${pick(names)}`;
    case 5:
      return chance(0.5) ? `checkpoint ${name}` : `restore ${name}`;
    case 6:
      return chance(0.5) ? "reset" : `#> ${pick(WORDS)} **note** \`${name}\``;
    default:
      return `${pick(WORDS)} ${pick(WORDS)} ${num()}`;
  }
}

/** A program that parses and runs: blocks freed and reallocated only once allocated, sizes and alignments in range. */
function cleanProgram() {
  const live = [];
  const lines = [];
  let depth = 0;
  let fresh = 0;
  const n = 1 + int(chance(0.05) ? 400 : 40);
  for (let i = 0; i < n; i++) {
    const indent = "  ".repeat(depth);
    const r = next();
    if (r < 0.06 && depth < 8) {
      lines.push(`${indent}repeat ${int(40)} {`);
      depth++;
    } else if (depth > 0 && r < 0.12) {
      depth--;
      lines.push(`${"  ".repeat(depth)}}`);
    } else if (live.length > 0 && r < 0.25 && depth === 0) {
      lines.push(`${indent}free ${live.splice(int(live.length), 1)[0]}`);
    } else if (live.length > 0 && r < 0.35 && depth === 0) {
      const from = live.splice(int(live.length), 1)[0];
      const to = `r${fresh++}`;
      lines.push(`${indent}${to} = realloc ${from} ${int(chance(0.9) ? 512 : 70000)}`);
      live.push(to);
    } else if (r < 0.38) {
      lines.push(`${indent}${pick(["reset", "checkpoint s", "#> a note"])}`);
      if (lines[lines.length - 1]?.endsWith("reset")) live.length = 0;
    } else {
      const name = `b${fresh++}`;
      const size = chance(0.7) ? String(int(chance(0.9) ? 256 : 100000)) : pick(["u8", "u16", "u32", "u64", "u128", "usize", `[u32; ${int(64)}]`]);
      lines.push(`${indent}${name} = alloc ${size}${chance(0.4) && /^\d/.test(size) ? ` align ${2 ** int(13)}` : ""}`);
      if (depth === 0) live.push(name);
    }
  }
  while (depth > 0) lines.push(`${"  ".repeat(--depth)}}`);
  const end = pick(LINE_ENDS);
  return lines.join(end) + (chance(0.5) ? end : "");
}

/** A program from the grammar with hostile words, numbers and nesting mixed in. */
function grammarProgram() {
  const names = Array.from({ length: 1 + int(6) }, (_, i) => pick(["a", "b", "c", "blk", "x"]) + (i || ""));
  const lines = [];
  let depth = 0;
  const n = 1 + int(chance(0.05) ? 400 : 30);
  for (let i = 0; i < n; i++) {
    const indent = "  ".repeat(depth);
    if (chance(0.08) && depth < 10) {
      lines.push(`${indent}repeat ${chance(0.8) ? int(50) : pick(EDGE_NUMBERS)} {`);
      depth++;
    } else if (depth > 0 && chance(0.15)) {
      depth--;
      lines.push(`${"  ".repeat(depth)}}`);
    } else lines.push(indent + statement(names));
  }
  while (depth > 0 && chance(0.9)) lines.push(`${"  ".repeat(--depth)}}`);
  const end = pick(LINE_ENDS);
  return lines.join(end) + (chance(0.5) ? end : "");
}

/** `text` with a few edits: tokens and numbers inserted, spans deleted, duplicated or cut. */
function mutate(text, tokens) {
  let t = text;
  const edits = 1 + int(4);
  for (let e = 0; e < edits; e++) {
    const at = int(t.length + 1);
    switch (int(7)) {
      case 0:
        t = t.slice(0, at) + pick(tokens) + t.slice(at);
        break;
      case 1:
        t = t.slice(0, at) + pick(EDGE_NUMBERS) + t.slice(at);
        break;
      case 2:
        t = t.slice(0, at) + t.slice(at + 1 + int(8));
        break;
      case 3: {
        const len = int(40);
        t = t.slice(0, at) + t.slice(at, at + len) + t.slice(at);
        break;
      }
      case 4:
        t = t.slice(0, at);
        break;
      case 5:
        t = t.slice(0, at) + String.fromCharCode(int(chance(0.5) ? 128 : 0xffff)) + t.slice(at + 1);
        break;
      default:
        if (chance(0.02)) t = t.slice(0, at) + longToken() + t.slice(at);
    }
  }
  return t;
}

// ---- Failures ------------------------------------------------------------------

const failures = [];
// Failures by what went wrong (numbers left out), each kind's first input saved.
const kinds = new Map();
function failed(target, input, why) {
  failures.push({ target, why });
  const kind = `${target}: ${why.split("\n")[0].replace(/\d+/g, "N").slice(0, 160)}`;
  const known = kinds.get(kind);
  if (known) {
    known.count += 1;
    return;
  }
  const file = join(failuresDir, `${target}-${kinds.size + 1}.txt`);
  writeFileSync(file, `${why}\n---- input (JSON string) ----\n${JSON.stringify(input)}\n`);
  kinds.set(kind, { count: 1, file });
  console.error(`[bump-lab] ${target}: ${why} (input in ${file})`);
}

// Outcomes seen, by the start of their message: how much of each reader the inputs reached.
const outcomes = { parser: new Map(), link: new Map(), trace: new Map() };
const seen = (target, message) => {
  const key = message.replace(/\d+/g, "N").replace(/'[^']*'|"[^"]*"/g, "…").slice(0, 60);
  outcomes[target].set(key, (outcomes[target].get(key) ?? 0) + 1);
};

// ---- Target: the parser and engine ------------------------------------------------

const lineCount = (text) => {
  if (text === "") return 0;
  const ends = text.match(/\r\n|\r|\n/g)?.length ?? 0;
  return /(\r\n|\r|\n)$/.test(text) ? ends : ends + 1;
};

function checkError(e, text, where) {
  const problems = [];
  const lines = lineCount(text) + 1;
  const one = (x) => {
    if (!Number.isInteger(x.line) || x.line < 1 || x.line > Math.max(lines, 1)) problems.push(`${where}: line ${x.line} outside 1..${lines}`);
    if (!Number.isInteger(x.column) || x.column < 1) problems.push(`${where}: column ${x.column}`);
    if (typeof x.message !== "string" || x.message.length === 0 || x.message.length > 400) problems.push(`${where}: a message of ${x.message?.length} characters`);
  };
  one(e);
  const more = e.more ?? [];
  if (more.length > 99) problems.push(`${where}: ${more.length} further errors`);
  let last = e.line;
  for (const m of more) {
    one(m);
    if (m.line <= last) problems.push(`${where}: further errors out of line order (${m.line} after ${last})`);
    last = m.line;
  }
  return problems;
}

/**
 * Runs `text` on an allocator: its error or op count, or throws what the
 * module threw, with the panic's message when it kept one. (Not a
 * `finally`: after a trap, free() throws an error of its own that would
 * hide the trap.)
 */
function runProgram(text, allocator, target) {
  const run = new engine.TraceRun(text, allocator, target, undefined, undefined);
  let result;
  try {
    let error = run.error();
    let ops = null;
    if (error === undefined && run.total() <= 2_000) {
      while (!run.advance(4096)) {
        // slices, as the page runs them
      }
      error = run.error();
      ops = run.executed();
    }
    result = { error: error === undefined ? null : JSON.parse(error), ops };
  } catch (e) {
    let panic;
    try {
      panic = engine.lastPanic();
    } catch {
      // the trapped module cannot say
    }
    throw new Error(panic ?? e.message);
  }
  run.free();
  return result;
}

const PROGRAM_SEEDS = [
  readers.DEFAULT_PROGRAM,
  ...readers.LESSONS.map((l) => l.config.source),
  ...JSON.parse(readFileSync(join(root, "tests", "share-corpus", "v1.json"), "utf8")).map((c) => c.state.source),
  readFileSync(join(root, "web", "public", "examples", "recorded", "jq-package-lock.txt"), "utf8").split("\n").slice(0, 300).join("\n"),
];

function fuzzParser(input) {
  const kind = next();
  const text = kind < 0.35 ? cleanProgram() : kind < 0.7 ? grammarProgram() : mutate(pick(PROGRAM_SEEDS), WORDS);
  const allocator = pick(NAMES);
  const target = chance(0.8) ? "64" : "wasm32";
  let r;
  try {
    r = runProgram(text, allocator, target);
  } catch (e) {
    failed("parser", { text, allocator, target }, `the module trapped: ${e.message}`);
    return "trapped";
  }
  if (r.error) {
    for (const p of checkError(r.error, text, `${allocator} ${target}`)) failed("parser", { text, allocator, target }, p);
    seen("parser", r.error.message);
  } else seen("parser", r.ops === null ? "ok (not run: over 2,000 ops)" : "ok");
  // Line endings: the same program with CR or CRLF must read the same.
  if (input % 8 === 0 && !text.includes("\r")) {
    const cr = text.replaceAll("\n", pick(["\r", "\r\n"]));
    let again;
    try {
      again = runProgram(cr, allocator, target);
    } catch (e) {
      failed("parser", { text: cr, allocator, target }, `the module trapped on CR line endings: ${e.message}`);
      return "trapped";
    }
    const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
    if (!same(r, again)) failed("parser", { text: cr, allocator, target }, `CR line endings read differently: ${JSON.stringify(again).slice(0, 200)} against ${JSON.stringify(r).slice(0, 200)}`);
  }
}

// ---- Target: share links ---------------------------------------------------------

const LINK_TOKENS = ["&", "=", "%", "%0D", "%0A", "%E0%A4%A", "+", "#", "?", "v1?", "v2?", "v1z", "z", "&end", "end", "&amp;", "a=", "p=", "c=", "m=", "s=", "u=", "x=", "w=", "l=", "v=", ":", ",", "-", "capacity:", "minAlign:", "generatorSize:", "/", "😀", " "];

async function linkPool() {
  const pool = [];
  for (let i = 0; i < 400; i++) {
    const source = chance(0.3) ? pick(PROGRAM_SEEDS) : grammarProgram();
    const s = {
      source: source.slice(0, chance(0.1) ? 3000 : 300),
      allocator: pick(NAMES),
      target: chance(0.5) ? "64" : "wasm32",
      capacity: chance(0.5) ? null : 16 * (1 + int(4096)),
      minAlign: chance(0.5) ? null : 2 ** int(13),
      step: int(5000),
      compare: chance(0.7) ? null : [0, 1].map(() => ({ allocator: pick(NAMES), target: "64", minAlign: null, capacity: chance(0.5) ? null : 256 })),
    };
    if (chance(0.3)) s.sweep = pick([{ param: "minAlign", values: ["1", "2", "4"] }, { param: "capacity", values: ["64", "256"] }, { param: "preset", values: [pick(NAMES)] }]);
    try {
      pool.push(await readers.encodeShare(s));
    } catch {
      // a program too long for a link: not a seed
    }
  }
  return pool;
}

function normalisedState(s) {
  const out = { ...s };
  for (const k of ["lesson", "views", "sweep", "micro"]) if (out[k] === undefined || out[k] === null) delete out[k];
  return out;
}

function stateProblems(s) {
  const p = [];
  const inRange = (v, lo, hi) => v === null || (Number.isInteger(v) && v >= lo && v <= hi);
  if (!inRange(s.capacity, 1, readers.MAX_CAPACITY)) p.push(`capacity ${s.capacity}`);
  if (!inRange(s.minAlign, 1, readers.MAX_MIN_ALIGN) || (s.minAlign !== null && (s.minAlign & (s.minAlign - 1)) !== 0)) p.push(`minAlign ${s.minAlign}`);
  if (!inRange(s.step, 0, readers.MAX_STEP)) p.push(`step ${s.step}`);
  if (s.source.length > readers.MAX_SOURCE_CHARS) p.push(`a program of ${s.source.length} characters`);
  if (s.source.includes("\r")) p.push("a CR in the program");
  if (!NAMES.includes(s.allocator) && !/^[a-z0-9][a-z0-9_-]{0,63}$/.test(s.allocator)) p.push(`allocator ${s.allocator}`);
  for (const c of s.compare ?? []) {
    if (!inRange(c.capacity, 1, readers.MAX_CAPACITY)) p.push(`compare capacity ${c.capacity}`);
    if (!inRange(c.minAlign, 1, readers.MAX_MIN_ALIGN)) p.push(`compare minAlign ${c.minAlign}`);
  }
  if (s.sweep?.param === "capacity" && s.sweep.values.some((v) => Number(v) > readers.MAX_CAPACITY)) p.push(`a sweep capacity past the limit`);
  if (s.sweep?.param === "minAlign" && s.sweep.values.some((v) => Number(v) > readers.MAX_MIN_ALIGN)) p.push(`a sweep minAlign past the limit`);
  return p;
}

async function fuzzLink(pool) {
  const base = pick(pool);
  // Well-formed, as every URL a browser hands the page is (a lone surrogate becomes U+FFFD there).
  const text = (chance(0.05) ? pick(LINK_TOKENS).repeat(int(50)) : mutate(base, LINK_TOKENS)).toWellFormed();
  let r;
  try {
    r = await readers.decodeShare(text);
  } catch (e) {
    failed("link", text, `decodeShare threw: ${e.message}`);
    return;
  }
  if (!r.ok) {
    if (!r.error.startsWith("Cannot open this link: ") || r.error.length > 600) failed("link", text, `an error of ${r.error.length} characters: ${r.error.slice(0, 200)}`);
    seen("link", r.error);
    return;
  }
  seen("link", "ok");
  for (const p of stateProblems(r.state)) failed("link", text, `a decoded state out of range: ${p}`);
  let again;
  try {
    again = await readers.decodeShare(await readers.encodeShare(r.state));
  } catch (e) {
    if (!/too long for a link/.test(e.message)) failed("link", text, `its state does not encode: ${e.message}`);
    return;
  }
  if (!again.ok || JSON.stringify(normalisedState(again.state)) !== JSON.stringify(normalisedState(r.state))) {
    failed("link", text, `its state does not come back from its own link: ${again.ok ? "a different state" : again.error}`);
  }
}

// ---- Target: trace files ---------------------------------------------------------

function tracePool() {
  // Real traces, written as the page's export and the CLI write them.
  const cost = [];
  for (const source of PROGRAM_SEEDS.slice(0, 8)) {
    const allocator = pick(NAMES);
    cost.push(JSON.stringify({
      version: 1,
      allocator,
      target: "64",
      direction: "down",
      program: { text: source, ...(chance(0.5) ? { capacity: 256 } : {}), ...(chance(0.5) ? { min_align: 8 } : {}) },
      chunks: [{ id: 0, base: 65536, start: 65536, capacity: 256 }],
      ops: source.split("\n").filter((l) => /alloc|free/.test(l)).map((l, i) => ({ kind: /free/.test(l) ? "free" : "alloc", block: `b${i}`, failed: false, address: 65536 + 8 * i, chunk: 0, size: 8 })),
    }));
  }
  return cost;
}

const HOSTILE_VALUES = ["4294967552", "9007199254740991", "4503599627370496", "1e400", "-1", "0.5", '"1"', '"8"', "null", "true", "[]", "{}", '"\\r"', `"${"x".repeat(2000)}"`, "18446744073709551615", "1073741840", "0"];

function mutateTrace(text) {
  if (chance(0.3)) return mutate(text, ['"', ":", ",", "{", "}", "[", "]", '"version":', '"capacity":', '"min_align":', "\\r", ...HOSTILE_VALUES]);
  // Replace one number or string value with a hostile one, keeping the JSON whole.
  const values = [...text.matchAll(/:(-?\d[\d.e+]*|"(?:[^"\\]|\\.)*"|null|true|false)/g)];
  if (values.length === 0) return text;
  const m = pick(values);
  const at = (m.index ?? 0) + 1;
  return text.slice(0, at) + pick(HOSTILE_VALUES) + text.slice(at + (m[1]?.length ?? 0));
}

function fuzzTrace(pool) {
  const text = mutateTrace(pick(pool));
  let r;
  try {
    r = readers.parseTraceFile(text, ALLOCATORS);
  } catch (e) {
    failed("trace", text, `parseTraceFile threw: ${e.message}`);
    return;
  }
  if (!r.ok) {
    if (r.error.length > 600) failed("trace", text, `an error of ${r.error.length} characters`);
    seen("trace", r.error);
    return;
  }
  seen("trace", "ok");
  const c = r.config;
  const inRange = (v, lo, hi) => v === null || (Number.isInteger(v) && v >= lo && v <= hi);
  if (!inRange(c.capacity, 1, readers.MAX_CAPACITY)) failed("trace", text, `accepted a capacity of ${c.capacity}`);
  if (!inRange(c.minAlign, 1, readers.MAX_MIN_ALIGN)) failed("trace", text, `accepted a min_align of ${c.minAlign}`);
  if (c.source.includes("\r")) failed("trace", text, "accepted a program with a CR");
  for (const op of r.ops) for (const f of ["address", "chunk", "size"]) if (!inRange(op[f], 0, Number.MAX_SAFE_INTEGER)) failed("trace", text, `accepted an op ${f} of ${op[f]}`);
}

// ---- The run ---------------------------------------------------------------------

const counts = { parser: 0, link: 0, trace: 0 };
const quotas = Object.fromEntries(Object.entries(SHARE).map(([k, share]) => [k, ONLY.includes(k) ? Math.round(TOTAL * share) : 0]));
const planned = Object.values(quotas).reduce((a, b) => a + b, 0);
// --only one target gives it every input.
if (planned !== TOTAL) {
  const [first] = ONLY;
  quotas[first] += TOTAL - planned;
}
log(`fuzzing ${TOTAL.toLocaleString("en-US")} inputs, seed ${SEED}: parser ${quotas.parser.toLocaleString("en-US")}, link ${quotas.link.toLocaleString("en-US")}, trace ${quotas.trace.toLocaleString("en-US")}`);
const started = Date.now();
let lastReport = started;
const progress = (target) => {
  const now = Date.now();
  if (now - lastReport < 30_000) return;
  lastReport = now;
  const done = counts.parser + counts.link + counts.trace;
  log(`  ${done.toLocaleString("en-US")} inputs (${target}), ${Math.round(done / ((now - started) / 1000)).toLocaleString("en-US")}/s, ${failures.length} failures`);
};

for (let i = 0; i < quotas.parser; i++) {
  if (fuzzParser(i) === "trapped") await loadEngine();
  counts.parser++;
  if ((i & 0xfff) === 0) progress("parser");
}
if (quotas.link > 0) {
  const pool = await linkPool();
  for (let i = 0; i < quotas.link; i++) {
    await fuzzLink(pool);
    counts.link++;
    if ((i & 0xfff) === 0) progress("link");
  }
}
if (quotas.trace > 0) {
  const pool = tracePool();
  for (let i = 0; i < quotas.trace; i++) {
    fuzzTrace(pool);
    counts.trace++;
    if ((i & 0xfff) === 0) progress("trace");
  }
}

const secs = (Date.now() - started) / 1000;
const total = counts.parser + counts.link + counts.trace;
log(`${total.toLocaleString("en-US")} inputs in ${secs.toFixed(0)} s (seed ${SEED}): parser ${counts.parser.toLocaleString("en-US")}, link ${counts.link.toLocaleString("en-US")}, trace ${counts.trace.toLocaleString("en-US")}`);
for (const [target, map] of Object.entries(outcomes)) {
  if (counts[target] === 0) continue;
  const ok = [...map].filter(([k]) => k.startsWith("ok")).reduce((n, [, v]) => n + v, 0);
  log(`  ${target}: ${ok.toLocaleString("en-US")} accepted, ${(counts[target] - ok).toLocaleString("en-US")} refused, ${map.size} distinct outcomes`);
}
if (failures.length > 0) {
  log(`${failures.length} failures of ${kinds.size} kinds (each kind's first input is in ${failuresDir}):`);
  for (const [kind, { count, file }] of kinds) log(`  ${count.toLocaleString("en-US")} × ${kind} (${file})`);
  process.exitCode = 1;
} else log("no failures");
