import { copyFileSync, readFileSync } from "node:fs";
import type { Browser, Locator, Page } from "@playwright/test";
import { decodeShare, encodeShare, type SharedState } from "../../web/src/share/link";
import { svgProblems, type XmlNode } from "../../web/src/share/svgCheck";
import { expect, test } from "./playground";

// Figures that stand alone, as a blogger makes them: Export SVG and PNG from
// the Share menu, then the file opened on its own in the browser, with no
// page around it: its title, legend, caption and link back, only SVG in it,
// and the same blocks drawn as on the page. Export animation: a range of
// steps as an animated SVG, each step's map in turn.

test.use({ acceptDownloads: true });

const STATE: SharedState = {
  source: "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\ne = alloc 40",
  allocator: "bumpalo",
  target: "wasm32",
  capacity: null,
  minAlign: null,
  step: 3,
  compare: null,
};

/** Twelve ops: enough for a ten-step animation, with a free and a new block. */
const LONG: SharedState = {
  ...STATE,
  allocator: "hinckley-up",
  target: "64",
  source: ["a = alloc 8", "b = alloc 16", "c = alloc u64", "free c", "d = alloc 24 align 16", "e = alloc 1", "f = alloc u32", "free f", "g = alloc 32", "h = alloc 2", "i = alloc u64", "j = alloc 4"].join("\n"),
  step: 0,
};

const counter = (page: Page): Locator => page.locator(".step-counter").first();
const pageBlocks = (page: Page): Locator => page.locator("#memory-map svg.memory-map g[data-block]");

async function openAt(page: Page, state: SharedState, counterText: string): Promise<void> {
  await page.goto("about:blank");
  await page.goto(`/#${await encodeShare(state)}`);
  await expect(counter(page)).toHaveText(counterText);
  if (state.step > 0) await expect(pageBlocks(page).first()).toBeVisible();
}

async function openShare(page: Page): Promise<void> {
  await page.locator("details.share-menu > summary").click();
}

async function closeShare(page: Page): Promise<void> {
  await page.locator("details.share-menu > summary").click();
}

/**
 * Clicks `button` in the Share menu and saves the map's file it downloads
 * at `path` (Export SVG and PNG also save the cost chart, once measured).
 */
async function downloadOf(page: Page, button: string, path: string): Promise<{ name: string; path: string; bytes: Buffer }> {
  const downloading = page.waitForEvent("download", { predicate: (d) => !d.suggestedFilename().includes("cost-chart") });
  await page.getByRole("button", { name: button, exact: true }).click();
  const file = await downloading;
  copyFileSync(await file.path(), path);
  return { name: file.suggestedFilename(), path, bytes: readFileSync(path) };
}

/** The file parsed by the browser's XML parser, as the validity check reads it; or the parser's complaint. */
async function parsedTree(page: Page, text: string): Promise<{ error: string | null; tree: XmlNode | null }> {
  return page.evaluate((t) => {
    const doc = new DOMParser().parseFromString(t, "image/svg+xml");
    const error = doc.querySelector("parsererror");
    if (error) return { error: error.textContent ?? "parse error", tree: null };
    type Node = { name: string; ns: string | null; attributes: { name: string; value: string }[]; children: Node[] };
    const walk = (el: Element): Node => ({
      name: el.tagName,
      ns: el.namespaceURI,
      attributes: [...el.attributes].map((a) => ({ name: a.name, value: a.value })),
      children: [...el.children].map(walk),
    });
    return { error: null, tree: walk(doc.documentElement) };
  }, text);
}

/** The file opened on its own, in a page of its own (no app around it). */
async function openAlone(browser: Browser, path: string, colorScheme: "light" | "dark" = "light"): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, colorScheme });
  await page.goto(`file://${path}`);
  return page;
}

/** Blocks' body rectangles (x and width, from the map's own origin) in a map. */
async function bodyBoxes(map: Locator): Promise<{ x: number; width: number }[]> {
  return map.evaluate((svg) => {
    // The map's origin on screen (a nested svg's client box is its content's, not its viewport).
    const left = (svg as SVGSVGElement).getScreenCTM()?.e ?? 0;
    return [...svg.querySelectorAll("g.block rect.body")].map((r) => {
      const box = r.getBoundingClientRect();
      return { x: Math.round((box.left - left) * 10) / 10, width: Math.round(box.width * 10) / 10 };
    });
  });
}

/**
 * The share of pixels that differ (any channel by more than 40 of 255)
 * between two PNG screenshots of the same size, decoded by a canvas in `page`.
 */
