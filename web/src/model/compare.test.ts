import { describe, expect, it } from "vitest";
import type { TraceView, ViewResult } from "../wasm/traceView";
import type { AllocatorInfo, Op } from "../wasm/types";
import { loadTraceModuleSync } from "../wasm/node";
import { measured, viewResult } from "../test/runs";
import { fakeAllocator } from "../test/allocators";
import {
  addColumn,
  bestTotals,
  cheapestOf,
  columnLabels,
  columnTotals,
  compareOps,
  differenceTexts,
  effectiveMinAlign,
  focusAt,
  MAX_COMPARE,
  MIN_COMPARE,
  placementAt,
  placementText,
  removeColumn,
  traceOf,
  withAllocator,
  capacityCarries,
  carryNotes,
  carrySettings,
  compareStepText,
  counterpartOf,
  pairReason,
  startingColumns,
  type CompareConfig,
  type Placement,
} from "./compare";
import { lessonById } from "./lessons";
import { chunksAt } from "./chunks";

// Every number below was read off the engine's traces (64-bit unless said):
//   hinckley-up,  `a = alloc 1\nb = alloc u64`: a at 0x10010 (offset 0),
//     b at 0x10018 (offset 8, 7 bytes padding); 27 instructions, 1 branch each.
//   fitzgen-down, same program: a at 0x1010f (offset 0xff), b at 0x10100
//     (offset 0xf0, 7 bytes padding); 22 instructions, 2 branches each.

const allocators = loadTraceModuleSync().allocators();
/** Each preset's counterpart, as the preset registry's rows give it. */
const COUNTERPARTS: Readonly<Record<string, { allocator: string; why: string }>> = Object.fromEntries(allocators.map((a) => [a.name, a.counterpart]));

function run(config: CompareConfig, source: string): ViewResult {
  return viewResult({ ...config, source });
}

/** Each column's run with its costs, as compare mode shows it. */
function traces(configs: readonly CompareConfig[], source: string): TraceView[] {
  return configs.map((c) => measured(source, c.allocator, c));
}

const cfg = (allocator: string, over: Partial<CompareConfig> = {}): CompareConfig => ({
  allocator,
  target: "64",
  minAlign: null,
  capacity: null,
  ...over,
});

/** The placement read from an op's detail: what `placementAt` must agree with. */
function placementOf(op: Op): Placement {
  if (op.kind !== "alloc" && op.kind !== "realloc") {
    return { chunk: undefined, offset: undefined, address: undefined, padding: undefined, moved: undefined, failed: op.failed };
  }
  return { chunk: op.chunk, offset: op.offset, address: op.address, padding: op.padding, moved: op.moved, failed: op.failed };
}

const UP_DOWN_PROGRAM = "a = alloc 1\nb = alloc u64";

/** The seed algorithms bumping up and down, on 64-bit at their defaults. */
const UP_VS_DOWN: readonly CompareConfig[] = [cfg("hinckley-up"), cfg("fitzgen-down")];

describe("the cost claims of the pairs' reasons", () => {
  // "the same addresses, fewer branches per allocation (one each for a lone
  // u8...)": every shape of request, on both targets.
  it("hinckley-up-naive against hinckley-up: the same addresses, fewer branches but for a lone u8", () => {
    expect(COUNTERPARTS["hinckley-up-naive"]?.why).toContain("the same addresses, fewer branches per allocation (one each for a lone u8");
    const requests = ["a = alloc u8", "a = alloc u16", "a = alloc u64", "a = alloc u128", "a = alloc [u8; 5]", "a = alloc [u32; 3]", "a = alloc 3", "a = alloc 24 align 8"];
    for (const target of ["wasm32", "64"] as const) {
      for (const source of requests) {
        const [naive, up] = ["hinckley-up-naive", "hinckley-up"].map((allocator) => measured(`x = alloc 8\n${source}`, allocator, { target }));
        const what = `${target}: ${source}`;
        expect(naive!.op(1).address, what).toBe(up!.op(1).address);
        const [nb, ub] = [naive!.costs?.[1]?.wasm_branches, up!.costs?.[1]?.wasm_branches];
        if (source === "a = alloc u8") expect([nb, ub], what).toEqual([1, 1]);
        else expect(nb!, what).toBeGreaterThan(ub!);
      }
    }
  });
});

