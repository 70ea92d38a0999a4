import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import type { Stats, Trace } from "../wasm/types";
import { jsonTrace, measured, viewResult } from "../test/runs";
import { randomMix, RANDOM_MIX_DEFAULTS } from "./generators";
import {
  defaultValues,
  generatorOf,
  isCategorical,
  parseValues,
  pointText,
  runSweep,
  specOf,
  sweepCsv,
  sweepPoints,
  sweepUnavailable,
  type PointRunner,
  type SweepConfig,
  type SweepSpec,
} from "./sweep";

const allocators = loadTraceModuleSync().allocators();
/** Each point run as the app runs it: on the trace module, with its costs. */
const points: PointRunner = (c) => {
  const r = viewResult(c);
  return Promise.resolve({ result: r.ok ? { ok: true, trace: measured(c.source, c.allocator, c) } : r });
};
const MIX = randomMix(RANDOM_MIX_DEFAULTS);
const BASE: SweepConfig = { source: MIX, allocator: "bumpalo", target: "64", capacity: null, minAlign: null };

/** One ordinary trace of a configuration, as the main view runs it. */
function traceOf(c: SweepConfig): Trace {
  return jsonTrace(c);
}

/** The figures summed straight from the trace's ops, without the sweep's code. */
function expected(trace: Trace) {
  const last = trace.ops[trace.ops.length - 1]?.stats;
  const footprint = (s: Stats | undefined): number => (s ? s.used + s.unused + s.metadata : 0);
  let peak = 0;
  for (const op of trace.ops) peak = Math.max(peak, footprint(op.stats));
  return {
    instructions: trace.ops.reduce((n, o) => n + (o.cost?.wasm_instructions ?? 0), 0),
    branches: trace.ops.reduce((n, o) => n + (o.cost?.wasm_branches ?? 0), 0),
    padding: last?.padding,
    metadata: last?.metadata,
    leaked: last?.leaked,
    chunks: last?.chunks,
    requested: last?.requested,
    footprint: footprint(last),
    peakFootprint: peak,
    ops: trace.ops.length,
    failed: trace.ops.filter((o) => o.failed).length,
  };
}

describe("sweep points", () => {
  it("vary only the swept parameter", () => {
    const points = sweepPoints({ param: "minAlign", values: ["1", "8"], base: BASE }, allocators);
    expect(points.map((p) => p.label)).toEqual(["MIN_ALIGN 1", "MIN_ALIGN 8"]);
    expect(points.map((p) => p.config)).toEqual([
      { ...BASE, minAlign: 1 },
      { ...BASE, minAlign: 8 },
    ]);
    const targets = sweepPoints({ param: "target", values: ["64", "wasm32"], base: BASE }, allocators);
    expect(targets.map((p) => [p.label, p.config.target])).toEqual([
      ["64-bit", "64"],
      ["wasm32", "wasm32"],
    ]);
  });

  it("keep the base's minimum alignment on presets that have it, else take the preset's default", () => {
    const points = sweepPoints({ param: "preset", values: ["bump-scope-up", "fitzgen-down"], base: { ...BASE, minAlign: 8 } }, allocators);
    expect(points.map((p) => [p.config.allocator, p.config.minAlign])).toEqual([
      ["bump-scope-up", 8],
      ["fitzgen-down", null],
    ]);
  });

  it("write one random mix per range, the rest of the mix unchanged", () => {
    const generator = { ...RANDOM_MIX_DEFAULTS, ops: 12, seed: 7 };
    const spec: SweepSpec = { param: "generatorSize", values: ["1-8", "100-200"], base: BASE, generator };
    const points = sweepPoints(spec, allocators);
    expect(points.map((p) => p.label)).toEqual(["sizes 1-8", "sizes 100-200"]);
    expect(points[0]?.config.source).toBe(randomMix({ ...generator, minSize: 1, maxSize: 8 }));
    expect(points[1]?.config.source).toBe(randomMix({ ...generator, minSize: 100, maxSize: 200 }));
    const aligns = sweepPoints({ param: "generatorAlign", values: ["4-64"], base: BASE, generator }, allocators);
    expect(aligns[0]?.config.source).toBe(randomMix({ ...generator, minAlign: 4, maxAlign: 64 }));
  });
});

