// The pure parts of scripts/bench.mjs (`npm run bench`): medians, the
// `name: value unit` lines, budget verdicts, options and the fallback sizes.
// Vitest: covered once vitest.config.ts's include lists scripts/bench.test.mjs.
import { describe, expect, it, test } from "vitest";
import {
  adversarialProgram,
  ascending,
  BUDGETS,
  count,
  formatLine,
  formatValue,
  longestMainThreadTask,
  median,
  naLine,
  pageTraceName,
  parseArgs,
  parseLine,
  program,
  scrubSizes,
  splitFetches,
  summariseDrags,
  traceBytes,
  verdict,
  worthTrying,
} from "./bench.mjs";

describe("median", () => {
  test("odd and even counts, unsorted input", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
  });
  test("ignores values that are not finite numbers; NaN when none is left", () => {
    expect(median([NaN, 5, Infinity, 1, 3])).toBe(3);
    expect(median([])).toBeNaN();
    expect(median([NaN])).toBeNaN();
  });
  test("does not reorder its input", () => {
    const xs = [3, 1, 2];
    median(xs);
    expect(xs).toEqual([3, 1, 2]);
  });
});

describe("formatValue", () => {
  test("integers from 1,000 up, else three significant digits", () => {
    expect(formatValue(12_345_678.9)).toBe("12345679");
    expect(formatValue(1000)).toBe("1000");
    expect(formatValue(412.4)).toBe("412");
    expect(formatValue(41.26)).toBe("41.3");
    expect(formatValue(2.345)).toBe("2.35");
    expect(formatValue(0.5)).toBe("0.50");
    expect(formatValue(0.01234)).toBe("0.01");
    expect(formatValue(0)).toBe("0");
    expect(formatValue(-3.5)).toBe("-3.50");
  });
  test("not a number stays readable", () => {
    expect(formatValue(NaN)).toBe("NaN");
  });
});

describe("verdict", () => {
  test("met at or under the budget, over above it", () => {
    expect(verdict(199, 200)).toBe("met");
    expect(verdict(200, 200)).toBe("met");
    expect(verdict(200.1, 200)).toBe("over");
  });
  test("none without a budget or a value", () => {
    expect(verdict(5, undefined)).toBeNull();
    expect(verdict(NaN, 3)).toBeNull();
  });
});

describe("formatLine", () => {
  test("a budgeted figure carries its budget and verdict", () => {
    expect(formatLine("payload_gzip_kb", 412.3, "kB")).toBe("payload_gzip_kb: 412 kB (budget 200: over)");
    expect(formatLine("wasm_vs_native_ratio", 2.5, "x")).toBe("wasm_vs_native_ratio: 2.50 x (budget 2: over)");
    expect(formatLine("scrub_drag_longest_task_ms", 48.2, "ms")).toBe("scrub_drag_longest_task_ms: 48.2 ms (budget 50: met)");
  });
  test("an unbudgeted figure is `name: value unit`, a note in parentheses", () => {
    expect(formatLine("trace_ops_per_s_native", 12_000_000, "ops/s")).toBe("trace_ops_per_s_native: 12000000 ops/s");
    expect(formatLine("render_ms_100k_blocks", 85.25, "ms", { note: "first 120 ms" })).toBe("render_ms_100k_blocks: 85.3 ms (first 120 ms)");
  });
  test("budget and note together; budgets can be passed in", () => {
    expect(formatLine("x", 5, "ms", { note: "n", budgets: { x: 4 } })).toBe("x: 5.00 ms (budget 4: over; n)");
  });
  test("every budget the brief names is there", () => {
    expect(BUDGETS).toEqual({
      wasm_vs_native_ratio: 2,
      trace_bytes_per_op: 32,
      scrub_ratio_1m_vs_100: 2,
      payload_gzip_kb: 200,
      listing_first_open_gzip_kb: 300,
      package_tarball_mb: 3,
      first_map_ms: 1500,
      page_trace_ms_1m_bumpalo: 1500,
      page_trace_ms_1m_bump_scope_up: 1500,
      scrub_drag_longest_task_ms: 50,
      page_open_ms_1m_lines: 1500,
      keystroke_ms_1m_lines: 50,
      paste_ms_20k_lines: 300,
      wasm_memory_bytes_per_op_lines: 64,
      // A real recording at the same scale holds to the line-by-line budgets.
      recorded_open_ms_bumpalo: 1500,
      recorded_open_ms_bump_scope_up: 1500,
      recorded_wasm_memory_bytes_per_op_bumpalo: 64,
      recorded_wasm_memory_bytes_per_op_bump_scope_up: 64,
      adversarial_wasm_memory_mb: 1024,
    });
  });
});

