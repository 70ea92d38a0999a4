// Runs every test layer in order and stops at the first broken one.
// Each layer's output streams through; its counts (passed, failed, skipped)
// are read from the runner's own summary lines, and the totals close the run.
//
// A layer passes only when its runner exits 0 AND it ran at least `min`
// tests AND skipped no more than `skips` of them: a runner that finds fewer
// tests than it should (a folder renamed, a filter gone wrong, a tool
// missing) fails the run instead of passing quietly. For cargo, each binary
// named in `binaries` must run at least its own minimum, so one
// differential-test file cannot drop out unseen among hundreds of tests.
import { spawn } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { log, root } from "./lib.mjs";
import { cargoCount, countProblems, playwrightCount, vitestCount } from "./test-counts.mjs";
import { ACTIONLINT } from "./versions.mjs";

// The workflows actionlint checks, each file a "test": its -verbose output
// ends each with "Found total N errors in … for FILE", so a folder that
// lost its files fails the layer's minimum instead of passing with nothing checked.
const workflowDir = join(root, ".github", "workflows");
const WORKFLOWS = (existsSync(workflowDir) ? readdirSync(workflowDir) : []).filter((f) => /\.ya?ml$/.test(f)).map((f) => join(".github", "workflows", f));
function actionlintCount(out) {
  const files = [...out.matchAll(/Found total (\d+) errors? in .* for (\S+)/g)];
  return { passed: files.filter((m) => m[1] === "0").length, failed: files.filter((m) => m[1] !== "0").length, skipped: 0 };
}

// The minimums are the counts of the suite as it stands, a little below
// where a count varies with the machine; raise them when tests are added.
// A "(wasm32)" entry counts the binary's tests named for the 32-bit target
// (the C++ harnesses built with -m32, the Zig harness built for wasm32-wasi).
const DIFFERENTIAL = {
  "bumplab_core tests/bumpalo.rs": 22,
  "bumplab_core tests/bump_scope.rs": 21,
  "bumplab_core tests/blink_alloc.rs": 16,
  "bumplab_core tests/llvm_bump_ptr.rs": 16,
  "bumplab_core tests/llvm_bump_ptr.rs (wasm32)": 3,
  "bumplab_core tests/pmr_monotonic.rs": 18,
  "bumplab_core tests/pmr_monotonic.rs (wasm32)": 3,
  "bumplab_core tests/zig_arena.rs": 24,
  "bumplab_core tests/zig_arena.rs (wasm32)": 8,
  "bumplab_core tests/zig_fixed_buffer.rs": 8,
  "bumplab_core tests/zig_fixed_buffer.rs (wasm32)": 2,
  "bumplab_core tests/cpp_arena.rs": 10,
  "bumplab_core tests/bumper.rs": 13,
  "bumplab_core tests/fuzz.rs": 4,
  "bumplab_core tests/invariants.rs": 1,
  "bumplab_core tests/noprobe_codegen.rs": 2,
  "bumplab_meter tests/shipped.rs": 1,
  "bumplab_meter tests/fixture.rs": 1,
  "bumplab_meter tests/presets.rs": 1,
  "bumplab_record tests/redteam.rs": 8,
  "bumplab_record tests/shim.rs": 8,
  "bumplab_record tests/shipped.rs": 4,
};