async function pixelDifference(page: Page, a: Buffer, b: Buffer): Promise<{ width: number; height: number; share: number }> {
  return page.evaluate(
    async ([x, y]) => {
      const decode = async (b64: string): Promise<ImageData> => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        // The page may be an SVG document: the canvas is asked for as HTML.
        const canvas = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas") as HTMLCanvasElement;
        canvas.width = img.naturalWidth;
        canvas.height = img.naturalHeight;
        const ctx = canvas.getContext("2d");
        if (!ctx) throw new Error("no canvas");
        ctx.drawImage(img, 0, 0);
        return ctx.getImageData(0, 0, canvas.width, canvas.height);
      };
      const p = await decode(x);
      const q = await decode(y);
      if (p.width !== q.width || p.height !== q.height) return { width: -1, height: -1, share: 1 };
      let differ = 0;
      for (let i = 0; i < p.data.length; i += 4) {
        for (let c = 0; c < 3; c++) {
          if (Math.abs((p.data[i + c] ?? 0) - (q.data[i + c] ?? 0)) > 40) {
            differ++;
            break;
          }
        }
      }
      return { width: p.width, height: p.height, share: differ / (p.width * p.height) };
    },
    [a.toString("base64"), b.toString("base64")] as const,
  );
}

test("Export SVG: the file stands alone, with title, legend, caption and link, only SVG in it, and the page's blocks", async ({ page, browser }, info) => {
  await openAt(page, STATE, "op 3 / 6");
  const onPage = page.locator("#memory-map svg.memory-map");
  expect(await bodyBoxes(onPage)).toHaveLength(3);
  await openShare(page);
  const file = await downloadOf(page, "Export SVG", info.outputPath("map.svg"));
  // The page's blocks as they were exported: opening the Share panel can
  // change the map's width (a scrollbar comes), and the file draws that map.
  const expected = await bodyBoxes(onPage);
  expect(expected.length).toBe(3);
  expect(file.name).toBe("bumplab-bumpalo-memory-map-op-3.svg");
  await expect(page.locator(".share-status")).toHaveText(/^Exported the memory map as SVG: \d+ × \d+ px\./);
  const text = file.bytes.toString("utf8");

  // Valid: well-formed XML, SVG's namespace, nothing outside the allow-list.
  const parsed = await parsedTree(page, text);
  expect(parsed.error).toBeNull();
  expect(parsed.tree && svgProblems(parsed.tree)).toEqual([]);
  for (const attribute of ["tabindex", "role=", "aria-", "data-", "focusable", "onclick", "pointerenter"]) expect(text).not.toContain(attribute);

  const alone = await openAlone(browser, file.path);
  const svg = alone.locator("svg").first();
  expect(await alone.title()).toBe("Bump Lab: bumpalo, wasm32, op 3 / 6: c = alloc 24 align 16");
  await expect(svg.locator("text.figure-title")).toHaveText("Bump Lab: bumpalo, wasm32, op 3 / 6: c = alloc 24 align 16");
  await expect(svg.locator("text.figure-caption")).toHaveText(/^bumpalo on wasm32, chunk capacity \d+ bytes \(its default\); op 3 of 6: c: 24 bytes at 0x[0-9a-f]+/);
  const legend = await svg.locator("g.figure-legend g.legend-item text").allTextContents();
  expect(legend).toEqual([
    "block (a colour per op)",
    "block of the current op",
    "padding (hatched: skipped for alignment)",
    "freed block (dead bytes)",
    "free bytes of the chunk",
    "chunk header/footer (striped: metadata)",
    "bump pointer",
  ]);

  // The link back opens this state: same program, allocator and step.
  const href = await svg.locator("a.figure-link").getAttribute("href");
  const linkText = (await svg.locator("a.figure-link text").textContent()) ?? "";
  expect(linkText.startsWith("Open live: ")).toBe(true);
  expect(linkText.slice("Open live: ".length)).toBe(href);
  const decoded = await decodeShare(new URL(href ?? "").hash.slice(1));
  expect(decoded.ok && decoded.state).toMatchObject({ source: STATE.source, allocator: "bumpalo", target: "wasm32", step: 3 });

  // Margins: nothing drawn within 20 px of an edge.
  const box = await svg.evaluate((root) => {
    const bg = root.querySelector("rect.figure-background");
    // The file is drawn at the page's top-left at 1:1, so client boxes are its own coordinates.
    const boxes = [...root.children].filter((c) => c !== bg && c.tagName !== "title" && c.tagName !== "defs").map((c) => c.getBoundingClientRect());
    return {
      width: Number(root.getAttribute("width")),
      height: Number(root.getAttribute("height")),
      left: Math.min(...boxes.map((b) => b.x)),
      top: Math.min(...boxes.map((b) => b.y)),
      right: Math.max(...boxes.map((b) => b.x + b.width)),
      bottom: Math.max(...boxes.map((b) => b.y + b.height)),
    };
  });
  expect(box.left).toBeGreaterThanOrEqual(20);
  expect(box.top).toBeGreaterThanOrEqual(20);
  expect(box.width - box.right).toBeGreaterThanOrEqual(20);
  expect(box.height - box.bottom).toBeGreaterThanOrEqual(20);

  // The same blocks, at the same places within the map.
  const exportedMap = svg.locator("g.figure-map > svg");
  // Coordinates are written to a hundredth of a pixel: the same to within a fifth of one.
  const exported = await bodyBoxes(exportedMap);
  expect(exported.length).toBe(expected.length);
  exported.forEach((b, i) => {
    expect(Math.abs(b.x - (expected[i]?.x ?? NaN)), `block ${i} x`).toBeLessThanOrEqual(0.2);
    expect(Math.abs(b.width - (expected[i]?.width ?? NaN)), `block ${i} width`).toBeLessThanOrEqual(0.2);
  });

  // And drawn the same: the first chunk's bar, pixel for pixel within a small tolerance.
  await closeShare(page);
  await page.mouse.move(0, 0);
  const clipOf = async (map: Locator): Promise<{ x: number; y: number; width: number; height: number }> => {
    const r = await map.evaluate((el) => {
      const m = (el as SVGSVGElement).getScreenCTM();
      return { x: m?.e ?? 0, y: m?.f ?? 0, width: Number(el.getAttribute("width")) };
    });
    // The bar of the first row (BAR_Y 34, BAR_H 36 in the map's layout) and the pointer's head above it.
    return { x: Math.round(r.x), y: Math.round(r.y) + 26, width: Math.floor(r.width), height: 46 };
  };
  await onPage.scrollIntoViewIfNeeded();
  const shotPage = await page.screenshot({ clip: await clipOf(onPage) });
  const shotAlone = await alone.screenshot({ clip: await clipOf(exportedMap) });
  await info.attach("bar on the page", { body: shotPage, contentType: "image/png" });
  await info.attach("bar in the exported file", { body: shotAlone, contentType: "image/png" });
  const diff = await pixelDifference(alone, shotPage, shotAlone);
  console.log(`exported map vs page: ${(diff.share * 100).toFixed(3)}% of ${diff.width}x${diff.height} pixels differ`);
  expect(diff.width).toBeGreaterThan(100);
  expect(diff.share).toBeLessThan(0.01);
  await alone.close();
});

