import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../engine/node";
import { config, viewResult } from "../test/runs";
import type { AllocatorInfo } from "../engine/types";
import { capacityHelp, errorColumns, formatError, groupAllocators, offsetOf, scrollToShow } from "./editor";
import { menuKeyIndex, typeaheadIndex } from "./programMenu";

const info = (name: string): AllocatorInfo => ({ name, direction: "up", source: "", description: "", minAligns: [], children: [], family: "core" });

describe("allocator chooser groups", () => {
  it("groups every preset the engine lists, seed algorithms first", () => {
    const allocators = loadTraceModuleSync().allocators();
    const groups = groupAllocators(allocators);
    expect(groups.map((g) => g.label)).toEqual(["Seed algorithms (one fixed chunk)", "Libraries"]);
    expect(groups[0]?.items.map((a) => a.name)).toEqual(["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"]);
    expect(groups[1]?.items.map((a) => a.name)).toEqual([
      "bumpalo",
      "bump-scope-up",
      "bump-scope-down",
      "bumper-alloc-buffer",
      "bumper-slab",
      "cpp-arena",
      "blink-alloc",
      "llvm-bump-ptr",
      "pmr-monotonic",
      "zig-arena",
      "zig-fixed-buffer",
    ]);
    expect(groups.flatMap((g) => g.items).length).toBe(allocators.length);
  });

  it("puts unknown presets in a last group, Other", () => {
    const groups = groupAllocators([info("new-thing"), info("bumpalo")]);
    expect(groups.map((g) => [g.label, g.items.map((a) => a.name)])).toEqual([
      ["Libraries", ["bumpalo"]],
      ["Other", ["new-thing"]],
    ]);
  });

  it("explains the capacity knob per preset", () => {
    expect(capacityHelp("fitzgen-down")).toMatch(/fixed chunk/);
    expect(capacityHelp("bumper-alloc-buffer")).toMatch(/buffer/);
    expect(capacityHelp("bumper-slab")).toMatch(/slab/);
    expect(capacityHelp("cpp-arena")).toMatch(/pool/);
    expect(capacityHelp("bumpalo")).toMatch(/first chunk/);
    expect(capacityHelp("blink-alloc")).toMatch(/with_chunk_size/);
    expect(capacityHelp("llvm-bump-ptr")).toMatch(/SlabSize/);
    expect(capacityHelp("pmr-monotonic")).toMatch(/initial_size/);
    expect(capacityHelp("zig-arena")).toMatch(/retain_with_limit/);
    expect(capacityHelp("zig-fixed-buffer")).toMatch(/buffer/);
    expect(capacityHelp("unknown")).toMatch(/default/);
  });
});

describe("error text", () => {
  it("reads line:column: message, as the engine prints it", () => {
    expect(formatError({ line: 7, column: 19, message: "alignment 3 is not allowed" })).toBe("7:19: alignment 3 is not allowed");
  });
});

describe("every error", () => {
  it("marks one column a line, the first error's, from the engine's list of every bad line", () => {
    const r = viewResult(config("a = alloc\nb = alloc 8\nfree\nrepeat x {\n  c = alloc @\n}", "bumpalo"));
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect([r.error, ...(r.error.more ?? [])].map(formatError)).toEqual([
      "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line",
      "3:5: expected the name of a block to free, found the end of the line",
      "4:8: expected a repeat count, found 'x'",
      "5:13: unexpected character '@': names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment",
    ]);
    expect([...errorColumns(r.error)]).toEqual([
      [1, 10],
      [3, 5],
      [4, 8],
      [5, 13],
    ]);
    expect(errorColumns(null).size).toBe(0);
  });

  it("finds the caret offset of a line and column, counting characters as the engine does", () => {
    const text = "a = alloc 8\nfree b\né = 1 ü x";
    expect(offsetOf(text, 1, 1)).toBe(0);
    expect(offsetOf(text, 2, 6)).toBe(17);
    expect(text.slice(offsetOf(text, 2, 6))).toBe("b\né = 1 ü x");
    // Past the line's end: the end of the line; past the last line: the last line.
    expect(offsetOf(text, 2, 40)).toBe(18);
    expect(offsetOf(text, 9, 1)).toBe(19);
    // An astral character is one column but two UTF-16 units.
    expect(offsetOf("a\u{1F600}b", 1, 3)).toBe(3);
  });
});

describe("scrolling to the current line", () => {
  // 20 px lines under 10 px of padding, in a 200 px box: lines 1 to 9 fit unscrolled.
  const show = (line: number, scrollTop: number): number => scrollToShow(line, scrollTop, 200, 20, 10);

  it("leaves the scroll alone while the line is in view", () => {
    expect(show(1, 0)).toBe(0);
    expect(show(9, 0)).toBe(0);
    expect(show(50, 900)).toBe(900);
  });

  it("scrolls a line out of view to a third of the way down, never above the top", () => {
    expect(show(10, 0)).toBe(Math.round(10 + 9 * 20 - 200 / 3));
    expect(show(150, 0)).toBe(Math.round(10 + 149 * 20 - 200 / 3));
    expect(show(2, 900)).toBe(0);
  });
});

describe("Programs menu keys", () => {
  it("moves down and up with wrap-around, and to the ends with Home and End", () => {
    expect(menuKeyIndex("ArrowDown", 0, 4)).toBe(1);
    expect(menuKeyIndex("ArrowDown", 3, 4)).toBe(0);
    expect(menuKeyIndex("ArrowUp", 0, 4)).toBe(3);
    expect(menuKeyIndex("ArrowUp", 2, 4)).toBe(1);
    expect(menuKeyIndex("Home", 2, 4)).toBe(0);
    expect(menuKeyIndex("End", 0, 4)).toBe(3);
  });

  it("starts from the top when nothing is focused yet (-1) and ignores other keys", () => {
    expect(menuKeyIndex("ArrowDown", -1, 4)).toBe(0);
    expect(menuKeyIndex("ArrowUp", -1, 4)).toBe(3);
    expect(menuKeyIndex("Enter", 1, 4)).toBeNull();
    expect(menuKeyIndex("ArrowDown", 0, 0)).toBeNull();
  });

  it("type-ahead finds the next title with that first letter, wrapping, any case", () => {
    const titles = ["A few blocks", "Alignment padding", "String building", "Random mix…"];
    expect(typeaheadIndex(titles, 0, "a")).toBe(1);
    expect(typeaheadIndex(titles, 1, "A")).toBe(0);
    expect(typeaheadIndex(titles, 0, "s")).toBe(2);
    expect(typeaheadIndex(titles, 2, "s")).toBe(2);
    expect(typeaheadIndex(titles, 0, "z")).toBeNull();
  });
});