describe("compare: up vs down on the same program", () => {
  const [up, down] = traces(UP_VS_DOWN, UP_DOWN_PROGRAM);
  const rows = compareOps([up ?? null, down ?? null]);
  const labels = columnLabels(UP_VS_DOWN, allocators);

  it("labels the columns by preset alone when only the preset differs", () => {
    expect(labels).toEqual(["hinckley-up", "fitzgen-down"]);
  });

  it("lines the two runs up op by op, with each column's placement", () => {
    expect(rows.map((r) => r.name)).toEqual(["alloc a", "alloc b"]);
    const b = rows[1];
    expect(b?.columns.map((c) => c?.placement)).toEqual([
      { chunk: 0, offset: 8, address: 0x10018, padding: 7, moved: undefined, failed: false },
      { chunk: 0, offset: 0xf0, address: 0x10100, padding: 7, moved: undefined, failed: false },
    ]);
    expect(rows[0]?.columns.map((c) => c?.placement.address)).toEqual([0x10010, 0x1010f]);
  });

  it("flags the offset and address as differing, the chunk and padding as not", () => {
    expect(rows[0]?.differs).toEqual(["offset", "address"]);
    expect(rows[1]?.differs).toEqual(["offset", "address"]);
    // The address follows from the offset: said once.
    expect(differenceTexts(rows[1]!, labels)).toEqual(["offset 0x8 vs 0xf0"]);
    expect(differenceTexts(rows[0]!, labels)).toEqual(["offset 0x0 vs 0xff"]);
  });

  it("gives each op's cost per column, running sums, and the cheaper column", () => {
    // `a = alloc 1` is a run-time layout, `b = alloc u64` a constant one.
    expect(rows.map((r) => r.columns.map((c) => c?.instructions))).toEqual([
      [27, 22],
      [25, 20],
    ]);
    expect(rows.map((r) => r.columns.map((c) => c?.cumulativeInstructions))).toEqual([
      [27, 22],
      [52, 42],
    ]);
    expect(rows.map((r) => r.columns.map((c) => c?.cumulativeBranches))).toEqual([
      [1, 2],
      [2, 4],
    ]);
    // Bumping down runs fewer instructions, bumping up fewer branches.
    expect(rows[0]?.cheapest).toEqual({ instructions: [1], branches: [0] });
  });

  it("totals each column after any step", () => {
    expect(columnTotals(up!)).toEqual({
      instructions: 52,
      branches: 2,
      padding: 7,
      metadata: 0,
      chunks: 1,
      requested: 9,
      footprint: 256,
      peakFootprint: 256,
      failed: 0,
    });
    expect(columnTotals(down!, 1)).toMatchObject({ instructions: 22, branches: 2, padding: 0, requested: 1 });
    const best = bestTotals([columnTotals(up!), columnTotals(down!)]);
    expect(best.instructions).toEqual([1]);
    expect(best.branches).toEqual([0]);
    // Same padding and footprint on both: no column is marked.
    expect(best.padding).toEqual([]);
    expect(best.peakFootprint).toEqual([]);
  });

  it("describes one column's placement in words", () => {
    expect(placementText(rows[1]!.columns[0]!.placement)).toBe("chunk 0 + 0x8 (0x10018), 7 bytes padding");
    expect(placementText(rows[0]!.columns[1]!.placement)).toBe("chunk 0 + 0xff (0x1010f)");
  });

  it("highlights on each map the block the step's op placed", () => {
    expect([...focusAt(up!, 2)]).toEqual([1]);
    expect([...focusAt(down!, 0)]).toEqual([]);
  });
});

