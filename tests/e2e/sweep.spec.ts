import { readFile } from "node:fs/promises";
import { inflateRawSync } from "node:zlib";
import { ORIGIN } from "../../playwright.config";
import { test, type Locator, type Page } from "@playwright/test";
import { expect } from "./playground";

// Parameter sweeps: the program in the editor run across one parameter, one
// point per configuration. Every number asserted here is read off the page:
// a point's figure must equal what the main view shows once that point's
// configuration is opened there.

const view = (page: Page) => page.locator('[data-view="sweep"]');
const sweepButton = (page: Page) => page.getByRole("button", { name: "Sweep", exact: true });
/** The chart's points whose accessible name starts with `prefix` ("MIN_ALIGN ", "capacity "). */
const points = (page: Page, prefix: string) => view(page).getByRole("button", { name: new RegExp(`^${prefix}`) });
const status = (page: Page) => view(page).getByRole("status");
const program = (page: Page) => page.getByRole("textbox", { name: "Program" });

/** The query a page's share link holds, inflated when the link is compressed ("v1z…"). */
function linkQuery(url: string): string {
  const hash = new URL(url).hash.slice(1);
  return hash.startsWith("v1z") ? inflateRawSync(Buffer.from(hash.slice(3), "base64url")).toString("utf8") : hash;
}

let requests: string[] = [];
let errors: string[] = [];

test.beforeEach(async ({ page }) => {
  requests = [];
  errors = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto("/");
  await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
});

test.afterEach(() => {
  // A PNG export loads the chart's SVG from a blob: URL of this origin.
  const foreign = requests.filter((url) => !url.startsWith(`${ORIGIN}/`) && !url.startsWith(`blob:${ORIGIN}/`));
  expect(foreign, "requests to other origins").toEqual([]);
  expect(errors, "uncaught page errors").toEqual([]);
});

/** bumpalo on a random mix from the Programs menu. */
async function generatedWorkload(page: Page, ops: number, seed: number): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Random mix…" }).click();
  const form = page.getByRole("form", { name: "Random mix" });
  await form.getByRole("textbox", { name: "Ops" }).fill(String(ops));
  await form.getByRole("textbox", { name: "Seed" }).fill(String(seed));
  await form.getByRole("button", { name: "Generate" }).click();
  await expect(program(page)).toHaveProgram(new RegExp(`^# Random mix: ${ops} ops, .*seed ${seed}\\n`));
  await expect(page.locator(".step-counter")).toHaveText(`op ${ops} / ${ops}`);
}

/** A point's figure from its accessible name: "MIN_ALIGN 8: 1,234 wasm instructions" gives [8, 1234]. */
async function readPoint(point: Locator): Promise<{ value: string; figure: number }> {
  const label = (await point.getAttribute("aria-label")) ?? "";
  const m = /^\S+ (\S+): ([\d,]+) wasm instructions$/.exec(label);
  if (!m) throw new Error(`not a measured point: ${label}`);
  return { value: m[1] ?? "", figure: Number((m[2] ?? "").replaceAll(",", "")) };
}

/** The cost panel's total: "40 ops, 3849 wasm instructions in all". */
async function shownInstructions(page: Page): Promise<number> {
  const note = page.locator("#cost-view .cost-note");
  await expect(note).toHaveText(/ wasm instructions in all/);
  const m = /, (\d+) wasm instructions in all/.exec((await note.textContent()) ?? "");
  return Number(m?.[1]);
}

