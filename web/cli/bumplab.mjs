#!/usr/bin/env node
// bumplab: run a program of allocation ops on an allocator model and print
// the trace JSON, with the very wasm module the playground loads, in the
// canonical form the page's trace export writes (one line, JSON.stringify's).
//
//   bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] [--child NAME] [--summary | --executed] FILE|-
//   bumplab list
//   bumplab figure FILE|- --allocator NAME [--target …] [--min-align N] [--capacity N] [--child NAME]
//                  [--step N] [--compare COLUMNS] [--caption TEXT] [--theme light|dark]
//                  [--site URL] [--width PX] [--browser PATH] --svg OUT|- [--png OUT]
//
// `figure` writes the Share panel's figure of the run at op N (the last op by
// default): a standalone SVG with a title, the map (compare's maps side by
// side: --compare bumpalo,bump-scope-up, each column allocator[:target
// [:min-align[:capacity[:child]]]]), a legend, a caption and an "Open live" link to
// the view in the app at --site (the URL where you serve Bump Lab's dist/;
// without it the link is relative, index.html#…), and --png the same at 2×. It draws with the built
// site in a headless Chromium or Chrome (figure.mjs says why): --browser or
// BUMPLAB_BROWSER names one, else the usual places are tried.
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
// (a trap in the wasm module), reported with the panic's message. It ends
// once its output has drained (io.mjs says why it never calls process.exit).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { endsByDraining, exit, freeAfter, readCapped } from "./io.mjs";

const here = dirname(fileURLToPath(import.meta.url));

/**
 * A wasm module's folder: beside this file in the installed package (what
 * scripts/pack.mjs puts there), else the repository's web/ build.
 */
function engineFolder(name) {
  const packed = join(here, name);
  return existsSync(packed) ? packed : join(here, "..", name);
}

/**
 * A file of the engine (`pkg-cost/cost_bg.wasm`, `pkg-cost/listing`): in the
 * repository, in its web/ build; in the installed package, the site's own
 * copy in dist/assets/, which engine.json names (scripts/pack.mjs writes it),
 * so the package holds each wasm module once.
 */
function engineFile(path) {
  const [folder, ...rest] = path.split("/");
  const beside = join(engineFolder(folder), ...rest);
  if (existsSync(beside)) return beside;
  const manifest = join(here, "engine.json");
  if (existsSync(manifest)) {
    const named = JSON.parse(readFileSync(manifest, "utf8"))[path];
    if (named) return join(here, named);
  }
  return beside;
}
const USAGE = `usage:
  bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] [--child NAME] [--summary | --executed] FILE|-
  bumplab figure --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] [--child NAME] [--step N] [--compare COLUMNS]
                 [--caption TEXT] [--theme light|dark] [--site URL] [--width PX] [--browser PATH] --svg OUT|- [--png OUT] FILE|-
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
  exit(code);
}

async function loadEngine() {
  const pkg = engineFolder("pkg-cost");
  let mod;
  try {
    mod = await import(join(pkg, "cost.js"));
    mod.initSync({ module: readFileSync(engineFile("pkg-cost/cost_bg.wasm")) });
  } catch (e) {
    fail(`the wasm engine is not built (${e.message}); run \`npm run build:wasm\` first`, 1);
  }
  return mod;
}

/** The most ops --executed lists: it runs the whole program once per op. */
const MAX_EXECUTED_OPS = 2_000;

/**
 * The cost module's listing, split a file per function
 * (scripts/split-listing.mjs): `read(fn)` gives function `fn`'s name and
 * operators, reading each file once.
 */
