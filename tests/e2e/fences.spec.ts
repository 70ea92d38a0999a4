import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { decodeShare, type SharedState } from "../../web/src/share/link";

// The `bumplab` code fence in three real site generators, each pinned:
// mdBook (crates.io, with the mdbook-bumplab preprocessor in crates/mdbook),
// VitePress (npm, with the markdown-it plugin web/cli/markdown-it.mjs) and
// Astro (npm, with the remark plugin web/cli/remark.mjs). Each builds a
// one-page site from the same post (tests/sites/fence-post.md); a static
// server on its own origin serves the output with the build under test at
// /bump-lab/, and each page must show, in each figure, the blocks the app
// shows for the figure's own fallback link.

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SITES = join(ROOT, "tests", "sites");
const DIST = resolve(ROOT, process.env["PW_DIST"] ?? "dist");
const PLUGINS = join(ROOT, "web", "cli");
const MARKER = "<!-- bumplab:post -->";
const SETUP_HINT = "run `node scripts/setup.mjs --with-site-generators` (npm test does)";

type SiteName = "mdbook" | "vitepress" | "astro";
interface Site {
  name: SiteName;
  /** The post's path under the site's server. */
  post: string;
  out: string;
  server?: Server;
  origin?: string;
}

let work = "";
const sites: Site[] = [];

function run(cmd: string, args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 180_000, cwd: opts.cwd, env: { ...process.env, ...opts.env } });
  if (r.error) {
    const missing = (r.error as NodeJS.ErrnoException).code === "ENOENT";
    throw new Error(missing ? `${cmd} is not installed: ${SETUP_HINT}` : `${cmd} could not run: ${r.error.message}`);
  }
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  return `${r.stdout}${r.stderr}`;
}

/** A site's sources copied into the work folder, the post pasted in, its npm packages linked (not copied). */
function stage(name: SiteName, postFile: string): string {
  const src = join(work, `${name}-src`);
  cpSync(join(SITES, name), src, { recursive: true, filter: (p) => !p.includes("node_modules") });
  const modules = join(SITES, name, "node_modules");
  if (existsSync(join(SITES, name, "package.json"))) {
    if (!existsSync(modules)) throw new Error(`tests/sites/${name}/node_modules is missing: ${SETUP_HINT}`);
    symlinkSync(modules, join(src, "node_modules"), "dir");
  }
  const post = join(src, postFile);
  const text = readFileSync(post, "utf8");
  if (!text.includes(MARKER)) throw new Error(`${post} has no ${MARKER} line for the post`);
  writeFileSync(post, text.replace(MARKER, readFileSync(join(SITES, "fence-post.md"), "utf8")));
  return src;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".css": "text/css",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".svg": "image/svg+xml",
};

/** A static server over `dir`, with the build under test at /bump-lab/ (where the sites are told it is). */
function serve(dir: string): Promise<Server> {
  const s = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    const [root, rest] = path.startsWith("/bump-lab/") ? [DIST, path.slice("/bump-lab".length)] : [dir, path];
    let file = join(root, rest);
    if (!file.startsWith(root)) return void res.writeHead(403).end();
    if (existsSync(file) && statSync(file).isDirectory()) file = join(file, "index.html");
    if (!existsSync(file)) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

test.beforeAll(async () => {
  test.setTimeout(240_000);
  work = mkdtempSync(join(tmpdir(), "bumplab-fences-"));

  // mdBook: the preprocessor built from crates/mdbook, named in book.toml by its path.
  run("cargo", ["build", "--quiet", "-p", "mdbook-bumplab"], { cwd: ROOT });
  const mdbook = stage("mdbook", join("src", "live-figure.md"));
  const toml = join(mdbook, "book.toml");
  writeFileSync(toml, `${readFileSync(toml, "utf8")}command = ${JSON.stringify(join(ROOT, "target", "debug", "mdbook-bumplab"))}\n`);
  run("mdbook", ["build", "--dest-dir", join(work, "mdbook"), mdbook]);
  sites.push({ name: "mdbook", post: "/live-figure.html", out: join(work, "mdbook") });

  const env = { BUMPLAB_PLUGIN_DIR: PLUGINS };
  const vitepress = stage("vitepress", join("docs", "index.md"));
  run(join(vitepress, "node_modules", ".bin", "vitepress"), ["build", "docs", "--outDir", join(work, "vitepress")], { cwd: vitepress, env });
  sites.push({ name: "vitepress", post: "/", out: join(work, "vitepress") });

  const astro = stage("astro", join("src", "pages", "index.md"));
  run(join(astro, "node_modules", ".bin", "astro"), ["build", "--outDir", join(work, "astro")], { cwd: astro, env: { ...env, ASTRO_TELEMETRY_DISABLED: "1" } });
  sites.push({ name: "astro", post: "/", out: join(work, "astro") });

  for (const site of sites) {
    site.server = await serve(site.out);
    site.origin = `http://127.0.0.1:${(site.server.address() as AddressInfo).port}`;
  }
});

test.afterAll(async () => {
  for (const s of sites) if (s.server) await new Promise<void>((resolve) => s.server?.close(() => resolve()));
  if (work) rmSync(work, { recursive: true, force: true });
});

const blockLabels = (blocks: Locator): Promise<string[]> => blocks.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));

