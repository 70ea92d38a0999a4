// `npm run bench`: how fast the engine traces, natively, as the page's wasm
// in headless Chromium and in the app as a user waits for it, how large the
// trace is, how long scrubbing, dragging the scrubber and drawing take, and
// what the embed route weighs and how soon it shows a map.
//
// Prints one figure per line, `name: value unit`, with the budget and its
// verdict beside the budgeted ones; a figure today's design cannot give says
// `n/a (why; largest measured: …)` instead of failing the run.
//
//   node scripts/bench.mjs            # full: 1,000,000 ops, medians of several runs
//   node scripts/bench.mjs --smoke    # tiny (1,000 ops, 1 run), for CI: well under a minute
//   --runs N  --ops N  --port N  --no-build (reuse the vite build in --out)  --out DIR
//
// Native: crates/core/examples/trace_speed.rs in release (CARGO_TARGET_DIR,
// default /tmp/tgt-bench): the columnar run to completion. Browser: the vite
// dev server (web/src served as is, so the page can import the loaders and the
// map's benchmark hooks), then `vite preview` of a build in --out (default
// /tmp/dist-bench) for the embed route's payload and first map. The wasm in
// web/pkg-trace-fast (the app's build of the trace module: the TraceRun it traces with) and
// web/pkg-cost (the cost module) is used as built.
// A benchmark, not a test: `npm test` does not run it (its pure parts are
// tested in scripts/bench.test.mjs).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { extname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";

// ---------------------------------------------------------------------------
// Pure parts (scripts/bench.test.mjs)

/** Budgets on the reference machine: a figure is met when it is at most this. */
export const BUDGETS = {
  wasm_vs_native_ratio: 2,
  trace_bytes_per_op: 32,
  scrub_ratio_1m_vs_100: 2,
  payload_gzip_kb: 200,
  listing_first_open_gzip_kb: 300,
  package_tarball_mb: 3,
  first_map_ms: 1500,
  page_trace_ms_1m_bumpalo: 1500,
  page_trace_ms_1m_bump_scope_up: 1500,
  scrub_drag_longest_task_ms: 50,
  page_open_ms_1m_lines: 1500,
  keystroke_ms_1m_lines: 50,
  paste_ms_20k_lines: 300,
  wasm_memory_bytes_per_op_lines: 64,
  recorded_open_ms_bumpalo: 1500,
  recorded_open_ms_bump_scope_up: 1500,
  recorded_wasm_memory_bytes_per_op_bumpalo: 64,
  recorded_wasm_memory_bytes_per_op_bump_scope_up: 64,
  adversarial_wasm_memory_mb: 1024,
};

/** What --only can measure alone. */
export const ONLY = ["scrub_drag", "sizes", "lines", "recorded", "adversarial"];

/** How long a scrub drag takes from the scrubber's left end to its right end. */
export const DRAG_MS = 2000;

/** The page-trace figure's name for a preset: `page_trace_ms_1m_bump_scope_up`. */
export function pageTraceName(preset) {
  return `page_trace_ms_1m_${preset.replace(/[^a-z0-9]+/gi, "_").toLowerCase()}`;
}

/**
 * The figure of several drags: the median of each drag's longest task (the
 * longest of Chromium's trace and of the long-task observer's entries), the
 * observer's long tasks per drag, and the median longest frame.
 */
export function summariseDrags(drags) {
  const runs = drags.map((d) => Math.max(Number.isFinite(d.longestTask) ? d.longestTask : 0, ...d.long.map((e) => e.ms)));
  return {
    longestMs: median(runs),
    runs,
    longCounts: drags.map((d) => d.long.length),
    frameMs: median(drags.map((d) => d.frameMax)),
    cpuMs: median(drags.map((d) => d.longestCpu)),
  };
}

/**
 * The longest task on a renderer's main thread in a Chromium trace (JSON
 * from browser.stopTracing): its complete RunTask events, in ms. NaN when
 * the trace has none (tracing unavailable). With `clock` "thread", the most
 * CPU time a task took (its thread time): on a machine busy with other work
 * a task waits for a core, and its wall time grows while its CPU time does not.
 */
export function longestMainThreadTask(buffer, clock = "wall") {
  const field = clock === "thread" ? "tdur" : "dur";
  let events;
  try {
    const json = JSON.parse(buffer.toString("utf8"));
    events = Array.isArray(json) ? json : (json.traceEvents ?? []);
  } catch {
    return NaN;
  }
  const main = new Set();
  for (const e of events) if (e.ph === "M" && e.name === "thread_name" && e.args?.name === "CrRendererMain") main.add(`${e.pid}:${e.tid}`);
  let longest = NaN;
  for (const e of events) {
    if (e.ph !== "X" || !TASK_EVENTS.has(e.name) || !main.has(`${e.pid}:${e.tid}`)) continue;
    if (e[field] === undefined) continue;
    const ms = e[field] / 1000;
    if (Number.isNaN(longest) || ms > longest) longest = ms;
  }
  return longest;
}

/** What Chromium calls a task in its trace (the scheduler's event, by version). */
const TASK_EVENTS = new Set(["RunTask", "ThreadControllerImpl::RunTask"]);

/** The median of finite numbers (mean of the middle two for an even count); NaN for none. */
export function median(values) {
  const xs = values.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  if (xs.length === 0) return NaN;
  const mid = xs.length >> 1;
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2;
}

/** A number as the lines print it: integers from 1,000 up, else 3 significant digits (at most 2 decimals). */
export function formatValue(value) {
  if (!Number.isFinite(value)) return String(value);
  const abs = Math.abs(value);
  if (abs >= 1000) return String(Math.round(value));
  if (abs === 0) return "0";
  const decimals = Math.min(2, Math.max(0, 2 - Math.floor(Math.log10(abs))));
  return value.toFixed(decimals);
}

/** "met" when `value <= budget`, else "over"; null without a budget or a value. */
export function verdict(value, budget) {
  if (budget === undefined || budget === null || !Number.isFinite(value)) return null;
  return value <= budget ? "met" : "over";
}

/** A count with thousands separators, for notes ("1,000,000 ops"). */
export function count(n) {
  return Math.round(n).toLocaleString("en-US");
}

/**
 * One line: `name: value unit`, then in parentheses the budget and its
 * verdict (when `name` has one in `budgets`) and any note.
 */
export function formatLine(name, value, unit, { note, budgets = BUDGETS } = {}) {
  const budget = budgets[name];
  const parts = [];
  const v = verdict(value, budget);
  if (v !== null) parts.push(`budget ${String(budget)}: ${v}`);
  if (note) parts.push(note);
  const tail = parts.length > 0 ? ` (${parts.join("; ")})` : "";
  return `${name}: ${formatValue(value)}${unit ? ` ${unit}` : ""}${tail}`;
}

/** A figure that could not be measured: `name: n/a (reason)`. */
export function naLine(name, reason) {
  return `${name}: n/a (${reason})`;
}

/**
 * Splits a page's resource timings at `at` (its first map, same clock):
 * what it fetched before (the payload) and after (loaded on demand).
 */
export function splitFetches(entries, at) {
  const before = [];
  const after = [];
  for (const e of entries) (e.end <= at ? before : after).push(e.url);
  return { before, after };
}

/**
 * Program sizes to scrub the app at, largest first: --ops itself, then the
 * largest the page traced within the budget, then 100,000 (the JSON trace's
 * cap) and 10,000, each only when above `small` (the step compared against).
 */
export function scrubSizes(ops, traced, small) {
  const sizes = [ops, traced, 100_000, 10_000].filter((n) => n > small && n <= ops);
  return [...new Set(sizes)].sort((a, b) => b - a);
}

/** Bytes of what the page reads from a finished TraceRun: the 7 columns, the stats samples, the header and chunks JSON. */
export function traceBytes({ columns, samples, header, chunks }) {
  return columns + samples + header + chunks;
}

