import { describe, expect, it } from "vitest";
import { RESERVE_SHARE, reservedHeight } from "./narration";

describe("the narration panel's reserved height", () => {
  // Lesson 1's steps as laid out at 1280 px wide: the summary and three short
  // steps, and its closing step of four paragraphs and three Try-it buttons.
  const lesson1 = [97, 147, 118, 97, 97, 397];

  it("is the tallest step within a quarter of the window: the closing step pushes the map instead", () => {
    expect(RESERVE_SHARE).toBe(0.25);
    expect(reservedHeight(lesson1, 800)).toBe(147);
    expect(reservedHeight(lesson1, 720)).toBe(147);
  });

  it("holds every step when the window is tall enough", () => {
    expect(reservedHeight(lesson1, 1588)).toBe(397);
    expect(reservedHeight(lesson1, 1587)).toBe(147);
  });

  it("is the shortest step when none is of ordinary length, and nothing for no steps", () => {
    expect(reservedHeight([300, 286], 800)).toBe(286);
    expect(reservedHeight([], 800)).toBe(0);
  });
});
