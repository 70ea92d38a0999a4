import { ORIGIN } from "../../playwright.config";
import { blockLabels, named, textOf } from "./pages";
import { expect, test, type Point, type Tab } from "./session";

// A phone's width in Firefox and WebKit: the viewport at 390 × 844 in
// Firefox; in WebKit the window as narrow as MiniBrowser allows (447 CSS px
// of page: its toolbar's width), both under every phone breakpoint of the
// page (600 px). The pointer is the browsers' own, a mouse: Chromium's
// journeys (tests/e2e/touch.spec.ts) are the ones with touch input, since
// WebKitGTK's WebDriver delivers touch actions as mouse events. The start
// page: fitzgen-down, 64-bit, a 256-byte chunk at 0x10010.

const START = 0x10010;

async function phone(tab: Tab): Promise<{ width: number; height: number }> {
  const size = await tab.resize(390, 844);
  expect(size.width).toBeLessThanOrEqual(tab.engine === "webkit" ? 447 : 390);
  await tab.goto(`${ORIGIN}/`);
  await expect.poll(() => tab.run(() => document.body.dataset["ready"] ?? null)).toBe("true");
  return size;
}

/** The viewport box of the first element `selector` selects, scrolled into view first. */
function boxOf(selector: string): { x: number; y: number; width: number; height: number } | null {
  const el = document.querySelector(selector);
  if (!el) return null;
  el.scrollIntoView({ block: "center" });
  const b = el.getBoundingClientRect();
  return { x: b.x, y: b.y, width: b.width, height: b.height };
}

async function box(tab: Tab, selector: string): Promise<{ x: number; y: number; width: number; height: number }> {
  const b = await tab.run(boxOf, selector);
  if (!b) throw new Error(`no ${selector}`);
  return b;
}

const counter = (tab: Tab) => tab.run(textOf, ".step-counter");
const viewStart = (tab: Tab) => tab.run(() => Number(document.querySelector("#memory-map g.chunk-row")?.getAttribute("data-view-start")));

test("scrubbing: the step slider dragged walks the ops", async ({ tab }) => {
  await phone(tab);
  await tab.click(named, "button", "First");
  await expect.poll(() => counter(tab)).toBe("op 0 / 6");
  const slider = await box(tab, "input#step");
  const y = slider.y + slider.height / 2;
  await tab.drag({ x: slider.x + 4, y }, { x: slider.x + slider.width - 2, y });
  await expect.poll(() => counter(tab)).toBe("op 6 / 6");
  expect(await tab.run(blockLabels, "#memory-map")).toHaveLength(5);
});

test("zoom and pan: Zoom in, then the map dragged sideways", async ({ tab }) => {
  await phone(tab);
  await tab.click(named, "button", "Last");
  await tab.click(named, "button", "Zoom in");
  await expect.poll(() => tab.run(() => document.querySelector("#memory-map svg.memory-map")?.getAttribute("data-zoom") ?? null)).toBe("2");
  // Half the chunk in view, about its middle (tests/e2e/map.spec.ts).
  await expect.poll(() => viewStart(tab)).toBe(START + 64);
  const svg = await box(tab, "#memory-map svg.memory-map");
  const row = await box(tab, "#memory-map g.chunk-row");
  const from: Point = { x: svg.x + svg.width / 2 - 50, y: row.y + 52 };
  // Dragged to the right: lower addresses come into view.
  await tab.drag(from, { x: from.x + 100, y: from.y });
  await expect.poll(() => viewStart(tab)).toBeLessThan(START + 64);
  await tab.click(named, "button", "Reset zoom");
  await expect.poll(() => viewStart(tab)).toBe(START);
});

test("predict: a click on the strip places the guess, Reveal grades it to the byte", async ({ tab }) => {
  await phone(tab);
  await tab.click(named, "button", "Programs");
  await tab.click(named, "[role=menuitem]", "Why bumping down needs fewer instructions");
  await expect.poll(() => counter(tab)).toBe("op 0 / 5");
  await tab.click(named, "button", "Step forward");
  await expect.poll(() => counter(tab)).toBe("op 1 / 5");
  await expect.poll(() => tab.run(() => document.querySelector(".predict-strip")?.getAttribute("aria-label") ?? null)).toBe("Where will b land?");
  const strip = await box(tab, ".predict-strip");
  await tab.clickAt({ x: strip.x + strip.width / 3, y: strip.y + strip.height / 2 });
  await expect.poll(() => tab.run(textOf, ".predict-pick")).toMatch(/^Your guess: 0x[0-9a-f]+\.$/);
  const picked = /0x[0-9a-f]+/.exec((await tab.run(textOf, ".predict-pick")) ?? "")?.[0] ?? "";
  const guess = Number.parseInt(picked, 16);
  expect(guess).toBeGreaterThan(0x10010);
  expect(guess).toBeLessThan(0x10100);
  await tab.click(named, "button", "Reveal");
  await expect.poll(() => tab.run(textOf, ".predict-verdict")).toBe(`Wrong: you picked ${picked}, ${0x10100 - guess} bytes too low: b lands at 0x10100.`);
});

test("the Share panel: it opens inside the screen, its embed dialog too, and closes", async ({ tab }) => {
  const size = await phone(tab);
  await tab.click(() => document.querySelector("details.share-menu > summary"));
  const inside = (selector: string) =>
    tab.run(
      (s: string, width: number) => {
        const b = document.querySelector(s)?.getBoundingClientRect();
        return b ? b.width > 0 && b.left >= 0 && b.right <= width : null;
      },
      selector,
      size.width,
    );
  await expect.poll(() => inside("details.share-menu[open] > :not(summary)")).toBe(true);
  await tab.click(named, "button", "Copy embed code");
  await expect.poll(() => inside("dialog.share-dialog[open]"), { timeout: 20_000 }).toBe(true);
  expect(await tab.run(() => document.querySelector<HTMLTextAreaElement>('[data-snippet="iframe"] textarea')?.value.startsWith('<iframe class="bumplab" src="') ?? false)).toBe(true);
  await tab.click(named, "dialog.share-dialog button", "Close");
  await expect.poll(() => tab.run(() => document.querySelector("dialog.share-dialog")?.hasAttribute("open") ?? null)).toBe(false);
});
