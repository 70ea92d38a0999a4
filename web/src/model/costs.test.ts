import { describe, expect, it } from "vitest";
import { withCosts } from "../wasm/traceView";
import { config, jsonTrace, viewOf } from "../test/runs";
import type { Cost, Op, Trace } from "../wasm/types";
import type { TraceView } from "../wasm/traceView";
import { countTick } from "../views/costView";
import { loadTraceModuleSync } from "../wasm/node";
import {
  barIndexOf,
  baselineLabel,
  binSizeFor,
  costBars,
  crateLabel,
  hasCosts,
  mismatchesFor,
  mismatchOps,
  mismatchText,
  opCostSummary,
  opTooltip,
  realRan,
  slowReason,
  split,
} from "./costs";

function traced(source: string, allocator = "bumpalo", target: "64" | "wasm32" = "64"): Trace {
  return jsonTrace(config(source, allocator, { target }));
}

/** The model's trace alone, as an engine without the real crate and the baseline writes it. */
function trace(source: string, allocator = "bumpalo", target: "64" | "wasm32" = "64"): Trace {
  const { real: _r, baseline: _b, ...t } = traced(source, allocator, target);
  return t;
}

const ALLOCATORS = loadTraceModuleSync().allocators();
/** The op's cost summary, with the preset's chunk record from its registry row. */
const costSummary = (t: TraceView, op: Op) => opCostSummary(t, op, ALLOCATORS.find((a) => a.name === t.allocator)?.chunkRecord ?? "none");

const cost = (t: Trace, i: number): Cost => {
  const c = t.ops[i]?.cost;
  if (!c) throw new Error(`op ${i} has no cost`);
  return c;
};

/** Ops that made a chunk (ran the slow path). */
const makers = (t: Trace): number[] => t.chunks.flatMap((c) => (c.created_by === undefined ? [] : [c.created_by]));

// bumpalo, 64-bit: 7 blocks of 64 fill the first chunk, so op 7 makes the second.
const TEN = "repeat 10 { x = alloc 64 }";

/** A copy of `t` with a synthetic real-crate run and baseline, as the Rust side will add them. */
function withReal(t: Trace): Trace {
  const scaled = (c: Cost | undefined, k: number): Cost | undefined =>
    c && { wasm_instructions: c.wasm_instructions * k, wasm_branches: c.wasm_branches * k, slow_instructions: 0, slow_branches: 0 };
  return {
    ...t,
    real: {
      crate: "bumpalo 3.20.4",
      ops: t.ops.map((o) => ({ cost: scaled(o.cost, 2), chunk: o.chunk, offset: o.offset })),
      mismatches: [
        { op: 3, field: "offset", model: 24, real: 32 },
        { op: 3, field: "chunk_capacity", model: 448, real: 464 },
        { op: 5, field: "moved", model: false, real: true },
      ],
    },
    baseline: { allocator: "Rust's global allocator (dlmalloc, wasm32)", ops: t.ops.map((o) => ({ cost: scaled(o.cost, 3) })) },
  };
}

describe("fast and slow parts", () => {
  const t = trace(TEN);

  it("the op that made a chunk has a slow part; the others are all fast", () => {
    expect(makers(t)).toEqual([0, 7]);
    for (const [i, op] of t.ops.entries()) {
      const c = cost(t, i);
      const s = split(op.cost, "instructions");
      expect(s.fast + s.slow).toBe(c.wasm_instructions);
      expect(s.slow).toBe(c.slow_instructions);
      const b = split(op.cost, "branches");
      expect([b.total, b.slow]).toEqual([c.wasm_branches, c.slow_branches]);
      if (makers(t).includes(i)) expect(s.slow, `op ${i}`).toBeGreaterThan(0);
      else expect(s.slow, `op ${i}`).toBe(0);
    }
    // A new chunk costs more than a bump.
    expect(cost(t, 7).wasm_instructions).toBeGreaterThan(cost(t, 6).wasm_instructions);
    expect(split(undefined, "instructions")).toEqual({ total: 0, fast: 0, slow: 0 });
  });

  it("says why the slow path ran", () => {
    const op7 = t.ops[7];
    const op6 = t.ops[6];
    if (!op7 || !op6) throw new Error("ten ops");
    expect(slowReason(viewOf(t), op7)).toBe("new chunk");
    expect(slowReason(viewOf(t), op6)).toBeNull();
    const big = trace("a = alloc 8\nb = alloc 100000");
    const op1 = big.ops[1];
    if (!op1) throw new Error("two ops");
    expect(slowReason(viewOf(big), op1)).toBe("new oversized chunk");
    // The slab-boundary pitfall: the restore frees the slab the scope made and bumps in the kept one again.
    const slab = jsonTrace(config("a = alloc 127\nb = alloc 127\ncheckpoint s\ny = alloc 10\nrestore s", "bumper-slab", { target: "wasm32", capacity: 256 }));
    const restore = slab.ops[4];
    if (!restore) throw new Error("five ops");
    expect(restore.events.filter((e) => e.kind === "chunk_freed")).toHaveLength(1);
    expect(slowReason(viewOf(slab), restore)).toBe("1 chunk freed");
  });
});