/** Parses a line back into { name, value, unit, note } (value NaN for n/a). */
export function parseLine(line) {
  const m = /^([a-z0-9_]+): (n\/a|-?[0-9.]+)(?: ([^(]*?))?(?: \((.*)\))?$/.exec(line);
  if (!m) return null;
  return { name: m[1], value: m[2] === "n/a" ? NaN : Number(m[2]), unit: m[3] ?? "", note: m[4] ?? "" };
}

/** The benchmark's program: four ops per iteration (two allocs, a free, an alloc). */
export function program(ops) {
  return `repeat ${Math.max(1, Math.floor(ops / 4))} {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}\n`;
}

/** Command-line options. */
/**
 * The program that once exhausted the engine's 4 GiB: `live` blocks made one
 * a line, then frees of a block picked at random, each made again at once,
 * up to `ops` ops in all (1,500,000, the op limit). Every op is a line of its
 * own, within every limit, and the live set stays `live` blocks throughout.
 */
export function adversarialProgram(live = 20_000, ops = 1_500_000, seed = 1) {
  let state = seed >>> 0;
  const pick = () => ((state = (Math.imul(state, 1103515245) + 12345) >>> 0) >>> 8) % live;
  const lines = [];
  for (let i = 0; i < live; i++) lines.push(`x${i} = alloc 8`);
  for (let i = 0; i < (ops - live) / 2; i++) {
    const k = pick();
    lines.push(`free x${k}`, `x${k} = alloc 8`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * adversarial_wasm_memory_mb: the adversarial program traced to its end by
 * the command line's trace module (web/pkg-trace-fast, the page's app build),
 * in a fresh instance; the figure is that instance's memory once the run has
 * finished or refused.
 */
async function adversarialFigures(root, emit) {
  const mod = await import(pathToFileURL(join(root, "web/pkg-trace-fast/trace.js")).href);
  const wasm = mod.initSync({ module: readFileSync(join(root, "web/pkg-trace-fast/trace_bg.wasm")) });
  const source = adversarialProgram();
  const started = performance.now();
  const run = new mod.TraceRun(source, "bumpalo", "64", undefined, undefined, undefined);
  let done = false;
  while (!done) done = run.advance(100_000);
  const ms = performance.now() - started;
  const error = run.error();
  const ops = run.total();
  run.free();
  const mb = wasm.memory.buffer.byteLength / 2 ** 20;
  const outcome = error ? `refused in ${formatValue(ms)} ms: ${error}` : `${count(ops)} ops traced in ${formatValue(ms)} ms`;
  emit(formatLine("adversarial_wasm_memory_mb", mb, "MB", { note: `bumpalo, 64-bit: 20,000 live blocks, then a random one freed and made again, 1,500,000 ops on ${count(source.split("\n").length - 1)} lines (${formatValue(source.length / 1e6)} MB); ${outcome}` }));
}

export function parseArgs(argv) {
  const opts = { smoke: false, runs: null, ops: null, port: 4198, build: true, out: "/tmp/dist-bench", preset: "bump-scope-up", budgetS: null, only: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const next = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${a} needs a value`);
      return v;
    };
    if (a === "--smoke") opts.smoke = true;
    else if (a === "--runs") opts.runs = Number(next());
    else if (a === "--ops") opts.ops = Number(next());
    else if (a === "--port") opts.port = Number(next());
    else if (a === "--out") opts.out = next();
    else if (a === "--preset") opts.preset = next();
    else if (a === "--no-build") opts.build = false;
    else if (a === "--budget-s") opts.budgetS = Number(next());
    else if (a === "--only") {
      opts.only = next();
      if (!ONLY.includes(opts.only)) throw new Error(`--only knows ${ONLY.join(", ")}, not ${opts.only}`);
    }
    else throw new Error(`unknown option ${a}`);
  }
  opts.ops ??= opts.smoke ? 1000 : 1_000_000;
  opts.runs ??= opts.smoke ? 1 : 5;
  opts.budgetS ??= opts.smoke ? 10 : 20;
  return opts;
}

/** Sizes tried from small to large, up to and including `ops`. */
export function ascending(ops) {
  const steps = [1_000, 2_000, 5_000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000];
  return [...steps.filter((n) => n < ops), ops];
}

/**
 * Whether to try `next` ops after `ms` at `cur` ops within `budgetMs` a run:
 * time is assumed to grow with the square of the size (it grows faster than
 * linearly today), so a run seldom overshoots the budget.
 */
export function worthTrying(cur, ms, next, budgetMs) {
  return ms * (next / cur) ** 2 <= budgetMs;
}

// ---------------------------------------------------------------------------
// The machine

function machine() {
  let cpu = "unknown";
  try {
    cpu = /^model name\s*:\s*(.*)$/m.exec(readFileSync("/proc/cpuinfo", "utf8"))?.[1]?.trim() ?? cpu;
  } catch {
    // not Linux
  }
  let memGb = NaN;
  try {
    memGb = Number(/^MemTotal:\s*(\d+)/m.exec(readFileSync("/proc/meminfo", "utf8"))?.[1]) / 1024 / 1024;
  } catch {
    // not Linux
  }
  const chromium = spawnSync("/usr/bin/chromium", ["--version"], { encoding: "utf8" }).stdout?.trim() ?? "?";
  return { nproc: availableParallelism(), cpu, memGb, node: process.version, chromium };
}

// ---------------------------------------------------------------------------
// Native

const t0 = Date.now();
const say = (text) => process.stderr.write(`[bench ${((Date.now() - t0) / 1000).toFixed(0)} s] ${text}\n`);

function buildNative(root, targetDir) {
  say(`cargo build --release -p bumplab-core --example trace_speed (CARGO_TARGET_DIR=${targetDir})`);
  const r = spawnSync("cargo", ["build", "--release", "-q", "-p", "bumplab-core", "--example", "trace_speed"], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
    env: { ...process.env, CARGO_TARGET_DIR: targetDir },
  });
  if (r.status !== 0) throw new Error("the native example did not build");
  return join(targetDir, "release", "examples", "trace_speed");
}

function runNative(bin, preset, ops, runs) {
  const r = spawnSync(bin, [preset, String(ops), String(runs), "--json"], { encoding: "utf8", maxBuffer: 1 << 20 });
  if (r.status !== 0) {
    // A program the engine refuses (its op cap) panics with the ProgramError's message.
    const why = /message: "([^"]*)"/.exec(r.stderr ?? "")?.[1] ?? (r.stderr ?? "").trim().split("\n")[0];
    throw new Error(`native ${count(ops)} ops: ${why}`);
  }
  return JSON.parse(r.stdout.trim().split("\n").pop());
}

// ---------------------------------------------------------------------------
// Servers and the browser

export function startServer(root, args, port) {
  const child = spawn(join(root, "node_modules", ".bin", "vite"), [...args, "--port", String(port), "--strictPort", "--host", "127.0.0.1"], {
    cwd: root,
    stdio: ["ignore", "ignore", "pipe"],
    detached: true,
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const origin = `http://127.0.0.1:${port}`;
  const ready = (async () => {
    const until = Date.now() + 60_000;
    while (Date.now() < until) {
      if (child.exitCode !== null) throw new Error(`vite exited: ${err}`);
      try {
        const res = await fetch(origin + "/");
        if (res.ok) return origin;
      } catch {
        // not up yet
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error(`vite did not answer on ${origin}: ${err}`);
  })();
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid, "SIGTERM"); // its own process group (detached): vite and its children
      } catch {
        resolve();
      }
    });
  return { ready, stop };
}

export const LAUNCH = {
  executablePath: "/usr/bin/chromium",
  args: [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--enable-precise-memory-info",
    "--js-flags=--max-old-space-size=8192 --expose-gc",
  ],
};
const VIEWPORT = { width: 1280, height: 800 };

/** Opens the app (index.html) and waits for its first drawn map. */
export async function openApp(browser, origin) {
  const page = await browser.newPage({ viewport: VIEWPORT });
  let crashed = false;
  page.on("crash", () => (crashed = true));
  // The dev server's live reload stays away: another hand editing web/src
  // must not reload the page in the middle of a measurement.
  await page.routeWebSocket(/./, () => undefined);
  await page.goto(`${origin}/index.html`);
  await page.waitForFunction(() => document.body.dataset["ready"] === "true" && document.querySelector("#memory-map svg"), null, {
    timeout: 60_000,
  });
  return { page, crashed: () => crashed };
}

/**
 * In the page: the trace module's TraceRun of `ops` ops, `runs` times, each
 * created and advanced to its end (one advance call: the slicer's pauses are
 * the page's, not the engine's). With `breakdown`, once more for what the page
 * reads from it (columns, stats samples, header and chunks JSON), the time of
 * an op's detail at op 100 and at the last op, and the wasm memory the run
 * holds. `{ unavailable }` when the trace module cannot load (not built yet,
 * or without TraceRun).
 */
async function traceModuleRun(page, source, preset, runs, breakdown) {
  return page.evaluate(
    async ({ source, preset, runs, breakdown }) => {
      let traceModule;
      let wasm;
      try {
        const loaders = await import("/src/wasm/appLoad.ts");
        if (typeof loaders.loadAppTraceModule !== "function") return { unavailable: "appLoad.ts has no loadAppTraceModule" };
        // The app's build (for speed), the one its runs use.
        traceModule = await loaders.loadAppTraceModule();
        // The same instance: the glue's init returns the exports it made (memory among them).
        wasm = await (await import("/pkg-trace-fast/trace.js")).default();
      } catch (e) {
        return { unavailable: `the trace module did not load: ${String(e?.message ?? e).split("\n")[0]}` };
      }
      const out = { total: [], ops: 0, error: null, parts: null, memBytes: NaN, detailFirstMs: NaN, detailLastMs: NaN };
      const request = { source, allocator: preset, target: "64", capacity: null, minAlign: null };
      const advance = (run) => {
        while (!run.advance(0x7fffffff)) {
          // runs to the end (a second call only when the engine stops early)
        }
      };
      for (let i = 0; i < runs + (breakdown ? 1 : 0); i++) {
        const measuring = i === runs;
        globalThis.gc?.();
        const mem0 = wasm.memory.buffer.byteLength;
        const t0 = performance.now();
        const run = traceModule.startRun(request);
        advance(run);
        const ms = performance.now() - t0;
        const error = run.error();
        if (error !== undefined) {
          out.error = JSON.parse(error).message ?? error;
          run.free();
          return out;
        }
        out.ops = run.executed();
        if (!measuring) out.total.push(ms);
        else {
          out.runMs = ms;
          const utf8 = (text) => new TextEncoder().encode(text).length;
          let columns = 0;
          for (const name of ["meta", "chunk", "offset", "size", "padding", "dead_at", "gone_at"]) columns += run.column(name).byteLength;
          out.parts = { columns, samples: run.statsSamples().byteLength, header: utf8(run.header()), chunks: utf8(run.chunks()) };
          out.memBytes = wasm.memory.buffer.byteLength - mem0;
          let t = performance.now();
          run.detail(Math.min(100, out.ops - 1));
          out.detailFirstMs = performance.now() - t;
          t = performance.now();
          run.detail(out.ops - 1);
          out.detailLastMs = performance.now() - t;
        }
        run.free();
      }
      return out;
    },
    { source, preset, runs, breakdown },
  );
}


/** In the page: `renderMemoryMap` of `n` synthetic blocks, timed `runs` times after one first (building) render. */
async function mapRender(page, n, runs) {
  return page.evaluate(
    async ({ n, runs }) => {
      const { timeMapRender } = await import("/src/views/map/bench.ts");
      const panel = document.querySelector(".map-panel") ?? document.body;
      const box = document.createElement("div");
      box.className = "map-container";
      box.style.width = "900px";
      panel.prepend(box);
      const first = timeMapRender(box, n);
      const times = [];
      for (let i = 0; i < runs; i++) times.push(timeMapRender(box, n));
      box.remove();
      return { first, times };
    },
    { n, runs },
  );
}

/** Types `source` into the app's editor and waits until the app shows its trace of `ops` ops (or an error). */
export async function loadProgram(page, source, preset, ops, timeout) {
  await page.selectOption("#allocator", preset);
  await page.fill("#program", source);
  const handle = await page.waitForFunction(
    (ops) => {
      const err = document.querySelector("#program-error")?.textContent?.trim();
      if (err) return { error: err };
      const range = document.getElementById("step");
      return range && range.max === String(ops) ? { ok: true } : null;
    },
    ops,
    { timeout, polling: 100 },
  );
  return handle.jsonValue();
}

/**
 * Makes the app's trace module note when a run starts (`window.__benchRunStart`,
 * the page's clock): the app calls `startRun` on the one module object the
 * loader made, after the editor's debounce. Dev server only (it imports the
 * loader by its source path).
 */
async function watchRunStarts(page) {
  await page.evaluate(async () => {
    const { loadAppTraceModule } = await import("/src/wasm/appLoad.ts");
    const module = await loadAppTraceModule();
    if (module.__benchWatched) return;
    const startRun = module.startRun.bind(module);
    module.startRun = (config) => {
      window.__benchRunStart = performance.now();
      return startRun(config);
    };
    module.__benchWatched = true;
  });
}

/**
 * One timed trace in the app: from a small program on `preset` at its last
 * op, `source` (`ops` ops) put into the editor as a paste does (one input
 * event); the time runs from the run's start (the trace module's startRun,
 * after the editor's debounce) to the first message after the frame whose
 * render shows op `ops` of `ops` (a MutationObserver on the stepper sees the
 * render's counter; the message after it runs once that frame is painted).
 */
async function pageTraceOnce(page, source, preset, ops, timeout) {
  const small = await loadProgram(page, program(4), preset, 4, timeout);
  if (small.error) throw new Error(`the 4-op program: ${small.error}`);
  await page.click('#stepper button[aria-label="Last"]');
  await page.evaluate((ops) => {
    window.__benchRunStart = NaN;
    window.__benchShownAt = NaN;
    const stepper = document.getElementById("stepper");
    const counter = document.querySelector(".step-counter");
    const seen = new MutationObserver(() => {
      if (!counter?.textContent?.startsWith(`op ${ops} / ${ops}`)) return;
      seen.disconnect();
      const c = new MessageChannel();
      c.port1.onmessage = () => (window.__benchShownAt = performance.now());
      c.port2.postMessage(0);
    });
    seen.observe(stepper, { subtree: true, childList: true, characterData: true });
  }, ops);
  await page.fill("#program", source);
  const handle = await page.waitForFunction(
    () => {
      const err = document.querySelector("#program-error")?.textContent?.trim();
      if (err) return { error: err };
      return window.__benchShownAt > 0 ? { ms: window.__benchShownAt - window.__benchRunStart } : null;
    },
    null,
    { timeout, polling: 50 },
  );
  const r = await handle.jsonValue();
  if (r.error) throw new Error(r.error);
  if (!Number.isFinite(r.ms)) throw new Error("the run's start was not seen (the app did not call the trace module's startRun)");
  return r.ms;
}

/** `runs` timed traces of `source` in the app (pageTraceOnce), one page for all. */
export async function pageTrace(page, source, preset, ops, runs, timeout) {
  await watchRunStarts(page);
  const times = [];
  for (let i = 0; i < runs; i++) times.push(await pageTraceOnce(page, source, preset, ops, timeout));
  return times;
}

/**
 * Drags the app's scrubber with the mouse (real pointer events, as a user's
 * hand: press at its left end, moves spread over `durationMs`, release at its
 * right end) across a trace of `total` ops shown from step 0, with a
 * PerformanceObserver for long tasks. The longest task comes from Chromium's
 * own trace of the page's main thread (every task, not only those over
 * 50 ms); the observer's long tasks are reported beside it.
 */
export async function scrubDragOnce(browser, page, total, durationMs) {
  await page.click('#stepper button[aria-label="First"]');
  await page.waitForFunction(() => document.querySelector(".step-counter")?.textContent?.startsWith("op 0 /"), null, { timeout: 30_000 });
  const box = await page.locator("#step").boundingBox();
  if (!box) throw new Error("the scrubber is not on screen");
  const y = box.y + box.height / 2;
  const x0 = box.x + 1;
  const x1 = box.x + box.width - 1;
  await page.evaluate(() => {
    window.__benchLong = [];
    window.__benchFrames = [];
    window.__benchDragging = true;
    const observer = new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__benchLong.push({ start: e.startTime, ms: e.duration });
    });
    observer.observe({ type: "longtask" });
    window.__benchObserver = observer;
    const frame = (t) => {
      window.__benchFrames.push(t);
      if (window.__benchDragging) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  });
  await browser.startTracing(page, { categories: ["toplevel", "disabled-by-default-devtools.timeline"] });
  const dragStart = await page.evaluate(() => performance.now());
  await page.mouse.move(x0, y);
  await page.mouse.down();
  const moves = Math.max(2, Math.round(durationMs / 16));
  const t0 = Date.now();
  for (let i = 1; i <= moves; i++) {
    const wait = t0 + (i * durationMs) / moves - Date.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    await page.mouse.move(x0 + ((x1 - x0) * i) / moves, y);
  }
  await page.mouse.up();
  const shown = await page.waitForFunction((total) => document.querySelector(".step-counter")?.textContent?.startsWith(`op ${total} / ${total}`), total, { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
  // The last render's frame and whatever follows it right away.
  await page.waitForTimeout(300);
  const traced = await browser.stopTracing();
  const r = await page.evaluate((dragStart) => {
    window.__benchDragging = false;
    window.__benchObserver.disconnect();
    const frames = window.__benchFrames.filter((t) => t >= dragStart);
    let frameMax = 0;
    for (let i = 1; i < frames.length; i++) frameMax = Math.max(frameMax, frames[i] - frames[i - 1]);
    const long = window.__benchLong.filter((e) => e.start >= dragStart);
    return { long, frameMax, frames: frames.length, counter: document.querySelector(".step-counter")?.textContent ?? "" };
  }, dragStart);
  if (!shown) throw new Error(`after the drag the counter says "${r.counter}", not op ${total} / ${total}`);
  return { ...r, longestTask: longestMainThreadTask(traced), longestCpu: longestMainThreadTask(traced, "thread"), elapsedMs: Date.now() - t0 };
}

/** Seeks the app's scrubber to `step` and times until the frame after its render (the map drawn). */
async function timeSeek(page, step) {
  return page.evaluate(async (step) => {
    const range = document.getElementById("step");
    const counter = document.querySelector(".step-counter");
    const t0 = performance.now();
    range.value = String(step);
    range.dispatchEvent(new Event("input", { bubbles: true }));
    // The app renders in the rAF it just asked for; ours runs after it, then
    // the message after the frame's style, layout and paint.
    await new Promise((r) => requestAnimationFrame(() => r()));
    await new Promise((r) => {
      const c = new MessageChannel();
      c.port1.onmessage = () => r();
      c.port2.postMessage(0);
    });
    const ms = performance.now() - t0;
    return { ms, shown: counter?.textContent ?? "" };
  }, step);
}

/**
 * Median time of one step forward at about `step`: each run first goes to the
 * step before (untimed), then one forward, as stepping and scrubbing do. Each
 * run uses a new pair (`step`, `step` − 2, …), so no run shows a step an
 * earlier one cached: every timed step derives a new picture and a new op's
 * detail.
 */
async function scrub(page, step, total, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const at = Math.max(1, step - 2 * i);
    await timeSeek(page, at - 1);
    const r = await timeSeek(page, at);
    if (!r.shown.startsWith(`op ${at} / ${total}`)) throw new Error(`the counter says "${r.shown}" after seeking to ${at}`);
    times.push(r.ms);
  }
  return times;
}

/**
 * Median time of a far jump: each run first seeks to `from` (untimed), then
 * to a step near `to` that no earlier run showed (`to` moved by `stride` a
 * run), so no cached neighbour helps: what dragging the scrubber across the
 * whole program costs.
 */
async function jump(page, from, to, stride, total, runs) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const target = to + i * stride;
    await timeSeek(page, from);
    const r = await timeSeek(page, target);
    if (!r.shown.startsWith(`op ${target} / ${total}`)) throw new Error(`the counter says "${r.shown}" after jumping to ${target}`);
    times.push(r.ms);
  }
  return times;
}

