import { readFileSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// The x86-64 reference table's cells open the instructions behind their
// counts (docs/bench/native-x86_64-listings.json, fetched on first open).

type Row = [string, string, number] | [string, string, number, number, number];
interface Cell {
  ir: number;
  bc: number;
  functions: { name: string; object: string; instructions: Row[] }[];
}
const LISTINGS = JSON.parse(readFileSync("docs/bench/native-x86_64-listings.json", "utf8")) as { cells: Record<string, Record<string, Cell>> };
const listing = (c: string, lib: string): Cell => {
  const l = LISTINGS.cells[c]?.[lib];
  if (!l) throw new Error(`no listing for ${c} / ${lib}`);
  return l;
};
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? "" : one.endsWith("h") ? "es" : "s"}`;

async function openTable(page: Page, preset: string): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption(preset);
  await page.getByRole("textbox", { name: "Program" }).fill("a = alloc 1");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(page.locator(".step-counter")).toHaveText("op 1 / 1");
  await page.locator("details.x86-ref > summary").click();
}

test("a cell opens its listing: the total equals the cell, the fast path's branch is not taken", async ({ page }) => {
  const fetched: string[] = [];
  page.on("request", (r) => {
    if (r.url().includes("native-x86_64-listings")) fetched.push(r.url());
  });
  await openTable(page, "bumpalo");
  // Nothing is fetched until a listing is opened.
  expect(fetched).toEqual([]);
  const cell = page.getByRole("button", { name: "alloc_u8, bumpalo: 10 / 1. Show its instructions" });
  await expect(cell).toHaveText("10 / 1");
  await cell.click();
  const dialog = page.getByRole("dialog", { name: "alloc_u8 · bumpalo" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("status")).toHaveText("Total: 10 instructions, 1 conditional branch (the table's 10 / 1)");
  expect(fetched).toHaveLength(1);
  await expect(dialog.getByRole("heading", { name: "bumplab_bench__alloc_u8__bumpalo" })).toBeVisible();
  const table = dialog.getByRole("region", { name: "Instructions of bumplab_bench__alloc_u8__bumpalo" });
  const rows = table.locator("tbody tr");
  const expected = listing("alloc_u8", "bumpalo").functions[0]!.instructions;
  await expect(rows).toHaveCount(expected.length);
  await expect(rows.first().locator("td")).toHaveText([expected[0]![0], expected[0]![1], "1", ""]);
  // The one conditional branch, in words: bumpalo's chunk has room, so it falls through.
  const branch = table.locator("tr.is-branch");
  await expect(branch).toHaveCount(1);
  await expect(branch.locator("td.x86-listing-text")).toHaveText(/^je [0-9a-f]+ <bumplab_bench__alloc_u8__bumpalo\+0x[0-9a-f]+>$/);
  await expect(branch.locator("td.x86-listing-branch")).toHaveText("not taken 1×");
  await expect(rows.last().locator("td.x86-listing-text")).toHaveText("ret");
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
  await expect(cell).toBeFocused();
});

test("keyboard: Enter opens a cell whose entry calls memcpy, with taken branches; Escape closes it", async ({ page }) => {
  await openTable(page, "fitzgen-down");
  // The preset's own column is a listing too.
  const ours = listing("alloc_u8", "fitzgen_down");
  await expect(page.getByRole("button", { name: `alloc_u8, fitzgen-down: ${ours.ir} / ${ours.bc}. Show its instructions` })).toBeVisible();
  // bump-scope (down) copies the slice with libc's memcpy: two functions.
  const c = listing("alloc_u8_slice", "bump_scope_down");
  const cell = page.getByRole("button", { name: `alloc_u8_slice, bump-scope (down): ${c.ir} / ${c.bc}. Show its instructions` });
  await cell.focus();
  await page.keyboard.press("Enter");
  const dialog = page.getByRole("dialog", { name: "alloc_u8_slice · bump-scope (down)" });
  await expect(dialog).toBeVisible();
  await expect(dialog.getByRole("status")).toHaveText(`Total: ${plural(c.ir, "instruction")}, ${plural(c.bc, "conditional branch")} (the table's ${c.ir} / ${c.bc})`);
  await expect(dialog.locator("section.x86-listing-fn h3")).toHaveText(["bumplab_bench__alloc_u8_slice__bump_scope_down", "__memcpy_avx_unaligned_erms"]);
  await expect(dialog.locator("p.x86-listing-fn-meta").nth(1)).toContainText("libc.so.6 · ");
  // Each branch's outcome in words, as the file records it; memcpy's size tests jump.
  const branches = c.functions.flatMap((f) => f.instructions.filter((r) => r.length === 5));
  expect(branches.length).toBe(c.bc);
  const words = branches.map((r) => [r[3] > 0 ? `taken ${r[3]}×` : "", r[4] > 0 ? `not taken ${r[4]}×` : ""].filter(Boolean).join(", "));
  expect(words).toContain("taken 1×");
  await expect(dialog.locator("tr.is-branch td.x86-listing-branch")).toHaveText(words);
  await expect(dialog.getByRole("region", { name: "Instructions of __memcpy_avx_unaligned_erms" }).locator("tr.is-taken").first()).toContainText("taken 1×");
  await page.keyboard.press("Escape");
  await expect(dialog).toBeHidden();
  await expect(cell).toBeFocused();
});
