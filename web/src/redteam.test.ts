// Hostile and heavy input, as an attacker or a heavy user gives it, against
// the command line (web/cli/bumplab.mjs, run as a user runs it) and the
// page's own readers of links and trace files. Each case is one that broke:
// the test names what it did before and holds what it does now.
//
// Needs the wasm engine built (`npm run build:wasm`), as web/src/cli.test.ts does.
import { spawn, spawnSync } from "node:child_process";
import { closeSync, copyFileSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { decodeShare } from "./share/link";
import { parseTraceFile } from "./share/traceFile";
import { isShareLink } from "./state/shareSync";
import type { AllocatorInfo } from "./wasm/types";
import { excerpt, normalizeNewlines } from "./model/format";
import { parseValues } from "./model/sweep";

const cliDir = fileURLToPath(new URL("../cli/", import.meta.url));
const cli = join(cliDir, "bumplab.mjs");

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bumplab-redteam-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Output {
  status: number | null;
  stdout: Buffer;
  stderr: Buffer;
}

/** The command's output written straight to files: Node writes a file synchronously, so nothing can be cut. */
function toFiles(args: string[], input: string, script = cli): Output {
  const out = join(dir, "out.bin");
  const err = join(dir, "err.bin");
  const [o, e] = [openSync(out, "w"), openSync(err, "w")];
  try {
    const r = spawnSync(process.execPath, [script, ...args], { cwd: dir, input, stdio: ["pipe", o, e], timeout: 120_000 });
    if (r.error) throw r.error;
    return { status: r.status, stdout: readFileSync(out), stderr: readFileSync(err) };
  } finally {
    closeSync(o);
    closeSync(e);
  }
}

/**
 * A reader as slow as a busy terminal or a `| less`: a process that starts
 * reading 400 ms late, then copies 16 KiB every 5 ms into `argv[2]`. The pipe
 * between holds 64 KiB: a writer that ends with process.exit while more is
 * queued loses the rest.
 */
const SLOW_READER = `const fs = require("fs");
const out = fs.openSync(process.argv[2], "w");
const buf = Buffer.alloc(16384);
const sleep = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
sleep(400);
for (;;) {
  let n;
  try { n = fs.readSync(0, buf, 0, buf.length, null); } catch (e) { if (e.code === "EAGAIN") { sleep(5); continue; } throw e; }
  if (n === 0) break;
  fs.writeSync(out, buf, 0, n);
  sleep(5);
}
`;

/** The command's stdout and stderr each through a pipe to a slow reader process (bash wires them). */
function throughSlowReader(args: string[], input: string, script = cli): Output {
  const reader = join(dir, "slow-reader.cjs");
  writeFileSync(reader, SLOW_READER);
  writeFileSync(join(dir, "in.txt"), input);
  for (const f of ["err.fifo", "out.bin", "err.bin", "status"]) rmSync(join(dir, f), { force: true });
  const r = spawnSync(
    "bash",
    [
      "-c",
      `mkfifo err.fifo
"$0" slow-reader.cjs err.bin < err.fifo & reader=$!
"$0" "$@" < in.txt 2> err.fifo | "$0" slow-reader.cjs out.bin
echo "\${PIPESTATUS[0]}" > status
wait "$reader"`,
      process.execPath,
      script,
      ...args,
    ],
    { cwd: dir, timeout: 120_000 },
  );
  if (r.error) throw r.error;
  expect(r.status, r.stderr.toString()).toBe(0);
  return { status: Number(readFileSync(join(dir, "status"), "utf8")), stdout: readFileSync(join(dir, "out.bin")), stderr: readFileSync(join(dir, "err.bin")) };
}

/** A program of `n` lines each with a bad alignment, in a file whose path is `depth` folders of 200 characters deep. */
function manyErrorsDeep(depth: number, n: number): string {
  let folder = dir;
  for (let i = 0; i < depth; i++) folder = join(folder, String.fromCharCode(97 + i).repeat(200));
  mkdirSync(folder, { recursive: true });
  const file = join(folder, "p.txt");
  writeFileSync(file, Array.from({ length: n }, (_, i) => `x${i} = alloc 8 align nope`).join("\n"));
  return file;
}

describe("the command line: every output whole", () => {
  // Each command and error path, and the size of what it writes where: the
  // large ones pass the 64 KiB a pipe holds, where process.exit cut them.
  const summaryProgram = "repeat 1000 {\n x = alloc 5000\n}\n";
  const cases: { name: string; args: () => string[]; input?: string; status: number; over64k?: "stdout" | "stderr" }[] = [
    { name: "list", args: () => ["list"], status: 0 },
    { name: "--help", args: () => ["trace", "--help"], status: 0 },
    { name: "a usage error", args: () => ["trace", "--allocator", "nosuch", "-"], status: 2 },
    { name: "trace --summary (llvm-bump-ptr, 1,000 chunks)", args: () => ["trace", "--allocator", "llvm-bump-ptr", "--summary", "-"], input: summaryProgram, status: 0, over64k: "stdout" },
    { name: "the full trace", args: () => ["trace", "--allocator", "bumpalo", "-"], input: "repeat 200 {\n a = alloc 24 align 8\n free a\n}\n", status: 0, over64k: "stdout" },
    { name: "trace --executed", args: () => ["trace", "--executed", "--allocator", "fitzgen-down", "-"], input: "repeat 10 {\n a = alloc 8\n b = alloc u64\n}\n", status: 0, over64k: "stdout" },
    // 100 error lines, each naming a file 1,000 characters deep: 110 kB of stderr.
    { name: "a hundred program errors with a long path", args: () => ["trace", "--allocator", "bumpalo", manyErrorsDeep(5, 100)], status: 1, over64k: "stderr" },
  ];
  for (const c of cases) {
    it(`${c.name}: byte for byte what a file receives, through a slow pipe`, () => {
      const args = c.args();
      const whole = toFiles(args, c.input ?? "");
      expect(whole.status).toBe(c.status);
      if (c.over64k) expect(whole[c.over64k].length, "the case writes more than a pipe holds").toBeGreaterThan(65_536);
      const piped = throughSlowReader(args, c.input ?? "");
      expect(piped.status).toBe(c.status);
      expect(piped.stdout.length).toBe(whole.stdout.length);
      expect(piped.stderr.length).toBe(whole.stderr.length);
      expect(piped.stdout.equals(whole.stdout)).toBe(true);
      expect(piped.stderr.equals(whole.stderr)).toBe(true);
    }, 180_000);
  }
});

describe("the command line: a reader that stops early", () => {
  // `bumplab trace … | head -c 10`: the pipe closes under the writer, with
  // more than a pipe holds still to write. What it wrote is what the reader
  // wanted; the command ends quietly (the full trace threw EPIPE's stack
  // trace at the user, exit 1).
  for (const args of [["trace", "--allocator", "bumpalo", "-"], ["trace", "--allocator", "llvm-bump-ptr", "--summary", "-"]]) {
    it(`${args.join(" ")}: status 0 and nothing on stderr`, () => {
      writeFileSync(join(dir, "in.txt"), "repeat 1000 {\n x = alloc 5000\n}\n");
      const r = spawnSync("bash", ["-c", '"$0" "$@" < in.txt 2> err.txt | head -c 10 > head.txt; echo "${PIPESTATUS[0]}"', process.execPath, cli, ...args], { cwd: dir, encoding: "utf8", timeout: 60_000 });
      expect(r.stdout).toBe("0\n");
      expect(readFileSync(join(dir, "err.txt"), "utf8")).toBe("");
      expect(readFileSync(join(dir, "head.txt"), "utf8").length).toBe(10);
    }, 60_000);
  }
});

describe("the command line: every input capped", () => {
  it("standard input is read up to the 32 MB limit and then refused, however much more is sent", async () => {
    // `yes "a = alloc 1" | bumplab trace -`: an endless writer, stopped at
    // 200 MB so that a reader without a limit still ends (after reading it all).
    const child = spawn(process.execPath, [cli, "trace", "--allocator", "bumpalo", "-"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    const line = Buffer.from("a = alloc 1\n".repeat(8_192));
    let sent = 0;
    let closed = false;
    child.stdin.on("error", () => (closed = true));
    const write = async (): Promise<void> => {
      while (!closed && sent < 200_000_000) {
        if (!child.stdin.write(line)) await new Promise((r) => child.stdin.once("drain", r).once("close", r));
        sent += line.length;
      }
      child.stdin.end();
    };
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.stdout.resume();
    const [status] = await Promise.all([new Promise<number | null>((r) => child.on("close", r)), write()]);
    expect(status).toBe(1);
    expect(stderr).toBe("<stdin>:1:1: the program is longer than the limit of 32,000,000 bytes (32 MB): standard input is read up to the limit, then refused\n");
    // Read up to the limit: what it took is the limit, plus what the pipe and one read hold.
    expect(sent).toBeLessThan(32_000_000 + 4 * 1024 * 1024);
  }, 120_000);

  it("a named pipe or device is read the same way: /dev/zero is refused at the limit", () => {
    const r = toFiles(["trace", "--allocator", "bumpalo", "/dev/zero"], "");
    expect(r.status).toBe(1);
    expect(r.stderr.toString()).toBe("/dev/zero:1:1: the program is longer than the limit of 32,000,000 bytes (32 MB): /dev/zero is read up to the limit, then refused\n");
  }, 60_000);

  it("a megabyte token is quoted as its start and its length: the error line stays short", () => {
    const token = `1${"9".repeat(999_999)}`;
    const r = toFiles(["trace", "--allocator", "bumpalo", "-"], `a = alloc 8\nb = alloc ${token}\n`);
    expect(r.status).toBe(1);
    expect(r.stderr.toString()).toBe(
      "<stdin>:2:11: '199999999999999999999999…' (1,000,000 characters) is too large (the largest is 0xffffffffffffffff)\n",
    );
  });

  it("CR-only line endings read as LF and CRLF do: the same trace, errors on the same lines", () => {
    const lf = "a = alloc 8\nb = alloc u64\nfree a\nc = alloc 24 align 8\n";
    const want = toFiles(["trace", "--allocator", "bumpalo", "-"], lf);
    expect(want.status).toBe(0);
    for (const ending of ["\r", "\r\n"]) {
      const r = toFiles(["trace", "--allocator", "bumpalo", "-"], lf.replaceAll("\n", ending));
      expect(r.stderr.toString()).toBe("");
      // The trace carries the program's own text; every op, chunk and line number is the same.
      const strip = (t: Buffer): unknown => ({ ...(JSON.parse(t.toString()) as Record<string, unknown>), program: null });
      expect(strip(r.stdout)).toEqual(strip(want.stdout));
    }
    const bad = toFiles(["trace", "--allocator", "bumpalo", "-"], "a = alloc 8\rb = alloc 8 align 3\r");
    expect(bad.stderr.toString()).toBe("<stdin>:2:19: alignment 3 is not allowed: use a power of two from 1 to 4096\n");
  });

  it("--summary of an empty program says there are no counters (null), not an empty object as if it were data", () => {
    const r = toFiles(["trace", "--allocator", "bumpalo", "--summary", "-"], "# nothing\n");
    expect(r.status).toBe(0);
    expect(r.stdout.toString()).toBe('{"allocator":"bumpalo","target":"64","direction":"down","ops":0,"chunks":[],"stats":null}\n');
  });
});

describe("the command line: an error never hides the error that caused it", () => {
  it("a trap in --summary is reported, not the error the run's free() throws after it", () => {
    // The CLI beside a stand-in trace module that fails as the real one does
    // after a trap: advance() throws WebAssembly's RuntimeError, and free()
    // then throws wasm-bindgen's "attempted to take ownership of Rust value
    // while it was borrowed", since the trapped call never released it. The
    // cost module is the real one (the options are checked on it first).
    const fake = join(dir, "fake-engine");
    mkdirSync(join(fake, "pkg-trace-fast"), { recursive: true });
    for (const f of ["bumplab.mjs", "io.mjs"]) copyFileSync(join(cliDir, f), join(fake, f));
    symlinkSync(join(cliDir, "..", "pkg-cost"), join(fake, "pkg-cost"));
    writeFileSync(join(fake, "pkg-trace-fast", "trace_bg.wasm"), "");
    writeFileSync(
      join(fake, "pkg-trace-fast", "trace.js"),
      `export function initSync() {}
export function listAllocators() { return JSON.stringify([{ name: "bumpalo" }]); }
export function lastPanic() { return undefined; }
export class TraceRun {
  advance() { throw new WebAssembly.RuntimeError("unreachable"); }
  free() { throw new Error("attempted to take ownership of Rust value while it was borrowed"); }
}
`,
    );
    const r = toFiles(["trace", "--allocator", "bumpalo", "--summary", "-"], "a = alloc 8\n", join(fake, "bumplab.mjs"));
    expect(r.status).toBe(3);
    expect(r.stderr.toString()).toBe("bumplab: internal error: unreachable (this is a bug in Bump Lab, not in the program)\n");
  });
});

// ---- The page's readers: trace files, links, sweeps ---------------------------------

const ALLOCATORS = [{ name: "bumpalo" }, { name: "fitzgen-down" }] as AllocatorInfo[];
const trace = (program: Record<string, unknown>, top: Record<string, unknown> = {}): string =>
  JSON.stringify({ version: 1, allocator: "bumpalo", target: "64", program: { text: "a = alloc 8", ...program }, ops: [], ...top });
const refusal = (text: string): string => {
  const r = parseTraceFile(text, ALLOCATORS);
  return r.ok ? "(read)" : r.error;
};

describe("trace import: every number checked against its field's range, never wrapped", () => {
  it("a capacity past 32 bits is refused by name with its value (it imported as a 256-byte run)", () => {
    expect(refusal(trace({ capacity: 4294967552 }))).toBe("Not a Bump Lab trace: trace.program.capacity must be a whole number from 1 to 1073741824, not 4294967552.");
    // 2^53 - 1 was shown as "capacity 4294967295" by the engine, after the wrap.
    expect(refusal(trace({ capacity: 2 ** 53 - 1 }))).toBe("Not a Bump Lab trace: trace.program.capacity must be a whole number from 1 to 1073741824, not 9007199254740991.");
    // What a share link carries: no larger capacity imports, so every imported run has a link that opens.
    expect(refusal(trace({ capacity: 2 ** 30 + 16 }))).toBe("Not a Bump Lab trace: trace.program.capacity must be a whole number from 1 to 1073741824, not 1073741840.");
    const ok = parseTraceFile(trace({ capacity: 2 ** 30 }), ALLOCATORS);
    expect(ok.ok && ok.config.capacity).toBe(2 ** 30);
  });

  it("a minimum alignment of 2^52 is refused by name (it was shown as 0)", () => {
    expect(refusal(trace({ min_align: 2 ** 52 }))).toBe("Not a Bump Lab trace: trace.program.min_align must be a whole number from 1 to 4096, not 4503599627370496.");
    expect(refusal(trace({ min_align: "8" }))).toBe('Not a Bump Lab trace: trace.program.min_align must be a whole number from 1 to 4096, not "8" (text).');
  });

  it('a version written as text ("1") is said to be text, not missing', () => {
    expect(refusal(trace({}, { version: "1" }))).toBe('Not a Bump Lab trace: it has version "1", which is text, not a number; this Bump Lab reads trace format version 1.');
    expect(refusal(trace({}, { version: true }))).toBe("Not a Bump Lab trace: it has a version that is not a number (true); this Bump Lab reads trace format version 1.");
    expect(refusal(JSON.stringify({ allocator: "bumpalo" }))).toBe("Not a Bump Lab trace: it has no version; this Bump Lab reads trace format version 1.");
  });

  it("an op's number past 2^53 names its field, and a megabyte of text in a field is quoted as an excerpt", () => {
    const op = { kind: "alloc", failed: false, size: 8, address: 2 ** 60 };
    expect(refusal(trace({}, { ops: [op] }))).toBe(
      "Not a Bump Lab trace: trace.ops[0].address must be a whole number from 0 to 9007199254740991, not 1152921504606847000 (past 2^53, not read exactly).",
    );
    expect(refusal(trace({}, { ops: [{ ...op, address: 16, chunk: "x".repeat(1_000_000) }] }))).toBe(
      'Not a Bump Lab trace: trace.ops[0].chunk must be a whole number from 0 to 9007199254740991, not "xxxxxxxxxxxxxxxxxxxxxxxx…" (1,000,000 characters) (text).',
    );
  });

  it("a program with CR-only line endings imports with \\n, as the editor shows it", () => {
    const r = parseTraceFile(trace({ text: "a = alloc 8\rb = alloc 8\r\n" }), ALLOCATORS);
    expect(r.ok && r.config.source).toBe("a = alloc 8\nb = alloc 8\n");
  });
});

describe("share links: every failure said", () => {
  it("a link that lost its v1? prefix is taken as a link and refused with how to repair it", async () => {
    const hash = "a=bumpalo&p=a+=+alloc+8&end";
    expect(isShareLink(hash)).toBe(true);
    expect(await decodeShare(hash)).toEqual({
      ok: false,
      error: 'Cannot open this link: the link has lost its version: it should start with "v1?", as in "#v1?a=bumpalo&…&end" (add "v1?" after the "#" to open it).',
    });
    // In-page anchors stay anchors.
    for (const anchor of ["cost-model", "how-it-is-built", "", "top"]) expect(isShareLink(anchor), anchor).toBe(false);
  });

  it("a sweep of capacities past 1 GiB is refused, in a link and in the form (4294967552 ran as 256)", async () => {
    const link = await decodeShare("v1?a=bumpalo&w=capacity:256,4294967552&p=a+=+alloc+8&end");
    expect(link).toEqual({ ok: false, error: 'Cannot open this link: "w" (sweep) has a capacity past the largest, 1073741824: 4294967552.' });
    expect(parseValues("capacity", "256 4294967552", ALLOCATORS)).toEqual({ ok: false, error: '"4294967552": the largest capacity is 1073741824.' });
    expect(parseValues("minAlign", "1..8192", ALLOCATORS)).toEqual({ ok: false, error: '"1..8192": the largest minimum alignment is 4096.' });
  });
});

describe("messages quote a long input as an excerpt", () => {
  it("cuts past 32 characters to the first 24 and the length, on a character", () => {
    expect(excerpt("x".repeat(32), "'")).toBe(`'${"x".repeat(32)}'`);
    expect(excerpt("x".repeat(1_000_000), "'")).toBe(`'${"x".repeat(24)}…' (1,000,000 characters)`);
    expect(excerpt("😀".repeat(40))).toBe(`${"😀".repeat(24)}… (40 characters)`);
    expect(normalizeNewlines("a\rb\r\nc\n")).toBe("a\nb\nc\n");
  });
});