test("a MIN_ALIGN sweep on bumpalo: one point per value, each the instructions the main view measures for it", async ({ page }) => {
  await generatedWorkload(page, 40, 3);
  await sweepButton(page).click();
  await expect(view(page)).toBeVisible();
  // The single map and cost panels make way for the sweep.
  await expect(page.locator("#cost-panel")).toBeHidden();
  await expect(page.locator("#memory-map")).toBeHidden();
  await expect(view(page).getByRole("combobox", { name: "Parameter" })).toHaveValue("minAlign");
  await expect(view(page).getByRole("textbox", { name: "Values" })).toHaveValue("1, 2, 4, 8, 16");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText("5 configurations run.");

  const chart = points(page, "MIN_ALIGN ");
  await expect(chart).toHaveCount(5);
  const read = [];
  for (let i = 0; i < 5; i++) read.push(await readPoint(chart.nth(i)));
  expect(read.map((p) => p.value)).toEqual(["1", "2", "4", "8", "16"]);
  for (const p of read) expect(p.figure).toBeGreaterThan(0);
  // MIN_ALIGN changes the code that runs: not every point costs the same.
  expect(new Set(read.map((p) => p.figure)).size).toBeGreaterThan(1);

  // Hover shows all of a point's figures.
  await chart.nth(3).hover();
  const card = view(page).locator(".sweep-card");
  await expect(card).toBeVisible();
  await expect(card).toContainText("MIN_ALIGN 8");
  await expect(card).toContainText(`Wasm instructions${read[3]?.figure.toLocaleString("en-US")}`);
  await expect(card).toContainText("Peak footprint bytes");

  // Each point opened in the main view: that minimum alignment, and the same count on the cost panel.
  for (const [i, p] of read.entries()) {
    if (i > 0) {
      await sweepButton(page).click();
      await expect(status(page)).toHaveText("5 configurations run.");
    }
    await points(page, "MIN_ALIGN ").nth(i).click();
    await expect(view(page)).toHaveCount(0);
    await expect(page.getByRole("combobox", { name: "Minimum alignment" })).toHaveValue(p.value);
    await expect(page.locator(".step-counter")).toHaveText("op 40 / 40");
    expect(await shownInstructions(page), `MIN_ALIGN ${p.value}`).toBe(p.figure);
  }
});

test("keyboard: a focused point shows its figures, arrows move between points and Enter opens one", async ({ page }) => {
  await generatedWorkload(page, 20, 5);
  await sweepButton(page).click();
  await expect(status(page)).toHaveText("5 configurations run.");
  const second = points(page, "MIN_ALIGN ").nth(1);
  const { figure } = await readPoint(second);
  await second.focus();
  await expect(view(page).locator(".sweep-card")).toBeVisible();
  await expect(view(page).locator(".sweep-card")).toContainText("MIN_ALIGN 2");
  // Arrows walk the points; Enter opens the one focused.
  await page.keyboard.press("ArrowRight");
  await expect(points(page, "MIN_ALIGN 4: ")).toBeFocused();
  await expect(view(page).locator(".sweep-card")).toContainText("MIN_ALIGN 4");
  await page.keyboard.press("ArrowLeft");
  await expect(second).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("combobox", { name: "Minimum alignment" })).toHaveValue("2");
  expect(await shownInstructions(page)).toBe(figure);
});

