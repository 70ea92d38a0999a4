// Programs recorded from real software with bumplab-record (crates/record):
// the allocations a real parser or compiler made, replayed on an arena. The
// programs are files under web/public/examples/recorded/ (hundreds of kB:
// fetched when opened, never bundled), each with the command that recorded
// it in its header and here. Each narration is written from `facts`, and
// recorded.test.ts traces every file and recomputes the facts from the
// trace (recordedFacts), so no number in a narration is typed in unchecked.

import type { Trace } from "../wasm/types";
import { bytes } from "./format";

/** What one replay of a recorded program did, as recordedFacts reads it off the trace. */
export interface RecordedFacts {
  ops: number;
  allocs: number;
  reallocs: number;
  frees: number;
  resets: number;
  /** Bytes asked for by every alloc and realloc, together. */
  requestedBytes: number;
  /** Most bytes of live blocks at once. */
  peakLiveBytes: number;
  /** Alignment padding paid by every placement, together. */
  paddingBytes: number;
  /** Chunks the run made. */
  chunks: number;
  /** Most bytes the arena held in chunks at once, metadata included. */
  peakChunkBytes: number;
  /** Most bytes at once of blocks freed, or left behind by a moving realloc, that the arena had not reclaimed. */
  deadBytes: number;
  /** Bytes reallocs copied. */
  copiedBytes: number;
  /** Mean wasm instructions per op on the arena, one decimal. */
  instructionsPerOp: number;
  /** Mean wasm instructions per op on the general-purpose baseline (dlmalloc), one decimal. */
  baselinePerOp: number;
}

export interface RecordedProgram {
  id: string;
  title: string;
  /** The command that recorded it, run from the repository's root. */
  command: string;
  /** The program file, relative to the site's base (a file in web/public). */
  path: string;
  /** The preset the narration measures, on the 64-bit target the program was recorded on. */
  allocator: string;
  facts: RecordedFacts;
  /**
   * The step the program opens at: where its narration's totals hold (every
   * chunk it names on the map, its peak bytes in them). The last op, unless
   * the program ends in a reset, which gives the chunks back.
   */
  opensAt: number;
  /** What the arena does with this workload, from the facts. */
  narrate(f: RecordedFacts): string;
}

const round1 = (n: number): number => Math.round(n * 10) / 10;

function mean(values: readonly number[]): number {
  return values.length ? round1(values.reduce((a, b) => a + b, 0) / values.length) : 0;
}

/** The facts of a trace (a full trace from the metered module: with costs and the baseline). */
export function recordedFacts(trace: Trace): RecordedFacts {
  const count = (kind: string): number => trace.ops.filter((o) => o.kind === kind).length;
  const placing = trace.ops.filter((o) => o.kind === "alloc" || o.kind === "realloc");
  const most = (pick: (s: Trace["ops"][number]["stats"]) => number): number =>
    trace.ops.reduce((m, o) => Math.max(m, pick(o.stats)), 0);
  return {
    ops: trace.ops.length,
    allocs: count("alloc"),
    reallocs: count("realloc"),
    frees: count("free"),
    resets: count("reset"),
    requestedBytes: placing.reduce((s, o) => s + (o.size ?? 0), 0),
    peakLiveBytes: most((s) => s.requested),
    paddingBytes: placing.reduce((s, o) => s + (o.padding ?? 0), 0),
    chunks: trace.chunks.length,
    peakChunkBytes: most((s) => s.used + s.unused + s.metadata),
    deadBytes: most((s) => s.leaked),
    copiedBytes: most((s) => s.copied),
    instructionsPerOp: mean(trace.ops.flatMap((o) => (o.cost ? [o.cost.wasm_instructions] : []))),
    baselinePerOp: mean((trace.baseline?.ops ?? []).flatMap((o) => (o.cost ? [o.cost.wasm_instructions] : []))),
  };
}

/** `20,842`. */
const count = (n: number): string => n.toLocaleString("en-US");

/** `1,515 bytes`, `255.4 KiB`, `35.9 MiB`. */
function size(n: number): string {
  if (n < 10 * 1024) return bytes(n, count(n));
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / (1024 * 1024)).toFixed(1)} MiB`;
}

const share = (part: number, whole: number): string => `${((100 * part) / whole).toFixed(1)}%`;

/** "27.3 wasm instructions on average, against 229.1 for dlmalloc (...): 8.4 times fewer". */
function perOp(f: RecordedFacts): string {
  return (
    `${f.instructionsPerOp} wasm instructions on average, against ${f.baselinePerOp} for dlmalloc ` +
    `(the general-purpose allocator Rust uses on wasm32) making the same calls: ` +
    `${(f.baselinePerOp / f.instructionsPerOp).toFixed(1)} times fewer`
  );
}

const JQ: RecordedProgram = {
  id: "jq-package-lock",
  title: "jq pretty-printing package-lock.json (C, malloc)",
  command:
    "cargo run -p bumplab-record -- run --out web/public/examples/recorded/jq-package-lock.txt -- jq . package-lock.json > /dev/null",
  path: "examples/recorded/jq-package-lock.txt",
  allocator: "bumpalo",
  facts: {
    ops: 20842,
    allocs: 10422,
    reallocs: 0,
    frees: 10420,
    resets: 0,
    requestedBytes: 1326739,
    peakLiveBytes: 700270,
    paddingBytes: 87232,
    chunks: 11,
    peakChunkBytes: 2092368,
    deadBytes: 1268878,
    copiedBytes: 0,
    instructionsPerOp: 27.3,
    baselinePerOp: 229.1,
  },
  opensAt: 20842,
  narrate: (f) =>
    `jq 1.6 pretty-printing this repository's package-lock.json (as of commit 02d89fd), recorded ` +
    `through the LD_PRELOAD shim. Before it reads a byte of the file, jq compiles its library of built-in filters; ` +
    `then it parses the document into reference-counted values, prints them and lets them go: ${count(f.allocs)} ` +
    `allocations of ${size(f.requestedBytes)} in all, and ${count(f.frees)} frees. ` +
    `On bumpalo each op runs ${perOp(f)}. ` +
    `The price is memory. An arena takes a freed block back only when it is the last one placed, and jq frees in ` +
    `its own order, so up to ${size(f.deadBytes)} of freed blocks stay in the chunks: the run grows to ` +
    `${count(f.chunks)} chunks and ${size(f.peakChunkBytes)}, for a program that never had more than ` +
    `${size(f.peakLiveBytes)} live at once. Alignment padding is small beside that: ${size(f.paddingBytes)}, ` +
    `${share(f.paddingBytes, f.requestedBytes)} of the bytes asked for.`,
};

