// The command line (web/cli/bumplab.mjs), run as a user runs it: `node
// bumplab.mjs ...` in a child process, checking stdout, stderr and the exit
// status. Needs the wasm engine built (`npm run build:wasm`), as the engine's
// own tests do.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadCostModuleSync } from "./wasm/node";
import { MAX_SOURCE_BYTES, sourceTooLarge } from "./model/limits";
import { traceJson } from "./share/traceFile";
import { recording } from "./test/recording";

const cli = fileURLToPath(new URL("../cli/bumplab.mjs", import.meta.url));
const wasm = fileURLToPath(new URL("../pkg-cost/cost_bg.wasm", import.meta.url));

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the CLI in `dir` with `args`, feeding `input` to its standard input. */
function bumplab(args: string[], input = "", timeout = 30_000): Run {
  const r = spawnSync(process.execPath, [cli, ...args], { cwd: dir, input, encoding: "utf8", timeout, maxBuffer: 64 << 20 });
  if (r.error) throw r.error;
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The parts of the trace JSON these tests read. */
interface Trace {
  allocator: string;
  target: string;
  direction: string;
  chunks: { id: number; start: number; capacity: number; reason: string }[];
  program: { text: string; capacity?: number; min_align?: number; child?: string };
  ops: { block?: string; chunk?: number; offset?: number; address?: number; size: number; padding?: number; failed: boolean }[];
}

function trace(args: string[], input = ""): Trace {
  const r = bumplab(["trace", ...args], input);
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return JSON.parse(r.stdout) as Trace;
}

/** Op `i` of `t`, which must exist. */
function op(t: Trace, i: number): Trace["ops"][number] {
  const o = t.ops[i];
  if (!o) throw new Error(`no op ${i} in the trace`);
  return o;
}

/** What the CLI adds after a program too long for the full trace. */
const SUMMARY_HINT = "bumplab: --summary runs up to 1,500,000 ops on the page's engine and prints the chunks and counters after the last op";

// Needs two chunks from bumpalo: 400 bytes fill most of the first (448 usable
// bytes on 64-bit), 100 more do not fit in what is left.
const TWO_CHUNKS = "a = alloc 400\nb = alloc 100\nc = alloc 8 align 8\n";
// Line 2, column 19 is the alignment's value.
const BAD_ALIGN = "a = alloc 8\nx = alloc 8 align 3\n";
const PRESETS: [string, "up" | "down"][] = [
  ["fitzgen-down", "down"],
  ["hinckley-up-naive", "up"],
  ["hinckley-up", "up"],
  ["up-min-align", "up"],
  ["down-min-align", "down"],
  ["bumpalo", "down"],
  ["bump-scope-up", "up"],
  ["bump-scope-down", "down"],
  ["bumper-alloc-buffer", "up"],
  ["bumper-slab", "up"],
  ["cpp-arena", "up"],
  ["blink-alloc", "up"],
  ["llvm-bump-ptr", "up"],
  ["pmr-monotonic", "up"],
  ["zig-arena", "up"],
  ["zig-fixed-buffer", "up"],
];

let dir = "";

beforeAll(() => {
  if (!existsSync(wasm)) throw new Error(`${wasm} is missing: run \`npm run build:wasm\` first`);
  dir = mkdtempSync(join(tmpdir(), "bumplab-cli-"));
  writeFileSync(join(dir, "two.txt"), TWO_CHUNKS);
  writeFileSync(join(dir, "prog.txt"), BAD_ALIGN);
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("bumplab list", () => {
  it("prints every preset with its direction", () => {
    const r = bumplab(["list"]);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    const listed = new Map(
      r.stdout
        .trimEnd()
        .split("\n")
        .map((line) => {
          const m = /^(\S+)\s+(up|down)\s+\S/.exec(line);
          if (!m) throw new Error(`unexpected list line: ${line}`);
          return [m[1], m[2]] as const;
        }),
    );
    for (const [name, direction] of PRESETS) expect(listed.get(name), name).toBe(direction);
    // A preset that takes a child allocator names its values, default first.
    expect(r.stdout.split("\n").find((l) => l.startsWith("zig-arena "))).toMatch(/\(--child page \| heap, default page\)$/);
  });
});

describe("bumplab trace", () => {
  it("bumpalo on 64-bit: a 448-byte chunk, then a 960-byte one", () => {
    const t = trace(["--allocator", "bumpalo", "two.txt"]);
    expect([t.allocator, t.target, t.direction]).toEqual(["bumpalo", "64", "down"]);
    expect(t.chunks.map((c) => [c.id, c.capacity, c.reason])).toEqual([
      [0, 448, "first"],
      [1, 960, "full"],
    ]);
    const [a, b, c] = [op(t, 0), op(t, 1), op(t, 2)];
    // Bumping down from each chunk's end: a lands 400 below the first end.
    expect([a.block, a.chunk, a.offset, a.failed]).toEqual(["a", 0, 448 - 400, false]);
    // 48 bytes are left, too few for b: it goes 100 below the second chunk's end.
    expect([b.block, b.chunk, b.offset, b.padding]).toEqual(["b", 1, 960 - 100, 0]);
    // c, 8 bytes aligned to 8: 852 rounds down to 848, 4 bytes of padding.
    expect([c.block, c.chunk, c.offset, c.padding]).toEqual(["c", 1, 848, 4]);
    for (const o of [a, b, c]) {
      const chunk = t.chunks[o.chunk ?? -1];
      expect(o.address).toBe((chunk?.start ?? NaN) + (o.offset ?? NaN));
    }
  });

  it("--target wasm32: bumpalo's first chunk has 464 usable bytes", () => {
    const t = trace(["--allocator", "bumpalo", "--target", "wasm32", "two.txt"]);
    expect(t.target).toBe("wasm32");
    expect(t.chunks.map((c) => c.capacity)).toEqual([464, 976]);
    expect(op(t, 0).offset).toBe(464 - 400);
    expect(op(t, 1).offset).toBe(976 - 100);
  });

  it("--min-align 8 rounds bumpalo's sizes up to 8", () => {
    const t = trace(["--allocator", "bumpalo", "--min-align", "8", "two.txt"]);
    expect(t.chunks.map((c) => c.capacity)).toEqual([448, 960]);
    expect(op(t, 0).offset).toBe(448 - 400); // 400 is already a multiple of 8
    // 100 is rounded up to 104, so b lands 4 bytes lower than without it ...
    expect([op(t, 1).offset, op(t, 1).padding]).toEqual([960 - 104, 4]);
    // ... and c, already aligned there, needs no padding.
    expect([op(t, 2).offset, op(t, 2).padding]).toEqual([848, 0]);
  });

  it("reads the program from standard input with -, with the same output as from the file", () => {
    const fromStdin = bumplab(["trace", "--allocator", "bumpalo", "-"], TWO_CHUNKS);
    const fromFile = bumplab(["trace", "--allocator", "bumpalo", "two.txt"]);
    expect(fromStdin.status).toBe(0);
    expect(fromStdin.stdout).toBe(fromFile.stdout);
    expect((JSON.parse(fromStdin.stdout) as Trace).ops).toHaveLength(3);
  });

  it("prints byte-identical output for the same input", () => {
    for (const args of [
      ["--allocator", "bumpalo", "two.txt"],
      ["--allocator", "bump-scope-up", "--target", "wasm32", "two.txt"],
    ]) {
      const first = bumplab(["trace", ...args]);
      const second = bumplab(["trace", ...args]);
      expect(first.status).toBe(0);
      expect(first.stdout.length).toBeGreaterThan(100);
      expect(second.stdout).toBe(first.stdout);
    }
  });

  it("realloc of the last block on the seed algorithms: in place bumping up, moved down over its old bytes bumping down", () => {
    writeFileSync(join(dir, "grow.txt"), "a = alloc 16 align 8\na = realloc a 32\n");
    interface Realloc {
      address: number;
      moved: boolean;
      reclaimed: number[];
      bump_ptr: number;
      events: { kind: string; text: string }[];
      stats: { copied: number; leaked: number; used: number };
    }
    for (const [allocator, direction] of PRESETS.slice(0, 5)) {
      const t = trace(["--allocator", allocator, "grow.txt"]);
      const chunk = t.chunks[0]!;
      const end = chunk.start + chunk.capacity;
      const r = t.ops[1] as unknown as Realloc;
      const kinds = r.events.map((e) => e.kind);
      // Either way the old block's bytes are the new one's: reused, not left behind.
      expect(r.reclaimed, allocator).toEqual([0]);
      expect(r.stats.leaked, allocator).toBe(0);
      expect(r.stats.used, allocator).toBe(32);
      expect(kinds, allocator).not.toContain("leaked");
      if (direction === "up") {
        expect([r.address, r.moved, r.stats.copied, r.bump_ptr], allocator).toEqual([chunk.start, false, 0, chunk.start + 32]);
        expect(r.events.find((e) => e.kind === "grew_in_place")?.text, allocator).toBe("grew in place from 16 to 32 bytes");
        expect(kinds, allocator).not.toContain("copied");
      } else {
        expect([r.address, r.moved, r.stats.copied, r.bump_ptr], allocator).toEqual([end - 32, true, 16, end - 32]);
        expect(r.events.find((e) => e.kind === "copied")?.text, allocator).toBe("16 bytes copied");
        expect(r.events.find((e) => e.kind === "moved")?.text, allocator).toBe(`moved from 0x${(end - 16).toString(16)} to 0x${(end - 32).toString(16)}`);
      }
    }
  });
});

describe("bumplab errors", () => {
  it("a bad alignment: exit 1 and exactly FILE:LINE:COLUMN: message", () => {
    const r = bumplab(["trace", "--allocator", "bumpalo", "prog.txt"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe("prog.txt:2:19: alignment 3 is not allowed: use a power of two from 1 to 4096\n");
  });

  it("a program error read from standard input is at <stdin>", () => {
    const r = bumplab(["trace", "--allocator", "fitzgen-down", "-"], BAD_ALIGN);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("<stdin>:2:19: alignment 3 is not allowed: use a power of two from 1 to 4096\n");
  });

  it("an unknown allocator: exit 2, naming the allocators", () => {
    const r = bumplab(["trace", "--allocator", "nope", "two.txt"]);
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^bumplab: unknown allocator 'nope': use one of /);
    for (const [name] of PRESETS) expect(r.stderr).toContain(name);
  });

  it("an unknown option: exit 2 with the usage", () => {
    const r = bumplab(["trace", "--allocator", "bumpalo", "--bogus", "two.txt"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/^bumplab: unknown option --bogus\nusage:\n/);
  });

  it("a missing file: exit 1", () => {
    const r = bumplab(["trace", "--allocator", "bumpalo", "missing.txt"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toBe("bumplab: cannot read missing.txt: no such file\n");
  });

  it("--min-align 3 on bumpalo: exit 2, naming the allowed values", () => {
    const r = bumplab(["trace", "--allocator", "bumpalo", "--min-align", "3", "two.txt"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("bumplab: minimum alignment 3 is not allowed for bumpalo: use one of 1, 2, 4, 8, 16\n");
  });

  it("--min-align on fitzgen-down, which has no such setting: exit 2", () => {
    const r = bumplab(["trace", "--allocator", "fitzgen-down", "--min-align", "8", "two.txt"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("bumplab: fitzgen-down has no minimum alignment setting (asked for 8)\n");
  });

  it("--child picks zig-arena's child allocator: page_allocator by default, or the heap that never resizes", () => {
    writeFileSync(join(dir, "round.txt"), "repeat 12 {\n  x = alloc 100\n}\n");
    const page = trace(["--allocator", "zig-arena", "round.txt"]);
    expect(page.program.child).toBe("page");
    // One buffer, grown in place inside its page.
    expect(page.chunks.map((c) => c.capacity)).toEqual([4072]);
    const heap = trace(["--allocator", "zig-arena", "--child", "heap", "round.txt"]);
    expect(heap.program.child).toBe("heap");
    expect(heap.chunks.map((c) => c.capacity)).toEqual([188, 470, 892]);
    const wrong = bumplab(["trace", "--allocator", "zig-arena", "--child", "mmap", "round.txt"]);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toBe("bumplab: unknown child allocator 'mmap': use one of page, heap\n");
    const none = bumplab(["trace", "--allocator", "bumpalo", "--child", "heap", "round.txt"]);
    expect(none.status).toBe(2);
    expect(none.stderr).toBe("bumplab: bumpalo has no child allocator setting (asked for heap)\n");
  });

  it("numbers past 32 bits are refused, not wrapped around", () => {
    // 2^32 + 8 would wrap to 8, which bumpalo allows.
    const r = bumplab(["trace", "--allocator", "bumpalo", "--min-align", "4294967304", "two.txt"]);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe("bumplab: --min-align takes a whole number up to 4294967295, not '4294967304'\n");
  });
});

// One row per class of bad input: the program, the options, and exactly
// what stderr says. Every one exits 1 with nothing on stdout.
const ALLOWED = "names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment";
const BAD_INPUTS: { class: string; program: string; args?: string[]; stderr: string }[] = [
  { class: "alignment 0", program: "a = alloc 8 align 0", stderr: "1:19: alignment 0 is not allowed: use a power of two from 1 to 4096" },
  { class: "alignment not a power of two", program: "a = alloc 8 align 24", stderr: "1:19: alignment 24 is not allowed: use a power of two from 1 to 4096" },
  { class: "alignment too large", program: "a = alloc 8 align 8192", stderr: "1:19: alignment 8192 is not allowed: use a power of two from 1 to 4096" },
  { class: "size past 64 bits", program: "a = alloc 99999999999999999999", stderr: "1:11: '99999999999999999999' is too large (the largest is 0xffffffffffffffff)" },
  { class: "negative size", program: "a = alloc -1", stderr: "1:11: '-1' is negative: sizes and counts are whole numbers of 0 or more" },
  { class: "size not a number", program: "a = alloc 12kb", stderr: "1:11: '12kb' is not a number (use decimal like 24 or hex like 0x18)" },
  { class: "size missing", program: "a = alloc\n", stderr: "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line" },
  {
    class: "size beyond wasm32's address space",
    program: "a = alloc 0xffffffffffff align 4096",
    args: ["--target", "wasm32"],
    stderr: "1:1: size 0xffffffffffff with align 4096 exceeds isize::MAX (0x7fffffff) on this target: no Layout can describe it",
  },
  {
    class: "size beyond the simulated heap",
    program: "a = alloc 0xffffffffffff align 4096",
    stderr: "1:1: the simulated base allocator has no room for the chunk this needs (its heap is 0x100000000 bytes)",
  },
  { class: "unknown block", program: "free zz", stderr: "1:6: unknown block 'zz': no line allocates it" },
  {
    class: "a block allocated only in repeat 0",
    program: "repeat 0 {\n  a = alloc 8\n}\nfree a",
    stderr: "4:6: unknown block 'a': the line that allocates it, 2:3, is inside `repeat 0` at 1:1, which runs its body zero times",
  },
  { class: "double free", program: "a = alloc 8\nb = alloc 8\nfree a\nfree a", stderr: "4:6: cannot free 'a': it was already freed at 3:1" },
  { class: "realloc of a freed block", program: "a = alloc 8\nfree a\nb = realloc a 16", stderr: "3:13: cannot realloc 'a': it was already freed at 2:1" },
  { class: "restore of an unknown checkpoint", program: "restore s", stderr: "1:1: unknown checkpoint 's': save it first with `checkpoint s`" },
  {
    class: "restore of a checkpoint a restore dropped",
    program: "checkpoint s\ncheckpoint t\nrestore s\nrestore t",
    stderr: "4:1: cannot restore 't': restoring 's' at 3:1 dropped it (save it again with `checkpoint t`)",
  },
  {
    class: "restore of a checkpoint a reset dropped",
    program: "checkpoint s\nreset\nrestore s",
    stderr: "3:1: cannot restore 's': the reset at 2:1 dropped it (save it again with `checkpoint s`)",
  },
  { class: "'{' never closed", program: "repeat 2 {\n  a = alloc 8\n", stderr: "1:10: this '{' is never closed: add a '}'" },
  { class: "'}' without a repeat", program: "a = alloc 8\n}\n", stderr: "2:1: '}' without a matching 'repeat N {'" },
  {
    class: "a huge repeat count",
    program: "repeat 18446744073709551615 {\n  a = alloc 8\n}\n",
    stderr: `1:1: the program would execute over 18 quintillion ops; the limit is 100,000, the most a full JSON trace holds: lower a repeat count\n${SUMMARY_HINT}`,
  },
  { class: "HTML as a block name", program: "<script>alert(1)</script> = alloc 8", stderr: `1:1: unexpected character '<': ${ALLOWED}` },
  { class: "a NUL byte", program: "a = alloc 8\u0000", stderr: `1:12: unexpected character U+0000: ${ALLOWED}` },
  { class: "a name too long", program: `${"n".repeat(65)} = alloc 8`, stderr: "1:1: this name is 65 characters long: names are at most 64" },
  {
    class: "too many live chunks to simulate",
    program: "repeat 5000 {\n  a = alloc 64\n}\n",
    args: ["--allocator", "bumper-slab", "--capacity", "16"],
    stderr:
      "2:3: 1145 chunks are live at once, too many to simulate this many ops: lower a repeat count, or raise the capacity so fewer chunks hold the blocks",
  },
  { class: "a program one byte over 32 MB", program: "#".repeat(32_000_001), stderr: "1:1: the program is 32,000,001 bytes; the limit is 32,000,000 bytes" },
];

describe("bumplab trace, bad input", () => {
  for (const [i, row] of BAD_INPUTS.entries()) {
    it(`${row.class}: exit 1 and FILE:LINE:COLUMN: message`, () => {
      const file = `bad-${i}.txt`;
      writeFileSync(join(dir, file), row.program);
      const r = bumplab(["trace", "--allocator", "bumpalo", ...(row.args ?? []), file]);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(`${file}:${row.stderr}\n`);
      expect(r.status).toBe(1);
    });
  }

  it("a program with several bad lines: one FILE:LINE:COLUMN: message line for each, in line order", () => {
    writeFileSync(join(dir, "several.txt"), "a = alloc\nb = alloc 8\nfree\nc = alloc 8 @\n");
    const r = bumplab(["trace", "--allocator", "bumpalo", "several.txt"]);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      [
        "several.txt:1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line",
        "several.txt:3:5: expected the name of a block to free, found the end of the line",
        `several.txt:4:13: unexpected character '@': ${ALLOWED}`,
        "",
      ].join("\n"),
    );
    expect(r.status).toBe(1);
  });

  it("an empty program and a repeat that runs nothing are valid, with no ops", () => {
    for (const program of ["", "# just a comment\n", "repeat 18446744073709551615 {\n}\n"]) {
      expect(trace(["--allocator", "bumpalo", "-"], program).ops).toEqual([]);
    }
  });

  it("HTML in comments is ignored: only the program's own text carries it, as a JSON string, and names come back as written", () => {
    const program = "# <script>alert('x')</script>\nblock_1 = alloc 8 # <img src=x onerror=alert(1)>\ncheckpoint s_2 # &amp; &lt;\n";
    const r = bumplab(["trace", "--allocator", "bumpalo", "-"], program);
    expect(r.status).toBe(0);
    const t = JSON.parse(r.stdout) as Trace;
    // The program as written, so the trace can be replayed; nowhere else.
    expect(t.program.text).toBe(program);
    const rest = JSON.stringify({ ...t, program: null });
    for (const markup of ["<script", "<img", "onerror", "&amp;", "&lt;", "alert("]) expect(rest).not.toContain(markup);
    expect(t.ops.map((o) => o.block)).toEqual(["block_1", "s_2"]);
  });
});

describe("bumplab trace, determinism", () => {
  it("the same program, traced twice, gives byte-identical JSON on every preset", () => {
    const program = [
      "a = alloc 24 align 8",
      "b = alloc [u32; 17]",
      "checkpoint s",
      "repeat 3 {",
      "  c = alloc u64",
      "  d = realloc c 32",
      "  free d",
      "}",
      "restore s",
      "e = realloc a 48",
      "free b",
      "reset",
      "f = alloc 0 align 16",
    ].join("\n");
    for (const preset of ["fitzgen-down", "bumper-slab", "cpp-arena", "bump-scope-up", "bumpalo"]) {
      for (const target of ["64", "wasm32"]) {
        const args = ["trace", "--allocator", preset, "--target", target, "-"];
        const first = bumplab(args, program);
        const second = bumplab(args, program);
        expect(first.status, `${preset} ${target}: ${first.stderr}`).toBe(0);
        expect((JSON.parse(first.stdout) as Trace).ops).toHaveLength(17);
        expect(second.stdout === first.stdout, `${preset} ${target}`).toBe(true);
      }
    }
  }, 60_000);

  it("prints the canonical form the page's trace export writes (traceJson), byte for byte", () => {
    const cases: [string, "64" | "wasm32", number | undefined, number | undefined][] = [
      ["bumpalo", "wasm32", undefined, undefined],
      ["up-min-align", "64", 512, 16],
      ["fitzgen-down", "64", undefined, undefined],
    ];
    for (const [allocator, target, capacity, minAlign] of cases) {
      const args = ["trace", "--allocator", allocator, "--target", target];
      if (capacity !== undefined) args.push("--capacity", String(capacity));
      if (minAlign !== undefined) args.push("--min-align", String(minAlign));
      const out = bumplab([...args, "two.txt"]);
      expect(out.status, out.stderr).toBe(0);
      const page = loadCostModuleSync().trace({ source: TWO_CHUNKS, allocator, target, capacity: capacity ?? null, minAlign: minAlign ?? null });
      if (!page.ok) throw new Error(page.error.message);
      const mine = traceJson(page.trace);
      // Byte for byte, the baseline included: it runs on a fresh dlmalloc
      // heap every time, so it does not depend on what the module traced before.
      expect(out.stdout.length).toBeGreaterThan(100);
      expect(out.stdout === mine, `${allocator} ${target}`).toBe(true);
      // One line: the only newline is the last character.
      expect(out.stdout.indexOf("\n")).toBe(out.stdout.length - 1);
    }
  });
});

describe("costs in the CLI's trace are the allocator's own", () => {
  // Hinckley, "Bump Allocation: Up or Down?": bumping down takes 2 branches,
  // the first bump up 3, the one-branch bump up 1, whatever the compiler
  // knows of the layout; a `u64`'s constant layout folds some arithmetic
  // away, so it takes fewer instructions than `alloc 1`, a run-time layout.
  // A checkpoint is a load of the bump pointer and a restore a store of it.
  const program = "a = alloc 1\nb = alloc u64\ncheckpoint s\nrestore s\n";
  for (const [allocator, layoutInstructions, typedInstructions, branches] of [
    ["fitzgen-down", 22, 20, 2],
    ["hinckley-up-naive", 32, 27, 3],
    ["hinckley-up", 27, 25, 1],
  ] as const) {
    for (const target of ["64", "wasm32"]) {
      it(`${allocator} --target ${target}: a run-time layout's alloc ${layoutInstructions} instructions, a u64's ${typedInstructions}, both ${branches} branches`, () => {
        const r = bumplab(["trace", "--allocator", allocator, "--target", target, "-"], program);
        expect(r.status).toBe(0);
        const t = JSON.parse(r.stdout) as {
          ops: { kind: string; shape?: { kind: string }; cost: { wasm_instructions: number; wasm_branches: number; slow_instructions: number } }[];
        };
        const costs = t.ops.map((o) => [o.kind, o.shape?.kind, o.cost.wasm_instructions, o.cost.wasm_branches, o.cost.slow_instructions]);
        expect(costs).toEqual([
          ["alloc", "layout", layoutInstructions, branches, 0],
          ["alloc", "typed", typedInstructions, branches, 0],
          ["checkpoint", undefined, 2, 0, 0],
          ["restore", undefined, 4, 0, 0],
        ]);
      });
    }
  }
});

describe("bumplab trace, a recording at the page's scale", () => {
  const rec = recording(1_000_000);
  const ops = rec.text.split("\n").flatMap((line, i) => (line === "" || line.startsWith("#") ? [] : [i + 1]));

  it("--summary runs past the full trace's 100,000 ops and gives the counters after the last op", () => {
    // 150,000 ops, not a million: the run itself is the page's (tests/e2e/import.spec.ts runs a million there).
    const longer = recording(150_000, 3);
    writeFileSync(join(dir, "longer.txt"), longer.text);
    const r = bumplab(["trace", "--allocator", "bumpalo", "--summary", "longer.txt"], "", 120_000);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const summary = JSON.parse(r.stdout) as { allocator: string; ops: number; chunks: unknown[]; stats: { requested: number; chunks: number } };
    expect([summary.allocator, summary.ops]).toEqual(["bumpalo", 150_000]);
    expect(summary.stats.requested).toBe(longer.requested);
    expect(summary.stats.chunks).toBe(summary.chunks.length);
  }, 150_000);

  it("the full trace of a million ops stops at 100,000, at the line that passes them, and names --summary", () => {
    writeFileSync(join(dir, "million.txt"), rec.text);
    const r = bumplab(["trace", "--allocator", "bumpalo", "million.txt"], "", 120_000);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `million.txt:${ops[100_000]}:1: the program would execute 1,000,000 ops; the limit is 100,000, the most a full JSON trace holds: record fewer ops (bumplab-record --max-ops)\n${SUMMARY_HINT}\n`,
    );
    expect(r.status).toBe(1);
  }, 150_000);

  it("a file over the limit is refused by its size, in the page's words", () => {
    writeFileSync(join(dir, "fifty.txt"), Buffer.alloc(50_000_000, "#"));
    for (const args of [["fifty.txt"], ["--summary", "fifty.txt"]]) {
      const r = bumplab(["trace", "--allocator", "bumpalo", ...args]);
      expect(r.stderr).toBe(`fifty.txt:1:1: ${sourceTooLarge(50_000_000)}\n`);
      expect(r.stderr).toBe("fifty.txt:1:1: the program is 50 MB; the limit is 32 MB\n");
      expect(r.status).toBe(1);
    }
    // At the limit exactly: a program of comments, no ops.
    writeFileSync(join(dir, "limit.txt"), Buffer.alloc(MAX_SOURCE_BYTES, "#"));
    const r = bumplab(["trace", "--allocator", "bumpalo", "--summary", "limit.txt"]);
    expect(r.stderr).toBe("");
    expect((JSON.parse(r.stdout) as { ops: number }).ops).toBe(0);
  }, 60_000);
});

describe("bumplab trace --executed", () => {
  interface Executed {
    function: string;
    offset: number;
    text: string;
    file: string | null;
    line: number;
  }
  type ExecutedTrace = { ops: { cost: { wasm_instructions: number; wasm_branches: number }; executed: Executed[] }[] };

  it("lists each op's executed wasm instructions, as many as it counted, with text and source line", () => {
    writeFileSync(join(dir, "executed.txt"), "a = alloc 1\nb = alloc u64\nfree b\n");
    const t = trace(["--allocator", "fitzgen-down", "--target", "wasm32", "--executed", "executed.txt"]) as unknown as ExecutedTrace;
    expect(t.ops).toHaveLength(3);
    for (const o of t.ops) {
      expect(o.executed).toHaveLength(o.cost.wasm_instructions);
      expect(o.executed.filter((e) => /^(if|br_if|br_table)\b/.test(e.text))).toHaveLength(o.cost.wasm_branches);
    }
    // `a = alloc 1`, a run-time layout, runs the run-time root; `b = alloc
    // u64` the root compiled with the u64's layout: 20 instructions, with
    // fitzgen's bounds check (new pointer >= chunk start) on its own line.
    expect(new Set(t.ops[0]!.executed.map((e) => e.function))).toEqual(new Set(["bumplab_cost::roots::bumplab_measure_alloc"]));
    const b = t.ops[1]!.executed;
    expect(b).toHaveLength(20);
    expect(new Set(b.map((e) => e.function))).toEqual(new Set(["bumplab_cost::roots::bumplab_measure_alloc_typed"]));
    expect(b.filter((e) => e.text.startsWith("br_if")).map((e) => `${e.file}:${e.line}`)).toEqual([
      "crates/core/src/algorithms/bump_down.rs:28",
      "crates/core/src/algorithms/bump_down.rs:40",
    ]);
    expect(b.every((e) => Number.isInteger(e.offset) && e.offset > 0)).toBe(true);
    // Without --executed the trace has no such list.
    const plain = trace(["--allocator", "fitzgen-down", "--target", "wasm32", "executed.txt"]) as unknown as ExecutedTrace;
    expect(plain.ops[1]).not.toHaveProperty("executed");
  });

  it("does not go with --summary", () => {
    const r = bumplab(["trace", "--allocator", "fitzgen-down", "--summary", "--executed", "two.txt"]);
    expect(r.stderr).toMatch(/^bumplab: --executed lists each op of the full trace; --summary prints none\n/);
    expect(r.status).toBe(2);
  });
});
