import { describe, expect, it } from "vitest";
import { adaptModule, createEngine, parseTraceResult, type WasmExports } from "./facade";
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
    expect(() => adaptModule({ ...base, sourceText: () => "" })).toThrow(/does not export sourcePath/);
  });

  it("lists each preset's minimum alignments, default first", () => {
    const byName = new Map(loadEngineSync().allocators().map((a) => [a.name, a.minAligns]));
    expect(byName.get("fitzgen-down")).toEqual([]);
    expect(byName.get("bumpalo")).toEqual([1, 2, 4, 8, 16]);
    expect(byName.get("up-min-align")?.[0]).toBe(8);
  });

  it("passes capacity and minimum alignment, undefined meaning the preset's default", () => {
    const engine = loadEngineSync();
    const run = (capacity?: number, minAlign?: number) => {
      const r = engine.trace({ source: "a = alloc 1\nb = alloc 1", allocator: "bump-scope-up", target: "64", capacity, minAlign });
      if (!r.ok) throw new Error(r.error.message);
      return r.trace;
    };
    expect(run().chunks[0]?.capacity).toBe(464);
    expect(run(4096).chunks[0]?.capacity).toBeGreaterThan(464);
    // Minimum alignment 8 rounds the 1-byte block up: the second lands 8 bytes on.
    expect((run(undefined, 8).ops[1]?.address ?? 0) - (run(undefined, 8).ops[0]?.address ?? 0)).toBe(8);
    expect((run(undefined, 1).ops[1]?.address ?? 0) - (run(undefined, 1).ops[0]?.address ?? 0)).toBe(1);
  });

  it("gives the repository path of every file a trace's micro-steps name", () => {
    const engine = loadEngineSync();
    expect(engine.sourcePath("bumpalo")).toBe("crates/core/src/models/bumpalo.rs");
    expect(engine.sourcePath("no-such-file")).toBeUndefined();
    const r = engine.trace({ source: "a = alloc 8\nreset", allocator: "fitzgen-down", target: "64" });
    if (!r.ok) throw new Error(r.error.message);
    const files = new Set(r.trace.ops.flatMap((o) => o.events.flatMap((e) => (e.steps ?? []).map((s) => s.file ?? r.trace.source))));
    for (const f of files) expect(engine.sourcePath(f), f).toMatch(/^crates\/core\/src\/.+\.rs$/);
  });

  it("rejects malformed or foreign JSON", () => {
    expect(parseTraceResult("{").ok).toBe(false);
    expect(parseTraceResult('{"version":2,"ops":[],"chunks":[]}')).toMatchObject({ ok: false, error: { message: "unsupported trace version 2" } });
  });
});

/** A module whose traceProgram throws `thrown`; `lastPanic` as given. */
function throwingModule(thrown: unknown, lastPanic?: () => string | undefined): WasmExports {
  return {
    traceProgram: () => {
      throw thrown;
    },
    listAllocators: () => "[]",
    sourceText: () => undefined,
    sourcePath: () => undefined,
    ...(lastPanic ? { lastPanic } : {}),
  };
}

const request = { source: "a = alloc 8", allocator: "bumpalo", target: "64" } as const;
const bug = " (this is a bug in Bump Lab, not in the program: reload the page before tracing again)";

describe("engine facade, when the module throws", () => {
  it("a trap becomes an error at 1:1 instead of an exception", () => {
    const r = createEngine(throwingModule(new WebAssembly.RuntimeError("unreachable"))).trace(request);
    expect(r).toEqual({ ok: false, error: { line: 1, column: 1, message: `internal error: RuntimeError: unreachable${bug}` } });
  });

  it("names the panic the module kept, once", () => {
    const panics = ["panicked at crates/core/src/engine.rs:10:5:\nboom"];
    const engine = createEngine(throwingModule(new WebAssembly.RuntimeError("unreachable"), () => panics.shift()));
    expect(engine.trace(request)).toEqual({
      ok: false,
      error: { line: 1, column: 1, message: `internal error: panicked at crates/core/src/engine.rs:10:5:\nboom${bug}` },
    });
    // The next trap has no kept message: the trap's own.
    expect(engine.trace(request)).toMatchObject({ ok: false, error: { message: `internal error: RuntimeError: unreachable${bug}` } });
  });

  it("a module that cannot say why still gives an error, as does a thrown non-Error", () => {
    const mute = createEngine(
      throwingModule(new RangeError("Invalid string length"), () => {
        throw new WebAssembly.RuntimeError("unreachable");
      }),
    );
    expect(mute.trace(request)).toMatchObject({ ok: false, error: { line: 1, column: 1, message: `internal error: RangeError: Invalid string length${bug}` } });
    expect(createEngine(throwingModule("oops")).trace(request)).toMatchObject({ ok: false, error: { message: `internal error: oops${bug}` } });
  });

  it("the built module keeps panic messages, and has none when nothing panicked", async () => {
    loadEngineSync();
    const wasm = adaptModule(await import("../../pkg/bumplab.js"));
    expect(typeof wasm.lastPanic).toBe("function");
    expect(wasm.lastPanic?.()).toBeUndefined();
  });

  it("picks lastPanic when the module has it, and does without when it does not", () => {
    const base = { traceProgram: () => "{}", listAllocators: () => "[]", sourceText: () => "", sourcePath: () => "" };
    expect(adaptModule(base).lastPanic).toBeUndefined();
    expect(adaptModule({ ...base, lastPanic: () => "p" }).lastPanic?.()).toBe("p");
  });
});
