import { describe, expect, it } from "vitest";
import { loadEngineSync } from "../engine/node";
import type { Trace } from "../engine/types";
import { DEFAULT_PROGRAM } from "../state/reducer";
import { fromJson, type TraceView } from "../engine/traceView";
import { exportableTrace, exportFileName, inlineStyle, parseTraceFile, pngSize, traceJson, validateTrace } from "./export";

function realTrace(allocator = "bumpalo", target: "64" | "wasm32" = "wasm32"): Trace {
  const r = loadEngineSync().trace({ source: `${DEFAULT_PROGRAM}\nreset\nz = alloc 8`, allocator, target });
  if (!r.ok) throw new Error(r.error.message);
  return r.trace;
}

/** A deep copy with one change made by `edit`. */
function edited(edit: (t: Record<string, unknown> & { ops: Record<string, unknown>[]; chunks: Record<string, unknown>[] }) => void): string {
  const t = JSON.parse(traceJson(realTrace())) as Parameters<typeof edit>[0];
  edit(t);
  return JSON.stringify(t);
}

function errorOf(text: string): string {
  const r = parseTraceFile(text);
  if (r.ok) throw new Error("accepted");
  return r.error;
}

describe("which trace export writes", () => {
  it("the JSON a view was built from; a run past the JSON cap says so; else what the page traces again", () => {
    const t = realTrace();
    expect(exportableTrace(fromJson(t), {})).toBe(t);
    const { json: _, ...lean } = fromJson(t);
    const run = lean as TraceView;
    expect(exportableTrace(run, { onExportTrace: () => t })).toBe(t);
    expect(exportableTrace(run, {})).toBe("This trace cannot be exported.");
    const big = { ...run, length: 1_000_000 } as TraceView;
    expect(exportableTrace(big, { onExportTrace: () => t })).toBe(
      "Export is capped at 100,000 ops (the JSON trace's limit): this program ran 1,000,000.",
    );
  });
});

describe("trace files", () => {
  it("reads back every preset's exported trace unchanged", () => {
    for (const a of loadEngineSync().allocators()) {
      for (const target of ["64", "wasm32"] as const) {
        const trace = realTrace(a.name, target);
        const r = parseTraceFile(traceJson(trace));
        expect(r.ok, `${a.name} ${target}: ${r.ok ? "" : r.error}`).toBe(true);
        if (r.ok) expect(r.trace).toEqual(trace);
      }
    }
  });

  it("names the field that is wrong", () => {
    const cases: [string, RegExp][] = [
      ["", /not JSON/],
      ["{", /not JSON/],
      ["null", /the file must be an object/],
      ["[]", /the file must be an object/],
      ['"trace"', /the file must be an object/],
      ['{"version": 2}', /version 2; this Bump Lab reads trace format version 1/],
      ['{"ops": []}', /no version/],
      [edited((t) => (t["target"] = "x86")), /trace.target must be "64" or "wasm32"/],
      [edited((t) => (t["direction"] = "sideways")), /trace.direction/],
      [edited((t) => Reflect.deleteProperty(t, "chunks")), /trace.chunks must be a list/],
      [edited((t) => (t.chunks[0]!["capacity"] = -1)), /trace.chunks\[0\].capacity must be a whole number/],
      [edited((t) => t.chunks.push({ ...t.chunks[0] })), /repeats chunk/],
      [edited((t) => (t.ops[2]!["index"] = 7)), /trace.ops\[2\].index must be 2/],
      [edited((t) => (t.ops[0]!["kind"] = "malloc")), /trace.ops\[0\].kind must be one of alloc/],
      [edited((t) => (t.ops[0]!["chunk"] = 99)), /names chunk 99/],
      [edited((t) => (t.ops[0]!["address"] = "0x10")), /trace.ops\[0\].address must be a whole number/],
      [edited((t) => (t.ops[0]!["failed"] = "no")), /failed must be true or false/],
      [edited((t) => (t.ops[4]!["target_op"] = 4)), /target_op must name an earlier op/],
      [edited((t) => (t.ops[1]!["events"] = [{ kind: "bump" }])), /events\[0\].text must be text/],
      [edited((t) => (t.ops[1]!["stats"] = { used: 1 })), /stats.requested must be a number/],
      [edited((t) => (t.ops[1]!["stats"] = null)), /stats must be an object/],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(text);
      expect(error, text.slice(0, 80)).toMatch(message);
      expect(error).toMatch(/^(Not a Bump Lab trace: |The file is not JSON)/);
    }
  });

  it("drops a malformed real-crate or baseline annotation instead of refusing the trace", () => {
    const r = parseTraceFile(edited((t) => ((t["real"] = { crate: 3 }), (t["baseline"] = "none"))));
    expect(r.ok).toBe(true);
    if (r.ok) {
      expect(r.trace.real).toBeUndefined();
      expect(r.trace.baseline).toBeUndefined();
      expect(r.trace.ops.length).toBe(8);
    }
  });

  it("never throws on hostile JSON", () => {
    const hostile = [
      "[".repeat(100_000) + "]".repeat(100_000),
      '{"__proto__": {"polluted": true}, "version": 1}',
      '{"version": 1, "ops": {"length": 1e9}}',
      JSON.stringify({ version: 1, allocator: "a", target: "64", direction: "up", source: "s", source_path: "p", chunks: [], ops: [{ index: 0, kind: "alloc", line: 1, column: 1, failed: false, events: "x" }] }),
      "1e400",
      "\u0000",
    ];
    for (const text of hostile) expect(() => parseTraceFile(text)).not.toThrow();
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    for (const v of [undefined, Symbol("s"), () => 1, new Map(), 1n]) expect(validateTrace(v).ok).toBe(false);
  });
});

describe("export helpers", () => {
  it("names files by preset, figure and step, safely", () => {
    expect(exportFileName("memory map", "bumpalo", 3, "svg")).toBe("bumplab-bumpalo-memory-map-op-3.svg");
    expect(exportFileName("trace", "../../etc/passwd", null, "json")).toBe("bumplab-etc-passwd-trace.json");
    expect(exportFileName("cost", "", 0, "png")).toBe("bumplab-x-cost-op-0.png");
  });

  it("sizes PNGs at 2× in whole pixels", () => {
    expect(pngSize(720, 190)).toEqual({ width: 1440, height: 380 });
    expect(pngSize(100.3, 50.2)).toEqual({ width: 201, height: 100 });
    expect(pngSize(0, Number.NaN)).toEqual({ width: 1, height: 1 });
  });

  it("inlines the computed properties, leaving out inherited values and initial ones", () => {
    const own: Record<string, string> = { fill: "rgb(1, 2, 3)", "font-size": "12px", display: "inline", opacity: "0.5", stroke: "none" };
    const parent: Record<string, string> = { fill: "rgb(0, 0, 0)", "font-size": "12px", stroke: "none", opacity: "0.5" };
    const style = inlineStyle((p) => own[p] ?? "", (p) => parent[p] ?? "");
    expect(style).toBe("fill: rgb(1, 2, 3); opacity: 0.5");
    expect(inlineStyle((p) => own[p] ?? "", null)).toBe("fill: rgb(1, 2, 3); stroke: none; opacity: 0.5; font-size: 12px");
  });
});