/**
 * Load of `path` in a fresh context to its first drawn map, by the page's
 * clock; and what it fetched before that map (`before`) and after it
 * (`after`: loaded on demand), from its resource timings.
 */
async function firstMap(browser, origin, path, readyScript) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  await context.addInitScript(readyScript);
  const page = await context.newPage();
  await page.goto(`${origin}/${path}`);
  await page.waitForFunction(() => window.__bench_map_at > 0, null, { timeout: 60_000 });
  // Whatever the page starts right after its map (a lazy module) gets a moment to show up as "after".
  await page.waitForTimeout(300);
  const { ms, entries } = await page.evaluate(() => ({
    ms: window.__bench_map_at,
    entries: performance.getEntriesByType("resource").map((e) => ({ url: e.name, end: e.responseEnd })),
  }));
  await context.close();
  return { ms, ...splitFetches(entries, ms) };
}

// In the page before anything runs: the time of the first frame painted after
// the map's svg exists and its root says ready.
const readyWatch = (rootSelector, mapSelector) => `(() => {
  const done = () => {
    window.__bench_map_at = -1;
    requestAnimationFrame(() => {
      const c = new MessageChannel();
      c.port1.onmessage = () => { window.__bench_map_at = performance.now(); };
      c.port2.postMessage(0);
    });
  };
  const check = () => {
    if (window.__bench_map_at) return;
    const root = document.querySelector(${JSON.stringify(rootSelector)});
    if (root && root.dataset.ready === "true" && document.querySelector(${JSON.stringify(mapSelector)})) done();
  };
  new MutationObserver(check).observe(document, { subtree: true, childList: true, attributes: true });
})();`;

