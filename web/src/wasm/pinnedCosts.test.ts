// Exact counts the page and the CLI show, pinned: a change to any model's
// code, to the meter or to the way ops are replayed shows up here as a diff,
// and the commit that changes one of these numbers says why. (What the
// counts mean is checked elsewhere: crates/meter/tests/shipped.rs holds every
// one of them to wasmtime's fuel.)
import { describe, expect, it } from "vitest";
import * as bumplab from "../../pkg-cost/cost.js";
import { loadCostModuleSync, loadTraceModuleSync } from "./node";

/** Every op kind, the fast path and (where a preset makes its chunk on demand) the slow one. */
const PROGRAM = "a = alloc 1\nb = alloc u64\ncheckpoint s\nc = alloc 24 align 16\nrestore s\nb = realloc b 16\nfree b\nreset\n";

/** [instructions, branches] or, where the op ran a slow path, [instructions, branches, slow instructions, slow branches]. */
type Count = readonly [number, number] | readonly [number, number, number, number];
interface Pinned {
  wasm32: readonly Count[];
  /** When the 64-bit model's counts differ from the wasm32 one's. */
  "64"?: readonly Count[];
  /** The real crate, compiled to wasm32 (null: not run, e.g. bumpalo has no checkpoints). */
  real?: readonly (Count | null)[];
}

const PINNED: Record<string, Pinned> = {
  "fitzgen-down": { wasm32: [[22, 2], [20, 2], [2, 0], [22, 2], [4, 0], [28, 3], [0, 0], [7, 0]] },
  "hinckley-up-naive": { wasm32: [[32, 3], [27, 3], [2, 0], [32, 3], [4, 0], [25, 2], [0, 0], [4, 0]] },
  "hinckley-up": { wasm32: [[27, 1], [25, 1], [2, 0], [27, 1], [4, 0], [25, 2], [0, 0], [4, 0]] },
  "up-min-align": { wasm32: [[38, 1], [15, 1], [2, 0], [38, 1], [4, 0], [39, 2], [0, 0], [4, 0]] },
  "down-min-align": { wasm32: [[31, 2], [18, 2], [2, 0], [31, 2], [4, 0], [37, 3], [0, 0], [7, 0]] },
  "bumper-alloc-buffer": { wasm32: [[17, 1], [17, 1], [2, 0], [17, 1], [4, 0], [17, 1], [0, 0], [3, 0]] },
  "bumper-slab": {
    wasm32: [[21, 1], [21, 1], [12, 0], [21, 1], [24, 3], [27, 2], [0, 0], [64, 5, 27, 4]],
    "64": [[15, 1], [15, 1], [16, 0], [15, 1], [28, 3], [21, 2], [0, 0], [64, 5, 27, 4]],
  },
  "cpp-arena": {
    wasm32: [[500, 27, 489, 26], [51, 3], [20, 1], [54, 3], [28, 3], [60, 4], [0, 0], [358, 25, 353, 25]],
    "64": [[496, 27, 485, 26], [51, 3], [20, 1], [54, 3], [28, 3], [60, 4], [0, 0], [351, 25, 346, 25]],
  },
  "bump-scope-up": {
    wasm32: [[31, 1], [27, 1], [8, 0], [31, 1], [27, 2], [31, 3], [10, 1], [26, 2]],
    real: [[33, 1], [29, 1], [7, 0], [33, 1], [10, 1], [29, 3], [10, 1], [32, 3]],
  },
  "bump-scope-down": {
    wasm32: [[25, 1], [23, 1], [8, 0], [25, 1], [27, 2], [36, 3], [10, 1], [26, 2]],
    real: [[27, 1], [25, 1], [7, 0], [27, 1], [10, 1], [46, 4], [10, 1], [30, 3]],
  },
  bumpalo: {
    // The restore puts the saved pointer back as it is (no max with the current one).
    wasm32: [[370, 21, 330, 18], [24, 2], [8, 0], [49, 4], [19, 2], [44, 5], [10, 1], [14, 2]],
    "64": [[370, 20, 330, 17], [24, 2], [8, 0], [49, 4], [19, 2], [44, 5], [10, 1], [14, 2]],
    real: [[256, 19, 212, 16], [26, 2], null, [53, 4], null, [46, 5], [11, 1], [24, 2]],
  },
  "blink-alloc": {
    // The slow path checks the chunk's Layout stays within isize::MAX.
    wasm32: [[332, 17, 320, 16], [28, 3], [18, 0], [37, 3], [31, 3], [34, 5], [10, 2], [17, 2]],
    "64": [[298, 16, 286, 15], [28, 3], [18, 0], [37, 3], [38, 4], [34, 5], [10, 2], [17, 2]],
  },
  "llvm-bump-ptr": {
    wasm32: [[414, 23, 379, 22], [30, 1], [16, 0], [34, 1], [34, 4], [30, 1], [0, 0], [42, 3]],
    "64": [[405, 21, 370, 20], [30, 1], [16, 0], [34, 1], [38, 4], [30, 1], [0, 0], [42, 3]],
  },
  "pmr-monotonic": {
    wasm32: [[401, 22, 381, 21], [34, 2], [8, 0], [44, 2], [20, 2], [41, 2], [0, 0], [353, 24]],
    "64": [[392, 21, 372, 20], [34, 2], [16, 0], [44, 2], [24, 2], [41, 2], [0, 0], [353, 24]],
  },
  "zig-arena": {
    // Over page_allocator (the default child): its size classes on wasm32,
    // its pages on 64-bit; the fast path also leaves for the slow one when
    // its sums wrap (where Zig's safety checks panic).
    wasm32: [[368, 23, 353, 21], [37, 3], [18, 0], [765, 47, 710, 44], [847, 47], [53, 6], [23, 3], [247, 13]],
    "64": [[195, 15, 178, 13], [37, 3], [18, 0], [208, 17, 151, 14], [407, 20], [53, 6], [23, 3], [241, 13]],
  },
  "zig-fixed-buffer": {
    wasm32: [[51, 3], [40, 2], [2, 0], [51, 3], [4, 0], [45, 6], [19, 2], [3, 0]],
    "64": [[51, 3], [40, 2], [2, 0], [51, 3], [4, 0], [47, 6], [19, 2], [3, 0]],
  },
};

