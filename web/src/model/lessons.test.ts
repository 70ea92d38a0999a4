import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import type { Op, Trace } from "../wasm/types";
import { jsonTrace, viewOf } from "../test/runs";
import { chunkViewsAt } from "./chunks";
import { baselineCost, realCost } from "./costs";
import { departureFrom, LESSONS, lessonById, settingsText, triedConfig, type Lesson } from "./lessons";
import { narrationErrors, parseNarration, tryProblem } from "./narration";
import { predictionAt } from "./predict";

/** The lesson's run with its costs (the cost module's JSON trace: op by op, costs included). */
function traceLesson(lesson: Lesson, allocator = lesson.config.allocator, target = lesson.config.target): Trace {
  const c = lesson.config;
  // Another preset may not take the lesson's minimum alignment: it keeps its own default.
  return jsonTrace({ ...c, allocator, target, minAlign: allocator === c.allocator ? c.minAlign : null });
}

/** A lesson's cost claims hold on both targets: the page offers either. */
const TARGETS = ["wasm32", "64"] as const;

function lesson(id: string): Lesson {
  const l = lessonById(id);
  if (!l) throw new Error(`no lesson ${id}`);
  return l;
}

/** The ops a statement ran, in order (several for one inside a repeat). */
function opsAt(trace: Trace, block: string): Op[] {
  return trace.ops.filter((o) => o.block === block);
}

function only(trace: Trace, block: string, nth = 0): Op {
  const op = opsAt(trace, block)[nth];
  if (!op) throw new Error(`no op #${nth} for ${block}`);
  return op;
}

/** The narration at the statement of `block`'s op. */
function narrationOf(l: Lesson, trace: Trace, block: string): string {
  return parseNarration(l.config.source).get(only(trace, block).line)?.text ?? "";
}

/** Where a placing op put its block. */
function addr(op: Op): number {
  if (op.address === undefined) throw new Error(`op ${op.index} placed nothing`);
  return op.address;
}

const instructions = (op: Op): number => op.cost?.wasm_instructions ?? NaN;
const branches = (op: Op): number => op.cost?.wasm_branches ?? NaN;

describe("every lesson", () => {
  it("has a unique id and an allocator the engine offers", () => {
    const names = new Set(loadTraceModuleSync().allocators().map((a) => a.name));
    expect(new Set(LESSONS.map((l) => l.id)).size).toBe(LESSONS.length);
    for (const l of LESSONS) expect(names.has(l.config.allocator), l.id).toBe(true);
    expect(LESSONS.map((l) => l.config.allocator)).toEqual(["fitzgen-down", "bump-scope-up", "up-min-align", "bumper-slab", "cpp-arena", "bumpalo"]);
  });

  for (const l of LESSONS) {
    describe(l.id, () => {
      const trace = traceLesson(l);
      const narrations = parseNarration(l.config.source);
      const opLines = new Set(trace.ops.map((o) => o.line));

      it("traces with the real engine: 5 to 15 ops, none failed", () => {
        expect(trace.ops.length).toBeGreaterThanOrEqual(5);
        expect(trace.ops.length).toBeLessThanOrEqual(15);
        expect(trace.ops.filter((o) => o.failed)).toEqual([]);
      });

      it("attaches every narration to a line that ran an op, narrating most steps", () => {
        for (const line of narrations.keys()) expect(opLines.has(line), `line ${line}`).toBe(true);
        const narrated = trace.ops.filter((o) => narrations.has(o.line)).length;
        expect(narrated / trace.ops.length).toBeGreaterThan(0.5);
      });

      it("asks one or two questions, each about an op that places a block", () => {
        const asked = trace.ops.filter((o) => narrations.get(o.line)?.predict === true);
        expect(asked.length).toBeGreaterThanOrEqual(1);
        const statements = new Set(asked.map((o) => o.line));
        expect(statements.size).toBeLessThanOrEqual(3);
        for (const op of asked) expect(predictionAt(viewOf(trace), op.index), `op ${op.index}`).not.toBeNull();
      });

      it("names only addresses the trace has (a block, a bump pointer, a chunk start)", () => {
        const known = new Set<number>();
        for (const o of trace.ops) {
          if (o.address !== undefined) known.add(o.address);
          if (o.bump_ptr !== undefined) known.add(o.bump_ptr);
        }
        for (const c of trace.chunks) known.add(c.start);
        for (const [line, n] of narrations) {
          for (const m of n.text.matchAll(/0x[0-9a-f]+/g)) expect(known.has(Number(m[0])), `line ${line}: ${m[0]}`).toBe(true);
        }
      });

      it("highlights only blocks the program names", () => {
        const blocks = new Set(trace.ops.map((o) => o.block));
        for (const n of narrations.values()) for (const name of n.highlight) expect(blocks.has(name), name).toBe(true);
      });

      it("has no directive the narration cannot read", () => {
        expect(narrationErrors(l.config.source)).toEqual([]);
      });

      it("offers only Try-it actions its run can take: allocators the engine has, ops the program runs", () => {
        const known = { allocators: new Set(loadTraceModuleSync().allocators().map((a) => a.name)), ops: trace.ops.length };
        for (const n of narrations.values()) {
          for (const t of n.tries) {
            expect(tryProblem(t, known), `line ${t.line}`).toBeNull();
            // The detour itself runs the lesson's program without a failed op.
            if (t.kind === "allocator") expect(traceLesson(l, t.allocator).ops.filter((o) => o.failed), t.allocator).toEqual([]);
          }
        }
      });

      it("is the run its own narration was written for, and each of its Try-it allocators an intended detour", () => {
        expect(departureFrom(l, l.config)).toBeNull();
        for (const n of narrations.values()) {
          for (const t of n.tries) {
            if (t.kind !== "allocator") continue;
            expect(departureFrom(l, triedConfig(l.config, t.allocator)), t.allocator).toMatchObject({ intended: true, changed: [`the allocator to ${t.allocator}`] });
          }
        }
      });
    });
  }
});

