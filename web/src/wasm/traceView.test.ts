import { describe, expect, it } from "vitest";
import { randomMix, vecPush, stringBuilding, parserNodes } from "../model/generators";
import { LESSONS } from "../model/lessons";
import { config, jsonTrace, traced } from "../test/runs";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";
import {
  NONE,
  addressOf,
  alignOf,
  chunkOf,
  deadAt,
  failed,
  fromRun,
  goneAt,
  kindOf,
  lineOf,
  moved,
  placed,
  sampleFor,
  statsEveryFor,
  withCosts,
  type ChunkUsed,
  type ColumnName,
  type TraceRunLike,
  type TraceView,
} from "./traceView";
import type { Target, Trace } from "./types";

/** The cost module's JSON trace: the ops as the CLI writes them, to check the trace module's columns against. */
function trace(source: string, allocator: string, target: Target = "64", capacity?: number): Trace {
  return jsonTrace(config(source, allocator, { target, capacity: capacity ?? null }));
}

const views = new WeakMap<Trace, TraceView>();
/** The page's view of the same program: a run of the trace module. */
function viewOf(t: Trace): TraceView {
  let v = views.get(t);
  if (!v) {
    v = traced(t.program.text, t.allocator, { target: t.target, capacity: t.program.capacity ?? null });
    views.set(t, v);
  }
  return v;
}

type State = "live" | "freed" | "leaked";

/** The oracle: every op from 0 replayed, block id -> state after `step` ops. */
function replay(t: Trace, step: number): Map<number, State> {
  const blocks = new Map<number, State>();
  for (const op of t.ops.slice(0, step)) {
    if ((op.kind === "alloc" || op.kind === "realloc") && !op.failed && op.address !== undefined) {
      blocks.set(op.index, "live");
      if (op.kind === "realloc" && op.target_op !== undefined && op.target_op !== op.index) {
        if (op.moved === false) blocks.delete(op.target_op);
        else if (blocks.has(op.target_op)) blocks.set(op.target_op, "leaked");
      }
    }
    if (op.kind === "free" && op.target_op !== undefined && blocks.has(op.target_op)) blocks.set(op.target_op, "freed");
    for (const id of op.reclaimed ?? []) blocks.delete(id);
  }
  return blocks;
}

/** The same from the trace module's columns alone, by the rule in traceView.ts. */
function fromColumns(t: Trace, step: number): Map<number, State> {
  const v = viewOf(t);
  const blocks = new Map<number, State>();
  for (let i = 0; i < step; i++) {
    if (!placed(v, i) || (v.cols.gone_at[i] as number) < step) continue;
    const dead = v.cols.dead_at[i] as number;
    blocks.set(i, dead >= step ? "live" : kindOf(v, dead) === "free" ? "freed" : "leaked");
  }
  return blocks;
}

/** The trace module's columns hold what the cost module's JSON ops say, op by op. */
function checkAgainstOps(t: Trace): void {
  const v = viewOf(t);
  expect(v.length).toBe(t.ops.length);
  for (const op of t.ops) {
    const i = op.index;
    expect(kindOf(v, i)).toBe(op.kind);
    expect(failed(v, i)).toBe(op.failed);
    expect(lineOf(v, i)).toBe(op.line);
    expect(v.stmts.block((v.cols.meta[i] as number) >>> 10)).toBe(op.block);
    const isPlaced = (op.kind === "alloc" || op.kind === "realloc") && !op.failed && op.address !== undefined;
    expect(placed(v, i)).toBe(isPlaced);
    if (isPlaced) {
      expect(addressOf(v, i)).toBe(op.address);
      expect(chunkOf(v, i)).toBe(op.chunk);
      if (op.chunk !== undefined) expect(v.cols.offset[i]).toBe(op.offset);
    } else {
      expect(addressOf(v, i)).toBeUndefined();
    }
    expect(v.cols.size[i]).toBe(Math.min(op.size ?? 0, NONE));
    expect(v.cols.padding[i]).toBe(op.padding ?? 0);
    expect(alignOf(v, i)).toBe(op.align ?? 1);
  }
  for (let step = 0; step <= t.ops.length; step++) expect(fromColumns(t, step)).toEqual(replay(t, step));
}

const used = (u: readonly ChunkUsed[]): [number, number][] => u.map((c) => [c.id, c.hi - c.lo]);

