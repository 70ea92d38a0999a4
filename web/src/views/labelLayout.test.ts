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
    expect(placed.map((p) => (p.mode === "callout" ? p.lane : -1))).toEqual([0, 1]);
  });

  it("keeps callouts inside the drawing", () => {
    const [p] = layoutLabels([{ id: 0, x0: 399, x1: 400, full: "long", short: "long" }], opts);
    expect(p?.mode).toBe("callout");
    expect(p?.x).toBe(400 - 14);
  });
});
