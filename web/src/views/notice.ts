// What the page says above its panels that is not the program's error: a
// notice (a share link that did not open, a file that did not load), and the
// progress of a long run while the last good map stays.

import type { AppState } from "../state/reducer";
import { h } from "./dom";

/**
 * A message above the page that is not the program's error, with a Dismiss
 * button; with `link` (a share link that did not open), a Copy link button
 * too, so the reader can keep, repair or report the link they were given.
 */
export function showNotice(mount: HTMLElement, text: string, link?: string): void {
  const dismiss = h("button", { type: "button", class: "link-button" }, "Dismiss");
  dismiss.addEventListener("click", () => {
    mount.hidden = true;
    mount.replaceChildren();
  });
  const actions: (Node | string)[] = [];
  if (link !== undefined) {
    const copied = h("output", { class: "notice-copied" });
    const copy = h("button", { type: "button", class: "link-button" }, "Copy link");
    copy.addEventListener("click", () => {
      navigator.clipboard.writeText(link).then(
        () => (copied.textContent = "Copied."),
        () => (copied.textContent = `Copy it from the address bar: the clipboard is not available here.`),
      );
    });
    actions.push(" ", copy, copied);
  }
  mount.replaceChildren(h("span", {}, text), ...actions, " ", dismiss);
  mount.hidden = false;
}

/** The progress of a long run, above the map it will replace (the last good map stays meanwhile). */
export function progressBar(map: HTMLElement): (tracing: AppState["tracing"]) => void {
  const bar = h("div", { class: "trace-progress", role: "progressbar", "aria-label": "Tracing the program", hidden: "" });
  const text = h("span", { class: "trace-progress-text" });
  const fill = h("span", { class: "trace-progress-bar" });
  bar.append(fill, text);
  map.before(bar);
  return (tracing) => {
    bar.hidden = tracing === null;
    if (!tracing) return;
    const done = Math.min(tracing.executed, tracing.total);
    bar.setAttribute("aria-valuemin", "0");
    bar.setAttribute("aria-valuemax", String(tracing.total));
    bar.setAttribute("aria-valuenow", String(done));
    const said = `Tracing… ${done.toLocaleString("en-US")} of ${tracing.total.toLocaleString("en-US")} ops`;
    bar.setAttribute("aria-valuetext", said);
    text.textContent = said;
    fill.style.width = `${tracing.total > 0 ? (100 * done) / tracing.total : 0}%`;
  };
}
