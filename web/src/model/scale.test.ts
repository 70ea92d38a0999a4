// Issue 7: a million-op program. A synthetic TraceView (columns and samples,
// op details made on demand and counted) checks that what the page derives
// per step asks for a bounded number of op details and costs about the same
// at step 1,000,000 as at step 100.

import { describe, expect, it } from "vitest";
import { META_PLACED, META_STMT_SHIFT, NONE, statsEveryFor, stmtTable, type OpColumns, type StmtInfo, type TraceView } from "../wasm/traceView";
import type { Op, Stats } from "../wasm/types";
import { initialState, reducer } from "../state/reducer";
import { columnTotals, compareOps, focusAt } from "./compare";
import { costBars, hasCosts, opTooltip } from "./costs";
import { currentOp } from "./describe";
import { statsSeries } from "./focus";
import { narrationAt, parseNarration, pausesAt, predictsNext } from "./narration";
import { predictionAt, STRIP_BLOCKS, stripAt } from "./predict";
import { caseForOp } from "./x86";

const N = 1_000_000;
const START = 0x10000;
const SOURCE = "#> Intro.\nrepeat 1000000 {\n  #> ?predict\n  x = alloc 8\n}";

function stats(i: number): Stats {
  const used = 8 * (i + 1);
  return { requested: used, used, padding: 0, metadata: 0, leaked: 0, copied: 0, unused: 16 * N - used, chunks: 1, utilisation: used / (16 * N) };
}

/** N allocs of 8 bytes bumping up one fixed chunk; `calls` counts op details asked for. */
function bigView(): { view: TraceView; calls: { n: number } } {
  const calls = { n: 0 };
  const stmts: StmtInfo[] = [{ line: 4, column: 3, kind: "alloc", block: "x" }];
  const cols: OpColumns = {
    meta: new Uint32Array(N).fill((0 | META_PLACED | (3 << 6) | (0 << META_STMT_SHIFT)) >>> 0),
    chunk: new Uint32Array(N),
    offset: Uint32Array.from({ length: N }, (_, i) => 8 * i),
    size: new Uint32Array(N).fill(8),
    padding: new Uint32Array(N),
    dead_at: new Uint32Array(N).fill(NONE),
    gone_at: new Uint32Array(N).fill(NONE),
  };
  const statsEvery = statsEveryFor(N);
  const samples: Stats[] = [];
  for (let i = 0; i < N; i += statsEvery) samples.push(stats(i));
  if ((N - 1) % statsEvery !== 0) samples.push(stats(N - 1));
  const view: TraceView = {
    version: 1,
    allocator: "hinckley-up",
    target: "64",
    direction: "up",
    source: "bump-up",
    source_path: "crates/core/src/algorithms/bump_up.rs",
    chunks: [{ id: 0, start: START, capacity: 16 * N, header: 0, footer: 0 }],
    stmts: stmtTable(stmts),
    length: N,
    cols,
    statsEvery,
    samples,
    op(i: number): Op {
      if (!(i >= 0 && i < N)) throw new RangeError(`op ${i}`);
      calls.n++;
      const address = START + 8 * i;
      return {
        index: i,
        kind: "alloc",
        block: "x",
        line: 4,
        column: 3,
        chunk: 0,
        offset: 8 * i,
        address,
        size: 8,
        align: 8,
        padding: 0,
        failed: false,
        bump_ptr: address + 8,
        events: [{ kind: "bump", text: "bump", steps: [{ id: "bump", label: "bump", line: 1, values: [] }] }],
        stats: stats(i),
      };
    },
    chunksUsed: (i) => [{ id: 0, lo: START, hi: START + 8 * (i + 1) }],
  };
  return { view, calls };
}

describe("a million-op program", () => {
  const { view, calls } = bigView();
  const narrations = parseNarration(SOURCE);

  /** What one step costs in op details, and in time. */
  function perStep(step: number): { details: number; ms: number } {
    const before = calls.n;
    const t0 = performance.now();
    currentOp(view, step);
    narrationAt(view, step, narrations);
    predictsNext(view, step, narrations);
    pausesAt(view, step, narrations);
    predictionAt(view, step);
    focusAt(view, step);
    caseForOp(view, step);
    columnTotals(view, step);
    compareOps([view, view], Math.floor((step - 1) / 100) * 100, Math.floor((step - 1) / 100) * 100 + 100);
    opTooltip(view, step - 1, "instructions");
    reducer(initialState({ trace: view, step: step - 1 }), { type: "microForward" });
    return { details: calls.n - before, ms: performance.now() - t0 };
  }

  it("the whole-program passes run once per trace: the chart's samples, compare's totals", () => {
    const series = statsSeries(view);
    expect(series.steps[0]).toBe(0);
    expect(series.steps[series.steps.length - 1]).toBe(N);
    expect(series.stats.length).toBeLessThanOrEqual(4098);
    expect(statsSeries(view)).toBe(series);
    expect(columnTotals(view)).toMatchObject({ instructions: null, failed: 0, footprint: 16 * N, peakFootprint: 16 * N, requested: 8 * N });
    expect(hasCosts(view)).toBe(false);
    expect(costBars(view, "instructions").bars).toEqual([]);
  });

  it("a step asks for a bounded number of op details, as many at op 1,000,000 as at op 100", () => {
    perStep(100); // warm: memoised passes
    const early = perStep(100);
    const late = perStep(N - 1);
    expect(late.details).toBeLessThanOrEqual(early.details + 1);
    // Two compare columns of a 100-row page, and a handful for the step itself.
    expect(late.details).toBeLessThanOrEqual(2 * 100 + 12);
  });

  it("narration and predict read lines from the statements", () => {
    expect(narrationAt(view, N, narrations)).toMatchObject({ predict: true });
    expect(predictsNext(view, N - 1, narrations)).toBe(true);
    expect(predictsNext(view, N, narrations)).toBe(false);
    expect(predictionAt(view, N - 1)).toMatchObject({ opIndex: N - 1, address: START + 8 * (N - 1), size: 8 });
    const p = predictionAt(view, N - 1);
    if (!p) throw new Error("no prediction");
    const strip = stripAt(view, N - 1, p);
    // The blocks nearest the pointer (bumping up: the highest), the rest counted.
    expect(strip.blocks).toHaveLength(STRIP_BLOCKS);
    expect(strip.hidden).toBe(N - 1 - STRIP_BLOCKS);
    expect(strip.blocks[STRIP_BLOCKS - 1]?.id).toBe(N - 2);
    expect(strip.pointer).toBe(START + 8 * (N - 1));
    const rows = compareOps([view, null], N - 100, N);
    expect(rows).toHaveLength(100);
    expect(rows[99]).toMatchObject({ index: N - 1, line: 4, kind: "alloc", name: "alloc x" });
  });
});
