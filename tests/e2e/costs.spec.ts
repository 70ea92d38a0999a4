import { readFileSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// The Cost panel. Facts checked against the wasm engine (traceProgram in
// Node), bumpalo, 64-bit: `repeat 10 { x = alloc 64 }` is 10 ops; op 1 makes
// the first chunk and op 8 the second (7 blocks of 64 fill 448 bytes), so
// those two run the slow path and every other op is the same fast path.
const TEN = "repeat 10 { x = alloc 64 }";
/** The global allocator's count closes a bar's name when the trace has a baseline. */
const BASELINE = "( · global allocator: \\d+)?";

const counter = (page: Page) => page.locator(".step-counter");
const bars = (page: Page) => page.locator("svg.cost-svg g.cost-bar");
/** The bar of op `n` (numbered from 1, as the step counter counts). */
const bar = (page: Page, n: number) => page.locator(`svg.cost-svg g.cost-bar[data-op="${n - 1}"]`);
const num = async (page: Page, n: number, attr: string): Promise<number> => Number(await bar(page, n).getAttribute(attr));

async function run(page: Page, preset: string, source: string, ops: number): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption(preset);
  await page.getByRole("textbox", { name: "Program" }).fill(source);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText(`op ${ops} / ${ops}`);
}


test("bumpalo: one bar per op, the new chunk's bar has a slow part and costs more", async ({ page }) => {
  await run(page, "bumpalo", TEN, 10);
  await expect(page.getByRole("heading", { name: "Cost" })).toBeVisible();
  await expect(bars(page)).toHaveCount(10);
  await expect(page.locator(".cost-note")).toHaveText(/^10 ops, \d+ wasm instructions in all( · global allocator \(dlmalloc, wasm32\): \d+)?$/);

  // Op 8 made chunk 1: a slow segment on top of the fast one, drawn and counted.
  expect(await num(page, 8, "data-slow")).toBeGreaterThan(0);
  await expect(bar(page, 8).locator("rect.slow")).toBeVisible();
  expect(Number(await bar(page, 8).locator("rect.slow").getAttribute("height"))).toBeGreaterThan(1);
  expect(await num(page, 8, "data-total")).toBeGreaterThan(await num(page, 7, "data-total"));
  // Op 7 is a plain bump: fast only.
  expect(await num(page, 7, "data-slow")).toBe(0);
  await expect(bar(page, 7).locator("rect.slow")).toBeHidden();
  expect(await num(page, 7, "data-total")).toBe(await num(page, 2, "data-total"));

  // Accessible names start with the op, as the step counter numbers it.
  const total = await num(page, 8, "data-total");
  const fast = await num(page, 8, "data-fast");
  const slow = await num(page, 8, "data-slow");
  await expect(page.getByRole("button", { name: /^op 8 · alloc x/ })).toHaveAccessibleName(
    new RegExp(`^op 8 · alloc x · run-time layout · ${total} wasm instructions \\(fast ${fast}, slow ${slow}\\) · \\d+ branches${BASELINE}$`),
  );
  // The current op (the last) is highlighted.
  await expect(bar(page, 10)).toHaveClass(/is-current/);
  await expect(bar(page, 10)).toHaveAttribute("aria-current", "step");

  // The cost model, stated where the numbers are.
  await expect(page.locator("#cost-model")).toBeVisible();
  await expect(page.locator("#cost-model")).toContainText(
    "Counted on the compiled wasm: 1 per executed instruction (block/loop/end/else/nop count 0); branches are executed if/br_if/br_table. Wasm and x86-64 counts are different instruction sets.",
  );
  await expect(page.getByRole("link", { name: "How it is measured" })).toHaveAttribute("href", "docs/trace-format.html#cost");
});

test("clicking a bar moves the step to its op; hovering shows its numbers", async ({ page }) => {
  await run(page, "bumpalo", TEN, 10);
  await bar(page, 8).locator("rect.hit").click();
  await expect(counter(page)).toHaveText("op 8 / 10");
  await expect(bar(page, 8)).toHaveClass(/is-current/);
  await expect(bar(page, 10)).not.toHaveClass(/is-current/);
  // The step panel says what op 8's code executed, and why it was slow.
  await expect(page.locator(".op-cost")).toContainText(/^cost \d+ wasm instructions \(\d+ in the slow path: new chunk\) · \d+ conditional branches/);
  await expect(page.locator(".map-summary")).toContainText("in 2 chunks");

  await bar(page, 3).locator("rect.hit").hover();
  await expect(page.locator(".cost-tooltip")).toBeVisible();
  await expect(page.locator(".cost-tooltip")).toHaveText(
    new RegExp(`^op 3 · alloc x · run-time layout · \\d+ wasm instructions \\(fast \\d+, slow 0\\) · \\d+ branches${BASELINE}$`),
  );
  await bar(page, 3).locator("rect.hit").click();
  await expect(counter(page)).toHaveText("op 3 / 10");
  await expect(page.locator(".op-cost")).toContainText(/\d+ wasm instructions · \d+ conditional branches \(fast path\)/);
});