describe("running totals", () => {
  it("each bar carries the total through its op, and the last one the whole program's", () => {
    const t = trace(TEN);
    const bars = costBars(viewOf(t), "instructions");
    let sum = 0;
    for (const [i, bar] of bars.bars.entries()) {
      sum += cost(t, i).wasm_instructions;
      expect(bar.cumulative).toBe(sum);
    }
    expect(bars.total).toBe(sum);
    const branches = costBars(viewOf(t), "branches");
    expect(branches.total).toBe(t.ops.reduce((n, o) => n + (o.cost?.wasm_branches ?? 0), 0));
  });
});

describe("bars and bins", () => {
  it("one bar per op up to 500 ops, then about 200 bins", () => {
    expect([1, 10, 500].map((n) => binSizeFor(n))).toEqual([1, 1, 1]);
    expect([501, 1000, 1301, 5000].map((n) => binSizeFor(n))).toEqual([3, 5, 7, 25]);
  });

  it("a short program: one bar per op, keyed and picked by its op", () => {
    const t = trace(TEN);
    const bars = costBars(viewOf(t), "instructions");
    expect(bars.binned).toBe(false);
    expect(bars.bars.map((b) => [b.key, b.first, b.last, b.pick])).toEqual(t.ops.map((_, i) => [i, i, i, i]));
    const b7 = bars.bars[7];
    expect(b7).toMatchObject({ total: cost(t, 7).wasm_instructions, slow: cost(t, 7).slow_instructions, mean: cost(t, 7).wasm_instructions });
    expect(bars.max).toBe(Math.max(...t.ops.map((o) => o.cost?.wasm_instructions ?? 0)));
    expect(barIndexOf(bars, undefined)).toBeUndefined();
    expect(barIndexOf(bars, 7)).toBe(7);
    expect(barIndexOf(bars, 10)).toBeUndefined();
    // Memoised per trace and metric.
    expect(costBars(viewOf(t), "instructions")).toBe(bars);
  });

  it("a long program: bins cover every op once, show the costliest op and the mean", () => {
    const t = trace("repeat 1200 { x = alloc 64 }");
    const bars = costBars(viewOf(t), "instructions");
    expect(bars).toMatchObject({ binned: true, binSize: 6 });
    expect(bars.bars).toHaveLength(200);
    expect(bars.bars[0]?.first).toBe(0);
    expect(bars.bars[199]?.last).toBe(1199);
    for (const [i, bar] of bars.bars.entries()) {
      expect(bar.first).toBe(i * 6);
      expect(bar.last).toBe(i * 6 + 5);
      const costs = t.ops.slice(bar.first, bar.last + 1).map((o) => o.cost?.wasm_instructions ?? 0);
      expect(bar.total).toBe(Math.max(...costs));
      expect(bar.pick).toBe(bar.first + costs.indexOf(bar.total));
      expect(bar.mean).toBeCloseTo(costs.reduce((a, b) => a + b, 0) / costs.length, 9);
    }
    // Every op that made a chunk shows as a slow spike in its bin.
    for (const m of makers(t)) {
      const bar = bars.bars[barIndexOf(bars, m) ?? -1];
      expect(bar?.pick, `op ${m}`).toBe(m);
      expect(bar?.slow, `op ${m}`).toBeGreaterThan(0);
    }
    expect(bars.bars[199]?.cumulative).toBe(bars.total);
    expect(bars.bars[4]?.label).toMatch(/^op \d+ \(costliest of ops 25–30\) · alloc x · \d+ wasm instructions \(fast \d+, slow 0\) · \d+ branches · mean \d+ wasm instructions per op$/);
  });
});

