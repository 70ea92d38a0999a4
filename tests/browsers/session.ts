// The browsers besides Chromium that readers use, each driven by its own
// protocol, behind one small interface (Tab) so every journey runs the same
// steps in each:
//
// - Firefox ESR (Debian's firefox-esr) over WebDriver BiDi, with puppeteer-core.
//   Console errors and uncaught exceptions come from BiDi's log events.
// - WebKitGTK's MiniBrowser (Debian's webkit2gtk-driver: the WebKit engine
//   Safari is built on) over classic WebDriver, with selenium-webdriver, in a
//   virtual X display (xvfb-run): MiniBrowser has no headless mode, and its
//   driver refuses BiDi. Classic WebDriver has no log API, so after every
//   load the page's `error`, `unhandledrejection` and `console.error` are
//   hooked, and read back before the next load: an error thrown before the
//   hook is in place (while the page's first scripts run) is not seen here,
//   only through what it breaks.
//
// Input is the browser's own: clicks and keys go through the protocol's
// input actions (puppeteer's and WebDriver's element click and send keys),
// not element.click() in the page. A browser that cannot start fails every
// journey: nothing is skipped.

import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test as base, expect } from "@playwright/test";
import puppeteer, { type Browser, type ElementHandle, type Frame, type JSHandle, type Page } from "puppeteer-core";
import { Builder, Key, Origin, type WebDriver, type WebElement } from "selenium-webdriver";
import { FIREFOX, WEBKIT_DRIVER, MINIBROWSER } from "../../scripts/versions.mjs";

export type Engine = "firefox" | "webkit";

export interface Point {
  x: number;
  y: number;
}

/** A function run in the page: its source is sent, so it may use only its arguments and the page's globals. */
type PageFn<T> = (...args: any[]) => T | Promise<T>;

/** One page (or one frame of it, through `frame()`) in one browser. */
export interface Tab {
  readonly engine: Engine;
  /** The folder this browser saves downloads in. */
  readonly downloads: string;
  /** Loads `url` and waits for its load event. */
  goto(url: string): Promise<void>;
  /** Runs `fn` in the page with JSON-able `args`; its (awaited) JSON-able result. */
  run<T>(fn: PageFn<T>, ...args: unknown[]): Promise<T>;
  /**
   * Clicks the element `find` returns (run in the page with `args`, as
   * `run` does), with the browser's own pointer input. Fails if it returns null.
   */
  click(find: PageFn<Element | null>, ...args: unknown[]): Promise<void>;
  /** Clicks the element, then types `text` with the browser's own key input ("\n" is Enter). */
  type(text: string, find: PageFn<Element | null>, ...args: unknown[]): Promise<void>;
  /**
   * Presses the pointer at `from` (viewport CSS px, top-level document),
   * moves it to `to` in steps, and releases it: a drag with the browser's
   * own pointer input (a mouse: WebKitGTK's WebDriver accepts touch actions
   * but delivers them to the page as mouse events).
   */
  drag(from: Point, to: Point): Promise<void>;
  /** Clicks at `at` (viewport CSS px, top-level document) with the browser's own pointer input. */
  clickAt(at: Point): Promise<void>;
  /** Presses one key on the focused element: "ArrowRight", "ArrowLeft", "End", "Home", "Enter". */
  press(key: "ArrowRight" | "ArrowLeft" | "End" | "Home" | "Enter"): Promise<void>;
  /** The same operations inside the iframe `selector` selects (top-level document). */
  frame(selector: string): Tab;
  /** Sizes the viewport (Firefox) or the window (WebKit) and returns the viewport's inner size. */
  resize(width: number, height: number): Promise<{ width: number; height: number }>;
  /** Console errors and uncaught exceptions since the last call (emptied). */
  takeErrors(): Promise<string[]>;
}

// ---- Errors, hooked in the page where the protocol has no log ----------------------------------

/** Installed after each load in WebKit: the page's errors into window.__bumplabErrors. */
function hookErrors(): void {
  const w = window as Window & { __bumplabErrors?: string[] };
  if (w.__bumplabErrors) return;
  const seen: string[] = [];
  w.__bumplabErrors = seen;
  addEventListener("error", (e) => seen.push(`uncaught: ${e.message}`));
  addEventListener("unhandledrejection", (e) => seen.push(`unhandled rejection: ${String((e.reason as Error | undefined)?.message ?? e.reason)}`));
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    seen.push(`console.error: ${args.map(String).join(" ")}`);
    original(...args);
  };
}

function readHookedErrors(): string[] {
  const w = window as Window & { __bumplabErrors?: string[] };
  return w.__bumplabErrors?.splice(0) ?? [];
}

/**
 * The element `look` finds, asked again until it finds one (a control may
 * appear a frame after the state it waits for), for up to 10 s.
 */
