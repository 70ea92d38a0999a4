import { describe, expect, it } from "vitest";
import { INSTRUCTIONS_MAX_OPS, instructionsSource, overInstructionsCap, parseListing, type ExecutedColumn, type Listing } from "../wasm/listing";
import { branchOutcome, compactSource, executedBranches, executedListing, isSlowPath, lacking, operatorOf, shortName, summaryText } from "./instructions";

// A listing in listing.json's shape: a root that calls an alloc whose
// fast path bumps down and, when the chunk is full, calls its slow path.
const LISTING_JSON = {
  format: 1,
  files: ["crates/core/src/algorithms/fitzgen.rs", "bumpalo-3.20.4/src/lib.rs"],
  functions: {
    "7": {
      name: "bumplab_cost::measure::bumplab_measure_alloc",
      ops: [
        [100, "local.get 0", 1, 0, -1, 0],
        [102, "call $alloc", 1, 0, -1, 0],
        [104, "end", 0, 0, -1, 0],
      ],
    },
    "12": {
      name: "bumplab_core::algorithms::fitzgen::Fitzgen::alloc",
      ops: [
        [200, "block", 0, 0, 0, 40],
        [202, "local.get 1", 1, 0, 0, 41],
        [204, "local.get 2", 1, 0, 0, 41],
        [206, "i32.sub", 1, 0, 0, 41],
        [207, "i32.const -8", 1, 0, 0, 42],
        [209, "i32.and", 1, 0, 0, 42],
        [210, "local.tee 3", 1, 0, 0, 42],
        [212, "local.get 4", 1, 0, 0, 43],
        [214, "i32.lt_u", 1, 0, 0, 43],
        [215, "br_if 0 (;@1;)", 1, 1, 0, 43],
        [217, "local.get 3", 1, 0, 0, 44],
        [219, "return", 1, 0, 0, 44],
        [220, "end", 0, 0, 0, 45],
        [221, "call $alloc_slow", 1, 0, 0, 46],
        [223, "end", 0, 0, 0, 47],
      ],
    },
    "13": {
      name: "bumplab_core::algorithms::fitzgen::Fitzgen::alloc_slow",
      ops: [
        [300, "local.get 0", 1, 0, 0, 60],
        [302, "i32.eqz", 1, 0, 0, 60],
        [303, "if", 1, 1, 0, 60],
        [304, "unreachable", 1, 0, 0, 61],
        [305, "end", 0, 0, 0, 61],
        [306, "i32.const 0", 1, 0, 1, 900],
        [308, "end", 0, 0, 0, 62],
      ],
    },
  },
};

function listing(): Listing {
  const l = parseListing(LISTING_JSON);
  if ("error" in l) throw new Error(l.error);
  return l;
}

// The fast path: the root's 2, then alloc's 11 up to its return (the branch not taken).
const FAST: ExecutedColumn = {
  column: "model",
  cost: [13, 1, 0, 0],
  executed: [
    [7, 0, 0, -1],
    [7, 1, 0, -1],
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => [12, i, 1, -1] as const),
    [12, 9, 1, 0],
    [12, 10, 1, -1],
    [12, 11, 1, -1],
  ],
  truncated: false,
};

// A full chunk: the branch jumps out of the block to the slow path's call.
const SLOW: ExecutedColumn = {
  column: "model",
  cost: [17, 2, 4, 1],
  executed: [
    [7, 0, 0, -1],
    [7, 1, 0, -1],
    ...[1, 2, 3, 4, 5, 6, 7, 8].map((i) => [12, i, 1, -1] as const),
    [12, 9, 1, 1],
    [12, 13, 1, -1],
    [13, 0, 2, -1],
    [13, 1, 2, -1],
    [13, 2, 2, 1],
    [13, 5, 2, -1],
    [12, 11, 1, -1],
  ],
  truncated: false,
};

describe("parseListing", () => {
  it("reads listing.json's functions, operators and files", () => {
    const l = listing();
    expect(l.files).toEqual(["crates/core/src/algorithms/fitzgen.rs", "bumpalo-3.20.4/src/lib.rs"]);
    expect([...l.functions.keys()]).toEqual([7, 12, 13]);
    expect(l.functions.get(12)?.ops[9]).toEqual({ offset: 215, text: "br_if 0 (;@1;)", cost: 1, branch: true, file: 0, line: 43 });
  });

  it("says why a listing of another format or shape is not read", () => {
    expect(parseListing({ ...LISTING_JSON, format: 2 })).toEqual({ error: "the listing has format 2, and this page reads format 1" });
    expect(parseListing([])).toEqual({ error: "the listing is not a JSON object" });
    expect(parseListing({ format: 1, files: [], functions: { x: { name: "f", ops: [] } } })).toEqual({ error: "the listing's function x is malformed" });
  });
});

