// The two wasm modules' adapters: what they read of the modules, and what a
// call that throws (a trap: a bug) becomes.
import { describe, expect, it } from "vitest";
import * as costGlue from "../../pkg-cost/cost.js";
import * as traceGlue from "../../pkg-trace/trace.js";
import * as moreGlue from "../../pkg-trace-more/trace.js";
import { config, traced, viewResult } from "../test/runs";
import { adaptCostModule, parseTraceResult } from "./costModule";
import { loadCostModuleSync, loadTraceModuleSync, sourceTextSync } from "./node";
import { traceNow } from "./run";
import { adaptTraceModule } from "./traceModule";
import { opAt } from "./traceView";

const module = loadTraceModuleSync();

describe("the trace module", () => {
  it("runs a preset once the build of its family is here, and fetches that build once", async () => {
    let fetched = 0;
    const core = adaptTraceModule([traceGlue], (family) => {
      fetched++;
      expect(family).toBe("more-arenas");
      return Promise.resolve(moreGlue);
    });
    const zig = config("a = alloc 8", "zig-arena");
    expect(() => core.startRun(zig)).toThrow(/more-arenas build is not loaded: call ready\("zig-arena"\) first/);
    await core.ready("fitzgen-down");
    expect(fetched).toBe(0);
    await Promise.all([core.ready("zig-arena"), core.ready("llvm-bump-ptr")]);
    expect(fetched).toBe(1);
    const run = core.startRun(zig);
    expect(run.advance(100)).toBe(true);
    expect(run.executed()).toBe(1);
    run.free();
    // Each build lists every preset, with its family.
    expect(core.allocators().filter((a) => a.family === "more-arenas").map((a) => a.name)).toEqual(["blink-alloc", "llvm-bump-ptr", "pmr-monotonic", "zig-arena", "zig-fixed-buffer"]);
  });

  it("lists the allocators with their direction, the seed algorithms first, each once", () => {
    const names = module.allocators().map((a) => `${a.name}:${a.direction}:${a.source}`);
    expect(names.slice(0, 3)).toEqual(["fitzgen-down:down:bump-down", "hinckley-up-naive:up:bump-up-naive", "hinckley-up:up:bump-up"]);
    expect(new Set(names).size).toBe(names.length);
  });

  it("lists each preset's minimum alignments, default first", () => {
    const byName = new Map(module.allocators().map((a) => [a.name, a.minAligns]));
    expect(byName.get("fitzgen-down")).toEqual([]);
    expect(byName.get("bumpalo")).toEqual([1, 2, 4, 8, 16]);
    expect(byName.get("up-min-align")?.[0]).toBe(8);
  });

  it("returns program errors with their position", () => {
    expect(viewResult(config("a = alloc 8\nx = alloc 8 align 3", "fitzgen-down", { capacity: 256 }))).toEqual({
      ok: false,
      error: { line: 2, column: 19, message: expect.stringContaining("align") as unknown as string },
    });
  });

  it("names the source of the algorithm that ran, whose micro-step lines are in it", () => {
    const t = traced("a = alloc 8", "fitzgen-down", { capacity: 256 });
    expect(t.source).toBe("bump-down");
    expect(t.source_path).toBe("crates/core/src/algorithms/bump_down.rs");
    expect(module.sourcePath(t.source)).toBe(t.source_path);
    const steps = opAt(t, 0)?.events[0]?.steps ?? [];
    const last = steps[steps.length - 1];
    expect(last?.label).toMatch(/^move the bump pointer down/);
    expect((sourceTextSync(t.source_path) ?? "").split("\n")[(last?.line ?? 0) - 1]).toContain("step: bump");
  });

  it("wasm32 runs carry their target", () => {
    const t = traced("a = alloc usize", "hinckley-up", { target: "wasm32", capacity: 64 });
    expect(t.target).toBe("wasm32");
    expect(opAt(t, 0)?.size).toBe(4);
  });

  it("null settings mean the preset's defaults", () => {
    const run = (capacity: number | null, minAlign: number | null) => traced("a = alloc 1\nb = alloc 1", "bump-scope-up", { capacity, minAlign });
    expect(run(null, null).chunks[0]?.capacity).toBe(464);
    expect(run(4096, null).chunks[0]?.capacity).toBeGreaterThan(464);
    // Minimum alignment 8 rounds the 1-byte block up: the second lands 8 bytes on.
    const gap = (t: ReturnType<typeof run>): number => (opAt(t, 1)?.address ?? 0) - (opAt(t, 0)?.address ?? 0);
    expect(gap(run(null, 8))).toBe(8);
    expect(gap(run(null, 1))).toBe(1);
  });

  it("gives the repository path of every file a run's micro-steps name", () => {
    expect(module.sourcePath("bumpalo")).toBe("crates/core/src/models/bumpalo.rs");
    expect(module.sourcePath("no-such-file")).toBeUndefined();
    const t = traced("a = alloc 8\nreset");
    const files = new Set([0, 1].flatMap((i) => (opAt(t, i)?.events ?? []).flatMap((e) => (e.steps ?? []).map((s) => s.file ?? t.source))));
    for (const f of files) expect(module.sourcePath(f), f).toMatch(/^crates\/core\/src\/.+\.rs$/);
  });

  it("names the export a stale build lacks, and refuses a module that packs its columns otherwise", () => {
    expect(() => adaptTraceModule([{}])).toThrow(/does not export listAllocators: rebuild it/);
    const glue = traceGlue as unknown as Record<string, unknown>;
    expect(() => adaptTraceModule([{ ...glue, columnLayout: () => new Uint32Array([7, 8, 16, 32, 6, 11, 0xffffffff, 7]) }])).toThrow(
      /packs its columns as \[7, 8, 16, 32, 6, 11, 4294967295, 7\], this page reads \[7, 8, 16, 32, 6, 10, 4294967295, 7\]/,
    );
  });

  it("runs a program parsed apart (as the parse worker does) as it runs its text", () => {
    const source = "# a note\na = alloc 24 align 8\nrepeat 2 {\n  b = alloc u64\n  free b\n}\nc = alloc [u32; 3]\n";
    const m = adaptTraceModule([traceGlue]);
    const parsed = traceGlue.parseProgram(source);
    expect(parsed.error()).toBeUndefined();
    const words = parsed.words();
    parsed.free();
    const apart = m.startRun(config(source, "bumpalo"), words);
    const whole = m.startRun(config(source, "bumpalo"));
    for (const run of [apart, whole]) while (!run.advance(1 << 20)) continue;
    expect([...apart.stmtLines()]).toEqual([2, 3, 4, 5, 7]);
    expect([...apart.stmtColumns()]).toEqual([...whole.stmtColumns()]);
    expect([...apart.stmtKinds()]).toEqual([...whole.stmtKinds()]);
    expect([...apart.stmtLines()]).toEqual([...whole.stmtLines()]);
    expect(apart.header()).toBe(whole.header());
    apart.free();
    whole.free();
  });

  it("after a trap, makes the module's instance again: the next run traces, and the runs before answer as they did", () => {
    // A build whose runs trap on a program that asks for it, as a panic in
    // the engine would; its instance is the real one, made again for real.
    const Real = traceGlue.TraceRun;
    let made = 0;
    const glue = {
      ...(traceGlue as object),
      reinstantiate: () => {
        made++;
        traceGlue.reinstantiate();
      },
      TraceRun: Object.assign(
        function (source: string, ...rest: [string, string, number | undefined, number | undefined]) {
          const run = new Real(source, ...rest);
          if (source.includes("# trap")) {
            run.advance = () => {
              throw new WebAssembly.RuntimeError("unreachable");
            };
          }
          return run;
        },
        { fromProgram: Real.fromProgram.bind(Real) },
      ),
    };
    const m = adaptTraceModule([glue]);
    const good = traceNow(m, config("repeat 3000 {\n a = alloc 8\n free a\n}", "bumpalo"));
    if (!good.ok) throw new Error(good.error.message);
    const before = good.view.op(4321);
    const bad = traceNow(m, config("a = alloc 8 # trap", "bumpalo"));
    expect(bad).toEqual({ ok: false, error: { line: 1, column: 1, message: `internal error: RuntimeError: unreachable${bug}` } });
    expect(made).toBe(1);
    // The run on screen is made again on the new instance, as far as it went.
    expect(good.view.op(4320 + 1)).toEqual(before);
    const fresh = traceNow(m, config("repeat 3000 {\n a = alloc 8\n free a\n}", "bumpalo"));
    expect(fresh.ok && good.run.detail(5999) === fresh.run.detail(5999)).toBe(true);
    if (fresh.ok) fresh.run.free();
    const next = traceNow(m, config("b = alloc 16", "bumpalo"));
    expect(next.ok && opAt(next.view, 0)?.size).toBe(16);
    good.run.free();
  });
});

