import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { FIGURE_MIN_BLOCK_PX } from "../../web/src/views/map/fit";

// Figure mode: a compare embed for a post (embed.html?figure=1&caption=…)
// and <bump-lab figure> in a host page are read-only (no control but the
// step controls), captioned, and fit each map to the bytes its run uses so
// every block is at least FIGURE_MIN_BLOCK_PX wide.

const PROGRAM = "a = alloc 8\nb = alloc u64\nc = alloc 24 align 16\nfree b\nd = alloc 1";
const COMPARED: SharedState = {
  source: PROGRAM,
  allocator: "bumpalo",
  target: "64",
  capacity: null,
  minAlign: null,
  step: 5,
  compare: [
    { allocator: "bumpalo", target: "64", minAlign: null, capacity: null },
    { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
  ],
};
const CAPTION = "Figure 1: the same five ops on bumpalo and hinckley-up";

/** The roles a reader could edit or act with; only the step controls may have them in a figure. */
const CONTROL_ROLES = ["button", "combobox", "listbox", "textbox", "spinbutton", "slider", "checkbox", "radio", "switch", "menu"] as const;

/** Accessible controls outside the step controls, as "role: name". */
async function controlsOutsideStepper(scope: Page | Locator): Promise<string[]> {
  const out: string[] = [];
  for (const role of CONTROL_ROLES) {
    const names = await scope.getByRole(role).evaluateAll((els, r) => els.filter((e) => !e.closest(".stepper")).map((e) => `${r}: ${e.getAttribute("aria-label") ?? e.textContent ?? ""}`), role);
    out.push(...names);
  }
  return out;
}

/** The drawn width in CSS pixels of every block body in the scope's maps. */
async function blockWidths(scope: Locator): Promise<number[]> {
  return scope.locator("svg.memory-map g[data-block] rect.body").evaluateAll((els) => els.map((e) => e.getBoundingClientRect().width));
}

test.beforeEach(async ({ page }) => {
  // No glide between steps: widths are read as soon as a step is drawn.
  await page.emulateMedia({ reducedMotion: "reduce" });
});

test("a figure-mode compare embed has only step controls, its caption, allocator headings and every block at least 6 px wide", async ({ page }) => {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.setViewportSize({ width: 720, height: 700 });
  await page.goto(`${ORIGIN}/embed.html?figure=1&caption=${encodeURIComponent(CAPTION)}#${await encodeShare(COMPARED)}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  // A captioned figure is named by its caption.
  const figure = page.getByRole("figure", { name: CAPTION });
  await expect(figure).toBeVisible();
  await expect(figure.locator("figcaption")).toHaveText(CAPTION);
  const columns = page.locator(".compare-column");
  await expect(columns).toHaveCount(2);
  // Headings are the allocators' names alone: both run at their defaults.
  await expect(page.getByRole("heading", { level: 3 })).toHaveText(["bumpalo", "hinckley-up"]);
  // No setup row, column selectors, Remove, Add column, Exit compare, table or zoom buttons.
  expect(await controlsOutsideStepper(page)).toEqual([]);
  await expect(page.locator("table, .compare-setup, .map-toolbar:visible")).toHaveCount(0);
  // The step controls stay.
  await expect(page.getByRole("button", { name: "Step back" })).toBeVisible();
  await expect(page.locator(".step-counter")).toHaveText("op 5 / 5");

  // Every block of both columns is drawn, each at least the minimum wide.
  const bumpalo = columns.nth(0);
  const hinckley = columns.nth(1);
  await expect(bumpalo.locator("g[data-block]")).toHaveCount(4);
  await expect(hinckley.locator("g[data-block]")).toHaveCount(4);
  for (const col of [bumpalo, hinckley]) {
    const widths = await blockWidths(col);
    expect(widths).toHaveLength(4);
    for (const w of widths) expect(w).toBeGreaterThanOrEqual(FIGURE_MIN_BLOCK_PX - 0.01);
    // Side by side, none covering another: widened, the 1-byte d still shows beside c.
    const spans = (await col.locator("svg.memory-map g[data-block] rect.body").evaluateAll((els) => els.map((e) => {
      const r = e.getBoundingClientRect();
      return [r.left, r.right] as const;
    }))).sort((p, q) => p[0] - q[0]);
    for (let i = 1; i < spans.length; i++) expect(spans[i]![0]).toBeGreaterThanOrEqual(spans[i - 1]![1] - 0.5);
  }
  // bumpalo's 448-byte chunk is cut to the bytes the run used: 8 + 8 + 24 (aligned to 16) + 1, bumped down.
  const cut = bumpalo.locator("g.row-cut");
  await expect(cut).toBeVisible();
  const unused = Number(await cut.getAttribute("data-bytes"));
  expect(unused).toBeGreaterThan(380);
  expect(unused).toBeLessThan(448);
  // In a column this narrow the break says the bytes only; its title says the rest.
  await expect(cut.locator("text")).toHaveText(new RegExp(`^⋯ ${unused} B( unused)?$`));
  await expect(bumpalo.locator("g.chunk-row")).toHaveAttribute("data-unused-cut", String(unused));
  // The axis ends at the chunk's real end address (bumping down: the span ends there).
  const row = bumpalo.locator("g.chunk-row");
  const start = Number(await row.getAttribute("data-start"));
  const capacity = Number(await row.getAttribute("data-capacity"));
  expect(Number(await row.getAttribute("data-view-start"))).toBe(start + unused);
  expect(Number(await row.getAttribute("data-view-end"))).toBe(start + capacity);

  // Stepping keeps the fit: the row's span does not move.
  await page.getByRole("button", { name: "First" }).click();
  await expect(page.locator(".step-counter")).toHaveText("op 0 / 5");
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(page.locator(".step-counter")).toHaveText("op 1 / 5");
  await expect(row).toHaveAttribute("data-view-start", String(start + unused));
  const first = await blockWidths(bumpalo);
  expect(first).toHaveLength(1);
  // One 8-byte block of a span of 49 bytes: unfitted it would be 8/448 of the row (under 6 px here).
  expect(first[0]).toBeGreaterThan(2 * FIGURE_MIN_BLOCK_PX);
  expect(errors).toEqual([]);
});

test("controls=0 leaves a figure with no control at all", async ({ page }) => {
  await page.goto(`${ORIGIN}/embed.html?figure=1&controls=0#${await encodeShare(COMPARED)}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  await expect(page.locator(".compare-column")).toHaveCount(2);
  for (const role of CONTROL_ROLES) await expect(page.getByRole(role)).toHaveCount(0);
  // No caption asked for: none drawn.
  await expect(page.locator("figcaption")).toHaveCount(0);
});

// A blog on another origin with a <bump-lab figure> element.
let server: Server;
let HOST = "";
let hash = "";

test.beforeAll(async () => {
  hash = await encodeShare(COMPARED);
  server = createServer((req, res) => {
    if (req.url !== "/post.html") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A post with a figure</title>
<script type="module" src="${ORIGIN}/bump-lab.js"></script>
<style>body { font: 16px/1.5 Georgia, serif; max-width: 720px; margin: 20px auto; }</style></head>
<body><h1>Two allocators, one program</h1>
<bump-lab id="fig" figure caption="${CAPTION}" link="${hash.replaceAll("&", "&amp;")}"></bump-lab>
<bump-lab id="single" figure allocator="bumpalo" step="1" program="a = alloc 8"></bump-lab>
</body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  HOST = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("<bump-lab figure> in a host page: only step controls, its caption, every block at least 6 px wide", async ({ page }) => {
  await page.goto(`${HOST}/post.html`);
  const fig = page.locator("bump-lab#fig");
  await expect(fig).toHaveAttribute("data-ready", "true");
  await expect(fig.getByRole("figure", { name: CAPTION }).locator("figcaption")).toHaveText(CAPTION);
  await expect(fig.locator(".compare-column")).toHaveCount(2);
  await expect(fig.getByRole("heading", { level: 3 })).toHaveText(["bumpalo", "hinckley-up"]);
  expect(await controlsOutsideStepper(fig)).toEqual([]);
  await expect(fig.getByRole("button", { name: "Step forward" })).toBeVisible();
  const widths = await blockWidths(fig);
  expect(widths).toHaveLength(8);
  for (const w of widths) expect(w).toBeGreaterThanOrEqual(FIGURE_MIN_BLOCK_PX - 0.01);

  // A single run's figure: one 8-byte block in bumpalo's 448-byte chunk fills the row's span, beside a break of 440 unused bytes.
  const single = page.locator("bump-lab#single");
  await expect(single).toHaveAttribute("data-ready", "true");
  expect(await controlsOutsideStepper(single)).toEqual([]);
  await expect(single.locator("g.row-cut")).toHaveAttribute("data-bytes", "440");
  await expect(single.locator("g.row-cut text")).toHaveText("⋯ 440 B unused");
  const [only] = await blockWidths(single);
  expect(only).toBeGreaterThan(300);
});

test("the app's Present toggle: larger type, the editor put away, P toggles it, arrows step, Escape leaves, ?present=1 opens in it", async ({ page }) => {
  const single: SharedState = { ...COMPARED, compare: null, step: 0 };
  await page.setViewportSize({ width: 1440, height: 900 });
  await page.goto(`${ORIGIN}/#${await encodeShare(single)}`);
  await expect(page.locator("body[data-ready=true]")).toHaveCount(1);
  const toggle = page.getByRole("button", { name: "Present" });
  const editor = page.getByRole("region", { name: "Program editor" });
  const rootFont = (): Promise<string> => page.evaluate(() => getComputedStyle(document.documentElement).fontSize);
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  await expect(editor).toBeVisible();
  expect(await rootFont()).toBe("16px");

  await toggle.click();
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  expect(await rootFont()).toBe("22px");
  await expect(editor).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Presentation mode:" })).toHaveText("Presentation mode: ← and → step (→ reveals a question's answer first), Space plays, Page Up and Page Down scroll the narration, P or Escape leaves.");
  expect(new URL(page.url()).searchParams.get("present")).toBe("1");
  // Stepped by keys alone: the step buttons are put away, the counter stays.
  await expect(page.getByRole("button", { name: "Step forward" })).toBeHidden();
  const counter = page.locator(".step-counter");
  await expect(counter).toHaveText("op 0 / 5");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowRight");
  await expect(counter).toHaveText("op 2 / 5");
  await page.keyboard.press("ArrowLeft");
  await expect(counter).toHaveText("op 1 / 5");
  await expect(page.locator("#memory-map g[data-block]")).toHaveCount(1);
  // The map is fitted as a figure is: the 49 bytes the program uses of bumpalo's 448, no zoom controls.
  await expect(page.locator("#memory-map g.row-cut")).toHaveAttribute("data-bytes", "399");
  await expect(page.locator("#memory-map g.row-cut text")).toHaveText("⋯ 399 B unused");
  await expect(page.getByRole("toolbar", { name: "Memory map zoom" })).toBeHidden();

  await page.keyboard.press("p");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");
  expect(await rootFont()).toBe("16px");
  await expect(editor).toBeVisible();
  await expect(page.locator("#memory-map g.row-cut")).toBeHidden();
  expect(new URL(page.url()).searchParams.get("present")).toBeNull();
  await page.keyboard.press("Shift+P");
  await expect(toggle).toHaveAttribute("aria-pressed", "true");
  await page.keyboard.press("Escape");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");

  // Typing a P in the editor is a P, not a toggle.
  await editor.locator("textarea, [contenteditable=true]").first().click();
  await page.keyboard.press("p");
  await expect(toggle).toHaveAttribute("aria-pressed", "false");

  await page.goto(`${ORIGIN}/?present=1#${await encodeShare(single)}`);
  await expect(page.locator("body[data-ready=true]")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Present" })).toHaveAttribute("aria-pressed", "true");
  expect(await rootFont()).toBe("22px");
  await expect(page.getByRole("region", { name: "Program editor" })).toBeHidden();
});
