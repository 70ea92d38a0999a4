import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Compare mode opens from the run on screen: its program and settings as
// column 1, its counterpart beside it with the same settings where they
// carry. Addresses were read off the engine's traces (`npx bumplab trace`):
//   a = alloc 1 / b = alloc u64 / c = alloc 24 align 16 / d = alloc [u32; 5] / free b / e = alloc u128
//   (the start page: fitzgen-down, 64-bit, default settings)
//   fitzgen-down: a 0x1010f, b 0x10100 (offset 0xf0)
//   hinckley-up:  a 0x10010, b 0x10018 (offset 0x8)
//   bumpalo:      a 0x101cf, b 0x101c0 (its first chunk, made on first use)
//   s = alloc 8 / s = realloc s 16 / t = alloc 1 / u = alloc u64, wasm32, capacity 1024, MIN_ALIGN 8:
//   bump-scope-up:   s 0x10020, grows in place; t 0x10030; u 0x10038 (a 2016-byte chunk)
//   bump-scope-down: s 0x107e8, moves to 0x107e0; t 0x107d8; u 0x107d0
//   (t would be at 0x107df with MIN_ALIGN 1, at 0x107c8 on 64-bit, in a 480-byte chunk by default)
// Instructions per alloc on the start page: fitzgen-down 22, hinckley-up 27.

const view = (page: Page) => page.locator('[data-view="compare"]');
const column = (page: Page, i: number) => view(page).locator(`section.compare-column[data-column="${i}"]`);
const maps = (page: Page) => view(page).locator("svg.memory-map");
/** A block on a column's map, by the name its accessible label starts with. */
const block = (col: Locator, name: string) => col.getByRole("img", { name: new RegExp(`^${name}:`) });
const opRow = (page: Page, index: number) => view(page).getByRole("table").locator(`tbody tr[data-op="${index}"]`);
const compareButton = (page: Page) => page.getByRole("button", { name: "Compare", exact: true });

/** Every allocator the page offers, from the editor's menu. */
async function allocatorNames(page: Page): Promise<string[]> {
  return page.locator("#allocator option").evaluateAll((options) => options.map((o) => (o as HTMLOptionElement).value));
}

/** The allocators a column's visible text names other than its own (a name counts only as a whole, hyphens included). */
async function othersNamedIn(col: Locator, own: string, names: readonly string[]): Promise<string[]> {
  const text = await col.innerText();
  return names.filter((n) => n !== own && new RegExp(`(?<![\\w-])${n.replace(/[-]/g, "\\-")}(?![\\w-])`).test(text));
}