function listingReader() {
  const dir = engineFile("pkg-cost/listing");
  const index = JSON.parse(readFileSync(join(dir, "index.json"), "utf8"));
  if (index.format !== 2) throw new Error(`the listing has format ${index.format}; this command reads format 2`);
  const cache = new Map();
  const read = (fn) => {
    if (cache.has(fn)) return cache.get(fn);
    const file = join(dir, `${fn}.json`);
    let f = null;
    if (existsSync(file)) {
      const c = JSON.parse(readFileSync(file, "utf8"));
      const texts = c.text === "" ? [] : c.text.split("\n");
      const ops = [];
      let offset = c.offset;
      let run = 0;
      let left = 0;
      texts.forEach((text, i) => {
        if (i > 0) offset += c.deltas[i - 1];
        while (left === 0) left = c.lines[3 * run++ + 2];
        left--;
        ops.push([offset, text, Number(c.cost[i]), Number(c.branch[i]), c.lines[3 * run - 3], c.lines[3 * run - 2]]);
      });
      f = { name: c.name, ops };
    }
    cache.set(fn, f);
    return f;
  };
  return { files: index.files, read };
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
    listing = listingReader();
  } catch (e) {
    fail(`--executed needs the cost module's listing beside it (${e.code === "ENOENT" ? "not built" : e.message}); run \`npm run build:wasm\``, 1);
  }
  const lists = [];
  for (let i = 0; i < ops; i++) {
    const r = JSON.parse(engine.executedOps(source, opts.allocator, opts.target, opts.capacity, opts.minAlign, opts.child, i));
    if (r.error) fail(`op ${i}: ${r.error.message ?? r.error}`, 3);
    const model = r.columns.find((c) => c.column === "model");
    lists.push(
      (model?.executed ?? []).map(([func, opIndex]) => {
        const f = listing.read(func);
        const row = f?.ops[opIndex];
        if (!row) fail(`op ${i}: the listing has no operator ${opIndex} of function ${func}: rebuild the engine (\`npm run build:wasm\`)`, 3);
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
    else if (a === "--step") opts.step = number(value());
    else if (a === "--compare") opts.compare = value();
    else if (a === "--caption") opts.caption = value();
    else if (a === "--theme") opts.theme = value();
    else if (a === "--site") opts.site = value();
    else if (a === "--width") opts.width = number(value());
    else if (a === "--browser") opts.browser = value();
    else if (a === "--svg") opts.svg = value();
    else if (a === "--png") opts.png = value();
    else if (a === "--summary") opts.summary = true;
    else if (a === "--executed") opts.executed = true;
    else if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}\n`);
      exit(0);
    } else if (a.startsWith("-") && a !== "-") fail(`unknown option ${a}\n${USAGE}`);
    else rest.push(a);
  }
  return { opts, rest };
}

/**
 * The program's text, or exit 1 saying why not: a file over the limit is
 * refused by its size before it is read, standard input (or a pipe) once
 * more than the limit has arrived.
 */
async function readProgram(file) {
  const name = file === "-" ? "<stdin>" : file;
  let read;
  try {
    read = await readCapped(file, MAX_SOURCE_BYTES);
  } catch (e) {
    fail(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`, 1);
  }
  if (!read.ok) {
    const why = read.whole
      ? tooLarge(read.size)
      : `the program is longer than the limit of ${MAX_SOURCE_BYTES.toLocaleString("en-US")} bytes (32 MB): ${file === "-" ? "standard input" : name} is read up to the limit, then refused`;
    process.stderr.write(`${name}:1:1: ${why}\n`);
    exit(1);
  }
  const bytes = Buffer.byteLength(read.text, "utf8");
  if (bytes > MAX_SOURCE_BYTES) {
    // Bytes that are not UTF-8 read as U+FFFD, three bytes each.
    process.stderr.write(`${name}:1:1: ${tooLarge(bytes)}\n`);
    exit(1);
  }
  return read.text;
}

/** Loads the trace module's build that runs `allocator`: the app's build for speed, which runs every preset. */
async function loadTraceBuild(allocator) {
  const pkg = engineFolder("pkg-trace-fast");
  let mod;
  try {
    mod = await import(join(pkg, "trace.js"));
    mod.initSync({ module: readFileSync(engineFile("pkg-trace-fast/trace_bg.wasm")) });
  } catch (e) {
    fail(`the wasm engine is not built (${e.message}); run \`npm run build:wasm\` first`, 1);
  }
  return JSON.parse(mod.listAllocators()).some((a) => a.name === allocator) ? mod : undefined;
}

const STATS = ["requested", "used", "padding", "metadata", "leaked", "copied", "unused", "chunks", "utilisation"];

/**
 * The summary of a run on the page's engine: its chunks and the counters
 * after its last op, as JSON (`stats` is null when no op ran: there is no
 * op to count after); or the program's error, as `trace` gives it.
 */
function summarise(mod, source, opts) {
  return freeAfter(new mod.TraceRun(source, opts.allocator, opts.target, opts.capacity, opts.minAlign, opts.child), (run) => {
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
      stats: last.length === STATS.length ? Object.fromEntries(STATS.map((k, i) => [k, last[i]])) : null,
    };
  });
}

/** The site the figure is drawn with: BUMPLAB_SITE, the package's dist/, or the repository's build. */
function siteFolder() {
  if (process.env.BUMPLAB_SITE) return process.env.BUMPLAB_SITE;
  const packed = join(here, "dist");
  return existsSync(packed) ? packed : join(here, "..", "..", "dist");
}

/**
 * `bumplab figure`: the options and the program checked here, with the
 * engine's own messages (a bad program exits 1 with FILE:LINE:COLUMN), then
 * the figure drawn by the built site's element in a headless browser.
 */
