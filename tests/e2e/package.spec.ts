import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, extname, join, resolve } from "node:path";
import { expect, test } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";

// The package a blog installs: `scripts/pack.mjs` packs it (from the site
// this run's server was built into), `npm install --offline` puts the tarball
// in an empty folder, and then, from that folder alone: the `bumplab` command
// runs, and a page served from the installed dist/ draws a <bump-lab> figure.

const REPO = resolve(new URL("../..", import.meta.url).pathname);
// The site the Playwright server was built into (playwright.config.ts's DIST).
const SITE = resolve(REPO, process.env["PW_DIST"] ?? "dist");
const PROGRAM = "a = alloc 8\nb = alloc u64\nc = alloc 24 align 16";
const STATE: SharedState = { source: PROGRAM, allocator: "bumpalo", target: "64", capacity: null, minAlign: null, step: 3, compare: null };

let work = "";
let tarball = "";
let installed = "";
let server: Server;
let BLOG = "";
// Without the repository's node_modules/.bin on PATH: npx must find the installed bin.
const env = { ...process.env, PATH: (process.env["PATH"] ?? "").split(delimiter).filter((p) => !p.startsWith(REPO)).join(delimiter) };

const TYPES: Record<string, string> = { ".js": "text/javascript", ".wasm": "application/wasm", ".html": "text/html; charset=utf-8", ".css": "text/css", ".svg": "image/svg+xml", ".json": "application/json" };

