import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { opAt } from "../wasm/traceView";
import { traced } from "../test/runs";
import { describeMicro, describeStep, microIndex, microSteps } from "./describe";

// fitzgen-down, 256-byte chunk at 0x10010: `b = alloc u64` runs the bump-down
// algorithm's four recorded micro-steps; `free b` one, in fixed.rs (nothing to
// reclaim).
const t = traced("a = alloc 1\nb = alloc u64\nfree b");
const [b, free] = [opAt(t, 1), opAt(t, 2)];

describe("micro-steps", () => {
  it("flattens an op's events' steps in order", () => {
    const steps = microSteps(b);
    expect(steps.map((s) => s.id)).toEqual(["checked_sub", "round_down", "check_start:pass", "bump"]);
    // Each step's line is the one its `// step:` comment marks in bump_down.rs.
    const source = readFileSync("crates/core/src/algorithms/bump_down.rs", "utf8").split("\n");
    for (const s of steps) {
      expect(s.file).toBe("bump-down");
      const marked = source[s.line - 1] ?? "";
      const below = source[s.line] ?? "";
      const marker = `// step: ${s.id.split(":")[0] ?? ""}`;
      expect(marked.trimEnd().endsWith(marker) || below.trim() === marker).toBe(true);
    }
    expect(microSteps(free).map((s) => [s.file, s.id])).toEqual([["fixed", "free"]]);
    expect(microSteps(undefined)).toEqual([]);
  });

  it("null (the op's end) shows the last micro-step", () => {
    expect(microIndex(b, null)).toBe(3);
    expect(microIndex(b, 1)).toBe(1);
    expect(microIndex(b, 9)).toBe(3);
    expect(microIndex(free, null)).toBe(0);
    // Before the first op there is no op, so no micro-step.
    expect(microIndex(undefined, null)).toBeNull();
  });

  it("says which micro-step is in view", () => {
    expect(describeMicro(b, 1)).toBe("2 of 4: round down to the alignment (one mask)");
    expect(describeMicro(b, null)).toBe("4 of 4: move the bump pointer down to the block");
    expect(describeMicro(free, null)).toBe("1 of 1: nothing to do: a plain bump allocator cannot reuse a freed block");
    expect(describeMicro(undefined, null)).toBeNull();
  });
});

describe("a failed request", () => {
  it("larger than the whole fixed chunk says it is too large, with both sizes", () => {
    for (const allocator of ["fitzgen-down", "zig-fixed-buffer"]) {
      const run = traced("a = alloc 100", allocator, { capacity: 64 });
      expect(describeStep(run, 1)).toBe("a: too large: 100 bytes requested, but the whole chunk holds only 64 bytes, so it can never fit");
    }
  });

  it("that would fit an empty chunk finds it full, the verb agreeing with 1 byte", () => {
    const run = traced("a = alloc 64\nb = alloc 1\nc = alloc 2", "fitzgen-down", { capacity: 64 });
    expect(describeStep(run, 2)).toBe("b: 1 byte (align 1) does not fit: the chunk is full");
    expect(describeStep(run, 3)).toBe("c: 2 bytes (align 1) do not fit: the chunk is full");
  });
});
