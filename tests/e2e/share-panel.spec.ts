import { readFileSync } from "node:fs";
import type { Locator, Page } from "@playwright/test";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { expect, test } from "./playground";

// The Share panel's journeys, as a reader uses them: copy a link and open it,
// copy embed code, export the map as PNG and SVG, export the trace and import
// it back.

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

const STATE: SharedState = {
  source: "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc 40",
  allocator: "hinckley-up",
  target: "64",
  capacity: null,
  minAlign: null,
  step: 2,
  compare: null,
};

const counter = (page: Page): Locator => page.locator(".step-counter").first();
const blocks = (page: Page): Locator => page.locator("#memory-map svg.memory-map g[data-block]");

async function blockLabels(page: Page): Promise<string[]> {
  await expect(blocks(page).first()).toBeVisible();
  return blocks(page).evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
}

/** Opens the app at STATE and the Share menu. */
async function openAtState(page: Page): Promise<void> {
  // A fresh load at the link (not a hash change of the page the fixture opened).
  await page.goto("about:blank");
  await page.goto(`/#${await encodeShare(STATE)}`);
  await expect(counter(page)).toHaveText("op 2 / 6");
  await page.locator("details.share-menu > summary").click();
}

async function downloadOf(page: Page, button: string): Promise<{ name: string; bytes: Buffer }> {
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: button, exact: true }).click();
  const file = await downloading;
  return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
}

test("a page opened at a link says it is ready only once it draws the link's step, not the default program before it", async ({ page }) => {
  // What the step counter says at the moment body[data-ready] is set: tests,
  // screenshots and a reader's first click all act from that moment.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.body?.dataset["ready"] !== "true") return;
      document.documentElement.dataset["counterAtReady"] = document.querySelector(".step-counter")?.textContent ?? "(none)";
      observer.disconnect();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-ready"] });
  });
  await page.goto("about:blank");
  await page.goto(`/#${await encodeShare(STATE)}`);
  await expect(page.locator("html")).toHaveAttribute("data-counter-at-ready", "op 2 / 6");
});

