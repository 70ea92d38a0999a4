#!/usr/bin/env node
// bumplab: run a program of allocation ops on an allocator model and print
// the trace JSON, with the very wasm module the playground loads, in the
// canonical form the page's trace export writes (one line, JSON.stringify's).
//
//   bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] [--child NAME] [--summary | --executed] FILE|-
//   bumplab list
//
// The full trace holds up to 100,000 ops (each op's entry, its micro-steps
// with it, is about 1 KiB of JSON). --summary runs the program on the page's
// own engine instead, as far as the page goes (1,500,000 ops, a 32 MB
// program: a recording of a real program), and prints its chunks and the
// counters after its last op. --executed adds to each op of the full trace
// the wasm instructions the model's code executed for it, in order (the
// cost module records them; listing.json beside it names them), running the
// program once per op: meant for short programs.
//
// Exit status: 0 on success; 1 for a bad program (one line on stderr,
// `FILE:LINE:COLUMN: message`) or a file that cannot be read; 2 for a usage
// error (a bad command, option or option value); 3 for a bug in the engine
// (a trap in the wasm module), reported with the panic's message.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A wasm module's folder: beside this file in the installed package (what
 * scripts/pack.mjs puts there), else the repository's web/ build.
 */
function engineFolder(name) {
  const packed = join(here, name);
  return existsSync(packed) ? packed : join(here, "..", name);
}
const USAGE = `usage:
  bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] [--child NAME] [--summary | --executed] FILE|-
  bumplab list
--child: the child allocator of a preset that takes one (zig-arena: page,
std.heap.page_allocator, its default; heap, a simulated heap that never
resizes in place); \`bumplab list\` names each preset's.`;

// The engine's limit on a program's text (crates/core/src/program.rs
// MAX_SOURCE_BYTES, the page's web/src/model/limits.ts; web/src/cli.test.ts
// checks the three agree), checked on the file's size before reading it.
const MAX_SOURCE_BYTES = 32_000_000;

/** The engine's words for a program of `bytes` bytes over the limit (program.rs `too_large`). */
function tooLarge(bytes) {
  const mb = (n) => {
    const tenths = Math.ceil(Math.floor(n / 50_000) / 2);
    return tenths % 10 === 0 ? `${tenths / 10} MB` : `${Math.floor(tenths / 10)}.${tenths % 10} MB`;
  };
  const grouped = (n) => n.toLocaleString("en-US");
  return mb(bytes) === mb(MAX_SOURCE_BYTES)
    ? `the program is ${grouped(bytes)} bytes; the limit is ${grouped(MAX_SOURCE_BYTES)} bytes`
    : `the program is ${mb(bytes)}; the limit is ${mb(MAX_SOURCE_BYTES)}`;
}

function fail(message, code = 2) {
  process.stderr.write(`bumplab: ${message}\n`);
  process.exit(code);
}

async function loadEngine() {
  const pkg = engineFolder("pkg-cost");
  let mod;
  try {
    mod = await import(join(pkg, "cost.js"));
    mod.initSync({ module: readFileSync(join(pkg, "cost_bg.wasm")) });
  } catch (e) {
    fail(`the wasm engine is not built (${e.message}); run \`npm run build:wasm\` first`, 1);
  }
  return mod;
}

/** The most ops --executed lists: it runs the whole program once per op. */
const MAX_EXECUTED_OPS = 2_000;

/**
 * The cost module's listing.json: beside the module in the repository; in the
 * installed package, the copy the built site fetches for its Instructions
 * view (dist/assets/listing-<hash>.json, made by the same build as the
 * packaged module), so the package does not carry the 17 MB file twice.
 */
function listingFile() {
  const beside = join(engineFolder("pkg-cost"), "listing.json");
  if (existsSync(beside)) return beside;
  const assets = join(here, "dist", "assets");
  const hashed = existsSync(assets) ? readdirSync(assets).find((f) => /^listing-[\w-]+\.json$/.test(f)) : undefined;
  return hashed ? join(assets, hashed) : beside;
}

/**
 * Each op's executed wasm instructions (the model column), as
 * `{function, offset, text, file, line}`, from the cost module's
 * `executedOps` and the listing.json built beside it.
 */