describe("tooltip text", () => {
  const t = trace(TEN);

  it("names the op from 1, its parts and the other count", () => {
    const c = cost(t, 1);
    expect(opTooltip(viewOf(t), 1, "instructions")).toBe(
      `op 2 · alloc x · ${c.wasm_instructions} wasm instructions (fast ${c.wasm_instructions}, slow 0) · ${c.wasm_branches} branches`,
    );
    const s = cost(t, 7);
    expect(opTooltip(viewOf(t), 7, "instructions")).toBe(
      `op 8 · alloc x · ${s.wasm_instructions} wasm instructions (fast ${s.wasm_instructions - s.slow_instructions}, slow ${s.slow_instructions}) · ${s.wasm_branches} branches`,
    );
    expect(opTooltip(viewOf(t), 7, "branches")).toBe(
      `op 8 · alloc x · ${s.wasm_branches} wasm branches (fast ${s.wasm_branches - s.slow_branches}, slow ${s.slow_branches}) · ${s.wasm_instructions} instructions`,
    );
    expect(costBars(viewOf(t), "instructions").bars[7]?.label).toBe(opTooltip(viewOf(t), 7, "instructions"));
  });

  it("adds the real crate's and the global allocator's counts when present", () => {
    const r = withReal(t);
    const c = cost(t, 1);
    expect(opTooltip(viewOf(r), 1, "instructions")).toBe(
      `op 2 · alloc x · ${c.wasm_instructions} wasm instructions (fast ${c.wasm_instructions}, slow 0) · ${c.wasm_branches} branches · real bumpalo 3.20.4: ${2 * c.wasm_instructions} · global allocator: ${3 * c.wasm_instructions}`,
    );
    expect(opTooltip(viewOf(r), 1, "branches")).toContain(`real bumpalo 3.20.4: ${2 * c.wasm_branches} · global allocator: ${3 * c.wasm_branches}`);
    const bars = costBars(viewOf(r), "instructions");
    expect(bars.bars[1]).toMatchObject({ real: 2 * c.wasm_instructions, baseline: 3 * c.wasm_instructions });
    // The y scale makes room for the real crate, not for the global allocator (drawn clipped).
    const modelMax = Math.max(...t.ops.map((o) => o.cost?.wasm_instructions ?? 0));
    expect([bars.max, bars.baselineMax]).toEqual([2 * modelMax, 3 * modelMax]);
    const sum = t.ops.reduce((n, o) => n + (o.cost?.wasm_instructions ?? 0), 0);
    expect([bars.total, bars.realTotal, bars.baselineTotal]).toEqual([sum, 2 * sum, 3 * sum]);
    expect(costBars(viewOf(t), "instructions")).toMatchObject({ realTotal: undefined, baselineTotal: undefined });
  });

  it("without costs: not measured, and nothing to chart", () => {
    const bare: Trace = { ...t, ops: t.ops.map(({ cost: _, ...op }) => op) };
    expect(hasCosts(viewOf(bare))).toBe(false);
    expect(hasCosts(viewOf(t))).toBe(true);
    expect(opTooltip(viewOf(bare), 0, "instructions")).toBe("op 1 · alloc x · not measured");
    const op = bare.ops[0];
    if (!op) throw new Error("an op");
    expect(costSummary(viewOf(bare), op)).toBeNull();
    expect(costBars(viewOf(bare), "instructions").bars).toEqual([]);
  });

  it("costs given apart from the ops (the metered module beside the lean one) chart and read the same", () => {
    const bare: Trace = { ...t, ops: t.ops.map(({ cost: _, ...op }) => op) };
    const apart = withCosts(viewOf(bare), { costs: t.ops.map((o) => o.cost) });
    expect(hasCosts(apart)).toBe(true);
    expect(costBars(apart, "instructions")).toEqual(costBars(viewOf(t), "instructions"));
    expect(opTooltip(apart, 3, "branches")).toBe(opTooltip(viewOf(t), 3, "branches"));
    const op = bare.ops[1];
    const full = t.ops[1];
    if (!op || !full) throw new Error("two ops");
    expect(costSummary(apart, op)).toEqual(costSummary(viewOf(t), full));
    const none = withCosts(viewOf(bare), { unavailable: "the program runs over 100,000 ops" });
    expect(hasCosts(none)).toBe(false);
    expect(none.costsUnavailable).toBe("the program runs over 100,000 ops");
  });
});