describe("value lists", () => {
  it("read lists, doubling ranges and stepped ranges, without duplicates", () => {
    expect(parseValues("minAlign", "1..16", allocators)).toEqual({ ok: true, values: ["1", "2", "4", "8", "16"] });
    expect(parseValues("capacity", "64..256 by 64, 64 4096", allocators)).toEqual({ ok: true, values: ["64", "128", "192", "256", "4096"] });
    expect(parseValues("generatorSize", "1-8, 1-64", allocators)).toEqual({ ok: true, values: ["1-8", "1-64"] });
    expect(parseValues("target", "wasm32 64", allocators)).toEqual({ ok: true, values: ["wasm32", "64"] });
  });

  it("say what is wrong with a value", () => {
    expect(parseValues("target", "32", allocators)).toEqual({ ok: false, error: '"32" is not a target: use 64 or wasm32.' });
    expect(parseValues("preset", "bumpalo nope", allocators)).toEqual({ ok: false, error: '"nope" is not a preset.' });
    expect(parseValues("generatorAlign", "1-3", allocators)).toMatchObject({ ok: false, error: expect.stringContaining("powers of two") as unknown });
    expect(parseValues("capacity", "16..4096 by 16", allocators)).toMatchObject({ ok: false, error: expect.stringContaining("at most 64") as unknown });
    expect(parseValues("minAlign", " , ", allocators)).toEqual({ ok: false, error: "Enter at least one value." });
  });

  it("start from the preset's minimum alignments in order", () => {
    expect(defaultValues("minAlign", BASE, allocators)).toEqual(["1", "2", "4", "8", "16"]);
    expect(defaultValues("preset", BASE, allocators)).toEqual(allocators.map((a) => a.name));
  });

  it("refuse a minimum alignment sweep on an allocator that has no MIN_ALIGN, naming the ones that do", () => {
    const without = allocators.filter((a) => a.minAligns.length === 0).map((a) => a.name);
    const withIt = allocators.filter((a) => a.minAligns.length > 0).map((a) => a.name);
    expect(without).toContain("fitzgen-down");
    expect(withIt).toEqual(expect.arrayContaining(["bumpalo", "bump-scope-up", "up-min-align"]));
    const base = { ...BASE, allocator: "fitzgen-down" };
    const message = `fitzgen-down has no MIN_ALIGN setting, so a minimum alignment sweep has nothing to vary. Presets that have one: ${withIt.join(", ")}.`;
    expect(sweepUnavailable("minAlign", base, allocators)).toBe(message);
    expect(specOf({ param: "minAlign", values: ["8"] }, base, allocators)).toEqual({ ok: false, error: message });
    // Other parameters, and the same sweep on a preset with the setting, run.
    expect(sweepUnavailable("preset", base, allocators)).toBeNull();
    expect(sweepUnavailable("minAlign", BASE, allocators)).toBeNull();
    expect(specOf({ param: "minAlign", values: ["8"] }, BASE, allocators).ok).toBe(true);
  });

  it("call presets and targets categories (no line joins them) and sizes amounts", () => {
    expect(["minAlign", "target", "preset", "capacity", "generatorSize", "generatorAlign"].filter((p) => isCategorical(p as never))).toEqual(["target", "preset"]);
  });

  it("recover a generated program's random mix from its first line", () => {
    const options = { ops: 30, minSize: 2, maxSize: 90, minAlign: 2, maxAlign: 32, seed: 99 };
    expect(generatorOf(randomMix(options))).toEqual(options);
    expect(generatorOf("a = alloc 1")).toEqual(RANDOM_MIX_DEFAULTS);
    const spec = specOf({ param: "generatorAlign", values: ["1-4"] }, { ...BASE, source: randomMix(options) }, allocators);
    if (!spec.ok) throw new Error(spec.error);
    expect(sweepPoints(spec.spec, allocators)[0]?.config.source).toBe(randomMix({ ...options, minAlign: 1, maxAlign: 4 }));
  });
});