describe("what each lesson asks the reader to try", () => {
  const tries = (l: Lesson): string[] =>
    [...parseNarration(l.config.source).values()].flatMap((n) =>
      n.tries.map((t) => `${t.label}: ${t.kind} ${t.kind === "allocator" ? t.allocator : t.kind === "compare" ? t.allocators.join(" ") : t.step}`),
    );

  it("offers a Try-it action where its narration says to switch, compare or go back", () => {
    expect(Object.fromEntries(LESSONS.map((l) => [l.id, tries(l)]))).toEqual({
      "bump-down": [
        "switch to hinckley-up-naive: allocator hinckley-up-naive",
        "switch to hinckley-up: allocator hinckley-up",
        "compare all three: compare hinckley-up-naive hinckley-up",
      ],
      "realloc-fast-path": ["switch to bumpalo: allocator bumpalo", "compare with the article's algorithms: compare hinckley-up fitzgen-down"],
      "min-align": ["compare with hinckley-up: compare hinckley-up", "switch to down-min-align: allocator down-min-align"],
      "slab-boundary": [],
      "parser-arena": ["back to the exact fit: step 5"],
      "bump-vs-malloc": [],
    });
  });

  it("parser-arena: op 5 is the exact fit", () => {
    const t = traceLesson(lesson("parser-arena"));
    expect(t.ops[4]?.block).toBe("exact");
  });

  it("names the run a lesson was written for", () => {
    expect(settingsText(lesson("bump-down").config)).toBe("fitzgen-down, wasm32, capacity 256");
    expect(settingsText(lesson("min-align").config)).toBe("up-min-align, wasm32, capacity 256, minimum alignment 8");
    expect(settingsText(lesson("bump-vs-malloc").config)).toBe("bumpalo, wasm32");
  });

  it("tells a detour the lesson asked for from a change of the learner's own", () => {
    const l = lesson("bump-down");
    expect(departureFrom(l, { ...l.config, allocator: "hinckley-up-naive" })).toEqual({
      intended: true,
      changed: ["the allocator to hinckley-up-naive"],
      now: { allocator: "hinckley-up-naive", target: "wasm32", capacity: 256, minAlign: null },
    });
    expect(departureFrom(l, { ...l.config, allocator: "bumpalo" })).toMatchObject({ intended: false, changed: ["the allocator to bumpalo"] });
    // The suggested allocator, but on another target, is no longer what the lesson asked for.
    expect(departureFrom(l, { ...l.config, allocator: "hinckley-up", target: "64" })).toMatchObject({
      intended: false,
      changed: ["the allocator to hinckley-up", "the target to 64-bit"],
    });
    expect(departureFrom(l, { ...l.config, capacity: null })?.changed).toEqual(["the capacity to the preset's default"]);
    // An edited program brings its own narration: only the settings are the lesson's to keep.
    expect(departureFrom(l, { ...l.config, source: `${l.config.source}\nf = alloc 1` })).toBeNull();
    const m = lesson("min-align");
    // Another allocator resets the minimum alignment by itself: that is not a change of its own.
    expect(departureFrom(m, triedConfig(m.config, "down-min-align"))).toMatchObject({ intended: true, changed: ["the allocator to down-min-align"] });
    expect(departureFrom(m, { ...m.config, minAlign: 16 })?.changed).toEqual(["the minimum alignment to 16"]);
  });
});

