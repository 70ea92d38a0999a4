import { describe, expect, it } from "vitest";
import { exportFileName, inlineStyle, pngSize } from "./export";

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