/** gzip -9 sizes of the JS, wasm and CSS files among `urls` (and JSON with `json`), read from the build in `dist`. */
function payload(urls, origin, dist, { json = false } = {}) {
  const byKind = json ? { js: 0, wasm: 0, css: 0, json: 0 } : { js: 0, wasm: 0, css: 0 };
  const files = [];
  for (const url of new Set(urls)) {
    if (!url.startsWith(origin)) continue;
    const path = decodeURIComponent(new URL(url).pathname);
    const kind = extname(path).slice(1);
    if (!(kind in byKind)) continue;
    const file = join(dist, path);
    if (!existsSync(file)) continue;
    const raw = readFileSync(file);
    const gz = gzipSync(raw, { level: 9 }).length;
    byKind[kind] += gz;
    files.push({ path, raw: raw.length, gz });
  }
  return { byKind, files, total: Object.values(byKind).reduce((a, b) => a + b, 0) };
}

/**
 * The Instructions view's first open on `hash` in the app: the listing files
 * it fetched (its index and a file per function the op ran) and their gzip
 * -9 bytes. The cost module it also needs is counted apart (it is the Cost
 * view's too).
 */
async function listingFirstOpen(browser, origin, dist, hash) {
  const context = await browser.newContext({ viewport: VIEWPORT });
  const page = await context.newPage();
  try {
    await page.goto(`${origin}/index.html#${hash}`);
    await page.getByRole("button", { name: "Instructions this op executed", exact: true }).click({ timeout: 60_000 });
    await page.locator("#instructions-view .instructions-summary").waitFor({ timeout: 60_000 });
    const urls = await page.evaluate(() => performance.getEntriesByType("resource").map((e) => e.name));
    const listing = payload(
      urls.filter((u) => /\/listing-[0-9a-f]+\//.test(u)),
      origin,
      dist,
      { json: true },
    );
    const summary = (await page.locator("#instructions-view .instructions-summary").textContent()) ?? "";
    return { kb: listing.total / 1024, files: listing.files.length, summary };
  } finally {
    await context.close();
  }
}

/** Packs the package from the site built in `dist` (scripts/pack.mjs) and returns the tarball's size and file count. */
function packedTarball(root, dist) {
  const out = join(dist, "..", `${dist.split("/").pop()}-pack`);
  const r = spawnSync(process.execPath, [join(root, "scripts", "pack.mjs"), "--site", dist, "--out", out], { cwd: root, encoding: "utf8" });
  if (r.status !== 0) throw new Error(`scripts/pack.mjs failed: ${r.stderr.trim().split("\n").slice(-2).join(" | ")}`);
  const tarball = r.stdout.trim().split("\n").at(-1);
  const files = /: (\d+) files, .* ([\d.]+) MB unpacked/.exec(r.stdout + r.stderr);
  return { bytes: statSync(tarball).size, files: Number(files?.[1] ?? NaN), unpackedMb: Number(files?.[2] ?? NaN) };
}

/** A program of the app's link form: the bench's listing views. */
const LISTING_VIEWS = [
  { name: "the app's first view (fitzgen-down, its last op)", hash: "v1?a=fitzgen-down&t=64&s=6&p=a+=+alloc+1%0Ab+=+alloc+u64%0Ac+=+alloc+24+align+16%0Ad+=+alloc+[u32;+5]%0Afree+b%0Ae+=+alloc+u128&end" },
  { name: "bumpalo's new chunk (its slow path, wasm32)", hash: "v1?a=bumpalo&t=wasm32&s=8&p=repeat+10+%7B+x+=+alloc+64+%7D&end" },
];

/**
 * What the drag's tasks cost in CPU time, and how busy the machine was: the
 * wall-clock figure of a loaded machine is read against them.
 */
function dragCpuNote(s) {
  return `the most CPU time a task took: ${formatValue(s.cpuMs)} ms (median); load average ${loadavg()[0].toFixed(1)}`;
}

/**
 * --only scrub_drag: the drag figure alone (dev server, program loaded once,
 * --runs drags), for measuring a change to the page without the whole bench.
 */
async function scrubDragOnly(opts, emit) {
  const { root } = await import("./lib.mjs");
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch(LAUNCH);
  const dev = startServer(root, [], opts.port);
  try {
    const origin = await dev.ready;
    const app = await openApp(browser, origin);
    say(`scrub drag: ${count(opts.ops)} ops of ${opts.preset} × ${opts.runs}`);
    const loaded = await loadProgram(app.page, program(opts.ops), opts.preset, opts.ops, Math.max(120_000, 10 * opts.budgetS * 1000));
    if (loaded.error) throw new Error(loaded.error);
    const drags = [];
    for (let i = 0; i < opts.runs; i++) drags.push(await scrubDragOnce(browser, app.page, opts.ops, DRAG_MS));
    const s = summariseDrags(drags);
    emit(
      formatLine("scrub_drag_longest_task_ms", s.longestMs, "ms", {
        note:
          `the longest main-thread task of each drag: ${s.runs.map(formatValue).join(", ")} ms; long tasks per drag: ${s.longCounts.join(", ")}; longest frame ${formatValue(s.frameMs)} ms (median); ` +
          dragCpuNote(s),
      }),
    );
  } finally {
    await dev.stop();
    await browser.close();
  }
}

/**
 * In the page (dev server): a recording of `ops` ops in the shape the
 * recorder writes (web/src/test/recording.ts), one line an op, kept in
 * window.__benchRecording; returns its length in lines.
 */
async function makeRecording(page, ops, seed) {
  return page.evaluate(
    async ({ ops, seed }) => {
      const { recording } = await import("/src/test/recording.ts");
      const r = recording(ops, seed);
      window.__benchRecording = r.text;
      return { chars: r.text.length, lines: r.text.split("\n").length - 1 };
    },
    { ops, seed },
  );
}

/**
 * In the page: arms a watch for the frame whose render shows op `ops` of
 * `ops` (the counter), as pageTraceOnce does; its time lands in
 * window.__benchShownAt.
 */
async function watchShown(page, ops) {
  await page.evaluate((ops) => {
    window.__benchShownAt = NaN;
    const counter = document.querySelector(".step-counter");
    const stepper = document.getElementById("stepper");
    const seen = new MutationObserver(() => {
      if (!counter?.textContent?.startsWith(`op ${ops} / ${ops}`)) return;
      seen.disconnect();
      const c = new MessageChannel();
      c.port1.onmessage = () => (window.__benchShownAt = performance.now());
      c.port2.postMessage(0);
    });
    seen.observe(stepper, { subtree: true, childList: true, characterData: true });
  }, ops);
}

/** When the watched frame was painted; an error on screen fails it, unless `halfTyped` (a line typed so far is one). */
async function shownAt(page, timeout, halfTyped = false) {
  const handle = await page.waitForFunction(
    (halfTyped) => {
      const err = document.querySelector("#program-error")?.textContent?.trim();
      if (err && !halfTyped) return { error: err };
      return window.__benchShownAt > 0 ? { at: window.__benchShownAt } : null;
    },
    halfTyped,
    { timeout, polling: 50 },
  );
  const r = await handle.jsonValue();
  if (r.error) throw new Error(r.error);
  return r.at;
}

/**
 * A program opened from a file (the Open file button's input): the time
 * from the input's change event to the painted frame showing its last op.
 */
async function openRecordingOnce(page, ops, timeout) {
  await watchShown(page, ops);
  await page.evaluate(() => {
    const input = document.getElementById("program-file");
    window.__benchOpenAt = NaN;
    input.addEventListener("change", () => (window.__benchOpenAt = performance.now()), { capture: true, once: true });
  });
  const text = await page.evaluate(() => window.__benchRecording);
  await page.setInputFiles("#program-file", { name: "recording.txt", mimeType: "text/plain", buffer: Buffer.from(text) });
  const at = await shownAt(page, timeout);
  return at - (await page.evaluate(() => window.__benchOpenAt));
}

/**
 * Keys typed at the end of the program in the editor, `gapMs` apart as a
 * typist's: the longest main-thread task from the first key to the frame
 * after the last (Chromium's trace), and the longest until the edited
 * program's run is painted (`ops` ops then).
 */
async function typeAtEnd(browser, page, keys, gapMs, ops, timeout) {
  await page.locator("#program").click();
  await page.keyboard.press("Control+End");
  await page.waitForTimeout(500);
  await watchShown(page, ops);
  await browser.startTracing(page, { categories: ["toplevel", "disabled-by-default-devtools.timeline"] });
  for (const key of keys) {
    await page.keyboard.press(key);
    await page.waitForTimeout(gapMs);
  }
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0))));
  const typing = longestMainThreadTask(await browser.stopTracing());
  await browser.startTracing(page, { categories: ["toplevel", "disabled-by-default-devtools.timeline"] });
  await shownAt(page, timeout, true);
  const run = longestMainThreadTask(await browser.stopTracing());
  return { typing, run };
}

