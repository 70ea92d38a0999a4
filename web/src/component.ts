// <bump-lab>: the player as a custom element for pages that load one script
// (dist/bump-lab.js; its wasm is fetched from the build folder's assets/, wherever it
// is served). Each element has its own shadow root, store and styles, so
// several on a page are independent; it stops playing while offscreen.
//
//   <bump-lab allocator="bumpalo" step="3" views="code" program="a = alloc 8
//   b = alloc u64"><img src="figure.svg" alt="…"></bump-lab>
//
// `figure` makes it a read-only figure (maps fitted to the bytes in use, no
// editing controls) and `caption="…"` captions it.
//
// Children are the fallback (shown until the element upgrades, or forever
// without JavaScript): the shadow root has no slot, so they hide once it runs,
// and come back (through a slot, under the reason) if its wasm cannot load.
// A page whose bump-lab.js itself cannot load (no CORS header on another
// origin) never defines the element: the snippet's own `bump-lab:not(:defined)`
// style frames the children as the fallback then.
//
// It traces with the lean wasm module; the metered one is fetched only when
// `views` has `cost` or it compares. A player is destroyed (its runs freed)
// when its attributes change it and when the element leaves the document.

import appStyles from "./styles.css?inline";
import playerStyles from "./embed.css?inline";
import { EngineLoadError, loadTraceModule, logEngineFailure } from "./wasm/load";
import type { Target } from "./wasm/types";
import { standaloneSvg, svgFileText, svgToPng } from "./share/export";
import { mapFigure } from "./share/figure";
import { decodeShare, encodeShare, parseCompare, type SharedState } from "./share/link";
import { parseViews, startPlayer, type Player } from "./player";
import { parseTheme, setTheme } from "./share/theme";
import { DEFAULT_CONFIG } from "./model/defaults";
import { normalizeNewlines } from "./model/format";

/** styles.css written for a shadow root: its :root rules apply to the host. */
export function shadowCss(css: string): string {
  return css.replace(/:root\[([^\]]+)\]/g, ":host([$1])").replaceAll(":root", ":host");
}

// The views' own stylesheets (imported by each view for the page) inlined
// here too: a shadow root sees no document styles, and the glob picks up a
// view's new stylesheet without a change here.
const viewStyles = Object.values(import.meta.glob<string>("./views/**/*.css", { query: "?inline", import: "default", eager: true }));

const HOST_CSS = `
:host { display: block; contain: content; }
/* Until drawn, the height the snippet reserved (the share panel measured it from the drawn figure). */
:host(:not([data-ready]):not([data-error])) { min-height: var(--bumplab-height, auto); }
:host([hidden]) { display: none; }
.bl-load-failed { padding: 8px 12px; border: 1px dashed var(--muted); border-radius: 6px; }
.bl-load-failed > .bl-error { margin: 0 0 8px; }
`;

let sheet: CSSStyleSheet | undefined;
/** One parsed stylesheet shared by every element (adopted, not copied). */
function styles(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync([appStyles, ...viewStyles, playerStyles].map(shadowCss).join("\n") + HOST_CSS);
  }
  return sheet;
}

const TARGETS: readonly Target[] = ["64", "wasm32"];

function whole(text: string | null, min: number, max: number): number | null | "bad" {
  if (text === null || text === "") return null;
  if (!/^\d{1,10}$/.test(text)) return "bad";
  const n = Number(text);
  return n >= min && n <= max ? n : "bad";
}

export class BumpLabElement extends HTMLElement {
  static readonly observedAttributes = ["link", "program", "allocator", "target", "capacity", "min-align", "child", "compare", "step", "views", "controls", "theme", "figure", "caption"];

