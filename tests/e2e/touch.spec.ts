import type { CDPSession, Locator, Page } from "@playwright/test";
import { expect, test } from "./playground";

// A phone: 390 × 844 CSS px, touch input only (isMobile, hasTouch), as a
// reader on an iPhone-sized screen has it. Taps go through Playwright's
// touchscreen; drags and the pinch through Chromium's own touch input
// (Input.dispatchTouchEvent), so the page sees touch and pointer events of
// type "touch", never a mouse. The start page: fitzgen-down, 64-bit, a
// 256-byte chunk at 0x10010 (tests/e2e/app.spec.ts).

test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

const START = 0x10010;
const counter = (page: Page) => page.locator(".step-counter");
const row = (page: Page) => page.locator("#memory-map g.chunk-row").first();

type Point = { x: number; y: number };

/** A finger (or two) put down at `from`, moved to `to` in `steps` moves, and lifted. */
async function touchDrag(cdp: CDPSession, from: Point[], to: Point[], steps = 8): Promise<void> {
  const at = (t: number) => from.map((p, i) => ({ x: p.x + ((to[i]?.x ?? p.x) - p.x) * t, y: p.y + ((to[i]?.y ?? p.y) - p.y) * t, id: i }));
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: at(0) });
  for (let s = 1; s <= steps; s++) await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(s / steps) });
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
}

async function box(locator: Locator): Promise<{ x: number; y: number; width: number; height: number }> {
  await locator.scrollIntoViewIfNeeded();
  const b = await locator.boundingBox();
  if (!b) throw new Error("not laid out");
  return b;
}

test("touch only: the page sees no mouse, and step buttons step by tap", async ({ page }) => {
  const kinds = await page.evaluate(() => {
    const seen: string[] = [];
    addEventListener("pointerdown", (e) => seen.push(e.pointerType), true);
    (window as Window & { __pointers?: string[] }).__pointers = seen;
    return { coarse: matchMedia("(pointer: coarse)").matches, hover: matchMedia("(hover: none)").matches };
  });
  expect(kinds).toEqual({ coarse: true, hover: true });
  await page.getByRole("button", { name: "First" }).tap();
  await expect(counter(page)).toHaveText("op 0 / 6");
  await page.getByRole("button", { name: "Step forward" }).tap();
  await page.getByRole("button", { name: "Step forward" }).tap();
  await expect(counter(page)).toHaveText("op 2 / 6");
  await expect(page.locator('#memory-map g[data-block="b"]')).toHaveAttribute("aria-label", "b: 8 bytes at 0x10100, align 8, 7 bytes padding");
  await page.getByRole("button", { name: "Step back" }).tap();
  await expect(counter(page)).toHaveText("op 1 / 6");
  expect(await page.evaluate(() => (window as Window & { __pointers?: string[] }).__pointers)).toEqual(["touch", "touch", "touch", "touch"]);
});

test("scrubbing: a finger dragged along the step slider walks the ops", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await page.getByRole("button", { name: "First" }).tap();
  await expect(counter(page)).toHaveText("op 0 / 6");
  const slider = await box(page.getByRole("slider", { name: "Step" }));
  const y = slider.y + slider.height / 2;
  // From the thumb at op 0 to the slider's far end.
  await touchDrag(cdp, [{ x: slider.x + 4, y }], [{ x: slider.x + slider.width - 2, y }], 12);
  await expect(counter(page)).toHaveText("op 6 / 6");
  await expect(page.locator("#memory-map g[data-block]")).toHaveCount(5);
  // And back to the middle: op 3 of 6 (the slider measured again: the map above it grew with the blocks).
  const now = await box(page.getByRole("slider", { name: "Step" }));
  const y2 = now.y + now.height / 2;
  await touchDrag(cdp, [{ x: now.x + now.width - 4, y: y2 }], [{ x: now.x + now.width / 2, y: y2 }], 12);
  await expect(counter(page)).toHaveText("op 3 / 6");
});