test("the metric chooser redraws the chart; CSV export holds the figures shown", async ({ page }) => {
  await generatedWorkload(page, 40, 3);
  await sweepButton(page).click();
  await expect(status(page)).toHaveText("5 configurations run.");
  const chart = points(page, "MIN_ALIGN ");
  const instructions = [];
  for (let i = 0; i < 5; i++) instructions.push((await readPoint(chart.nth(i))).figure);

  await view(page).getByRole("combobox", { name: "Metric" }).selectOption("padding");
  await expect(chart.first()).toHaveAttribute("aria-label", /^MIN_ALIGN 1: [\d,]+ padding bytes$/);
  const padding: number[] = [];
  for (let i = 0; i < 5; i++) {
    const label = (await chart.nth(i).getAttribute("aria-label")) ?? "";
    padding.push(Number(/: ([\d,]+) padding bytes$/.exec(label)?.[1]?.replaceAll(",", "")));
  }

  const downloading = page.waitForEvent("download");
  await view(page).getByRole("button", { name: "Export CSV" }).click();
  const file = await downloading;
  expect(file.suggestedFilename()).toBe("bumplab-bumpalo-sweep-min-align.csv");
  const lines = (await readFile(await file.path(), "utf8")).split("\r\n");
  expect(lines[0]).toBe(
    "parameter,value,allocator,target,capacity,min_align,wasm_instructions,wasm_branches,padding_bytes,metadata_bytes,leaked_bytes,chunks,peak_footprint_bytes,ops,failed_ops,error",
  );
  expect(lines).toHaveLength(7);
  expect(lines[6]).toBe("");
  const rows = lines.slice(1, 6).map((l) => l.split(","));
  expect(rows.map((r) => [r[0], r[1], r[2], r[5]])).toEqual(
    ["1", "2", "4", "8", "16"].map((v) => ["minAlign", v, "bumpalo", v]),
  );
  expect(rows.map((r) => Number(r[6]))).toEqual(instructions);
  expect(rows.map((r) => Number(r[8]))).toEqual(padding);
  expect(rows.map((r) => r[13])).toEqual(["40", "40", "40", "40", "40"]);

  // SVG export of the chart: one circle per point.
  const svgDownload = page.waitForEvent("download");
  await view(page).getByRole("button", { name: "Export SVG" }).click();
  const svg = await readFile(await (await svgDownload).path(), "utf8");
  expect(svg).toContain("<title>Bump Lab sweep: Padding bytes by MIN_ALIGN</title>");
  expect(svg.match(/class="sweep-point"/g)).toHaveLength(5);

  // PNG export: a real PNG file.
  const pngDownload = page.waitForEvent("download");
  await view(page).getByRole("button", { name: "Export PNG" }).click();
  const png = await pngDownload;
  expect(png.suggestedFilename()).toBe("bumplab-bumpalo-sweep-min-align.png");
  const bytes = await readFile(await png.path());
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
});

test("a configuration whose program fails shows its error at its point; the others still run", async ({ page }) => {
  await generatedWorkload(page, 20, 2);
  await sweepButton(page).click();
  await expect(status(page)).toHaveText("5 configurations run.");
  await view(page).getByRole("textbox", { name: "Values" }).fill("1, 3, 8");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText("3 configurations run, 1 failed (shown at their point).");
  await expect(points(page, "MIN_ALIGN ")).toHaveCount(3);
  await expect(points(page, "MIN_ALIGN 3: error: minimum alignment 3 is not allowed for bumpalo")).toHaveCount(1);
  await expect(view(page).getByRole("list", { name: "Configurations whose program failed" }).getByRole("listitem")).toHaveText([
    "MIN_ALIGN 3: line 1, column 1: minimum alignment 3 is not allowed for bumpalo: use one of 1, 2, 4, 8, 16",
  ]);
  await expect(points(page, "MIN_ALIGN 8: [\\d,]+ wasm instructions$")).toHaveCount(1);
});

test("a long sweep shows n of N and stops when cancelled", async ({ page }) => {
  // A typed program of 1,200 ops: every configuration takes a while to trace.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await program(page).fill("repeat 400 {\n  a = alloc 24 align 8\n  b = alloc 3\n  free a\n}");
  await expect(page.locator(".step-counter")).toHaveText("op 1200 / 1200");
  await sweepButton(page).click();
  await view(page).getByRole("combobox", { name: "Parameter" }).selectOption("capacity");
  await view(page).getByRole("textbox", { name: "Values" }).fill("64..1072 by 16");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  const progress = view(page).getByRole("progressbar", { name: "Sweep progress" });
  await expect(progress).toHaveAttribute("aria-valuemax", "64");
  await expect(progress).toHaveAttribute("aria-valuetext", /^[1-9]\d* of 64 configurations$/);
  await view(page).getByRole("button", { name: "Cancel" }).click();
  await expect(progress).toBeHidden();
  await expect(status(page)).toHaveText(/^Cancelled after \d+ of 64 configurations\.$/);
  const done = Number(/after (\d+) of/.exec((await status(page).textContent()) ?? "")?.[1]);
  expect(done).toBeGreaterThan(0);
  expect(done).toBeLessThan(64);
  // The points run so far stay on the chart; Run goes again.
  await expect(points(page, "capacity ")).toHaveCount(done);
  await expect(view(page).getByRole("button", { name: "Run sweep" })).toBeEnabled();
});