  readonly #root: ShadowRoot;
  readonly #mount: HTMLElement;
  #player: Player | null = null;
  #observer: IntersectionObserver | null = null;
  /** Bumped on every (re)start so a slow start never overwrites a newer one. */
  #generation = 0;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: "open" });
    this.#root.adoptedStyleSheets = [styles()];
    this.#mount = document.createElement("div");
    this.#mount.className = "bl-embed";
    this.#root.append(this.#mount);
  }

  connectedCallback(): void {
    this.#applyTheme();
    this.#observer ??= new IntersectionObserver((entries) => {
      for (const e of entries) this.#player?.setVisible(e.isIntersecting);
    });
    this.#observer.observe(this);
    if (!this.#player) void this.#start();
  }

  disconnectedCallback(): void {
    this.#observer?.disconnect();
    this.#player?.setVisible(false);
    // Moved (removed and inserted in the same task): kept. Removed: destroyed,
    // its runs freed; a later insertion starts it afresh.
    queueMicrotask(() => {
      if (this.isConnected) return;
      this.#generation++;
      this.#player?.destroy();
      this.#player = null;
      delete this.dataset["ready"];
    });
  }

  attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    if (old === value) return;
    if (name === "theme") this.#applyTheme();
    // Once started (even if that start failed on an attribute): restart with the new ones.
    else if (this.isConnected && this.#generation > 0) void this.#start();
  }

  /** The player, once started (for scripts and tests). */
  get player(): Player | null {
    return this.#player;
  }

  /**
   * The memory map at the current step as the text of a standalone SVG file
   * (styles inlined): a script or a headless browser can save it as the
   * figure's static fallback. Null before the first render.
   */
  figureSvg(): string | null {
    const svg = this.#root.querySelector<SVGSVGElement>("svg.memory-map");
    if (!svg) return null;
    const state = this.#player?.shared();
    const title = state ? `Bump Lab memory map: ${state.allocator}, op ${state.step}` : "Bump Lab memory map";
    return svgFileText(standaloneSvg(svg, { title, background: getComputedStyle(this.#mount).backgroundColor || null }));
  }

  /**
   * The figure on show as the Share panel exports it: a standalone SVG file's
   * text with a title naming every allocator shown, the maps, a legend, a
   * caption (the `caption` attribute's words, then the op's) and an "Open
   * live" link to this view in the app at `app` (an index.html's URL; by
   * default the one beside this script),
   * its size, and with `png` the same figure rasterised at `scale`× as
   * base64. `bumplab figure` calls it in a headless browser. Null before the
   * first render.
   */
  async exportFigure(options: { app?: string; png?: boolean; scale?: number } = {}): Promise<{ svg: string; width: number; height: number; png?: string } | null> {
    const player = this.#player;
    const trace = player?.store.getState().trace ?? null;
    if (!player || !trace) return null;
    const state = player.shared();
    const link = `${options.app ?? new URL(/* @vite-ignore */ "index.html", import.meta.url).href}#${await encodeShare(state)}`;
    const fig = await mapFigure(this.#root, state, trace, { link, styleRoot: this.#mount, caption: this.getAttribute("caption") });
    if (!fig) return null;
    const out: { svg: string; width: number; height: number; png?: string } = { svg: fig.text, width: fig.width, height: fig.height };
    if (options.png) {
      const bytes = new Uint8Array(await (await svgToPng(fig.text, fig.width, fig.height, options.scale ?? 2)).arrayBuffer());
      let binary = "";
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      out.png = btoa(binary);
    }
    return out;
  }

  #applyTheme(): void {
    setTheme(this, parseTheme(this.getAttribute("theme")) ?? "auto");
  }

  #fail(message: string): void {
    const p = document.createElement("p");
    p.className = "bl-error";
    p.setAttribute("role", "alert");
    p.textContent = message;
    this.#mount.replaceChildren(p);
  }

  /**
   * The engine could not load: the reason in words, then the element's own
   * children (its static figure, through a slot), or a link to the live
   * figure in the app when it has none.
   */
  async #failToLoad(error: EngineLoadError, appUrl: string): Promise<void> {
    const state = await this.#state().catch(() => "unreadable");
    const p = document.createElement("p");
    p.className = "bl-error";
    p.setAttribute("role", "alert");
    p.textContent = `Bump Lab could not load its engine: ${error.message}.`;
    const fallback = document.createElement("slot");
    const open = document.createElement("a");
    open.href = typeof state === "string" ? appUrl : `${appUrl}#${await encodeShare(state)}`;
    open.target = "_blank";
    open.rel = "noopener";
    open.textContent = "Open this figure in Bump Lab ↗";
    fallback.append(open);
    const box = document.createElement("div");
    box.className = "bl-load-failed";
    box.append(p, fallback);
    this.#mount.replaceChildren(box);
    this.dataset["error"] = error.reason;
    logEngineFailure(error);
  }

  /** The state the attributes describe: a share link, then each attribute over it. */
  async #state(): Promise<SharedState | string> {
    let state: SharedState = { ...DEFAULT_CONFIG, step: 0, compare: null };
    const link = this.getAttribute("link");
    if (link) {
      const decoded = await decodeShare(link);
      if (!decoded.ok) return decoded.error;
      state = decoded.state;
    }
    const program = this.getAttribute("program");
    if (program !== null) state = { ...state, source: normalizeNewlines(program).replace(/^\n+/, "") };
    const allocator = this.getAttribute("allocator");
    // Another preset: the link's child allocator may not exist there.
    if (allocator && allocator !== state.allocator) state = { ...state, allocator, child: null };
    const target = this.getAttribute("target");
    if (target !== null) {
      const t = TARGETS.find((x) => x === target);
      if (!t) return `target must be 64 or wasm32, not "${target}"`;
      state = { ...state, target: t };
    }
    const capacity = whole(this.getAttribute("capacity"), 1, 1 << 30);
    if (capacity === "bad") return "capacity must be a whole number of bytes";
    if (capacity !== null) state = { ...state, capacity };
    const minAlign = whole(this.getAttribute("min-align"), 1, 4096);
    if (minAlign === "bad") return "min-align must be a power of two up to 4096";
    if (minAlign !== null) state = { ...state, minAlign };
    const child = this.getAttribute("child");
    if (child !== null) {
      if (!/^[a-z][a-z0-9-]{0,31}$/.test(child)) return `child must be a child allocator's name, such as page or heap, not "${child.slice(0, 24)}"`;
      state = { ...state, child };
    }
    const compare = this.getAttribute("compare");
    if (compare) {
      const parsed = parseCompare(compare);
      if (!parsed.ok) return `compare: ${parsed.error}`;
      state = { ...state, compare: parsed.compare };
    }
    const step = whole(this.getAttribute("step"), 0, 10_000_000);
    if (step === "bad") return "step must be a whole number";
    if (step !== null) state = { ...state, step };
    return state;
  }

  async #start(): Promise<void> {
    const generation = ++this.#generation;
    // The app's page sits beside this script in dist/.
    const appUrl = new URL(/* @vite-ignore */ "index.html", import.meta.url).href;
    delete this.dataset["error"];
    try {
      const [state, lean] = await Promise.all([this.#state(), loadTraceModule()]);
      if (generation !== this.#generation || !this.isConnected) return;
      // The player it replaces stops and frees its runs first.
      this.#player?.destroy();
      this.#player = null;
      if (typeof state === "string") {
        this.#fail(`<bump-lab>: ${state}`);
        return;
      }
      const views = this.hasAttribute("views") ? parseViews(this.getAttribute("views")) : parseViews((state.views ?? []).join(","));
      const controls = !["0", "false", "no", "off"].includes((this.getAttribute("controls") ?? "").toLowerCase());
      const player = startPlayer(lean, this.#mount, state, {
        controls,
        views,
        appUrl,
        label: this.getAttribute("aria-label"),
        // A boolean attribute: present means a figure, unless it says otherwise (figure="false").
        figure: this.hasAttribute("figure") && !["0", "false", "no", "off"].includes((this.getAttribute("figure") ?? "").toLowerCase()),
        caption: this.getAttribute("caption"),
      });
      this.#player = player;
      await player.ready;
      if (this.#player === player) this.dataset["ready"] = "true";
    } catch (error) {
      if (generation !== this.#generation) return;
      if (error instanceof EngineLoadError) {
        await this.#failToLoad(error, appUrl);
        return;
      }
      this.#fail(`Bump Lab could not start: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
}

if (!customElements.get("bump-lab")) customElements.define("bump-lab", BumpLabElement);
