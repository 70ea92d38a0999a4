import { readFileSync } from "node:fs";
import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { DEFAULT_PROGRAM } from "../../web/src/model/generators";
import { cdn, post, serve, type Served } from "../e2e/servers";
import { blockLabels, named, textOf } from "./pages";
import { expect, test, type Tab } from "./session";

// Embeds in Firefox and WebKit, as a blog on another origin has them: the
// host page of the Chromium journeys (tests/e2e/host/host.html: an iframe
// and two <bump-lab> elements), a <bump-lab figure>, a post whose figures
// sit below the fold, and a CDN that breaks the engine's load on purpose
// (tests/e2e/servers.ts).

const HOST_FILE = new URL("../e2e/host/host.html", import.meta.url);

const STATE: SharedState = { source: DEFAULT_PROGRAM, allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null, step: 6, compare: null };
/** The start page's program at op 6 on fitzgen-down (tests/e2e/app.spec.ts: the 256-byte chunk at 0x10010). */
const LABELS = [
  "a: 1 byte at 0x1010f, align 1",
  "b: 8 bytes at 0x10100, align 8, 7 bytes padding, freed, not reclaimed",
  "c: 24 bytes at 0x100e0, align 16, 8 bytes padding",
  "d: 20 bytes at 0x100cc, align 4",
  "e: 16 bytes at 0x100b0, align 16, 12 bytes padding",
];

let blog: Served;
let cdnServer: Served;
let hash = "";
/** Pages the blog serves, by path, set by the journeys before they load them. */
const pages = new Map<string, string>();