test("compare from the start page: the run on screen beside its counterpart, stepping together", async ({ page }) => {
  await expect(page.getByRole("combobox", { name: "Allocator", exact: true })).toHaveValue("fitzgen-down");
  await expect(compareButton(page)).toHaveAttribute("title", "Run this program on fitzgen-down beside hinckley-up");
  await compareButton(page).click();
  await expect(maps(page)).toHaveCount(2);
  await expect(column(page, 0).getByRole("heading")).toHaveText("fitzgen-down");
  await expect(column(page, 1).getByRole("heading")).toHaveText("hinckley-up");
  await expect(view(page).locator(".compare-why")).toHaveText(/^The seed algorithms over the same fixed chunk/);

  // The same block b: high in the chunk bumping down, low bumping up.
  const down = column(page, 0);
  const up = column(page, 1);
  await expect(block(down, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10100\b/);
  await expect(block(up, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10018\b/);

  // Back to the start: neither map holds a block; one step places a in both.
  await page.getByRole("button", { name: "First", exact: true }).click();
  await expect(up.locator("g[data-block]")).toHaveCount(0);
  await expect(down.locator("g[data-block]")).toHaveCount(0);
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(block(down, "a")).toHaveAttribute("aria-label", /^a: .*\b0x1010f\b/);
  await expect(block(up, "a")).toHaveAttribute("aria-label", /^a: .*\b0x10010\b/);
  await expect(block(up, "b")).toHaveCount(0);
  await expect(opRow(page, 0)).toHaveAttribute("aria-current", "step");

  // The table: a row per op, the cheaper column marked in words, the placement difference spelled out.
  const row2 = opRow(page, 1);
  // Each cell: instructions, branches, then the running sum. fitzgen-down's bump
  // down: 22 wasm instructions and 2 branches for `alloc 1` (a run-time
  // layout), 20 for the u64 (42 over both ops); hinckley-up's one-branch bump
  // up: 27 and 25, 1 branch each (52).
  await expect(row2.locator("td").nth(0)).toHaveText(/^20▼ fewest instructions2 brΣ 42/);
  await expect(row2.locator("td").nth(1)).toHaveText(/^251 brΣ 52/);
  await expect(row2.locator("td").nth(1)).not.toContainText("fewest");
  await expect(row2).toContainText("offset 0xf0 vs 0x8");

  // Choosing a row steps both columns there.
  await row2.click();
  await expect(row2).toHaveAttribute("aria-current", "step");
  await expect(opRow(page, 0)).not.toHaveAttribute("aria-current", "step");
  await expect(block(down, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10100\b/);
  await expect(block(up, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10018\b/);

  // Column 2 on another preset: its map and heading follow, column 1 stays; the pair's reason goes.
  await page.getByRole("combobox", { name: "Allocator 2" }).selectOption("bumpalo");
  await expect(column(page, 1).getByRole("heading")).toHaveText("bumpalo");
  await expect(block(column(page, 1), "b")).toHaveAttribute("aria-label", /^b: .*\b0x101c0\b/);
  await expect(block(down, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10100\b/);
  await expect(view(page).getByRole("columnheader", { name: "bumpalo" })).toBeVisible();
  await expect(view(page).locator(".compare-why")).toBeHidden();

  // Exit: the compare view goes, the single map comes back.
  await view(page).getByRole("button", { name: "Exit compare" }).click();
  await expect(view(page)).toHaveCount(0);
  await expect(page.locator("#memory-map svg.memory-map")).toBeVisible();
  await expect(compareButton(page)).toBeVisible();
});

test("Compare from bump-scope-up opens bump-scope-up beside its counterpart on the same target", async ({ page }) => {
  await page.getByRole("textbox", { name: "Program" }).fill("s = alloc 8\ns = realloc s 16\nt = alloc 1\nu = alloc u64");
  await page.getByRole("combobox", { name: "Allocator", exact: true }).selectOption("bump-scope-up");
  await page.getByRole("combobox", { name: "Target", exact: true }).selectOption("wasm32");
  await page.getByRole("combobox", { name: "Capacity", exact: true }).selectOption("1024");
  await page.getByRole("combobox", { name: "Minimum alignment", exact: true }).selectOption("8");
  await expect(page.locator("#memory-map").getByRole("img", { name: /^u:/ })).toHaveAttribute("aria-label", /\b0x10038\b/);
  await expect(compareButton(page)).toHaveAttribute("title", "Run this program on bump-scope-up beside bump-scope-down");
  await compareButton(page).click();
  await expect(maps(page)).toHaveCount(2);

  // Column 1 is the run that was on screen; column 2 its counterpart, every setting carried.
  const here = column(page, 0);
  const there = column(page, 1);
  await expect(here.getByRole("heading")).toHaveText("bump-scope-up · MIN_ALIGN 8 · capacity 1024");
  await expect(there.getByRole("heading")).toHaveText("bump-scope-down · MIN_ALIGN 8 · capacity 1024");
  for (const n of [1, 2]) {
    await expect(view(page).getByRole("combobox", { name: `Target ${n}` })).toHaveValue("wasm32");
    await expect(view(page).getByRole("combobox", { name: `Minimum alignment ${n}` })).toHaveValue("8");
  }
  await expect(view(page).getByRole("combobox", { name: "Allocator 1" })).toHaveValue("bump-scope-up");
  await expect(view(page).getByRole("combobox", { name: "Allocator 2" })).toHaveValue("bump-scope-down");
  // The addresses are the carried settings' own: t at 0x107d8 only on wasm32, with MIN_ALIGN 8, in a 1024-byte chunk.
  await expect(block(here, "u")).toHaveAttribute("aria-label", /^u: .*\b0x10038\b/);
  await expect(block(there, "t")).toHaveAttribute("aria-label", /^t: .*\b0x107d8\b/);
  await expect(block(there, "u")).toHaveAttribute("aria-label", /^u: .*\b0x107d0\b/);
  // What the pair teaches: up grows the last block in place, down moves it.
  await expect(opRow(page, 1)).toContainText("realloc in place vs moved");
  await expect(view(page).locator(".compare-why")).toHaveText(/^One crate, both directions/);

  // Every text under a column is about that column: no other allocator is named there, at any step.
  const names = await allocatorNames(page);
  expect(names).toHaveLength(16);
  for (const step of ["First", "Step forward", "Step forward", "Last"]) {
    await page.getByRole("button", { name: step, exact: true }).click();
    expect(await othersNamedIn(here, "bump-scope-up", names), `column 1 after ${step}`).toEqual([]);
    expect(await othersNamedIn(there, "bump-scope-down", names), `column 2 after ${step}`).toEqual([]);
  }
  // The sentence under the columns names the op they all ran, not one run's result.
  const stepper = page.locator("#stepper");
  await expect(stepper).toContainText("Line 4, u = alloc u64: each column shows what its own allocator did.");
  await expect(stepper).not.toContainText("0x");
  await expect(page.locator("#map-summary")).toBeHidden();
});

test("from the realloc lesson, Compare opens the lesson's own pair and puts the narration away until compare closes", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "The realloc fast path: up keeps it, down copies" }).click();
  const narration = page.locator('[data-view="narration"]');
  // The lesson opens before its first op; the first op's narration describes the run on screen.
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(narration).toContainText("This is bump-scope bumping up");
  await expect(compareButton(page)).toHaveAttribute("title", "Run this program on bump-scope-up beside bumpalo");
  await compareButton(page).click();
  await expect(maps(page)).toHaveCount(2);
  await expect(column(page, 0).getByRole("heading")).toHaveText("bump-scope-up");
  await expect(column(page, 1).getByRole("heading")).toHaveText("bumpalo");
  await expect(view(page).getByRole("combobox", { name: "Target 2" })).toHaveValue("wasm32");
  await expect(view(page).locator(".compare-why")).toHaveText(/^The lesson's pair: bump-scope bumping up grows the last block in place/);

  // The lesson stays (its title, its way out); its narration of the single run does not.
  await expect(narration.getByRole("heading", { name: "The realloc fast path: up keeps it, down copies" })).toBeVisible();
  await expect(page.getByText("This is bump-scope bumping up")).toBeHidden();
  await expect(view(page).locator(".compare-narration-note")).toBeVisible();
  // Both growths of the last block: in place bumping up, moved bumping down, as the lesson says.
  await expect(opRow(page, 1)).toContainText("realloc in place vs moved");
  await expect(opRow(page, 2)).toContainText("realloc in place vs moved");
  const names = await allocatorNames(page);
  expect(await othersNamedIn(column(page, 0), "bump-scope-up", names)).toEqual([]);
  expect(await othersNamedIn(column(page, 1), "bumpalo", names)).toEqual([]);

  // Leaving compare brings the narration back, at the same op.
  await page.keyboard.press("Escape");
  await expect(view(page)).toHaveCount(0);
  await expect(narration).toContainText("This is bump-scope bumping up");
});

test("a setting the counterpart cannot take falls back to its default, and the column's heading says so", async ({ page }) => {
  await page.getByRole("combobox", { name: "Allocator", exact: true }).selectOption("zig-fixed-buffer");
  await page.getByRole("combobox", { name: "Capacity", exact: true }).selectOption("64");
  await compareButton(page).click();
  await expect(maps(page)).toHaveCount(2);
  await expect(column(page, 0).getByRole("heading")).toHaveText("zig-fixed-buffer · capacity 64");
  // zig-arena's capacity is what a reset keeps, not a buffer's size: 64 would mean something else there.
  await expect(column(page, 1).getByRole("heading")).toHaveText(
    "zig-arena · default capacity: column 1's 64 is its buffer size, here capacity is the reset's retain limit",
  );
  await expect(view(page).locator(".compare-why")).toHaveText(/^Zig's two standard arenas/);
});

test("columns are added up to four and removed down to two; minimum alignment shows where the preset has it", async ({ page }) => {
  await compareButton(page).click();
  await expect(maps(page)).toHaveCount(2);
  const add = view(page).getByRole("button", { name: "Add column" });
  // At two columns none can go.
  await expect(view(page).getByRole("button", { name: /^Remove column/ })).toHaveCount(0);
  await add.click();
  await expect(maps(page)).toHaveCount(3);
  await add.click();
  await expect(maps(page)).toHaveCount(4);
  await expect(add).toBeHidden();
  await expect(view(page).getByRole("table").locator("thead th")).toHaveCount(6);

  // fitzgen-down has no minimum-alignment setting; bumpalo has five.
  await expect(view(page).getByRole("combobox", { name: "Minimum alignment 1" })).toBeHidden();
  await page.getByRole("combobox", { name: "Allocator 1" }).selectOption("bumpalo");
  const align = view(page).getByRole("combobox", { name: "Minimum alignment 1" });
  await expect(align).toBeVisible();
  await expect(align.locator("option")).toHaveText(["1 (default)", "2", "4", "8", "16"]);

  await view(page).getByRole("button", { name: "Remove column 3" }).click();
  await expect(maps(page)).toHaveCount(3);
  await view(page).getByRole("button", { name: "Remove column 3" }).click();
  await expect(maps(page)).toHaveCount(2);
  await expect(view(page).getByRole("button", { name: /^Remove column/ })).toHaveCount(0);
});