const layers = [
  { name: "rustfmt", cmd: "cargo", args: ["fmt", "--all", "--check"] },
  { name: "clippy", cmd: "cargo", args: ["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"] },
  { name: "cargo test", cmd: "cargo", args: ["test", "--workspace"], count: cargoCount, min: 337, binaries: DIFFERENTIAL },
  {
    // blink-alloc's differential suite (and the core's unit tests) built for
    // wasm32-wasip1: the real crate on the real 32-bit target, run under
    // Node's node:wasi (.cargo/config.toml names scripts/wasi-run.mjs).
    name: "cargo test wasm32",
    cmd: "cargo",
    args: ["test", "-p", "bumplab-core", "--target", "wasm32-wasip1", "--lib", "--test", "blink_alloc"],
    count: cargoCount,
    min: 37,
    binaries: { "bumplab_core tests/blink_alloc.rs": 16 },
  },
  {
    // The cost module's binding (crates/cost), compiled to wasm32.
    name: "wasm-pack test cost",
    cmd: "wasm-pack",
    args: ["test", "--node", "--mode", "no-install", "crates/cost"],
    count: cargoCount,
    min: 17,
  },
  {
    // The trace module's binding (crates/trace), compiled to wasm32.
    name: "wasm-pack test trace",
    cmd: "wasm-pack",
    args: ["test", "--node", "--mode", "no-install", "crates/trace"],
    count: cargoCount,
    min: 6,
  },
  // The GitHub Pages workflow (built by setup.mjs --with-actionlint; -verbose for the count).
  {
    name: "actionlint",
    cmd: join(homedir(), ".cache", "bump-lab", `actionlint-${ACTIONLINT}`, "actionlint"),
    args: ["-verbose", ...WORKFLOWS],
    count: actionlintCount,
    min: 1,
  },
  { name: "tsc --noEmit", cmd: "tsc", args: ["--noEmit", "-p", "tsconfig.json"] },
  { name: "vitest", cmd: "vitest", args: ["run"], count: vitestCount, min: 902 },
  // One test is skipped by design: it rewrites docs/screenshot.png, only when SCREENSHOT=1.
  { name: "playwright", cmd: "playwright", args: ["test"], count: playwrightCount, min: 255, skips: 1 },
  // The same journeys in the other engines readers use (tests/browsers/):
  // Firefox ESR over WebDriver BiDi, WebKitGTK's MiniBrowser over classic
  // WebDriver in xvfb. One layer each, so the summary counts each browser;
  // a browser that cannot start fails every journey of its layer.
  { name: "firefox", cmd: "playwright", args: ["test", "-c", "playwright.browsers.config.ts", "--project=firefox"], count: playwrightCount, min: 17 },
  { name: "webkit", cmd: "playwright", args: ["test", "-c", "playwright.browsers.config.ts", "--project=webkit"], count: playwrightCount, min: 17 },
];

const only = process.argv.slice(2);
const strip = (s) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

function runLayer(layer) {
  return new Promise((resolve) => {
    log(`── ${layer.name}: ${layer.cmd} ${layer.args.join(" ")}`);
    const started = Date.now();
    // BUMPLAB_NPM_TEST: a test whose input or tool is missing fails under
    // `npm test` instead of passing with a "skipped" line (run by hand, it may skip).
    const env = { ...process.env, BUMPLAB_NPM_TEST: "1" };
    const child = spawn(layer.cmd, layer.args, { cwd: root, env, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      process.stdout.write(d);
      out += d;
    });
    child.stderr.on("data", (d) => {
      process.stderr.write(d);
      out += d;
    });
    child.on("error", (e) => resolve({ code: 1, out: `could not start ${layer.cmd}: ${e.message}`, secs: 0 }));
    child.on("close", (code) => resolve({ code: code ?? 1, out: strip(out), secs: (Date.now() - started) / 1000 }));
  });
}

/** A TCP port nothing listens on right now, for the browser tests' server. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
process.env.PW_PORT ??= String(await freePort());

const summary = [];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const layer of layers) {
  if (only.length && !only.includes(layer.name)) continue;
  const r = await runLayer(layer);
  const counts = layer.count?.(r.out);
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
    skipped += counts.skipped;
  }
  const extra = [counts?.skipped ? `${counts.skipped} skipped` : "", counts?.flaky ? `${counts.flaky} flaky` : ""];
  const what = counts
    ? [`${counts.passed} passed`, `${counts.failed} failed`, ...extra.filter(Boolean)].join(", ")
    : r.code === 0
      ? "clean"
      : "errors";
  const problems = counts ? countProblems(layer, counts) : [];
  const ok = r.code === 0 && problems.length === 0;
  summary.push(`${ok ? "ok  " : "FAIL"} ${layer.name.padEnd(24)} ${what.padEnd(36)} ${r.secs.toFixed(0)}s`);
  // The differential suites by name, so a run shows each one ran and how much of it.
  if (layer.binaries && counts?.binaries) {
    const each = Object.keys(layer.binaries).map((b) => `${b.replace(/^\S+ tests\//, "").replace(".rs", "")} ${counts.binaries.get(b) ?? 0}`);
    summary.push(`     tests by file: ${each.join(", ")}`);
  }
  for (const p of problems) summary.push(`     ${p}`);
  if (!ok) {
    console.log(`\n${summary.join("\n")}`);
    console.error(`[bump-lab] ${layer.name} failed; later layers were not run`);
    process.exit(1);
  }
}
console.log(`\n${summary.join("\n")}`);
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`);
