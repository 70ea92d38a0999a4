import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../engine/node";
import type { AllocatorInfo } from "../engine/types";
import { capacityHelp, formatError, groupAllocators } from "./editor";
import { menuKeyIndex, typeaheadIndex } from "./programMenu";

const info = (name: string): AllocatorInfo => ({ name, direction: "up", source: "", description: "", minAligns: [], family: "core" });

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
