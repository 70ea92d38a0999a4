import { readFile } from "node:fs/promises";
import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Compare's one-slide summary: lesson 1's program on the three allocators its
// closing Try-it compares. The counts are the Cost panel's (lesson 1's
// narration names them): b and c cost 20 instructions and 2 branches bumping
// down, 27 and 3 on hinckley-up-naive, 25 and 1 on hinckley-up.

const slide = (page: Page) => page.getByRole("region", { name: "Summary slide" });

async function compareLessonOne(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("button", { name: "Try it: compare all three" }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(3);
}

/** The slide's cells, row by row: the op's statement, then each column's words. */
async function cells(page: Page): Promise<string[][]> {
  return slide(page)
    .locator("svg g.summary-row")
    .evaluateAll((rows) => rows.map((r) => [...r.querySelectorAll("text")].map((t) => t.textContent ?? "")));
}

test("the summary slide opens from compare: ops × allocators, instructions, branches and padding per op, totals", async ({ page }) => {
  await compareLessonOne(page);
  await page.getByRole("button", { name: "Summary slide" }).click();
  await expect(slide(page)).toBeVisible();
  await expect(page.locator("#compare")).toBeHidden();
  await expect(slide(page).getByRole("img")).toHaveAccessibleName("Summary slide: 5 ops on 3 allocators");
  const rows = await cells(page);
  expect(rows).toHaveLength(5);
  expect(rows[1]).toEqual(["2. b = alloc u64", "20 instr · 2 br · 7 B pad", "27 instr · 3 br · 7 B pad", "25 instr · 1 br · 7 B pad"].map((t, i) => (i === 1 ? `▼ ${t}` : t)));
  // Totals over the run: one chunk each.
  const chunks = await slide(page)
    .locator('svg g.summary-total[data-total="Chunks made"] text')
    .allTextContents();
  expect(chunks).toEqual(["Chunks made", "1", "1", "1"]);
  // The op in view is the last: its row is marked.
  await expect(slide(page).locator("svg g.summary-row").last().locator("rect.summary-current")).toHaveCount(1);

  // Saved as SVG and PNG, the file the room sees.
  const svgDownload = page.waitForEvent("download");
  await slide(page).getByRole("button", { name: "Save SVG" }).click();
  const svgFile = await (await svgDownload).path();
  const svgText = await readFile(svgFile, "utf8");
  expect(svgText.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<svg')).toBe(true);
  expect(svgText).toContain("25 instr · 1 br · 7 B pad");
  const pngDownload = page.waitForEvent("download");
  await slide(page).getByRole("button", { name: "Save PNG" }).click();
  const png = await readFile(await (await pngDownload).path());
  expect([...png.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

  await slide(page).getByRole("button", { name: "Back to the columns" }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(3);
  await expect(slide(page)).toBeHidden();
});

test("the summary slide reads from the back of a room in presentation mode", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 720 });
  await compareLessonOne(page);
  await page.getByRole("button", { name: "Summary slide" }).click();
  await page.keyboard.press("p");
  await expect(page.getByRole("button", { name: "Present" })).toHaveAttribute("aria-pressed", "true");
  const svg = slide(page).locator("svg");
  await expect(svg).toBeVisible();
  // Its words at least 16 CSS px on screen, and the slide on one screen.
  const shown = await svg.evaluate((el) => {
    const text = el.querySelector("g.summary-row text");
    const box = el.getBoundingClientRect();
    return { text: text?.getBoundingClientRect().height ?? 0, bottom: box.bottom, right: box.right };
  });
  expect(shown.text).toBeGreaterThanOrEqual(16);
  expect(shown.bottom).toBeLessThanOrEqual(720);
  expect(shown.right).toBeLessThanOrEqual(1280);
});