test("the sweep is part of the share link: the link reopens it with the same points", async ({ page, context }) => {
  await generatedWorkload(page, 30, 4);
  await sweepButton(page).click();
  await view(page).getByRole("combobox", { name: "Parameter" }).selectOption("capacity");
  await view(page).getByRole("textbox", { name: "Values" }).fill("64..1024");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText("5 configurations run.");
  await expect(points(page, "capacity ")).toHaveCount(5);
  const labels = await points(page, "capacity ").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")));
  expect(labels).toHaveLength(5);
  expect(labels[0]).toMatch(/^capacity 64: [\d,]+ wasm instructions$/);
  // The hash follows the state (debounced): wait until it holds the sweep, then open it elsewhere.
  await expect.poll(() => linkQuery(page.url())).toContain("&w=capacity:64,128,256,512,1024&");
  const link = page.url();

  const other = await context.newPage();
  await other.goto(link);
  await expect(view(other)).toBeVisible();
  await expect(view(other).getByRole("combobox", { name: "Parameter" })).toHaveValue("capacity");
  await expect(view(other).getByRole("textbox", { name: "Values" })).toHaveValue("64, 128, 256, 512, 1024");
  await expect(status(other)).toHaveText("5 configurations run.");
  expect(await points(other, "capacity ").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")))).toEqual(labels);
  await other.close();

  // Closing the sweep takes it out of the link.
  await view(page).getByRole("button", { name: "Close sweep" }).click();
  await expect(view(page)).toHaveCount(0);
  await expect(page.locator("#cost-panel")).toBeVisible();
  await expect.poll(() => linkQuery(page.url())).not.toContain("&w=");
});

test("a random mix's size range swept: each point's program is the mix with that range, as the main view opens it", async ({ page }) => {
  await generatedWorkload(page, 30, 4);
  await sweepButton(page).click();
  await view(page).getByRole("combobox", { name: "Parameter" }).selectOption("generatorSize");
  // The mix's other settings start from the program's own first line.
  const mix = view(page).getByRole("group", { name: "Random mix settings" });
  await expect(mix.getByRole("textbox", { name: "Ops" })).toHaveValue("30");
  await expect(mix.getByRole("textbox", { name: "Seed" })).toHaveValue("4");
  await expect(mix.getByRole("textbox", { name: "Alignments" })).toHaveValue("1-16");
  await view(page).getByRole("textbox", { name: "Values" }).fill("1-8, 1-256");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText("2 configurations run.");
  const chart = points(page, "sizes ");
  await expect(chart).toHaveCount(2);
  const wide = chart.nth(1);
  await expect(wide).toHaveAttribute("aria-label", /^sizes 1-256: [\d,]+ wasm instructions$/);
  const { figure } = await readPoint(wide);
  await wide.click();
  await expect(program(page)).toHaveProgram(/^# Random mix: 30 ops, sizes 1\.\.256, align 1\.\.16, seed 4\n/);
  await expect(page.locator(".step-counter")).toHaveText("op 30 / 30");
  expect(await shownInstructions(page)).toBe(figure);
});

test("a link whose sweep this version cannot run says why", async ({ page }) => {
  await page.goto("/#v1?a=bumpalo&t=64&s=0&w=preset:bumpalo,no-such-preset&p=a+=+alloc+8&end");
  await expect(view(page)).toBeVisible();
  await expect(view(page).getByRole("alert")).toHaveText('"no-such-preset" is not a preset.');
  await expect(view(page).locator(".sweep-point")).toHaveCount(0);
  await expect(view(page).locator(".sweep-status")).toHaveText("");
  // The values stay as the link gave them, to be corrected and run.
  await expect(view(page).getByRole("textbox", { name: "Values" })).toHaveValue("bumpalo, no-such-preset");
});

/**
 * The x tick labels as drawn (each label's box turned as it is on screen),
 * and which pairs of neighbours overlap, or overlap the axis title, or leave
 * the chart: separating-axis tests on the rotated boxes.
 */
function labelClashes(page: Page): Promise<{ labels: string[]; angle: string | null; clashes: string[] }> {
  return view(page)
    .locator("svg.sweep-svg")
    .evaluate((svg: SVGSVGElement) => {
      type P = { x: number; y: number };
      const corners = (el: SVGGraphicsElement): P[] => {
        const b = el.getBBox();
        const m = el.getScreenCTM();
        if (!m) return [];
        return [
          [b.x, b.y],
          [b.x + b.width, b.y],
          [b.x + b.width, b.y + b.height],
          [b.x, b.y + b.height],
        ].map(([x = 0, y = 0]) => new DOMPoint(x, y).matrixTransform(m));
      };
      const apart = (a: P[], b: P[]): boolean => {
        for (const poly of [a, b]) {
          for (let i = 0; i < poly.length; i++) {
            const p = poly[i] as P;
            const q = poly[(i + 1) % poly.length] as P;
            const axis = { x: q.y - p.y, y: p.x - q.x };
            const span = (ps: P[]) => ps.map((v) => v.x * axis.x + v.y * axis.y);
            const [sa, sb] = [span(a), span(b)];
            if (Math.max(...sa) <= Math.min(...sb) || Math.max(...sb) <= Math.min(...sa)) return true;
          }
        }
        return false;
      };
      const texts = [...svg.querySelectorAll<SVGTextElement>(".axis-x .tick text")];
      const boxes = texts.map(corners);
      const title = svg.querySelector<SVGTextElement>(".axis-title[text-anchor=middle]");
      const titleBox = title ? corners(title) : [];
      const frame = svg.getBoundingClientRect();
      const clashes: string[] = [];
      boxes.forEach((box, i) => {
        const name = texts[i]?.textContent ?? "";
        const next = boxes[i + 1];
        if (next && !apart(box, next)) clashes.push(`${name} / ${texts[i + 1]?.textContent}`);
        if (!apart(box, titleBox)) clashes.push(`${name} / axis title`);
        if (box.some((p) => p.x < frame.left - 0.5 || p.x > frame.right + 0.5 || p.y > frame.bottom + 0.5)) clashes.push(`${name} leaves the chart`);
      });
      return { labels: texts.map((t) => t.textContent ?? ""), angle: texts[0]?.getAttribute("data-angle") ?? null, clashes };
    });
}

test("a preset sweep draws one bar per preset, no line joining them, and its slanted labels clear each other", async ({ page }) => {
  await page.setViewportSize({ width: 1440, height: 900 });
  // fitzgen-down has no MIN_ALIGN: the Sweep button opens on the presets, all of them.
  await sweepButton(page).click();
  await expect(view(page).getByRole("combobox", { name: "Parameter" })).toHaveValue("preset");
  const values = (await view(page).getByRole("textbox", { name: "Values" }).inputValue()).split(", ");
  expect(values).toEqual(expect.arrayContaining(["bump-scope-up", "bump-scope-down", "bumpalo", "fitzgen-down"]));
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText(`${values.length} configurations run.`);

  const svg = view(page).locator("svg.sweep-svg");
  await expect(svg).toHaveAttribute("aria-label", "Wasm instructions by preset: one bar per configuration");
  // A bar per preset, each inside its point, and no path joining them.
  await expect(svg.locator("g.sweep-point > rect.sweep-bar")).toHaveCount(values.length);
  await expect(svg.locator("path.sweep-line")).toHaveCount(0);
  await expect(svg.locator("g.sweep-point circle:not(.sweep-hit)")).toHaveCount(0);
  // Each bar stands on the axis and is as tall as its figure says.
  const bars = await svg.locator("g.sweep-point").evaluateAll((gs) =>
    gs.map((g) => {
      const rect = g.querySelector("rect.sweep-bar")?.getBoundingClientRect();
      const axis = g.closest("svg")?.querySelector(".axis-x")?.getBoundingClientRect();
      return { figure: Number(g.getAttribute("data-metric-value")), height: rect?.height ?? 0, gap: Math.abs((rect?.bottom ?? 0) - (axis?.top ?? 0)) };
    }),
  );
  for (const b of bars) {
    expect(b.figure).toBeGreaterThan(0);
    expect(b.gap).toBeLessThan(1);
  }
  const [tallest] = [...bars].sort((a, b) => b.figure - a.figure);
  for (const b of bars) expect(b.height / (tallest?.height ?? 1)).toBeCloseTo(b.figure / (tallest?.figure ?? 1), 2);

  // The tick labels, bump-scope-up beside bump-scope-down among them, lean and do not touch.
  const drawn = await labelClashes(page);
  expect(drawn.labels).toEqual(values);
  expect(Number(drawn.angle)).toBeGreaterThanOrEqual(35);
  expect(drawn.clashes).toEqual([]);

  // The same sweep on a phone's width leans further and still clears.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect.poll(async () => Number((await labelClashes(page)).angle)).toBeGreaterThan(Number(drawn.angle));
  expect((await labelClashes(page)).clashes).toEqual([]);

  // Targets are categories too.
  await view(page).getByRole("combobox", { name: "Parameter" }).selectOption("target");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(status(page)).toHaveText("2 configurations run.");
  await expect(svg.locator("rect.sweep-bar")).toHaveCount(2);
  await expect(svg.locator("path.sweep-line")).toHaveCount(0);
});

test("a MIN_ALIGN sweep on an allocator without MIN_ALIGN says so and runs nothing; on one with it, a line joins the points", async ({ page }) => {
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
  await sweepButton(page).click();
  await view(page).getByRole("combobox", { name: "Parameter" }).selectOption("minAlign");
  const alert = view(page).getByRole("alert");
  // Said on choosing the parameter, before any Run.
  await expect(alert).toHaveText(/^fitzgen-down has no MIN_ALIGN setting, so a minimum alignment sweep has nothing to vary\. Presets that have one: .*\bbumpalo\b/);
  await view(page).getByRole("textbox", { name: "Values" }).fill("1, 8");
  await view(page).getByRole("button", { name: "Run sweep" }).click();
  await expect(alert).toHaveText(/^fitzgen-down has no MIN_ALIGN setting/);
  // Nothing ran: the chart still shows the presets the view opened on.
  await expect(points(page, "MIN_ALIGN ")).toHaveCount(0);
  await expect(view(page).locator("svg.sweep-svg")).toHaveAttribute("aria-label", /by preset/);

  // The same sweep from a link says so too.
  await page.goto("/#v1?a=fitzgen-down&t=64&s=0&w=minAlign:1,8&p=a+=+alloc+8&end");
  await expect(view(page)).toBeVisible();
  await expect(alert).toHaveText(/^fitzgen-down has no MIN_ALIGN setting/);
  await expect(view(page).locator(".sweep-empty")).toHaveText("No configuration ran.");
  await expect(view(page).locator(".sweep-point")).toHaveCount(0);

  // On bumpalo, which has the setting, the message goes and the sweep runs: amounts, joined by a line.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await expect(view(page).locator(".sweep-form-error")).toHaveText("");
  await expect(alert).toHaveCount(0);
  await expect(status(page)).toHaveText("2 configurations run.");
  await expect(points(page, "MIN_ALIGN ")).toHaveCount(2);
  await expect(view(page).locator("svg.sweep-svg path.sweep-line")).toHaveCount(1);
  await expect(view(page).locator("svg.sweep-svg rect.sweep-bar")).toHaveCount(0);
});