/** A program pasted over the editor's whole text: from the paste event to the painted frame showing its last op. */
async function pasteOnce(page, ops, timeout) {
  await page.locator("#program").click();
  await page.keyboard.press("Control+a");
  await watchShown(page, ops);
  await page.evaluate(() => {
    const data = new DataTransfer();
    data.setData("text/plain", window.__benchRecording);
    const content = document.getElementById("program");
    window.__benchPasteAt = performance.now();
    content.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  });
  const at = await shownAt(page, timeout);
  return at - (await page.evaluate(() => window.__benchPasteAt));
}

/**
 * --only lines: programs written line by line, as the recorder writes them
 * (dev server): a million-line recording opened from a file, keys typed at
 * its end, a 20,000-line one pasted, and the wasm memory a million-line run
 * holds (in a fresh page).
 */
async function linesFigures(opts, emit) {
  const { root } = await import("./lib.mjs");
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch(LAUNCH);
  const dev = startServer(root, [], opts.port);
  const ops = opts.smoke ? 20_000 : 1_000_000;
  const timeout = Math.max(180_000, 10 * opts.budgetS * 1000);
  const load = () => `load average ${loadavg()[0].toFixed(1)}`;
  try {
    const origin = await dev.ready;
    // A fresh page: nothing run before the first open grew its memory.
    const app = await openApp(browser, origin);
    await app.page.selectOption("#allocator", opts.preset);
    const rec = await makeRecording(app.page, ops, 1);
    // The app's own instance (the glue's init gives the exports it made).
    const memory = () => app.page.evaluate(async () => (await (await import("/pkg-trace-fast/trace.js")).default()).memory.buffer.byteLength);
    say(`lines: open a ${count(rec.lines)}-line recording × ${opts.runs}`);
    const opens = [];
    let grew = NaN;
    for (let i = 0; i < opts.runs; i++) {
      // Another program between two opens, so each open replaces a run.
      if (i > 0) {
        await app.page.fill("#program", program(4));
        await app.page.waitForFunction(() => document.querySelector(".step-counter")?.textContent?.endsWith("/ 4"), null, { timeout });
      }
      const before = await memory();
      opens.push(await openRecordingOnce(app.page, ops, timeout));
      if (i === 0) grew = (await memory()) - before;
    }
    emit(
      formatLine("wasm_memory_bytes_per_op_lines", grew / ops, "B/op", {
        note: `the app's trace instance grew ${formatValue(grew / 1e6)} MB while it opened a ${count(rec.lines)}-line recording (${formatValue(rec.chars / 1e6)} MB) on ${opts.preset}, parsed in the parse worker, and ran it to its last op (a fresh page)`,
      }),
    );
    emit(
      formatLine(`page_open_ms_${ops === 1_000_000 ? "1m" : count(ops)}_lines`, median(opens), "ms", {
        note: `that recording opened from a file to the painted last op: ${opens.map(formatValue).join(", ")} ms (the first in a fresh page); ${load()}`,
      }),
    );
    say(`lines: 12 keys typed at its end × ${opts.runs}`);
    const typed = [];
    let total = ops;
    for (let i = 0; i < opts.runs; i++) {
      // Each key a line's worth: a new line and `xN = alloc 8`, one op more.
      total += 1;
      const name = `k${i}`;
      typed.push(await typeAtEnd(browser, app.page, ["Enter", ...name, "Space", "=", "Space", ..."alloc", "Space", "8"].map((k) => (k === " " ? "Space" : k)), 80, total, timeout));
    }
    emit(
      formatLine(`keystroke_ms_${ops === 1_000_000 ? "1m" : count(ops)}_lines`, median(typed.map((t) => t.typing)), "ms", {
        note:
          `the longest main-thread task while typing a line at the end of that program, keys 80 ms apart: ${typed.map((t) => formatValue(t.typing)).join(", ")} ms; ` +
          `the longest task of the run that follows once typing pauses: ${typed.map((t) => formatValue(t.run)).join(", ")} ms; ${load()}`,
      }),
    );
    await app.page.close();
    const paste = await openApp(browser, origin);
    await paste.page.selectOption("#allocator", opts.preset);
    const small = await makeRecording(paste.page, 20_000, 2);
    say(`lines: paste a ${count(small.lines)}-line recording × ${opts.runs}`);
    const pastes = [];
    for (let i = 0; i < opts.runs; i++) {
      if (i > 0) {
        await paste.page.fill("#program", program(4));
        await paste.page.waitForFunction(() => document.querySelector(".step-counter")?.textContent?.endsWith("/ 4"), null, { timeout });
      }
      pastes.push(await pasteOnce(paste.page, 20_000, timeout));
    }
    emit(
      formatLine("paste_ms_20k_lines", median(pastes), "ms", {
        note: `a ${count(small.lines)}-line recording pasted over the program, paste event to the painted last op: ${pastes.map(formatValue).join(", ")} ms; ${load()}`,
      }),
    );
    await paste.page.close();
  } finally {
    await dev.stop();
    await browser.close();
  }
}