async function until<E>(find: PageFn<Element | null>, args: unknown[], look: () => Promise<E | null>): Promise<E> {
  const give = Date.now() + 10_000;
  for (;;) {
    const el = await look();
    if (el) return el;
    if (Date.now() > give) throw new Error(`no element for ${find.toString().slice(0, 120)} ${JSON.stringify(args)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---- Firefox over WebDriver BiDi -------------------------------------------------------------

class FirefoxTab implements Tab {
  readonly engine = "firefox";
  #errors: string[];
  constructor(
    readonly page: Page,
    readonly downloads: string,
    errors: string[],
    readonly within: string | null = null,
  ) {
    this.#errors = errors;
  }

  async #context(): Promise<Page | Frame> {
    if (this.within === null) return this.page;
    const el = await this.page.$(this.within);
    const frame = await el?.contentFrame();
    if (!frame) throw new Error(`no iframe ${this.within}`);
    return frame;
  }

  async goto(url: string): Promise<void> {
    await this.page.goto(url, { waitUntil: "load" });
  }

  async run<T>(fn: PageFn<T>, ...args: unknown[]): Promise<T> {
    const ctx = await this.#context();
    const evaluate = ctx.evaluate.bind(ctx) as (fn: PageFn<T>, ...a: unknown[]) => Promise<T>;
    return evaluate(fn, ...args);
  }

  #element(find: PageFn<Element | null>, args: unknown[]): Promise<ElementHandle<Element>> {
    return until(find, args, async () => {
      const ctx = await this.#context();
      const evaluateHandle = ctx.evaluateHandle.bind(ctx) as (fn: PageFn<Element | null>, ...a: unknown[]) => Promise<JSHandle>;
      return (await evaluateHandle(find, ...args)).asElement() as ElementHandle<Element> | null;
    });
  }

  async click(find: PageFn<Element | null>, ...args: unknown[]): Promise<void> {
    const el = await this.#element(find, args);
    try {
      await el.click();
    } catch {
      // Found just as a render replaced it (a stepper button after a step):
      // the element now in its place is the one a reader's tap would reach.
      await (await this.#element(find, args)).click();
    }
  }

  async type(text: string, find: PageFn<Element | null>, ...args: unknown[]): Promise<void> {
    const el = await this.#element(find, args);
    await el.click();
    await this.page.keyboard.type(text);
  }

  async press(key: "ArrowRight" | "ArrowLeft" | "End" | "Home" | "Enter"): Promise<void> {
    await this.page.keyboard.press(key);
  }

  async drag(from: Point, to: Point): Promise<void> {
    await this.page.mouse.move(from.x, from.y);
    await this.page.mouse.down();
    await this.page.mouse.move(to.x, to.y, { steps: 10 });
    await this.page.mouse.up();
  }

  async clickAt(at: Point): Promise<void> {
    await this.page.mouse.click(at.x, at.y);
  }

  frame(selector: string): Tab {
    return new FirefoxTab(this.page, this.downloads, this.#errors, selector);
  }

  async resize(width: number, height: number): Promise<{ width: number; height: number }> {
    await this.page.setViewport({ width, height });
    return this.page.evaluate(() => ({ width: innerWidth, height: innerHeight }));
  }

  async takeErrors(): Promise<string[]> {
    return this.#errors.splice(0);
  }
}

// ---- WebKit over classic WebDriver ------------------------------------------------------------

const KEYS = { ArrowRight: Key.ARROW_RIGHT, ArrowLeft: Key.ARROW_LEFT, End: Key.END, Home: Key.HOME, Enter: Key.ENTER } as const;

class WebKitTab implements Tab {
  readonly engine = "webkit";
  constructor(
    readonly driver: WebDriver,
    readonly downloads: string,
    readonly errors: string[],
    readonly within: string | null = null,
  ) {}

  /** Runs `op` with the driver in this tab's frame (hooked), then back in the top document. */
  async #in<T>(op: () => Promise<T>): Promise<T> {
    if (this.within === null) return op();
    const el = (await this.driver.executeScript(`return document.querySelector(arguments[0])`, this.within)) as WebElement | null;
    if (!el) throw new Error(`no iframe ${this.within}`);
    await this.driver.switchTo().frame(el);
    try {
      await this.driver.executeScript(`(${hookErrors.toString()})()`);
      return await op();
    } finally {
      this.errors.push(...((await this.driver.executeScript(`return (${readHookedErrors.toString()})()`)) as string[]));
      await this.driver.switchTo().defaultContent();
    }
  }

  async goto(url: string): Promise<void> {
    await this.#harvest();
    await this.driver.get(url);
    await this.driver.executeScript(`(${hookErrors.toString()})()`);
  }

  async #harvest(): Promise<void> {
    try {
      this.errors.push(...((await this.driver.executeScript(`return (${readHookedErrors.toString()})()`)) as string[]));
    } catch {
      // No page yet, or a document that cannot run scripts (an image opened alone).
    }
  }

  run<T>(fn: PageFn<T>, ...args: unknown[]): Promise<T> {
    // executeAsyncScript: the function's promise is awaited in the page, its value sent back.
    return this.#in(
      async () =>
        (await this.driver.executeAsyncScript(
          `const done = arguments[arguments.length - 1];
           Promise.resolve().then(() => (${fn.toString()})(...Array.prototype.slice.call(arguments, 0, -1)))
             .then((v) => done({ ok: v === undefined ? null : v }), (e) => done({ error: String(e && e.stack || e) }));`,
          ...args,
        )) as { ok: T } | { error: string },
    ).then((r) => {
      if ("error" in r) throw new Error(`in the page: ${r.error}`);
      return r.ok;
    });
  }

  #element(find: PageFn<Element | null>, args: unknown[]): Promise<WebElement> {
    return until(find, args, async () => (await this.driver.executeScript(`return (${find.toString()})(...arguments)`, ...args)) as WebElement | null);
  }

  click(find: PageFn<Element | null>, ...args: unknown[]): Promise<void> {
    return this.#in(async () => {
      const el = await this.#element(find, args);
      // WebDriver clicks the element's centre once it is scrolled into view.
      await el.click();
    });
  }

  type(text: string, find: PageFn<Element | null>, ...args: unknown[]): Promise<void> {
    return this.#in(async () => {
      const el = await this.#element(find, args);
      await el.click();
      await el.sendKeys(text.replaceAll("\n", Key.ENTER));
    });
  }

  async press(key: "ArrowRight" | "ArrowLeft" | "End" | "Home" | "Enter"): Promise<void> {
    await this.#in(() => this.driver.actions().sendKeys(KEYS[key]).perform());
  }

  async drag(from: Point, to: Point): Promise<void> {
    const r = (p: Point) => ({ x: Math.round(p.x), y: Math.round(p.y) });
    let chain = this.driver.actions({ async: true }).move({ origin: Origin.VIEWPORT, ...r(from) }).press();
    for (let i = 1; i <= 10; i++) chain = chain.move({ origin: Origin.VIEWPORT, ...r({ x: from.x + ((to.x - from.x) * i) / 10, y: from.y + ((to.y - from.y) * i) / 10 }), duration: 20 });
    await chain.release().perform();
  }

  async clickAt(at: Point): Promise<void> {
    await this.driver
      .actions({ async: true })
      .move({ origin: Origin.VIEWPORT, x: Math.round(at.x), y: Math.round(at.y) })
      .click()
      .perform();
  }

  frame(selector: string): Tab {
    return new WebKitTab(this.driver, this.downloads, this.errors, selector);
  }

  async resize(width: number, height: number): Promise<{ width: number; height: number }> {
    // The window's outer size: MiniBrowser's toolbar takes some of its height, and it is never narrower than the toolbar.
    await this.driver.manage().window().setRect({ width, height });
    return (await this.driver.executeScript("return { width: innerWidth, height: innerHeight }")) as { width: number; height: number };
  }

  async takeErrors(): Promise<string[]> {
    await this.#harvest();
    return this.errors.splice(0);
  }
}

// ---- Starting the browsers ----------------------------------------------------------------------

interface Session {
  engine: Engine;
  downloads: string;
  newTab(): Promise<Tab>;
  closeTab(tab: Tab): Promise<void>;
  close(): Promise<void>;
}

async function firefox(): Promise<Session> {
  const downloads = mkdtempSync(join(tmpdir(), "bumplab-firefox-"));
  let browser: Browser;
  try {
    browser = await puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX,
      headless: true,
      protocol: "webDriverBiDi",
      defaultViewport: { width: 1280, height: 800 },
      extraPrefsFirefox: {
        "browser.download.dir": downloads,
        "browser.download.folderList": 2,
        "browser.download.useDownloadDir": true,
        "browser.download.always_ask_before_handling_new_types": false,
        "browser.download.start_downloads_in_tmp_dir": false,
      },
    });
  } catch (e) {
    throw new Error(`Firefox (${FIREFOX}) did not start: ${e instanceof Error ? e.message : String(e)}. scripts/setup.mjs --with-browser installs Debian's firefox-esr.`);
  }
  return {
    engine: "firefox",
    downloads,
    async newTab() {
      const page = await browser.newPage();
      const errors: string[] = [];
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(`console.error: ${m.text()}`);
      });
      page.on("pageerror", (e) => errors.push(`uncaught: ${e instanceof Error ? e.message : String(e)}`));
      return new FirefoxTab(page, downloads, errors);
    },
    async closeTab(tab) {
      await (tab as FirefoxTab).page.close();
    },
    async close() {
      await browser.close();
      rmSync(downloads, { recursive: true, force: true });
    },
  };
}