describe("compare: failures, other presets, reallocs", () => {
  it("says which column an op failed in, and compares nothing else for it", () => {
    const configs = [cfg("hinckley-up"), cfg("bumpalo")];
    const ts = traces(configs, "a = alloc 300\nb = alloc 8");
    const rows = compareOps(ts);
    const labels = columnLabels(configs, allocators);
    expect(rows[0]?.differs[0]).toBe("failed");
    expect(rows[0]?.columns.map((c) => c?.placement.failed)).toEqual([true, false]);
    expect(differenceTexts(rows[0]!, labels)).toEqual(["alloc a failed in hinckley-up"]);
    expect(placementText(rows[0]!.columns[0]!.placement)).toBe("failed");
    expect(columnTotals(ts[0]!).failed).toBe(1);
    expect(bestTotals(ts.map((t) => columnTotals(t))).failed).toEqual([1]);
    // bumpalo's first allocation makes its chunk: 48 bytes of footer.
    expect(columnTotals(ts[1]!)).toMatchObject({ metadata: 48, chunks: 1, failed: 0 });
  });

  it("compares reallocs moving against growing in place", () => {
    const configs = [cfg("bumpalo"), cfg("bump-scope-up")];
    const rows = compareOps(traces(configs, "a = alloc 8\na = realloc a 16"));
    expect(rows[1]?.columns.map((c) => c?.placement.moved)).toEqual([true, false]);
    expect(rows[1]?.differs).toContain("moved");
    expect(differenceTexts(rows[1]!, columnLabels(configs, allocators))).toContain("realloc moved vs in place");
  });

  it("compares one preset at two minimum alignments: the label says MIN_ALIGN, padding differs", () => {
    const configs = [cfg("up-min-align", { minAlign: 1 }), cfg("up-min-align")];
    expect(columnLabels(configs, allocators)).toEqual(["up-min-align · MIN_ALIGN 1", "up-min-align · MIN_ALIGN 8"]);
    const rows = compareOps(traces(configs, "a = alloc 1\nb = alloc 1"));
    expect(rows[1]?.columns.map((c) => c?.placement.offset)).toEqual([1, 8]);
    expect(differenceTexts(rows[1]!, columnLabels(configs, allocators))).toEqual(["offset 0x1 vs 0x8", "padding 0 vs 7"]);
  });

  it("compares one preset on two targets: the label says the target", () => {
    const configs = [cfg("hinckley-up"), cfg("hinckley-up", { target: "wasm32" })];
    expect(columnLabels(configs, allocators)).toEqual(["hinckley-up · 64-bit", "hinckley-up · wasm32"]);
    const rows = compareOps(traces(configs, "a = alloc usize\nb = alloc u64"));
    // usize is 8 bytes on 64-bit and 4 on wasm32: b needs 0 or 4 bytes of padding.
    expect(rows[1]?.columns.map((c) => c?.placement.padding)).toEqual([0, 4]);
    expect(rows[1]?.columns.map((c) => c?.placement.offset)).toEqual([8, 8]);
    expect(rows[1]?.differs).toEqual(["padding"]);
  });

  it("labels a column by preset, target and MIN_ALIGN when all three differ", () => {
    const configs = [cfg("bumpalo", { target: "wasm32", minAlign: 8 }), cfg("hinckley-up")];
    expect(columnLabels(configs, allocators)).toEqual(["bumpalo · wasm32 · MIN_ALIGN 8", "hinckley-up · 64-bit"]);
  });

  it("leaves out a default minimum alignment beside a preset without the setting", () => {
    const configs = [cfg("hinckley-up"), cfg("bumpalo")];
    expect(columnLabels(configs, allocators)).toEqual(["hinckley-up", "bumpalo"]);
    // Two presets with the setting, on different defaults: both say theirs.
    expect(columnLabels([cfg("up-min-align"), cfg("bumpalo")], allocators)).toEqual([
      "up-min-align · MIN_ALIGN 8",
      "bumpalo · MIN_ALIGN 1",
    ]);
  });

  it("numbers columns that would read the same", () => {
    expect(columnLabels([cfg("bumpalo"), cfg("bumpalo")], allocators)).toEqual([
      "bumpalo (column 1)",
      "bumpalo (column 2)",
    ]);
    expect(columnLabels([cfg("bumpalo"), cfg("bumpalo", { capacity: 4096 })], allocators)).toEqual([
      "bumpalo · default capacity",
      "bumpalo · capacity 4096",
    ]);
  });

  it("keeps the other columns when one column's program fails", () => {
    const configs = [cfg("hinckley-up"), cfg("fitzgen-down")];
    const ok = run(configs[0]!, UP_DOWN_PROGRAM);
    const bad = run(configs[1]!, "a = alloc 8 align 3");
    expect(bad.ok).toBe(false);
    const rows = compareOps([traceOf(ok), traceOf(bad)]);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.columns[1])).toEqual([null, null]);
    // One column alone: nothing to differ from, nothing cheaper.
    expect(rows[1]?.differs).toEqual([]);
    expect(rows[1]?.cheapest).toEqual({ instructions: [], branches: [] });
    expect(rows[1]?.columns[0]?.placement.address).toBe(0x10018);
  });

  it("measures the footprint as the live chunks' bytes, and its peak across resets", () => {
    const t = traces([cfg("bump-scope-up")], "repeat 30 { x = alloc 64 }\nreset\ny = alloc 8")[0]!;
    for (let s = 0; s <= t.length; s++) {
      const chunkBytes = chunksAt(t, s).reduce((n, c) => n + c.header + c.capacity + c.footer, 0);
      expect(columnTotals(t, s).footprint, `step ${s}`).toBe(chunkBytes);
    }
    // Three chunks (496 + 1008 + 2032 bytes) before the reset keeps the newest alone.
    const totals = columnTotals(t);
    expect(totals.peakFootprint).toBe(496 + 1008 + 2032);
    expect(totals.footprint).toBe(2032);
    expect(totals.chunks).toBe(1);
  });
});