describe("the real crate: mismatches and the step summary", () => {
  const t = trace(TEN);
  const r = withReal(t);

  it("finds mismatches by op", () => {
    expect(mismatchOps(viewOf(r))).toEqual([3, 5]);
    expect(mismatchesFor(viewOf(r), 3).map(mismatchText)).toEqual(["offset model 24 real 32", "chunk capacity model 448 real 464"]);
    expect(mismatchesFor(viewOf(r), 5).map(mismatchText)).toEqual(["moved model false real true"]);
    expect(mismatchesFor(viewOf(r), 4)).toEqual([]);
    expect(mismatchOps(viewOf(t))).toEqual([]);
    expect(mismatchText({ op: 0, field: "chunk", model: 1, real: null })).toBe("chunk model 1 real none");
  });

  it("absent and unavailable runs are not runs", () => {
    expect(realRan(viewOf(t))).toBeUndefined();
    expect(realRan(viewOf(r))?.ops).toHaveLength(t.ops.length);
    const off: Trace = { ...t, real: { crate: "bumpalo", version: "3.20.4", unavailable: "only wasm32 traces run the real crate" } };
    expect(realRan(viewOf(off))).toBeUndefined();
    expect(mismatchOps(viewOf(off))).toEqual([]);
    expect(crateLabel(off.real!)).toBe("bumpalo 3.20.4");
    expect(crateLabel({ crate: "bumpalo 3.20.4", version: "3.20.4", unavailable: "" })).toBe("bumpalo 3.20.4");
    const op = off.ops[1];
    if (!op) throw new Error("an op");
    expect(costSummary(viewOf(off), op)).toMatchObject({
      real: null,
      baseline: null,
      verdict: null,
      notes: ["bumpalo 3.20.4 not compared: only wasm32 traces run the real crate"],
    });
  });

  it("the step summary: fast path, slow path and its reason", () => {
    const [op1, op7] = [t.ops[1], t.ops[7]];
    if (!op1 || !op7) throw new Error("ten ops");
    const c = cost(t, 1);
    expect(costSummary(viewOf(t), op1)).toEqual({
      text: `${c.wasm_instructions} wasm instructions · ${c.wasm_branches} conditional branches (fast path)`,
      slow: false,
      real: null,
      realWhy: null,
      baseline: null,
      verdict: null,
      notes: [],
    });
    const s = cost(t, 7);
    expect(costSummary(viewOf(t), op7)?.text).toBe(
      `${s.wasm_instructions} wasm instructions (${s.slow_instructions} in the slow path: new chunk) · ${s.wasm_branches} conditional branches`,
    );
    expect(costSummary(viewOf(t), op7)?.slow).toBe(true);
  });

  it("the step summary with the real crate: counts beside the model's, a verdict per op", () => {
    const [op1, op3, op5] = [r.ops[1], r.ops[3], r.ops[5]];
    if (!op1 || !op3 || !op5) throw new Error("ten ops");
    const c = cost(t, 1);
    expect(costSummary(viewOf(r), op1)).toMatchObject({
      real: `real bumpalo 3.20.4: ${2 * c.wasm_instructions} wasm instructions`,
      // Where the counts differ the summary says why: here a fast-path bump.
      realWhy: `Model ${c.wasm_instructions} instructions fewer than the crate: it holds the current chunk's bump pointer and bounds in the allocator itself, where bumpalo 3.20.4 reaches them through a pointer to the chunk's footer: a load more on every bump.`,
      baseline: `global allocator (dlmalloc, wasm32): ${3 * c.wasm_instructions} instructions`,
      verdict: { ok: true, text: "✓ matches bumpalo 3.20.4 placement" },
      notes: [],
    });
    expect(costSummary(viewOf(r), op3)?.verdict).toEqual({
      ok: false,
      text: "✗ differs from bumpalo 3.20.4: offset model 24 real 32; chunk capacity model 448 real 464",
    });
    expect(costSummary(viewOf(r), op5)?.verdict).toMatchObject({ ok: false, text: "✗ differs from bumpalo 3.20.4: moved model false real true" });
    expect(costBars(viewOf(r), "instructions").bars.map((b) => b.mismatch)).toEqual(t.ops.map((_, i) => i === 3 || i === 5));
  });

  it("a free places nothing: no placement verdict, counts still shown", () => {
    const f = withReal(trace("a = alloc 8\nfree a"));
    const free = f.ops[1];
    if (!free) throw new Error("two ops");
    const summary = costSummary(viewOf(f), free);
    expect(summary?.verdict).toBeNull();
    expect(summary?.real).toMatch(/^real bumpalo 3\.20\.4: \d+ wasm instructions?$/);
  });

  it("an op the real crate skipped gets no verdict, only its note", () => {
    const skipped: Trace = {
      ...r,
      real: { crate: "bumpalo 3.20.4", ops: r.ops.map((_, i) => (i === 2 ? { note: "not compared after a restore" } : {})), mismatches: [] },
    };
    const op = skipped.ops[2];
    if (!op) throw new Error("ten ops");
    expect(costSummary(viewOf(skipped), op)).toMatchObject({ verdict: null, real: null, notes: ["bumpalo 3.20.4: not compared after a restore"] });
  });
});

