import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Expected numbers were checked against the wasm engine (traceProgram in Node)
// for the default program on a 256-byte chunk:
//   a = alloc 1 / b = alloc u64 / c = alloc 24 align 16 / d = alloc [u32; 5] / free b / e = alloc u128
// They are offsets from the chunk's first usable byte: the bump algorithm
// decides the offsets, the simulated base allocator decides the start
// (0x10010: its heap starts at 0x10000 and keeps 16 bytes before a chunk).
const DOWN = { a: 0xff, b: 0xf0, c: 0xd0, d: 0xbc, e: 0xa0 };
const UP = { a: 0x00, b: 0x08, c: 0x10, d: 0x28, e: 0x40 };

const blocks = (page: Page) => page.locator("svg.memory-map g[data-block]");
const block = (page: Page, name: string) => page.locator(`svg.memory-map g[data-block="${name}"]`);
const counter = (page: Page) => page.locator(".step-counter");
const hex = (n: number) => `0x${n.toString(16)}`;

/** The drawn chunk's first usable byte. */
async function chunkStart(page: Page): Promise<number> {
  const value = Number(await page.locator("svg.memory-map").getAttribute("data-chunk-start"));
  expect(value, "the simulated base allocator's first chunk").toBe(0x10010);
  return value;
}


test("loads the default program and draws its blocks at the trace's addresses", async ({ page }) => {
  await expect(page.getByRole("heading", { name: "Bump Lab" })).toBeVisible();
  await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram(/^a = alloc 1\n/);
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
  await page.getByRole("button", { name: "Last" }).click();

  await expect(counter(page)).toHaveText("op 6 / 6");
  await expect(blocks(page)).toHaveCount(5);
  const start = await chunkStart(page);
  for (const [name, offset] of Object.entries(DOWN)) {
    await expect(block(page, name)).toHaveAttribute("data-address", String(start + offset));
  }
  await expect(block(page, "c")).toHaveAttribute("data-size", "24");
  await expect(page.getByRole("img", { name: /^c:/ })).toHaveAccessibleName(
    `c: 24 bytes at ${hex(start + DOWN.c)}, align 16, 8 bytes padding`,
  );
  await expect(page.getByRole("img", { name: /^b:/ })).toHaveAccessibleName(/freed, not reclaimed/);
  await expect(block(page, "b")).toHaveAttribute("data-state", "freed");
  await expect(page.locator(".map-summary")).toContainText("96 / 256 bytes used");
  await expect(page.locator(".step-description[aria-live=polite]")).toHaveText(`e: 16 bytes at ${hex(start + DOWN.e)}, 12 bytes padding`);
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-address", String(start + DOWN.e));
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-direction", "down");
  await expect(page.locator('[data-stat="utilisation"]')).toHaveText("23.8%");
  // The code view highlights the line of the last micro-step (the bump).
  await expect(page.locator("#code-view .code-line.is-current")).toContainText("step: bump");
});

test("Step back and Step forward change the drawn blocks", async ({ page }) => {
  await page.getByRole("button", { name: "Last" }).click();
  await expect(blocks(page)).toHaveCount(5);
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 5 / 6");
  await expect(blocks(page)).toHaveCount(4);
  await expect(block(page, "e")).toHaveCount(0);
  await expect(page.locator(".step-description[aria-live=polite]")).toHaveText("free b: not reclaimed");
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(block(page, "b")).toHaveAttribute("data-state", "live");
  await page.getByRole("button", { name: "First" }).click();
  await expect(counter(page)).toHaveText("op 0 / 6");
  await expect(blocks(page)).toHaveCount(0);
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(blocks(page)).toHaveCount(1);
  await expect(block(page, "a")).toHaveAttribute("data-address", String((await chunkStart(page)) + DOWN.a));
});