describe("TraceView of a run, against the JSON trace of the same program", () => {
  it("a realloc that moves, one in place, a free of the last block, checkpoint/restore and reset on bumpalo", () => {
    const t = trace(
      "a = alloc 8\nb = alloc 16 align 8\nb = realloc b 32\nc = alloc 4\na = realloc a 64\nfree c\ncheckpoint s\nd = alloc 1000\nrestore s\nreset\n",
      "bumpalo",
    );
    const v = viewOf(t);
    checkAgainstOps(t);
    // b (op 1) moved by op 2, whose new bytes reuse its own: dead and gone at 2.
    expect([deadAt(v, 1), goneAt(v, 1)]).toEqual([2, 2]);
    expect(moved(v, 2)).toBe(true);
    // a (op 0) moved away at op 4 and left behind (leaked) until the reset (op 9).
    expect([deadAt(v, 0), goneAt(v, 0)]).toEqual([4, 9]);
    expect(fromColumns(t, 5).get(0)).toBe("leaked");
    // c (op 3) freed at 5, not the last block: freed bytes held until the reset.
    expect([deadAt(v, 3), goneAt(v, 3)]).toEqual([5, 9]);
    expect(fromColumns(t, 6).get(3)).toBe("freed");
    // d (op 7) in the chunk the restore (op 8) frees: reclaimed, never freed.
    expect([deadAt(v, 7), goneAt(v, 7)]).toEqual([undefined, 8]);
    expect(chunkOf(v, 7)).toBe(1);
    // Non-placing ops hold no block.
    for (const i of [5, 6, 8, 9]) expect([v.cols.chunk[i], v.cols.dead_at[i], v.cols.gone_at[i]]).toEqual([NONE, NONE, NONE]);
    expect(alignOf(v, 1)).toBe(8);
    expect(v.cols.size[5]).toBe(4); // a free carries the freed block's size
    // Used extents as the map derived them: the second chunk only between 8 and 9.
    expect(used(v.chunksUsed(6))).toEqual([[0, 108]]);
    expect(used(v.chunksUsed(7))).toEqual([[0, 108], [1, 1000]]);
    expect(used(v.chunksUsed(8))).toEqual([[0, 108]]);
    expect(used(v.chunksUsed(9))).toEqual([[0, 0]]);
    // Bumping down: used bytes are at the chunk's end.
    const c0 = t.chunks[0];
    expect(v.chunksUsed(0)).toEqual([{ id: 0, lo: (c0?.start ?? 0) + (c0?.capacity ?? 0) - 8, hi: (c0?.start ?? 0) + (c0?.capacity ?? 0) }]);
  });

  it("a realloc in place replaces the block: dead and gone at once", () => {
    const t = trace("a = alloc 8\na = realloc a 32\nb = alloc 4\n", "bump-scope-up");
    const v = viewOf(t);
    checkAgainstOps(t);
    expect(t.ops[1]?.moved).toBe(false);
    expect([deadAt(v, 0), goneAt(v, 0)]).toEqual([1, 1]);
    expect(moved(v, 1)).toBe(false);
    expect(used(v.chunksUsed(2))).toEqual([[0, 36]]);
  });

  it("a failed alloc in a fixed chunk places nothing", () => {
    const t = trace("a = alloc 200\nb = alloc 100\nc = alloc 8\n", "fitzgen-down", "64", 256);
    const v = viewOf(t);
    checkAgainstOps(t);
    expect(failed(v, 1)).toBe(true);
    expect(placed(v, 1)).toBe(false);
    expect([v.cols.chunk[1], v.cols.offset[1], v.cols.size[1]]).toEqual([NONE, 0, 100]);
    expect(placed(v, 2)).toBe(true);
  });

  it("a zero-sized block on bumpalo before its first chunk dangles outside every chunk", () => {
    const t = trace("z = alloc 0\na = alloc 8\nfree a\n", "bumpalo");
    const v = viewOf(t);
    checkAgainstOps(t);
    expect(placed(v, 0)).toBe(true);
    expect(chunkOf(v, 0)).toBeUndefined();
    expect(v.cols.chunk[0]).toBe(NONE);
    expect(addressOf(v, 0)).toBe(t.ops[0]?.address);
    // The free of the last block reclaims it.
    expect([deadAt(v, 1), goneAt(v, 1)]).toEqual([2, 2]);
  });

  it("a reset and a restore on a chunked preset, and chunks freed by them", () => {
    const t = trace(
      "a = alloc 8\nb = alloc 300\nc = alloc 600\nd = alloc 10\nfree d\ncheckpoint s\ne = alloc 2000\nrestore s\nf = alloc 100\nreset\ng = alloc 5\n",
      "bump-scope-up",
    );
    const v = viewOf(t);
    checkAgainstOps(t);
    expect(used(v.chunksUsed(6))).toEqual([[0, 308], [1, 600], [2, 2000]]);
    expect(used(v.chunksUsed(7))).toEqual([[0, 308], [1, 600], [2, 0]]);
    expect(used(v.chunksUsed(8))).toEqual([[0, 308], [1, 700], [2, 0]]);
    expect(used(v.chunksUsed(9))).toEqual([[2, 0]]);
    expect(used(v.chunksUsed(10))).toEqual([[2, 5]]);
    const cpp = trace("a = alloc 8\nb = alloc 3000\nc = alloc 5000\nd = alloc 10\nreset\ne = alloc 4\n", "cpp-arena");
    checkAgainstOps(cpp);
    const w = viewOf(cpp);
    expect(used(w.chunksUsed(3))).toEqual([[0, 8], [1, 3000], [2, 5010]]);
    expect(used(w.chunksUsed(4))).toEqual([]);
  });

  it("agrees with the replay on every lesson and generated program, on every preset", () => {
    const programs = [...LESSONS.map((l) => l.config.source), vecPush(), stringBuilding(), parserNodes(), randomMix({ ops: 300, minSize: 0, maxSize: 200, minAlign: 1, maxAlign: 64, seed: 7 })];
    let checked = 0;
    for (const a of loadTraceModuleSync().allocators()) {
      for (const source of programs) {
        const r = loadCostModuleSync().trace(config(source, a.name));
        if (!r.ok) continue;
        checkAgainstOps(r.trace);
        checked++;
      }
    }
    // Most programs run on most presets (a fixed chunk refuses the long ones).
    expect(checked).toBeGreaterThan(40);
  }, 60_000);

  it("samples the stats at op 0, every statsEvery ops and after the last op", () => {
    const t = trace("repeat 5000 {\n  a = alloc 8\n  free a\n}\nb = alloc 1\n", "bumpalo");
    const v = viewOf(t);
    expect(v.length).toBe(10001);
    expect(v.statsEvery).toBe(statsEveryFor(10001));
    expect(v.statsEvery).toBe(3);
    expect(v.samples.length).toBe(3335);
    expect(v.samples[0]).toEqual(t.ops[0]?.stats);
    expect(v.samples[1]).toEqual(t.ops[3]?.stats);
    expect(v.samples[v.samples.length - 1]).toEqual(t.ops[10000]?.stats);
    expect(sampleFor(v, 3)).toBe(1);
    expect(sampleFor(v, 4)).toBeUndefined();
    expect(sampleFor(v, 9999)).toBe(3333);
    expect(sampleFor(v, 10000)).toBe(3334);
    // 5000 statements ran from 4: the statements table has one entry per
    // statement, the repeat among them.
    expect(v.stmts.length).toBe(4);
    expect(v.stmts.at(0)).toEqual({ line: 1, column: 1, kind: "repeat" });
    expect(v.stmts.at(2)).toEqual({ line: 3, column: 3, kind: "free", block: "a" });
  });

  it("op(i) is the JSON trace's op (costs aside); out of range throws; costs come from the cost module", () => {
    const t = trace("a = alloc 8\n", "bumpalo", "wasm32");
    const v = viewOf(t);
    const { cost, ...op } = t.ops[0]!;
    expect(v.op(0)).toEqual(op);
    expect(() => v.op(1)).toThrow(RangeError);
    expect(() => v.chunksUsed(-1)).toThrow(RangeError);
    expect(v.costs).toBeUndefined();
    const costed = withCosts(v, { costs: [cost], ...(t.real ? { real: t.real } : {}), ...(t.baseline ? { baseline: t.baseline } : {}) });
    expect(costed.costs?.[0]).toEqual(cost);
    expect(costed.real).toBe(t.real);
    expect(costed.cols).toBe(v.cols);
    const bare = withCosts(v, { unavailable: "over the cap" });
    expect(bare.costsUnavailable).toBe("over the cap");
    expect(bare.op(0)).toEqual(op);
  });
});

