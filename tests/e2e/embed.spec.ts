import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { decodeShare, encodeShare, type SharedState } from "../../web/src/share/link";
import { DEFAULT_PROGRAM } from "../../web/src/model/generators";

// A blog on another origin: a tiny server serving tests/e2e/host/host.html
// with the app's origin and a share link filled in. The page embeds the
// iframe (sandboxed) and two <bump-lab> elements from the app's origin.

const HOST_FILE = new URL("./host/host.html", import.meta.url);
const DOCS_FILE = new URL("../../docs/embedding.md", import.meta.url);

const STATE: SharedState = { source: DEFAULT_PROGRAM, allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null, step: 6, compare: null };
const TWO: SharedState = { ...STATE, allocator: "hinckley-up", step: 3, source: "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16" };

let server: Server;
let HOST = "";
let hash = "";

test.beforeAll(async () => {
  hash = await encodeShare(STATE);
  const template = readFileSync(HOST_FILE, "utf8");
  server = createServer((req, res) => {
    if (req.url !== "/host.html") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(template.replaceAll("__APP__", ORIGIN).replaceAll("__HASH__", hash.replaceAll("&", "&amp;")));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  HOST = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

let requests: string[] = [];
let errors: string[] = [];

test.beforeEach(({ page }) => {
  requests = [];
  errors = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
});

test.afterEach(() => {
  const foreign = requests.filter((url) => !url.startsWith(`${ORIGIN}/`) && !url.startsWith(`${HOST}/`) && !url.startsWith("data:") && !url.startsWith("blob:"));
  expect(foreign, "requests to origins other than the app's and the host's").toEqual([]);
  expect(errors, "uncaught page errors").toEqual([]);
});

/** Accessible names of the drawn blocks, in drawing order. */
async function blockLabels(blocks: Locator): Promise<string[]> {
  await expect(blocks.first()).toBeVisible();
  return blocks.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
}

async function mainPageLabels(page: Page, state: SharedState): Promise<string[]> {
  await page.goto(`${ORIGIN}/#${await encodeShare(state)}`);
  await expect(page.locator(".step-counter").first()).toContainText(`op ${state.step} /`);
  return blockLabels(page.locator("#memory-map svg.memory-map g[data-block]"));
}

async function openHost(page: Page): Promise<void> {
  await page.goto(`${HOST}/host.html`);
  await expect(page.locator("bump-lab#one")).toHaveAttribute("data-ready", "true");
  await expect(page.locator("bump-lab#two")).toHaveAttribute("data-ready", "true");
  await expect(page.frameLocator("#embed").locator("#embed[data-ready=true]")).toHaveCount(1);
}

test("the iframe and both elements draw the blocks the app draws for the same state", async ({ page }) => {
  const expected = await mainPageLabels(page, STATE);
  expect(expected).toHaveLength(5);
  const expectedTwo = await mainPageLabels(page, TWO);
  expect(expectedTwo).toHaveLength(3);

  await openHost(page);
  const frame = page.frameLocator("#embed");
  expect(await blockLabels(frame.locator("svg.memory-map g[data-block]"))).toEqual(expected);
  await expect(frame.locator(".step-counter")).toHaveText("op 6 / 6");
  // views=code: the code view is shown beside the map.
  await expect(frame.locator(".code-view")).toContainText("step: bump");
  expect(await blockLabels(page.locator("bump-lab#one svg.memory-map g[data-block]"))).toEqual(expected);
  expect(await blockLabels(page.locator("bump-lab#two svg.memory-map g[data-block]"))).toEqual(expectedTwo);

  // Independent: stepping one element leaves the other and the iframe alone.
  await page.locator("bump-lab#one").getByRole("button", { name: "First" }).click();
  await expect(page.locator("bump-lab#one .step-counter")).toHaveText("op 0 / 6");
  await expect(page.locator("bump-lab#one svg.memory-map g[data-block]")).toHaveCount(0);
  await expect(page.locator("bump-lab#two .step-counter")).toHaveText("op 3 / 3");
  await expect(frame.locator(".step-counter")).toHaveText("op 6 / 6");
});

// ---- What the embed fetches (issue 7) ----------------------------------------------------

/** The lean module's wasm (web/pkg-trace), as Vite names it in dist/ and bump-lab.js's copy. */
const LEAN_WASM = /\/(?:assets\/|bump-lab-)trace_bg-[\w-]+\.wasm$/;
/** The metered module: its wasm (web/pkg-cost) or its glue's chunk (assets/cost-<hash>.js). */
const METERED = /\/(?:assets\/|bump-lab-)cost_bg-[\w-]+\.wasm$|\/assets\/cost-[\w-]+\.js$/;

/** What the page fetched, once the network has been quiet for a while (nothing lazy still to come). */
async function fetched(page: Page): Promise<string[]> {
  await page.waitForLoadState("networkidle");
  return requests.map((url) => new URL(url).pathname);
}

test("an embed without the cost view fetches the lean module only; the host page's elements neither", async ({ page }) => {
  await page.goto(`${ORIGIN}/embed.html?views=code,stats#${hash}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  await expect(page.locator(".step-counter")).toHaveText("op 6 / 6");
  await expect(page.locator(".code-view")).toContainText("step: bump");
  let paths = await fetched(page);
  expect(paths.filter((p) => LEAN_WASM.test(p))).toHaveLength(1);
  expect(paths.filter((p) => METERED.test(p))).toEqual([]);
  // A program without `#>` comments fetches no narration (its chunk is the narrating embeds' alone).
  expect(paths.filter((p) => /\/assets\/playerNarration-[\w-]+\.js$/.test(p))).toEqual([]);

  requests = [];
  await openHost(page);
  paths = await fetched(page);
  // The iframe and bump-lab.js each fetch their own copy of the lean wasm; no one the metered one.
  expect(paths.filter((p) => LEAN_WASM.test(p)).length).toBeGreaterThanOrEqual(1);
  expect(paths.filter((p) => METERED.test(p))).toEqual([]);
});

test("an embed with views=cost fetches the metered module and shows the program's costs", async ({ page }) => {
  await page.goto(`${ORIGIN}/embed.html?views=cost#${hash}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  await expect(page.locator(".step-counter")).toHaveText("op 6 / 6");
  await expect(page.locator(".cost-note")).toHaveText(/^6 ops, \d+ wasm instructions in all/);
  await expect(page.locator(".cost-chart svg rect.fast").first()).toBeVisible();
  const paths = await fetched(page);
  expect(paths.filter((p) => LEAN_WASM.test(p))).toHaveLength(1);
  // The metered glue's chunk and its wasm, once each.
  expect(paths.filter((p) => METERED.test(p))).toHaveLength(2);
  // Stepping reads the costs the view already has: nothing is traced or fetched again.
  requests = [];
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(page.locator(".step-counter")).toHaveText("op 5 / 6");
  await expect(page.locator(".cost-note")).toHaveText(/^6 ops, \d+ wasm instructions in all/);
  expect(await fetched(page)).toEqual([]);
});

test("a program over the metered module's cap: traced in slices with a status, its cost view says why there are no costs", async ({ page }) => {
  // Every text the status line shows, from before the player starts.
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as Window & { __status?: string[] }).__status = seen;
    new MutationObserver(() => {
      const text = document.querySelector(".bl-status[role=status]")?.textContent ?? "";
      if (text !== "" && seen.at(-1) !== text) seen.push(text);
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  const big: SharedState = { ...STATE, allocator: "bumpalo", step: 3, source: "repeat 50001 {\n  a = alloc 8\n  free a\n}" };
  await page.goto(`${ORIGIN}/embed.html?views=cost#${await encodeShare(big)}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1, { timeout: 20_000 });
  await expect(page.locator(".step-counter")).toHaveText("op 3 / 100002");
  await expect(page.locator(".cost-note")).toHaveText(
    "No measured costs: costs are measured for programs of up to 100,000 ops, and this one runs 100,002: lower a repeat count to see them",
  );
  await expect(page.locator(".bl-status")).toHaveText("");
  const status = await page.evaluate(() => (window as Window & { __status?: string[] }).__status ?? []);
  expect(status.length, "the status said how far tracing was").toBeGreaterThan(0);
  for (const text of status) expect(text).toMatch(/^Tracing… [\d,]+ of 100,002 ops$/);
  // Over the cap there is nothing to measure: the metered module is never fetched.
  expect((await fetched(page)).filter((p) => METERED.test(p))).toEqual([]);
});

test("a compare embed traces each column with the lean module and fills the table's costs from the metered one", async ({ page }) => {
  const compared: SharedState = {
    ...STATE,
    step: 2,
    compare: [
      { allocator: "fitzgen-down", target: "64", minAlign: null, capacity: null },
      { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
    ],
  };
  await page.goto(`${ORIGIN}/embed.html#${await encodeShare(compared)}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  await expect(page.locator(".bl-title")).toHaveText("fitzgen-down vs hinckley-up");
  await expect(page.locator(".bl-compare svg.memory-map")).toHaveCount(2);
  const firstRow = page.locator(".bl-compare tr[data-op='0'] .compare-num");
  await expect(firstRow).toHaveCount(2);
  // Costs arrive after the columns are drawn: numbers, not "not measured".
  await expect(firstRow.first()).toHaveText(/^\d+$/);
  await expect(firstRow.nth(1)).toHaveText(/^\d+$/);
  const paths = await fetched(page);
  expect(paths.filter((p) => LEAN_WASM.test(p))).toHaveLength(1);
  expect(paths.filter((p) => /cost_bg-[\w-]+\.wasm$/.test(p))).toHaveLength(1);
});

test("a removed element frees its player; inserted again it draws afresh", async ({ page }) => {
  await openHost(page);
  const one = page.locator("bump-lab#one");
  const moved = await page.evaluate(async () => {
    const el = document.querySelector("bump-lab#one") as HTMLElement & { player: unknown };
    const before = el.player;
    // Moved within the page (removed and inserted in one task): the same player.
    document.body.append(el);
    await new Promise((r) => setTimeout(r, 50));
    const kept = el.player === before;
    el.remove();
    await new Promise((r) => setTimeout(r, 50));
    const gone = el.player === null && !el.hasAttribute("data-ready") && el.shadowRoot?.querySelector(".bl-player") === null;
    document.body.append(el);
    return { kept, gone };
  });
  expect(moved).toEqual({ kept: true, gone: true });
  await expect(one).toHaveAttribute("data-ready", "true");
  await expect(one.locator(".step-counter")).toHaveText("op 6 / 6");
  await one.getByRole("button", { name: "Step back" }).click();
  await expect(one.locator(".step-counter")).toHaveText("op 5 / 6");
  // A new attribute replaces the player (the old one's runs freed): it draws the new state.
  await one.evaluate((el) => el.setAttribute("allocator", "hinckley-up"));
  await expect(one.locator(".bl-title")).toHaveText("hinckley-up · 64-bit");
  await expect(one.locator(".step-counter")).toHaveText("op 6 / 6");
});

test("the iframe grows to its content through the host's resize snippet", async ({ page }) => {
  await openHost(page);
  const iframe = page.locator("iframe#embed");
  const content = await page.frameLocator("#embed").locator("#embed").evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
  expect(content, "the embed with its code view is taller than the iframe's 120 px").toBeGreaterThan(200);
  await expect.poll(() => iframe.evaluate((el) => el.getBoundingClientRect().height)).toBe(content);
});

test("stepping keeps the embed's height: the map keeps room for the run's most chunks", async ({ page }) => {
  // 100 blocks of 64 bytes take bumpalo 4 chunks; its reset keeps the newest alone.
  const reset: SharedState = { ...STATE, allocator: "bumpalo", source: "repeat 100 { x = alloc 64 }\nreset\nrepeat 3 { y = alloc 64 }", step: 104 };
  await page.goto(`${ORIGIN}/embed.html#${await encodeShare(reset)}`);
  await expect(page.locator("#embed[data-ready=true]")).toHaveCount(1);
  const rows = page.locator("svg.memory-map g.chunk-row");
  const height = () => page.locator("#embed").evaluate((el) => el.getBoundingClientRect().height);
  await expect(rows).toHaveCount(1);
  const atEnd = await height();
  for (let i = 0; i < 4; i++) await page.getByRole("button", { name: "Step back" }).click();
  await expect(page.locator(".step-counter")).toHaveText("op 100 / 104");
  await expect(rows).toHaveCount(4);
  expect(await height()).toBe(atEnd);
  await page.getByRole("button", { name: "First" }).click();
  await expect(rows).toHaveCount(0);
  expect(await height()).toBe(atEnd);
});

test("the host sets the theme by message; malformed messages are ignored", async ({ page }) => {
  await openHost(page);
  const frame = page.frames().find((f) => f.url().startsWith(`${ORIGIN}/embed.html`));
  if (!frame) throw new Error("no embed frame");
  const background = () => frame.locator("#embed").evaluate((el) => getComputedStyle(el).backgroundColor);
  const post = (message: unknown) =>
    page.evaluate((m) => document.querySelector<HTMLIFrameElement>("iframe#embed")?.contentWindow?.postMessage(m, "*"), message);

  await post({ type: "bumplab:theme", theme: "dark" });
  await expect(frame.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect.poll(background).toBe("rgb(22, 26, 33)");
  for (const bad of [{ type: "bumplab:theme", theme: "purple" }, { type: "bumplab:theme" }, "bumplab:theme light", null, [1]]) await post(bad);
  await post({ type: "bumplab:theme", theme: "light" });
  await expect(frame.locator("html")).toHaveAttribute("data-theme", "light");
  await expect.poll(background).toBe("rgb(255, 255, 255)");
  // The element's theme attribute: #two was written dark, #one follows the system (light here).
  const shadowBg = (id: string) => page.locator(`bump-lab#${id} .bl-embed`).evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(await shadowBg("two")).toBe("rgb(22, 26, 33)");
  expect(await shadowBg("one")).toBe("rgb(255, 255, 255)");
  await page.locator("bump-lab#one").evaluate((el) => el.setAttribute("theme", "dark"));
  await expect.poll(() => shadowBg("one")).toBe("rgb(22, 26, 33)");
});

test("the embed's Open in Bump Lab link carries the step it is at to the app", async ({ page }) => {
  await openHost(page);
  const frame = page.frameLocator("#embed");
  await frame.getByRole("button", { name: "Step back" }).click();
  await frame.getByRole("button", { name: "Step back" }).click();
  await expect(frame.locator(".step-counter")).toHaveText("op 4 / 6");
  const labels = await blockLabels(frame.locator("svg.memory-map g[data-block]"));
  const open = frame.getByRole("link", { name: "Open in Bump Lab ↗" });
  await expect(open).toHaveAttribute("href", /^http:\/\/127\.0\.0\.1:\d+\/index\.html#v1\?.*&s=4&/);
  const href = (await open.getAttribute("href")) ?? "";
  const decoded = await decodeShare(href);
  expect(decoded).toEqual({ ok: true, state: { ...STATE, step: 4 } });

  await page.goto(href);
  await expect(page.locator(".step-counter").first()).toHaveText("op 4 / 6");
  expect(await blockLabels(page.locator("#memory-map svg.memory-map g[data-block]"))).toEqual(labels);
});

test("an exported SVG is well-formed, styled inline and labels the blocks the page labels", async ({ page }) => {
  const expected = await mainPageLabels(page, STATE);
  await openHost(page);
  const parsed = await page.locator("bump-lab#one").evaluate((el) => {
    const text = (el as HTMLElement & { figureSvg(): string | null }).figureSvg();
    if (text === null) return null;
    const doc = new DOMParser().parseFromString(text, "image/svg+xml");
    const body = doc.querySelector("g.block rect.body");
    return {
      xmlDeclaration: text.startsWith('<?xml version="1.0"'),
      errors: doc.getElementsByTagName("parsererror").length,
      root: doc.documentElement.namespaceURI,
      title: doc.querySelector("svg > title")?.textContent ?? "",
      // The file keeps no aria-label or data-*: a block's name is its tooltip, its <title>.
      labels: [...doc.querySelectorAll("g.block > title")].map((t) => t.textContent ?? ""),
      interactive: doc.querySelectorAll("[aria-label], [data-block], [tabindex], [role]").length,
      bodyStyle: body?.getAttribute("style") ?? "",
      stylesheets: doc.querySelectorAll("style, link").length,
    };
  });
  expect(parsed).not.toBeNull();
  expect(parsed?.xmlDeclaration).toBe(true);
  expect(parsed?.errors).toBe(0);
  expect(parsed?.root).toBe("http://www.w3.org/2000/svg");
  expect(parsed?.title).toBe("Bump Lab memory map: fitzgen-down, op 6");
  expect(parsed?.labels).toEqual(expected);
  expect(parsed?.interactive).toBe(0);
  // The block colours travel with the file: no stylesheet needed.
  expect(parsed?.bodyStyle).toMatch(/fill: rgb\(/);
  expect(parsed?.stylesheets).toBe(0);
});

test("the auto-resize snippet in docs/embedding.md is the one the host page runs", () => {
  const between = (text: string): string => {
    const m = /<!-- BEGIN bumplab-resize[^>]*-->\n([\s\S]*?)\n\s*<!-- END bumplab-resize -->/.exec(text);
    if (!m?.[1]) throw new Error("no bumplab-resize snippet");
    return m[1].replace(/^ {4}/gm, "").trim();
  };
  const docs = readFileSync(DOCS_FILE, "utf8");
  const fenced = /```html bumplab-resize\n([\s\S]*?)```/.exec(docs)?.[1]?.trim();
  expect(fenced).toBe(between(readFileSync(HOST_FILE, "utf8")));
});

test("an embed opened from a link taken inside an op shows that micro-step: the pointer's ghost, not the placed block", async ({ page }) => {
  // fitzgen-down, one 256-byte chunk ending at 0x10110: a takes 0x1010f, and
  // b's first micro-step subtracts 8 from it (0x10107) before rounding down.
  const inside: SharedState = { ...STATE, source: "a = alloc 1\nb = alloc u64", step: 2, micro: 0 };
  await page.goto(`${ORIGIN}/embed.html#${await encodeShare(inside)}`);
  await expect(page.locator("#embed")).toHaveAttribute("data-ready", "true");
  const map = page.locator("svg.memory-map");
  await expect(map.locator("g.ptr-ghost")).toHaveAttribute("data-address", String(0x10107));
  await expect(map.locator('g[data-block="b"]')).toHaveCount(0);
  await expect(map.locator("g.bump-pointer")).toHaveAttribute("data-address", String(0x1010f));
  // Its Open in Bump Lab link keeps the micro-step.
  const href = (await page.getByRole("link", { name: "Open in Bump Lab ↗" }).getAttribute("href")) ?? "";
  expect(await decodeShare(href)).toEqual({ ok: true, state: inside });
});
