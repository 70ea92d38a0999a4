import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Realloc on the seed algorithms, as Hinckley's post describes it: bumping
// up, the last block grows in place; bumping down, it moves down over its own
// old bytes, which are copied. Each seed preset has one 256-byte chunk at
// 0x10010..0x10110 (crates/core/tests/fixed_realloc.rs checks the same
// addresses on the engine).
const START = 0x10010;
const END = START + 256;
const hex = (n: number) => `0x${n.toString(16)}`;
const GROW = "a = alloc 16 align 8\na = realloc a 32";

const counter = (page: Page) => page.locator(".step-counter");
const description = (page: Page) => page.locator(".step-description");
const details = (page: Page) => page.locator(".op-details");
const stat = (page: Page, key: string) => page.locator(`[data-stat="${key}"]`);
const block = (page: Page, name: string) => page.locator(`svg.memory-map g.chunk-row g[data-block="${name}"]`);

async function load(page: Page, allocator: string): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption(allocator);
  await page.getByRole("textbox", { name: "Program" }).fill(GROW);
  await expect(counter(page)).toHaveText(/\/ 2$/);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 2 / 2");
}

test("hinckley-up: growing the last block is in place, 0 bytes copied", async ({ page }) => {
  await load(page, "hinckley-up");
  await expect(page.locator("#allocator-description")).toContainText("the last block grows or shrinks in place when the chunk has room");
  await expect(description(page)).toHaveText(`realloc a: resized in place, 32 bytes at ${hex(START)}`);
  await expect(details(page).locator("[data-kind=grew_in_place]")).toContainText("grew in place from 16 to 32 bytes");
  await expect(details(page).locator("[data-kind=copied]")).toHaveCount(0);
  await expect(details(page).locator("[data-kind=leaked]")).toHaveCount(0);
  await expect(stat(page, "copied")).toHaveText("0 B");
  await expect(stat(page, "leaked")).toHaveText("0 B");
  await expect(stat(page, "used")).toHaveText("32 B");
  // One block on the map, still at the chunk's start, and the pointer past its new end.
  await expect(block(page, "a")).toHaveCount(1);
  await expect(block(page, "a")).toHaveAttribute("data-address", String(START));
  await expect(page.locator("svg.memory-map g.bump-pointer")).toHaveAttribute("data-address", String(START + 32));
});

test("fitzgen-down: growing the last block moves it down, 16 bytes copied, the old space reused", async ({ page }) => {
  await load(page, "fitzgen-down");
  await expect(page.locator("#allocator-description")).toContainText("bumped again from its own end");
  await expect(description(page)).toHaveText(`realloc a: moved to 32 bytes at ${hex(END - 32)}, old bytes reused`);
  await expect(details(page).locator("[data-kind=moved]")).toContainText(`moved from ${hex(END - 16)} to ${hex(END - 32)}`);
  await expect(details(page).locator("[data-kind=copied]")).toContainText("16 bytes copied");
  // The old 16 bytes are the new block's upper half: nothing is left behind.
  await expect(details(page).locator("[data-kind=leaked]")).toHaveCount(0);
  await expect(stat(page, "copied")).toHaveText("16 B");
  await expect(stat(page, "leaked")).toHaveText("0 B");
  await expect(stat(page, "used")).toHaveText("32 B");
  await expect(block(page, "a")).toHaveCount(1);
  await expect(block(page, "a")).toHaveAttribute("data-address", String(END - 32));
  await expect(page.locator("svg.memory-map g.bump-pointer")).toHaveAttribute("data-address", String(END - 32));
});

test("the realloc lesson's closing Try-it puts the article's algorithms beside bump-scope, with each realloc's cost", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "The realloc fast path: up keeps it, down copies" }).click();
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("button", { name: "Try it: compare with the article's algorithms" }).click();
  const view = page.locator('[data-view="compare"]');
  const columns = page.locator("section.compare-column");
  await expect(columns).toHaveCount(3);
  await expect(columns.nth(0).getByRole("heading")).toHaveText("bump-scope-up");
  await expect(columns.nth(1).getByRole("heading")).toHaveText("hinckley-up");
  await expect(columns.nth(2).getByRole("heading")).toHaveText("fitzgen-down");
  const row = (op: number) => view.getByRole("table").locator(`tbody tr[data-op="${op}"]`);
  // Both growths of s: in place in the two columns bumping up, moved bumping down.
  for (const op of [1, 2]) {
    await expect(row(op).locator("td").nth(0)).toContainText("in place");
    await expect(row(op).locator("td").nth(1)).toContainText("in place");
    await expect(row(op).locator("td").nth(2)).toContainText("moved");
    await expect(row(op)).toContainText("realloc in place vs in place vs moved");
    // Each column's count of wasm instructions leads its cell.
    for (const col of [0, 1, 2]) await expect(row(op).locator("td").nth(col)).toHaveText(/^\d+/);
  }

});

test("zig-arena: a realloc that moves its block says the old copy's bytes stay, not that nothing happens", async ({ page }) => {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("zig-arena");
  await page.getByRole("textbox", { name: "Program" }).fill("a = alloc 16\na = realloc a 100000");
  await page.getByRole("button", { name: "Last" }).click();
  // The realloc's micro-steps end with freeing the old copy, which is no longer the last block.
  const steps = page.locator(".op-details").getByRole("list", { name: "Micro-steps of the algorithm" });
  await expect(steps.last().locator("li").last()).toContainText("freeing it: not the most recent allocation, so its bytes stay in the buffer");
  await expect(page.locator(".op-details")).not.toContainText("nothing happens");
});