describe("naLine and parseLine", () => {
  test("n/a says why", () => {
    expect(naLine("scrub_ms_at_1m", "too large; largest measured: 200,000 ops")).toBe("scrub_ms_at_1m: n/a (too large; largest measured: 200,000 ops)");
  });
  test("lines read back", () => {
    expect(parseLine("payload_gzip_kb: 412 kB (budget 200: over)")).toEqual({ name: "payload_gzip_kb", value: 412, unit: "kB", note: "budget 200: over" });
    expect(parseLine("trace_ops_per_s_native: 12000000 ops/s")).toEqual({ name: "trace_ops_per_s_native", value: 12_000_000, unit: "ops/s", note: "" });
    const na = parseLine(naLine("scrub_ms_at_1m", "why"));
    expect(na?.name).toBe("scrub_ms_at_1m");
    expect(na?.value).toBeNaN();
    expect(na?.note).toBe("why");
    expect(parseLine("# machine: nproc 2")).toBeNull();
  });
});

describe("options, program and sizes", () => {
  test("defaults: a million ops, five runs; --smoke: a thousand, one", () => {
    expect(parseArgs([])).toMatchObject({ smoke: false, ops: 1_000_000, runs: 5, port: 4198, build: true, budgetS: 20 });
    expect(parseArgs(["--smoke"])).toMatchObject({ smoke: true, ops: 1000, runs: 1, budgetS: 10 });
    expect(parseArgs(["--smoke", "--runs", "2", "--no-build", "--port", "5000"])).toMatchObject({ runs: 2, build: false, port: 5000 });
    expect(() => parseArgs(["--nope"])).toThrow(/unknown option/);
    expect(() => parseArgs(["--runs"])).toThrow(/needs a value/);
  });
  test("--only picks one group of figures: the drag, the payload sizes, or programs written line by line", () => {
    expect(parseArgs(["--only", "sizes"]).only).toBe("sizes");
    expect(parseArgs(["--only", "lines"]).only).toBe("lines");
    expect(parseArgs(["--only", "scrub_drag"]).only).toBe("scrub_drag");
    expect(parseArgs(["--only", "recorded"]).only).toBe("recorded");
    expect(() => parseArgs(["--only", "memory"])).toThrow("--only knows scrub_drag, sizes, lines, recorded, adversarial, not memory");
  });
  test("the program is four ops an iteration, as the native example's", () => {
    expect(program(1_000_000)).toBe("repeat 250000 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}\n");
    expect(program(2)).toMatch(/^repeat 1 /);
  });
  test("sizes grow from 1,000 ops and end at the request", () => {
    expect(ascending(1_000_000)).toEqual([1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000, 500_000, 1_000_000]);
    expect(ascending(1000)).toEqual([1000]);
    expect(ascending(300_000).slice(-3)).toEqual([100_000, 200_000, 300_000]);
    expect(ascending(500)).toEqual([500]);
  });
  test("the next size is tried when its run, growing with the square of the size, fits the budget", () => {
    expect(worthTrying(10_000, 1000, 20_000, 4000)).toBe(true);
    expect(worthTrying(10_000, 1001, 20_000, 4000)).toBe(false);
    expect(worthTrying(1000, 10, 1_000_000, 20_000)).toBe(false);
  });
  test("count separates thousands", () => {
    expect(count(1_000_000)).toBe("1,000,000");
  });
});

describe("the two-module design's figures", () => {
  test("the payload is what the page fetched up to its first map; later fetches are apart", () => {
    const entries = [
      { url: "http://x/assets/embed.js", end: 40 },
      { url: "http://x/assets/trace_bg.wasm", end: 120 },
      { url: "http://x/assets/cost.js", end: 400 },
    ];
    expect(splitFetches(entries, 120)).toEqual({ before: ["http://x/assets/embed.js", "http://x/assets/trace_bg.wasm"], after: ["http://x/assets/cost.js"] });
    expect(splitFetches([], 10)).toEqual({ before: [], after: [] });
  });
  test("trace bytes are the columns, the stats samples and the header and chunks JSON", () => {
    expect(traceBytes({ columns: 7 * 4 * 1000, samples: 9 * 8 * 10, header: 300, chunks: 200 })).toBe(28_000 + 720 + 500);
  });
  test("the app is scrubbed at --ops first, then at smaller sizes that may fit, never twice at one size", () => {
    expect(scrubSizes(1_000_000, 500_000, 100)).toEqual([1_000_000, 500_000, 100_000, 10_000]);
    expect(scrubSizes(1_000_000, 1_000_000, 100)).toEqual([1_000_000, 100_000, 10_000]);
    expect(scrubSizes(1_000_000, 0, 100)).toEqual([1_000_000, 100_000, 10_000]);
    expect(scrubSizes(1000, 1000, 100)).toEqual([1000]);
    expect(scrubSizes(50, 50, 49)).toEqual([50]);
  });
});