const GCC: RecordedProgram = {
  id: "gcc-syntax-check",
  title: "gcc -fsyntax-only on a C file (C, malloc)",
  command:
    "cargo run -p bumplab-record -- run --process cc1 --out web/public/examples/recorded/gcc-syntax-check.txt -- setarch -R gcc -fsyntax-only bumplab_record.c",
  path: "examples/recorded/gcc-syntax-check.txt",
  allocator: "bumpalo",
  facts: {
    ops: 44603,
    allocs: 23638,
    reallocs: 421,
    frees: 20544,
    resets: 0,
    requestedBytes: 36645328,
    peakLiveBytes: 992401,
    paddingBytes: 168560,
    chunks: 13,
    peakChunkBytes: 37682480,
    deadBytes: 33919584,
    copiedBytes: 494036,
    instructionsPerOp: 29.8,
    baselinePerOp: 260.8,
  },
  opensAt: 44603,
  narrate: (f) =>
    `GCC 12's C front end, cc1, checking the syntax of the recorder's own C shim and the system headers it ` +
    `includes (the gcc driver runs cc1; --process picked it). cc1 keeps its syntax trees in garbage-collected ` +
    `pages of its own, so what reaches malloc is the rest of its working data: ${count(f.allocs)} allocations and ` +
    `${count(f.reallocs)} reallocs of ${size(f.requestedBytes)} in all, ${count(f.frees)} of them freed along the ` +
    `way, never more than ${size(f.peakLiveBytes)} live at once. ` +
    `That is the opposite of what an arena is for. On bumpalo a freed block that is not the last one placed is ` +
    `never reused, so up to ${size(f.deadBytes)} of dead blocks pile up and the run grows to ${count(f.chunks)} ` +
    `chunks and ${size(f.peakChunkBytes)}. Per op the arena is still cheap: ${perOp(f)}. But a general-purpose ` +
    `allocator hands freed bytes out again, and an arena gives them back only all at once. ` +
    `Padding: ${size(f.paddingBytes)}, ${share(f.paddingBytes, f.requestedBytes)} of the bytes asked for.`,
};

const JSON_ARENA: RecordedProgram = {
  id: "json-arena-package-lock",
  title: "A JSON parser in a bumpalo arena (Rust, bumpalo)",
  command:
    "cargo run -p bumplab-record --example json_arena -- --out web/public/examples/recorded/json-arena-package-lock.txt package-lock.json",
  path: "examples/recorded/json-arena-package-lock.txt",
  allocator: "bumpalo",
  facts: {
    ops: 2425,
    allocs: 2288,
    reallocs: 136,
    frees: 0,
    resets: 1,
    requestedBytes: 194304,
    peakLiveBytes: 150848,
    paddingBytes: 1515,
    chunks: 9,
    peakChunkBytes: 261488,
    deadBytes: 43456,
    copiedBytes: 43456,
    instructionsPerOp: 47.5,
    baselinePerOp: 229.3,
  },
  // Before the reset at its end, which gives every chunk back to the heap but the last.
  opensAt: 2424,
  narrate: (f) =>
    `The same package-lock.json read by a small Rust JSON parser (crates/record/examples/json_arena.rs) into a ` +
    `tree that lives in a real bumpalo arena, recorded through the Allocator wrapper. It makes one allocation per ` +
    `string and key, one vector per array and object that grows by doubling (${count(f.reallocs)} reallocs), and ` +
    `one reset at the end instead of a free per node: ${count(f.ops)} ops in all. ` +
    `Replayed on the bumpalo model the run takes ${count(f.chunks)} chunks and at most ${size(f.peakChunkBytes)}, ` +
    `exactly what the real arena held before its reset (the program's header says so, and a test checks it). ` +
    `A vector that grows after other blocks were placed must move, and its old block stays behind: ` +
    `${size(f.copiedBytes)} copied and ${size(f.deadBytes)} left dead before the reset takes everything back. ` +
    `Padding is ${size(f.paddingBytes)}, ${share(f.paddingBytes, f.requestedBytes)} of the bytes asked for. ` +
    `Each op runs ${perOp(f)}; dlmalloc's count includes a free for each of the ${count(f.allocs)} blocks, ` +
    `which the arena's one reset replaces.`,
};

/** In the order the menu lists them: the Rust arena first, then the C programs. */
export const RECORDED: readonly RecordedProgram[] = [JSON_ARENA, JQ, GCC];

/** Its narration, written from its facts. */
export function narrationOf(r: RecordedProgram): string {
  return r.narrate(r.facts);
}

export function recordedById(id: string): RecordedProgram | undefined {
  return RECORDED.find((r) => r.id === id);
}