/** Each map's blocks in `root`: one map, or a compare column each. */
function maps(state: SharedState, root: Locator | Page): Locator[] {
  if (state.compare === null) return [root.locator("svg.memory-map g[data-block]")];
  return state.compare.map((_, i) => root.locator(`section.compare-column[data-column="${i}"] svg.memory-map g[data-block]`));
}

/** What the app draws for a link: each map's block labels. */
async function appShows(page: Page, state: SharedState, hash: string): Promise<string[][]> {
  await page.goto(`${ORIGIN}/#${hash}`);
  await expect(page.locator(".step-counter").first()).toContainText(`op ${state.step} /`);
  const labels: string[][] = [];
  const root = state.compare === null ? page.locator("#memory-map") : page;
  for (const blocks of maps(state, root)) {
    await expect(blocks.first()).toBeVisible();
    labels.push(await blockLabels(blocks));
  }
  return labels;
}

/** The figures the post asks for, in page order: the op each shows, and its reserved height. */
const FIGURES = [
  { step: 2, allocator: "fitzgen-down", compare: null, height: 320 },
  { step: 3, allocator: "hinckley-up", compare: ["hinckley-up", "fitzgen-down"], height: 360 },
];

for (const name of ["mdbook", "vitepress", "astro"] as const) {
  test(`the ${name} page shows each bumplab fence as a live figure with the blocks the app shows for its link`, async ({ page }) => {
    const site = sites.find((s) => s.name === name);
    if (!site?.origin) throw new Error(`the ${name} site was not built`);
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));

    // Each figure's fallback link, as the generator wrote it into the page (read through the browser, which decodes it).
    await page.goto(`${site.origin}${site.post}`);
    const hrefs = await page.locator("bump-lab > a").evaluateAll((links) => links.map((a) => a.getAttribute("href") ?? ""));
    expect(hrefs, "two figures, each with its fallback link").toHaveLength(FIGURES.length);
    const states: SharedState[] = [];
    for (const [i, href] of hrefs.entries()) {
      expect(href.startsWith("/bump-lab/index.html#v1?") || href.startsWith("bump-lab/index.html#v1?"), href).toBe(true);
      const decoded = await decodeShare(href.slice(href.indexOf("#") + 1));
      if (!decoded.ok) throw new Error(`${href}: ${decoded.error}`);
      const want = FIGURES[i];
      expect(decoded.state.step, href).toBe(want?.step);
      expect(decoded.state.allocator, href).toBe(want?.allocator);
      expect(decoded.state.compare?.map((c) => c.allocator) ?? null, href).toEqual(want?.compare);
      states.push(decoded.state);
    }
    const expected: string[][][] = [];
    for (const [i, state] of states.entries()) expected.push(await appShows(page, state, hrefs[i]?.slice((hrefs[i] ?? "").indexOf("#") + 1) ?? ""));
    expect(expected[0]?.[0], "the first figure's program places two blocks by op 2").toHaveLength(2);

    await page.goto(`${site.origin}${site.post}`);
    const figures = page.locator("bump-lab");
    await expect(figures).toHaveCount(FIGURES.length);
    for (const [i, state] of states.entries()) {
      const figure = figures.nth(i);
      await figure.scrollIntoViewIfNeeded();
      await expect(figure).toHaveAttribute("data-ready", "true", { timeout: 20_000 });
      await expect(figure).toHaveAttribute("figure", "");
      // The reserved height, from the fence (or its default).
      expect(await figure.evaluate((el) => getComputedStyle(el).minHeight)).toBe(`${FIGURES[i]?.height}px`);
      for (const [m, blocks] of maps(state, figure).entries()) {
        await expect.poll(() => blockLabels(blocks), { message: `${name} figure ${i + 1}, map ${m + 1}` }).toEqual(expected[i]?.[m]);
      }
    }
    // A fence in another language is still code.
    await expect(page.locator("pre code").filter({ hasText: "bump.alloc(1u8)" })).toHaveCount(1);
    expect(errors, "uncaught page errors").toEqual([]);
    if (process.env["SCREENSHOT"]) {
      // docs/embedding.md's picture of each generator's page: the first figure with the paragraph above it.
      await page.setViewportSize({ width: 1100, height: 800 });
      await page.mouse.move(0, 0);
      const first = figures.first();
      await page.evaluate(() => window.scrollTo(0, 0));
      await page.waitForTimeout(300);
      const box = await first.boundingBox();
      const text = await page.locator("h1").filter({ hasText: "Bumping down, live" }).last().boundingBox();
      if (box && text) {
        const top = Math.max(0, Math.min(text.y, box.y) - 16);
        const left = Math.max(0, Math.min(text.x, box.x) - 16);
        await page.screenshot({ path: join(ROOT, "docs", `fence-${name}.png`), clip: { x: left, y: top, width: Math.min(1100 - left, Math.max(box.width, text.width) + 32), height: box.y + box.height - top + 16 } });
      }
    }
  });
}

