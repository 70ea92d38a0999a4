// The app's build of the trace module (web/pkg-trace-fast: opt-level 3,
// wasm-opt -O3) is the same Rust source as the embed's size-optimised builds
// (web/pkg-trace, web/pkg-trace-more): it must give the very same run, byte
// for byte, or the app and an embed of the same program would disagree.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as fastGlue from "../../pkg-trace-fast/trace.js";
import { DEFAULT_PROGRAM } from "../model/defaults";
import { GALLERY } from "../model/gallery";
import { config } from "../test/runs";
import type { RunConfig } from "./config";
import { loadTraceModuleSync } from "./node";
import { adaptTraceModule, type TraceModule } from "./traceModule";
import { COLUMN_NAMES } from "./traceView";

fastGlue.initSync({ module: readFileSync(new URL("../../pkg-trace-fast/trace_bg.wasm", import.meta.url)) });
const fast = adaptTraceModule([fastGlue]);
const small = loadTraceModuleSync();

/** Everything the page reads of a finished run, as bytes and text. */
function everything(module: TraceModule, c: RunConfig): { error: string | undefined; executed: number; parts: Record<string, string | number[]> } {
  const run = module.startRun(c);
  try {
    while (!run.advance(1 << 16)) {
      // slice after slice, as the page runs it
    }
    const executed = run.executed();
    const parts: Record<string, string | number[]> = {};
    const error = run.error();
    if (error === undefined) {
      for (const name of COLUMN_NAMES) parts[name] = Array.from(run.column(name));
      parts["stats"] = Array.from(run.statsSamples());
      parts["header"] = run.header();
      parts["chunks"] = run.chunks();
      for (const i of new Set([0, Math.floor(executed / 2), executed - 1])) if (i >= 0) parts[`detail ${i}`] = run.detail(i);
    }
    return { error, executed, parts };
  } finally {
    run.free();
  }
}

/** The benchmark's loop: two allocs, a free and an alloc per iteration. */
const loop = (iterations: number): string => `repeat ${iterations} {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}\n`;

describe("the app's fast build of the trace module", () => {
  it("runs every preset, in one build", () => {
    expect(fast.allocators().map((a) => a.name)).toEqual(small.allocators().map((a) => a.name));
    expect(new Set(fast.allocators().map((a) => a.family))).toEqual(new Set(["core", "more-arenas"]));
  });

  it("gives the size-optimised builds' run byte for byte on every gallery program and preset, and on the default program with every preset", async () => {
    const gallery = GALLERY.flatMap((entry) => entry.allocators.map((settings) => config(entry.program, settings.allocator, settings)));
    const presets = small.allocators().map((a) => config(DEFAULT_PROGRAM, a.name));
    expect(gallery.length).toBeGreaterThanOrEqual(10);
    expect(presets.length).toBeGreaterThanOrEqual(10);
    const cases = [...gallery, ...presets];
    for (const c of cases) {
      await small.ready(c.allocator);
      const a = everything(small, c);
      const b = everything(fast, c);
      expect(b.error, `${c.allocator}`).toBe(a.error);
      expect(b.executed, `${c.allocator}`).toBe(a.executed);
      expect(b.parts, `${c.allocator}`).toEqual(a.parts);
    }
  });

  it("gives the same 40,000-op run on bumpalo, bump-scope-up and zig-arena, on both targets", async () => {
    for (const allocator of ["bumpalo", "bump-scope-up", "zig-arena"]) {
      await small.ready(allocator);
      for (const target of ["64", "wasm32"] as const) {
        const c = config(loop(10_000), allocator, { target });
        const a = everything(small, c);
        expect(a.error).toBeUndefined();
        expect(a.executed).toBe(40_000);
        expect(everything(fast, c)).toEqual(a);
      }
    }
    // Six 40,000-op runs through every part of two builds: seconds on a busy 2-core machine.
  }, 60_000);

  it("fails a bad program with the same message", () => {
    const c = config("a = alloc 8\nfree zz\n", "bumpalo");
    const a = everything(small, c);
    expect(a.error).toMatch(/zz/);
    expect(everything(fast, c).error).toBe(a.error);
  });
});