describe("the claims each lesson makes", () => {
  it("bump-down: addresses, padding, a flat cost, and the comparison with bumping up", () => {
    const l = lesson("bump-down");
    const down = traceLesson(l);
    expect(only(down, "a").address).toBe(0x1010f);
    expect(down.chunks[0]?.start).toBe(0x10010);
    expect((down.chunks[0]?.start ?? 0) + (down.chunks[0]?.capacity ?? 0) - 1).toBe(0x1010f);
    expect(only(down, "b")).toMatchObject({ address: 0x10100, padding: 7 });
    expect(only(down, "c")).toMatchObject({ address: 0x100f0, padding: 0 });
    expect(addr(only(down, "d")) + 13).toBe(only(down, "c").address);
    expect(narrationOf(l, down, "b")).toContain("0x10100");

    const words = narrationOf(l, down, "e");
    const cost = (t: Trace, block: string): [number, number] => [instructions(only(t, block)), branches(only(t, block))];
    for (const target of TARGETS) {
      const d = traceLesson(l, "fitzgen-down", target);
      const naive = traceLesson(l, "hinckley-up-naive", target);
      const up = traceLesson(l, "hinckley-up", target);
      // "`b` and `c` executed the same 20 wasm instructions and 2 branches";
      // "`a` and `d` ran fewer, 17 and 18".
      expect(words).toContain("the *same* 20 wasm instructions and 2 branches");
      expect([cost(d, "b"), cost(d, "c"), cost(d, "e")], target).toEqual([[20, 2], [20, 2], [20, 2]]);
      expect(words).toContain("`a` and `d` ran fewer instructions, 17 and 18: their alignment is 1");
      expect([instructions(only(d, "a")), instructions(only(d, "d"))], target).toEqual([17, 18]);
      expect([only(d, "a").align, only(d, "d").align], target).toEqual([1, 1]);
      for (const o of d.ops) expect(branches(o), `${target} op ${o.index}`).toBe(2);
      // "`b` and `c` each cost 27 instructions *and* 3 branches" on the first bump up.
      expect(words).toContain("27 instructions *and* 3 branches");
      expect([cost(naive, "b"), cost(naive, "c")], target).toEqual([[27, 3], [27, 3]]);
      // "runs *fewer* branches than bumping down, 1, yet still more instructions for `b` and `c`, 25".
      expect(words).toContain("*fewer* branches than bumping down, 1, yet still more instructions for `b` and `c`, 25");
      for (const o of up.ops) expect(branches(o), `${target} op ${o.index}`).toBe(1);
      expect([cost(up, "b"), cost(up, "c")], target).toEqual([[25, 1], [25, 1]]);
      // "`a`, a lone `u8`, takes 13 instructions on either bump up, fewer than 17 bumping down."
      expect(words).toContain("takes 13 instructions on either bump up, fewer than 17 bumping down");
      expect([instructions(only(naive, "a")), instructions(only(up, "a")), instructions(only(d, "a"))], target).toEqual([13, 13, 17]);
      // Every request here has its layout at compile time (a type or a slice of one).
      expect(d.ops.map((o) => o.shape?.kind), target).toEqual(["typed", "typed", "typed", "array", "typed"]);
    }
  });

  it("realloc-fast-path: in place while last, a copy after t; bumpalo copies on every growth", () => {
    const l = lesson("realloc-fast-path");
    const up = traceLesson(l);
    const [s0, s1, s2, s3] = opsAt(up, "s");
    expect(s0?.address).toBe(0x10020);
    expect(up.chunks[0]?.start).toBe(0x10020);
    expect([s1, s2].map((o) => [o?.address, o?.moved, o?.size])).toEqual([
      [0x10020, false, 16],
      [0x10020, false, 32],
    ]);
    expect(s2?.stats.copied).toBe(0);
    expect(only(up, "t").address).toBe(0x10040);
    expect(s3?.moved).toBe(true);
    expect(s3?.address).toBe(0x10048);
    expect(s3?.events.find((e) => e.kind === "copied")?.text).toBe("32 bytes copied");
    expect(s3?.events.some((e) => e.kind === "leaked")).toBe(true);

    const down = traceLesson(l, "bumpalo");
    const grows = opsAt(down, "s").slice(1, 3);
    expect(grows.map((o) => [o.moved, o.events.find((e) => e.kind === "copied")?.text])).toEqual([
      [true, "8 bytes copied"],
      [true, "16 bytes copied"],
    ]);
    // Over its own old bytes: nothing left behind.
    for (const o of grows) expect(o.events.some((e) => e.kind === "leaked")).toBe(false);

    // The article's algorithms, as the closing words say: bump up grows s in
    // place twice, bump down moves it over its old bytes, copying 8 then 16.
    const hinckley = opsAt(traceLesson(l, "hinckley-up"), "s").slice(1, 3);
    expect(hinckley.map((o) => [o.moved, o.stats.copied])).toEqual([
      [false, 0],
      [false, 0],
    ]);
    const fitzgen = opsAt(traceLesson(l, "fitzgen-down"), "s").slice(1, 3);
    expect(fitzgen.map((o) => [o.moved, o.events.find((e) => e.kind === "copied")?.text])).toEqual([
      [true, "8 bytes copied"],
      [true, "16 bytes copied"],
    ]);
    for (const o of fitzgen) expect(o.events.some((e) => e.kind === "leaked")).toBe(false);
  });

  it("min-align: an always-aligned pointer, no alignment step up to 8, 8 bytes used per byte", () => {
    const l = lesson("min-align");
    const t = traceLesson(l);
    for (const o of t.ops) expect((o.bump_ptr ?? 1) % 8, `op ${o.index}`).toBe(0);
    const stepIds = (o: Op): string[] => o.events.flatMap((e) => (e.steps ?? []).map((s) => s.id));
    for (const o of t.ops) expect(stepIds(o).includes("align_offset"), `op ${o.index}`).toBe((o.align ?? 1) > 8);
    expect(stepIds(only(t, "e"))).toContain("align_offset");
    // "the end rounded to 8 (by 0 bytes)".
    const a = only(t, "a").events.flatMap((e) => e.steps ?? []);
    expect(a.find((s) => s.id === "end_offset")?.values.find((v) => v.name === "end_offset")?.value).toBe(0);
    expect(only(t, "b").address).toBe(0x10018);
    expect([only(t, "c").address, only(t, "c").bump_ptr]).toEqual([0x10020, 0x10028]);
    expect(only(t, "d").address).toBe(0x10028);
    // "the 5 bytes after c were set aside when c was rounded", and "hinckley-up puts d at 0x10028 too, padding it by 5".
    expect((only(t, "c").bump_ptr ?? 0) - addr(only(t, "c")) - (only(t, "c").size ?? 0)).toBe(5);
    const hinckley = traceLesson(l, "hinckley-up");
    expect([only(hinckley, "d").address, only(hinckley, "d").padding]).toEqual([0x10028, 5]);
    const fs = opsAt(t, "f");
    expect(fs).toHaveLength(3);
    for (const f of fs) {
      const before = t.ops[f.index - 1] as Op;
      expect(f.stats.used - before.stats.used).toBe(8);
      expect(f.stats.requested - before.stats.requested).toBe(1);
    }
    const down = traceLesson(l, "down-min-align");
    for (const o of down.ops) expect((o.bump_ptr ?? 1) % 8, `down op ${o.index}`).toBe(0);
    const c = only(down, "c");
    expect((down.ops[c.index - 1]?.bump_ptr ?? 0) - (c.bump_ptr ?? 0)).toBe(8);
  });

  it("min-align: each cost it states, on both targets, against hinckley-up where it says so", () => {
    const l = lesson("min-align");
    const said = (block: string): string => narrationOf(l, traceLesson(l), block).replaceAll("\n#> ", " ");
    expect(said("a")).toContain("the **Cost** panel shows 15 wasm instructions, where `hinckley-up` runs 25 for the same `u64`");
    expect(said("c")).toContain("21 instructions, more than a `u64`'s 15");
    expect(said("e")).toContain("A `u128` asks for 16, *above* MIN_ALIGN: only now does the code compute an alignment offset, 25 instructions against a `u64`'s 15");
    expect(only(traceLesson(l), "e").align).toBe(16);
    expect(said("g")).toContain("38 instructions, more than the 27 `hinckley-up` runs for the same request");
    for (const target of TARGETS) {
      const t = traceLesson(l, "up-min-align", target);
      const up = traceLesson(l, "hinckley-up", target);
      const n = (trace: Trace, block: string): number => instructions(only(trace, block));
      expect([n(t, "a"), n(up, "a")], target).toEqual([15, 25]);
      expect([n(t, "b"), n(t, "d")], target).toEqual([15, 15]);
      expect(n(t, "c"), target).toBe(21);
      expect(n(t, "e"), target).toBe(25);
      expect([n(t, "g"), n(up, "g")], target).toEqual([38, 27]);
      // The shapes the words name: a `u64`, a slice of `u8`, a `u128`, a run-time layout.
      expect(["a", "c", "e", "g"].map((b) => only(t, b).shape), target).toEqual([
        { kind: "typed", type: "u64" },
        { kind: "array", type: "u8" },
        { kind: "typed", type: "u128" },
        { kind: "layout" },
      ]);
      // One branch everywhere: the one check of the room left.
      for (const o of t.ops) expect(branches(o), `${target} op ${o.index}`).toBe(1);
    }
  });

  it("slab-boundary: 2 bytes left, and each iteration makes and frees a slab at the same address", () => {
    const l = lesson("slab-boundary");
    const t = traceLesson(l);
    expect(only(t, "b").stats.unused).toBe(2);
    const ys = opsAt(t, "y");
    expect(ys).toHaveLength(3);
    for (const y of ys) {
      const chunk = t.chunks.find((c) => c.id === y.chunk);
      expect(chunk?.created_by).toBe(y.index);
      expect(y.address).toBe(0x10120);
      expect(chunk?.start).toBe(0x10120);
      // Restored right after: the slab goes back to the base allocator.
      expect(chunk?.freed_by).toBe(y.index + 1);
      expect(t.ops[y.index + 1]?.kind).toBe("restore");
      expect(y.cost?.slow_instructions ?? 0).toBeGreaterThan(0);
      expect(t.ops[y.index + 1]?.cost?.slow_instructions ?? 0).toBeGreaterThan(0);
    }
    expect(chunkViewsAt(viewOf(t), t.ops.length).map((v) => v.chunk.id)).toEqual([0]);
  });

  it("parser-arena: the pool sizes, the exact fit and a free that runs no instruction", () => {
    const l = lesson("parser-arena");
    const t = traceLesson(l);
    expect(t.chunks.map((c) => [c.capacity, c.header])).toEqual([
      [64, 12],
      [128, 12],
      [512, 12],
    ]);
    const nodes = opsAt(t, "node");
    expect(nodes.map((n) => n.chunk)).toEqual([0, 0, 0, 0]);
    expect(nodes.map((n, i) => addr(n) - (t.chunks[0]?.start ?? 0) - 12 * i)).toEqual([0, 0, 0, 0]);
    const exact = only(t, "exact");
    expect((t.ops[exact.index - 1] as Op).stats.unused).toBe(16);
    expect(exact.size).toBe(16);
    expect(exact.chunk).toBe(1);
    expect(t.chunks[1]?.created_by).toBe(exact.index);
    expect(only(t, "call").chunk).toBe(1);
    expect(only(t, "big").chunk).toBe(2);
    expect(Math.max(128 * 2, Math.floor(300 / 128) * 2 * 128)).toBe(512);
    const free = t.ops[t.ops.length - 1] as Op;
    expect(free.kind).toBe("free");
    expect(instructions(free)).toBe(0);
  });

  it("bump-vs-malloc: slow path first, then bumpalo under the global allocator, on both targets", () => {
    const l = lesson("bump-vs-malloc");
    for (const target of TARGETS) {
      const t = traceLesson(l, l.config.allocator, target);
      const view = viewOf(t);
      expect(t.baseline?.allocator).toMatch(/global allocator/);
      // The real crate runs where the module does, on wasm32; a 64-bit trace
      // is compared on the model's own count, which the page shows there.
      const ranReal = t.real && "ops" in t.real;
      if (target === "wasm32") expect(ranReal ? t.real?.crate : undefined).toMatch(/^bumpalo\b/);
      const bump = (index: number): number => (ranReal ? realCost(view, index) : t.ops[index]?.cost)?.wasm_instructions ?? Infinity;
      const global = (index: number): number => baselineCost(view, index)?.wasm_instructions ?? 0;
      const a = only(t, "a");
      expect(a.cost?.slow_instructions ?? 0).toBeGreaterThan(0);
      expect(t.chunks[0]?.created_by).toBe(a.index);
      const b = only(t, "b");
      const c = only(t, "c");
      const d = only(t, "d");
      for (const op of [b, c, d]) {
        expect(op.cost?.slow_instructions, `${target} op ${op.index}`).toBe(0);
        // "The real bumpalo executes fewer wasm instructions here than the global allocator does."
        expect(bump(op.index), `${target} op ${op.index}`).toBeLessThan(global(op.index));
      }
      expect(addr(b) - addr(c)).toBe(40);
      // "A 16-aligned `u128`: rounding down costs bumpalo nothing extra, while
      // the global allocator does more work than for the `u64`s."
      expect(d.align).toBe(16);
      expect(bump(d.index), target).toBe(bump(b.index));
      expect(global(d.index), target).toBeGreaterThan(global(b.index));
      const frees = t.ops.filter((o) => o.kind === "free");
      expect(frees.map((o) => [o.block, (o.reclaimed ?? []).includes(o.target_op ?? -1)])).toEqual([
        ["c", true],
        ["a", false],
      ]);
      // "`reset` ... costs bumpalo fewer instructions than the global allocator spends."
      const reset = t.ops[t.ops.length - 1] as Op;
      expect(reset.kind).toBe("reset");
      expect(bump(reset.index), target).toBeLessThan(global(reset.index));
    }
  });
});

