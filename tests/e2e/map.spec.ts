import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// The memory map's zoom, block card and large-map mode. Expected numbers were
// checked against the wasm engine (traceProgram in Node), 64-bit target,
// default program on fitzgen-down's 256-byte chunk at 0x10010:
//   c = alloc 24 align 16 lands at +0xd0 with 8 bytes of padding above it.
const START = 0x10010;
const C = START + 0xd0;
const hex = (n: number) => `0x${n.toString(16)}`;

const map = (page: Page) => page.locator("svg.memory-map");
const tickLabels = (page: Page) => page.locator("svg.memory-map g.chunk-row .axis .tick text");
const card = (page: Page) => page.locator(".block-card");
const counter = (page: Page) => page.locator(".step-counter");

test.beforeEach(async ({ page }) => {
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 6 / 6");
});

test("zoom by button: tick labels re-tick, the byte grid appears, Reset zoom restores", async ({ page }) => {
  await expect(map(page)).toHaveAttribute("data-zoom", "1");
  const before = await tickLabels(page).allTextContents();
  expect(before[0]).toBe(hex(START));
  expect(before[before.length - 1]).toBe(hex(START + 256));
  await expect(page.locator("path.byte-grid")).toHaveAttribute("data-lines", "0");
  await expect(page.getByRole("button", { name: "Zoom out" })).toBeDisabled();

  await page.getByRole("button", { name: "Zoom in" }).click();
  await expect(map(page)).toHaveAttribute("data-zoom", "2");
  await expect(page.getByTestId("zoom-level")).toHaveText("2×");
  // Half the chunk in view, about its middle: the edges' labels are gone.
  const row = page.locator("g.chunk-row").first();
  await expect(row).toHaveAttribute("data-view-start", String(START + 64));
  await expect(row).toHaveAttribute("data-view-end", String(START + 192));
  const zoomed = await tickLabels(page).allTextContents();
  expect(zoomed).not.toContain(hex(START));
  expect(zoomed).not.toEqual(before);
  expect(zoomed.length).toBeGreaterThan(1);

  // At 4x a byte is at least 6 px wide: one grid line per byte boundary in view (64 bytes, 63 inner lines).
  await page.getByRole("button", { name: "Zoom in" }).click();
  await expect(map(page)).toHaveAttribute("data-zoom", "4");
  await expect(row).toHaveAttribute("data-view-start", String(START + 96));
  await expect(row).toHaveAttribute("data-view-end", String(START + 160));
  await expect(page.locator("path.byte-grid")).toHaveAttribute("data-lines", "65");

  await page.getByRole("button", { name: "Reset zoom" }).click();
  await expect(map(page)).toHaveAttribute("data-zoom", "1");
  await expect(page.locator("path.byte-grid")).toHaveAttribute("data-lines", "0");
  await expect(tickLabels(page)).toHaveText(before);
});

test("zoom by key when the map has focus: +, - and 0", async ({ page }) => {
  await map(page).focus();
  await page.keyboard.press("+");
  await expect(map(page)).toHaveAttribute("data-zoom", "2");
  await page.keyboard.press("+");
  await page.keyboard.press("+");
  await expect(map(page)).toHaveAttribute("data-zoom", "8");
  await expect(page.locator("path.byte-grid")).not.toHaveAttribute("data-lines", "0");
  await page.keyboard.press("-");
  await expect(map(page)).toHaveAttribute("data-zoom", "4");
  await page.keyboard.press("0");
  await expect(map(page)).toHaveAttribute("data-zoom", "1");
  // The keys did not step the program.
  await expect(counter(page)).toHaveText("op 6 / 6");
});

test("the zoom survives stepping, and blocks out of view leave the map", async ({ page }) => {
  await map(page).focus();
  for (let i = 0; i < 3; i++) await page.keyboard.press("+");
  await expect(map(page)).toHaveAttribute("data-zoom", "8");
  // In view: the middle 32 bytes, +0x70..+0x90: none of the five blocks (they start at +0xa0).
  await expect(page.locator("g.chunk-row").first()).toHaveAttribute("data-view-start", String(START + 0x70));
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(0);
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 5 / 6");
  await expect(map(page)).toHaveAttribute("data-zoom", "8");
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(0);
  // Keys act only while the map has focus (the Step back button has it now).
  await page.keyboard.press("0");
  await expect(map(page)).toHaveAttribute("data-zoom", "8");
  await map(page).focus();
  await page.keyboard.press("0");
  await expect(map(page)).toHaveAttribute("data-zoom", "1");
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(4);

  // Another preset on the same 256-byte chunk keeps the zoom; a new chunk size resets it.
  await page.getByRole("button", { name: "Zoom in" }).click();
  await expect(map(page)).toHaveAttribute("data-zoom", "2");
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("hinckley-up");
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-direction", "up");
  await expect(map(page)).toHaveAttribute("data-zoom", "2");
  await page.getByRole("combobox", { name: "Capacity" }).selectOption("512");
  await expect(map(page)).toHaveAttribute("data-chunk-capacity", "512");
  await expect(map(page)).toHaveAttribute("data-zoom", "1");
});

