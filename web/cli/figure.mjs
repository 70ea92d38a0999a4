// `bumplab figure`: a static figure of a run, for hosts that run no scripts
// (a README, a feed, a newsletter, slides). It is the Share panel's export
// of the same view, made by the same code: the built site's <bump-lab>
// element draws the figure in a headless Chromium and its `exportFigure`
// composes the SVG (title, maps, legend, caption, "Open live" link), with
// the page's stylesheet, fonts and text measure. A browser engine is what
// that code needs (styles computed from the stylesheet, text measured in the
// figure's font); a DOM without one would draw another figure. Chromium is
// driven over the DevTools protocol on a pipe (--remote-debugging-pipe),
// so the package needs no dependency; the site is served to it on
// 127.0.0.1 for the duration of the command.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";

/** Where a Chromium or Chrome usually is, tried in order after --browser and BUMPLAB_BROWSER. */
const BROWSERS = [
  "/usr/bin/chromium",
  "/usr/bin/chromium-browser",
  "/usr/bin/google-chrome",
  "/usr/bin/google-chrome-stable",
  "/snap/bin/chromium",
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
  "C:\\Program Files\\Google\\Chrome\\Application\\chrome.exe",
];

/** The browser to draw with, or an error saying how to name one. */
export function findBrowser(given) {
  const named = given ?? process.env.BUMPLAB_BROWSER;
  if (named) {
    if (!existsSync(named)) throw new Error(`no browser at ${named}`);
    return named;
  }
  const found = BROWSERS.find((b) => existsSync(b));
  if (!found) throw new Error(`bumplab figure draws with a headless Chromium or Chrome and found none (looked in ${BROWSERS.slice(0, 4).join(", ")}, …): name one with --browser PATH or BUMPLAB_BROWSER`);
  return found;
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".svg": "image/svg+xml" };

const escapeAttr = (s) => String(s).replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/** The page that draws the figure: the element, sized as a post's column, in the chosen theme. */
export function figurePage(attributes, width) {
  const attrs = Object.entries(attributes)
    .filter(([, v]) => v !== undefined && v !== null && v !== false)
    .map(([k, v]) => (v === true ? k : `${k}="${escapeAttr(v)}"`))
    .join(" ");
  return `<!doctype html><html><head><meta charset="utf-8"><title>bumplab figure</title>
<style>html,body{margin:0}body{padding:0;width:${width}px}</style>
<script type="module" src="bump-lab.js"></script></head>
<body><bump-lab ${attrs}></bump-lab></body></html>`;
}

/** Serves `site` on 127.0.0.1 with `page` at /__figure.html, until closed. */
function serveSite(site, page) {
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://x").pathname));
    if (path === "/__figure.html") return void res.writeHead(200, { "content-type": TYPES[".html"] }).end(page);
    const file = join(site, path);
    if (!file.startsWith(site) || !existsSync(file) || !statSync(file).isFile()) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" }).end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve(server));
  });
}

/** The DevTools protocol over Chromium's pipe: messages are JSON, each ended by a NUL byte. */
function devtools(child) {
  const pending = new Map();
  let next = 1;
  let buffer = Buffer.alloc(0);
  const write = child.stdio[3];
  const read = child.stdio[4];
  read.on("data", (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    let end;
    while ((end = buffer.indexOf(0)) >= 0) {
      const message = JSON.parse(buffer.subarray(0, end).toString("utf8"));
      buffer = buffer.subarray(end + 1);
      const waiter = message.id !== undefined ? pending.get(message.id) : undefined;
      if (!waiter) continue;
      pending.delete(message.id);
      if (message.error) waiter.reject(new Error(`${waiter.method}: ${message.error.message}`));
      else waiter.resolve(message.result);
    }
  });
  const closed = new Promise((resolve) => child.once("exit", resolve));
  closed.then(() => {
    for (const w of pending.values()) w.reject(new Error("the browser exited"));
    pending.clear();
  });
  return {
    send(method, params = {}, sessionId) {
      const id = next++;
      write.write(`${JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) })}\0`);
      return new Promise((resolve, reject) => pending.set(id, { resolve, reject, method }));
    },
  };
}

