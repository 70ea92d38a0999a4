import { describe, expect, it } from "vitest";
import { adaptModule, parseTraceResult } from "./facade";
import { loadEngineSync } from "./node";

describe("engine facade", () => {
  it("lists the allocators with their direction", () => {
    const names = loadEngineSync()
      .allocators()
      .map((a) => `${a.name}:${a.direction}:${a.source}`);
    // The seed-000 presets come first, in this order; more presets follow them.
    expect(names.slice(0, 3)).toEqual(["fitzgen-down:down:bump-down", "hinckley-up-naive:up:bump-up-naive", "hinckley-up:up:bump-up"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("returns program errors with their position", () => {
    const r = loadEngineSync().trace({ source: "a = alloc 8\nx = alloc 8 align 3", allocator: "fitzgen-down", target: "64", capacity: 256 });
    expect(r).toEqual({
      ok: false,
      error: { line: 2, column: 19, message: expect.stringContaining("align") as unknown as string },
    });
  });

  it("gives the source of the algorithm that ran, with the micro-step lines in it", () => {
    const engine = loadEngineSync();
    const r = engine.trace({ source: "a = alloc 8", allocator: "fitzgen-down", target: "64", capacity: 256 });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.trace.source).toBe("bump-down");
    expect(r.trace.source_path).toBe("crates/core/src/algorithms/bump_down.rs");
    const source = engine.sourceText(r.trace.source) ?? "";
    const steps = r.trace.ops[0]?.events[0]?.steps ?? [];
    const last = steps[steps.length - 1];
    expect(last?.label).toMatch(/^move the bump pointer down/);
    expect(source.split("\n")[(last?.line ?? 0) - 1]).toContain("step: bump");
  });

  it("wasm32 traces carry their target", () => {
    const r = loadEngineSync().trace({ source: "a = alloc usize", allocator: "hinckley-up", target: "wasm32", capacity: 64 });
    expect(r.ok && r.trace.target).toBe("wasm32");
    expect(r.ok && r.trace.ops[0]?.size).toBe(4);
  });

  it("names the export a stale build lacks", () => {
    const base = { traceProgram: () => "{}", listAllocators: () => "[]" };
    expect(() => adaptModule(base)).toThrow(/does not export sourceText/);
  });

  it("rejects malformed or foreign JSON", () => {
    expect(parseTraceResult("{").ok).toBe(false);
    expect(parseTraceResult('{"version":2,"ops":[],"chunks":[]}')).toMatchObject({ ok: false, error: { message: "unsupported trace version 2" } });
  });
});