test.beforeAll(async () => {
  test.setTimeout(180_000);
  work = mkdtempSync(join(tmpdir(), "bumplab-pack-"));
  const lines = execFileSync(process.execPath, [join(REPO, "scripts/pack.mjs"), "--site", SITE, "--out", work], { cwd: REPO, encoding: "utf8" }).trim().split("\n");
  tarball = lines.at(-1) ?? "";
  const blog = join(work, "blog");
  mkdirSync(blog);
  writeFileSync(join(blog, "package.json"), `${JSON.stringify({ name: "my-blog", private: true }, null, 2)}\n`);
  // Offline: the package must install with nothing from the registry.
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", tarball], { cwd: blog, env, encoding: "utf8" });
  installed = join(blog, "node_modules", "bumplab");

  // The blog's server: its post at /post.html, the installed site under /bump-lab/.
  const post = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A post</title><link rel="icon" href="data:,">
<script type="module" src="/bump-lab/bump-lab.js"></script></head><body><h1>Where do the bytes go?</h1>
<bump-lab allocator="bumpalo" step="3" program="${PROGRAM}"><a href="/bump-lab/index.html">Bump Lab: bumpalo</a></bump-lab>
</body></html>`;
  server = createServer((req, res) => {
    const path = (req.url ?? "/").replace(/[?#].*$/, "");
    if (path === "/post.html") {
      res.writeHead(200, { "content-type": TYPES[".html"] ?? "" }).end(post);
      return;
    }
    const file = path.startsWith("/bump-lab/") ? join(installed, "dist", path.slice("/bump-lab/".length)) : "";
    if (!file || file.includes("..") || !existsSync(file) || !lstatSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  BLOG = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.afterAll(async () => {
  if (server) await new Promise<void>((done) => server.close(() => done()));
  if (work) rmSync(work, { recursive: true, force: true });
});

test("the packed tarball holds the CLI, the Markdown plugins, and the site with bump-lab.js and each wasm module once; it installs as a real folder", () => {
  expect(tarball).toMatch(/bumplab-\d+\.\d+\.\d+\.tgz$/);
  const listing = execFileSync("tar", ["tzf", tarball], { encoding: "utf8" }).trim().split("\n");
  for (const file of ["package/package.json", "package/bumplab.mjs", "package/engine.json", "package/fence.mjs", "package/markdown-it.mjs", "package/remark.mjs", "package/pkg-trace-fast/trace.js", "package/pkg-cost/cost.js", "package/dist/bump-lab.js", "package/dist/embed.html", "package/dist/index.html"]) {
    expect(listing).toContain(file);
  }
  // Each wasm module once, in the site's assets, shared by the app, the element and the command line:
  // the two size builds of the trace module, its fast build, and the metered cost module.
  const wasm = listing.filter((f) => f.endsWith(".wasm"));
  expect(wasm.filter((f) => /^package\/dist\/assets\/trace_bg-[\w-]+\.wasm$/.test(f))).toHaveLength(3);
  expect(wasm.filter((f) => /^package\/dist\/assets\/cost_bg-[\w-]+\.wasm$/.test(f))).toHaveLength(1);
  expect(wasm).toHaveLength(4);
  // The listing split a file per function, never whole.
  expect(listing.some((f) => /\/listing(-[\w-]+)?\.json$/.test(f))).toBe(false);
  expect(listing.filter((f) => /^package\/dist\/assets\/listing-[0-9a-f]+\/\d+\.json$/.test(f)).length).toBeGreaterThan(1000);
  expect(listing.some((f) => f.includes("unmetered"))).toBe(false);
  expect(lstatSync(installed).isSymbolicLink()).toBe(false);
  const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as Record<string, unknown>;
  expect(manifest["bin"]).toEqual({ bumplab: "bumplab.mjs" });
  expect(manifest["private"]).toBeUndefined();
  expect(manifest["dependencies"]).toBeUndefined();
  expect(manifest["license"]).toBe("MIT OR Apache-2.0");
});

test("npx bumplab list and trace run from the installed package, and trace prints what the repository's CLI prints", () => {
  const blog = join(work, "blog");
  const list = spawnSync("npx", ["--offline", "bumplab", "list"], { cwd: blog, env, encoding: "utf8" });
  expect(list.stderr).toBe("");
  expect(list.status).toBe(0);
  // One line per allocator model: its name, its direction, its description.
  const names = list.stdout.trim().split("\n").map((line) => line.split(/\s+/)[0]);
  expect(names).toContain("bumpalo");
  expect(names).toContain("zig-arena");

  writeFileSync(join(blog, "prog.txt"), `${PROGRAM}\n`);
  const trace = spawnSync("npx", ["--offline", "bumplab", "trace", "--allocator", "bumpalo", "prog.txt"], { cwd: blog, env, encoding: "utf8" });
  expect(trace.status).toBe(0);
  const json = JSON.parse(trace.stdout) as { allocator: string; ops: { block?: string; size: number }[] };
  expect(json.allocator).toBe("bumpalo");
  expect(json.ops.map((o) => [o.block, o.size])).toEqual([
    ["a", 8],
    ["b", 8],
    ["c", 24],
  ]);
  const fromRepo = spawnSync(process.execPath, [join(REPO, "web/cli/bumplab.mjs"), "trace", "--allocator", "bumpalo", join(blog, "prog.txt")], { encoding: "utf8" });
  expect(fromRepo.status).toBe(0);
  expect(trace.stdout).toBe(fromRepo.stdout);

  // --executed reads the listing the packaged site fetches: the same instructions as the repository's.
  const executed = spawnSync("npx", ["--offline", "bumplab", "trace", "--executed", "--allocator", "fitzgen-down", "prog.txt"], { cwd: blog, env, encoding: "utf8" });
  expect(executed.stderr).toBe("");
  expect(executed.status).toBe(0);
  const listed = JSON.parse(executed.stdout) as { ops: { executed: { function: string; line: number }[] }[] };
  // `b = alloc u64`, a constant layout: 20 instructions bumping down.
  expect(listed.ops[1]?.executed.length).toBe(20);
  const executedInRepo = spawnSync(process.execPath, [join(REPO, "web/cli/bumplab.mjs"), "trace", "--executed", "--allocator", "fitzgen-down", join(blog, "prog.txt")], { encoding: "utf8" });
  expect(executed.stdout).toBe(executedInRepo.stdout);

  const bad = spawnSync("npx", ["--offline", "bumplab", "trace", "--allocator", "bumpalo", "-"], { cwd: blog, env, input: "a = alloc\n", encoding: "utf8" });
  expect(bad.status).toBe(1);
  expect(bad.stderr).toMatch(/^<stdin>:1:\d+: /);
});

test("a page served from the installed dist/ draws the element's blocks, the same the app draws, with nothing fetched from elsewhere", async ({ page }) => {
  await page.goto(`${ORIGIN}/#${await encodeShare(STATE)}`);
  await expect(page.locator(".step-counter").first()).toContainText("op 3 /");
  const expected = await page.locator("#memory-map svg.memory-map g[data-block]").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  expect(expected).toHaveLength(3);
  // Off the app's page first: what it loads once idle (d3-zoom) is the app's, not the blog's.
  await page.goto("about:blank");

  const requests: string[] = [];
  const errors: string[] = [];
  page.on("request", (r) => requests.push(r.url()));
  page.on("pageerror", (e) => errors.push(e.message));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  await page.goto(`${BLOG}/post.html`);
  const el = page.locator("bump-lab");
  await expect(el).toHaveAttribute("data-ready", "true");
  await expect(el.locator(".step-counter")).toHaveText("op 3 / 3");
  const labels = await el.locator("svg.memory-map g[data-block]").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));
  expect(labels).toEqual(expected);
  expect(requests.filter((url) => !url.startsWith(`${BLOG}/`))).toEqual([]);
  expect(requests.some((url) => /\/bump-lab\/assets\/trace_bg-[\w-]+\.wasm$/.test(url))).toBe(true);
  expect(errors).toEqual([]);
});

