#!/usr/bin/env node
// bumplab: run a program of allocation ops on an allocator model and print
// the trace JSON, with the very wasm module the playground loads, in the
// canonical form the page's trace export writes (one line, JSON.stringify's).
//
//   bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] FILE|-
//   bumplab list
//
// Exit status: 0 on success; 1 for a bad program (one line on stderr,
// `FILE:LINE:COLUMN: message`) or a file that cannot be read; 2 for a usage
// error (a bad command, option or option value); 3 for a bug in the engine
// (a trap in the wasm module), reported with the panic's message.
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const USAGE = `usage:
  bumplab trace --allocator NAME [--target 64|wasm32] [--min-align N] [--capacity N] FILE|-
  bumplab list`;

function fail(message, code = 2) {
  process.stderr.write(`bumplab: ${message}\n`);
  process.exit(code);
}

async function loadEngine() {
  const pkg = join(here, "..", "pkg-cost");
  let mod;
  try {
    mod = await import(join(pkg, "cost.js"));
    mod.initSync({ module: readFileSync(join(pkg, "cost_bg.wasm")) });
  } catch (e) {
    fail(`the wasm engine is not built (${e.message}); run \`npm run build:wasm\` first`, 1);
  }
  return mod;
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
    else if (a === "--help" || a === "-h") {
      process.stdout.write(`${USAGE}\n`);
      process.exit(0);
    } else if (a.startsWith("-") && a !== "-") fail(`unknown option ${a}\n${USAGE}`);
    else rest.push(a);
  }
  return { opts, rest };
}

function readProgram(file) {
  if (file === "-") return readFileSync(0, "utf8");
  try {
    return readFileSync(file, "utf8");
  } catch (e) {
    fail(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`, 1);
  }
}

const [command, ...args] = process.argv.slice(2);
if (command === "list") {
  const engine = await loadEngine();
  for (const a of JSON.parse(engine.listAllocators())) {
    process.stdout.write(`${a.name.padEnd(22)}${a.direction.padEnd(6)}${a.description}\n`);
  }
} else if (command === "trace") {
  const { opts, rest } = parseArgs(args);
  if (!opts.allocator) fail(`trace needs --allocator NAME (see \`bumplab list\`)\n${USAGE}`);
  if (rest.length !== 1) fail(`trace needs exactly one FILE, or - for standard input\n${USAGE}`);
  const engine = await loadEngine();
  const trace = (source) => {
    try {
      return engine.traceProgram(source, opts.allocator, opts.target, opts.capacity, opts.minAlign);
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
  const out = trace(source);
  const parsed = JSON.parse(out);
  if (parsed.error) {
    // Exactly `FILE:LINE:COLUMN: message`, the line editors and CI logs
    // link, for each error the program has (the parser reports one a line).
    const file = rest[0] === "-" ? "<stdin>" : rest[0];
    for (const { line, column, message } of [parsed.error, ...(parsed.error.more ?? [])]) {
      process.stderr.write(`${file}:${line}:${column}: ${message}\n`);
    }
    process.exit(1);
  }
  // The canonical trace text, byte for byte what the page's "Export trace
  // (JSON)" saves (traceJson in web/src/share/export.ts): the engine's JSON
  // parsed and written back by JSON.stringify, one line, then a newline.
  // Not `out` itself: the engine writes an f64 1 as `1.0`, JSON.stringify `1`.
  process.stdout.write(`${JSON.stringify(parsed)}\n`);
} else {
  fail(command ? `unknown command '${command}'\n${USAGE}` : USAGE);
}
