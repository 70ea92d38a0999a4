import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type FrameLocator, type Locator, type Page } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { decodeShare, encodeShare, type SharedState } from "../../web/src/share/link";
import { appBase, embedSnippets, embedTitle } from "../../web/src/share/snippets";
import { DEFAULT_PROGRAM } from "../../web/src/model/generators";

// Real blogs: the tiny Hugo and Jekyll sites in tests/sites/ get the share
// panel's Hugo shortcode and Jekyll include, exactly as the panel writes them
// for links to this test's app, pasted into their one post. Debian's hugo and
// jekyll build them, a static server on another origin serves the output, and
// each embed must show the blocks the app shows for the same link.

const SITES = fileURLToPath(new URL("../sites/", import.meta.url));
const SETUP_HINT = "run `node scripts/setup.mjs --with-site-generators` (npm test does) to install Debian's hugo and jekyll";
const MARKER = "<!-- bumplab:snippets -->";

/** A program whose link holds every character a template could escape: & " < > ' ( ) % # and a non-ASCII letter. */
const ESCAPED_PROGRAM = [
  "# a & b, \"ü\" <tag> (50% of it) don't",
  "a = alloc 24",
  "b = alloc u64",
  "c = alloc 1 align 16",
  "d = alloc [u32; 5]",
].join("\n");

const SINGLE: SharedState = { source: ESCAPED_PROGRAM, allocator: "bumpalo", target: "64", capacity: null, minAlign: null, step: 4, compare: null };
const COMPARE: SharedState = {
  source: DEFAULT_PROGRAM,
  allocator: "hinckley-up",
  target: "64",
  capacity: null,
  minAlign: null,
  step: 5,
  compare: [
    { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
    { allocator: "fitzgen-down", target: "64", minAlign: null, capacity: null },
  ],
};
/** The post's embeds, in page order. */
const LINKS = [SINGLE, COMPARE];

interface Site {
  name: "hugo" | "jekyll";
  /** Where the built post is, under the static server. */
  post: string;
}
const SITE_LIST: Site[] = [
  { name: "hugo", post: "/hugo/posts/live-figure/" },
  { name: "jekyll", post: "/jekyll/2026/01/15/live-figure.html" },
];
const POST_FILE = { hugo: "content/posts/live-figure.md", jekyll: "_posts/2026-01-15-live-figure.md" } as const;

let work = "";
let server: Server;
let BLOG = "";
const hashes: string[] = [];

/** Runs a site generator, or fails naming what went wrong and how to install it. */
function generate(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 120_000 });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new Error(missing ? `${cmd} is not installed: ${SETUP_HINT}` : `${cmd} could not run: ${r.error.message}`);
  }
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
}

const TYPES: Record<string, string> = { ".html": "text/html; charset=utf-8", ".css": "text/css", ".js": "text/javascript", ".xml": "application/xml" };

/** A static server over the built sites, on its own origin as a blog would be. */
function serve(dir: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    let file = join(dir, path);
    if (!file.startsWith(dir)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

test.beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "bumplab-sites-"));
  for (const state of LINKS) hashes.push(await encodeShare(state));
  const base = appBase(`${ORIGIN}/`);
  for (const site of SITE_LIST) {
    const source = join(work, `${site.name}-src`);
    cpSync(join(SITES, site.name), source, { recursive: true });
    const snippets = hashes.map((hash, i) => {
      // The panel's defaults: a figure, 360 px, the page's theme, titled with every allocator shown.
      const state = LINKS[i];
      const allocators = state?.compare ? state.compare.map((c) => c.allocator) : [state?.allocator ?? ""];
      const code = embedSnippets(base, hash, { allocators, figure: true, caption: "", height: 360, theme: "auto" }).find((s) => s.id === site.name)?.code;
      if (code === undefined) throw new Error(`the share panel offers no ${site.name} snippet`);
      return code;
    });
    const post = join(source, POST_FILE[site.name]);
    const text = readFileSync(post, "utf8");
    if (!text.includes(MARKER)) throw new Error(`${post} has no ${MARKER} line for the snippets`);
    writeFileSync(post, text.replace(MARKER, snippets.join("\n\n")));
  }
  generate("hugo", ["--source", join(work, "hugo-src"), "--destination", join(work, "hugo"), "--quiet"]);
  generate("jekyll", ["build", "--source", join(work, "jekyll-src"), "--destination", join(work, "jekyll"), "--quiet"]);
  server = await serve(work);
  BLOG = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  if (work) rmSync(work, { recursive: true, force: true });
});

