import { readFileSync } from "node:fs";
import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Alignment padding is hatched and chunk headers and footers striped, in
// every map on the page: each svg paints them with patterns of its own
// (share/mapDefs.ts). This holds in compare mode however it is opened: the
// single run's map stays in the page, hidden, and a pattern found there
// would paint nothing, leaving padding to look like the legend's "free".

interface Painted {
  what: string;
  /** The pattern the fill names, found in the same svg and drawn (its svg displayed). */
  own: boolean;
  /** Its first tile's background colour, which must not be the free bytes' colour. */
  tile: string | null;
}

/** Every padding and metadata shape of the compare columns' maps, and where its fill comes from. */
async function paints(page: Page): Promise<{ painted: Painted[]; free: string[] }> {
  return page.locator("section.compare-column svg.memory-map").evaluateAll((svgs) => {
    const painted: Painted[] = [];
    const free: string[] = [];
    for (const svg of svgs) {
      for (const rect of svg.querySelectorAll(".chunk-free")) free.push(getComputedStyle(rect).fill);
      for (const el of svg.querySelectorAll("rect.pad, .meta-body")) {
        const fill = getComputedStyle(el).fill;
        const id = /url\(["']?[^#"')]*#([^"')]+)["']?\)/.exec(fill)?.[1] ?? "";
        const pattern = id ? document.getElementById(id) : null;
        const tile = pattern?.querySelector("rect");
        painted.push({
          what: `${el.getAttribute("class")} in ${svg.closest("section")?.querySelector("h2, h3")?.textContent ?? "?"}: ${fill}`,
          own: pattern !== null && svg.contains(pattern) && svg.getClientRects().length > 0,
          tile: tile ? getComputedStyle(tile).fill : null,
        });
      }
    }
    return { painted, free };
  });
}

/** What is wrong with the compare maps' padding and metadata fills (none: each paints with its own pattern). */
async function patternFaults(page: Page, expectMeta: boolean): Promise<string[]> {
  const { painted, free } = await paints(page);
  const faults: string[] = [];
  if (painted.length === 0) faults.push("no padding or metadata drawn");
  if (painted.some((p) => p.what.startsWith("meta-body")) !== expectMeta) faults.push(`a chunk header or footer drawn: ${!expectMeta}`);
  for (const p of painted) {
    if (!p.own) faults.push(`${p.what}: not the map's own, drawn pattern`);
    if (p.tile === null || free.includes(p.tile)) faults.push(`${p.what}: tile ${p.tile} is the free bytes' fill`);
  }
  return faults;
}

async function expectPatternsOwn(page: Page, expectMeta: boolean): Promise<void> {
  await expect(page.locator("section.compare-column svg.memory-map").first()).toBeVisible();
  // Polled: a column's map may still be drawing its rows.
  await expect.poll(() => patternFaults(page, expectMeta)).toEqual([]);
}

const counter = (page: Page) => page.locator(".step-counter").first();

test("the Compare button: lesson 1's 7 bytes of padding are hatched in both columns", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("group", { name: "Mode" }).getByRole("button", { name: "Compare" }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(2);
  await expectPatternsOwn(page, false);
});

test("a Try-it compare: the minimum-alignment lesson beside hinckley-up", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Minimum alignment: less work per allocation" }).click();
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("button", { name: "Try it: compare with hinckley-up" }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(2);
  await expectPatternsOwn(page, false);
});

test("every gallery entry: padding hatched, headers and footers striped", async ({ page }) => {
  const entries = page.getByRole("group", { name: "Known behaviours of real arenas" }).getByRole("menuitem");
  await page.getByRole("button", { name: "Programs" }).click();
  // The menu lists the gallery's entries in its order, each opening a column per allocator it names.
  const gallery = JSON.parse(readFileSync("web/src/model/gallery.json", "utf8")) as { allocators: unknown[] }[];
  await expect(entries).toHaveCount(gallery.length);
  await page.keyboard.press("Escape");
  for (let i = 0; i < gallery.length; i++) {
    await page.getByRole("button", { name: "Programs" }).click();
    await entries.nth(i).click();
    await expect(page.locator("section.compare-column")).toHaveCount(gallery[i]?.allocators.length ?? 0);
    await page.getByRole("button", { name: "Last" }).click();
    await expect(counter(page)).toHaveText(/^op (\d+) \/ \1$/);
    // Every entry's pair has an arena with chunk metadata (a header or a footer).
    await expectPatternsOwn(page, true);
  }
});

// Compare's columns are fitted to the bytes their runs use, every block at
// least 6 px wide and named, inside it or in a callout: the block an entry's
// claim is about must be seen and read.
async function named(page: Page, column: number): Promise<Record<string, number>> {
  const col = page.locator("section.compare-column").nth(column);
  return col.locator("svg.memory-map").evaluate((svg) => {
    const out: Record<string, number> = {};
    const callouts = [...svg.querySelectorAll("g.callout text.callout-text")].map((t) => t.textContent ?? "");
    for (const g of svg.querySelectorAll<SVGGElement>("g.block")) {
      const name = /^([^:]+):/.exec(g.getAttribute("aria-label") ?? "")?.[1] ?? "?";
      const body = g.querySelector("rect.body");
      const inside = g.querySelector("text.label")?.textContent ?? "";
      const labelled = inside.startsWith(name) || callouts.includes(name);
      out[name] = labelled ? Number(body?.getAttribute("width") ?? 0) : -1;
    }
    return out;
  });
}

test("compare draws the blocks a gallery entry is about: LLVM's and bumpalo's b, pmr's c, wide enough and named", async ({ page }) => {
  const entry = async (title: RegExp): Promise<void> => {
    await page.getByRole("button", { name: "Programs" }).click();
    await page.getByRole("group", { name: "Known behaviours of real arenas" }).getByRole("menuitem", { name: title }).click();
    await expect(page.locator("section.compare-column")).toHaveCount(2);
    await page.getByRole("button", { name: "Last" }).click();
    await expect(counter(page)).toHaveText(/^op (\d+) \/ \1$/);
  };
  await entry(/^LLVM puts a large request/);
  for (const column of [0, 1]) {
    // bumpalo's b, 100 bytes in a 12,224-byte chunk, was 3 px and unnamed under the bump pointer.
    await expect.poll(async () => (await named(page, column))["b"] ?? -1, { message: `column ${column + 1}: b` }).toBeGreaterThanOrEqual(6);
    await expect.poll(async () => (await named(page, column))["a"] ?? -1, { message: `column ${column + 1}: a` }).toBeGreaterThanOrEqual(6);
  }
  await entry(/^monotonic_buffer_resource abandons/);
  for (const column of [0, 1]) {
    // pmr's 30-byte c sat behind the bump pointer's label, unnamed.
    await expect.poll(async () => (await named(page, column))["c"] ?? -1, { message: `column ${column + 1}: c` }).toBeGreaterThanOrEqual(6);
  }
});