describe("running a sweep", () => {
  it("gives each point the figures of an individual run of its configuration", async () => {
    const specs: SweepSpec[] = [
      { param: "minAlign", values: ["1", "2", "4", "8", "16"], base: BASE },
      { param: "target", values: ["64", "wasm32"], base: BASE },
      { param: "preset", values: ["bumpalo", "fitzgen-down", "cpp-arena", "bump-scope-down"], base: BASE },
      { param: "capacity", values: ["64", "256", "4096"], base: BASE },
      { param: "generatorSize", values: ["1-8", "1-256"], base: BASE, generator: RANDOM_MIX_DEFAULTS },
    ];
    for (const spec of specs) {
      const result = await runSweep(points, spec, allocators);
      expect(result.cancelled).toBe(false);
      expect(result.points).toHaveLength(spec.values.length);
      for (const p of result.points) {
        expect(p.ok, p.point.label).toBe(true);
        if (p.ok) expect(p.figures, p.point.label).toEqual(expected(traceOf(p.point.config)));
      }
    }
  });

  it("measures what the parameter changes: MIN_ALIGN on bumpalo changes instructions and padding", async () => {
    const result = await runSweep(points, { param: "minAlign", values: ["1", "16"], base: BASE }, allocators);
    const [one, sixteen] = result.points;
    if (!one?.ok || !sixteen?.ok) throw new Error("both points run");
    expect(one.figures.instructions).toBeGreaterThan(0);
    expect(sixteen.figures.instructions).not.toBe(one.figures.instructions);
    expect(sixteen.figures.padding).toBeGreaterThan(one.figures.padding);
    expect(pointText(one, "instructions")).toBe(`MIN_ALIGN 1: ${(one.figures.instructions ?? 0).toLocaleString("en-US")} wasm instructions`);
  });

  it("reports progress n of N and stops early when cancelled", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    const result = await runSweep(points, { param: "capacity", values: ["64", "128", "256", "512", "1024"], base: BASE }, allocators, {
      signal: controller.signal,
      onProgress: (done, total) => {
        seen.push(`${done}/${total}`);
        if (done === 2) controller.abort();
      },
    });
    expect(seen).toEqual(["1/5", "2/5"]);
    expect(result.cancelled).toBe(true);
    expect(result.total).toBe(5);
    expect(result.points.map((p) => p.point.value)).toEqual(["64", "128"]);
  });

  it("keeps going past a configuration whose program fails, with its error at that point", async () => {
    const result = await runSweep(points, { param: "minAlign", values: ["1", "3", "8"], base: BASE }, allocators);
    expect(result.points.map((p) => p.ok)).toEqual([true, false, true]);
    const failed = result.points[1];
    expect(failed?.ok === false && failed.error.message).toBe("minimum alignment 3 is not allowed for bumpalo: use one of 1, 2, 4, 8, 16");
    if (failed) expect(pointText(failed, "instructions")).toBe("MIN_ALIGN 3: error: minimum alignment 3 is not allowed for bumpalo: use one of 1, 2, 4, 8, 16");
    // A program error on the line it is on.
    const bad = await runSweep(points, { param: "target", values: ["64"], base: { ...BASE, source: "a = alloc 8\nb = alloc 8 align 3" } }, allocators);
    expect(bad.points[0]).toMatchObject({ ok: false, error: { line: 2 } });
  });
});

describe("CSV", () => {
  it("writes a header and one row per point, quoting an error that holds commas", async () => {
    const source = "a = alloc 1\nb = alloc u64\nfree b";
    const base: SweepConfig = { source, allocator: "bumpalo", target: "64", capacity: 256, minAlign: null };
    const result = await runSweep(points, { param: "minAlign", values: ["1", "5"], base }, allocators);
    const t = expected(traceOf({ ...base, minAlign: 1 }));
    expect(sweepCsv(result)).toBe(
      [
        "parameter,value,allocator,target,capacity,min_align,wasm_instructions,wasm_branches,padding_bytes,metadata_bytes,leaked_bytes,chunks,peak_footprint_bytes,ops,failed_ops,error",
        `minAlign,1,bumpalo,64,256,1,${t.instructions},${t.branches},${t.padding},${t.metadata},${t.leaked},${t.chunks},${t.peakFootprint},3,0,`,
        'minAlign,5,bumpalo,64,256,5,,,,,,,,,,"line 1, column 1: minimum alignment 5 is not allowed for bumpalo: use one of 1, 2, 4, 8, 16"',
        "",
      ].join("\r\n"),
    );
    // The numbers are real: a 1-byte block, then 8 aligned to 8, on bumpalo's chunk.
    expect(t.instructions).toBeGreaterThan(0);
    expect(t.chunks).toBe(1);
  });
});