describe("executedListing", () => {
  it("counts what the executed list holds, which is the op's cost", () => {
    const x = executedListing(listing(), FAST);
    expect(x.instructions).toBe(13);
    expect(x.branches).toBe(1);
    expect([x.instructions, x.branches]).toEqual([FAST.cost[0], FAST.cost[1]]);
    expect(summaryText(x)).toBe("13 instructions, 1 conditional branch executed");
    const s = executedListing(listing(), SLOW);
    expect(summaryText(s)).toBe("17 instructions, 2 conditional branches executed");
    expect([s.slowInstructions, s.slowBranches]).toEqual([4, 1]);
  });

  it("lists the functions in the order first entered, with their call depth and slow-path mark", () => {
    const s = executedListing(listing(), SLOW);
    expect(s.functions.map((f) => [shortName(f.name), f.depth, f.entries, f.slow])).toEqual([
      ["measure::bumplab_measure_alloc", 0, 1, false],
      ["Fitzgen::alloc", 1, 1, false],
      ["Fitzgen::alloc_slow", 2, 1, true],
    ]);
    // Every operator of a function that ran is listed, the unexecuted ones too.
    expect(s.functions[1]?.rows.length).toBe(15);
    expect(s.functions[1]?.rows.filter((r) => r.runs > 0).length).toBe(11);
  });

  it("marks each branch taken or not taken, and each call with its callee", () => {
    const fast = executedListing(listing(), FAST);
    const slow = executedListing(listing(), SLOW);
    const brIf = (x: typeof fast) => x.functions[1]?.rows[9];
    expect(branchOutcome(brIf(fast)!)).toBe("not taken");
    expect(branchOutcome(brIf(slow)!)).toBe("taken");
    expect(slow.functions[2]?.rows[2] && branchOutcome(slow.functions[2].rows[2])).toBe("taken");
    expect(slow.functions[0]?.rows[1]?.callees).toEqual(["bumplab_core::algorithms::fitzgen::Fitzgen::alloc"]);
    expect(slow.functions[1]?.rows[13]?.callees).toEqual(["bumplab_core::algorithms::fitzgen::Fitzgen::alloc_slow"]);
    expect(fast.functions[1]?.rows[13]?.runs).toBe(0);
    expect(executedBranches(listing(), SLOW).map((b) => [b.text, b.taken])).toEqual([
      ["br_if 0 (;@1;)", 1],
      ["if", 1],
    ]);
  });

  it("gives each operator its Rust file and line", () => {
    const s = executedListing(listing(), SLOW);
    const r = s.functions[1]?.rows[5];
    expect([r?.file, r?.line, compactSource(r?.file ?? null, r?.line ?? 0)]).toEqual(["crates/core/src/algorithms/fitzgen.rs", 42, "fitzgen.rs:42"]);
    expect(compactSource(s.functions[2]?.rows[5]?.file ?? null, 900)).toBe("lib.rs:900");
    expect(compactSource(null, 0)).toBe("");
  });

  it("counts what a slow function calls as slow path too, as the meter does", () => {
    // alloc_slow (depth 1 here) calls alloc (depth 2): both on the slow path; the root is not.
    const nested: ExecutedColumn = {
      column: "model",
      cost: [5, 0, 3, 0],
      executed: [[7, 0, 0, -1], [13, 0, 1, -1], [12, 1, 2, -1], [12, 2, 2, -1], [7, 1, 0, -1]],
      truncated: false,
    };
    const x = executedListing(listing(), nested);
    expect([x.slowInstructions, x.slowBranches]).toEqual([3, 0]);
    expect(x.functions.map((f) => [shortName(f.name), f.slow])).toEqual([
      ["measure::bumplab_measure_alloc", false],
      ["Fitzgen::alloc_slow", true],
      ["Fitzgen::alloc", true],
    ]);
  });

  it("counts a loop's repeats and a branch that went both ways", () => {
    const loop: ExecutedColumn = { column: "model", cost: [3, 3, 0, 0], executed: [[12, 9, 0, 0], [12, 9, 0, 1], [12, 9, 0, 0]], truncated: false };
    const x = executedListing(listing(), loop);
    const r = x.functions[0]?.rows[9];
    expect(r?.runs).toBe(3);
    expect(r && branchOutcome(r)).toBe("taken 1×, not taken 2×");
  });

  it("counts entries the listing lacks instead of dropping them silently", () => {
    const stale: ExecutedColumn = { column: "model", cost: [2, 0, 0, 0], executed: [[7, 0, 0, -1], [99, 0, 1, -1]], truncated: false };
    expect(executedListing(listing(), stale).unknown).toBe(1);
  });
});

