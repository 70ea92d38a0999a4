import { describe, expect, it } from "vitest";
import { loadEngineSync } from "../engine/node";
import type { AllocatorInfo } from "../engine/types";
import { capacityHelp, groupAllocators } from "./editor";

const info = (name: string): AllocatorInfo => ({ name, direction: "up", source: "", description: "", minAligns: [] });

describe("allocator chooser groups", () => {
  it("groups every preset the engine lists, seed algorithms first", () => {
    const allocators = loadEngineSync().allocators();
    const groups = groupAllocators(allocators);
    expect(groups.map((g) => g.label)).toEqual(["Seed algorithms (one fixed chunk)", "Libraries"]);
    expect(groups[0]?.items.map((a) => a.name)).toEqual(["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"]);
    expect(groups[1]?.items.map((a) => a.name)).toEqual(["bumpalo", "bump-scope-up", "bump-scope-down", "bumper-alloc-buffer", "bumper-slab", "cpp-arena"]);
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
    expect(capacityHelp("unknown")).toMatch(/default/);
  });
});