describe("no cost a lesson states goes unchecked", () => {
  // The numbers in each lesson's sentences about instructions, branches or
  // cost, in order, as the tests above check them against the lesson's
  // traces on both targets. A number added to such a sentence without a
  // check fails here. (Addresses are checked by "names only addresses the
  // trace has"; sizes in sentences about cost are listed too.)
  const checked: Record<string, readonly string[]> = {
    "bump-down": ["20", "2", "17", "18", "1", "27", "3", "1", "25", "1", "13", "17"],
    "realloc-fast-path": [],
    "min-align": ["15", "25", "21", "15", "16", "25", "15", "1", "8", "38", "27"],
    "slab-boundary": [],
    "parser-arena": [],
    "bump-vs-malloc": ["16"],
  };
  const costSentences = (l: Lesson): string[] =>
    [...parseNarration(l.config.source).values()]
      .flatMap((n) => n.text.split(/(?<=\.)\s+/))
      .filter((sentence) => /instruction|branch|\bcost/i.test(sentence));

  it("every number in a sentence about cost is one a test above checks", () => {
    const found = Object.fromEntries(
      LESSONS.map((l) => [
        l.id,
        costSentences(l).flatMap((sentence) =>
          // Hex addresses, type and target names (`u64`, wasm32) are not counts.
          sentence
            .replace(/0x[0-9a-f]+/gi, "")
            .replace(/\b[ui](8|16|32|64|128|size)\b|wasm32|64-bit/g, "")
            .match(/\d+/g) ?? [],
        ),
      ]),
    );
    expect(found).toEqual(checked);
  });
});

describe("recorded programs read like lessons", () => {
  it("each is found by its id, written for its arena on 64-bit, its narration and command as the summary", () => {
    const jq = lessonById("recorded:jq-package-lock");
    expect(jq?.title).toBe("Recorded: jq pretty-printing package-lock.json (C, malloc)");
    expect(jq && settingsText(jq.config)).toBe("bumpalo, 64-bit");
    expect(jq?.summary).toMatch(/^jq 1\.6 pretty-printing this repository's package-lock\.json/);
    expect(jq?.summary).toMatch(/ Recorded with: cargo run -p bumplab-record -- run --out web\/public\/examples\/recorded\/jq-package-lock\.txt -- jq \. package-lock\.json > \/dev\/null$/);
    // Its program is a file fetched when opened: the lesson carries none.
    expect(jq?.config.source).toBe("");
    expect(lessonById("recorded:nope")).toBeUndefined();
    expect(lessonById("jq-package-lock")).toBeUndefined();
    // Not in the lesson chooser: that lists the lessons proper.
    expect(LESSONS.some((l) => l.id.startsWith("recorded:"))).toBe(false);
  });
});