test("Tab to a block: its card says name, address, size, alignment, padding and the op", async ({ page }) => {
  await map(page).focus();
  // Blocks are in address order: e, d, c, b, a. Tab to c, the third.
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await page.keyboard.press("Tab");
  await expect(page.locator("g.block:focus")).toHaveAttribute("data-block", "c");
  await expect(page.locator("g.block:focus")).toHaveAccessibleName(`c: 24 bytes at ${hex(C)}, align 16, 8 bytes padding`);
  await expect(card(page)).toBeVisible();
  await expect(card(page).locator(".block-card-title")).toHaveText("c");
  await expect(card(page).locator("dd")).toHaveText([
    `${hex(C)}–${hex(C + 24)}`,
    "24 bytes",
    "16",
    `8 bytes at ${hex(C + 24)}–${hex(C + 32)}`,
    "live",
    // The line's text needs app.ts to pass the traced program (sourceLines); until then, the op's kind.
    /^op 3, line 3(: c = alloc 24 align 16| \(alloc\))$/,
  ]);
  await page.keyboard.press("Shift+Tab");
  await expect(card(page).locator(".block-card-title")).toHaveText("d");
  await map(page).focus();
  await expect(card(page)).toBeHidden();
});

test("hover a block: the same card", async ({ page }) => {
  await page.locator('svg.memory-map g[data-block="c"] rect.body').hover();
  await expect(card(page)).toBeVisible();
  await expect(card(page).locator(".block-card-title")).toHaveText("c");
  await expect(card(page).locator("dd").nth(0)).toHaveText(`${hex(C)}–${hex(C + 24)}`);
  await expect(card(page).locator("dd").nth(1)).toHaveText("24 bytes");
  await page.getByRole("heading", { name: "Memory" }).hover();
  await expect(card(page)).toBeHidden();
});

test("100,000 allocations: the chunk is drawn as fill, the summary says so, and zoom reaches the blocks", async ({ page }) => {
  test.setTimeout(180_000);
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("fitzgen-down");
  await page.getByRole("combobox", { name: "Capacity" }).selectOption(String(1 << 20));
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 100000 { x = alloc 8 }");
  await expect(counter(page)).toHaveText("op 100000 / 100000", { timeout: 150_000 });
  const row = page.locator("g.chunk-row").first();
  await expect(row).toHaveAttribute("data-capacity", String(1 << 20));
  await expect(row).toHaveClass(/is-binned/);
  await expect(page.locator(".map-lod-note")).toHaveText("100000 blocks in 1 chunk; zoom in to see blocks");
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(0);
  expect(Number(await row.locator("g.bins").getAttribute("data-bins"))).toBeGreaterThan(100);
  // The bins' mean fill is the chunk's: 800,000 of 1,048,576 bytes.
  expect(Number(await row.locator("g.bins").getAttribute("data-fill"))).toBeCloseTo(800_000 / 1_048_576, 2);

  // Hovering a binned row sums the bin under the pointer: a full bin of
  // 1 MiB / bins bytes holds that over 8 blocks (one more or less at its edges).
  const perBin = (1 << 20) / Number(await row.locator("g.bins").getAttribute("data-bins")) / 8;
  const outline = await row.locator("rect.chunk-outline").boundingBox();
  await page.mouse.move(outline!.x + outline!.width * 0.9, outline!.y + outline!.height / 2);
  await expect(card(page).locator(".block-card-title")).toHaveText(/^\d+ blocks start here$/);
  const inBin = Number((await card(page).locator(".block-card-title").textContent())?.split(" ")[0]);
  expect(Math.abs(inBin - perBin)).toBeLessThanOrEqual(1);
  await expect(card(page).locator("dd").nth(0)).toHaveText(/^0x[0-9a-f]+–0x[0-9a-f]+$/);
  await expect(card(page).locator("dd").nth(1)).toHaveText(/\(100%\)$/);

  // Ctrl+wheel over the used end (bumping down, the blocks fill the top of the
  // chunk) zooms in about the pointer until few enough blocks are in view to
  // draw one by one.
  const bar = await row.locator("rect.chunk-outline").boundingBox();
  expect(bar).not.toBeNull();
  await page.mouse.move(bar!.x + bar!.width - 3, bar!.y + bar!.height / 2);
  await page.keyboard.down("Control");
  for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -500);
  await page.keyboard.up("Control");
  await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
  expect(Number(await map(page).getAttribute("data-zoom"))).toBeGreaterThan(1000);
  await expect(page.locator(".map-lod-note")).toBeHidden();
  await expect(row).not.toHaveClass(/is-binned/);
  expect(Number(await row.getAttribute("data-blocks-in-view"))).toBeLessThanOrEqual(400);
});

