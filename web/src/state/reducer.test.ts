import { describe, expect, it } from "vitest";
import type { TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import type { CompareConfig } from "../model/compare";
import { initialState, reducer, type Action, type AppState } from "./reducer";
import { createStore } from "./store";

function traceOf(source: string): TraceView {
  return traced(source, "fitzgen-down", { capacity: 256 });
}

const SIX = traceOf("a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc u128");
const TWO = traceOf("a = alloc 1\nb = alloc 2");

function run(state: AppState, ...actions: Action[]): AppState {
  return actions.reduce(reducer, state);
}

const loaded = (): AppState => run(initialState(), { type: "traced", trace: SIX, source: "six" });

describe("reducer: stepping", () => {
  it("the first trace shows its last op", () => {
    const s = loaded();
    expect(s.step).toBe(6);
    expect(s.tracedSource).toBe("six");
  });

  it("keeps step within 0..ops.length", () => {
    expect(run(loaded(), { type: "forward" }).step).toBe(6);
    expect(run(loaded(), { type: "first" }, { type: "back" }).step).toBe(0);
    expect(run(loaded(), { type: "back" }, { type: "back" }).step).toBe(4);
    expect(run(loaded(), { type: "first" }, { type: "forward" }).step).toBe(1);
    expect(run(loaded(), { type: "seek", step: 99 }).step).toBe(6);
    expect(run(loaded(), { type: "seek", step: -4 }).step).toBe(0);
    expect(run(loaded(), { type: "first" }, { type: "last" }).step).toBe(6);
  });

  it("returns the same state when nothing changes", () => {
    const s = loaded();
    expect(reducer(s, { type: "last" })).toBe(s);
    expect(reducer(s, { type: "pause" })).toBe(s);
  });

  it("without a trace the step stays 0", () => {
    expect(run(initialState(), { type: "forward" }, { type: "last" }).step).toBe(0);
    expect(run(initialState(), { type: "togglePlay" }).playing).toBe(false);
  });
});

describe("reducer: playback", () => {
  it("play from the end restarts at 0; ticks advance and stop at the end", () => {
    let s = run(loaded(), { type: "togglePlay" });
    expect(s).toMatchObject({ playing: true, step: 0 });
    s = run(s, { type: "tick" }, { type: "tick" });
    expect(s).toMatchObject({ playing: true, step: 2 });
    s = run(s, { type: "tick" }, { type: "tick" }, { type: "tick" }, { type: "tick" });
    expect(s).toMatchObject({ playing: false, step: 6 });
    expect(run(s, { type: "tick" }).step).toBe(6);
  });

  it("toggling twice pauses where it was", () => {
    const s = run(loaded(), { type: "seek", step: 2 }, { type: "togglePlay" });
    expect(s).toMatchObject({ playing: true, step: 2 });
    expect(run(s, { type: "togglePlay" })).toMatchObject({ playing: false, step: 2 });
    expect(run(s, { type: "pause" }).playing).toBe(false);
  });
});

describe("reducer: traces and errors", () => {
  it("an error keeps the last valid trace and step", () => {
    const s = run(loaded(), { type: "back" }, { type: "traceFailed", error: { line: 7, column: 19, message: "bad" } });
    expect(s.trace).toBe(SIX);
    expect(s.step).toBe(5);
    expect(s.error).toEqual({ line: 7, column: 19, message: "bad" });
    expect(run(s, { type: "traced", trace: SIX, source: "six" }).error).toBeNull();
  });

  it("a new trace follows the end if it was in view, otherwise clamps", () => {
    const atEnd = run(initialState(), { type: "traced", trace: TWO, source: "two" });
    expect(run(atEnd, { type: "traced", trace: SIX, source: "six" }).step).toBe(6);
    const mid = run(loaded(), { type: "seek", step: 5 });
    expect(run(mid, { type: "traced", trace: TWO, source: "two" }).step).toBe(2);
    const early = run(loaded(), { type: "seek", step: 1 });
    expect(run(early, { type: "traced", trace: TWO, source: "two" }).step).toBe(1);
  });
});

describe("store", () => {
  it("notifies subscribers with the previous state, in dispatch order", () => {
    const store = createStore(reducer, loaded());
    const seen: [number, number][] = [];
    store.subscribe((s, prev) => {
      seen.push([prev.step, s.step]);
      // A listener that dispatches: runs after this change reached everyone.
      if (s.step === 5) store.dispatch({ type: "back" });
    });
    const unsubscribe = store.subscribe((s, prev) => seen.push([prev.step * 10, s.step * 10]));
    store.dispatch({ type: "back" });
    expect(seen).toEqual([
      [6, 5],
      [60, 50],
      [5, 4],
      [50, 40],
    ]);
    unsubscribe();
    store.dispatch({ type: "first" });
    expect(seen).toHaveLength(5);
    expect(store.getState().step).toBe(0);
  });
});

describe("reducer: run settings", () => {
  it("a new allocator starts at its default minimum alignment; capacity stays", () => {
    const s = run(initialState(), { type: "configure", config: { capacity: 1024 } }, { type: "configure", config: { minAlign: 8 } });
    expect(s).toMatchObject({ capacity: 1024, minAlign: 8 });
    expect(run(s, { type: "configure", config: { allocator: "bumpalo" } })).toMatchObject({ allocator: "bumpalo", capacity: 1024, minAlign: null });
    // Naming both keeps both.
    expect(run(s, { type: "configure", config: { allocator: "bumpalo", minAlign: 16 } })).toMatchObject({ allocator: "bumpalo", minAlign: 16 });
    expect(reducer(s, { type: "configure", config: { minAlign: 8 } })).toBe(s);
  });

  it("capacity null means the preset's default", () => {
    expect(initialState().capacity).toBeNull();
    expect(run(initialState(), { type: "configure", config: { capacity: 64 } }, { type: "configure", config: { capacity: null } }).capacity).toBeNull();
  });

  it("the cost chart counts instructions until branches are chosen; the step stays", () => {
    const s = loaded();
    expect(s.costMetric).toBe("instructions");
    const b = reducer(s, { type: "selectCostMetric", metric: "branches" });
    expect(b).toMatchObject({ costMetric: "branches", step: s.step, trace: s.trace });
    expect(reducer(b, { type: "selectCostMetric", metric: "branches" })).toBe(b);
  });
});

// SIX's allocs each run the bump-down algorithm's 4 recorded micro-steps
// (subtract, round down, check the start, bump); its free runs one (nothing to reclaim), which is its end.
describe("reducer: micro-steps", () => {
  const at = (s: AppState) => [s.step, s.micro];
  it("Shift+→ walks an op's micro-steps, then the next op's; the last is the op's end (null)", () => {
    let s = run(loaded(), { type: "first" }, { type: "microForward" });
    expect(at(s)).toEqual([1, 0]);
    s = run(s, { type: "microForward" }, { type: "microForward" });
    expect(at(s)).toEqual([1, 2]);
    s = run(s, { type: "microForward" });
    expect(at(s)).toEqual([1, null]);
    expect(at(run(s, { type: "microForward" }))).toEqual([2, 0]);
  });

  it("an op with one micro-step (or none) is one stop", () => {
    const s = run(loaded(), { type: "seek", step: 4 }, { type: "microForward" });
    expect(at(s)).toEqual([5, null]);
    expect(at(run(s, { type: "microForward" }))).toEqual([6, 0]);
    expect(at(run(s, { type: "microBack" }))).toEqual([4, null]);
  });

  it("Shift+← goes back through the op and into the previous op's end", () => {
    let s = run(loaded(), { type: "seek", step: 2 }, { type: "microBack" });
    expect(at(s)).toEqual([2, 2]);
    s = run(s, { type: "microBack" }, { type: "microBack" });
    expect(at(s)).toEqual([2, 0]);
    s = run(s, { type: "microBack" });
    expect(at(s)).toEqual([1, null]);
  });

  it("stops at both ends", () => {
    const end = loaded();
    expect(reducer(end, { type: "microForward" })).toBe(end);
    const start = run(loaded(), { type: "first" });
    expect(reducer(start, { type: "microBack" })).toBe(start);
  });

  it("plain stepping and seeking land on an op's end", () => {
    const mid = run(loaded(), { type: "seek", step: 2 }, { type: "microBack" });
    expect(at(run(mid, { type: "forward" }))).toEqual([3, null]);
    expect(at(run(mid, { type: "back" }))).toEqual([1, null]);
    expect(at(run(mid, { type: "seek", step: 2 }))).toEqual([2, null]);
  });

  it("a new trace keeps the micro-step while the op still has it", () => {
    const mid = run(loaded(), { type: "seek", step: 2 }, { type: "microBack" });
    expect(at(run(mid, { type: "traced", trace: SIX, source: "six" }))).toEqual([2, 2]);
    expect(at(run(mid, { type: "traced", trace: TWO, source: "two" }))).toEqual([2, 2]);
  });
});

describe("reducer: speed, theme", () => {
  it("speed and theme are view settings: the step stays", () => {
    const s = run(loaded(), { type: "seek", step: 3 }, { type: "setSpeed", speed: 4 }, { type: "setTheme", theme: "dark" });
    expect(s).toMatchObject({ speed: 4, theme: "dark", step: 3 });
    expect(initialState()).toMatchObject({ speed: 1, theme: "auto" });
    expect(reducer(s, { type: "setSpeed", speed: 4 })).toBe(s);
  });

  it("a tick that arrives at a pause directive stops playback there", () => {
    const s = run(loaded(), { type: "first" }, { type: "togglePlay" }, { type: "tick", pause: true });
    expect(s).toMatchObject({ playing: false, step: 1 });
  });
});

const UP_DOWN: CompareConfig[] = [
  { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
  { allocator: "fitzgen-down", target: "64", minAlign: null, capacity: null },
];

describe("reducer: compare mode", () => {
  it("opens the summary slide only in compare, keeps it while the columns change, and closes it with compare", () => {
    expect(reducer(loaded(), { type: "showSummary", shown: true }).summary).toBe(false);
    const open = run(loaded(), { type: "enterCompare", configs: UP_DOWN }, { type: "showSummary", shown: true });
    expect(open.summary).toBe(true);
    expect(run(open, { type: "setCompare", configs: [...UP_DOWN].reverse() }).summary).toBe(true);
    expect(run(open, { type: "exitCompare" }).summary).toBe(false);
    // A compare opened afresh starts at its columns.
    expect(run(open, { type: "exitCompare" }, { type: "enterCompare", configs: UP_DOWN }).summary).toBe(false);
  });

  it("enters with two to four columns, keeps the step, and exits", () => {
    const s = run(loaded(), { type: "seek", step: 3 }, { type: "enterCompare", configs: UP_DOWN });
    expect(s.compare).toEqual(UP_DOWN);
    expect(s.step).toBe(3);
    expect(reducer(s, { type: "enterCompare", configs: UP_DOWN })).toBe(s);
    expect(run(s, { type: "exitCompare" }).compare).toBeNull();
    expect(reducer(loaded(), { type: "enterCompare", configs: UP_DOWN.slice(0, 1) }).compare).toBeNull();
    const five = [...UP_DOWN, ...UP_DOWN, UP_DOWN[0] as CompareConfig];
    expect(reducer(loaded(), { type: "enterCompare", configs: five }).compare).toHaveLength(4);
  });

  it("enters from the run on screen: its settings become column 1, the run, step and lesson stay", () => {
    const lesson = { id: "realloc", config: { source: "s = alloc 8\ns = realloc s 16", allocator: "bump-scope-up", target: "wasm32" as const, capacity: 1024, minAlign: 16 } };
    const s = run(loaded(), { type: "startLesson", lesson }, { type: "traced", trace: SIX, source: lesson.config.source }, { type: "seek", step: 2 });
    const partner: CompareConfig = { allocator: "bump-scope-down", target: "wasm32", capacity: 1024, minAlign: 16 };
    // A column handed over as a whole run (here the state itself) keeps only its settings.
    const c = run(s, { type: "enterCompare", configs: [s, partner] });
    expect(c.compare).toEqual([{ allocator: "bump-scope-up", target: "wasm32", capacity: 1024, minAlign: 16 }, partner]);
    expect(Object.keys(c.compare?.[0] ?? {}).sort()).toEqual(["allocator", "capacity", "minAlign", "target"]);
    expect(c).toMatchObject({ allocator: "bump-scope-up", target: "wasm32", capacity: 1024, minAlign: 16, step: 2, lesson: "realloc", trace: SIX });
    // Entering again with the same columns changes nothing.
    expect(reducer(c, { type: "enterCompare", configs: [s, partner] })).toBe(c);
  });

  it("a column edit below two columns leaves compare mode", () => {
    const s = run(loaded(), { type: "enterCompare", configs: UP_DOWN });
    const three = run(s, { type: "setCompare", configs: [...UP_DOWN, { ...UP_DOWN[0]!, target: "wasm32" }] });
    expect(three.compare).toHaveLength(3);
    expect(run(three, { type: "setCompare", configs: UP_DOWN.slice(1) }).compare).toBeNull();
  });
});

describe("reducer: lessons", () => {
  const lesson = { id: "padding", config: { source: "a = alloc 1\nb = alloc u64", allocator: "hinckley-up", target: "64" as const, capacity: 128, minAlign: null } };
  it("starting a lesson loads its program and preset, opens at op 0 once traced", () => {
    let s = run(loaded(), { type: "enterCompare", configs: UP_DOWN }, { type: "startLesson", lesson });
    expect(s).toMatchObject({ lesson: "padding", source: lesson.config.source, allocator: "hinckley-up", capacity: 128, minAlign: null, compare: null, step: 0 });
    s = run(s, { type: "traced", trace: TWO, source: lesson.config.source });
    expect(s.step).toBe(0);
    // Later traces follow the usual rule again.
    expect(run(s, { type: "last" }, { type: "traced", trace: SIX, source: "six" }).step).toBe(6);
  });

  it("exiting keeps the program and puts its narration away until the next edit", () => {
    const s = run(loaded(), { type: "startLesson", lesson }, { type: "exitLesson" });
    expect(s).toMatchObject({ lesson: null, source: lesson.config.source, narrationHidden: true });
    expect(run(s, { type: "configure", config: { source: "#> mine\na = alloc 1" } }).narrationHidden).toBe(false);
    expect(run(s, { type: "startLesson", lesson }).narrationHidden).toBe(false);
  });

  it("back to the lesson restores its settings, keeps an edited program, and opens at the same op once traced", () => {
    const edited = "a = alloc 1\nb = alloc u32";
    let s = run(loaded(), { type: "startLesson", lesson }, { type: "traced", trace: TWO, source: lesson.config.source }, { type: "seek", step: 1 });
    s = run(s, { type: "configure", config: { allocator: "bumpalo", capacity: 512, minAlign: 8, target: "wasm32", source: edited } });
    s = run(s, { type: "traced", trace: TWO, source: s.source });
    expect(s).toMatchObject({ allocator: "bumpalo", capacity: 512, step: 1, lesson: "padding" });
    s = run(s, { type: "backToLesson", lesson });
    expect(s).toMatchObject({ allocator: "hinckley-up", target: "64", capacity: 128, minAlign: null, source: edited, lesson: "padding", pendingStep: 1, playing: false });
    expect(run(s, { type: "traced", trace: TWO, source: edited }).step).toBe(1);
  });
});

describe("reducer: predict mode", () => {
  const predicting = () => run(loaded(), { type: "seek", step: 2 }, { type: "togglePredict" });
  it("a guess, then the reveal, then next steps and clears both", () => {
    let s = run(predicting(), { type: "guess", address: 0x10100 });
    expect(s).toMatchObject({ predict: true, guess: 0x10100, revealed: false, step: 2 });
    s = run(s, { type: "reveal" });
    expect(s.revealed).toBe(true);
    // A revealed answer is final.
    expect(reducer(s, { type: "guess", address: 1 })).toBe(s);
    s = run(s, { type: "predictNext" });
    expect(s).toMatchObject({ step: 3, guess: null, revealed: false });
  });

  it("→ reveals first, then steps", () => {
    const s = run(predicting(), { type: "forward" });
    expect(s).toMatchObject({ step: 2, revealed: true });
    expect(run(s, { type: "forward" })).toMatchObject({ step: 3, revealed: false });
  });

  it("→ steps at once past an op that places no block: there is no question to answer", () => {
    // The next op at step 4 is `free b`.
    const s = run(loaded(), { type: "seek", step: 4 }, { type: "togglePredict" }, { type: "forward" });
    expect(s).toMatchObject({ step: 5, revealed: false });
  });

  it("a lesson's question takes a guess outside predict mode; turning the mode on pauses and leaves compare mode", () => {
    expect(run(loaded(), { type: "seek", step: 2 }, { type: "guess", address: 5 })).toMatchObject({ predict: false, guess: 5 });
    const s = run(loaded(), { type: "enterCompare", configs: UP_DOWN }, { type: "togglePlay" }, { type: "togglePredict" });
    expect(s).toMatchObject({ predict: true, playing: false, compare: null });
  });
});

describe("reducer: share links", () => {
  it("a shared state replaces the program and settings and opens at its step once traced", () => {
    const shared = { source: "six", allocator: "bumpalo", target: "wasm32" as const, capacity: 512, minAlign: null, step: 3, compare: UP_DOWN, lesson: null };
    let s = run(initialState(), { type: "applyShared", shared });
    expect(s).toMatchObject({ source: "six", allocator: "bumpalo", target: "wasm32", capacity: 512, compare: UP_DOWN, lesson: null });
    s = run(s, { type: "traced", trace: SIX, source: "six" });
    expect(s.step).toBe(3);
    const far = run(initialState(), { type: "applyShared", shared: { ...shared, step: 40 } }, { type: "traced", trace: TWO, source: "two" });
    expect(far.step).toBe(2);
  });

  it("a link to the program already on screen goes to its step at once (nothing is traced again)", () => {
    const here = run(initialState({ source: "six" }), { type: "traced", trace: SIX, source: "six" });
    const s = run(here, {
      type: "applyShared",
      shared: { source: here.source, allocator: here.allocator, target: here.target, capacity: here.capacity, minAlign: here.minAlign, step: 2, compare: UP_DOWN, lesson: null },
    });
    expect(s).toMatchObject({ step: 2, pendingStep: null, compare: UP_DOWN });
  });
});

describe("reducer: sweeps", () => {
  const MIN_ALIGNS = { param: "minAlign" as const, values: ["1", "2", "4", "8", "16"] };

  it("opening a sweep leaves compare and predict mode; the same sweep again changes nothing; closing keeps the program", () => {
    const s = run(loaded(), { type: "enterCompare", configs: UP_DOWN }, { type: "togglePlay" }, { type: "setSweep", setup: MIN_ALIGNS });
    expect(s).toMatchObject({ sweep: MIN_ALIGNS, compare: null, predict: false, playing: false });
    expect(reducer(s, { type: "setSweep", setup: { ...MIN_ALIGNS, values: [...MIN_ALIGNS.values] } })).toBe(s);
    const other = run(s, { type: "setSweep", setup: { param: "target", values: ["64", "wasm32"] } });
    expect(other.sweep).toEqual({ param: "target", values: ["64", "wasm32"] });
    const closed = run(other, { type: "closeSweep" });
    expect(closed).toMatchObject({ sweep: null, source: s.source, step: s.step });
    expect(reducer(closed, { type: "closeSweep" })).toBe(closed);
  });

  it("comparing, a lesson or predict mode closes the sweep", () => {
    const sweeping = run(loaded(), { type: "setSweep", setup: MIN_ALIGNS });
    expect(run(sweeping, { type: "enterCompare", configs: UP_DOWN }).sweep).toBeNull();
    expect(run(sweeping, { type: "togglePredict" }).sweep).toBeNull();
    expect(run(sweeping, { type: "startLesson", lesson: { id: "x", config: { source: "a = alloc 1", allocator: "bumpalo", target: "64", capacity: null, minAlign: null } } }).sweep).toBeNull();
  });

  it("a point opened shows its configuration in the single view at its last op", () => {
    const config = { source: "a = alloc 1\nb = alloc 2", allocator: "bumpalo", target: "wasm32" as const, capacity: 1024, minAlign: 8 };
    let s = run(loaded(), { type: "seek", step: 1 }, { type: "setSweep", setup: MIN_ALIGNS }, { type: "openConfig", config });
    expect(s).toMatchObject({ ...config, sweep: null, compare: null });
    s = run(s, { type: "traced", trace: TWO, source: config.source });
    expect(s.step).toBe(2);
  });

  it("a shared state carries its sweep; links without one close it; compare wins over a sweep", () => {
    const shared = { source: "six", allocator: "bumpalo", target: "64" as const, capacity: null, minAlign: null, step: 0, compare: null };
    const s = run(initialState(), { type: "applyShared", shared: { ...shared, sweep: MIN_ALIGNS } });
    expect(s.sweep).toEqual(MIN_ALIGNS);
    expect(run(s, { type: "applyShared", shared }).sweep).toBeNull();
    expect(run(initialState(), { type: "applyShared", shared: { ...shared, compare: UP_DOWN, sweep: MIN_ALIGNS } })).toMatchObject({
      compare: UP_DOWN,
      sweep: null,
    });
  });
});

describe("reducer: a lesson's opening step", () => {
  it("opens at op 0 by default, or at the op it names, clamped once traced", () => {
    const config = { source: "six", allocator: "fitzgen-down", target: "64" as const, capacity: 256, minAlign: null };
    const first = run(initialState(), { type: "startLesson", lesson: { id: "x", config } }, { type: "traced", trace: SIX, source: "six" });
    expect(first.step).toBe(0);
    const last = run(initialState(), { type: "startLesson", lesson: { id: "x", config, step: Number.MAX_SAFE_INTEGER } }, { type: "traced", trace: SIX, source: "six" });
    expect(last.step).toBe(6);
  });
});