test("keyboard: one bar in the tab order, arrows move between bars, Enter jumps", async ({ page }) => {
  await run(page, "bumpalo", TEN, 10);
  // The current op's bar is the one in the tab order.
  await expect(page.locator('svg.cost-svg g.cost-bar[tabindex="0"]')).toHaveCount(1);
  await expect(bar(page, 10)).toHaveAttribute("tabindex", "0");
  await bar(page, 10).focus();
  await expect(page.locator(".cost-tooltip")).toHaveText(/^op 10 · alloc x/);
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("ArrowLeft");
  await expect(bar(page, 8)).toBeFocused();
  // Moving between bars does not step the program.
  await expect(counter(page)).toHaveText("op 10 / 10");
  await expect(page.locator(".cost-tooltip")).toHaveText(/^op 8 · alloc x · run-time layout · \d+ wasm instructions \(fast \d+, slow [1-9]\d*\)/);
  await page.keyboard.press("Enter");
  await expect(counter(page)).toHaveText("op 8 / 10");
  await expect(bar(page, 8)).toBeFocused();
  await page.keyboard.press("Home");
  await expect(bar(page, 1)).toBeFocused();
  await page.keyboard.press(" ");
  await expect(counter(page)).toHaveText("op 1 / 10");
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  // Tabbing away and back returns to the bar last moved to.
  await page.keyboard.press("Shift+Tab");
  await page.keyboard.press("Tab");
  await expect(bar(page, 1)).toBeFocused();
});

test("the toggle counts branches instead of instructions", async ({ page }) => {
  await run(page, "bumpalo", TEN, 10);
  const instructions = await num(page, 8, "data-total");
  await page.getByRole("radio", { name: "Branches" }).check();
  await expect(page.getByRole("radio", { name: "Branches" })).toBeChecked();
  await expect(page.locator(".cost-note")).toHaveText(/^10 ops, \d+ conditional branches in all/);
  await expect(bar(page, 8)).toHaveAccessibleName(
    new RegExp(`^op 8 · alloc x · run-time layout · \\d+ wasm branches \\(fast \\d+, slow [1-9]\\d*\\) · \\d+ instructions${BASELINE}$`),
  );
  const branches = await num(page, 8, "data-total");
  expect(branches).toBeGreaterThan(0);
  expect(branches).toBeLessThan(instructions);
  // The step stays where it was.
  await expect(counter(page)).toHaveText("op 10 / 10");
});

test("a long program is binned, and says so", async ({ page }) => {
  await run(page, "bumpalo", "repeat 1200 { x = alloc 64 }", 1200);
  await expect(bars(page)).toHaveCount(200);
  await expect(page.locator(".cost-note")).toContainText("binned: 6 ops per bar");
  await expect(bars(page).first()).toHaveAccessibleName(/^op 1 \(costliest of ops 1–6\) · alloc x · run-time layout · \d+ wasm instructions/);
  // A bin jumps to its costliest op: the one that made the bin's chunk.
  await bars(page).nth(3).locator("rect.hit").click();
  await expect(counter(page)).toHaveText("op 23 / 1200");
  await expect(bars(page).nth(3)).toHaveClass(/is-current/);
});