function executedLists(engine, source, opts, ops) {
  if (ops > MAX_EXECUTED_OPS) {
    fail(`--executed lists up to ${MAX_EXECUTED_OPS.toLocaleString("en-US")} ops (it runs the program once per op); this program has ${ops.toLocaleString("en-US")}`, 1);
  }
  if (typeof engine.executedOps !== "function") fail("the wasm engine has no executedOps: run `npm run build:wasm`", 1);
  let listing;
  try {
    listing = JSON.parse(readFileSync(listingFile(), "utf8"));
  } catch (e) {
    fail(`--executed needs listing.json beside the cost module (${e.code === "ENOENT" ? "not built" : e.message}); run \`npm run build:wasm\``, 1);
  }
  const lists = [];
  for (let i = 0; i < ops; i++) {
    const r = JSON.parse(engine.executedOps(source, opts.allocator, opts.target, opts.capacity, opts.minAlign, opts.child, i));
    if (r.error) fail(`op ${i}: ${r.error.message ?? r.error}`, 3);
    const model = r.columns.find((c) => c.column === "model");
    lists.push(
      (model?.executed ?? []).map(([func, opIndex]) => {
        const f = listing.functions[func];
        const row = f?.ops[opIndex];
        if (!row) fail(`op ${i}: listing.json has no operator ${opIndex} of function ${func}: rebuild the engine (\`npm run build:wasm\`)`, 3);
        const [offset, text, , , file, line] = row;
        return { function: f.name, offset, text, file: file >= 0 ? listing.files[file] : null, line };
      }),
    );
  }
  return lists;
}

function parseArgs(argv) {
  const opts = { target: "64" };
  const rest = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) fail(`${a} needs a value\n${USAGE}`);
      return v;
    };
    const number = (v) => {
      // The engine takes a u32: a larger number would wrap around silently.
      if (!/^(0x[0-9a-f]+|\d+)$/i.test(v) || Number(v) > 0xffffffff) {
        fail(`${a} takes a whole number up to 4294967295, not '${v}'`);
      }
      return Number(v);
    };
    if (a === "--allocator" || a === "-a") opts.allocator = value();
    else if (a === "--target" || a === "-t") opts.target = value();
    else if (a === "--min-align") opts.minAlign = number(value());
    else if (a === "--capacity") opts.capacity = number(value());
    else if (a === "--child") opts.child = value();
    else if (a === "--summary") opts.summary = true;
    else if (a === "--executed") opts.executed = true;
    else if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith("-") && a !== "-") fail(`unknown option ${a}\n${USAGE}`);
    else rest.push(a);
  }
  return { opts, rest };
}

/** The program's text, or exit 1 saying why not: a file over the limit is refused before it is read. */
function readProgram(file) {
  const name = file === "-" ? "<stdin>" : file;
  let text;
  try {
    if (file !== "-") {
      const { size } = statSync(file);
      if (size > MAX_SOURCE_BYTES) {
        process.stderr.write(`${name}:1:1: ${tooLarge(size)}\n`);
        process.exit(1);
      }
    }
    text = readFileSync(file === "-" ? 0 : file, "utf8");
  } catch (e) {
    fail(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`, 1);
  }
  const bytes = Buffer.byteLength(text, "utf8");
  if (bytes > MAX_SOURCE_BYTES) {
    process.stderr.write(`${name}:1:1: ${tooLarge(bytes)}\n`);
    process.exit(1);
  }
  return text;
}

/** Loads the trace module's build that runs `allocator`: the app's build for speed, which runs every preset. */
async function loadTraceBuild(allocator) {
  const pkg = engineFolder("pkg-trace-fast");
  let mod;
  try {
    mod = await import(join(pkg, "trace.js"));
    mod.initSync({ module: readFileSync(join(pkg, "trace_bg.wasm")) });
  } catch (e) {
    fail(`the wasm engine is not built (${e.message}); run \`npm run build:wasm\` first`, 1);
  }
  return JSON.parse(mod.listAllocators()).some((a) => a.name === allocator) ? mod : undefined;
}

const STATS = ["requested", "used", "padding", "metadata", "leaked", "copied", "unused", "chunks", "utilisation"];

/**
 * The summary of a run on the page's engine: its chunks and the counters
 * after its last op, as JSON; or the program's error, as `trace` gives it.
 */