// ---------------------------------------------------------------------------
// The run

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const { root } = await import("./lib.mjs");
  const started = Date.now();
  const budgetMs = opts.budgetS * 1000;
  const lines = [];
  const emit = (line) => {
    lines.push(line);
    console.log(line);
  };
  const m = machine();
  emit(
    `# bump-lab bench${opts.smoke ? " --smoke" : ""}: ${count(opts.ops)} ops of ${opts.preset}, medians of ${opts.runs} run${opts.runs === 1 ? "" : "s"}; ` +
      `sizes grow from 1,000 ops while a run is predicted to take at most ${opts.budgetS} s`,
  );
  emit(`# machine: nproc ${m.nproc}, ${m.cpu}, ${formatValue(m.memGb)} GB RAM; node ${m.node}; ${m.chromium}`);
  if (opts.only === "lines") {
    await linesFigures(opts, emit);
    return lines;
  }
  if (opts.only === "recorded") {
    await recordedFigures(opts, emit);
    return lines;
  }
  if (opts.only === "adversarial") {
    await adversarialFigures(root, emit);
    return lines;
  }
  if (opts.only === "scrub_drag") {
    await scrubDragOnly(opts, emit);
    emit(`# done in ${formatValue((Date.now() - started) / 1000)} s`);
    return lines;
  }
  if (opts.only === "sizes") {
    const { chromium } = await import("@playwright/test");
    const browser = await chromium.launch(LAUNCH);
    await productionFigures(opts, emit, root, browser);
    emit(`# done in ${formatValue((Date.now() - started) / 1000)} s`);
    return lines;
  }

  // --- Native ----------------------------------------------------------------
  const bin = buildNative(root, process.env.CARGO_TARGET_DIR ?? "/tmp/tgt-bench");
  const nativeRuns = new Map();
  /** Native runs at `ops` until there are `runs` of them; the figures of all. */
  const native = (ops, runs) => {
    const have = nativeRuns.get(ops);
    const missing = runs - (have?.run_ms.length ?? 0);
    if (missing > 0) {
      say(`native: ${count(ops)} ops × ${missing}`);
      const r = runNative(bin, opts.preset, ops, missing);
      nativeRuns.set(ops, have ? { ...r, run_ms: [...have.run_ms, ...r.run_ms], json_ms: [...have.json_ms, ...r.json_ms] } : r);
    }
    const r = nativeRuns.get(ops);
    return { ...r, ms: median(r.run_ms), opsPerS: r.ops / (median(r.run_ms) / 1e3), jsonMs: median(r.json_ms) };
  };
  /** The largest size of ascending(opts.ops) whose run is predicted within the budget, with its last time. */
  let natFailure = null;
  const climb = (measure) => {
    let best = null;
    for (const ops of ascending(opts.ops)) {
      if (best && !worthTrying(best.ops, best.ms, ops, budgetMs)) break;
      try {
        best = { ops, ms: measure(ops) };
      } catch (e) {
        natFailure = String(e.message ?? e);
        break;
      }
    }
    if (!best) throw new Error(natFailure ?? "no native run");
    return best;
  };
  const natTop = climb((ops) => native(ops, 1).ms);
  const nat = native(natTop.ops, opts.runs);
  const natFull = natTop.ops === opts.ops;
  // At least this long for `ops` at the rate of the largest size measured (time grows faster than the size today).
  const estimate = (ops, table) => {
    const top = Math.max(...table.keys());
    return (median(table.get(top).run_ms) * ops) / top;
  };
  const natNote = natFull
    ? `${count(nat.ops)} ops in ${formatValue(nat.ms)} ms, the columnar run to its end`
    : `largest within the budget: ${count(nat.ops)} ops in ${formatValue(nat.ms)} ms, the columnar run to its end; ` +
      (natFailure ?? `${count(opts.ops)} ops would take at least ${formatValue(estimate(opts.ops, nativeRuns) / 1000)} s`);
  emit(formatLine("trace_ops_per_s_native", nat.opsPerS, "ops/s", { note: natNote }));
  emit(`# native ops/s by size: ${[...nativeRuns.entries()].sort((x, y) => x[0] - y[0]).map(([n, r]) => `${count(n)}: ${formatValue(n / (median(r.run_ms) / 1e3))}`).join(", ")}`);

  // --- Browser: dev server ---------------------------------------------------
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch(LAUNCH);
  let dev = startServer(root, [], opts.port);
  let bytesPerOp = NaN;
  let wasmTop = null;
  try {
    const origin = await dev.ready;
    say(`dev server ${origin}`);
    let app = await openApp(browser, origin);

    // Wasm tracing: the trace module's TraceRun (the JSON engine while it is
    // missing), one run a size while the next is predicted within the budget.
    let traceWhy = null;
    const probe = await traceModuleRun(app.page, program(4), opts.preset, 1, false);
    if (probe.unavailable || probe.error) traceWhy = probe.unavailable ?? `the trace module's run failed: ${probe.error}`;
    const hasTraceModule = traceWhy === null;
    if (!hasTraceModule) say(`wasm: ${traceWhy}; measuring the cost module's JSON trace instead`);
    const measure = (ops, runs, breakdown) => (hasTraceModule ? traceModuleRun : jsonTrace)(app.page, program(ops), opts.preset, runs, breakdown);
    let failure = null;
    const wasmMs = new Map();
    for (const ops of ascending(opts.ops)) {
      if (wasmTop && !worthTrying(wasmTop.ops, wasmTop.ms, ops, budgetMs)) break;
      say(`wasm: ${count(ops)} ops`);
      try {
        const r = await measure(ops, 1, false);
        if (r.unavailable) throw new Error(r.unavailable);
        if (r.error) throw new Error(r.error);
        wasmTop = { ops, ms: r.total[0] };
        wasmMs.set(ops, { run_ms: r.total });
      } catch (e) {
        failure = `${count(ops)} ops failed: ${String(e.message ?? e).split("\n")[0].slice(0, 160)}`;
        await app.page.close().catch(() => undefined);
        app = await openApp(browser, origin);
        break;
      }
    }
    const what = hasTraceModule ? "TraceRun created and advanced to its end" : `the cost module's JSON trace (engine.trace), as ${traceWhy}`;
    if (wasmTop) {
      say(`wasm: ${count(wasmTop.ops)} ops × ${opts.runs} (and once more for the breakdown${hasTraceModule ? ", in a fresh page" : ""})`);
      let r = await measure(wasmTop.ops, opts.runs, !hasTraceModule);
      if (r.error || r.unavailable) throw new Error(`wasm ${count(wasmTop.ops)} ops: ${r.error ?? r.unavailable}`);
      if (hasTraceModule) {
        // A fresh page, so the memory the run takes is not memory a run before it freed.
        const fresh = await openApp(browser, origin);
        try {
          const b = await traceModuleRun(fresh.page, program(wasmTop.ops), opts.preset, 0, true);
          if (b.error || b.unavailable) throw new Error(`wasm breakdown: ${b.error ?? b.unavailable}`);
          r = { ...r, parts: b.parts, memBytes: b.memBytes, detailFirstMs: b.detailFirstMs, detailLastMs: b.detailLastMs, freshMs: b.runMs };
        } finally {
          await fresh.page.close().catch(() => undefined);
        }
      }
      const ms = median(r.total);
      const opsPerS = r.ops / (ms / 1e3);
      const full = wasmTop.ops === opts.ops;
      const why = full ? "" : failure ?? `${count(opts.ops)} ops would take at least ${formatValue(estimate(opts.ops, wasmMs) / 1000)} s`;
      const note = `${full ? "" : "largest within the budget: "}${count(r.ops)} ops in ${formatValue(ms)} ms, ${what}${why ? `; ${why}` : ""}`;
      emit(formatLine("trace_ops_per_s_wasm", opsPerS, "ops/s", { note }));
      if (Number.isFinite(r.freshMs)) {
        // The median above reuses a page whose wasm memory earlier runs grew;
        // a page's very first run also grows it, which costs more on this VM.
        emit(
          formatLine("trace_ops_per_s_wasm_fresh", r.ops / (r.freshMs / 1e3), "ops/s", {
            note: `information: one run in a fresh page (its wasm memory grown as it goes), ${count(r.ops)} ops in ${formatValue(r.freshMs)} ms`,
          }),
        );
      }
      const same = native(r.ops, opts.runs);
      emit(
        formatLine("wasm_vs_native_ratio", same.opsPerS / opsPerS, "x", {
          note: `at ${count(r.ops)} ops: native ${formatValue(same.opsPerS)} ops/s (columnar run) over the page's ${formatValue(opsPerS)} ops/s`,
        }),
      );
      if (hasTraceModule) {
        const bytes = traceBytes(r.parts);
        bytesPerOp = bytes / r.ops;
        const kb = (n) => `${formatValue(n / 1024)} kB`;
        emit(
          formatLine("trace_bytes_per_op", bytesPerOp, "B/op", {
            note:
              `what the page reads from the run: columns ${kb(r.parts.columns)} + stats samples ${kb(r.parts.samples)} + ` +
              `header ${kb(r.parts.header)} + chunks ${kb(r.parts.chunks)} JSON for ${count(r.ops)} ops` +
              (full ? "" : `; ${count(opts.ops)} ops would be ${formatValue((bytesPerOp * opts.ops) / 1e6)} MB`),
          }),
        );
        if (Number.isFinite(r.memBytes)) {
          emit(
            formatLine("wasm_memory_bytes_per_op", r.memBytes / r.ops, "B/op", {
              note: `information: the wasm memory grew ${formatValue(r.memBytes / 1e6)} MB during a run of ${count(r.ops)} ops kept alive (engine snapshots, columns, allocator slack; in a fresh page)`,
            }),
          );
        }
        emit(formatLine("detail_ms_last_op", r.detailLastMs, "ms", { note: `an op's detail from the run: op ${count(Math.min(100, r.ops - 1))} in ${formatValue(r.detailFirstMs)} ms, the last op (of ${count(r.ops)}) in ${formatValue(r.detailLastMs)} ms` }));
      } else {
        bytesPerOp = r.jsonChars / r.ops;
        emit(
          formatLine("trace_bytes_per_op", bytesPerOp, "B/op", {
            note: `the cost module's JSON (the trace module is missing): ${formatValue(r.jsonChars / 1e6)} MB for ${count(r.ops)} ops`,
          }),
        );
      }
      if (Number.isFinite(same.jsonMs)) {
        const extra = [];
        if (Number.isFinite(same.bytes)) extra.push(`trace ${formatValue(same.bytes / same.ops)} B/op`);
        if (Number.isFinite(same.json_bytes)) extra.push(`${formatValue(same.json_bytes / 1024)} kB of header and chunks JSON`);
        if (Number.isFinite(same.snapshot_bytes)) extra.push(`snapshots about ${formatValue(same.snapshot_bytes / 1024)} kB each`);
        if (Number.isFinite(same.detail_last_ms)) extra.push(`detail of the last op ${formatValue(same.detail_last_ms)} ms`);
        emit(formatLine("native_read_ms", same.jsonMs, "ms", { note: `native, ${count(same.ops)} ops: header and chunks to JSON and the columns copied out; ${extra.join(", ")}` }));
      }
    } else {
      emit(naLine("trace_ops_per_s_wasm", failure ?? "no size traced"));
      emit(naLine("wasm_vs_native_ratio", "no wasm figure"));
      emit(naLine("trace_bytes_per_op", "no wasm trace"));
    }

    // Scrubbing the real app: step 100 and the last step of a program of
    // --ops ops typed into its editor (the app traces it as it would any
    // program); when the app refuses that size or takes too long, smaller
    // ones (scrubSizes), each failure kept for the note.
    const small = Math.min(100, opts.ops - 1);
    let scrubbed = null;
    const scrubFailures = [];
    for (const size of scrubSizes(opts.ops, wasmTop?.ops ?? 0, small)) {
      say(`scrub: the app with ${count(size)} ops`);
      try {
        const loaded = await loadProgram(app.page, program(size), opts.preset, size, Math.max(60_000, 10 * budgetMs));
        if (loaded.error) throw new Error(loaded.error);
        const atEnd = await scrub(app.page, size, size, opts.runs);
        const atSmall = await scrub(app.page, small, size, opts.runs);
        const jumpEnd = await jump(app.page, 0, size, -131, size, opts.runs);
        const jumpSmall = await jump(app.page, size, small, 97, size, opts.runs);
        scrubbed = { ops: size, atEnd, atSmall, jumpEnd, jumpSmall };
        break;
      } catch (e) {
        scrubFailures.push(`${count(size)} ops: ${String(e.message ?? e).split("\n")[0].slice(0, 160)}`);
        await app.page.close().catch(() => undefined);
        app = await openApp(browser, origin);
      }
    }
    const scrubFailure = scrubFailures.length > 0 ? scrubFailures.join("; ") : "no trace larger than 100 ops fits the page";
    if (scrubbed) {
      const a = median(scrubbed.atSmall);
      const b = median(scrubbed.atEnd);
      const full = scrubbed.ops === opts.ops;
      emit(formatLine("scrub_ms_at_100", a, "ms", { note: `step ${count(small)} of ${count(scrubbed.ops)}` }));
      if (full) {
        emit(formatLine("scrub_ms_at_1m", b, "ms", { note: `step ${count(scrubbed.ops)} of ${count(scrubbed.ops)}` }));
      } else {
        const reasons = [...scrubFailures];
        if (wasmMs.size > 0 && (wasmTop?.ops ?? 0) < opts.ops) reasons.push(`tracing ${count(opts.ops)} ops would take at least ${formatValue(estimate(opts.ops, wasmMs) / 1000)} s in the page`);
        if (natFailure) reasons.push(natFailure);
        emit(naLine("scrub_ms_at_1m", `${reasons.join("; ") || "not tried"}; largest measured: ${count(scrubbed.ops)} ops, ${formatValue(b)} ms at its last step`));
      }
      emit(
        formatLine("scrub_ratio_1m_vs_100", b / a, "x", {
          note: full ? "" : `last step of ${count(scrubbed.ops)} ops over step ${count(small)}`,
        }),
      );
      emit(
        formatLine("scrub_ms_far_jump", median(scrubbed.jumpEnd), "ms", {
          note: `information: step 0 to step ${count(scrubbed.ops)} (a new step each run, nothing cached); step ${count(scrubbed.ops)} back to ${count(small)}: ${formatValue(median(scrubbed.jumpSmall))} ms`,
        }),
      );
    } else {
      emit(naLine("scrub_ms_at_100", scrubFailure));
      emit(naLine("scrub_ms_at_1m", scrubFailure));
      emit(naLine("scrub_ratio_1m_vs_100", "no scrub figure"));
    }

    // Tracing in the app, as a user waits for it: the program pasted into
    // the editor, from the run's start to the painted map of its last op,
    // on the slowest preset and on --preset.
    const traceMs = Math.max(120_000, 10 * budgetMs);
    for (const preset of [...new Set(["bumpalo", opts.preset])]) {
      const name = pageTraceName(preset);
      say(`page trace: ${count(opts.ops)} ops of ${preset} × ${opts.runs}`);
      try {
        const times = await pageTrace(app.page, program(opts.ops), preset, opts.ops, opts.runs, traceMs);
        emit(
          formatLine(name, median(times), "ms", {
            note: `${count(opts.ops)} ops of ${preset} pasted into the app's editor, the run's start to the painted map of its last op; runs ${times.map(formatValue).join(", ")} ms`,
          }),
        );
      } catch (e) {
        emit(naLine(name, `${count(opts.ops)} ops of ${preset}: ${String(e.message ?? e).split("\n")[0].slice(0, 160)}`));
        await app.page.close().catch(() => undefined);
        app = await openApp(browser, origin);
      }
    }

    // Dragging the scrubber across the whole trace with the mouse.
    say(`scrub drag: ${count(opts.ops)} ops of ${opts.preset} × ${opts.runs}`);
    try {
      const loaded = await loadProgram(app.page, program(opts.ops), opts.preset, opts.ops, traceMs);
      if (loaded.error) throw new Error(loaded.error);
      const drags = [];
      for (let i = 0; i < opts.runs; i++) drags.push(await scrubDragOnce(browser, app.page, opts.ops, DRAG_MS));
      const s = summariseDrags(drags);
      emit(
        formatLine("scrub_drag_longest_task_ms", s.longestMs, "ms", {
          note:
            `${count(opts.ops)} ops of ${opts.preset}, the scrubber dragged from op 0 to the last with the mouse over ${formatValue(DRAG_MS / 1000)} s; ` +
            `the longest main-thread task of each drag (Chromium's trace): ${s.runs.map(formatValue).join(", ")} ms; ` +
            `long tasks (PerformanceObserver, over 50 ms) per drag: ${s.longCounts.join(", ")}; longest frame ${formatValue(s.frameMs)} ms (median); ` +
            dragCpuNote(s),
        }),
      );
    } catch (e) {
      emit(naLine("scrub_drag_longest_task_ms", `${count(opts.ops)} ops of ${opts.preset}: ${String(e.message ?? e).split("\n")[0].slice(0, 160)}`));
      await app.page.close().catch(() => undefined);
      app = await openApp(browser, origin);
    }

    // The map alone: 100,000 synthetic blocks.
    const blocks = opts.smoke ? 1000 : 100_000;
    say(`map render: ${count(blocks)} blocks`);
    try {
      const r = await mapRender(app.page, blocks, Math.max(opts.runs, 3));
      emit(
        formatLine("render_ms_100k_blocks", median(r.times), "ms", {
          note:
            `${count(blocks)} blocks${opts.smoke ? " (smoke)" : ""}, median of ${r.times.length} redraws as a step changes one block (the map's JS, renderMemoryMap); ` +
            `the first render, which builds the map and its held index from the columns, ${formatValue(r.first)} ms`,
        }),
      );
    } catch (e) {
      emit(naLine("render_ms_100k_blocks", String(e.message ?? e).split("\n")[0]));
    }
    await app.page.close().catch(() => undefined);
  } finally {
    await dev.stop();
  }

  await productionFigures(opts, emit, root, browser);
  await linesFigures(opts, emit);
  if (!opts.smoke) await recordedFigures(opts, emit);
  await adversarialFigures(root, emit);
  emit(`# done in ${formatValue((Date.now() - started) / 1000)} s`);
  return lines;
}