test("zoom and pan: two fingers pinch the map open, one drags it sideways", async ({ page }) => {
  const cdp = await page.context().newCDPSession(page);
  await page.getByRole("button", { name: "Last" }).tap();
  const map = page.locator("#memory-map svg.memory-map");
  await expect(map).toHaveAttribute("data-zoom", "1");
  await expect(row(page)).toHaveAttribute("data-view-start", String(START));
  // The middle of the chunk's bar (34 to 70 px down its row), where the fingers go.
  const svg = await box(map);
  const top = await box(row(page));
  const mid = { x: svg.x + svg.width / 2, y: top.y + 52 };
  await touchDrag(cdp, [{ x: mid.x - 20, y: mid.y }, { x: mid.x + 20, y: mid.y }], [{ x: mid.x - 90, y: mid.y }, { x: mid.x + 90, y: mid.y }], 10);
  await expect.poll(async () => Number(await map.getAttribute("data-zoom"))).toBeGreaterThan(2);
  const start = Number(await row(page).getAttribute("data-view-start"));
  expect(start).toBeGreaterThan(START);
  // A finger dragged to the right brings lower addresses into view.
  await touchDrag(cdp, [{ x: mid.x - 60, y: mid.y }], [{ x: mid.x + 60, y: mid.y }], 10);
  await expect.poll(async () => Number(await row(page).getAttribute("data-view-start"))).toBeLessThan(start);
  await page.getByRole("button", { name: "Reset zoom" }).tap();
  await expect(map).toHaveAttribute("data-zoom", "1");
});

test("predict by tap: a tap on the strip places the guess, Reveal grades it to the byte", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).tap();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).tap();
  await expect(counter(page)).toHaveText("op 0 / 5");
  await page.getByRole("button", { name: "Step forward" }).tap();
  const strip = page.getByRole("slider", { name: "Where will b land?" });
  await expect(strip).toBeVisible();
  const b = await box(strip);
  // A third of the way along the chunk (0x10010..0x10110): well below where b lands, 0x10100.
  await page.touchscreen.tap(b.x + b.width / 3, b.y + b.height / 2);
  await expect(page.locator(".predict-pick")).toHaveText(/^Your guess: 0x[0-9a-f]+\.$/);
  const picked = /^Your guess: (0x[0-9a-f]+)\.$/.exec((await page.locator(".predict-pick").textContent()) ?? "")?.[1] ?? "";
  const guess = Number.parseInt(picked, 16);
  expect(guess).toBeGreaterThan(0x10010);
  expect(guess).toBeLessThan(0x10100);
  await page.getByRole("button", { name: "Reveal" }).tap();
  await expect(page.locator(".predict-verdict")).toHaveText(`Wrong: you picked ${picked}, ${0x10100 - guess} bytes too low: b lands at 0x10100.`);
});

test("the Share panel by tap: it opens inside the screen, its embed dialog too, and closes", async ({ page }) => {
  await page.locator("details.share-menu > summary").tap();
  const panel = page.locator("details.share-menu[open] .share-panel, details.share-menu[open] > :not(summary)").first();
  await expect(panel).toBeVisible();
  const p = await panel.boundingBox();
  expect(p && p.x >= 0 && p.x + p.width <= 390).toBe(true);
  await page.getByRole("button", { name: "Copy embed code" }).tap();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  await expect(dialog).toBeVisible({ timeout: 15_000 });
  const d = await dialog.boundingBox();
  expect(d && d.x >= 0 && d.x + d.width <= 390).toBe(true);
  await expect(dialog.getByRole("textbox", { name: "iframe snippet" })).toHaveValue(/^<iframe class="bumplab" src="http:\/\/127\.0\.0\.1:\d+\/embed\.html\?figure=1#v1\?/);
  await dialog.getByRole("button", { name: "Close" }).tap();
  await expect(dialog).toBeHidden();
});

test("predict by touch: a tap on the zoomed strip picks a byte, and the ±1 and ±8 buttons move the guess exactly", async ({ page }) => {
  // Lesson 1 on fitzgen-down: b (u64) lands at 0x10100, below the bump
  // pointer at 0x1010f (tests/e2e/predict.spec.ts).
  await page.getByRole("button", { name: "Programs" }).tap();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).tap();
  await expect(counter(page)).toHaveText("op 0 / 5");
  await page.getByRole("button", { name: "Step forward" }).tap();
  await expect(counter(page)).toHaveText("op 1 / 5");
  const pick = page.locator(".predict-pick");
  const zoom = page.locator("section.predict svg.predict-zoom-svg");
  await expect(zoom).toBeVisible();
  // The zoomed strip shows 32 bytes, below the pointer and kept inside the
  // chunk (0x100f0..0x10110): a byte is a finger's several pixels on a 390-px phone.
  const lo = Number(await zoom.getAttribute("data-lo"));
  const hi = Number(await zoom.getAttribute("data-hi"));
  expect({ lo, hi }).toEqual({ lo: 0x100f0, hi: 0x10110 });
  const b = await box(zoom);
  const cell = b.width / (hi - lo);
  expect(cell).toBeGreaterThanOrEqual(9);
  // A tap in the middle of the cell of 0x10104.
  await page.touchscreen.tap(b.x + (0x10104 - lo + 0.5) * cell, b.y + 20);
  await expect(pick).toHaveText("Your guess: 0x10104.");
  await page.getByRole("button", { name: "Guess one byte lower" }).tap();
  await expect(pick).toHaveText("Your guess: 0x10103.");
  await page.getByRole("button", { name: "Guess one byte higher" }).tap();
  await page.getByRole("button", { name: "Guess one byte higher" }).tap();
  await expect(pick).toHaveText("Your guess: 0x10105.");
  await page.getByRole("button", { name: "Guess the previous 8-aligned address" }).tap();
  await expect(pick).toHaveText("Your guess: 0x10100.");
  await expect(page.getByRole("button", { name: "Guess the previous 8-aligned address" })).toHaveText("−8");
  await page.getByRole("button", { name: "Reveal" }).tap();
  await expect(page.locator(".predict-verdict")).toHaveText("Right: b lands at 0x10100.");
  await expect(page.getByRole("group", { name: "Move the guess" })).toBeHidden();
});