/** dlmalloc's counts for the same program: the same on every preset and target. */
const BASELINE: readonly ([number, number] | null)[] = [[501, 14], [84, 7], null, [329, 18], [155, 14], [130, 10], [87, 8], [109, 10]];

interface RawCost {
  wasm_instructions: number;
  wasm_branches: number;
  slow_instructions: number;
  slow_branches: number;
}
interface RawTrace {
  ops: { cost?: RawCost }[];
  real?: { ops?: { cost?: RawCost }[] };
  baseline?: { ops: { cost?: RawCost }[] };
}

const count = (c: RawCost): Count =>
  c.slow_instructions > 0 || c.slow_branches > 0
    ? [c.wasm_instructions, c.wasm_branches, c.slow_instructions, c.slow_branches]
    : [c.wasm_instructions, c.wasm_branches];

function trace(allocator: string, target: string): RawTrace {
  loadCostModuleSync(); // initialises the module once
  return JSON.parse(bumplab.traceProgram(PROGRAM, allocator, target, undefined, undefined)) as RawTrace;
}

describe("pinned costs", () => {
  it("covers every allocator", () => {
    const names = loadTraceModuleSync()
      .allocators()
      .map((a) => a.name);
    expect(Object.keys(PINNED).sort()).toEqual([...names].sort());
  });

  for (const [allocator, pinned] of Object.entries(PINNED)) {
    for (const target of ["wasm32", "64"] as const) {
      it(`${allocator} on ${target}`, () => {
        const t = trace(allocator, target);
        expect(t.ops.map((o) => count(o.cost!))).toEqual(target === "64" ? (pinned["64"] ?? pinned.wasm32) : pinned.wasm32);
        if (target === "wasm32" && pinned.real) {
          expect(t.real?.ops?.map((o) => (o.cost ? count(o.cost) : null))).toEqual(pinned.real);
        }
        expect(t.baseline?.ops.map((o) => (o.cost ? [o.cost.wasm_instructions, o.cost.wasm_branches] : null))).toEqual(BASELINE);
      });
    }
  }

  it("the bump-scope models are within 3 instructions of the crate on the fast path, bumpalo's within 5", () => {
    for (const [allocator, limit] of [["bump-scope-up", 3], ["bump-scope-down", 3], ["bumpalo", 5]] as const) {
      const t = trace(allocator, "wasm32");
      // op 2 (`b = alloc u64`): an aligned allocation in the chunk op 1 made or found.
      const model = t.ops[1]!.cost!;
      const real = t.real!.ops![1]!.cost!;
      expect(model.slow_instructions).toBe(0);
      expect(Math.abs(model.wasm_instructions - real.wasm_instructions), allocator).toBeLessThanOrEqual(limit);
      expect(model.wasm_branches, allocator).toBe(real.wasm_branches);
    }
  });
});