const bug = " (this is a bug in Bump Lab, not in the program)";
const c = config("a = alloc 8", "bumpalo");

describe("the cost module", () => {
  it("writes the full JSON trace and refuses foreign JSON", () => {
    const r = loadCostModuleSync().trace(c);
    expect(r.ok && r.trace.program).toEqual({ text: "a = alloc 8" });
    expect(parseTraceResult("{").ok).toBe(false);
    expect(parseTraceResult('{"version":2,"ops":[],"chunks":[]}')).toMatchObject({ ok: false, error: { message: "unsupported trace version 2" } });
  });

  it("a trap becomes an error at 1:1 with the panic the module kept, once, instead of an exception", () => {
    const panics = ["panicked at crates/core/src/engine.rs:10:5:\nboom"];
    const trap = (): never => {
      throw new WebAssembly.RuntimeError("unreachable");
    };
    const broken = adaptCostModule({ ...(costGlue as object), traceProgram: trap, traceCosts: trap, lastPanic: () => panics.shift() });
    expect(broken.trace(c)).toEqual({ ok: false, error: { line: 1, column: 1, message: `internal error: panicked at crates/core/src/engine.rs:10:5:\nboom${bug}` } });
    // The next trap has no kept message: the trap's own. The costs say it and that the instance is spent.
    expect(broken.costs(c)).toEqual({ unavailable: `internal error: RuntimeError: unreachable${bug}`, trapped: true });
  });

  it("a module that cannot say why still gives an error, as does a thrown non-Error", () => {
    const mute = adaptCostModule({
      ...(costGlue as object),
      traceProgram: () => {
        throw new RangeError("Invalid string length");
      },
      lastPanic: () => {
        throw new WebAssembly.RuntimeError("unreachable");
      },
    });
    expect(mute.trace(c)).toMatchObject({ ok: false, error: { line: 1, column: 1, message: `internal error: RangeError: Invalid string length${bug}` } });
    const odd = adaptCostModule({
      ...(costGlue as object),
      traceProgram: () => {
        throw "oops";
      },
    });
    expect(odd.trace(c)).toMatchObject({ ok: false, error: { message: `internal error: oops${bug}` } });
  });

  it("the built module keeps panic messages, and has none when nothing panicked", () => {
    loadCostModuleSync();
    expect(costGlue.lastPanic()).toBeUndefined();
  });
});