test("keyboard: arrows, Home and End step, but not while typing", async ({ page }) => {
  await page.getByRole("heading", { name: "Memory" }).click();
  await page.keyboard.press("Home");
  await expect(counter(page)).toHaveText("op 0 / 6");
  await expect(blocks(page)).toHaveCount(0);
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText("op 2 / 6");
  await expect(blocks(page)).toHaveCount(2);
  await page.keyboard.press("End");
  await expect(counter(page)).toHaveText("op 6 / 6");
  await page.keyboard.press("ArrowLeft");
  await expect(counter(page)).toHaveText("op 5 / 6");
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Pause" })).toBeVisible();
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  await expect(counter(page)).toHaveText("op 5 / 6");

  await page.getByRole("textbox", { name: "Program" }).focus();
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Home");
  await expect(counter(page)).toHaveText("op 5 / 6");
});

test("Play runs to the last op and toggles to Pause meanwhile", async ({ page }) => {
  await page.getByRole("button", { name: "Play" }).click();
  await expect(page.getByRole("button", { name: "Pause" })).toBeVisible();
  await expect(counter(page)).toHaveText("op 6 / 6", { timeout: 10_000 });
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
});

test("an invalid program shows line:column and keeps the last drawing", async ({ page }) => {
  await page.getByRole("button", { name: "Last" }).click();
  const program = page.getByRole("textbox", { name: "Program" });
  await program.click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nx = alloc 8 align 3");

  const alert = page.getByRole("alert");
  await expect(alert).toContainText("align");
  await expect(alert).toContainText("7:19");
  await expect(program).toHaveAttribute("aria-invalid", "true");
  const start = await chunkStart(page);
  await expect(blocks(page)).toHaveCount(5);
  await expect(block(page, "c")).toHaveAttribute("data-address", String(start + DOWN.c));
  await expect(page.locator(".stale-badge")).toBeVisible();

  // Fixing the line runs the new program (one more block) and clears the error.
  await page.keyboard.press("Backspace");
  await page.keyboard.type("4");
  await expect(page.getByRole("alert")).toHaveCount(0);
  await expect(blocks(page)).toHaveCount(6);
  await expect(block(page, "x")).toHaveAttribute("data-address", String(start + 0x98));
});

test("switching to hinckley-up puts the first block at the chunk start", async ({ page }) => {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("hinckley-up");
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-direction", "up");
  const start = await chunkStart(page);
  // The first block sits at the chunk start itself.
  await expect(block(page, "a")).toHaveAttribute("data-address", String(start));
  for (const [name, offset] of Object.entries(UP)) {
    await expect(block(page, name)).toHaveAttribute("data-address", String(start + offset));
  }
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-direction", "up");
  await expect(page.locator(".code-path")).toHaveText("crates/core/src/algorithms/bump_up.rs");
});

// Three bumpalo chunks with padding, a free, a realloc and footers.
const SCREENSHOT_PROGRAM = [
  "a = alloc 1",
  "b = alloc u64",
  "c = alloc 24 align 16",
  "d = alloc [u32; 5]",
  "free b",
  "c = realloc c 48",
  "repeat 5 { row = alloc 64 }",
  "big = alloc 500",
  "buf = alloc [u8; 300]",
  "free buf",
  "tail = alloc 200 align 32",
  "repeat 3 { n = alloc 48 }",
  "img = alloc 640 align 64",
  "key = alloc u128",
].join("\n");

test("screenshot @screenshot", async ({ page }) => {
  test.skip(!process.env["SCREENSHOT"], "set SCREENSHOT=1 to write docs/screenshot.png");
  await page.emulateMedia({ reducedMotion: "reduce", colorScheme: "light" });
  // Tall enough for the map's three chunks and the Cost panel's chart below them.
  await page.setViewportSize({ width: 1280, height: 1000 });
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await page.getByRole("textbox", { name: "Program" }).fill(SCREENSHOT_PROGRAM);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 20 / 20");
  await expect(page.locator("svg.memory-map g.chunk-row")).toHaveCount(3);
  // The Cost panel starts above the fold: its chart is in the picture.
  await expect(page.locator("svg.cost-svg g.cost-bar")).toHaveCount(20);
  await expect(page.locator("svg.cost-svg")).toBeInViewport({ ratio: 1 });
  await page.getByRole("heading", { name: "Memory" }).click();
  await page.waitForTimeout(300);
  await page.screenshot({ path: "docs/screenshot.png" });
  await page.emulateMedia({ colorScheme: "dark" });
  await page.waitForTimeout(100);
  await page.screenshot({ path: "test-results/screenshot-dark.png" });
});