function summarise(mod, source, opts) {
  const run = new mod.TraceRun(source, opts.allocator, opts.target, opts.capacity, opts.minAlign, opts.child);
  try {
    while (!run.advance(1 << 20)) {
      // one slice after another until the run is over
    }
    const error = run.error();
    if (error !== undefined) return { error: JSON.parse(error) };
    const header = JSON.parse(run.header());
    const samples = run.statsSamples();
    const last = samples.slice(samples.length - STATS.length);
    return {
      allocator: header.allocator,
      target: header.target,
      direction: header.direction,
      ops: run.executed(),
      chunks: JSON.parse(run.chunks()),
      stats: Object.fromEntries(STATS.map((k, i) => [k, last[i]])),
    };
  } finally {
    run.free();
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === "list") {
  const engine = await loadEngine();
  for (const a of JSON.parse(engine.listAllocators())) {
    const children = a.children?.length ? ` (--child ${a.children.join(" | ")}, default ${a.children[0]})` : "";
    process.stdout.write(`${a.name.padEnd(22)}${a.direction.padEnd(6)}${a.description}${children}\n`);
  }
} else if (command === "trace") {
  const { opts, rest } = parseArgs(args);
  if (!opts.allocator) fail(`trace needs --allocator NAME (see \`bumplab list\`)\n${USAGE}`);
  if (rest.length !== 1) fail(`trace needs exactly one FILE, or - for standard input\n${USAGE}`);
  if (opts.summary && opts.executed) fail(`--executed lists each op of the full trace; --summary prints none\n${USAGE}`);
  const engine = await loadEngine();
  const trace = (source) => {
    try {
      return engine.traceProgram(source, opts.allocator, opts.target, opts.capacity, opts.minAlign, opts.child);
    } catch (e) {
      // A panic in Rust is a trap here: say what the module kept of it.
      let panic;
      try {
        panic = engine.lastPanic?.();
      } catch {
        // The trapped module cannot say: the trap's own message will do.
      }
      fail(`internal error: ${panic ?? e.message} (this is a bug in Bump Lab, not in the program)`, 3);
    }
  };
  // The engine reports a bad allocator, target, capacity or minimum alignment
  // as an error at 1:1 of whatever program it runs. Those are usage errors,
  // not the program's: find them by running the empty program first.
  const options = JSON.parse(trace("")).error;
  if (options) fail(options.message);
  const source = readProgram(rest[0]);
  let parsed;
  if (opts.summary) {
    const mod = await loadTraceBuild(opts.allocator);
    if (!mod) fail(`unknown allocator '${opts.allocator}' (see \`bumplab list\`)`);
    try {
      parsed = summarise(mod, source, opts);
    } catch (e) {
      let panic;
      try {
        panic = mod.lastPanic?.();
      } catch {
        // The trapped module cannot say: the trap's own message will do.
      }
      fail(`internal error: ${panic ?? e.message} (this is a bug in Bump Lab, not in the program)`, 3);
    }
  } else {
    parsed = JSON.parse(trace(source));
  }
  if (parsed.error) {
    // Exactly `FILE:LINE:COLUMN: message`, the line editors and CI logs
    // link, for each error the program has (the parser reports one a line).
    const file = rest[0] === "-" ? "<stdin>" : rest[0];
    for (const { line, column, message } of [parsed.error, ...(parsed.error.more ?? [])]) {
      process.stderr.write(`${file}:${line}:${column}: ${message}\n`);
    }
    if (!opts.summary && parsed.error.message.includes("the most a full JSON trace holds")) {
      process.stderr.write("bumplab: --summary runs up to 1,500,000 ops on the page's engine and prints the chunks and counters after the last op\n");
    }
    process.exit(1);
  }
  if (opts.summary) {
    process.stdout.write(`${JSON.stringify(parsed)}\n`);
    process.exit(0);
  }
  if (opts.executed) {
    const lists = executedLists(engine, source, opts, parsed.ops.length);
    parsed.ops.forEach((o, i) => {
      o.executed = lists[i];
    });
  }
  // The canonical trace text, byte for byte what the page's "Export trace
  // (JSON)" saves (traceJson in web/src/share/export.ts): the engine's JSON
  // parsed and written back by JSON.stringify, one line, then a newline.
  // Not `out` itself: the engine writes an f64 1 as `1.0`, JSON.stringify `1`.
  process.stdout.write(`${JSON.stringify(parsed)}\n`);
} else {
  fail(command ? `unknown command '${command}'\n${USAGE}` : USAGE);
}