/**
 * --only recorded: a real program's recording at scale (scripts/record-large.mjs:
 * gcc -O2 on a generated file, about 1.09 million calls, made once into
 * target/recordings), opened from a file in a fresh page on bumpalo and on
 * bump-scope-up (dev server): the time to the painted last op, the app's
 * wasm memory per op, and the run's figures as the command line gives them.
 */
async function recordedFigures(opts, emit) {
  const { root } = await import("./lib.mjs");
  const { recordLarge, replaySummary } = await import("./record-large.mjs");
  const file = recordLarge();
  const text = readFileSync(file, "utf8");
  const ops = Number(/^# (\d+) ops \(repeats expanded\)/m.exec(text)?.[1]);
  const { chromium } = await import("@playwright/test");
  const browser = await chromium.launch(LAUNCH);
  const dev = startServer(root, [], opts.port);
  const timeout = Math.max(180_000, 10 * opts.budgetS * 1000);
  try {
    const origin = await dev.ready;
    for (const preset of ["bumpalo", "bump-scope-up"]) {
      const key = preset.replace(/[^a-z0-9]+/gi, "_");
      const s = replaySummary(file, preset).stats;
      const opens = [];
      let grew = NaN;
      for (let i = 0; i < opts.runs; i++) {
        // A fresh page each time: its memory grows from the default program's alone.
        const app = await openApp(browser, origin);
        await app.page.selectOption("#allocator", preset);
        await app.page.evaluate((t) => (window.__benchRecording = t), text);
        const memory = () => app.page.evaluate(async () => (await (await import("/pkg-trace-fast/trace.js")).default()).memory.buffer.byteLength);
        const before = await memory();
        opens.push(await openRecordingOnce(app.page, ops, timeout));
        if (i === 0) grew = (await memory()) - before;
        await app.page.close();
      }
      const about =
        `gcc -O2 on a generated C file, recorded: ${count(ops)} ops on ${count(text.split("\n").length - 1)} lines (${formatValue(text.length / 1e6)} MB); ` +
        `${s.chunks} chunks, ${formatValue(s.requested / 1e6)} MB requested by the blocks live at the end, ${formatValue(s.leaked / 1e6)} MB of dead blocks left in the chunks, ` +
        `${formatValue(s.padding / 1e6)} MB of padding, ${formatValue(s.copied / 1e6)} MB copied by reallocs that moved`;
      emit(formatLine(`recorded_open_ms_${key}`, median(opens), "ms", { note: `${about}; opened from a file to the painted last op: ${opens.map(formatValue).join(", ")} ms; load average ${loadavg()[0].toFixed(1)}` }));
      emit(formatLine(`recorded_wasm_memory_bytes_per_op_${key}`, grew / ops, "B/op", { note: `the app's trace instance grew ${formatValue(grew / 1e6)} MB` }));
    }
  } finally {
    await dev.stop();
    await browser.close();
  }
}

/** The figures of the production build: the embed's payload and first map, the app's first map, the listing's first open, the package. */
async function productionFigures(opts, emit, root, browser) {
  // --- Browser: the production build ----------------------------------------
  if (opts.build || !existsSync(join(opts.out, "embed.html"))) {
    say(`vite build --outDir ${opts.out}`);
    const r = spawnSync(join(root, "node_modules", ".bin", "vite"), ["build", "--outDir", opts.out, "--logLevel", "warn"], {
      cwd: root,
      stdio: ["ignore", "ignore", "inherit"],
    });
    if (r.status !== 0) throw new Error("vite build failed");
  }
  const preview = startServer(root, ["preview", "--outDir", opts.out], opts.port);
  try {
    const origin = await preview.ready;
    say(`preview ${origin}`);
    const embedRuns = [];
    let fetched = { before: [], after: [] };
    for (let i = 0; i < Math.max(opts.runs, 1); i++) {
      const r = await firstMap(browser, origin, "embed.html", readyWatch("#embed", '[data-view="memory-map"] svg'));
      embedRuns.push(r.ms);
      fetched = r;
    }
    const p = payload(fetched.before, origin, opts.out);
    const later = payload(fetched.after, origin, opts.out);
    const kb = (n) => n / 1024;
    emit(
      formatLine("payload_gzip_kb", kb(p.total), "kB", {
        note:
          `embed.html, what it fetches before its first map: wasm ${formatValue(kb(p.byKind.wasm))} + JS ${formatValue(kb(p.byKind.js))} + CSS ${formatValue(kb(p.byKind.css))} kB, ${p.files.length} files` +
          (later.files.length > 0 ? `; after it: ${formatValue(kb(later.total))} kB more in ${later.files.length} files` : ""),
      }),
    );
    emit(`# embed payload files: ${p.files.map((f) => `${f.path.replace(/^.*\//, "")} ${formatValue(kb(f.gz))} kB`).join(", ")}`);
    if (later.files.length > 0) emit(`# embed files fetched after the first map: ${later.files.map((f) => `${f.path.replace(/^.*\//, "")} ${formatValue(kb(f.gz))} kB`).join(", ")}`);
    emit(formatLine("first_map_ms", median(embedRuns), "ms", { note: "embed.html, vite preview of the build, fresh context each run" }));
    const appRuns = [];
    let appFetched = { before: [] };
    for (let i = 0; i < Math.max(opts.runs, 1); i++) {
      appFetched = await firstMap(browser, origin, "index.html", readyWatch("body", "#memory-map svg"));
      appRuns.push(appFetched.ms);
    }
    emit(formatLine("first_map_ms_app", median(appRuns), "ms", { note: "index.html, same way" }));
    // The app's payload, the program editor (CodeMirror, a chunk the embed never fetches) apart.
    const app = payload(appFetched.before, origin, opts.out);
    const editor = app.files.filter((f) => /\/editor-[^/]*\.js$/.test(f.path));
    emit(
      formatLine("payload_gzip_kb_app", kb(app.total), "kB", {
        note:
          `information: index.html before its first map: wasm ${formatValue(kb(app.byKind.wasm))} + JS ${formatValue(kb(app.byKind.js))} + CSS ${formatValue(kb(app.byKind.css))} kB, ${app.files.length} files; ` +
          `the program editor's chunk (CodeMirror and the editor panel): ${editor.map((f) => `${formatValue(kb(f.gz))} kB`).join(", ") || "not found"}`,
      }),
    );
    emit(`# app payload files: ${app.files.map((f) => `${f.path.replace(/^.*\//, "")} ${formatValue(kb(f.gz))} kB`).join(", ")}`);

    // The Instructions view's first open: the listing files it fetches.
    const opens = [];
    for (const view of LISTING_VIEWS) {
      try {
        opens.push({ ...view, ...(await listingFirstOpen(browser, origin, opts.out, view.hash)) });
      } catch (e) {
        opens.push({ ...view, error: String(e.message ?? e).split("\n")[0] });
      }
    }
    const measured = opens.filter((o) => o.kb !== undefined);
    if (measured.length === opens.length) {
      const worst = measured.reduce((a, b) => (b.kb > a.kb ? b : a));
      emit(
        formatLine("listing_first_open_gzip_kb", worst.kb, "kB", {
          note: `the Instructions view's first open, the largest of: ${measured.map((o) => `${o.name}, ${formatValue(o.kb)} kB in ${o.files} files ("${o.summary}")`).join("; ")}; the cost module it runs the op on is the Cost view's too`,
        }),
      );
    } else {
      emit(naLine("listing_first_open_gzip_kb", opens.map((o) => o.error).filter(Boolean).join("; ")));
    }
  } finally {
    await preview.stop();
    await browser.close();
  }

  // The installable package, packed from this build.
  try {
    const t = packedTarball(root, opts.out);
    emit(formatLine("package_tarball_mb", t.bytes / 1e6, "MB", { note: `npm run package's tarball (scripts/pack.mjs) from this build: ${t.files} files, ${formatValue(t.unpackedMb)} MB unpacked, each wasm module once` }));
  } catch (e) {
    emit(naLine("package_tarball_mb", String(e.message ?? e)));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((e) => {
    console.error(`[bench] failed: ${e.stack ?? e}`);
    process.exit(1);
  });
}