test("lesson 1's compare on a phone: the page never grows wider than the screen, and its question's controls are in reach", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).tap();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).tap();
  await page.getByRole("button", { name: "First" }).tap();
  await page.getByRole("button", { name: "Step forward" }).tap();
  await expect(counter(page)).toHaveText("op 1 / 5");
  // The question's nudges and buttons wrap within the screen.
  for (const l of [page.getByRole("group", { name: "Move the guess" }), page.locator("section.predict").getByRole("button", { name: "Reveal", exact: true })]) {
    const b = await box(l);
    expect(b.x).toBeGreaterThanOrEqual(0);
    expect(b.x + b.width).toBeLessThanOrEqual(390);
  }
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  await page.getByRole("button", { name: "Last" }).tap();
  await page.getByRole("button", { name: "Try it: compare all three" }).tap();
  await expect(page.locator("section.compare-column")).toHaveCount(3);
  // The per-op table scrolls inside its frame; the words read to a screen
  // reader in its cells ("fewest") once widened the page to 434 px.
  await expect(page.locator(".compare-table .compare-fewest").first()).toBeAttached();
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBe(390);
  expect(await page.evaluate(() => window.innerWidth)).toBe(390);
});

test("a share link opened on a phone starts at the top of the page, not at the program editor under the map", async ({ page }) => {
  const { encodeShare } = await import("../../web/src/share/link");
  const link = await encodeShare({ source: "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16", allocator: "hinckley-up", target: "64", capacity: null, minAlign: null, step: 2, compare: null });
  await page.goto("about:blank");
  await page.goto(`/#${link}`);
  await expect(page.locator("body")).toHaveAttribute("data-ready", "true");
  await expect(counter(page)).toHaveText("op 2 / 3");
  // The editor took the link's program (it sits far below the first screen on a phone) and the page stayed at its top.
  await expect(page.locator("#program")).toHaveProgram("a = alloc 1\nb = alloc u64\nc = alloc 24 align 16");
  expect(await page.locator("#program").evaluate((e) => e.getBoundingClientRect().top)).toBeGreaterThan(844);
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
});

test("a lesson picked from the Programs menu on a phone comes into view: the menu sits under the map, the lesson above it", async ({ page }) => {
  const menu = page.getByRole("button", { name: "Programs" });
  await menu.scrollIntoViewIfNeeded();
  expect(await page.evaluate(() => window.scrollY)).toBeGreaterThan(844);
  await menu.tap();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).tap();
  await expect(counter(page)).toHaveText("op 0 / 5");
  await expect(page.getByRole("button", { name: "Exit lesson" })).toBeInViewport();
  const top = await page.getByRole("region", { name: "Why bumping down needs fewer instructions" }).evaluate((e) => e.getBoundingClientRect().top);
  expect(top).toBeGreaterThanOrEqual(0);
  expect(top).toBeLessThan(100);
});
