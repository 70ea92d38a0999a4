import { describe, expect, it } from "vitest";
import { tickSteps } from "./stepper";
import { storedTheme } from "./theme";

describe("scrubber ticks", () => {
  it("one per step while few", () => {
    expect(tickSteps(6)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(tickSteps(0)).toEqual([0]);
  });

  it("thinned to every k-th step for long programs, the last always kept", () => {
    const ticks = tickSteps(1000, 100);
    expect(ticks.length).toBeLessThanOrEqual(101);
    expect(ticks.slice(0, 3)).toEqual([0, 10, 20]);
    expect(ticks[ticks.length - 1]).toBe(1000);
    const odd = tickSteps(1001, 100);
    expect(odd.slice(0, 2)).toEqual([0, 11]);
    expect(odd[odd.length - 1]).toBe(1001);
  });

  it("a million-op program gets about a hundred ticks, not a DOM node per op", () => {
    const ticks = tickSteps(1_000_000);
    expect(ticks.length).toBeLessThanOrEqual(101);
    expect(ticks[1]).toBe(10_000);
    expect(ticks[ticks.length - 1]).toBe(1_000_000);
  });
});

describe("stored theme", () => {
  const storage = (value: string | null) => ({ getItem: () => value });
  it("reads light or dark, anything else is auto", () => {
    expect(storedTheme(storage("dark"))).toBe("dark");
    expect(storedTheme(storage("light"))).toBe("light");
    expect(storedTheme(storage("purple"))).toBe("auto");
    expect(storedTheme(storage(null))).toBe("auto");
    expect(storedTheme(null)).toBe("auto");
  });
});