/** Accessible names of the drawn blocks (address, size, padding), in drawing order. */
async function blockLabels(blocks: Locator): Promise<string[]> {
  return blocks.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
}

/** Where each map's blocks are: one map, or a compare column each. */
function maps(state: SharedState, root: Page | FrameLocator, single: string): Locator[] {
  if (state.compare === null) return [root.locator(`${single} svg.memory-map g[data-block]`)];
  return state.compare.map((_, i) => root.locator(`section.compare-column[data-column="${i}"] svg.memory-map g[data-block]`));
}

/** What the app draws for a link: each map's block labels, and the step counter. */
async function appShows(page: Page, state: SharedState, hash: string): Promise<{ labels: string[][]; counter: string }> {
  await page.goto(`${ORIGIN}/#${hash}`);
  const counter = page.locator(".step-counter").first();
  await expect(counter).toContainText(`op ${state.step} /`);
  const labels: string[][] = [];
  for (const blocks of maps(state, page, "#memory-map")) {
    await expect(blocks.first()).toBeVisible();
    labels.push(await blockLabels(blocks));
  }
  return { labels, counter: (await counter.textContent()) ?? "" };
}

for (const site of SITE_LIST) {
  test(`the ${site.name} post's embeds, from the share panel's snippets (figures), show the blocks the app shows for the same links`, async ({ page }) => {
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    const expected = [];
    for (const [i, state] of LINKS.entries()) expected.push(await appShows(page, state, hashes[i] ?? ""));
    expect(expected[0]?.labels[0], "the single map draws the program's four blocks").toHaveLength(4);
    expect(expected[1]?.labels, "the compare link shows two columns").toHaveLength(2);

    await page.goto(`${BLOG}${site.post}`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Bumping down, live");
    const iframes = page.locator("iframe.bumplab");
    await expect(iframes).toHaveCount(LINKS.length);

    for (const [i, state] of LINKS.entries()) {
      // The generator escaped the link once: the browser hands the iframe the link itself.
      const src = (await iframes.nth(i).evaluate((f) => (f as HTMLIFrameElement).src)) ?? "";
      expect(src, "the iframe's address").not.toContain("&amp;");
      expect(src.startsWith(`${ORIGIN}/embed.html?figure=1#v1?`), src).toBe(true);
      expect(await decodeShare(src), src).toEqual(await decodeShare(hashes[i] ?? ""));

      await expect(iframes.nth(i)).toHaveAttribute("title", embedTitle(state.compare ? state.compare.map((c) => c.allocator) : [state.allocator]));
      await iframes.nth(i).scrollIntoViewIfNeeded();
      const frame = page.frameLocator("iframe.bumplab").nth(i);
      await expect(frame.locator("#embed[data-ready=true]")).toHaveCount(1, { timeout: 20_000 });
      await expect(frame.locator(".bl-error")).toBeHidden();
      await expect(frame.locator(".step-counter").first()).toHaveText(expected[i]?.counter ?? "");
      const blocks = maps(state, frame, "");
      for (const [m, map] of blocks.entries()) {
        // Blocks ease into place: poll until the drawing settles on the app's.
        await expect.poll(() => blockLabels(map), { message: `${site.name} embed ${i + 1}, map ${m + 1}` }).toEqual(expected[i]?.labels[m]);
      }
    }

    // The layout's resize script (docs/embedding.md) grows each iframe to its content.
    for (let i = 0; i < LINKS.length; i++) {
      const content = page.frameLocator("iframe.bumplab").nth(i).locator("#embed");
      const gap = async (): Promise<number> => {
        const inner = await content.evaluate((el) => Math.ceil(el.getBoundingClientRect().height));
        return Math.abs(inner - (await iframes.nth(i).evaluate((f) => f.getBoundingClientRect().height)));
      };
      await expect.poll(gap, { message: `${site.name} iframe ${i + 1} fits its content` }).toBeLessThan(1);
    }
    expect(errors, "uncaught page errors").toEqual([]);
  });
}

test("docs/embedding.md gives the shortcode, the include and the resize script these sites are built with", () => {
  const docs = readFileSync(new URL("../../docs/embedding.md", import.meta.url), "utf8");
  for (const file of ["hugo/layouts/shortcodes/bumplab.html", "jekyll/_includes/bumplab.html", "hugo/layouts/partials/bumplab-resize.html", "jekyll/_includes/bumplab-resize.html"]) {
    const template = readFileSync(join(SITES, file), "utf8").trim();
    expect(template.length, file).toBeGreaterThan(100);
    expect(docs, `docs/embedding.md shows tests/sites/${file} as it is`).toContain(template);
  }
});
