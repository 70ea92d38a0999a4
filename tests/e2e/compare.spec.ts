import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Compare mode from the start page: bump up vs bump down on the default
// program, stepping together. Addresses were read off the wasm engine's
// traces (traceProgram in Node, 64-bit, default settings):
//   a = alloc 1 / b = alloc u64 / c = alloc 24 align 16 / d = alloc [u32; 5] / free b / e = alloc u128
//   hinckley-up:  a 0x10010, b 0x10018 (offset 0x8)
//   fitzgen-down: a 0x1010f, b 0x10100 (offset 0xf0)
//   bumpalo:      a 0x101cf, b 0x101c0 (its first chunk, made on first use)
// Instructions per alloc: hinckley-up 45, fitzgen-down 40.

const view = (page: Page) => page.locator('[data-view="compare"]');
const column = (page: Page, i: number) => view(page).locator(`section.compare-column[data-column="${i}"]`);
const maps = (page: Page) => view(page).locator("svg.memory-map");
/** A block on a column's map, by the name its accessible label starts with. */
const block = (col: Locator, name: string) => col.getByRole("img", { name: new RegExp(`^${name}:`) });
const opRow = (page: Page, index: number) => view(page).getByRole("table").locator(`tbody tr[data-op="${index}"]`);


test("up vs down in one click: two maps, the same block at different addresses, stepping together", async ({ page }) => {
  await page.getByRole("button", { name: "Compare up vs down" }).click();
  await expect(maps(page)).toHaveCount(2);
  await expect(column(page, 0).getByRole("heading")).toHaveText("hinckley-up");
  await expect(column(page, 1).getByRole("heading")).toHaveText("fitzgen-down");

  // The same block b: low in the chunk bumping up, high bumping down.
  const up = column(page, 0);
  const down = column(page, 1);
  await expect(block(up, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10018\b/);
  await expect(block(down, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10100\b/);

  // Back to the start: neither map holds a block; one step places a in both.
  await page.getByRole("button", { name: "First", exact: true }).click();
  await expect(up.locator("g[data-block]")).toHaveCount(0);
  await expect(down.locator("g[data-block]")).toHaveCount(0);
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(block(up, "a")).toHaveAttribute("aria-label", /^a: .*\b0x10010\b/);
  await expect(block(down, "a")).toHaveAttribute("aria-label", /^a: .*\b0x1010f\b/);
  await expect(block(up, "b")).toHaveCount(0);
  await expect(opRow(page, 0)).toHaveAttribute("aria-current", "step");

  // The table: a row per op, the cheaper column marked in words, the placement difference spelled out.
  const row2 = opRow(page, 1);
  // Each cell: instructions, branches, then the running sum. hinckley-up's one-branch
  // bump up: 27 wasm instructions and 1 branch (54 over both ops); fitzgen-down's bump
  // down: 22 and 2 (44).
  await expect(row2.locator("td").nth(0)).toHaveText(/^271 brΣ 54/);
  await expect(row2.locator("td").nth(1)).toHaveText(/^22▼ fewest instructions2 brΣ 44/);
  await expect(row2.locator("td").nth(1)).toContainText("fewest instructions");
  await expect(row2.locator("td").nth(0)).not.toContainText("fewest");
  await expect(row2).toContainText("offset 0x8 vs 0xf0");

  // Choosing a row steps both columns there.
  await row2.click();
  await expect(row2).toHaveAttribute("aria-current", "step");
  await expect(opRow(page, 0)).not.toHaveAttribute("aria-current", "step");
  await expect(block(up, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10018\b/);
  await expect(block(down, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10100\b/);

  // Column 2 on another preset: its map and heading follow, column 1 stays.
  await page.getByRole("combobox", { name: "Allocator 2" }).selectOption("bumpalo");
  await expect(column(page, 1).getByRole("heading")).toHaveText("bumpalo");
  await expect(block(column(page, 1), "b")).toHaveAttribute("aria-label", /^b: .*\b0x101c0\b/);
  await expect(block(up, "b")).toHaveAttribute("aria-label", /^b: .*\b0x10018\b/);
  await expect(view(page).getByRole("columnheader", { name: "bumpalo" })).toBeVisible();

  // Exit: the compare view goes, the single map comes back.
  await view(page).getByRole("button", { name: "Exit compare" }).click();
  await expect(view(page)).toHaveCount(0);
  await expect(page.locator("#memory-map svg.memory-map")).toBeVisible();
  await expect(page.getByRole("button", { name: "Compare up vs down" })).toBeVisible();
});

test("columns are added up to four and removed down to two; minimum alignment shows where the preset has it", async ({ page }) => {
  await page.getByRole("button", { name: "Compare up vs down" }).click();
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

  // hinckley-up has no minimum-alignment setting; bumpalo has five.
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