describe("compare: configurations", () => {
  const fake = (name: string, minAligns: number[] = []): AllocatorInfo => fakeAllocator(name, { minAligns });
  const list = [fake("a"), fake("b", [8, 1, 16]), fake("c")];

  it("resolves the minimum alignment: chosen, else the preset's default, else none", () => {
    expect(effectiveMinAlign(cfg("b"), list)).toBe(8);
    expect(effectiveMinAlign(cfg("b", { minAlign: 16 }), list)).toBe(16);
    // A value the preset does not offer falls back to its default.
    expect(effectiveMinAlign(cfg("b", { minAlign: 32 }), list)).toBe(8);
    expect(effectiveMinAlign(cfg("a", { minAlign: 8 }), list)).toBeNull();
  });

  it("adds the first preset no column runs, on the last column's target, up to four", () => {
    const two = [cfg("a"), cfg("b", { target: "wasm32" })];
    const three = addColumn(two, list);
    expect(three[2]).toEqual(cfg("c", { target: "wasm32" }));
    // Every preset in use: a copy of the last column.
    const four = addColumn(three, list);
    expect(four).toHaveLength(MAX_COMPARE);
    expect(four[3]).toEqual(four[2]);
    expect(addColumn(four, list)).toEqual(four);
  });

  it("removes a column but never below two", () => {
    const three = [cfg("a"), cfg("b"), cfg("c")];
    expect(removeColumn(three, 1).map((c) => c.allocator)).toEqual(["a", "c"]);
    expect(removeColumn(removeColumn(three, 0), 0)).toHaveLength(MIN_COMPARE);
    expect(removeColumn(three, 7)).toEqual(three);
  });

  it("drops the old minimum alignment when the preset changes", () => {
    expect(withAllocator(cfg("b", { minAlign: 16, capacity: 512 }), "a")).toEqual(cfg("a", { capacity: 512 }));
    const same = cfg("b", { minAlign: 16 });
    expect(withAllocator(same, "b")).toBe(same);
  });

  it("marks the least value only when the columns differ", () => {
    expect(cheapestOf([5, 3, 3, null])).toEqual([1, 2]);
    expect(cheapestOf([4, 4])).toEqual([]);
    expect(cheapestOf([4, null])).toEqual([]);
  });
});

describe("compare: ops that place nothing", () => {
  it("compares no placement for a free, a checkpoint or a reset", () => {
    const rows = compareOps(traces(UP_VS_DOWN, "a = alloc 8\nfree a\ncheckpoint s\nrestore s\nreset"));
    expect(rows.map((r) => r.kind)).toEqual(["alloc", "free", "checkpoint", "restore", "reset"]);
    expect(rows[0]?.differs).toEqual(["offset", "address"]);
    for (const r of rows.slice(1)) {
      expect(r.differs, r.kind).toEqual([]);
      expect(r.columns.map((c) => placementText(c!.placement))).toEqual(["", ""]);
    }
  });
});