describe("names", () => {
  it("shortens a demangled name to its type and method, and knows the slow path", () => {
    expect(shortName("bumpalo::Bump::alloc_layout_slow")).toBe("Bump::alloc_layout_slow");
    expect(shortName("<bumpalo::Bump as core::alloc::Allocator>::allocate")).toBe("allocate");
    expect(isSlowPath("bumpalo::Bump::try_alloc_layout_slow")).toBe(true);
    expect(isSlowPath("bumplab_core::models::bump_scope::alloc_in_another_chunk")).toBe(true);
    expect(isSlowPath("bumplab_core::algorithms::fitzgen::Fitzgen::alloc")).toBe(false);
  });
});

describe("overInstructionsCap", () => {
  it("lists programs up to the cap and says why a longer one is not", () => {
    expect(overInstructionsCap(INSTRUCTIONS_MAX_OPS)).toBeUndefined();
    expect(overInstructionsCap(12_345)).toBe("The Instructions view replays the program for each op it shows, so it lists programs of up to 5,000 ops, and this one runs 12,345.");
  });
});

describe("instructionsSource", () => {
  const config = { source: "a = alloc 1", allocator: "fitzgen-down", target: "wasm32" as const, capacity: null, minAlign: null };

  it("says it is loading until the listing and the op's instructions arrive, fetching the listing once", async () => {
    let listingLoads = 0;
    let renders = 0;
    const src = instructionsSource({
      loadListing: () => {
        listingLoads++;
        return Promise.resolve(listing());
      },
      executedOps: (_c, op) => Promise.resolve({ op, columns: [FAST] }),
      onLoaded: () => renders++,
    });
    expect(src.lookup(config, 0).state).toBe("loading");
    await new Promise((r) => setTimeout(r, 0));
    expect(renders).toBe(2);
    const ready = src.lookup(config, 0);
    expect(ready.state).toBe("ready");
    src.lookup(config, 1);
    expect(listingLoads).toBe(1);
  });

  it("measures only the op the view settles on, not each op playback passes", async () => {
    const measured: number[] = [];
    const src = instructionsSource({
      loadListing: () => Promise.resolve(listing()),
      executedOps: (_c, op) => {
        measured.push(op);
        return Promise.resolve({ op, columns: [FAST] });
      },
      onLoaded: () => undefined,
      settleMs: 30,
    });
    for (const op of [0, 1, 2]) src.lookup(config, op);
    expect(measured).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(measured).toEqual([2]);
    expect(src.lookup(config, 2).state).toBe("ready");
    expect(src.lookup(config, 0).state).toBe("loading");
  });

  it("fetches of a split listing only the functions the op executed, once each", async () => {
    const whole = listing();
    const fetched: number[] = [];
    const src = instructionsSource({
      loadListing: () => Promise.resolve({ files: whole.files, functions: new Map() }),
      loadFunction: (fn) => {
        fetched.push(fn);
        const f = whole.functions.get(fn);
        return Promise.resolve(f ?? { error: `no function ${fn}` });
      },
      executedOps: (_c, op) => Promise.resolve({ op, columns: [FAST] }),
      onLoaded: () => undefined,
    });
    src.lookup(config, 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(src.lookup(config, 0)).toEqual({ state: "loading", what: "Loading the compiled code of 2 functions…" });
    await new Promise((r) => setTimeout(r, 0));
    const ready = src.lookup(config, 0);
    expect(ready.state).toBe("ready");
    // The fast path never enters alloc_slow (13): not fetched.
    expect(fetched.sort((a, b) => a - b)).toEqual([7, 12]);
    src.lookup(config, 1);
    await new Promise((r) => setTimeout(r, 0));
    expect(src.lookup(config, 1).state).toBe("ready");
    expect(fetched).toHaveLength(2);
  });

  it("reports a function that did not load, and fetches it again on retry", async () => {
    let fails = true;
    const src = instructionsSource({
      loadListing: () => Promise.resolve({ files: listing().files, functions: new Map() }),
      loadFunction: (fn) => (fails ? Promise.reject(new Error("503")) : Promise.resolve(listing().functions.get(fn) ?? { error: "none" })),
      executedOps: (_c, op) => Promise.resolve({ op, columns: [FAST] }),
      onLoaded: () => undefined,
    });
    src.lookup(config, 0);
    await new Promise((r) => setTimeout(r, 0));
    src.lookup(config, 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(src.lookup(config, 0)).toEqual({ state: "failed", message: "The compiled code's listing is not available: function 7 did not load (503).", retry: true });
    fails = false;
    src.retry();
    src.lookup(config, 0);
    await new Promise((r) => setTimeout(r, 0));
    expect(src.lookup(config, 0).state).toBe("ready");
  });

  it("reports a failed listing with its reason, keeps it until retry, then fetches again", async () => {
    let listingLoads = 0;
    const src = instructionsSource({
      loadListing: () => {
        listingLoads++;
        return Promise.reject(new Error("404"));
      },
      executedOps: (_c, op) => Promise.resolve({ op, columns: [FAST] }),
      onLoaded: () => undefined,
    });
    src.lookup(config, 0);
    await new Promise((r) => setTimeout(r, 0));
    const failed = src.lookup(config, 0);
    expect(failed).toEqual({ state: "failed", message: "The compiled code's listing is not available: the listing did not load (404).", retry: true });
    src.lookup(config, 0);
    expect(listingLoads).toBe(1);
    src.retry();
    expect(src.lookup(config, 0).state).toBe("loading");
    expect(listingLoads).toBe(2);
  });
});

describe("the Instructions view setting", () => {
  it("is off at first, stays on as the step moves, and is not in a share link", async () => {
    const { initialState, reducer } = await import("../state/reducer");
    const { sharedOf } = await import("../state/shareSync");
    let s = initialState();
    expect(s.instructions).toBe(false);
    s = reducer(s, { type: "showInstructions", shown: true });
    expect(s.instructions).toBe(true);
    expect(reducer(s, { type: "showInstructions", shown: true })).toBe(s);
    s = reducer(s, { type: "forward" });
    s = reducer(s, { type: "seek", step: 3 });
    expect(s.instructions).toBe(true);
    expect(JSON.stringify(sharedOf(s))).not.toContain("instructions");
    expect(reducer(s, { type: "showInstructions", shown: false }).instructions).toBe(false);
  });

  it("lists the model's wasm until another column is chosen, which stays as the step moves", async () => {
    const { initialState, reducer } = await import("../state/reducer");
    let s = initialState();
    expect(s.instructionsColumn).toBe("model");
    s = reducer(s, { type: "selectInstructionsColumn", column: "real" });
    expect(reducer(s, { type: "back" }).instructionsColumn).toBe("real");
    expect(reducer(s, { type: "selectInstructionsColumn", column: "real" })).toBe(s);
  });
});

describe("lacking", () => {
  it("marks the operators one run has that the other lacks, the rest lined up in order", () => {
    // Bumping down: sub, and (mask), compare; bumping up adds an add and a second compare.
    const down = ["local.get", "i32.sub", "i32.and", "i32.lt_u", "br_if"];
    const up = ["local.get", "i32.add", "i32.and", "i32.lt_u", "br_if", "i32.add", "i32.gt_u", "br_if"];
    expect(lacking(up, down)).toEqual([false, true, false, false, false, true, true, true]);
    expect(lacking(down, up)).toEqual([false, true, false, false, false]);
    expect(lacking(down, down)).toEqual([false, false, false, false, false]);
    expect(lacking([], up)).toEqual([]);
    expect(lacking(down, [])).toEqual([true, true, true, true, true]);
  });

  it("reads an operator without its immediates", () => {
    expect(operatorOf("local.get 3")).toBe("local.get");
    expect(operatorOf("  br_if 0 (;@1;)")).toBe("br_if");
  });
});
