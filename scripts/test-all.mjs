// Runs every test layer in order and stops at the first broken one.
// Each layer's output streams through; its test count is read from the
// runner's own summary line, and the totals close the run.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { log, root } from "./lib.mjs";

const layers = [
  { name: "rustfmt", cmd: "cargo", args: ["fmt", "--all", "--check"] },
  { name: "clippy", cmd: "cargo", args: ["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"] },
  { name: "cargo test", cmd: "cargo", args: ["test", "--workspace"], count: cargoCount },
  {
    name: "wasm-pack test --node",
    cmd: "wasm-pack",
    args: ["test", "--node", "--mode", "no-install", "crates/cost"],
    count: cargoCount,
  },
  {
    // The trace module's binding (crates/trace), compiled to wasm32.
    name: "wasm-pack test --node trace",
    cmd: "wasm-pack",
    args: ["test", "--node", "--mode", "no-install", "crates/trace"],
    count: cargoCount,
    skip: () => !existsSync(join(root, "crates", "trace-wasm", "tests")),
  },
  { name: "tsc --noEmit", cmd: "tsc", args: ["--noEmit", "-p", "tsconfig.json"] },
  { name: "vitest", cmd: "vitest", args: ["run"], count: vitestCount },
  { name: "playwright", cmd: "playwright", args: ["test"], count: playwrightCount },
];

const only = process.argv.slice(2);
const strip = (s) => s.replace(/\x1b\[[0-9;]*[A-Za-z]/g, "");

function cargoCount(out) {
  let passed = 0;
  let failed = 0;
  for (const m of out.matchAll(/test result: \w+\. (\d+) passed; (\d+) failed/g)) {
    passed += Number(m[1]);
    failed += Number(m[2]);
  }
  return { passed, failed };
}

function vitestCount(out) {
  const line = out.split("\n").find((l) => /^\s*Tests\s+/.test(l)) ?? "";
  return { passed: Number(/(\d+) passed/.exec(line)?.[1] ?? 0), failed: Number(/(\d+) failed/.exec(line)?.[1] ?? 0) };
}

function playwrightCount(out) {
  return {
    passed: Number(/^\s*(\d+) passed/m.exec(out)?.[1] ?? 0),
    failed: Number(/^\s*(\d+) failed/m.exec(out)?.[1] ?? 0),
    // Passed only on its retry (CI retries once): counted as passed by
    // Playwright, and named in the summary so a flaky test is never hidden.
    flaky: Number(/^\s*(\d+) flaky/m.exec(out)?.[1] ?? 0),
  };
}

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
for (const layer of layers) {
  if (only.length && !only.includes(layer.name)) continue;
  if (layer.skip?.()) {
    summary.push(`skip ${layer.name}`);
    continue;
  }
  const r = await runLayer(layer);
  const counts = layer.count?.(r.out);
  if (counts) {
    passed += counts.passed;
    failed += counts.failed;
  }
  const flaky = counts?.flaky ? `, ${counts.flaky} flaky` : "";
  const what = counts ? `${counts.passed} passed, ${counts.failed} failed${flaky}` : r.code === 0 ? "clean" : "errors";
  summary.push(`${r.code === 0 ? "ok  " : "FAIL"} ${layer.name.padEnd(24)} ${what.padEnd(24)} ${r.secs.toFixed(0)}s`);
  // A runner that "passes" with no tests at all is a broken layer, not a green one.
  const empty = counts && counts.passed === 0;
  if (r.code !== 0 || empty) {
    if (empty && r.code === 0) summary.push(`     ${layer.name} ran no tests`);
    console.log(`\n${summary.join("\n")}`);
    console.error(`[bump-lab] ${layer.name} failed; later layers were not run`);
    process.exit(1);
  }
}
console.log(`\n${summary.join("\n")}`);
console.log(`${passed} passed, ${failed} failed`);
