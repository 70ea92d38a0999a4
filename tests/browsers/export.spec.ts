import { join } from "node:path";
import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { named, textOf } from "./pages";
import { expect, filesArriving, test, type Tab } from "./session";

// Export SVG and Export PNG in Firefox and WebKit, with the files counted as
// they arrive in the browser's downloads folder and each opened on its own.
// Each saves two files, the memory map and the cost chart: WebKit keeps only
// the last of two downloads started close together, so the page spaces them
// (share/export.ts, DOWNLOAD_GAP_MS).

const STATE: SharedState = { source: "a = alloc 1\nb = alloc u64", allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null, step: 2, compare: null };
const MAP = "bumplab-fitzgen-down-memory-map-op-2";
const COST = "bumplab-fitzgen-down-cost-chart-op-2";

async function openShare(tab: Tab): Promise<void> {
  await tab.goto(`${ORIGIN}/#${await encodeShare(STATE)}`);
  await expect.poll(() => tab.run(() => document.body.dataset["ready"] ?? null)).toBe("true");
  // The cost chart is exported once the costs are measured.
  await expect.poll(() => tab.run(textOf, ".cost-note"), { timeout: 20_000 }).toMatch(/^2 ops, \d+ wasm instructions in all/);
  await tab.click(() => document.querySelector("details.share-menu > summary"));
}

/** A downloaded SVG opened alone: its root, its title, and what it draws. */
function svgFile(): { root: string; title: string; blocks: string[]; bars: number; width: number; height: number } {
  const svg = document.documentElement;
  return {
    root: `${svg.namespaceURI} ${svg.localName}`,
    title: document.querySelector("svg > title")?.textContent ?? "",
    blocks: [...document.querySelectorAll("g.block > title")].map((t) => t.textContent ?? "").sort(),
    bars: document.querySelectorAll("g.cost-bar").length,
    width: Number(svg.getAttribute("width")),
    height: Number(svg.getAttribute("height")),
  };
}

/** A downloaded PNG opened alone: the browser shows it as an image document. */
async function pngFile(): Promise<{ width: number; height: number }> {
  const img = document.images[0];
  if (!img) return { width: -1, height: -1 };
  await img.decode();
  return { width: img.naturalWidth, height: img.naturalHeight };
}

test("Export SVG and Export PNG: both files of each click arrive, and each opens", async ({ tab }) => {
  await openShare(tab);
  const svgs = await filesArriving(tab.downloads, () => tab.click(named, "button", "Export SVG"), 2);
  expect(svgs).toEqual([`${COST}.svg`, `${MAP}.svg`]);
  const said = (await tab.run(textOf, ".share-status")) ?? "";
  const figure = /^Exported the memory map as SVG: (\d+) × (\d+) px\. Also the cost chart\.$/.exec(said);
  expect(figure, said).not.toBeNull();

  await tab.goto(`file://${join(tab.downloads, `${MAP}.svg`)}`);
  const map = await tab.run(svgFile);
  expect(map.root).toBe("http://www.w3.org/2000/svg svg");
  expect(map.title).toMatch(/^Bump Lab: fitzgen-down, 64-bit/);
  // A block's name in the file is its tooltip, the page's label.
  expect(map.blocks).toEqual(["a: 1 byte at 0x1010f, align 1", "b: 8 bytes at 0x10100, align 8, 7 bytes padding"]);
  expect([map.width, map.height]).toEqual([Number(figure?.[1]), Number(figure?.[2])]);
  await tab.goto(`file://${join(tab.downloads, `${COST}.svg`)}`);
  const cost = await tab.run(svgFile);
  expect(cost.title).toMatch(/^Bump Lab cost: fitzgen-down, 64-bit/);
  expect(cost.bars).toBe(2);

  await openShare(tab);
  const pngs = await filesArriving(tab.downloads, () => tab.click(named, "button", "Export PNG"), 2);
  expect(pngs).toEqual([`${COST}.png`, `${MAP}.png`]);
  const pngSaid = (await tab.run(textOf, ".share-status")) ?? "";
  const size = /^Exported the memory map as PNG: (\d+) × (\d+) px \(2× a (\d+) × (\d+) figure\)\. Also the cost chart\.$/.exec(pngSaid);
  expect(size, pngSaid).not.toBeNull();
  expect([Number(size?.[3]), Number(size?.[4])]).toEqual([map.width, map.height]);
  await tab.goto(`file://${join(tab.downloads, `${MAP}.png`)}`);
  expect(await tab.run(pngFile)).toEqual({ width: Number(size?.[1]), height: Number(size?.[2]) });
  await tab.goto(`file://${join(tab.downloads, `${COST}.png`)}`);
  expect(await tab.run(pngFile)).toEqual({ width: 2 * cost.width, height: 2 * cost.height });
});