test("wasm32 bumpalo: the real crate's count beside the model's, and its placement verdict", async ({ page }) => {
  await run(page, "bumpalo", TEN, 10);
  await page.getByRole("combobox", { name: "Target" }).selectOption("wasm32");
  await expect(page.getByRole("combobox", { name: "Target" })).toHaveValue("wasm32");
  await expect(bars(page)).toHaveCount(10);
  expect(await num(page, 1, "data-slow")).toBeGreaterThan(0);
  await expect(page.locator(".op-cost")).toContainText("wasm instructions");
  // The engine runs the real crate on wasm32 bumpalo traces (trace.real).
  await expect(page.locator(".cost-legend")).toContainText("real bumpalo 3.20.4");
  await expect(page.locator(".cost-status")).toHaveText("✓ Placements match bumpalo 3.20.4, run live compiled to wasm32.");
  await expect(page.locator(".cost-banner")).toBeHidden();
  await expect(page.locator(".op-cost-verdict")).toHaveText("✓ matches bumpalo 3.20.4 placement");
  await expect(page.locator(".op-cost-real")).toHaveText(/^real bumpalo 3\.20\.4: \d+ wasm instructions$/);
  await expect(page.locator(".op-cost-baseline")).toHaveText(/^global allocator \(dlmalloc, wasm32\): \d+ instructions$/);
  await expect(bar(page, 10)).toHaveAccessibleName(/ · real bumpalo 3\.20\.4: \d+ · global allocator: \d+$/);
  await expect(bar(page, 10).locator("path.real-mark")).toBeVisible();
  // 64-bit: the crate (a wasm32 build) is not compared, and the page says why, quietly.
  await page.getByRole("combobox", { name: "Target" }).selectOption("64");
  await expect(page.locator(".cost-status")).toContainText("bumpalo 3.20.4 not compared:");
  await expect(page.locator(".op-cost-verdict")).toHaveCount(0);
  await expect(page.locator(".op-cost-note")).toContainText("bumpalo 3.20.4 not compared:");
  await expect(page.locator(".cost-banner")).toBeHidden();
});

test("x86-64 reference: the current op's row and the preset's column are highlighted", async ({ page }) => {
  // bumpalo makes its first chunk in op 1 (warm_up); op 2's `alloc u8` is alloc_u8, a u8's layout a constant in both.
  await run(page, "bumpalo", "x = alloc 8\na = alloc u8\nb = alloc u32\nreset", 4);
  const section = page.locator("details.x86-ref");
  await section.locator("summary").click();
  await expect(section).toHaveJSProperty("open", true);
  await expect(section.locator(".x86-note")).toContainText("measured once with callgrind (npm run bench:native)");
  await expect(section.locator(".x86-meta")).toHaveText(/^rustc \d+\.\d+\.\d+ .* · measured \d{4}-\d{2}-\d{2}$/);
  // The last op (reset) is highlighted, near the table's end.
  await expect(section.locator("tr.is-current")).toHaveAttribute("data-case", "reset");

  await page.getByRole("button", { name: "Step back" }).click();
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 2 / 4");
  const row = section.locator("tr.is-current");
  await expect(row).toHaveCount(1);
  await expect(row).toHaveAttribute("data-case", "alloc_u8");
  await expect(row.locator('td[data-lib="bumpalo"]')).toHaveText("10 / 1");
  // The preset's own column: the bumpalo model.
  await expect(section.locator("thead th.is-preset")).toHaveText("model bumpalo");
  await expect(row.locator("td.is-preset")).toHaveText(/^\d+ \/ \d+$/);
  // Scrolled into view inside the table's box.
  const box = await section.locator(".x86-scroll").boundingBox();
  const r = await row.boundingBox();
  expect(box && r && r.y >= box.y && r.y + r.height <= box.y + box.height).toBe(true);
});

// The counts are the allocator's own code: Hinckley's "Bump Allocation: Up or
// Down?" counts the fast paths' branches as 2 (down), 3 (first up) and 1
// (one-branch up), and so must the chart, on both targets, with the
// descriptions saying the same. Exact counts, from the metered module, of
// `b = alloc u64`, whose layout is a constant.
const FAST = "a = alloc 1\nb = alloc u64";
for (const [preset, instructions, branches] of [
  ["fitzgen-down", 20, 2],
  ["hinckley-up-naive", 27, 3],
  ["hinckley-up", 25, 1],
] as const) {
  test(`${preset}: the fast path is ${instructions} wasm instructions and ${branches} branches on both targets, as described`, async ({ page }) => {
    await run(page, preset, FAST, 2);
    for (const target of ["wasm32", "64"]) {
      await page.getByRole("combobox", { name: "Target" }).selectOption(target);
      await expect(bar(page, 2)).toHaveAttribute("data-total", String(instructions));
      await expect(bar(page, 2)).toHaveAttribute("data-slow", "0");
      await expect(page.locator(".op-cost")).toContainText(
        `${instructions} wasm instructions · ${branches} conditional ${branches === 1 ? "branch" : "branches"} (fast path)`,
      );
      await expect(page.locator("#allocator-description")).toContainText(
        new RegExp(`An allocation's fast path takes ${branches} conditional ${branches === 1 ? "branch" : "branches"}[.,]`),
      );
      // On 64-bit the page says what these counts are, and where the native ones are.
      const note = page.locator(".cost-target-note");
      if (target === "64") await expect(note).toHaveText(/^Target 64-bit: these are wasm instructions of the 64-bit model .* the native x86-64 counts are in the x86-64 reference below\. $/);
      else await expect(note).toHaveText("");
    }
  });
}