describe("the page's trace and the scrub drag", () => {
  test("a preset's page-trace figure is named in snake case, and the two the issue names have budgets", () => {
    expect(pageTraceName("bump-scope-up")).toBe("page_trace_ms_1m_bump_scope_up");
    expect(pageTraceName("bumpalo")).toBe("page_trace_ms_1m_bumpalo");
    expect(BUDGETS[pageTraceName("bumpalo")]).toBe(1500);
    expect(BUDGETS[pageTraceName("bump-scope-up")]).toBe(1500);
  });

  const trace = (events) => Buffer.from(JSON.stringify({ traceEvents: events }));
  const meta = (pid, tid, name) => ({ ph: "M", name: "thread_name", pid, tid, args: { name } });
  const task = (pid, tid, ms, name = "ThreadControllerImpl::RunTask") => ({ ph: "X", name, pid, tid, ts: 0, dur: ms * 1000 });

  test("the longest task is the longest RunTask on a renderer's main thread, in ms", () => {
    const events = [
      meta(1, 10, "CrRendererMain"),
      meta(1, 11, "Compositor"),
      meta(2, 20, "CrBrowserMain"),
      task(1, 10, 12.5),
      task(1, 10, 31.25, "RunTask"),
      task(1, 11, 90),
      task(2, 20, 400),
      { ph: "X", name: "Layout", pid: 1, tid: 10, dur: 80_000 },
    ];
    expect(longestMainThreadTask(trace(events))).toBe(31.25);
  });
  test("with the thread clock, the most CPU time a main-thread task took (a task waiting for a core takes longer, not more CPU)", () => {
    const timed = (pid, tid, ms, cpu) => ({ ...task(pid, tid, ms, "RunTask"), tdur: cpu * 1000 });
    const events = [meta(1, 10, "CrRendererMain"), meta(1, 11, "Compositor"), timed(1, 10, 300, 40), timed(1, 10, 120, 75.5), timed(1, 11, 90, 90)];
    expect(longestMainThreadTask(trace(events))).toBe(300);
    expect(longestMainThreadTask(trace(events), "thread")).toBe(75.5);
    // A trace without thread times has no CPU figure.
    expect(longestMainThreadTask(trace([meta(1, 10, "CrRendererMain"), task(1, 10, 12)]), "thread")).toBeNaN();
  });
  test("no task or no trace: NaN, never a made-up 0", () => {
    expect(longestMainThreadTask(trace([meta(1, 10, "CrRendererMain")]))).toBeNaN();
    expect(longestMainThreadTask(Buffer.from("not json"))).toBeNaN();
    expect(longestMainThreadTask(Buffer.from(JSON.stringify([meta(3, 30, "CrRendererMain"), task(3, 30, 7)])))).toBe(7);
  });

  test("drags: the median of each drag's longest task, the observer's entries counting when longer than the trace's", () => {
    const s = summariseDrags([
      { longestTask: 40, long: [], frameMax: 33, longestCpu: 20 },
      { longestTask: 45, long: [{ start: 1, ms: 72 }], frameMax: 90, longestCpu: 31 },
      { longestTask: NaN, long: [{ start: 1, ms: 55 }, { start: 9, ms: 61 }], frameMax: 70, longestCpu: NaN },
    ]);
    expect(s.cpuMs).toBe(25.5);
    expect(s.runs).toEqual([40, 72, 61]);
    expect(s.longestMs).toBe(61);
    expect(s.longCounts).toEqual([0, 1, 2]);
    expect(s.frameMs).toBe(70);
  });
});

describe("adversarialProgram", () => {
  it("is 1,500,000 ops, a line each, over 20,000 live blocks, each free naming a live block", () => {
    const text = adversarialProgram();
    const lines = text.trimEnd().split("\n");
    expect(lines).toHaveLength(1_500_000);
    expect(text.length).toBeGreaterThan(20_000_000);
    expect(text.length).toBeLessThan(32_000_000);
    const live = new Set();
    for (const line of lines.slice(0, 20_000)) live.add(/^(x\d+) = alloc 8$/.exec(line)?.[1]);
    expect(live.size).toBe(20_000);
    for (let i = 20_000; i < lines.length; i += 2) {
      const freed = /^free (x\d+)$/.exec(lines[i] ?? "")?.[1];
      expect(freed !== undefined && live.has(freed)).toBe(true);
      expect(lines[i + 1]).toBe(`${freed} = alloc 8`);
    }
  }, 60_000);
});
