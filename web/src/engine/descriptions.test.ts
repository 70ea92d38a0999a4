// Every number an allocator's description states (in the chooser, beside the
// costs and the map) is checked against what the metered module measures or
// the trace shows, on both targets, so the text and the numbers on screen
// cannot disagree. A number added to a description without a check here
// fails the last test.
import { describe, expect, it } from "vitest";
import * as bumplab from "../../pkg/bumplab.js";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";

interface RawOp {
  kind: string;
  failed: boolean;
  chunk?: number;
  cost?: { wasm_instructions: number; wasm_branches: number; slow_instructions: number; slow_branches: number };
}
interface RawChunk {
  capacity: number;
  header: number;
  footer: number;
}
interface RawTrace {
  ops: RawOp[];
  chunks: RawChunk[];
}

const TARGETS = ["wasm32", "64"] as const;
type TargetName = (typeof TARGETS)[number];

function trace(source: string, allocator: string, target: TargetName, capacity?: number, minAlign?: number): RawTrace {
  loadCostModuleSync(); // initialises the module once
  const r = JSON.parse(bumplab.traceProgram(source, allocator, target, capacity, minAlign)) as RawTrace & { error?: { message: string } };
  if (r.error) throw new Error(`${allocator} on ${target}: ${r.error.message}`);
  return r;
}

/** The conditional branches of an aligned allocation that fits (the fast path). */
function fastPathBranches(allocator: string, target: TargetName, source = "a = alloc 1\nb = alloc u64\n"): number {
  const t = trace(source, allocator, target);
  const op = t.ops[t.ops.length - 1]!;
  expect(op.failed, `${allocator} ${target}`).toBe(false);
  expect(op.cost?.slow_instructions, `${allocator} ${target}: a fast path`).toBe(0);
  return op.cost!.wasm_branches;
}

function description(allocator: string): string {
  const found = loadTraceModuleSync()
    .allocators()
    .find((a) => a.name === allocator);
  if (!found) throw new Error(`no allocator ${allocator}`);
  return found.description;
}

/** The branch count a description states for the fast path. */
function statedBranches(allocator: string): number {
  const m = /fast path takes (\d+) conditional branch(es)?/.exec(description(allocator));
  if (!m) throw new Error(`${allocator}'s description states no branch count`);
  return Number(m[1]);
}

describe("the seed algorithms' fast paths, as Hinckley's \"Bump Allocation: Up or Down?\" counts them", () => {
  // Bump down: the checked subtraction and the compare with the start.
  // Bump up, first version: round up, add, compare, each checked. Bump up,
  // one branch: one compare of padding + size with the room left.
  const article: Record<string, number> = { "fitzgen-down": 2, "hinckley-up-naive": 3, "hinckley-up": 1 };
  for (const [allocator, branches] of Object.entries(article)) {
    for (const target of TARGETS) {
      it(`${allocator} on ${target}: ${branches} conditional branches, as its description says`, () => {
        expect(fastPathBranches(allocator, target)).toBe(branches);
        expect(statedBranches(allocator)).toBe(branches);
      });
    }
  }

  it("the minimum-alignment variants take the branches their descriptions state, for every alignment class and MIN_ALIGN", () => {
    const requests = ["a = alloc 1\nb = alloc 1\n", "a = alloc 1\nb = alloc u64\n", "a = alloc 1\nb = alloc u128\n", "a = alloc 1\nb = alloc 24 align 32\n"];
    for (const allocator of ["up-min-align", "down-min-align"]) {
      const stated = statedBranches(allocator);
      for (const target of TARGETS) {
        for (const minAlign of [1, 8, 16, 64]) {
          for (const source of requests) {
            const t = trace(source, allocator, target, undefined, minAlign);
            const op = t.ops[1]!;
            expect(op.failed).toBe(false);
            expect(op.cost!.wasm_branches, `${allocator} MIN_ALIGN ${minAlign} ${target}: ${source}`).toBe(stated);
          }
        }
      }
    }
  });
});

