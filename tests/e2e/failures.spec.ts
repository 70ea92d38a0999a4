import { expect, test, type ConsoleMessage, type Page } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { embedSnippets } from "../../web/src/share/snippets";
import { cdn as cdnHandler, CDN_MODES, post as blogPost, serve, type CdnMode, type Served } from "./servers";

// When the engine cannot load, a figure says why in words and shows its
// static fallback, and the console gets one line saying how to fix it.
//
// Two servers besides the app's (servers.ts): a "CDN" that re-serves the
// app's build under a path prefix choosing what goes wrong, and a "blog" on
// another port whose pages carry the share panel's component snippet for
// that CDN, optionally under a Content-Security-Policy.
// Bare @playwright/test: these pages log errors on purpose.

const STATE: SharedState = { source: "a = alloc 1\nb = alloc u64", allocator: "bumpalo", target: "64", capacity: null, minAlign: null, step: 2, compare: null };

let cdn: Served;
let blog: Served;
let CDN = "";
let BLOG = "";
let hash = "";

/** A blog post with the share panel's component snippet, its script served by the CDN under `mode`. */
function post(mode: CdnMode): string {
  const snippet = embedSnippets(`${CDN}/${mode}/`, hash, STATE.allocator).find((s) => s.id === "component")?.code;
  if (!snippet) throw new Error("no component snippet");
  return blogPost(snippet);
}

test.beforeAll(async () => {
  hash = await encodeShare(STATE);
  cdn = await serve(cdnHandler(ORIGIN));
  CDN = cdn.origin;
  blog = await serve((req, res) => {
    const m = /^\/(\w[\w-]*)\.html$/.exec(req.url ?? "");
    const headers: Record<string, string> = { "content-type": "text/html; charset=utf-8" };
    if (m?.[1] === "csp") {
      // Scripts from here and the CDN, but no 'wasm-unsafe-eval': WebAssembly may not compile.
      headers["content-security-policy"] = `script-src 'self' ${CDN}`;
      res.writeHead(200, headers).end(post("cors"));
    } else if (m?.[1] && CDN_MODES.includes(m[1] as CdnMode)) {
      res.writeHead(200, headers).end(post(m[1] as CdnMode));
    } else res.writeHead(404).end();
  });
  BLOG = blog.origin;
});

test.afterAll(async () => {
  await cdn.close();
  await blog.close();
});

let consoleLines: string[] = [];
let pageErrors: string[] = [];

test.beforeEach(({ page }) => {
  consoleLines = [];
  pageErrors = [];
  page.on("console", (m: ConsoleMessage) => {
    if (m.type() === "error" || m.type() === "warning") consoleLines.push(m.text());
  });
  page.on("pageerror", (e) => pageErrors.push(e.message));
});

test.afterEach(() => {
  expect(pageErrors, "uncaught page errors").toEqual([]);
});

/** Bump Lab's own console lines (the browser adds its own about the failed request). */
const ours = (): string[] => consoleLines.filter((l) => l.startsWith("[bump-lab]"));

/** The element's visible message and its fallback link, once it has given up. */
async function failed(page: Page, reason: string): Promise<string> {
  const el = page.locator("bump-lab");
  await expect(el).toHaveAttribute("data-error", reason);
  const alert = el.getByRole("alert");
  await expect(alert).toBeVisible();
  // The static fallback: the snippet's link, shown through the slot under the reason.
  const fallback = el.getByRole("link", { name: "Bump Lab: bumpalo" });
  await expect(fallback).toBeVisible();
  expect(await fallback.getAttribute("href")).toBe(`${CDN}/${new URL(page.url()).pathname.replace(/^\/|\.html$/g, "").replace("csp", "cors")}/index.html#${hash}`);
  await expect(el.locator("svg.memory-map")).toHaveCount(0);
  await expect.poll(() => ours().length).toBe(1);
  return (await alert.textContent()) ?? "";
}

test("a wasm file the server answers 404 for: the element names the status and the file, the console says to deploy it", async ({ page }) => {
  await page.goto(`${BLOG}/missing-wasm.html`);
  expect(await failed(page, "http")).toMatch(/^Bump Lab could not load its engine: the server answered 404 Not Found for trace_bg-[\w-]+\.wasm\.$/);
  expect(ours()[0]).toMatch(
    new RegExp(`^\\[bump-lab\\] the server answered 404 Not Found for trace_bg-[\\w-]+\\.wasm\\. To fix it: deploy the whole build folder, trace_bg-[\\w-]+\\.wasm with it .*so that ${CDN}/missing-wasm/assets/trace_bg-[\\w-]+\\.wasm answers 200\\.$`),
  );
});

test("a wasm file from another origin without a CORS header: the element says the server sends none, the console names the header", async ({ page }) => {
  await page.goto(`${BLOG}/js-cors-only.html`);
  expect(await failed(page, "network")).toMatch(
    new RegExp(`^Bump Lab could not load its engine: the browser could not fetch trace_bg-[\\w-]+\\.wasm from ${CDN}: that server sends no CORS header \\(Access-Control-Allow-Origin\\), or it cannot be reached\\.$`),
  );
  expect(ours()[0]).toContain(`To fix it: serve ${CDN}'s files with the header "Access-Control-Allow-Origin: *"`);
});

