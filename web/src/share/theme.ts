// Themes for embeds: the page (or host) may ask for light, dark or auto
// (follow the system). styles.css switches color-scheme on data-theme, and
// every colour is light-dark(), so setting the attribute is the whole switch.

export type EmbedTheme = "light" | "dark" | "auto";

export function parseTheme(value: unknown): EmbedTheme | null {
  return value === "light" || value === "dark" || value === "auto" ? value : null;
}

export function setTheme(el: HTMLElement, theme: EmbedTheme): void {
  if (theme === "auto") delete el.dataset["theme"];
  else el.dataset["theme"] = theme;
}

/** The messages an embed accepts from its host page, checked field by field. */
export type HostMessage = { type: "bumplab:theme"; theme: EmbedTheme };

export function parseHostMessage(data: unknown): HostMessage | null {
  if (typeof data !== "object" || data === null) return null;
  const d = data as Record<string, unknown>;
  if (d["type"] !== "bumplab:theme") return null;
  const theme = parseTheme(d["theme"]);
  return theme ? { type: "bumplab:theme", theme } : null;
}

/** The message an embed posts to its host when its content height changes. */
export interface ResizeMessage {
  type: "bumplab:resize";
  height: number;
}

export function resizeMessage(height: number): ResizeMessage {
  return { type: "bumplab:resize", height: Math.max(0, Math.ceil(height)) };
}

/** Whether `data` is an embed's resize message (a finite, non-negative height). */
export function isResizeMessage(data: unknown): data is ResizeMessage {
  if (typeof data !== "object" || data === null) return false;
  const d = data as Record<string, unknown>;
  return d["type"] === "bumplab:resize" && typeof d["height"] === "number" && Number.isFinite(d["height"]) && d["height"] >= 0;
}
