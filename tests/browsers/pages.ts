// Functions the journeys run inside the page (Tab.run, Tab.click): each is
// sent as its source text, so it may use only its arguments and the page's
// globals, never a name from this module.

/**
 * The first visible element matching `selector` whose accessible name
 * (aria-labelledby's text, aria-label, else its own text, trimmed) is `name`
 * (any, if null), in the document or in the shadow root of the element
 * `host` selects.
 */
export function named(selector: string, name: string | null, host: string | null = null): Element | null {
  const root = host === null ? document : document.querySelector(host)?.shadowRoot;
  if (!root) return null;
  for (const el of root.querySelectorAll(selector)) {
    const by = el.getAttribute("aria-labelledby");
    const labelled = by === null ? null : by.split(" ").map((id) => (root.querySelector(`[id="${id}"]`)?.textContent ?? "").trim()).join(" ");
    const own = labelled ?? el.getAttribute("aria-label") ?? el.textContent ?? "";
    const shown = (el as HTMLElement).checkVisibility?.() ?? true;
    if ((name === null || own.trim() === name) && shown) return el;
  }
  return null;
}

/** Text of the first element matching `selector` (in `host`'s shadow root if given), or null. */
export function textOf(selector: string, host: string | null = null): string | null {
  const root = host === null ? document : document.querySelector(host)?.shadowRoot;
  return root?.querySelector(selector)?.textContent?.trim() ?? null;
}

/** The accessible names (aria-label) of the blocks a map draws, sorted (a bump-down map draws its newest first). */
export function blockLabels(scope: string, host: string | null = null): string[] {
  const root = host === null ? document : document.querySelector(host)?.shadowRoot;
  return [...(root?.querySelectorAll(`${scope} svg.memory-map g[data-block]`) ?? [])].map((g) => g.getAttribute("aria-label") ?? "").sort();
}

/** Empties the program editor's textarea (as selecting all and deleting would), so typing starts afresh. */
export function clearProgram(): void {
  const area = document.querySelector<HTMLTextAreaElement>("textarea#program");
  if (!area) throw new Error("no program textarea");
  area.value = "";
  area.dispatchEvent(new Event("input", { bubbles: true }));
}

/** The wasm files the page fetched, by file name, with how many times each (Resource Timing). */
export function wasmFetches(): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const e of performance.getEntriesByType("resource")) {
    const file = /[^/]+\.wasm$/.exec(new URL(e.name).pathname)?.[0];
    if (file) counts[file] = (counts[file] ?? 0) + 1;
  }
  return counts;
}