test("Copy link: the copied link, opened in a new page, shows the same program, allocator and step", async ({ page, context }) => {
  await openAtState(page);
  // Step on, so the link must carry a step the page reached, not the one it opened at.
  await page.getByRole("button", { name: "Step forward" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 4 / 6");
  await page.getByRole("button", { name: "Copy link", exact: true }).click();
  await expect(page.locator(".share-status")).toHaveText("Link copied.");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/#v1z?\?/);
  const expected = await blockLabels(page);

  const other = await context.newPage();
  await other.goto(copied);
  await expect(counter(other)).toHaveText("op 4 / 6");
  await expect(other.locator("#program")).toHaveProgram(STATE.source);
  await expect(other.locator("#allocator")).toHaveValue("hinckley-up");
  expect(await blockLabels(other)).toEqual(expected);
  await other.close();
});

test("Copy link inside an op: the copied link reopens at the same micro-step", async ({ page, context }) => {
  await openAtState(page);
  // Shift+→ enters op 3 (c = alloc 24 align 16) at its first micro-step, then the next.
  await page.locator("details.share-menu > summary").click();
  await page.getByRole("heading", { name: "Memory" }).click();
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(counter(page)).toHaveText("op 3 / 6");
  const micro = page.locator(".op-micro");
  await expect(micro).toHaveText(/^Micro-step 2 of \d+: /);
  const shown = await micro.textContent();
  await page.locator("details.share-menu > summary").click();
  await page.getByRole("button", { name: "Copy link", exact: true }).click();
  await expect(page.locator(".share-status")).toHaveText("Link copied.");
  const copied = await page.evaluate(() => navigator.clipboard.readText());
  expect(copied).toContain("&s=3&u=1&");

  const other = await context.newPage();
  await other.goto(copied);
  await expect(counter(other)).toHaveText("op 3 / 6");
  await expect(other.locator(".op-micro")).toHaveText(shown ?? "");
  await other.close();
});

test("Copy embed code: six snippets, figures by default, each carrying the current link", async ({ page }) => {
  await openAtState(page);
  await page.getByRole("button", { name: "Copy embed code" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  await expect(dialog).toBeVisible();
  const ids = await dialog.locator("[data-snippet]").evaluateAll((els) => els.map((e) => e.getAttribute("data-snippet")));
  expect(ids).toEqual(["iframe", "component", "markdown", "hugo", "jekyll", "fence"]);
  const hash = await encodeShare(STATE);
  // Attribute values are HTML-escaped in the snippets: "&" is written "&amp;".
  const unescape = (s: string): string => s.replaceAll("&amp;", "&").replaceAll("&quot;", '"').replaceAll("&lt;", "<");
  for (const id of ids.filter((i) => i !== "fence")) {
    const code = unescape(await dialog.locator(`[data-snippet="${id}"] textarea`).inputValue());
    expect(code, `${id} snippet`).toContain(hash);
  }
  const code = (id: string): Promise<string> => dialog.locator(`[data-snippet="${id}"] textarea`).inputValue().then(unescape);
  expect(await code("iframe")).toContain(`/embed.html?figure=1#${hash}"`);
  expect(await code("markdown")).toContain(`/index.html#${hash})`);
  // The figure's height, measured as the snippet shows it, reserved before it is drawn.
  expect(await code("component")).toMatch(new RegExp(`link="${hash.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}" figure style="--bumplab-height:\\d+px"`));
  await dialog.getByRole("button", { name: "Copy Hugo shortcode" }).click();
  expect(unescape(await page.evaluate(() => navigator.clipboard.readText()))).toBe(await code("hugo"));
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
});

test("Export PNG: a PNG twice the map's size", async ({ page }) => {
  await openAtState(page);
  const size = await page.locator("#memory-map svg.memory-map").evaluate((svg) => ({
    width: Number(svg.getAttribute("width") ?? svg.clientWidth),
    height: Number(svg.getAttribute("height") ?? svg.clientHeight),
  }));
  expect(size.width).toBeGreaterThan(100);
  const png = await downloadOf(page, "Export PNG");
  expect(png.name).toBe("bumplab-hinckley-up-memory-map-op-2.png");
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.bytes.subarray(12, 16).toString("ascii")).toBe("IHDR");
  // The figure is the map inside margins, with a title, legend and caption: twice its size, as the panel says.
  await expect(page.locator(".share-status")).toHaveText(/PNG: \d+ × \d+ px/);
  const said = (await page.locator(".share-status").textContent())?.match(/PNG: (\d+) × (\d+) px \(2× a (\d+) × (\d+) figure\)/);
  expect(Number(said?.[3])).toBeGreaterThan(size.width);
  expect(png.bytes.readUInt32BE(16)).toBe(Number(said?.[1]));
  expect(png.bytes.readUInt32BE(20)).toBe(Number(said?.[2]));
  expect(Number(said?.[1])).toBe(Number(said?.[3]) * 2);
});

test("Export SVG: a file that parses, with the page's blocks and their labels", async ({ page }) => {
  await openAtState(page);
  const labels = await blockLabels(page);
  expect(labels.length).toBe(2);
  // A block too narrow for its name has an empty label the page does not lay out (and the file leaves out).
  const texts = (await page.locator("#memory-map svg.memory-map g[data-block] text").allTextContents()).filter((t) => t !== "");
  expect(texts).toEqual(["b"]);
  const svg = await downloadOf(page, "Export SVG");
  expect(svg.name).toBe("bumplab-hinckley-up-memory-map-op-2.svg");
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    return {
      error: doc.querySelector("parsererror")?.textContent ?? null,
      root: doc.documentElement.localName,
      title: doc.querySelector("svg > title")?.textContent ?? "",
      // The file keeps no aria-label or data-*: a block's name is its tooltip, its <title>.
      labels: [...doc.querySelectorAll("g.figure-map g.block > title")].map((e) => e.textContent ?? ""),
      texts: [...doc.querySelectorAll("g.figure-map g.block text")].map((e) => e.textContent ?? "").filter((t) => t !== ""),
    };
  }, svg.bytes.toString("utf8"));
  expect(parsed.error).toBeNull();
  expect(parsed.root).toBe("svg");
  expect(parsed.title).toBe("Bump Lab: hinckley-up, 64-bit, op 2 / 6: b = alloc u64");
  expect(parsed.labels).toEqual(labels);
  expect(parsed.texts).toEqual(texts);
});

test("Export trace, then Import trace: the map shows the same blocks", async ({ page }) => {
  await openAtState(page);
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 3 / 6");
  const expected = await blockLabels(page);
  expect(expected.length).toBe(3);
  const trace = await downloadOf(page, "Export trace (JSON)");
  expect(trace.name).toBe("bumplab-hinckley-up-trace.json");

  // Another program on the map first, so only the import can bring them back.
  await page.locator("#program").fill("z = alloc 8");
  await expect(counter(page)).toHaveText("op 1 / 1");
  await expect(blocks(page)).toHaveCount(1);

  await page.locator("#share-import").setInputFiles({ name: "trace.json", mimeType: "application/json", buffer: trace.bytes });
  await expect(page.locator(".share-status")).toHaveText("Imported a trace of 6 ops on hinckley-up: its program is in the editor.");
  await page.getByRole("button", { name: "First" }).click();
  for (let i = 0; i < 3; i++) await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 3 / 6");
  expect(await blockLabels(page)).toEqual(expected);
});

test("on a 390 px phone the Share panel opens inside the screen and its buttons work", async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 800 });
  await openAtState(page);
  const panel = page.locator(".share-popover");
  await expect(panel).toBeVisible();
  const box = await panel.boundingBox();
  expect(box).not.toBeNull();
  expect(box!.x).toBeGreaterThanOrEqual(0);
  expect(box!.x + box!.width).toBeLessThanOrEqual(390);
  for (const name of ["Copy link", "Export SVG", "Export PNG"]) {
    const b = await page.getByRole("button", { name, exact: true }).boundingBox();
    expect(b, name).not.toBeNull();
    expect(b!.x, name).toBeGreaterThanOrEqual(0);
    expect(b!.x + b!.width, name).toBeLessThanOrEqual(390);
  }
  const { name } = await downloadOf(page, "Export SVG");
  expect(name).toMatch(/\.svg$/);
});
