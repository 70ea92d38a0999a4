import { test as bare, type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Programs recorded from real software (web/public/examples/recorded/), in
// the Programs menu. Each opens like a lesson written for bumpalo on 64-bit:
// its narration's figures are recomputed from its trace by
// web/src/model/recorded.test.ts (the JSON parser's: 2,425 ops, 47.5 wasm
// instructions per op against dlmalloc's 229.3).

const counter = (page: Page) => page.locator(".step-counter");
const narration = (page: Page) => page.locator('[data-view="narration"]');
const program = (page: Page) => page.getByRole("textbox", { name: "Program" });
const JSON_ARENA = "A JSON parser in a bumpalo arena (Rust, bumpalo)";

async function openRecorded(page: Page, title: string): Promise<void> {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: title }).click();
}

test("a recorded program opens from the Programs menu at its last op, narrated for the arena it was measured on", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  const group = page.getByRole("group", { name: "Recorded from real programs" });
  await expect(group.getByRole("menuitem")).toHaveCount(3);
  await expect(group.getByRole("menuitem", { name: JSON_ARENA })).toHaveAccessibleDescription(/^2,425 ops, narrated on bumpalo\. Recorded with: cargo run -p bumplab-record --example json_arena/);
  await page.keyboard.press("Escape");

  await openRecorded(page, "jq pretty-printing package-lock.json (C, malloc)");
  // 20,842 ops with 10,420 frees trace in slices for several seconds on a busy 2-core machine.
  await expect(counter(page)).toHaveText("op 20842 / 20842", { timeout: 60_000 });
  await expect(narration(page)).toContainText("jq 1.6 pretty-printing this repository's package-lock.json");

  await openRecorded(page, JSON_ARENA);
  await expect(counter(page)).toHaveText("op 2425 / 2425");
  await expect(program(page)).toHaveValue(/^# Recorded by bumplab-record 0\.1\.0 through the Rust Allocator wrapper/);
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("bumpalo");
  await expect(page.getByRole("combobox", { name: "Target" })).toHaveValue("64");
  await expect(narration(page).getByRole("heading", { name: `Recorded: ${JSON_ARENA}` })).toBeVisible();
  await expect(narration(page)).toContainText("Written for bumpalo, 64-bit");
  await expect(narration(page)).toContainText("Each op runs 47.5 wasm instructions on average, against 229.3 for dlmalloc");
  await expect(narration(page)).toContainText("Recorded with: cargo run -p bumplab-record --example json_arena");

  // Another arena: the narration's figures were bumpalo's, so they are put away, with the way back.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bump-scope-up");
  await expect(narration(page).getByRole("button", { name: "Back to the lesson" })).toBeVisible();
  await expect(narration(page)).not.toContainText("47.5 wasm instructions");
  await narration(page).getByRole("button", { name: "Back to the lesson" }).click();
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("bumpalo");
  await expect(narration(page)).toContainText("47.5 wasm instructions on average");
});

// Outside the playground fixture: the browser itself logs the failed request
// as a console error, which that fixture (rightly) fails on.
bare("a recorded program that does not load says so and leaves the program on screen", async ({ page }) => {
  const thrown: string[] = [];
  page.on("pageerror", (e) => thrown.push(e.message));
  await page.goto("/");
  await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
  const before = await program(page).inputValue();
  await page.route("**/examples/recorded/*.txt", (route) => route.fulfill({ status: 404, body: "" }));
  await openRecorded(page, JSON_ARENA);
  await expect(page.locator("#notice")).toContainText("The recorded program examples/recorded/json-arena-package-lock.txt did not load (404");
  await expect(program(page)).toHaveValue(before);
  await expect(narration(page).getByRole("heading", { name: `Recorded: ${JSON_ARENA}` })).toHaveCount(0);
  expect(thrown).toEqual([]);
});
