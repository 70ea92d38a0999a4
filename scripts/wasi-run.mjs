#!/usr/bin/env -S node --no-turbo-fast-api-calls
// (node:wasi's fast API calls can start a garbage collection inside a call
// from wasm and crash Node now and then with SIGSEGV: nodejs/node issue
// 46777, "Using fast calls for WASI causes V8 coredump".)
// Runs a wasm32-wasi (WASI preview 1) program under Node's node:wasi, with
// this process's arguments, environment, stdin and stdout, and exits with its
// exit code: how the differential tests run the real allocators compiled for
// wasm32 (cargo's runner for wasm32-wasip1 test binaries, see
// .cargo/config.toml, and the Zig harness, see
// crates/core/tests/common/native.rs).
//
//   node scripts/wasi-run.mjs <program.wasm> [args…]
//   node scripts/wasi-run.mjs --instance-per-program <harness.wasm>
//
// With --instance-per-program, stdin is the harness line protocol
// (crates/core/tests/native/sim_heap.hpp): each program, from its
// `program` line to its `end` line, runs in a fresh instance of the module,
// so every program starts from a fresh linear memory, as a fresh process
// would. A wasm32 allocator that keeps global state (Zig's page_allocator
// on wasm32 keeps its free lists in a global) then gives each program the
// addresses it would give it alone. The module is compiled once.
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { WASI } from "node:wasi";

// node:wasi prints an ExperimentalWarning on stderr; the harness's stderr is
// the test's, and the warning is not about the program.
process.removeAllListeners("warning");
process.on("warning", (w) => {
  if (w.name !== "ExperimentalWarning") console.error(w);
});

const argv = process.argv.slice(2);
const perProgram = argv[0] === "--instance-per-program";
if (perProgram) argv.shift();
const [file, ...args] = argv;
if (!file) {
  console.error("usage: node scripts/wasi-run.mjs [--instance-per-program] <program.wasm> [args…]");
  process.exit(2);
}
const module = await WebAssembly.compile(readFileSync(file));

/**
 * Runs the module once with `stdin` (a file descriptor); its exit code. A
 * harness instance gets no directory: each preopened one is a file
 * descriptor that lives as long as its WASI object, and thousands of
 * programs would run out of them.
 */
async function runOnce(stdin) {
  const wasi = new WASI({
    version: "preview1",
    args: [file, ...args],
    env: process.env,
    preopens: perProgram ? {} : { ".": process.cwd() },
    stdin,
    stdout: 1,
    stderr: 2,
    returnOnExit: true,
  });
  const instance = await WebAssembly.instantiate(module, wasi.getImportObject());
  try {
    return wasi.start(instance);
  } finally {
    const memory = instance.exports["memory"];
    lastMemoryBytes = memory instanceof WebAssembly.Memory ? memory.buffer.byteLength : 0;
  }
}

/** The size of the linear memory the last instance ended with. */
let lastMemoryBytes = 0;

/** A trap (a Rust panic aborts, a Zig panic traps) as a failed exit, not a crash of Node. */
async function runOrTrap(stdin) {
  try {
    return await runOnce(stdin);
  } catch (e) {
    if (!(e instanceof WebAssembly.RuntimeError)) throw e;
    process.stderr.write(`${file}: the wasm program trapped (${e.message}): a panic aborts on wasm32\n`);
    return 134;
  }
}

if (!perProgram) {
  process.exitCode = await runOrTrap(0);
} else {
  const dir = mkdtempSync(join(tmpdir(), "bumplab-wasi-"));
  const input = join(dir, "program");
  let lines = null;
  let programs = 0;
  try {
    for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
      if (line.startsWith("program")) lines = [];
      if (lines === null) continue;
      lines.push(line);
      if (line !== "end") continue;
      writeFileSync(input, `${lines.join("\n")}\n`);
      lines = null;
      const fd = openSync(input, "r");
      const code = await runOrTrap(fd).finally(() => closeSync(fd));
      // Each instance holds its linear memory until it is collected: collect
      // them as they go (with --expose-gc), every 32 programs (a collection
      // takes tens of milliseconds), and at once after a program that grew
      // its memory large (a request of gigabytes on the simulated heap).
      if (++programs % 32 === 0 || lastMemoryBytes > 256 << 20) globalThis.gc?.();
      if (code !== 0) {
        // The program failed (a panic, an error the harness reported): stop
        // now, with stdin still open, so the test reads the end of stdout.
        rmSync(dir, { recursive: true, force: true });
        process.exit(code);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