test("the global allocator above the model's scale sits past an axis break, each value written", async ({ page }) => {
  // dlmalloc's first malloc sets itself up (hundreds of instructions); the bump of the u64 is 20.
  await run(page, "fitzgen-down", FAST, 2);
  await page.getByRole("combobox", { name: "Target" }).selectOption("wasm32");
  await expect(bar(page, 2)).toHaveAttribute("data-total", "20");
  const first = Number(await bar(page, 1).getAttribute("data-baseline"));
  const second = Number(await bar(page, 2).getAttribute("data-baseline"));
  expect(first).toBeGreaterThan(20);
  expect(second).toBeGreaterThan(20);
  const brk = page.locator("svg.cost-svg g.axis-break");
  await expect(brk).toBeVisible();
  await expect(brk).toHaveAttribute("data-baseline-max", String(Math.max(first, second)));
  await expect(brk.locator("text.axis-break-label")).toHaveText(`≤${Math.max(first, second)}`);
  await expect(bar(page, 1).locator("line.baseline-mark")).toHaveClass(/is-clipped/);
  await expect(bar(page, 1).locator("text.baseline-value")).toHaveText(String(first));
  await expect(bar(page, 2).locator("text.baseline-value")).toHaveText(String(second));
  // The model's bars keep their own scale, below the break.
  const barTop = Number(await bar(page, 2).locator("rect.fast").getAttribute("y"));
  const markY = Number(await bar(page, 2).locator("line.baseline-mark").getAttribute("y1"));
  expect(markY).toBeLessThan(barTop);
  // A program whose global-allocator counts stay on the scale draws no break.
  await run(page, "bumpalo", "x = alloc 8", 1);
  await page.getByRole("combobox", { name: "Target" }).selectOption("wasm32");
  const model = Number(await bar(page, 1).getAttribute("data-total"));
  const base = Number(await bar(page, 1).getAttribute("data-baseline"));
  if (base <= model) await expect(brk).toBeHidden();
});

test("How it is measured opens the Cost section as a page, rendered and in UTF-8", async ({ page, context }) => {
  await run(page, "fitzgen-down", FAST, 2);
  const link = page.getByRole("link", { name: "How it is measured" });
  await expect(link).toHaveAttribute("target", "_blank");
  const [docs] = await Promise.all([context.waitForEvent("page"), link.click()]);
  await docs.waitForLoadState();
  expect(new URL(docs.url()).pathname).toMatch(/\/docs\/trace-format\.html$/);
  expect(new URL(docs.url()).hash).toBe("#cost");
  expect(await docs.evaluate(() => document.characterSet)).toBe("UTF-8");
  const heading = docs.getByRole("heading", { name: "Cost", exact: true });
  await expect(heading).toBeInViewport();
  await expect(docs.locator("main")).toContainText("the code that calls a root is never instrumented");
  // Rendered, not raw Markdown: a table, and no heading marks or table pipes left.
  await expect(docs.locator("table").first()).toBeVisible();
  expect(await docs.locator("main").innerText()).not.toMatch(/^#{2,3} |\| --- \|/m);
  // Its links lead to the other documents' pages.
  await expect(docs.locator('a[href$="bench/native-x86_64.html"]').first()).toBeAttached();
  await docs.close();
});

test("x86-64 reference: every case's notes are listed under the table, and a note mark leads to its note", async ({ page }) => {
  await run(page, "hinckley-up-naive", "a = alloc 1", 1);
  const section = page.locator("details.x86-ref");
  await section.locator("summary").click();
  const notes = section.locator("ol.x86-notes li");
  // The notes are those of docs/bench/native-x86_64.json, each text once.
  const bench = JSON.parse(readFileSync("docs/bench/native-x86_64.json", "utf8")) as { cases: { notes?: { text: string }[] }[] };
  const texts = [...new Set(bench.cases.flatMap((c) => (c.notes ?? []).map((n) => n.text)))];
  await expect(notes).toHaveCount(texts.length);
  await expect(notes.first()).toHaveText(texts[0]!);
  const marks = section.locator("button.x86-note-ref");
  const firstMark = marks.first();
  const n = await firstMark.getAttribute("data-note");
  await firstMark.click();
  await expect(section.locator(`#x86-note-${n}`)).toBeFocused();
  // The page's share link is not touched by a note mark.
  expect(new URL(page.url()).hash).not.toContain("x86-note");
});