test("a moving realloc: the old block is marked leaked, the new one names it, stepping back restores it", async ({ page }) => {
  // fitzgen-down, 256 bytes: c (op 3, +0xd0) moves to +0x80 when it grows to 48 bytes.
  await page.getByRole("textbox", { name: "Program" }).fill("a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\nc = realloc c 48");
  await expect(counter(page)).toHaveText("op 6 / 6");
  const cs = page.locator('svg.memory-map g[data-block="c"]');
  await expect(cs).toHaveCount(2);
  const old = page.locator('svg.memory-map g[data-block="c"][data-id="2"]');
  const moved = page.locator('svg.memory-map g[data-block="c"][data-id="5"]');
  await expect(old).toHaveAttribute("data-state", "leaked");
  await expect(old).toHaveAttribute("data-address", String(C));
  await expect(old).toHaveAccessibleName(/left behind by a realloc$/);
  await expect(moved).toHaveAttribute("data-address", String(START + 0x80));
  await moved.locator("rect.body").hover();
  await expect(card(page).locator("dd").last()).toHaveText("the block op 3 placed");

  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 5 / 6");
  await expect(cs).toHaveCount(1);
  await expect(old).toHaveAttribute("data-state", "live");
});

test("the map keeps room for the run's most chunks: rows come and go, the svg and everything below stay put", async ({ page }) => {
  // 100 blocks of 64 bytes take bumpalo 4 chunks (7, 15, 31 and 63 blocks); its reset keeps the newest alone.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 100 { x = alloc 64 }\nreset\nrepeat 3 { y = alloc 64 }");
  await expect(counter(page)).toHaveText("op 104 / 104");
  const measure = () =>
    page.evaluate(() => {
      const svg = document.querySelector<SVGSVGElement>("#memory-map svg.memory-map")!;
      return {
        rows: svg.querySelectorAll("g.chunk-row").length,
        svgHeight: Number(svg.getAttribute("height")),
        rowsHeight: Number(svg.getAttribute("data-content-height")),
        frame: svg.parentElement!.getBoundingClientRect().height,
        container: document.querySelector("#memory-map")!.getBoundingClientRect().height,
        stepperTop: Math.round(document.querySelector("#stepper")!.getBoundingClientRect().top + window.scrollY),
      };
    });
  const seek = async (step: number) => {
    await page.locator("#step").fill(String(step));
    await expect(counter(page)).toHaveText(`op ${step} / 104`);
  };
  const atEnd = await measure();
  await seek(100);
  const most = await measure();
  await seek(0);
  const none = await measure();
  expect([none.rows, most.rows, atEnd.rows]).toEqual([0, 4, 1]);
  // Four rows of 88 px with 10 between, and 4 px below.
  expect(most.svgHeight).toBe(4 * 98 - 10 + 4);
  expect([none.svgHeight, atEnd.svgHeight]).toEqual([most.svgHeight, most.svgHeight]);
  expect(atEnd.rowsHeight).toBe(88 + 4);
  // The frame shows the rows there are; the panel and the stepper below it do not move.
  expect(atEnd.frame).toBeCloseTo(atEnd.rowsHeight, 0);
  expect(most.frame).toBeCloseTo(most.svgHeight, 0);
  expect([none.container, atEnd.container]).toEqual([most.container, most.container]);
  expect([none.stepperTop, atEnd.stepperTop]).toEqual([most.stepperTop, most.stepperTop]);
  // Reached by the keyboard, the map's focus ring is its frame's, inside its edge (the panel clips outside it).
  // (Focus moved by a script right after a key press is shown as the keyboard's.)
  await page.getByRole("button", { name: "Zoom in" }).focus();
  await page.keyboard.press("Shift");
  await map(page).focus();
  await expect(map(page)).toBeFocused();
  const ring = await page.locator(".map-frame").evaluate((el) => {
    const s = getComputedStyle(el);
    return [s.outlineStyle, s.outlineWidth, s.outlineOffset];
  });
  expect(ring).toEqual(["solid", "2px", "-2px"]);
});