describe("fromRun", () => {
  it("reads the run's columns, tables and samples, and asks it for details", () => {
    const t = trace("a = alloc 8\nb = alloc 16\nfree b\n", "bumpalo");
    const j = viewOf(t);
    const asked: number[] = [];
    const run: TraceRunLike = {
      column: (name: ColumnName) => j.cols[name].slice(),
      statsSamples: () => Float64Array.from(t.ops.flatMap((o) => Object.values(o.stats))),
      header: () =>
        JSON.stringify({
          version: t.version,
          allocator: t.allocator,
          target: t.target,
          direction: t.direction,
          source: t.source,
          source_path: t.source_path,
          stats_every: 1,
        }),
      stmtLines: () => Uint32Array.from({ length: j.stmts.length }, (_, k) => j.stmts.line(k)),
      stmtColumns: () => Uint32Array.from({ length: j.stmts.length }, (_, k) => j.stmts.at(k)?.column ?? 0),
      stmtKinds: () => Uint32Array.from({ length: j.stmts.length }, (_, k) => (["alloc", "realloc", "free"].indexOf(j.stmts.at(k)?.kind ?? "") | ((k + 1) << 3)) >>> 0),
      names: () => ["a", "b", "b"].join("\n"),
      chunks: () => JSON.stringify(t.chunks),
      detail: (i: number) => {
        asked.push(i);
        const { cost: _, ...op } = t.ops[i]!;
        return JSON.stringify({ op, chunks_used: j.chunksUsed(i) });
      },
    };
    const v = fromRun(run);
    expect(v.length).toBe(3);
    expect(v.cols).toEqual(j.cols);
    expect([0, 1, 2].map((k) => v.stmts.at(k))).toEqual([0, 1, 2].map((k) => j.stmts.at(k)));
    expect(v.chunks).toEqual(t.chunks);
    expect(v.samples).toEqual(t.ops.map((o) => o.stats));
    expect(v.op(2)).toEqual(j.op(2));
    expect(v.chunksUsed(2)).toEqual(j.chunksUsed(2));
    expect(v.op(2).kind).toBe("free");
    expect(asked).toEqual([2]); // cached
    expect(addressOf(v, 1)).toBe(t.ops[1]?.address);
    expect(() => v.op(3)).toThrow(RangeError);
    expect(v.costs).toBeUndefined();
  });
});