test("Export SVG after a reset: the map is the one row there is, not the room the page keeps for the run's most rows", async ({ page }, info) => {
  // 100 blocks of 64 bytes take bumpalo 4 chunks (7, 15, 31 and 63 blocks); its reset keeps the newest alone.
  await openAt(page, { ...STATE, target: "64", source: "repeat 100 { x = alloc 64 }\nreset\nrepeat 3 { y = alloc 64 }", step: 104 }, "op 104 / 104");
  const onPage = page.locator("#memory-map svg.memory-map");
  await expect(onPage.locator("g.chunk-row")).toHaveCount(1);
  const kept = Number(await onPage.getAttribute("height"));
  const rows = Number(await onPage.getAttribute("data-content-height"));
  expect(rows).toBeLessThan(kept);
  await openShare(page);
  const file = await downloadOf(page, "Export SVG", info.outputPath("reset.svg"));
  const map = file.bytes.toString("utf8").match(/<svg [^>]*class="memory-map"[^>]*>/)?.[0] ?? "";
  expect(map).toContain(`height="${rows}"`);
  expect(map).toMatch(new RegExp(`viewBox="0 0 \\d+ ${rows}"`));
  expect(map).not.toContain("data-content-height");
});

test("Export SVG in compare mode: the columns side by side, each under its allocator's name", async ({ page, browser }, info) => {
  const state: SharedState = {
    ...STATE,
    allocator: "hinckley-up",
    target: "64",
    compare: [
      { allocator: "hinckley-up", target: "64", capacity: null, minAlign: null },
      { allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null },
    ],
  };
  await page.goto("about:blank");
  await page.goto(`/#${await encodeShare(state)}`);
  const columns = page.locator("section.compare-column");
  await expect(columns).toHaveCount(2);
  await expect(columns.nth(1).locator("svg.memory-map g[data-block]").first()).toBeVisible();
  const names = (await columns.locator(".compare-col-title").allTextContents()).map((t) => t.trim());
  const counts = await columns.evaluateAll((cols) => cols.map((c) => c.querySelectorAll("svg.memory-map g[data-block]").length));
  await openShare(page);
  const file = await downloadOf(page, "Export SVG", info.outputPath("compare.svg"));
  const parsed = await parsedTree(page, file.bytes.toString("utf8"));
  expect(parsed.tree && svgProblems(parsed.tree)).toEqual([]);
  const alone = await openAlone(browser, file.path);
  const maps = alone.locator("g.figure-map > svg");
  await expect(maps).toHaveCount(2);
  const laid = await maps.evaluateAll((els) => els.map((m) => ({ left: m.getBoundingClientRect().left, right: m.getBoundingClientRect().right, top: m.getBoundingClientRect().top, blocks: m.querySelectorAll("g.block").length })));
  expect(laid.map((m) => m.blocks)).toEqual(counts);
  // Side by side: the second starts right of the first, at the same height.
  expect(laid[1]!.left).toBeGreaterThan(laid[0]!.right);
  expect(laid[1]!.top).toBe(laid[0]!.top);
  const headings = await alone.locator("text.figure-name").allTextContents();
  for (const name of names) expect(headings).toContain(name);
  expect(await alone.title()).toBe(`Bump Lab: ${names.join(" vs ")}, op 3 / 6: c = alloc 24 align 16`);
  await alone.close();
});

