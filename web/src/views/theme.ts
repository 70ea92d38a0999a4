// The header's theme toggle: auto (follow the system), light or dark. The
// choice sets data-theme on the root (styles.css switches color-scheme on it)
// and is kept in localStorage so the next visit opens the same way.

import type { Theme } from "../state/reducer";
import { h } from "./dom";

export const THEME_KEY = "bumplab.theme";
const THEMES: readonly { value: Theme; label: string }[] = [
  { value: "auto", label: "Auto" },
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
];

function isTheme(v: unknown): v is Theme {
  return v === "auto" || v === "light" || v === "dark";
}

/** The stored choice; auto when none (or storage is unavailable, as in some private modes). */
export function storedTheme(storage: Pick<Storage, "getItem"> | null = safeStorage()): Theme {
  const v = storage?.getItem(THEME_KEY);
  return isTheme(v) ? v : "auto";
}

function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}

/** Applies the theme to the page and remembers it. */
export function applyTheme(theme: Theme, root: HTMLElement = document.documentElement): void {
  if (theme === "auto") delete root.dataset["theme"];
  else root.dataset["theme"] = theme;
  try {
    if (theme === "auto") safeStorage()?.removeItem(THEME_KEY);
    else safeStorage()?.setItem(THEME_KEY, theme);
  } catch {
    // Storage full or refused: the theme still applies for this visit.
  }
}

const views = new WeakMap<HTMLElement, Map<Theme, HTMLInputElement>>();

/** Three radio buttons in one group, named "Theme". */
export function renderThemeToggle(container: HTMLElement, theme: Theme, onTheme: (t: Theme) => void): void {
  let inputs = views.get(container);
  if (!inputs) {
    const made = new Map<Theme, HTMLInputElement>();
    const group = h("div", { class: "segmented", role: "radiogroup", "aria-label": "Theme" });
    for (const t of THEMES) {
      const input = h("input", { type: "radio", name: "theme", value: t.value, id: `theme-${t.value}` });
      input.addEventListener("change", () => {
        if (input.checked) onTheme(t.value);
      });
      made.set(t.value, input);
      group.append(h("label", { class: "segment", for: input.id }, input, h("span", {}, t.label)));
    }
    container.replaceChildren(group);
    inputs = made;
    views.set(container, inputs);
  }
  for (const [value, input] of inputs) if (input.checked !== (value === theme)) input.checked = value === theme;
}
