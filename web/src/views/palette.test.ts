// The palette in styles/base.css, light and dark: text and the controls' edges keep
// WCAG contrast on the surfaces they sit on, in both themes.

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const css = readFileSync(new URL("../styles/base.css", import.meta.url), "utf8");
const rootStart = css.indexOf(":root {");
const root = css.slice(rootStart, css.indexOf("\n}", rootStart));

/** Each custom property's [light, dark] colour, from `light-dark(#light, #dark)` or one plain colour. */
const palette = new Map<string, [string, string]>();
for (const m of root.matchAll(/(--[\w-]+):\s*([^;]+);/g)) {
  const [, name = "", value = ""] = m;
  const pair = /^light-dark\((#[0-9a-f]{6}),\s*(#[0-9a-f]{6})\)$/i.exec(value.trim());
  if (pair?.[1] && pair[2]) palette.set(name, [pair[1], pair[2]]);
  else if (/^#[0-9a-f]{6}$/i.test(value.trim())) palette.set(name, [value.trim(), value.trim()]);
}

function luminance(hex: string): number {
  const [r = 0, g = 0, b = 0] = [1, 3, 5].map((i) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

// [foreground, background, minimum]: 4.5 for text, 3 for graphics and control edges.
const PAIRS: [string, string, number][] = [
  ["--text", "--bg", 4.5],
  ["--text", "--surface", 4.5],
  ["--text", "--code-current", 4.5],
  ["--muted", "--bg", 4.5],
  ["--muted", "--surface", 4.5],
  ["--muted", "--surface-2", 4.5],
  ["--muted", "--code-current", 4.5],
  ["--accent", "--surface", 4.5],
  ["--accent-ink", "--accent", 4.5],
  ["--accent", "--accent-soft", 4.5],
  ["--warn-ink", "--warn-soft", 4.5],
  ["--error", "--error-soft", 4.5],
  ["--focus", "--bg", 3],
  ["--focus", "--surface", 3],
  ["--border-strong", "--surface", 3],
  ["--series-requested", "--surface-2", 3],
  ["--series-used", "--surface-2", 3],
  ["--series-padding", "--surface-2", 3],
  ["--series-leaked", "--surface-2", 3],
];

describe("palette contrast", () => {
  for (const [fg, bg, min] of PAIRS) {
    it(`${fg} on ${bg}: at least ${min}:1 in light and dark`, () => {
      const f = palette.get(fg);
      const b = palette.get(bg);
      if (!f || !b) throw new Error(`${fg} or ${bg} is not a colour in :root`);
      expect(contrast(f[0], b[0])).toBeGreaterThanOrEqual(min);
      expect(contrast(f[1], b[1])).toBeGreaterThanOrEqual(min);
    });
  }

  it("the dark theme differs from the light one", () => {
    expect(palette.get("--bg")).toEqual(["#f4f6f8", "#0e1116"]);
  });
});
