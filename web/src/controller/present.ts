// Presentation mode, for teaching from a projector: large type, a
// high-contrast palette, the editing panels put away, stepped by keys alone
// (←/→, Space). The header's "Present" toggle (aria-pressed), the P key and
// `?present=1` in the app's URL turn it on; the toggle, P and Escape turn it
// off. The state is the reducer's `present`; this module draws it on the root
// element, keeps the URL in step so a reload stays in it, and announces each
// change.

import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";
import { h, setText } from "../views/dom";
import { keepsKeys } from "./keyboard";

/** The root element's class in presentation mode (app.css styles it). */
export const PRESENT_CLASS = "is-presenting";

/** Whether an app URL's query asks for presentation mode (`present=1`, or any value but 0/false/no/off). */
export function presentFromSearch(search: string): boolean {
  const value = new URLSearchParams(search).get("present");
  return value !== null && !["0", "false", "no", "off"].includes(value.toLowerCase());
}

/** `url` (path, query and hash) with `present=1` set or removed, everything else kept. */
export function withPresent(url: string, present: boolean): string {
  const u = new URL(url, "http://x.invalid");
  if (present) u.searchParams.set("present", "1");
  else u.searchParams.delete("present");
  return `${u.pathname}${u.search}${u.hash}`;
}

/** What is announced when the mode changes. */
export function presentAnnouncement(present: boolean): string {
  return present
    ? "Presentation mode: ← and → step (→ reveals a question's answer first), Space plays, Page Up and Page Down scroll the narration, P or Escape leaves."
    : "Presentation mode off.";
}

/** Whether a key press toggles presentation mode: P (either case) outside text and controls that keep their keys. */
export function togglesPresent(event: KeyboardEvent): boolean {
  if (event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return false;
  if (event.key !== "p" && event.key !== "P") return false;
  return !keepsKeys(event.composedPath()[0] ?? event.target);
}

/** The most and the least the narration's words are scaled to fill the room the screen leaves them. */
export const MAX_NARRATION_FIT = 1.4;
export const MIN_NARRATION_FIT = 0.7;

/**
 * Fits the narration in `mount` to the room the presented panel leaves it
 * (present.css): its words start at MAX_NARRATION_FIT of their size (a large
 * screen reads from the back of a room) and are scaled down in steps of 5%
 * until they fit, to MIN_NARRATION_FIT at the least; past that they scroll
 * (Page Up and Page Down). Off presentation mode the scale is dropped.
 */
export function fitPresentedNarration(mount: HTMLElement, presenting: boolean): void {
  if (!presenting) {
    mount.style.removeProperty("--present-fit");
    return;
  }
  let fit = MAX_NARRATION_FIT;
  mount.style.setProperty("--present-fit", fit.toFixed(2));
  while (fit > MIN_NARRATION_FIT + 0.001 && mount.scrollHeight > mount.clientHeight + 1) {
    fit -= 0.05;
    mount.style.setProperty("--present-fit", fit.toFixed(2));
  }
}

/**
 * Keeps --present-header on `root` at the height of the page's header: the
 * presented memory panel takes the window's height below it.
 */
function followHeader(root: HTMLElement): void {
  const header = document.querySelector<HTMLElement>(".app-header");
  if (!header || typeof ResizeObserver === "undefined") return;
  const set = (): void => {
    const margin = parseFloat(getComputedStyle(header).marginBottom) || 0;
    root.style.setProperty("--present-header", `${Math.ceil(header.offsetHeight + margin)}px`);
  };
  new ResizeObserver(set).observe(header);
  set();
}

/** Whether a PageUp or PageDown press scrolls the presented narration: presenting, outside text and controls that keep their keys. */
export function scrollsNarration(event: KeyboardEvent, presenting: boolean): boolean {
  if (!presenting || event.altKey || event.ctrlKey || event.metaKey || event.defaultPrevented) return false;
  return !keepsKeys(event.composedPath()[0] ?? event.target);
}

/**
 * Builds the header's Present toggle into `tools` (before `before`), binds
 * P and Escape, and draws the store's `present` on `root` from now on.
 */
export function bindPresent(store: Store<AppState, Action>, tools: HTMLElement, before: Element | null, root: HTMLElement = document.documentElement): HTMLButtonElement {
  const { dispatch } = store;
  const button = h(
    "button",
    { type: "button", id: "present-button", class: "tool-button", "aria-pressed": "false", "aria-keyshortcuts": "P", title: "Presentation mode for a projector (P)" },
    "Present",
  );
  tools.insertBefore(button, before && before.parentElement === tools ? before : null);
  const status = h("p", { class: "visually-hidden", role: "status", id: "present-status" });
  tools.append(status);
  const set = (present: boolean): void => dispatch({ type: "setPresent", present });
  button.addEventListener("click", () => set(!store.getState().present));
  document.addEventListener("keydown", (event) => {
    if (togglesPresent(event)) {
      set(!store.getState().present);
      event.preventDefault();
    } else if ((event.key === "PageDown" || event.key === "PageUp") && scrollsNarration(event, store.getState().present)) {
      // A narration longer than the screen leaves scrolls with the page keys: the arrows step.
      const words = document.querySelector<HTMLElement>(".map-panel > .narration-mount");
      if (words) words.scrollBy({ top: (event.key === "PageDown" ? 0.8 : -0.8) * words.clientHeight });
      event.preventDefault();
    } else if (event.key === "Escape" && !event.defaultPrevented && store.getState().present && !event.altKey && !event.ctrlKey && !event.metaKey) {
      // Escape closes what is open first (the Share panel, compare): only then does it leave.
      set(false);
      event.preventDefault();
    }
  });

  let shown: boolean | null = null;
  const draw = (s: AppState): void => {
    if (s.present === shown) return;
    const first = shown === null;
    shown = s.present;
    root.classList.toggle(PRESENT_CLASS, s.present);
    button.setAttribute("aria-pressed", String(s.present));
    const url = withPresent(`${location.pathname}${location.search}${location.hash}`, s.present);
    if (url !== `${location.pathname}${location.search}${location.hash}`) history.replaceState(history.state, "", url);
    if (first && !s.present) return;
    setText(status, presentAnnouncement(s.present));
    // The keys step from here on: focus leaves the toggle, where Space would press it again.
    const panel = document.querySelector<HTMLElement>(".map-panel");
    if (s.present && panel && document.activeElement === button) {
      if (!panel.hasAttribute("tabindex")) panel.tabIndex = -1;
      panel.focus({ preventScroll: true });
    }
  };
  draw(store.getState());
  store.subscribe(draw);
  followHeader(root);
  return button;
}
