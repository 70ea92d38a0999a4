// Trace files: what export writes reads back by replaying its program, and
// anything else is refused with the field or the op that is wrong.
import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import type { Trace } from "../wasm/types";
import { DEFAULT_PROGRAM } from "../model/generators";
import { config, jsonTrace, viewResult } from "../test/runs";
import { parseTraceFile, replayDiffers, traceJson, type TraceFile } from "./traceFile";

const allocators = loadTraceModuleSync().allocators();
const SOURCE = `${DEFAULT_PROGRAM}\nreset\nz = alloc 8`;

function realTrace(allocator = "bumpalo", target: "64" | "wasm32" = "wasm32", capacity: number | null = null): Trace {
  return jsonTrace(config(SOURCE, allocator, { target, capacity }));
}

/** A deep copy of an exported trace with one change made by `edit`. */
function edited(edit: (t: Record<string, unknown> & { ops: Record<string, unknown>[]; program: Record<string, unknown> }) => void): string {
  const t = JSON.parse(traceJson(realTrace())) as Parameters<typeof edit>[0];
  edit(t);
  return JSON.stringify(t);
}

const parsed = (text: string): TraceFile => parseTraceFile(text, allocators);

function errorOf(text: string): string {
  const r = parsed(text);
  if (r.ok) throw new Error("accepted");
  return r.error;
}

/** What an import says of a file: null when its replay matches every op. */
function importOf(text: string): string | null {
  const r = parsed(text);
  if (!r.ok) return r.error;
  const replay = viewResult(r.config);
  if (!replay.ok) return replay.error.message;
  return replayDiffers(replay.trace, r.ops);
}

describe("trace files", () => {
  it("every preset's exported trace replays to the same ops, with its settings", () => {
    let checked = 0;
    for (const a of allocators) {
      for (const target of ["64", "wasm32"] as const) {
        const trace = realTrace(a.name, target);
        const text = traceJson(trace);
        const r = parsed(text);
        expect(r.ok, `${a.name} ${target}: ${r.ok ? "" : r.error}`).toBe(true);
        if (!r.ok) continue;
        // A preset that takes a child allocator writes it, its default too.
        const child = a.children.length > 0 ? { child: a.children[0] } : {};
        expect(r.config).toEqual({ source: SOURCE, allocator: a.name, target, capacity: null, minAlign: null, ...child });
        expect(r.ops).toHaveLength(trace.ops.length);
        expect(importOf(text), `${a.name} ${target}`).toBeNull();
        checked++;
      }
    }
    expect(checked).toBe(2 * allocators.length);
    // A capacity and a minimum alignment travel with the program.
    const tuned = jsonTrace(config(SOURCE, "up-min-align", { capacity: 512, minAlign: 16 }));
    const r = parsed(traceJson(tuned));
    expect(r.ok && r.config).toMatchObject({ allocator: "up-min-align", capacity: 512, minAlign: 16 });
    expect(importOf(traceJson(tuned))).toBeNull();
    // zig-arena's child allocator too; a file without one predates the
    // setting, when zig-arena ran over the heap that never resizes.
    const heap = jsonTrace(config("repeat 12 { x = alloc 100 }", "zig-arena", { child: "heap" }));
    const file = traceJson(heap);
    expect(parsed(file).ok && (parsed(file) as { config: { child?: string } }).config.child).toBe("heap");
    expect(importOf(file)).toBeNull();
    const old = JSON.parse(file) as { program: Record<string, unknown> };
    delete old.program["child"];
    const oldFile = JSON.stringify(old);
    expect(parsed(oldFile).ok && (parsed(oldFile) as { config: { child?: string } }).config.child).toBe("heap");
    expect(importOf(oldFile)).toBeNull();
  });

  it("names the field that is wrong", () => {
    const cases: [string, RegExp][] = [
      ["", /not JSON/],
      ["{", /not JSON/],
      ["null", /the file must hold an object/],
      ["[]", /the file must hold an object/],
      ['"trace"', /the file must hold an object/],
      ['{"version": 2}', /version 2; this Bump Lab reads trace format version 1/],
      ['{"ops": []}', /no version/],
      [edited((t) => (t["allocator"] = "jemalloc")), /trace.allocator must be one of this Bump Lab's allocators \(fitzgen-down, /],
      [edited((t) => (t["target"] = "x86")), /trace.target must be "64" or "wasm32"/],
      [edited((t) => Reflect.deleteProperty(t, "program")), /no program to replay .*export it again/],
      [edited((t) => (t.program["capacity"] = -1)), /trace\.program\.capacity must be a whole number from 1 to 1073741824, not -1\./],
      [edited((t) => Reflect.deleteProperty(t, "ops")), /trace.ops must be a list/],
      [edited((t) => (t.ops[0]!["failed"] = "no")), /trace.ops\[0\] must have a kind and failed/],
      [edited((t) => (t.ops[0]!["address"] = "0x10")), /trace\.ops\[0\]\.address must be a whole number from 0 to 9007199254740991, not "0x10" \(text\)\./],
    ];
    for (const [text, message] of cases) {
      const error = errorOf(text);
      expect(error, text.slice(0, 80)).toMatch(message);
      expect(error).toMatch(/^(Not a Bump Lab trace: |The file is not JSON)/);
    }
  });

  it("refuses a file whose ops differ from what the engine does, naming the first op that differs", () => {
    const trace = realTrace();
    const at = (i: number): number => trace.ops[i]!.address!;
    expect(importOf(edited((t) => (t.ops[1]!["address"] = at(1) + 8)))).toBe(
      `op 2: its block is at 0x${at(1).toString(16)} here and at 0x${(at(1) + 8).toString(16)} in the file (the file was edited, or made by another version of Bump Lab)`,
    );
    expect(importOf(edited((t) => (t.ops[0]!["kind"] = "free")))).toMatch(/^op 1: it is an alloc here and a free in the file/);
    expect(importOf(edited((t) => t.ops.pop()))).toBe("the program runs 8 ops here and the file lists 7");
    expect(importOf(edited((t) => (t.program["text"] = "a = alloc 1")))).toBe("the program runs 1 ops here and the file lists 8");
    expect(importOf(edited((t) => (t.ops[2]!["size"] = 999)))).toMatch(/^op 3: its size is 24 here and 999 in the file/);
    expect(importOf(edited((t) => (t.ops[0]!["block"] = "<img src=x>")))).toMatch(/^op 1: it names a here and <img src=x> in the file/);
  });

  it("rejects hostile JSON with a message, never an exception", () => {
    const hostile = [
      "[".repeat(100_000) + "]".repeat(100_000),
      '{"__proto__": {"polluted": true}, "version": 1}',
      '{"version": 1, "ops": {"length": 1e9}}',
      JSON.stringify({ version: 1, allocator: "bumpalo", target: "64", program: { text: 5 }, ops: [] }),
      JSON.stringify({ version: 1, allocator: "bumpalo", target: "64", program: { text: "a = alloc 8" }, ops: [{ kind: "alloc", failed: false, events: "x", address: 1e300 }] }),
      "1e400",
      "\u0000",
    ];
    for (const text of hostile) {
      let r: TraceFile | undefined;
      expect(() => (r = parsed(text))).not.toThrow();
      expect(r?.ok, text.slice(0, 60)).toBe(false);
      expect(r && !r.ok && r.error, text.slice(0, 60)).toMatch(/^(Not a Bump Lab trace: |The file is not JSON)/);
    }
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
  });
});