describe("sizes the descriptions state", () => {
  const capacityOfFirstChunk = (allocator: string, target: TargetName): number => trace("a = alloc 8\n", allocator, target).chunks[0]!.capacity;

  it("bump-scope: a first chunk of 464 usable bytes (480 on wasm32)", () => {
    for (const allocator of ["bump-scope-up", "bump-scope-down"]) {
      expect(description(allocator)).toContain("464 usable bytes (480 on wasm32)");
      expect(capacityOfFirstChunk(allocator, "64")).toBe(464);
      expect(capacityOfFirstChunk(allocator, "wasm32")).toBe(480);
    }
  });

  it("bumpalo: footer 48 B on 64-bit and 32 on wasm32; 448 B usable, 464 on wasm32", () => {
    expect(description("bumpalo")).toContain("footer at each chunk's end (48 B on 64-bit, 32 on wasm32)");
    expect(description("bumpalo")).toContain("(448 B usable, 464 on wasm32)");
    const c64 = trace("a = alloc 8\n", "bumpalo", "64").chunks[0]!;
    const c32 = trace("a = alloc 8\n", "bumpalo", "wasm32").chunks[0]!;
    expect([c64.footer, c64.capacity]).toEqual([48, 448]);
    expect([c32.footer, c32.capacity]).toEqual([32, 464]);
  });

  it("Bumper.jl: 1 MiB buffer and slabs; a custom slab from half a slab on", () => {
    expect(description("bumper-alloc-buffer")).toContain("one fixed 1 MiB buffer");
    expect(description("bumper-slab")).toContain("1 MiB slabs");
    for (const target of TARGETS) {
      expect(capacityOfFirstChunk("bumper-alloc-buffer", target)).toBe(1 << 20);
      const t = trace("a = alloc 8\nb = alloc 524287\nc = alloc 524288\n", "bumper-slab", target);
      expect(t.chunks[0]!.capacity).toBe(1 << 20);
      // Just under half a slab still bumps in the first slab; half a slab gets its own.
      expect(t.ops[1]!.chunk).toBe(0);
      expect(t.chunks[t.ops[2]!.chunk!]!.capacity).toBe(524288);
    }
  });

  it("the C++ arena: a 3-word header at each pool's start", () => {
    expect(description("cpp-arena")).toContain("a 3-word header");
    expect(trace("a = alloc 8\n", "cpp-arena", "64").chunks[0]!.header).toBe(24);
    expect(trace("a = alloc 8\n", "cpp-arena", "wasm32").chunks[0]!.header).toBe(12);
  });

  it("the C++ arena: a new pool when remaining <= n, sized max(cap * 2, (n / cap) * 2 * cap)", () => {
    expect(description("cpp-arena")).toContain("made when remaining <= n, sized max(cap * 2, (n / cap) * 2 * cap)");
    for (const target of TARGETS) {
      const sizes = [8, 3000, 100000, 5, 1 << 20];
      const t = trace(sizes.map((n, i) => `b${i} = alloc ${n}`).join("\n"), "cpp-arena", target);
      const capacities = t.chunks.map((c) => c.capacity);
      // Replay the stated rule on the sizes and compare every pool's capacity.
      const expected = [capacities[0]!];
      let remaining = expected[0]!;
      for (const n of sizes) {
        if (remaining <= n) {
          const cap = expected[expected.length - 1]!;
          expected.push(Math.max(cap * 2, Math.floor(n / cap) * 2 * cap));
          remaining = expected[expected.length - 1]!;
        }
        remaining -= n;
      }
      expect(capacities, target).toEqual(expected);
      expect(capacities.length, target).toBeGreaterThan(3);
    }
  });
});

describe("no number in a description goes unchecked", () => {
  // What the tests above check, per allocator; years and versions cite a source.
  const checked: Record<string, readonly string[]> = {
    "fitzgen-down": ["2"],
    "hinckley-up-naive": ["3"],
    "hinckley-up": ["1"],
    "up-min-align": ["1"],
    "down-min-align": ["2"],
    "bumper-alloc-buffer": ["1"],
    "bumper-slab": ["1"],
    "cpp-arena": ["3", "2", "2"],
    "bump-scope-up": ["464", "480"],
    "bump-scope-down": ["464", "480"],
    bumpalo: ["48", "32", "448", "464"],
  };
  it("every number is a citation (a year or a version) or checked above", () => {
    for (const info of loadTraceModuleSync().allocators()) {
      const text = info.description
        .replace(/\b\d+\.\d+\.\d+\b/g, "") // crate versions
        .replace(/\b(19|20)\d\d\b/g, "") // years of the cited articles
        .replace(/64-bit|wasm32/g, ""); // target names
      const numbers = text.match(/\d+/g) ?? [];
      expect(numbers, `${info.name}: ${info.description}`).toEqual(checked[info.name] ?? []);
    }
  });
});