test("npx bumplab figure writes the Share panel's figure: the app's blocks, the legend, the caption and the live link, for one map and for compare", async ({ page }) => {
  test.setTimeout(90_000);
  const blog = join(work, "blog");
  writeFileSync(join(blog, "prog.txt"), `${PROGRAM}\n`);
  const figure = (args: string[]): ReturnType<typeof spawnSync> =>
    spawnSync("npx", ["--offline", "bumplab", "figure", ...args, "prog.txt"], { cwd: blog, env: { ...env, BUMPLAB_BROWSER: "/usr/bin/chromium" }, encoding: "utf8", timeout: 60_000 });
  const single = figure(["--allocator", "bumpalo", "--step", "3", "--caption", "Three blocks, bumping down", "--site", "https://example.org/bl/", "--svg", "single.svg", "--png", "single.png"]);
  expect(String(single.stderr)).toMatch(/^bumplab: wrote single\.svg and single\.png: \d+ × \d+ px, op 3 of 3\n$/);
  expect(single.status).toBe(0);
  // The PNG: 2× the SVG's size.
  const png = readFileSync(join(blog, "single.png"));
  expect(png.subarray(1, 4).toString()).toBe("PNG");
  const svgText = readFileSync(join(blog, "single.svg"), "utf8");
  const [w, h] = [/width="(\d+)"/.exec(svgText)?.[1], /height="(\d+)"/.exec(svgText)?.[1]].map(Number);
  expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([2 * (w ?? 0), 2 * (h ?? 0)]);

  // What the app draws for the same view.
  await page.goto(`${ORIGIN}/#${await encodeShare(STATE)}`);
  await expect(page.locator(".step-counter").first()).toContainText("op 3 /");
  const expected = await page.locator("#memory-map svg.memory-map g[data-block]").evaluateAll((els) => els.map((e) => e.getAttribute("aria-label") ?? ""));

  // The file opened on its own, as a reader's browser would.
  const open = async (file: string): Promise<void> => {
    await page.goto("about:blank");
    await page.setContent(readFileSync(join(blog, file), "utf8").replace(/^<\?xml[^>]*>\n/, ""));
  };
  await open("single.svg");
  const svg = page.locator("svg").first();
  await expect(svg.locator(":scope > title")).toHaveText("Bump Lab: bumpalo, 64-bit, op 3 / 3: c = alloc 24 align 16");
  // Each block keeps its description as the figure's tooltip: the app's accessible name for it.
  expect(await svg.locator("g.figure-map g.block > title").allTextContents()).toEqual(expected);
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
  const caption = (await svg.locator("text.figure-caption").textContent()) ?? "";
  expect(caption).toMatch(/^Three blocks, bumping down \(bumpalo on 64-bit, chunk capacity 448 bytes \(its default\); op 3 of 3: c: 24 bytes at 0x[0-9a-f]+/);
  const href = (await svg.locator("a.figure-link").getAttribute("href")) ?? "";
  expect(href.startsWith("https://example.org/bl/index.html#v1?a=bumpalo&t=64&s=3&")).toBe(true);
  // No script and no interactive attribute is left in a figure.
  expect(svgText).not.toMatch(/<script|tabindex|onclick|aria-describedby/);

  const compare = figure(["--allocator", "hinckley-up", "--compare", "hinckley-up,fitzgen-down", "--theme", "dark", "--svg", "-"]);
  expect(compare.status).toBe(0);
  expect(String(compare.stderr)).toBe("bumplab: the figure's Open live link is relative (index.html#…): --site URL names where your Bump Lab is served\n");
  writeFileSync(join(blog, "compare.svg"), String(compare.stdout));
  await open("compare.svg");
  await expect(page.locator("svg").first().locator(":scope > title")).toHaveText("Bump Lab: hinckley-up vs fitzgen-down, op 3 / 3: c = alloc 24 align 16");
  expect(await page.locator("text.figure-name").allTextContents()).toEqual(["hinckley-up", "fitzgen-down"]);
  expect(await page.locator("g.figure-map").count()).toBe(2);
  // The dark theme: light text on a dark background.
  const fills = await page.locator("rect.figure-background").evaluate((r) => getComputedStyle(r).fill);
  expect(fills).toMatch(/^rgb\((\d{1,2}), (\d{1,2}), (\d{1,2})\)$/);

  const badProgram = spawnSync("npx", ["--offline", "bumplab", "figure", "--allocator", "bumpalo", "--svg", "y.svg", "-"], { cwd: blog, env, input: "a = alloc 8\nb = allok 8\n", encoding: "utf8" });
  expect(badProgram.status).toBe(1);
  expect(badProgram.stderr).toMatch(/^<stdin>:2:5: /);
  expect(existsSync(join(blog, "y.svg"))).toBe(false);
});