test("Export PNG: the same figure at 2×, its size as the status line states it", async ({ page }, info) => {
  await openAt(page, STATE, "op 3 / 6");
  await openShare(page);
  const svgFile = await downloadOf(page, "Export SVG", info.outputPath("map.svg"));
  const size = svgFile.bytes.toString("utf8").match(/<svg [^>]*width="(\d+)" height="(\d+)"/);
  const width = Number(size?.[1]);
  const height = Number(size?.[2]);
  expect(width).toBeGreaterThan(300);
  const png = await downloadOf(page, "Export PNG", info.outputPath("map.png"));
  expect(png.name).toBe("bumplab-bumpalo-memory-map-op-3.png");
  // (The cost chart, once measured, is exported after it and named at the end.)
  await expect(page.locator(".share-status")).toHaveText(new RegExp(`^Exported the memory map as PNG: ${width * 2} × ${height * 2} px \\(2× a ${width} × ${height} figure\\)\\.`));
  expect([...png.bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(png.bytes.readUInt32BE(16)).toBe(width * 2);
  expect(png.bytes.readUInt32BE(20)).toBe(height * 2);
});

test("Export animation: ten steps as an animated SVG, each step showing its own blocks and op", async ({ page, browser }, info) => {
  await openAt(page, LONG, "op 0 / 12");
  // Each step's block count and bump pointer, as the app's map shows them once settled.
  const counts: number[] = [];
  const pointers: string[] = [];
  for (let k = 0; k <= 9; k++) {
    if (k > 0) await page.getByRole("button", { name: "Step forward" }).click();
    await expect(counter(page)).toHaveText(`op ${k} / 12`);
    // d3 marks a node with __transition while it is moving.
    await page.waitForFunction(() => ![...document.querySelectorAll("#memory-map svg *")].some((el) => "__transition" in el));
    counts.push(await page.locator("#memory-map svg.memory-map g[data-block]").count());
    pointers.push((await page.locator("#memory-map svg.memory-map line.ptr-line").getAttribute("x1")) ?? "");
  }
  expect(new Set(counts).size).toBeGreaterThan(4);
  await openShare(page);
  const group = page.getByRole("group", { name: "Animation" });
  await expect(group).toContainText("at most 200 steps and 2 MB");
  await expect(group.getByLabel("To op")).toHaveAttribute("placeholder", "12");
  await group.getByLabel("From op").fill("0");
  await group.getByLabel("To op").fill("9");
  const file = await downloadOf(page, "Export animation", info.outputPath("animation.svg"));
  expect(file.name).toBe("bumplab-hinckley-up-animation-0-to-op-9.svg");
  await expect(page.locator(".share-status")).toHaveText(/^Exported ops 0 to 9 as an animated SVG: 10 steps, 1 s each, [\d.]+ MB\.$/);
  const text = file.bytes.toString("utf8");
  expect(text).not.toContain("<script");
  const parsed = await parsedTree(page, text);
  expect(parsed.tree && svgProblems(parsed.tree)).toEqual([]);

  const alone = await openAlone(browser, file.path);
  await expect(alone.locator("text.figure-caption")).toHaveCount(10);
  for (let k = 0; k <= 9; k++) {
    const shown = await alone.evaluate((t) => {
      const root = document.documentElement as unknown as SVGSVGElement;
      root.pauseAnimations();
      root.setCurrentTime(t);
      // Drawn: neither it nor any group around it is display: none at this time.
      const drawn = (el: Element): boolean => {
        for (let e: Element | null = el; e; e = e.parentElement) if (getComputedStyle(e).display === "none") return false;
        return true;
      };
      const map = root.querySelector("g.figure-map");
      return {
        blocks: [...(map?.querySelectorAll("g.block") ?? [])].filter(drawn).length,
        pointers: [...(map?.querySelectorAll("line.ptr-line") ?? [])].filter(drawn).map((l) => l.getAttribute("x1") ?? ""),
        captions: [...root.querySelectorAll("text.figure-caption")].filter(drawn).map((c) => c.textContent ?? ""),
      };
    }, k + 0.5);
    expect(shown.blocks, `blocks at op ${k}`).toBe(counts[k]);
    // One pointer, where the app draws it (the file writes coordinates to a hundredth of a pixel).
    expect(shown.pointers, `bump pointer at op ${k}`).toHaveLength(1);
    expect(Math.abs(Number(shown.pointers[0]) - Number(pointers[k])), `bump pointer at op ${k}`).toBeLessThanOrEqual(0.01);
    expect(shown.captions, `caption at ${k + 0.5} s`).toHaveLength(1);
    expect(shown.captions[0]).toMatch(new RegExp(`^op ${k} / 12`));
  }
  // Written once, shown in many frames: far fewer block groups in the file than blocks drawn over the ten steps.
  const written = await alone.locator("g.figure-map g.block").count();
  expect(written).toBeLessThan(counts.reduce((a, b) => a + b, 0) / 2);
  await alone.close();
});

test("Export animation: a range past the limit, or backwards, is refused with a message", async ({ page }) => {
  const source = Array.from({ length: 260 }, (_, i) => `b${i} = alloc 1`).join("\n");
  await openAt(page, { ...LONG, source, capacity: 4096 }, "op 0 / 260");
  await openShare(page);
  const group = page.getByRole("group", { name: "Animation" });
  await expect(group.getByLabel("To op")).toHaveAttribute("placeholder", "199");
  await group.getByLabel("From op").fill("10");
  await group.getByLabel("To op").fill("250");
  let downloads = 0;
  page.on("download", () => downloads++);
  await page.getByRole("button", { name: "Export animation", exact: true }).click();
  await expect(page.locator(".share-status")).toHaveText("Ops 10 to 250 are 241 steps: an animation holds at most 200. Choose a shorter range.");
  await group.getByLabel("To op").fill("5");
  await page.getByRole("button", { name: "Export animation", exact: true }).click();
  await expect(page.locator(".share-status")).toHaveText("To op must come after from op (10): an animation needs two steps or more.");
  await group.getByLabel("To op").fill("999");
  await page.getByRole("button", { name: "Export animation", exact: true }).click();
  await expect(page.locator(".share-status")).toHaveText("To op must be a whole op number from 0 to 260.");
  expect(downloads).toBe(0);
});

/** A GIF's logical screen size, its frames and their delays (hundredths of a second), read from its blocks. */
function gifFrames(bytes: Buffer): { width: number; height: number; frames: number; delays: number[]; loops: boolean } {
  expect(bytes.subarray(0, 6).toString("ascii")).toBe("GIF89a");
  const width = bytes.readUInt16LE(6);
  const height = bytes.readUInt16LE(8);
  const packed = bytes[10] ?? 0;
  let at = 13 + (packed & 0x80 ? 3 * 2 ** ((packed & 7) + 1) : 0);
  const delays: number[] = [];
  let frames = 0;
  let loops = false;
  const skipSubBlocks = (): void => {
    while ((bytes[at] ?? 0) !== 0) at += (bytes[at] ?? 0) + 1;
    at++;
  };
  while (at < bytes.length) {
    const b = bytes[at];
    if (b === 0x3b) break;
    if (b === 0x21) {
      const label = bytes[at + 1];
      if (label === 0xf9) delays.push(bytes.readUInt16LE(at + 4));
      if (label === 0xff && bytes.subarray(at + 3, at + 14).toString("ascii") === "NETSCAPE2.0") loops = true;
      at += 2;
      skipSubBlocks();
    } else if (b === 0x2c) {
      frames++;
      const local = bytes[at + 9] ?? 0;
      at += 10 + (local & 0x80 ? 3 * 2 ** ((local & 7) + 1) : 0);
      at++; // LZW minimum code size
      skipSubBlocks();
    } else {
      throw new Error(`unexpected GIF block 0x${(b ?? 0).toString(16)} at ${at}`);
    }
  }
  return { width, height, frames, delays, loops };
}

test("Export GIF: the same steps as the animation, a frame a step, one second each, looping", async ({ page }, info) => {
  await openAt(page, LONG, "op 0 / 12");
  await openShare(page);
  const group = page.getByRole("group", { name: "Animation" });
  await group.getByLabel("From op").fill("2");
  await group.getByLabel("To op").fill("6");
  const file = await downloadOf(page, "Export GIF", info.outputPath("animation.gif"));
  expect(file.name).toBe("bumplab-hinckley-up-animation-2-to-op-6.gif");
  const gif = gifFrames(file.bytes);
  expect(gif.frames).toBe(5);
  expect(gif.delays).toEqual([100, 100, 100, 100, 100]);
  expect(gif.loops).toBe(true);
  await expect(page.locator(".share-status")).toHaveText(new RegExp(`^Exported ops 2 to 6 as an animated GIF: 5 frames of ${gif.width} × ${gif.height} px, 1 s each, ${Math.round(file.bytes.length / 1024)} kB\\.$`));
  // The figure's size: the map's width inside the figure's margins.
  const mapWidth = Number(await page.locator("#memory-map svg.memory-map").getAttribute("width"));
  expect(gif.width).toBe(Math.ceil(Math.max(300, mapWidth) + 48));
  // Each frame shows its step: drawn by the browser, the first and last frames differ.
  const frames = await page.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/gif;base64,${b64}`;
    await img.decode();
    return { w: img.naturalWidth, h: img.naturalHeight };
  }, file.bytes.toString("base64"));
  expect(frames).toEqual({ w: gif.width, h: gif.height });
});

test("the Figure controls: a dark export from a light page, with the writer's caption, and snippets that follow them", async ({ page, browser }, info) => {
  await openAt(page, STATE, `op ${STATE.step} / 6`);
  await openShare(page);
  const figure = page.getByRole("group", { name: "Figure" });
  await figure.getByLabel("Caption").fill("Where the padding goes");
  await figure.getByLabel("Theme").selectOption("dark");
  const file = await downloadOf(page, "Export SVG", info.outputPath("dark.svg"));
  // The page stays light.
  expect(await page.evaluate(() => getComputedStyle(document.body).colorScheme)).not.toBe("dark");
  const alone = await openAlone(browser, file.path);
  const background = await alone.locator("rect.figure-background").evaluate((r) => getComputedStyle(r).fill);
  const channels = /rgb\((\d+), (\d+), (\d+)\)/.exec(background)?.slice(1).map(Number) ?? [];
  expect(Math.max(...channels), `a dark background: ${background}`).toBeLessThan(60);
  const title = await alone.locator("text.figure-title").evaluate((t) => getComputedStyle(t).fill);
  expect(Math.min(...(/rgb\((\d+), (\d+), (\d+)\)/.exec(title)?.slice(1).map(Number) ?? [])), `light text: ${title}`).toBeGreaterThan(180);
  await expect(alone.locator("text.figure-caption")).toHaveText(/^Where the padding goes \(bumpalo on wasm32, /);
  await alone.close();

  await figure.getByLabel("Height (px)").fill("480");
  await figure.getByLabel("Height (px)").blur();
  await page.getByRole("button", { name: "Copy embed code" }).click();
  const dialog = page.getByRole("dialog", { name: "Embed this view" });
  const iframe = await dialog.locator('[data-snippet="iframe"] textarea').inputValue();
  expect(iframe).toContain("/embed.html?figure=1&amp;caption=Where+the+padding+goes&amp;theme=dark#v1?");
  expect(iframe).toContain('height="480"');
  const fence = await dialog.locator('[data-snippet="fence"] textarea').inputValue();
  expect(fence).toBe(`\`\`\`bumplab target=wasm32 step=3 caption="Where the padding goes" height=480 theme=dark\n${STATE.source}\n\`\`\``);
});
