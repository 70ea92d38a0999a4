import { describe, expect, it } from "vitest";
import { measured, traced } from "../test/runs";
import { paddingPaid, SLIDE_ROWS, summarySlide } from "./summarySlide";

describe("the one-slide summary", () => {
  // Lesson 1's program on 256-byte wasm32 chunks: fitzgen-down bumps down,
  // hinckley-up bumps up; b (u64) skips 7 bytes of padding on both.
  const source = "a = alloc u8\nb = alloc u64";
  const lines = source.split("\n");
  const down = measured(source, "fitzgen-down", { target: "wasm32", capacity: 256 });
  const up = measured(source, "hinckley-up", { target: "wasm32", capacity: 256 });

  it("has a row per op, a cell per allocator, the op in view marked, and totals over the run", () => {
    const slide = summarySlide(
      [
        { label: "fitzgen-down", trace: down },
        { label: "hinckley-up", trace: up },
      ],
      lines,
      2,
    );
    expect(slide.columns).toEqual(["fitzgen-down", "hinckley-up"]);
    expect(slide.subtitle).toBe("2 ops on 2 allocators");
    expect(slide.rows.map((r) => [r.statement, r.current])).toEqual([
      ["a = alloc u8", false],
      ["b = alloc u64", true],
    ]);
    const b = slide.rows[1];
    expect(b?.cells.map((c) => c?.padding)).toEqual([7, 7]);
    // The cells are the Cost panel's counts: lesson 1 names b's 20 instructions and 2 branches bumping down, 25 and 1 bumping up.
    expect(b?.cells.map((c) => [c?.instructions, c?.branches])).toEqual([
      [20, 2],
      [25, 1],
    ]);
    expect(b?.fewest).toEqual([0]);
    const totals = Object.fromEntries(slide.totals.map((t) => [t.label, t.values]));
    expect(totals["Padding bytes"]).toEqual([7, 7]);
    expect(totals["Chunks made"]).toEqual([1, 1]);
    expect(paddingPaid(down)).toBe(7);
  });

  it("shows the SLIDE_ROWS ops around the one in view of a longer program, with totals over every op", () => {
    const long = Array.from({ length: 30 }, (_, i) => `x${i} = alloc u8`).join("\n");
    const t = traced(long, "fitzgen-down", { target: "wasm32", capacity: 256 });
    const slide = summarySlide([{ label: "fitzgen-down", trace: t }], long.split("\n"), 20);
    expect([slide.from, slide.to]).toEqual([13, 13 + SLIDE_ROWS]);
    expect(slide.subtitle).toBe(`Ops 14–${13 + SLIDE_ROWS} of 30 on 1 allocators (totals: every op)`);
    expect(slide.rows.find((r) => r.current)?.index).toBe(19);
  });
});