test.beforeAll(async () => {
  hash = await encodeShare(STATE);
  const host = readFileSync(HOST_FILE, "utf8").replaceAll("__APP__", ORIGIN).replaceAll("__HASH__", hash.replaceAll("&", "&amp;"));
  pages.set("/host.html", host);
  blog = await serve((req, res) => {
    const page = pages.get(req.url ?? "");
    if (page === undefined) res.writeHead(404).end();
    else res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  cdnServer = await serve(cdn(ORIGIN));
});

test.afterAll(async () => {
  await blog.close();
  await cdnServer.close();
});

const ready = (tab: Tab, selector: string) => expect.poll(() => tab.run((s: string) => document.querySelector<HTMLElement>(s)?.dataset["ready"] ?? null, selector), { timeout: 20_000 }).toBe("true");

test("embed.html on the app's origin: the figure the app draws, stepped by its buttons", async ({ tab }) => {
  await tab.goto(`${ORIGIN}/embed.html#${hash}`);
  await ready(tab, "#embed");
  expect(await tab.run(textOf, ".step-counter")).toBe("op 6 / 6");
  expect(await tab.run(blockLabels, "#embed")).toEqual(LABELS);
  await tab.click(named, "button", "Step back");
  await expect.poll(() => tab.run(textOf, ".step-counter")).toBe("op 5 / 6");
});

test("another origin: the iframe and two <bump-lab> elements draw their figures and step apart", async ({ tab }) => {
  await tab.goto(`${blog.origin}/host.html`);
  await ready(tab, "bump-lab#one");
  await ready(tab, "bump-lab#two");
  const frame = tab.frame("iframe#embed");
  await ready(frame, "#embed");
  expect(await frame.run(textOf, ".step-counter")).toBe("op 6 / 6");
  expect(await frame.run(blockLabels, "#embed")).toEqual(LABELS);
  // views=code: the code view beside the map.
  // The algorithm's text is fetched after the map: wait for it.
  await expect.poll(() => frame.run(textOf, ".code-view")).toContain("step: bump");
  expect(await tab.run(blockLabels, "", "bump-lab#one")).toEqual(LABELS);
  // #two: hinckley-up, 64-bit, three allocs bumping up from 0x10010.
  expect(await tab.run(blockLabels, "", "bump-lab#two")).toEqual([
    "a: 1 byte at 0x10010, align 1",
    "b: 8 bytes at 0x10018, align 8, 7 bytes padding",
    "c: 24 bytes at 0x10020, align 16",
  ]);
  // The host's resize snippet grew the iframe to its content.
  const content = await frame.run(() => Math.ceil(document.getElementById("embed")?.getBoundingClientRect().height ?? 0));
  await expect.poll(() => tab.run(() => Math.round(document.querySelector("iframe#embed")?.getBoundingClientRect().height ?? 0))).toBe(content);

  await tab.click(named, "button", "First", "bump-lab#one");
  await expect.poll(() => tab.run(textOf, ".step-counter", "bump-lab#one")).toBe("op 0 / 6");
  expect(await tab.run(blockLabels, "", "bump-lab#one")).toEqual([]);
  expect(await tab.run(textOf, ".step-counter", "bump-lab#two")).toBe("op 3 / 3");
  await frame.click(named, "button", "Step back");
  await expect.poll(() => frame.run(textOf, ".step-counter")).toBe("op 5 / 6");
});

test("figure mode: a <bump-lab figure> is read-only and fitted to the bytes in use", async ({ tab }) => {
  pages.set(
    "/figure.html",
    post(`<bump-lab id="single" figure caption="One block in bumpalo's first chunk" allocator="bumpalo" step="1" program="a = alloc 8"></bump-lab>`, `<script type="module" src="${ORIGIN}/bump-lab.js"></script>`),
  );
  await tab.goto(`${blog.origin}/figure.html`);
  await ready(tab, "bump-lab#single");
  expect(await tab.run(textOf, "figcaption", "bump-lab#single")).toBe("One block in bumpalo's first chunk");
  // bumpalo's 448-byte chunk: 8 bytes used beside a break of 440 unused.
  expect(await tab.run(() => document.querySelector("bump-lab#single")?.shadowRoot?.querySelector("g.row-cut")?.getAttribute("data-bytes") ?? null)).toBe("440");
  expect(await tab.run(textOf, "g.row-cut text", "bump-lab#single")).toBe("⋯ 440 B unused");
  // Read-only: no editing controls, no zoom toolbar; the step buttons only.
  const controls = await tab.run(() =>
    [...(document.querySelector("bump-lab#single")?.shadowRoot?.querySelectorAll("button, select, input, textarea, [role=toolbar]") ?? [])]
      .filter((e) => !e.closest(".stepper") && (e as HTMLElement).checkVisibility())
      .map((e) => e.outerHTML.slice(0, 60)),
  );
  expect(controls).toEqual([]);
});

test("the engine cannot load: no wasm on the server, no CORS header on it; the element says which", async ({ tab }) => {
  const snippet = (mode: string) => `<script type="module" src="${cdnServer.origin}/${mode}/bump-lab.js"></script><bump-lab link="${hash.replaceAll("&", "&amp;")}"><a href="${cdnServer.origin}/${mode}/index.html">Bump Lab: fitzgen-down</a></bump-lab>`;
  pages.set("/missing-wasm.html", post(snippet("missing-wasm")));
  pages.set("/js-cors-only.html", post(snippet("js-cors-only")));
  const alert = () => tab.run(textOf, "[role=alert]", "bump-lab");

  await tab.goto(`${blog.origin}/missing-wasm.html`);
  await expect.poll(alert).toMatch(/^Bump Lab could not load its engine: the server answered 404 Not Found for trace_bg-[\w-]+\.wasm\.$/);
  expect(await tab.run(() => document.querySelector("bump-lab")?.getAttribute("data-error") ?? null)).toBe("http");
  const missing = await tab.takeErrors();

  await tab.goto(`${blog.origin}/js-cors-only.html`);
  await expect
    .poll(alert)
    .toMatch(
      new RegExp(
        `^Bump Lab could not load its engine: the browser could not fetch trace_bg-[\\w-]+\\.wasm from ${cdnServer.origin}: that server sends no CORS header \\(Access-Control-Allow-Origin\\), or it cannot be reached\\.$`,
      ),
    );
  expect(await tab.run(() => document.querySelector("bump-lab")?.getAttribute("data-error") ?? null)).toBe("network");
  const cors = await tab.takeErrors();
  // The console line saying how to fix it: Firefox's log shows it. WebKit's
  // hook goes in after the load event, and the element may log before that,
  // so there it is not looked for; whatever else shows is the browser's own
  // line about the refused request, or Bump Lab's.
  const ours = (lines: string[]) => lines.filter((l) => l.includes("[bump-lab]"));
  if (tab.engine === "firefox") {
    expect(ours(missing)).toEqual([expect.stringMatching(/\[bump-lab\] the server answered 404 Not Found for trace_bg-[\w-]+\.wasm\. To fix it: deploy /)]);
    expect(ours(cors)).toEqual([expect.stringContaining(`To fix it: serve ${cdnServer.origin}'s files with the header "Access-Control-Allow-Origin: *"`)]);
  }
  for (const line of [...missing, ...cors]) expect(line).toMatch(/\[bump-lab\]|CORS|Cross-Origin|404|bump-lab-trace_bg|access control/i);
});

/** Heights of the post's figures each frame, from before they load (window.__heights: [ms, iframe, element]). */
const SAMPLER = `<script>
  window.__heights = [];
  const t0 = performance.now();
  const sample = () => {
    const f = document.querySelector("iframe.bumplab")?.getBoundingClientRect().height ?? -1;
    const c = document.querySelector("bump-lab")?.getBoundingClientRect().height ?? -1;
    const last = window.__heights.at(-1);
    if (!last || last[1] !== f || last[2] !== c) window.__heights.push([Math.round(performance.now() - t0), f, c]);
    requestAnimationFrame(sample);
  };
  requestAnimationFrame(sample);
</script>`;

test("figures below the fold keep the height their snippets reserve: nothing under them moves as the reader arrives", async ({ tab }) => {
  // The share panel's snippets, as this browser's share panel writes them (it measures the figure's height).
  await tab.goto(`${ORIGIN}/#${hash}`);
  await expect.poll(() => tab.run(() => document.body.dataset["ready"] ?? null)).toBe("true");
  await tab.click(() => document.querySelector("details.share-menu > summary"));
  await tab.click(named, "button", "Copy embed code");
  await expect.poll(() => tab.run(() => document.querySelector<HTMLTextAreaElement>('[data-snippet="component"] textarea')?.value ?? ""), { timeout: 20_000 }).toContain("<bump-lab");
  const status = (await tab.run(textOf, ".share-status")) ?? "";
  const snippet = (id: string) => tab.run((s: string) => document.querySelector<HTMLTextAreaElement>(`[data-snippet="${s}"] textarea`)?.value ?? "", id);
  const iframe = await snippet("iframe");
  const component = await snippet("component");
  const reserved = Number(/ height="(\d+)" /.exec(iframe)?.[1]);
  const resize = /<!-- BEGIN bumplab-resize[^>]*-->\n([\s\S]*?)<!-- END bumplab-resize -->/.exec(readFileSync(HOST_FILE, "utf8"))?.[1] ?? "";
  expect(resize).toContain("bumplab:resize");
  pages.set(
    "/fold.html",
    post(
      `<div style="width:720px;margin:0 auto"><div id="above" style="height:2400px">The post's first screens.</div>${iframe}${resize}<div style="height:1600px">More of the post.</div>${component}<p id="after">After the figures.</p></div>${SAMPLER}`,
    ),
  );
  await tab.goto(`${blog.origin}/fold.html`);
  // Arrive at the iframe, then at the element, as a reader scrolls.
  await tab.run(() => document.querySelector("iframe.bumplab")?.scrollIntoView());
  await ready(tab.frame("iframe.bumplab"), "#embed");
  await tab.run(() => document.querySelector("bump-lab")?.scrollIntoView());
  await ready(tab, "bump-lab");
  // A few frames more: a late change would show.
  await tab.run(() => new Promise((r) => setTimeout(r, 500)));
  const heights = await tab.run(() => (window as Window & { __heights?: number[][] }).__heights ?? []);
  expect(heights.length).toBeGreaterThan(0);
  // The share panel rounds the height up to a whole pixel; Firefox lays the element out at 350.5 where it reserved 351.
  const off = (i: 1 | 2) => heights.map((h) => Math.abs((h[i] ?? 0) - reserved)).filter((d) => d >= 1);
  expect(off(1), `iframe heights over time (ms, iframe, element): ${JSON.stringify(heights)}`).toEqual([]);
  expect(off(2), `element heights over time (ms, iframe, element): ${JSON.stringify(heights)}`).toEqual([]);
  // The height is the one measured, and the panel says so.
  expect(status).toBe(`The snippets reserve the figure's height in a 720 px column: ${reserved} px.`);
  expect(component).toContain(`<bump-lab link="${hash.replaceAll("&", "&amp;")}" figure style="--bumplab-height:${reserved}px">`);
});