test("bytes that are not WebAssembly: the element says the browser could not compile the engine, the console says which browsers can", async ({ page }) => {
  await page.goto(`${BLOG}/garbage-wasm.html`);
  expect(await failed(page, "compile")).toMatch(/^Bump Lab could not load its engine: this browser could not compile the engine, trace_bg-[\w-]+\.wasm \(CompileError: .+\)\.$/);
  expect(ours()[0]).toMatch(/To fix it: use a browser from 2021 or later \(Chrome\/Edge 91, Firefox 89, Safari 15\); if the browser is recent, .+ is not the \.wasm file built with this bump-lab\.js/);
});

test("a page whose Content-Security-Policy forbids WebAssembly: the element blames the policy, the console names 'wasm-unsafe-eval'", async ({ page }) => {
  await page.goto(`${BLOG}/csp.html`);
  expect(await failed(page, "csp")).toBe("Bump Lab could not load its engine: this page's Content-Security-Policy does not allow WebAssembly to run.");
  expect(ours()).toEqual([
    "[bump-lab] this page's Content-Security-Policy does not allow WebAssembly to run. To fix it: add 'wasm-unsafe-eval' to the page's Content-Security-Policy script-src (it allows compiling WebAssembly, not JavaScript eval).",
  ]);
});

test("the same page with the CDN answering properly draws the figure: the failures above are the server's doing", async ({ page }) => {
  await page.goto(`${BLOG}/cors.html`);
  const el = page.locator("bump-lab");
  await expect(el).toHaveAttribute("data-ready", "true");
  await expect(el.locator("svg.memory-map g[data-block]")).toHaveCount(2);
  await expect(el.getByRole("link", { name: "Bump Lab: bumpalo" })).toBeHidden();
  expect(ours()).toEqual([]);
});

test("bump-lab.js from another origin without a CORS header never runs: the snippet's own style frames its link as the fallback", async ({ page }) => {
  await page.goto(`${BLOG}/nocors.html`);
  const el = page.locator("bump-lab");
  const link = el.getByRole("link", { name: "Bump Lab: bumpalo" });
  await expect(link).toBeVisible();
  await expect(link).toHaveAttribute("href", `${CDN}/nocors/index.html#${hash}`);
  await expect(el).toContainText("(a live figure: if it does not show here, the link opens it)");
  // The browser's own line is all the console gets: the script that would explain never ran.
  await expect.poll(() => consoleLines.filter((l) => l.includes("blocked by CORS policy") && l.includes("/nocors/bump-lab.js")).length).toBe(1);
  expect(await page.evaluate(() => customElements.get("bump-lab") === undefined)).toBe(true);
  expect(ours()).toEqual([]);
  // A box, not a zero-height element: a dashed border around the link.
  const box = await el.evaluate((e) => {
    const s = getComputedStyle(e);
    return { display: s.display, border: s.borderTopStyle, height: e.getBoundingClientRect().height };
  });
  expect(box.display).toBe("block");
  expect(box.border).toBe("dashed");
  expect(box.height).toBeGreaterThan(30);
});

test("the iframe embed whose wasm is missing says so and links to the figure in the app", async ({ page }) => {
  await page.setContent(`<iframe id="embed" src="${CDN}/missing-wasm/embed.html#${hash}" width="600" height="300"></iframe>`);
  const frame = page.frameLocator("#embed");
  const alert = frame.getByRole("alert");
  await expect(alert).toHaveText(/^Bump Lab could not load its engine: the server answered 404 Not Found for trace_bg-[\w-]+\.wasm\.$/);
  await expect(frame.locator("#embed")).toHaveAttribute("data-error", "http");
  await expect(frame.getByRole("link", { name: "Open this figure in Bump Lab ↗" })).toHaveAttribute("href", `${CDN}/missing-wasm/index.html#${hash}`);
  await expect.poll(() => ours().length).toBe(1);
  expect(ours()[0]).toMatch(/^\[bump-lab\] the server answered 404 Not Found for trace_bg-[\w-]+\.wasm\. To fix it: deploy/);
});

test("a browser without WebAssembly: the element says so and the console says which browser to use", async ({ page }) => {
  // What a browser from before 2017, or one with WebAssembly turned off, looks like to the page.
  await page.addInitScript(() => {
    Reflect.deleteProperty(globalThis, "WebAssembly");
  });
  await page.goto(`${BLOG}/cors.html`);
  expect(await failed(page, "unsupported")).toBe("Bump Lab could not load its engine: this browser has no WebAssembly, which Bump Lab's engine is written in.");
  expect(ours()).toEqual([
    "[bump-lab] this browser has no WebAssembly, which Bump Lab's engine is written in. To fix it: open the page in a browser from 2021 or later (or one where WebAssembly is not turned off).",
  ]);
});
