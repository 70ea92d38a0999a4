// The native x86-64 reference: the checked-in JSON parses and validates, and
// caseForOp names the case each op of a real trace performs.
import { describe, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import raw from "../../../docs/bench/native-x86_64.json";
import { changedSince, lockedVersions, registryDependencies, type Sources } from "../../../scripts/source-hashes.mjs";
import type { TraceView } from "../wasm/traceView";
import { measured, traced } from "../test/runs";
import { caseForOp, countText, parseX86Bench, presetLibrary, X86_REFERENCE } from "./x86";

function trace(source: string, allocator: string, minAlign?: number): TraceView {
  return traced(source, allocator, { minAlign: minAlign ?? null });
}

/** caseForOp for every step 1..n. */
const casesOf = (t: TraceView, minAlign?: number): (string | undefined)[] =>
  Array.from({ length: t.length }, (_, i) => caseForOp(t, i + 1, minAlign));

const PROGRAM = [
  "a = alloc 1",
  "b = alloc u32",
  "c = alloc 24 align 8",
  "c = realloc c 48",
  "c = realloc c 8",
  "free c",
  "free a",
  "reset",
].join("\n");

describe("parseX86Bench", () => {
  it("parses the checked-in table", () => {
    expect(X86_REFERENCE.ok).toBe(true);
    const bench = parseX86Bench(raw);
    expect(bench.meta.command).toBe("npm run bench:native");
    expect(bench.meta.rustc.version).toMatch(/^rustc \d+\.\d+\.\d+/);
    expect(bench.meta.date).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const u8 = bench.cases.find((c) => c.name === "alloc_u8");
    expect(u8 && u8.results["bumpalo"] && countText(u8.results["bumpalo"])).toBe("10 / 1");
    const over = bench.cases.find((c) => c.name === "alloc_u8_overaligned");
    expect(over?.results["fitzgen_down"]).toBeNull();
    expect(over?.unsupported["fitzgen_down"]).toBe("no_min_align");
    expect(bench.unsupported_reasons["no_min_align"]).toContain("minimum-alignment");
    expect(presetLibrary(bench, "bumpalo")?.id).toBe("model_bumpalo");
    expect(presetLibrary(bench, "fitzgen-down")?.id).toBe("fitzgen_down");
    expect(presetLibrary(bench, "cpp-arena")).toBeUndefined();
    // blink-alloc is the fourth real column; it has no minimum-alignment setting.
    expect(bench.libraries.filter((l) => l.kind === "real").map((l) => l.id)).toEqual(["bumpalo", "bump_scope_up", "bump_scope_down", "blink_alloc"]);
    expect(u8?.results["blink_alloc"]).not.toBeNull();
    expect(over?.unsupported["blink_alloc"]).toBe("blink_no_min_align");
    expect(presetLibrary(bench, "blink-alloc")).toBeUndefined();
  });

  it("rejects malformed input, naming the field", () => {
    const good = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>;
    expect(() => parseX86Bench(null)).toThrow(/root/);
    expect(() => parseX86Bench({ ...good, cases: [] })).toThrow(/cases/);
    expect(() => parseX86Bench({ ...good, meta: { date: "x" } })).toThrow(/meta/);
    const cases = good["cases"] as Record<string, unknown>[];
    const bad = { ...cases[0], results: { bumpalo: { ir: "10", bc: 1 } } };
    expect(() => parseX86Bench({ ...good, cases: [bad] })).toThrow(/alloc_u8\.results\.bumpalo/);
    const unknownLib = { ...cases[0], results: { nope: { ir: 1, bc: 1 } } };
    expect(() => parseX86Bench({ ...good, cases: [unknownLib] })).toThrow(/unknown library "nope"/);
    const libs = (good["libraries"] as { id: string }[]).filter((l) => l.id !== "bumpalo");
    expect(() => parseX86Bench({ ...good, libraries: libs })).toThrow(/no "bumpalo"/);
  });
});

describe("the table is a measurement of the sources in the tree", () => {
  const root = fileURLToPath(new URL("../../..", import.meta.url));
  const sources = (raw as { meta: { sources?: Sources } }).meta.sources;

  it("every source file the measured binary was compiled from is as it was when measured", () => {
    expect(sources, "docs/bench/native-x86_64.json records its sources: run npm run bench:native").toBeDefined();
    // crates/bench and bumplab-core, file by file, as cargo's dep-info lists them.
    expect(Object.keys(sources?.files ?? {})).toContain("crates/core/src/algorithms/bump_down.rs");
    expect(Object.keys(sources?.files ?? {})).toContain("crates/bench/src/cases.rs");
    expect(changedSince(sources ?? { files: {}, crates: [] }, root), "changed since the x86-64 table was measured: run npm run bench:native").toEqual([]);
  });

  it("the real crates are the versions Cargo.lock pins", () => {
    const names = registryDependencies(readFileSync(`${root}/crates/bench/Cargo.toml`, "utf8"));
    expect(sources?.crates).toEqual(lockedVersions(readFileSync(`${root}/Cargo.lock`, "utf8"), names));
    expect(sources?.crates).toContain("bumpalo 3.20.4");
  });
});

describe("caseForOp", () => {
  it("bumpalo: the lazy first chunk is warm_up, then each op's case in its shape", () => {
    const t = trace(PROGRAM, "bumpalo");
    expect(caseForOp(t, 0)).toBeUndefined();
    expect(casesOf(t, 1)).toEqual([
      "warm_up",
      // A u32: its layout a constant, as `bump.alloc(1u32)` has it.
      "alloc_u32",
      // Run-time layouts: the black-boxed cases.
      "black_box_allocate",
      "black_box_grow_same_align",
      "black_box_shrink_same_align",
      "black_box_deallocate",
      "black_box_deallocate_non_last",
      "reset",
    ]);
    // A second alloc 1, after the chunk exists, is a run-time layout too.
    const two = trace("a = alloc 1\nb = alloc 1", "bumpalo");
    expect(casesOf(two, 1)).toEqual(["warm_up", "black_box_allocate"]);
  });

  it("each typed value, slice and free finds the case of the same shape, or none", () => {
    const t = trace(
      ["x = alloc 8", "a = alloc u8", "b = alloc u64", "c = alloc u128", "d = alloc [u8; 5]", "e = alloc [u32; 3]", "f = alloc [u16; 2]", "free c", "b = realloc b 16", "free b"].join("\n"),
      "hinckley-up",
    );
    expect(casesOf(t)).toEqual([
      "black_box_allocate",
      "alloc_u8",
      "alloc_u64",
      "alloc_u128",
      "alloc_u8_slice",
      "alloc_u32_slice",
      // The table has no u16 slice, no resize with a known alignment and run-time sizes, no array free.
      undefined,
      "deallocate_non_last",
      undefined,
      undefined,
    ]);
  });

  it("a preset with a chunk from its constructor has no warm_up; frees without reclaim are non-last", () => {
    const t = trace(PROGRAM, "fitzgen-down");
    expect(casesOf(t)).toEqual([
      "black_box_allocate",
      "alloc_u32",
      "black_box_allocate",
      "black_box_grow_same_align",
      "black_box_shrink_same_align",
      "black_box_deallocate_non_last",
      "black_box_deallocate_non_last",
      "reset",
    ]);
  });

  it("the minimum alignment picks the _aligned/_overaligned/_underaligned variant when one matches it", () => {
    const t = trace("x = alloc 8\na = alloc u8\nb = alloc u32\nc = alloc u64\nd = alloc u128", "up-min-align", 8);
    expect(casesOf(t, 8)).toEqual(["black_box_allocate_overaligned", "alloc_u8_overaligned", "alloc_u32_overaligned", "alloc_u64_aligned", "alloc_u128_underaligned"]);
    const four = trace("x = alloc 8\na = alloc u8\nb = alloc u32", "bump-scope-up", 4);
    // No alloc_u8 case at MIN_ALIGN 4: the plain one.
    expect(casesOf(four, 4)).toEqual(["black_box_allocate", "alloc_u8", "alloc_u32_aligned"]);
    // Unknown minimum alignment: never a variant.
    expect(casesOf(t)).toEqual(["black_box_allocate", "alloc_u8", "alloc_u32", "alloc_u64", "alloc_u128"]);
  });

  it("cpp-arena's first alloc makes its first chunk lazily: warm_up", () => {
    expect(casesOf(trace("a = alloc 1\nb = alloc u8", "cpp-arena"))).toEqual(["warm_up", "alloc_u8"]);
  });
});

describe("the x86-64 table and the wasm counts tell one story", () => {
  // The claims the lessons and descriptions make, held on both instruction
  // sets: each compares two counts of the same shape, in the x86-64 table
  // (callgrind on native code) and in the cost module (wasm, on both
  // simulated targets). The numbers differ (another instruction set, an
  // entry function's prologue); the direction must not.
  const bench = X86_REFERENCE.ok ? X86_REFERENCE.bench : undefined;
  const x86 = (name: string, lib: string): number => {
    const c = bench?.cases.find((k) => k.name === name)?.results[lib];
    if (!c) throw new Error(`no x86-64 count for ${name} / ${lib}`);
    return c.ir;
  };
  const x86Branches = (name: string, lib: string): number => bench?.cases.find((k) => k.name === name)?.results[lib]?.bc ?? NaN;
  const wasm = (source: string, allocator: string, minAlign: number | null, target: "wasm32" | "64"): { instructions: number; branches: number } => {
    const t = measured(`x = alloc 8\n${source}`, allocator, { target, minAlign });
    const c = t.costs?.[1];
    if (!c || c.slow_instructions !== 0) throw new Error(`${allocator} ${target}: ${source} has no fast-path cost`);
    return { instructions: c.wasm_instructions, branches: c.wasm_branches };
  };
  const TARGETS = ["wasm32", "64"] as const;
  type Sign = -1 | 0 | 1;
  const sign = (a: number, b: number): Sign => Math.sign(a - b) as Sign;
  /** [claim, x86 (case, lib) vs (case, lib), wasm (source, allocator, min align) vs (…), the direction both must show]. */
  const claims: [string, [string, string], [string, string], [string, string, number | null], [string, string, number | null], Sign][] = [
    ["up-min-align < hinckley-up on a u64 (MIN_ALIGN 8)", ["alloc_u64_aligned", "up_min_align"], ["alloc_u64", "hinckley_up"], ["a = alloc u64", "up-min-align", 8], ["a = alloc u64", "hinckley-up", null], -1],
    ["down-min-align < fitzgen-down on a u64 (MIN_ALIGN 8)", ["alloc_u64_aligned", "down_min_align"], ["alloc_u64", "fitzgen_down"], ["a = alloc u64", "down-min-align", 8], ["a = alloc u64", "fitzgen-down", null], -1],
    ["up-min-align = hinckley-up on a u8 (MIN_ALIGN 8)", ["alloc_u8_overaligned", "up_min_align"], ["alloc_u8", "hinckley_up"], ["a = alloc u8", "up-min-align", 8], ["a = alloc u8", "hinckley-up", null], 0],
    ["a u128 costs up-min-align more than a u64 (MIN_ALIGN 8): alignment work", ["alloc_u128_underaligned", "up_min_align"], ["alloc_u64_aligned", "up_min_align"], ["a = alloc u128", "up-min-align", 8], ["a = alloc u64", "up-min-align", 8], 1],
    ["a run-time layout costs up-min-align more than hinckley-up", ["black_box_allocate_overaligned", "up_min_align"], ["black_box_allocate", "hinckley_up"], ["a = alloc 4 align 4", "up-min-align", 8], ["a = alloc 4 align 4", "hinckley-up", null], 1],
    ["a run-time layout costs down-min-align more than fitzgen-down", ["black_box_allocate_overaligned", "down_min_align"], ["black_box_allocate", "fitzgen_down"], ["a = alloc 4 align 4", "down-min-align", 8], ["a = alloc 4 align 4", "fitzgen-down", null], 1],
    ["bumping down takes fewer instructions than the one-branch bump up on a u64", ["alloc_u64", "fitzgen_down"], ["alloc_u64", "hinckley_up"], ["a = alloc u64", "fitzgen-down", null], ["a = alloc u64", "hinckley-up", null], -1],
  ];
  for (const [claim, xa, xb, wa, wb, want] of claims) {
    it(claim, () => {
      expect(sign(x86(...xa), x86(...xb)), `x86-64: ${xa.join(" ")} against ${xb.join(" ")}`).toBe(want);
      for (const target of TARGETS) {
        expect(sign(wasm(...wa, target).instructions, wasm(...wb, target).instructions), `wasm, ${target}`).toBe(want);
      }
    });
  }

  it("the article's branch counts on a u64, on both instruction sets: down 2, first up 3, one-branch up 1", () => {
    for (const [allocator, lib, branches] of [["fitzgen-down", "fitzgen_down", 2], ["hinckley-up-naive", "hinckley_up_naive", 3], ["hinckley-up", "hinckley_up", 1]] as const) {
      expect(x86Branches("alloc_u64", lib), lib).toBe(branches);
      for (const target of TARGETS) expect(wasm("a = alloc u64", allocator, null, target).branches, `${allocator} ${target}`).toBe(branches);
    }
  });

  it("where the two part: a u8 on down-min-align (MIN_ALIGN 8) against fitzgen-down", () => {
    // wasm: the same count. x86-64: one instruction more, from how the
    // compiler checks the subtraction: `sub $1; jb` on the borrow for a
    // byte, `test; je; add $-8` for 8 bytes (the listings' cells).
    expect(x86("alloc_u8_overaligned", "down_min_align") - x86("alloc_u8", "fitzgen_down")).toBe(1);
    for (const target of TARGETS) {
      expect(wasm("a = alloc u8", "down-min-align", 8, target).instructions, target).toBe(wasm("a = alloc u8", "fitzgen-down", null, target).instructions);
    }
  });
});