test("mdBook with fallback-svg: each figure's fallback is the static figure bumplab figure draws, shown where scripts do not run", async ({ browser }) => {
  test.setTimeout(120_000);
  const book = join(work, "mdbook-svg-src");
  cpSync(join(work, "mdbook-src"), book, { recursive: true });
  const toml = join(book, "book.toml");
  const command = `${process.execPath} ${join(PLUGINS, "bumplab.mjs")}`;
  writeFileSync(toml, readFileSync(toml, "utf8").replace('site = "bump-lab/"', `site = "bump-lab/"\nfallback-svg = true\nfigure-command = ${JSON.stringify(command)}`));
  const out = join(work, "mdbook-svg");
  const said = run("mdbook", ["build", "--dest-dir", out, book], { env: { BUMPLAB_SITE: DIST, BUMPLAB_BROWSER: "/usr/bin/chromium" } });
  expect(said).not.toContain("no static figure");
  const server = await serve(out);
  try {
    const context = await browser.newContext({ javaScriptEnabled: false });
    const page = await context.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/live-figure.html`);
    const images = page.locator("bump-lab > a > img");
    await expect(images).toHaveCount(2);
    const titles: string[] = [];
    for (let i = 0; i < 2; i++) {
      const src = (await images.nth(i).getAttribute("src")) ?? "";
      expect(src.startsWith("data:image/svg+xml;base64,")).toBe(true);
      const svg = Buffer.from(src.slice(src.indexOf(",") + 1), "base64").toString("utf8");
      titles.push(/<title>([^<]*)<\/title>/.exec(svg)?.[1] ?? "");
      expect(svg).toContain('class="figure-legend"');
      // Drawn: the image has the figure's size on the page.
      await expect.poll(() => images.nth(i).evaluate((img) => (img as HTMLImageElement).naturalWidth)).toBeGreaterThan(300);
    }
    expect(titles).toEqual(["Bump Lab: fitzgen-down, 64-bit, op 2 / 3: b = alloc u64", "Bump Lab: hinckley-up vs fitzgen-down, op 3 / 3: c = alloc 24 align 16"]);
    await context.close();
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});