describe("compare: rows from the columns", () => {
  it("every op's placement read from the columns equals its detail's, on every preset", () => {
    const programs = [
      "a = alloc 8\nb = alloc 24 align 16\nb = realloc b 64\nc = realloc a 4\nfree c\nz = alloc 0\nx = alloc 300 align 64\nreset\ny = alloc 1\n",
      "checkpoint s\nrepeat 3 {\n  a = alloc 200\n  b = realloc a 400\n}\nrestore s\nq = alloc 5000\n",
    ];
    let compared = 0;
    for (const a of allocators) {
      for (const target of ["64", "wasm32"] as const) {
        for (const source of programs) {
          const r = viewResult({ source, allocator: a.name, target, capacity: null, minAlign: null });
          if (!r.ok) continue;
          const t = r.trace;
          for (let i = 0; i < t.length; i++) {
            expect(placementAt(t, i), `${a.name} ${target} op ${i}`).toEqual(placementOf(t.op(i)));
            compared++;
          }
        }
      }
    }
    expect(compared).toBeGreaterThan(200);
  });
});

describe("compare: starting from the run on screen", () => {
  const names = allocators.map((a) => a.name);
  const direction = (name: string) => allocators.find((a) => a.name === name)?.direction;

  it("gives every allocator the trace module lists a counterpart: another listed allocator, with a reason", () => {
    expect(Object.keys(COUNTERPARTS).sort()).toEqual([...names].sort());
    for (const name of names) {
      const pair = COUNTERPARTS[name];
      expect(pair, name).toBeDefined();
      expect(pair?.allocator, name).not.toBe(name);
      expect(names, name).toContain(pair?.allocator);
      expect(pair?.why.length, name).toBeGreaterThan(40);
      expect(counterpartOf(name, allocators)).toBe(pair?.allocator);
    }
  });

  it("pairs each allocator with the one that teaches its lesson", () => {
    const pairs = Object.fromEntries(names.map((n) => [n, COUNTERPARTS[n]?.allocator]));
    expect(pairs).toEqual({
      // Up against down where a sibling bumps the other way.
      "fitzgen-down": "hinckley-up",
      "hinckley-up": "fitzgen-down",
      "up-min-align": "down-min-align",
      "down-min-align": "up-min-align",
      "bump-scope-up": "bump-scope-down",
      "bump-scope-down": "bump-scope-up",
      // A first version against its rewrite; the two Rust crates; the same library's other buffer.
      "hinckley-up-naive": "hinckley-up",
      bumpalo: "bump-scope-up",
      "blink-alloc": "bumpalo",
      "bumper-alloc-buffer": "bumper-slab",
      "bumper-slab": "bumper-alloc-buffer",
      // Hand-written C++ against the standard library; two slab arenas; Zig's two arenas.
      "cpp-arena": "pmr-monotonic",
      "pmr-monotonic": "cpp-arena",
      "llvm-bump-ptr": "bumper-slab",
      "zig-arena": "zig-fixed-buffer",
      "zig-fixed-buffer": "zig-arena",
    });
    for (const [a, b] of [["fitzgen-down", "hinckley-up"], ["up-min-align", "down-min-align"], ["bump-scope-up", "bump-scope-down"], ["bumpalo", "bump-scope-up"]] as const) {
      expect(direction(a), `${a} and ${b} bump opposite ways`).not.toBe(direction(b));
    }
  });

  it("opens bump-scope-up beside bump-scope-down on the same target, MIN_ALIGN and capacity", () => {
    const run = cfg("bump-scope-up", { target: "wasm32", minAlign: 16, capacity: 1024 });
    const columns = startingColumns(run, allocators);
    expect(columns).toEqual([run, cfg("bump-scope-down", { target: "wasm32", minAlign: 16, capacity: 1024 })]);
    expect(columnLabels(columns, allocators)).toEqual(["bump-scope-up · MIN_ALIGN 16 · capacity 1024", "bump-scope-down · MIN_ALIGN 16 · capacity 1024"]);
    expect(pairReason(columns, allocators)).toBe(COUNTERPARTS["bump-scope-up"]?.why);
    // The setup row's columns are plain settings: nothing else of the run comes along.
    expect(Object.keys(columns[0]!).sort()).toEqual(["allocator", "capacity", "minAlign", "target"]);
  });

  it("takes a lesson's own pair while the run is on the lesson's allocator", () => {
    const lesson = lessonById("realloc-fast-path");
    const pair = lesson?.compareWith;
    expect(pair?.allocator).toBe("bumpalo");
    const columns = startingColumns(lesson!.config, allocators, pair?.allocator);
    expect(columns.map((c) => c.allocator)).toEqual(["bump-scope-up", "bumpalo"]);
    expect(columns[1]?.target).toBe("wasm32");
    expect(pairReason(columns, allocators, { allocator: "bump-scope-up", pair: "bumpalo", why: pair!.why })).toBe(pair?.why);
    // The table's pair otherwise names no lesson reason for it.
    expect(pairReason(columns, allocators)).toBeNull();
    // A pair naming the run's own allocator, or one not listed, is no pair.
    expect(counterpartOf("bumpalo", allocators, "bumpalo")).toBe("bump-scope-up");
    expect(counterpartOf("bumpalo", allocators, "no-such-arena")).toBe("bump-scope-up");
  });

  it("in the realloc lesson's program, the pair's columns disagree where the lesson says: in place against moved", () => {
    const lesson = lessonById("realloc-fast-path")!;
    for (const partner of [counterpartOf("bump-scope-up", allocators), lesson.compareWith!.allocator]) {
      const columns = startingColumns(lesson.config, allocators, partner === "bumpalo" ? "bumpalo" : undefined);
      expect(columns[1]?.allocator).toBe(partner);
      const rows = compareOps(traces(columns, lesson.config.source));
      const grows = rows.filter((r) => r.kind === "realloc").slice(0, 2);
      expect(grows).toHaveLength(2);
      for (const r of grows) expect(r.columns.map((c) => c?.placement.moved), `${partner}: ${r.name}`).toEqual([false, true]);
    }
  });

  it("gives a setting the partner cannot take its default, and the label says so", () => {
    // zig-fixed-buffer's capacity is its buffer's size; zig-arena's, what a reset keeps.
    expect(capacityCarries("zig-fixed-buffer", "zig-arena", allocators)).toBe(false);
    expect(capacityCarries("hinckley-up", "fitzgen-down", allocators)).toBe(true);
    const zig = startingColumns(cfg("zig-fixed-buffer", { capacity: 64, target: "wasm32" }), allocators);
    expect(zig[1]).toEqual(cfg("zig-arena", { target: "wasm32" }));
    expect(columnLabels(zig, allocators)).toEqual([
      "zig-fixed-buffer · capacity 64",
      "zig-arena · default capacity: column 1's 64 is its buffer size, here capacity is the reset's retain limit",
    ]);
    // A minimum alignment the partner does not offer.
    const wide = cfg("up-min-align", { minAlign: 32 });
    const narrow = carrySettings(wide, "bumpalo", allocators);
    expect(narrow).toEqual(cfg("bumpalo"));
    expect(columnLabels([wide, narrow], allocators)).toEqual([
      "up-min-align · MIN_ALIGN 32",
      "bumpalo · MIN_ALIGN 1, its default: column 1's 32 is not offered here",
    ]);
    const none = carrySettings(cfg("bumpalo", { minAlign: 16 }), "blink-alloc", allocators);
    expect(none.minAlign).toBeNull();
    // A preset without the setting is no difference to note.
    expect(carryNotes(cfg("bumpalo", { minAlign: 16 }), none, allocators)).toEqual([]);
    // What carried, or what a column chose for itself, needs no note.
    expect(carryNotes(wide, cfg("down-min-align", { minAlign: 32 }), allocators)).toEqual([]);
    expect(carryNotes(cfg("zig-arena", { capacity: 64 }), cfg("zig-fixed-buffer", { capacity: 128 }), allocators)).toEqual([]);
  });

  it("falls back, for an allocator the table does not know, to one bumping the other way", () => {
    const list: AllocatorInfo[] = [
      fakeAllocator("new-up"),
      fakeAllocator("other-up"),
      fakeAllocator("some-down", { direction: "down", source: "bump-down" }),
    ];
    expect(counterpartOf("new-up", list)).toBe("some-down");
    expect(counterpartOf("some-down", list)).toBe("new-up");
    expect(counterpartOf("new-up", list.slice(0, 2))).toBe("other-up");
  });

  it("names in the stepper the op every column ran, never one column's result", () => {
    const [up] = traces(UP_VS_DOWN, UP_DOWN_PROGRAM);
    const lines = UP_DOWN_PROGRAM.split("\n");
    expect(compareStepText(up!, 0, lines)).toBe("Before the first op: each column shows its own allocator's start.");
    expect(compareStepText(up!, 2, lines)).toBe("Line 2, b = alloc u64: each column shows what its own allocator did.");
    for (let s = 0; s <= up!.length; s++) expect(compareStepText(up!, s, lines)).not.toMatch(/0x|hinckley|fitzgen/);
  });
});