/** A TCP port nothing listens on right now (other runs on the machine start drivers too). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` answers, or rejects after `ms`. */
async function answering(url: string, ms: number, child: ChildProcess): Promise<void> {
  const until = Date.now() + ms;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited with code ${child.exitCode}`);
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > until) throw new Error(`${url} did not answer within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function webkit(): Promise<Session> {
  // MiniBrowser saves downloads in $HOME: a fresh one per run, counted file by file.
  const home = mkdtempSync(join(tmpdir(), "bumplab-webkit-"));
  const port = await freePort();
  let stderr = "";
  // Its own process group, so closing the session ends xvfb-run, Xvfb and the driver together.
  const child = spawn("xvfb-run", ["-a", "-s", "-screen 0 1400x1100x24", WEBKIT_DRIVER, `--port=${port}`], {
    env: { ...process.env, HOME: home },
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
  });
  child.stderr?.on("data", (d: Buffer) => (stderr += d.toString()));
  const stop = (): void => {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  };
  let driver: WebDriver;
  try {
    await new Promise<void>((resolve, reject) => {
      child.once("error", reject);
      child.once("spawn", resolve);
    });
    await answering(`http://127.0.0.1:${port}/status`, 20_000, child);
    driver = await new Builder()
      .usingServer(`http://127.0.0.1:${port}`)
      .withCapabilities({ browserName: "MiniBrowser", "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] } })
      .build();
  } catch (e) {
    stop();
    throw new Error(
      `WebKit (${WEBKIT_DRIVER} with ${MINIBROWSER} under xvfb-run) did not start: ${e instanceof Error ? e.message : String(e)}${stderr ? `\n${stderr.trim()}` : ""}\nscripts/setup.mjs --with-browser installs Debian's webkit2gtk-driver and xvfb.`,
    );
  }
  const errors: string[] = [];
  return {
    engine: "webkit",
    downloads: home,
    async newTab() {
      await driver.manage().window().setRect({ width: 1280, height: 860 });
      errors.length = 0;
      return new WebKitTab(driver, home, errors);
    },
    async closeTab() {
      // One window for the run: the next journey starts from a blank page.
      await driver.get("about:blank");
    },
    async close() {
      try {
        await driver.quit();
      } finally {
        stop();
        rmSync(home, { recursive: true, force: true });
      }
    },
  };
}

// ---- Fixtures ------------------------------------------------------------------------------------

/**
 * `tab`: a page in the project's browser (its `engine` option), whose console
 * errors and uncaught exceptions must be none at the journey's end (a
 * journey that expects some takes them first with `takeErrors()`).
 */
export const test = base.extend<{ tab: Tab }, { engine: Engine; session: Session }>({
  engine: ["firefox", { option: true, scope: "worker" }],
  session: [
    async ({ engine }, use) => {
      const session = engine === "firefox" ? await firefox() : await webkit();
      await use(session);
      await session.close();
    },
    { scope: "worker", timeout: 60_000 },
  ],
  tab: async ({ session }, use) => {
    const tab = await session.newTab();
    await use(tab);
    const errors = await tab.takeErrors();
    await session.closeTab(tab);
    expect(errors, "console errors and uncaught exceptions").toEqual([]);
  },
});

export { expect };

// ---- Downloads ------------------------------------------------------------------------------------

/** Files in the downloads folder, by name (partial downloads and folders left out). */
export function downloadedFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => !/\.(part|download|wkdownload)$/.test(f) && !f.startsWith("."))
    .filter((f) => statSync(join(dir, f)).isFile())
    .sort();
}

/**
 * The files that arrive in `dir` while `act` runs and up to `settleMs` after
 * (a second file may follow the first): their names, once no partial file is left.
 */
export async function filesArriving(dir: string, act: () => Promise<void>, want: number, settleMs = 3_000): Promise<string[]> {
  const before = new Set(downloadedFiles(dir));
  await act();
  const fresh = (): string[] => downloadedFiles(dir).filter((f) => !before.has(f));
  const partial = (): boolean => readdirSync(dir).some((f) => /\.(part|download|wkdownload)$/.test(f));
  // Until the files wanted are there and whole, then a while longer: a file
  // too many (or a second one that never comes) shows in the count.
  const state = (): string => (fresh().length >= want && !partial() ? "all arrived" : `arrived so far: ${fresh().join(", ") || "none"}`);
  await expect.poll(state, { timeout: 15_000 }).toBe("all arrived");
  await new Promise((r) => setTimeout(r, settleMs));
  return fresh();
}
