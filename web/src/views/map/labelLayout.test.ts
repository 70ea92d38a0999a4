import { describe, expect, it } from "vitest";
import { layoutLabels } from "./labelLayout";

const opts = { measure: (t: string) => t.length * 7, inset: 4, lanes: 2, width: 400, gap: 6 };

describe("layoutLabels", () => {
  it("puts a label inside when it fits, preferring the long form", () => {
    const [wide, medium] = layoutLabels(
      [
        { id: 0, x0: 0, x1: 100, full: "c · 24 B", short: "c" },
        { id: 1, x0: 100, x1: 130, full: "d · 20 B", short: "d" },
      ],
      opts,
    );
    expect(wide).toEqual({ id: 0, mode: "inside", text: "c · 24 B", x: 50 });
    expect(medium).toEqual({ id: 1, mode: "inside", text: "d", x: 115 });
  });

  it("stacks narrow neighbours' callouts in lanes without overlap, dropping the rest", () => {
    const narrow = [0, 1, 2, 3].map((i) => ({ id: i, x0: 200 + i * 3, x1: 202 + i * 3, full: "name", short: "v" }));
    const placed = layoutLabels(narrow, opts);
    // Two stack over their blocks; a third fits right of its leader; one is dropped.
    expect(placed.map((p) => [p.id, p.mode === "callout" ? p.lane : -1])).toEqual([
      [0, 0],
      [2, 1],
      [3, 0],
    ]);
    const lane0 = placed.filter((p) => p.mode === "callout" && p.lane === 0).map((p) => p.x);
    expect(Math.abs((lane0[1] ?? 0) - (lane0[0] ?? 0))).toBeGreaterThanOrEqual(7 + opts.gap);
  });

  it("keeps callouts inside the drawing", () => {
    const [p] = layoutLabels([{ id: 0, x0: 399, x1: 400, full: "long", short: "long" }], opts);
    expect(p?.mode).toBe("callout");
    expect(p?.x).toBe(400 - 14);
  });
});

describe("layoutLabels with reserved extents", () => {
  it("keeps callouts off reserved text, beside it when the block touches it", () => {
    const reserved = [{ lane: 0, left: 100, right: 201 }];
    const [p] = layoutLabels([{ id: 0, x0: 201, x1: 208, full: "key", short: "key" }], { ...opts, reserved });
    expect(p?.mode).toBe("callout");
    if (p?.mode !== "callout") return;
    expect(p.lane).toBe(0);
    // Wholly right of its leader, clear of the reserved text.
    expect(p.x - 21 / 2).toBeGreaterThanOrEqual(203);
  });
});
