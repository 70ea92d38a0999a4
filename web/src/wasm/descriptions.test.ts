// Every number an allocator's description states (in the chooser, beside the
// costs and the map) is checked against what the metered module measures or
// the trace shows, on both targets, so the text and the numbers on screen
// cannot disagree. A number added to a description without a check here
// fails the last test.
import { describe, expect, it } from "vitest";
import * as bumplab from "../../pkg-cost/cost.js";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";

interface RawOp {
  kind: string;
  failed: boolean;
  chunk?: number;
  bump_ptr?: number;
  cost?: { wasm_instructions: number; wasm_branches: number; slow_instructions: number; slow_branches: number };
}
interface RawChunk {
  start: number;
  base: number;
  size: number;
  capacity: number;
  header: number;
  footer: number;
  reason: string;
}
interface RawTrace {
  ops: RawOp[];
  chunks: RawChunk[];
}

const TARGETS = ["wasm32", "64"] as const;
type TargetName = (typeof TARGETS)[number];

function trace(source: string, allocator: string, target: TargetName, capacity?: number, minAlign?: number, child?: string): RawTrace {
  loadCostModuleSync(); // initialises the module once
  const r = JSON.parse(bumplab.traceProgram(source, allocator, target, capacity, minAlign, child)) as RawTrace & { error?: { message: string } };
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

describe("the seed algorithms' branch counts for every shape of request", () => {
  // Each shape is measured with what a Rust caller's compiler knows of it: a
  // type's constant layout, an array's constant alignment, or a run-time
  // layout. The stated count must hold for each of them (naive bump up's
  // exceptions are stated in its description too).
  const typed = ["u8", "u16", "u32", "u64", "u128", "usize"].map((t) => ({ source: `b = alloc ${t}`, alignOne: t === "u8", kind: "typed" }));
  const arrays = ["u8", "u16", "u32", "u64", "u128"].map((t) => ({ source: `b = alloc [${t}; 5]`, alignOne: t === "u8", kind: "array" }));
  const layouts = ["b = alloc 1", "b = alloc 3", "b = alloc 24 align 8", "b = alloc 24 align 32"].map((source) => ({ source, alignOne: false, kind: "layout" }));
  const requests = [...typed, ...arrays, ...layouts];

  for (const allocator of ["fitzgen-down", "hinckley-up", "up-min-align", "down-min-align"]) {
    it(`${allocator}: its stated count for every shape, on both targets`, () => {
      const stated = statedBranches(allocator);
      for (const target of TARGETS) {
        for (const r of requests) expect(fastPathBranches(allocator, target, `a = alloc 1\n${r.source}\n`), `${target}: ${r.source}`).toBe(stated);
      }
    });
  }

  it("hinckley-up-naive: 3, but 2 for a slice of bytes and 1 for a lone u8, as its description says", () => {
    expect(description("hinckley-up-naive")).toContain(
      "fast path takes 3 conditional branches, fewer when the alignment is 1 and known at compile time: the rounding's check folds away, leaving 2 for a slice of bytes and 1 for a lone u8",
    );
    for (const target of TARGETS) {
      for (const r of requests) {
        const want = r.alignOne ? (r.kind === "typed" ? 1 : 2) : 3;
        expect(fastPathBranches("hinckley-up-naive", target, `a = alloc 1\n${r.source}\n`), `${target}: ${r.source}`).toBe(want);
      }
    }
  });
});

describe("realloc on the seed algorithms, as their descriptions state it", () => {
  interface Resized {
    address: number;
    moved: boolean;
    failed: boolean;
    stats: { copied: number; leaked: number };
  }
  const resized = (source: string, allocator: string, target: TargetName): Resized[] => trace(source, allocator, target).ops as unknown as Resized[];
  const seeds: [string, "up" | "down"][] = [
    ["fitzgen-down", "down"],
    ["hinckley-up-naive", "up"],
    ["hinckley-up", "up"],
    ["up-min-align", "up"],
    ["down-min-align", "down"],
  ];
  for (const [allocator, direction] of seeds) {
    it(`${allocator}: the last block ${direction === "up" ? "in place" : "moved over its old bytes"}, any other anew, from the discussion, not the listings`, () => {
      const d = description(allocator);
      expect(d).toMatch(/Realloc is not in the (post's )?listings/);
      expect(d).toMatch(/any other block is allocated anew and copied, its old bytes left behind/i);
      if (direction === "up") expect(d).toContain("the last block grows or shrinks in place when the chunk has room (only the bump pointer moves, no byte is copied)");
      else expect(d).toContain("the last block is bumped again from its own end and its bytes are copied to the new start over the old ones");
      for (const target of TARGETS) {
        const [a, grown] = resized("a = alloc 16 align 8\na = realloc a 32\n", allocator, target);
        const want = direction === "up" ? { address: a!.address, moved: false, copied: 0 } : { address: a!.address - 16, moved: true, copied: 16 };
        expect({ address: grown!.address, moved: grown!.moved, copied: grown!.stats.copied }, `${allocator} ${target}`).toEqual(want);
        expect(grown!.stats.leaked).toBe(0);
        const other = resized("a = alloc 16 align 8\nb = alloc 8\na = realloc a 32\n", allocator, target)[2]!;
        expect([other.moved, other.stats.copied, other.stats.leaked], `${allocator} ${target}`).toEqual([true, 16, 16]);
      }
    });
  }
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

describe("sizes the descriptions of the arenas checked against their real code state", () => {
  const word = (target: TargetName): number => (target === "64" ? 8 : 4);
  const nextPow2 = (n: number): number => 2 ** Math.ceil(Math.log2(n));

  it("blink-alloc: a 4-word header (32 B, 16 on wasm32); 256 B plus the header to a power of two; 16 KiB", () => {
    const d = description("blink-alloc");
    expect(d).toContain("a 4-word header at each chunk's start (32 B on 64-bit, 16 on wasm32)");
    expect(d).toContain("256 B (Capacity: with_chunk_size) plus the header, rounded to a power of two");
    expect(d).toContain("a power of two below 16 KiB, a multiple of 16 KiB above");
    for (const target of TARGETS) {
      const c = trace("a = alloc 8\n", "blink-alloc", target).chunks[0]!;
      expect(c.header).toBe(target === "64" ? 32 : 16);
      expect(c.header / word(target)).toBe(4);
      expect(c.size).toBe(nextPow2(256 + c.header));
      // Under 16 KiB a power of two, from it a multiple of 16 KiB.
      const t = trace("a = alloc 10000\nb = alloc 20000\n", "blink-alloc", target);
      expect(t.chunks[0]!.size).toBe(16384);
      expect(t.chunks[1]!.size % 16384).toBe(0);
      expect(t.chunks[1]!.size).toBeGreaterThan(16384);
    }
  });

  it("llvm-bump-ptr: 4096-byte slabs doubling every 128; size + alignment - 1 above a slab is custom", () => {
    const d = description("llvm-bump-ptr");
    expect(d).toContain("4096-byte slabs (Capacity: SlabSize), doubling every 128 slabs");
    expect(d).toContain("a request whose size + alignment - 1 exceeds the slab size gets a custom-sized slab");
    for (const target of TARGETS) {
      expect(trace("a = alloc 8\n", "llvm-bump-ptr", target).chunks[0]!.capacity).toBe(4096);
      const grown = trace("repeat 130 { x = alloc 16 }\n", "llvm-bump-ptr", target, 16).chunks;
      expect(grown.slice(0, 128).every((c) => c.capacity === 16)).toBe(true);
      expect(grown[128]!.capacity).toBe(32);
      // 4000 + 128 - 1 > 4096: custom; 4096 + 1 - 1 = 4096: a slab.
      const t = trace("a = alloc 8\nb = alloc 4000 align 128\nc = alloc 4096\n", "llvm-bump-ptr", target);
      expect(t.chunks[t.ops[1]!.chunk!]!.reason).toBe("custom_slab");
      expect(t.chunks[t.ops[2]!.chunk!]!.reason).toBe("full");
    }
  });

  it("pmr-monotonic: a 16-byte record (8 on wasm32), sizes rounded to 64, aligned to 16, 1024 growing by 1.5", () => {
    const d = description("pmr-monotonic");
    expect(d).toContain("a 16-byte record at its end (8 on wasm32), rounded up to 64 and aligned to at least 16");
    expect(d).toContain("the next size starts at 1024 (Capacity: initial_size) and grows by 1.5");
    const round64 = (n: number): number => Math.ceil(n / 64) * 64;
    for (const target of TARGETS) {
      const t = trace("repeat 10 { x = alloc 400 }\ny = alloc 8 align 64\n", "pmr-monotonic", target);
      const record = target === "64" ? 16 : 8;
      const first = target === "64" ? 1024 : 512; // 128 pointers
      expect(t.chunks.map((c) => c.size)).toEqual(t.chunks.map((_, k) => round64(first * 1.5 ** k + record)));
      for (const c of t.chunks) {
        expect(c.footer).toBe(record);
        expect(c.size % 64).toBe(0);
        expect(c.base % 16).toBe(0);
      }
      expect(t.chunks.length).toBeGreaterThanOrEqual(3);
    }
  });

  it("zig-arena: a 3-word node (24 B, 12 on wasm32), new buffers of 1.5 x (old + node + alignment + request + 16)", () => {
    const d = description("zig-arena");
    expect(d).toContain("a 3-word node (24 B on 64-bit, 12 on wasm32)");
    expect(d).toContain("1.5 x (old buffer + node + alignment + request + 16), rounded up to even");
    for (const target of TARGETS) {
      // Over the child that never resizes, every buffer is a new one.
      const t = trace("a = alloc 8\nb = alloc 100 align 16\nc = alloc 1000 align 4\n", "zig-arena", target, undefined, undefined, "heap");
      const node = target === "64" ? 24 : 12;
      let old = 0;
      const requests: [number, number][] = [[8, 1], [100, 16], [1000, 4]];
      for (const [i, c] of t.chunks.entries()) {
        expect(c.header).toBe(node);
        expect(c.header / word(target)).toBe(3);
        const [n, align] = requests[i]!;
        const big = old + node + align + n + 16;
        const size = big + Math.floor(big / 2);
        expect(c.size, `${target} buffer ${i}`).toBe(size + (size % 2));
        old = c.capacity;
      }
      expect(t.chunks.length).toBe(3);
    }
  });

  it("zig-arena over page_allocator: 4 KiB pages on 64-bit, a power-of-two size class on wasm32, a gap as large as the request", () => {
    const d = description("zig-arena");
    expect(d).toContain("Child: std.heap.page_allocator, as Zig programs write it, or a simulated heap that never resizes in place");
    expect(d).toContain("its 4 KiB pages on 64-bit, its power-of-two size class on wasm32; the chunk shown is that reservation");
    expect(d).toContain("the block landing after a gap as large as the request");
    for (const target of TARGETS) {
      const t = trace("repeat 4 { x = alloc 20 }\n", "zig-arena", target);
      const c = t.chunks[0]!;
      // 64-bit: whole pages; wasm32: a power-of-two slot less its 4-byte free-list word.
      if (target === "64") expect(c.size).toBe(4096);
      else expect(Math.log2(c.size + 4) % 1).toBe(0);
      // The default child is page_allocator: the fourth block, past the
      // node's size (68 bytes, 62 on wasm32), is granted in place and
      // follows a 20-byte gap.
      expect(t.ops.every((o) => o.chunk === 0)).toBe(true);
      const ops = t.ops as (RawOp & { offset?: number; padding?: number })[];
      expect(ops.map((o) => o.padding), target).toEqual([0, 0, 0, 20]);
    }
  });

  it("zig-fixed-buffer: 4096 bytes, and reset sets end_index to 0", () => {
    expect(description("zig-fixed-buffer")).toContain("one buffer of 4096 bytes");
    expect(description("zig-fixed-buffer")).toContain("reset sets end_index to 0");
    for (const target of TARGETS) {
      const t = trace("a = alloc 100\nreset\n", "zig-fixed-buffer", target);
      const c = t.chunks[0]!;
      expect(c.capacity).toBe(4096);
      expect(t.ops[1]!.bump_ptr! - c.start).toBe(0);
    }
  });
});

describe("no number in a description goes unchecked", () => {
  // What the tests above check, per allocator; years and versions cite a source.
  const checked: Record<string, readonly string[]> = {
    "fitzgen-down": ["2"],
    // 3 branches; an alignment of 1; 2 for a byte slice, 1 for a lone u8 (the type's name).
    "hinckley-up-naive": ["3", "1", "2", "1", "8"],
    "hinckley-up": ["1"],
    "up-min-align": ["1"],
    "down-min-align": ["2"],
    "bumper-alloc-buffer": ["1"],
    "bumper-slab": ["1"],
    "cpp-arena": ["3", "2", "2"],
    "bump-scope-up": ["464", "480"],
    "bump-scope-down": ["464", "480"],
    bumpalo: ["48", "32", "448", "464"],
    "blink-alloc": ["4", "32", "16", "256", "16", "16"],
    "llvm-bump-ptr": ["4096", "128", "1"],
    "pmr-monotonic": ["16", "8", "64", "16", "1024", "1", "5"],
    "zig-arena": ["3", "24", "12", "4", "1", "5", "16"],
    "zig-fixed-buffer": ["4096", "0"],
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
