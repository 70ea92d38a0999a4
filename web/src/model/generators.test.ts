import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import { failed as opFailed, kindOf, type TraceView } from "../wasm/traceView";
import { config, opsOf, traced, viewResult } from "../test/runs";
import {
  EXAMPLES,
  GENERATORS,
  parserNodes,
  randomMix,
  RANDOM_MIX_DEFAULTS,
  stringBuilding,
  validateRandomMix,
  vecPush,
  type RandomMixInput,
} from "./generators";

const FIXED_CHUNK = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"];

/** Runs `source` on a preset at its default settings; a program error fails the test. */
function run(source: string, allocator: string): TraceView {
  const r = viewResult(config(source, allocator));
  if (!r.ok) throw new Error(`${allocator}: ${r.error.line}:${r.error.column}: ${r.error.message}\n${source}`);
  return r.trace;
}

const ops = (trace: TraceView): number[] => Array.from({ length: trace.length }, (_, i) => i);
const failed = (trace: TraceView): number => ops(trace).filter((i) => opFailed(trace, i)).length;
const kinds = (trace: TraceView): string[] => ops(trace).map((i) => kindOf(trace, i));
const allocators = (): string[] => loadTraceModuleSync().allocators().map((a) => a.name);

describe("every menu program", () => {
  it("traces without error on every preset, and no op fails but where a fixed chunk is full", () => {
    const refused: string[] = [];
    for (const entry of [...EXAMPLES, ...GENERATORS]) {
      for (const allocator of allocators()) {
        const trace = run(entry.source(), allocator);
        expect(opsOf(trace).length, `${entry.id} on ${allocator}`).toBeGreaterThan(0);
        if (failed(trace) > 0) refused.push(`${entry.id} on ${allocator}: ${failed(trace)} of ${trace.length}`);
      }
    }
    // The seed algorithms bump in one fixed 256-byte chunk: the parser's 43
    // nodes outgrow it, and every allocator that makes chunks fits them all.
    const seeds = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"];
    expect(refused).toEqual(seeds.map((a) => `parser-nodes on ${a}: 28 of 43`));
  }, 60_000);

  it("has a unique id", () => {
    const ids = [...EXAMPLES, ...GENERATORS].map((e) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
  });
});

describe("vecPush", () => {
  it("doubles the capacity by realloc: 4, 8, 16, 32 u32s", () => {
    const trace = run(vecPush(), "hinckley-up");
    expect(kinds(trace)).toEqual(["alloc", "realloc", "realloc", "realloc"]);
    expect(opsOf(trace).map((op) => op.size)).toEqual([16, 32, 64, 128]);
    // Bumping down, every growth moves: the whole history fits the 256-byte chunk.
    expect(failed(run(vecPush(), "fitzgen-down"))).toBe(0);
  });

  it("starts bytes at capacity 8 and stops growing once the pushes fit", () => {
    expect(opsOf(run(vecPush({ elements: 9, element: "u8" }), "bumpalo")).map((op) => op.size)).toEqual([8, 16]);
    expect(opsOf(run(vecPush({ elements: 4, element: "u64" }), "bumpalo")).map((op) => op.size)).toEqual([32]);
  });
});

describe("stringBuilding", () => {
  it("reallocs to the exact length after each word", () => {
    const trace = run(stringBuilding(["ab", "cde", "f"]), "hinckley-up");
    expect(opsOf(trace).map((op) => `${op.kind} ${op.size}`)).toEqual(["alloc 2", "realloc 6", "realloc 8"]);
  });

  it("fits the default words in every fixed chunk", () => {
    for (const allocator of FIXED_CHUNK) expect(failed(run(stringBuilding(), allocator)), allocator).toBe(0);
    expect(opsOf(run(stringBuilding(), "fitzgen-down")).length).toBe(8);
  });
});

describe("parserNodes", () => {
  it("is the same program for the same seed and another for another seed", () => {
    expect(parserNodes({ nodes: 30, seed: 5 })).toBe(parserNodes({ nodes: 30, seed: 5 }));
    expect(parserNodes({ nodes: 30, seed: 5 })).not.toBe(parserNodes({ nodes: 30, seed: 6 }));
  });

  it("allocates small nodes, plus an index vector per call, and frees nothing", () => {
    const trace = run(parserNodes({ nodes: 30, seed: 5 }), "cpp-arena");
    const nodes = opsOf(trace).filter((op) => /^n\d+$/.test(op.block ?? ""));
    const vectors = opsOf(trace).filter((op) => /args$/.test(op.block ?? ""));
    expect(nodes.length).toBe(30);
    expect(nodes.every((op) => op.size === 16 || op.size === 24)).toBe(true);
    expect(vectors.length).toBeGreaterThan(0);
    expect(vectors.every((op) => op.align === 4 && (op.size ?? 0) <= 16)).toBe(true);
    expect(opsOf(trace).length).toBe(nodes.length + vectors.length);
    expect(failed(trace)).toBe(0);
  });
});

describe("randomMix", () => {
  const options = { ops: 120, minSize: 1, maxSize: 48, minAlign: 1, maxAlign: 32, seed: 42 };

  it("is deterministic for a seed", () => {
    expect(randomMix(options)).toBe(randomMix(options));
    expect(randomMix(options)).not.toBe(randomMix({ ...options, seed: 43 }));
  });

  it("writes the number of ops asked for, in the ranges asked for", () => {
    const trace = run(randomMix(options), "bumpalo");
    expect(opsOf(trace).length).toBe(120);
    const allocs = opsOf(trace).filter((op) => op.kind === "alloc");
    expect(allocs.every((op) => (op.size ?? 0) >= 1 && (op.size ?? 0) <= 48)).toBe(true);
    expect(new Set(allocs.map((op) => op.align))).toEqual(new Set([1, 2, 4, 8, 16, 32]));
    expect(new Set(kinds(trace))).toEqual(new Set(["alloc", "realloc", "free", "reset"]));
  });

  it("traces without error on every preset, for many seeds and ranges", () => {
    const ranges = [
      { minSize: 0, maxSize: 8, minAlign: 1, maxAlign: 1 },
      { minSize: 1, maxSize: 64, minAlign: 1, maxAlign: 16 },
      { minSize: 100, maxSize: 400, minAlign: 8, maxAlign: 64 },
    ];
    for (const range of ranges) {
      for (let seed = 0; seed < 6; seed++) {
        const source = randomMix({ ops: 60, seed, ...range });
        for (const allocator of allocators()) run(source, allocator);
      }
    }
  });
});

describe("validateRandomMix", () => {
  const text = (o: typeof RANDOM_MIX_DEFAULTS): RandomMixInput => ({
    ops: String(o.ops),
    minSize: String(o.minSize),
    maxSize: String(o.maxSize),
    minAlign: String(o.minAlign),
    maxAlign: String(o.maxAlign),
    seed: String(o.seed),
  });

  it("accepts the defaults and returns them as numbers", () => {
    expect(validateRandomMix(text(RANDOM_MIX_DEFAULTS))).toEqual({ ok: true, options: RANDOM_MIX_DEFAULTS });
  });

  it("names each bad field and what to enter instead", () => {
    const r = validateRandomMix({ ops: "0", minSize: "ten", maxSize: "8", minAlign: "3", maxAlign: "8192", seed: "-1" });
    expect(r).toEqual({
      ok: false,
      errors: [
        { field: "ops", message: "Ops: enter a whole number from 1 to 2000" },
        { field: "minSize", message: "Smallest size: enter a whole number from 0 to 65536" },
        { field: "minAlign", message: "Smallest alignment: 3 is not a power of two (1, 2, 4, … 4096)" },
        { field: "maxAlign", message: "Largest alignment: enter a whole number from 1 to 4096" },
        { field: "seed", message: "Seed: enter a whole number from 0 to 4294967295" },
      ],
    });
  });

  it("rejects ranges that run backwards", () => {
    const r = validateRandomMix(text({ ...RANDOM_MIX_DEFAULTS, minSize: 64, maxSize: 8, minAlign: 16, maxAlign: 4 }));
    expect(r.ok ? [] : r.errors.map((e) => e.message)).toEqual([
      "Largest size: 8 is below the smallest size, 64",
      "Largest alignment: 4 is below the smallest alignment, 16",
    ]);
  });
});

describe("generators: what their comments say about realloc", () => {
  // Both programs say: bumping down, a growth moves the block and copies it;
  // bumping up, an arena with a fast path grows the last block in place.
  const allocators = loadTraceModuleSync().allocators();
  const reallocs = (source: string, allocator: string) =>
    opsOf(traced(source, allocator)).filter((o) => o.kind === "realloc" && !o.failed);

  it("a Vec's growth moves and copies on every allocator that bumps down", () => {
    const down = allocators.filter((a) => a.direction === "down");
    expect(down.map((a) => a.name)).toEqual(expect.arrayContaining(["fitzgen-down", "bumpalo", "bump-scope-down", "down-min-align"]));
    for (const a of down) {
      const r = reallocs(vecPush(), a.name);
      expect(r.length, a.name).toBe(3);
      for (const o of r) expect(o.moved, `${a.name} line ${o.line}`).toBe(true);
    }
  });

  it("bumping up, the seed algorithms and bump-scope grow the Vec and the string in place", () => {
    for (const name of ["hinckley-up", "hinckley-up-naive", "up-min-align", "bump-scope-up"]) {
      for (const source of [vecPush(), stringBuilding()]) {
        const r = reallocs(source, name);
        expect(r.length).toBeGreaterThan(2);
        for (const o of r) expect(o.moved, `${name} line ${o.line}`).toBe(false);
      }
    }
  });
});
