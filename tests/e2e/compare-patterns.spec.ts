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

async function expectPatternsOwn(page: Page, expectMeta: boolean): Promise<void> {
  await expect(page.locator("section.compare-column svg.memory-map").first()).toBeVisible();
  const { painted, free } = await paints(page);
  expect(painted.length, "padding or metadata drawn").toBeGreaterThan(0);
  expect(painted.some((p) => p.what.startsWith("meta-body")), "a chunk header or footer drawn").toBe(expectMeta);
  for (const p of painted) {
    expect(p.own, p.what).toBe(true);
    expect(p.tile, p.what).not.toBeNull();
    expect(free, `${p.what}: its hatch is not the free bytes' fill`).not.toContain(p.tile);
  }
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
  await expect(entries).toHaveCount(5);
  await page.keyboard.press("Escape");
  for (let i = 0; i < 5; i++) {
    await page.getByRole("button", { name: "Programs" }).click();
    await entries.nth(i).click();
    await expect(page.locator("section.compare-column")).toHaveCount(2);
    await page.getByRole("button", { name: "Last" }).click();
    await expect(counter(page)).toHaveText(/^op (\d+) \/ \1$/);
    // Every entry's pair has an arena with chunk metadata (a header or a footer).
    await expectPatternsOwn(page, true);
  }
});