describe("the engine's own real-crate run and baseline", () => {
  it("wasm32 bumpalo: the real crate ran every op, placements match, counts sit beside the model's", () => {
    const w = traced(TEN, "bumpalo", "wasm32");
    const ran = realRan(viewOf(w));
    if (!ran) throw new Error("wasm32 bumpalo traces carry the real crate's run");
    expect(crateLabel(ran)).toBe("bumpalo 3.20.4");
    expect(ran.ops).toHaveLength(w.ops.length);
    expect(mismatchOps(viewOf(w))).toEqual([]);
    const rc = ran.ops[1]?.cost;
    const bc = w.baseline?.ops[1]?.cost;
    if (!rc || !bc) throw new Error("op 1 is counted on both");
    expect(opTooltip(viewOf(w), 1, "instructions")).toMatch(
      new RegExp(` · \\d+ branches · real bumpalo 3\\.20\\.4: ${rc.wasm_instructions} · global allocator: ${bc.wasm_instructions}$`),
    );
    const op1 = w.ops[1];
    if (!op1) throw new Error("ten ops");
    expect(costSummary(viewOf(w), op1)).toMatchObject({
      real: `real bumpalo 3.20.4: ${rc.wasm_instructions} wasm instructions`,
      baseline: `global allocator (dlmalloc, wasm32): ${bc.wasm_instructions} instructions`,
      verdict: { ok: true, text: "✓ matches bumpalo 3.20.4 placement" },
      notes: [],
    });
  });

  it("64-bit bumpalo: the real crate is not compared, and the summary says why", () => {
    const t = traced(TEN);
    expect(realRan(viewOf(t))).toBeUndefined();
    const op = t.ops[0];
    if (!op) throw new Error("ten ops");
    const summary = costSummary(viewOf(t), op);
    expect(summary?.verdict).toBeNull();
    expect(summary?.notes).toEqual([expect.stringMatching(/^bumpalo 3\.20\.4 not compared: .*64-bit/)]);
    expect(baselineLabel(viewOf(t))).toBe("global allocator (dlmalloc, wasm32)");
  });

  it("a preset without a real crate has no real run", () => {
    const t = traced("a = alloc 8", "hinckley-up", "wasm32");
    expect(t.real).toBeUndefined();
    const op = t.ops[0];
    if (!op) throw new Error("one op");
    expect(costSummary(viewOf(t), op)).toMatchObject({ verdict: null, real: null, notes: [] });
  });
});

describe("axis labels", () => {
  it("counts under 1000 as they are, then in thousands", () => {
    expect([0, 500, 999, 1000, 1500, 12_000, 107_784].map(countTick)).toEqual(["0", "500", "999", "1k", "1.5k", "12k", "108k"]);
  });
});

describe("costs: a realloc's copy, which the models do not run", () => {
  // A `Vec<u8>` of 8 bytes growing to 16: the element's alignment is known.
  const GROW = "s = alloc [u8; 8]\ns = realloc s 16";
  const summary = (allocator: string) => {
    const t = viewOf(traced(GROW, allocator, "wasm32"));
    return costSummary(t, t.op(1));
  };

  it("a moved realloc says its count leaves out the bytes copied", () => {
    expect(summary("fitzgen-down")?.notes).toContain(
      "Not in the model's count: copying the block's 8 bytes. The model tracks addresses, not the bytes at them, so its code copies nothing; a real allocator pays a memmove for them.",
    );
  });

  it("a realloc in place copies nothing and says nothing of it", () => {
    expect(summary("hinckley-up")?.notes.join(" ")).not.toContain("copying");
  });

  it("against the real crate, the copy is named among the reasons the crate ran more", () => {
    const s = summary("bumpalo");
    expect(s?.real).toMatch(/^real bumpalo [\d.]+: \d+ wasm instructions$/);
    expect(s?.realWhy).toMatch(/^Model \d+ instructions fewer than the crate: among other things, bumpalo [\d.]+ copies the block's 8 bytes \(a memmove\)/);
  });
});