async function figure(args) {
  const { opts, rest } = parseArgs(args);
  if (!opts.allocator) fail(`figure needs --allocator NAME (see \`bumplab list\`)\n${USAGE}`);
  if (rest.length !== 1) fail(`figure needs exactly one FILE, or - for standard input\n${USAGE}`);
  if (!opts.svg && !opts.png) fail(`figure needs --svg OUT (- for standard output), --png OUT, or both\n${USAGE}`);
  if (opts.svg === "-" && opts.png === "-") fail("only one of --svg and --png can write to standard output");
  if (opts.theme !== undefined && opts.theme !== "light" && opts.theme !== "dark") fail(`--theme is light or dark, not '${opts.theme}'`);
  if (opts.width !== undefined && (opts.width < 320 || opts.width > 4000)) fail(`--width takes 320 to 4000 pixels, not ${opts.width}`);
  const mod = await loadTraceBuild(opts.allocator);
  if (!mod) fail(`unknown allocator '${opts.allocator}' (see \`bumplab list\`)`);
  const source = await readProgram(rest[0]);
  const file = rest[0] === "-" ? "<stdin>" : rest[0];
  // Each run the figure shows: the allocator's, or compare's columns.
  const runs = [{ allocator: opts.allocator, target: opts.target, minAlign: opts.minAlign, capacity: opts.capacity, child: opts.child }];
  let compare;
  if (opts.compare !== undefined) {
    const cols = opts.compare.split(",");
    if (cols.length < 2 || cols.length > 4) fail(`--compare lists 2 to 4 columns, comma-separated, not ${cols.length}`);
    runs.length = 0;
    for (const col of cols) {
      const [allocator = "", target = opts.target, minAlign = "-", capacity = "-", child] = col.split(":");
      const num = (v, what) => {
        if (v === "-" || v === "") return undefined;
        if (!/^\d+$/.test(v)) fail(`--compare column '${col}': ${what} must be a whole number or -`);
        return Number(v);
      };
      runs.push({ allocator, target: target || opts.target, minAlign: num(minAlign, "min-align"), capacity: num(capacity, "capacity"), child: child || undefined });
    }
    // A column's child allocator written out, the default too: in a link, a
    // zig-arena column without one means the child it had before the setting.
    const listed = JSON.parse(mod.listAllocators());
    const childOf = (r) => r.child ?? listed.find((a) => a.name === r.allocator)?.children?.[0];
    compare = runs.map((r) => [r.allocator, r.target, r.minAlign ?? "-", r.capacity ?? "-", ...(childOf(r) ? [childOf(r)] : [])].join(":")).join(",");
  }
  let total = 0;
  for (const r of runs) {
    const check = (text) =>
      freeAfter(new mod.TraceRun(text, r.allocator, r.target, r.capacity, r.minAlign, r.child), (run) => {
        const error = run.error();
        return { error: error === undefined ? undefined : JSON.parse(error), total: run.total() };
      });
    const options = check("").error;
    if (options) fail(compare ? `--compare ${r.allocator}: ${options.message}` : options.message);
    const checked = check(source);
    if (checked.error) {
      for (const { line, column, message } of [checked.error, ...(checked.error.more ?? [])]) process.stderr.write(`${file}:${line}:${column}: ${message}\n`);
      exit(1);
    }
    total = checked.total;
  }
  const step = opts.step === undefined ? total : Math.min(opts.step, total);
  let browser;
  try {
    browser = (await import("./figure.mjs")).findBrowser(opts.browser);
  } catch (e) {
    fail(e.message, 1);
  }
  const { drawFigure } = await import("./figure.mjs");
  let drawn;
  try {
    drawn = await drawFigure({
      site: siteFolder(),
      browser,
      app: opts.site === undefined ? "index.html" : `${opts.site}${opts.site.endsWith("/") ? "" : "/"}index.html`,
      png: opts.png !== undefined,
      width: opts.width ?? 720,
      attributes: {
        program: source,
        allocator: runs[0].allocator,
        target: runs[0].target,
        capacity: compare ? undefined : opts.capacity,
        "min-align": compare ? undefined : opts.minAlign,
        child: compare ? undefined : opts.child,
        compare,
        step,
        figure: true,
        caption: opts.caption,
        theme: opts.theme ?? "light",
      },
    });
  } catch (e) {
    fail(`the figure could not be drawn: ${e.message}`, 1);
  }
  const write = (out, data) => {
    if (out === "-") process.stdout.write(data);
    else writeFileSync(out, data);
  };
  if (opts.svg) write(opts.svg, drawn.svg);
  if (opts.png) write(opts.png, Buffer.from(drawn.png, "base64"));
  const wrote = [opts.svg && opts.svg !== "-" ? opts.svg : null, opts.png && opts.png !== "-" ? opts.png : null].filter(Boolean);
  if (wrote.length > 0) process.stderr.write(`bumplab: wrote ${wrote.join(" and ")}: ${drawn.width} × ${drawn.height} px, op ${step} of ${total}\n`);
  if (opts.site === undefined) process.stderr.write("bumplab: the figure's Open live link is relative (index.html#…): --site URL names where your Bump Lab is served\n");
}

endsByDraining();
const [command, ...args] = process.argv.slice(2);
if (command === "figure") {
  await figure(args);
} else if (command === "list") {
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
  const source = await readProgram(rest[0]);
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
    exit(1);
  }
  if (opts.summary) {
    process.stdout.write(`${JSON.stringify(parsed)}\n`);
    exit(0);
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