/**
 * Draws the figure in the headless browser and returns what the element's
 * `exportFigure` gives: `{ svg, width, height, png? }`, or throws with the
 * element's own words (a bad program, an engine that did not load).
 */
export async function drawFigure({ site, browser, attributes, app, png = false, width = 720, timeoutMs = 60_000 }) {
  if (!existsSync(join(site, "bump-lab.js"))) throw new Error(`${site} has no bump-lab.js: the built site is needed (in the repository, \`npm run build\`)`);
  const server = await serveSite(site, figurePage(attributes, width));
  const profile = mkdtempSync(join(tmpdir(), "bumplab-figure-"));
  const child = spawn(
    browser,
    [
      "--headless=new",
      "--remote-debugging-pipe",
      "--no-sandbox",
      "--disable-gpu",
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--hide-scrollbars",
      `--user-data-dir=${profile}`,
      "about:blank",
    ],
    { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
  );
  let stderr = "";
  child.stderr.on("data", (d) => {
    stderr = (stderr + d).slice(-2000);
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  try {
    const cdp = devtools(child);
    const started = new Promise((_, reject) => {
      child.once("error", (e) => reject(new Error(`could not start ${browser}: ${e.message}`)));
      child.once("exit", (code) => reject(new Error(`${browser} exited (${code}) before drawing: ${stderr.trim().split("\n").slice(-3).join(" | ")}`)));
    });
    const run = async () => {
      const origin = `http://127.0.0.1:${server.address().port}`;
      const { targetId } = await cdp.send("Target.createTarget", { url: "about:blank" });
      const { sessionId } = await cdp.send("Target.attachToTarget", { targetId, flatten: true });
      await cdp.send("Emulation.setDeviceMetricsOverride", { width, height: 900, deviceScaleFactor: 1, mobile: false }, sessionId);
      await cdp.send("Page.navigate", { url: `${origin}/__figure.html` }, sessionId);
      // Until the navigation commits, an evaluation may land in the blank page it replaces: asked again then.
      const expression = `location.pathname !== "/__figure.html" ? { retry: true } : (async () => {
        const deadline = Date.now() + ${timeoutMs - 5000};
        let el;
        while (Date.now() < deadline) {
          el = document.querySelector("bump-lab");
          if (el && customElements.get("bump-lab") && (el.dataset.ready === "true" || el.dataset.error)) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        if (!el || el.dataset.ready !== "true") {
          const said = el?.shadowRoot?.querySelector(".bl-error")?.textContent;
          return { error: said || "the figure did not draw in time" };
        }
        const shown = el.shadowRoot.querySelector(".bl-error:not([hidden])");
        if (shown && shown.textContent.trim()) return { error: shown.textContent.trim() };
        const fig = await el.exportFigure({ app: ${JSON.stringify(app)}, png: ${png ? "true" : "false"} });
        return fig ?? { error: "the element drew no map" };
      })()`;
      let value;
      for (let attempt = 0; ; attempt++) {
        let answer;
        try {
          answer = await cdp.send("Runtime.evaluate", { expression, awaitPromise: true, returnByValue: true }, sessionId);
        } catch (e) {
          // The blank page's context, destroyed by the navigation.
          if (attempt < 100 && /context|navigat/i.test(e.message)) {
            await new Promise((r) => setTimeout(r, 100));
            continue;
          }
          throw e;
        }
        if (answer.exceptionDetails) throw new Error(`the page failed: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}`);
        value = answer.result.value;
        if (value?.retry && attempt < 100) {
          await new Promise((r) => setTimeout(r, 100));
          continue;
        }
        break;
      }
      if (value?.error) throw new Error(value.error);
      await cdp.send("Browser.close").catch(() => undefined);
      return value;
    };
    return await Promise.race([run(), started]);
  } finally {
    clearTimeout(timer);
    // The profile is removed once the browser has let go of it.
    const exited = child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((resolve) => child.once("exit", resolve));
    if (child.exitCode === null && child.signalCode === null) setTimeout(() => child.kill("SIGKILL"), 2000).unref();
    await exited;
    await new Promise((resolve) => server.close(resolve));
    rmSync(profile, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 });
  }
}
