// The native x86-64 reference: the checked-in JSON parses and validates, and
// caseForOp names the case each op of a real trace performs.
import { describe, expect, it } from "vitest";
import raw from "../../../docs/bench/native-x86_64.json";
import type { TraceView } from "../engine/traceView";
import { traced } from "../test/runs";
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

describe("caseForOp", () => {
  it("bumpalo: the lazy first chunk is warm_up, then each op's case", () => {
    const t = trace(PROGRAM, "bumpalo");
    expect(caseForOp(t, 0)).toBeUndefined();
    expect(casesOf(t, 1)).toEqual([
      "warm_up",
      "alloc_u32",
      "allocate",
      "grow_same_align",
      "shrink_same_align",
      "deallocate",
      "deallocate_non_last",
      "reset",
    ]);
    // A second alloc 1, after the chunk exists, is alloc_u8.
    const two = trace("a = alloc 1\nb = alloc 1", "bumpalo");
    expect(casesOf(two, 1)).toEqual(["warm_up", "alloc_u8"]);
  });

  it("a preset with a chunk from its constructor has no warm_up; frees without reclaim are non-last", () => {
    const t = trace(PROGRAM, "fitzgen-down");
    expect(casesOf(t)).toEqual([
      "alloc_u8",
      "alloc_u32",
      "allocate",
      "grow_same_align",
      "shrink_same_align",
      "deallocate_non_last",
      "deallocate_non_last",
      "reset",
    ]);
  });

  it("the minimum alignment picks the _aligned/_overaligned variant when one matches it", () => {
    const t = trace("x = alloc 8\na = alloc 1\nb = alloc u32", "up-min-align", 8);
    expect(casesOf(t, 8)).toEqual(["allocate", "alloc_u8_overaligned", "alloc_u32_overaligned"]);
    const four = trace("x = alloc 8\na = alloc 1\nb = alloc u32", "bump-scope-up", 4);
    // No alloc_u8 case at MIN_ALIGN 4: the plain one.
    expect(casesOf(four, 4)).toEqual(["allocate", "alloc_u8", "alloc_u32_aligned"]);
    // Unknown minimum alignment: never a variant.
    expect(casesOf(t)).toEqual(["allocate", "alloc_u8", "alloc_u32"]);
  });

  it("cpp-arena's first alloc makes its first chunk lazily: warm_up", () => {
    expect(casesOf(trace("a = alloc 1\nb = alloc 1", "cpp-arena"))).toEqual(["warm_up", "alloc_u8"]);
  });
});
