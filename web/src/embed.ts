// The iframe embed (embed.html): a share link's state in the hash, chrome
// chosen by URL parameters (controls, step, views, theme, height, and
// figure=1 with caption=<text> for a read-only figure). Talks to
// its host page only by postMessage: its content height out, a theme in.

import "./styles.css";
import "./embed.css";
import { EngineLoadError, loadTraceModule, logEngineFailure } from "./wasm/load";
import { decodeShare, queryParams, type SharedState } from "./share/link";
import { parseViews, startPlayer } from "./player";
import { parseHostMessage, parseTheme, resizeMessage, setTheme } from "./share/theme";
import { DEFAULT_CONFIG } from "./model/defaults";

const DEFAULT_STATE: SharedState = { ...DEFAULT_CONFIG, step: 0, compare: null };

/** A height in CSS pixels from a URL parameter, within what an embed can sensibly be. */
function parseHeight(text: string | null): number | null {
  if (text === null || !/^\d{1,5}$/.test(text)) return null;
  const n = Number(text);
  return n >= 80 && n <= 10_000 ? n : null;
}

/**
 * Auto-resize: posts the content height to the host (docs/embedding.md)
 * from now on, whenever it changes. Called once the figure is drawn (or its
 * error shown), not before: until then the host keeps the height its
 * snippet reserved, which the share panel measured from the drawn figure,
 * instead of shrinking to "Loading…" and growing back as the reader arrives.
 */
function reportHeight(root: HTMLElement): void {
  if (window.parent === window) return;
  let last = -1;
  new ResizeObserver(() => {
    const h = Math.ceil(root.getBoundingClientRect().height);
    if (h === last) return;
    last = h;
    window.parent.postMessage(resizeMessage(h), "*");
  }).observe(root);
}

function flag(text: string | null, fallback: boolean): boolean {
  if (text === null) return fallback;
  return !["0", "false", "no", "off"].includes(text.toLowerCase());
}

async function main(): Promise<void> {
  const root = document.getElementById("embed");
  if (!root) throw new Error("#embed is missing from embed.html");
  const params = queryParams(location.search);

  setTheme(document.documentElement, parseTheme(params.get("theme")) ?? "auto");
  window.addEventListener("message", (event) => {
    // Only the page that embeds us may set the theme.
    if (event.source !== window.parent || window.parent === window) return;
    const message = parseHostMessage(event.data);
    if (message) setTheme(document.documentElement, message.theme);
  });

  const height = parseHeight(params.get("height"));
  if (height !== null) {
    root.classList.add("is-fixed-height");
    root.style.setProperty("--bl-height", `${height}px`);
  }

  let state = DEFAULT_STATE;
  if (location.hash.length > 1) {
    const decoded = await decodeShare(location.hash);
    if (!decoded.ok) {
      const p = document.createElement("p");
      p.className = "bl-error";
      p.setAttribute("role", "alert");
      p.textContent = decoded.error;
      root.replaceChildren(p);
      root.removeAttribute("aria-busy");
      reportHeight(root);
      return;
    }
    state = decoded.state;
  }
  const step = params.get("step");
  if (step !== null && /^\d{1,9}$/.test(step)) state = { ...state, step: Number(step) };
  const views = params.has("views") ? parseViews(params.get("views")) : parseViews((state.views ?? []).join(","));

  // The trace module only: the player fetches the cost module itself when its views read costs.
  const player = startPlayer(await loadTraceModule(), root, state, {
    controls: flag(params.get("controls"), true),
    views,
    appUrl: new URL("index.html", location.href).href.replace(/[?#].*$/, ""),
    figure: flag(params.get("figure"), false),
    caption: params.get("caption"),
  });
  await player.ready;
  root.removeAttribute("aria-busy");
  reportHeight(root);
  // A hidden iframe (scrolled away, a closed <details>) stops playing.
  new IntersectionObserver((entries) => {
    for (const e of entries) player.setVisible(e.isIntersecting);
  }).observe(root);
}

main().catch((error: unknown) => {
  const root = document.getElementById("embed");
  if (root) {
    reportHeight(root);
    const p = document.createElement("p");
    p.className = "bl-error";
    p.setAttribute("role", "alert");
    root.removeAttribute("aria-busy");
    if (error instanceof EngineLoadError) {
      // The engine's wasm could not load: the reason, and the figure live in the app as the fallback.
      p.textContent = `Bump Lab could not load its engine: ${error.message}.`;
      const open = document.createElement("a");
      open.className = "bl-open";
      open.href = new URL(`index.html${location.hash}`, location.href).href;
      open.target = "_blank";
      open.rel = "noopener";
      open.textContent = "Open this figure in Bump Lab ↗";
      root.replaceChildren(p, open);
      root.dataset["error"] = error.reason;
      logEngineFailure(error);
      return;
    }
    p.textContent = `Bump Lab could not start: ${error instanceof Error ? error.message : String(error)}`;
    root.replaceChildren(p);
  }
});