// The two modules run the same engine: the trace module's run and the cost
// module's JSON trace of a program agree op for op, and fail alike.
describe("the trace module's run agrees with the cost module's JSON trace", () => {
  const PROGRAMS = [
    "a = alloc 8\nb = alloc 16 align 8\nb = realloc b 32\nc = alloc 4\na = realloc a 64\nfree c\ncheckpoint s\nd = alloc 1000\nrestore s\nreset\n",
    "z = alloc 0\na = alloc 300\nb = alloc 600\nfree b\ncheckpoint s\nc = alloc 2000\nrestore s\nd = alloc 100\nreset\ne = alloc 5\n",
    ...LESSONS.map((l) => l.config.source),
    randomMix({ ops: 300, minSize: 0, maxSize: 200, minAlign: 1, maxAlign: 64, seed: 3 }),
  ];
  const agree = (v: TraceView, t: Trace, what: string, picks?: number[]): void => {
    expect(v.length, what).toBe(t.ops.length);
    expect(v.chunks, what).toEqual(t.chunks);
    for (const i of picks ?? t.ops.map((_, k) => k)) {
      const { cost: _, ...op } = t.ops[i]!;
      expect(v.op(i), `${what} op ${i}`).toEqual(op);
    }
    v.samples.forEach((s, k) => expect(s, `${what} sample ${k}`).toEqual(t.ops[Math.min(k * v.statsEvery, t.ops.length - 1)]?.stats));
  };

  it("ops, chunks and samples, or the same error", () => {
    const module = loadTraceModuleSync();
    let compared = 0;
    for (const a of module.allocators()) {
      for (const source of PROGRAMS) {
        const c = config(source, a.name);
        const r = loadCostModuleSync().trace(c);
        const run = module.startRun(c);
        while (!run.advance(1 << 20));
        if (!r.ok) {
          // A program the preset refuses fails the same way on both modules.
          expect(JSON.parse(run.error() ?? "null"), `${a.name}: ${source.slice(0, 30)}`).toEqual(r.error);
          run.free();
          continue;
        }
        agree(fromRun(run), r.trace, `${a.name}: ${source.slice(0, 30)}`);
        compared++;
        run.free();
      }
    }
    expect(compared).toBeGreaterThan(40);
  }, 60_000);

  it("a long program: across snapshot boundaries", () => {
    const module = loadTraceModuleSync();
    const source = "repeat 1700 {\n  a = alloc 24\n  b = alloc 8 align 8\n  free b\n}\ncheckpoint s\nrepeat 200 { c = alloc 100 }\nrestore s\nd = alloc 3\nreset\n";
    for (const allocator of ["bumpalo", "bump-scope-down", "cpp-arena", "bumper-slab"]) {
      const c = config(source, allocator, { target: "wasm32" });
      const t = jsonTrace(c);
      const run = module.startRun(c);
      while (!run.advance(1000));
      const v = fromRun(run);
      expect(v.length).toBeGreaterThan(4096);
      expect(v.statsEvery).toBe(2);
      const picks = [0, 1, 1023, 1024, 1025, 2047, 2048, 4095, 4096, 5100, 5101, 5102, v.length - 2, v.length - 1];
      for (let i = 0; i < v.length; i += 97) picks.push(i);
      agree(v, t, allocator, picks);
      run.free();
    }
  });
});
