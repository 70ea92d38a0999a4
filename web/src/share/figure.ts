// A run's memory map (or compare's maps) composed as a standalone figure:
// title, maps, legend, caption and an "Open live" link (exportLayout.ts),
// from the maps a page or a <bump-lab> element has drawn. The Share panel's
// exports and the element's `exportFigure` (which `bumplab figure` calls in a
// headless browser) both come through here, so a figure from the command
// line is the page's own.

import type { TraceView as Run } from "../wasm/traceView";
import { lineOf } from "../wasm/traceView";
import { clampStep } from "../model/step";
import { describeStep } from "../model/describe";
import { bytes } from "../model/format";
import { anyPresent, figureLegend, mapColumn, presenceIn, transitionsDone, type FigureLook } from "./export";
import { composeFigure, type ComposedFigure, type FigureInput } from "./exportLayout";
import type { SharedState } from "./link";

export const targetName = (t: string): string => (t === "64" ? "64-bit" : t);

/** The program's line for the op that step `step` shows, or null at step 0 (or when the line is not in the program text). */
export function opText(state: SharedState, trace: Run, step: number): string | null {
  if (step <= 0) return null;
  const line = state.source.split("\n")[lineOf(trace, step - 1) - 1]?.trim();
  return line ? line : null;
}

/** "op 3 / 6: c = alloc 24 align 16", or "before the first op". */
export function stepText(state: SharedState, trace: Run, step: number): string {
  const text = opText(state, trace, step);
  return `op ${step} / ${trace.length}${text ? `: ${text}` : ", before the first op"}`;
}

/** "chunk capacity 464 bytes (its default)": the capacity chosen, or the first chunk's when the allocator's default. */
export function capacityText(state: SharedState, trace: Run): string {
  const first = trace.chunks[0]?.capacity;
  const capacity = state.capacity !== null ? bytes(state.capacity) : first !== undefined ? `${bytes(first)} (its default)` : "its default";
  return `chunk capacity ${capacity}`;
}

/** What a figure says under the map: allocator, target, capacity, step, and what the op did. */
export function captionOf(state: SharedState, trace: Run, step: number): string {
  return `${trace.allocator} on ${targetName(trace.target)}, ${capacityText(state, trace)}; op ${step} of ${trace.length}: ${describeStep(trace, step)}`;
}

/** The maps drawn under `root`: compare's columns (named by their headings) or the single map. */
export function drawnMaps(root: ParentNode, comparing: boolean, single = "svg.memory-map"): { svg: SVGSVGElement; name: string | null }[] {
  if (comparing) {
    const columns = [...root.querySelectorAll<HTMLElement>(".compare-column")].filter((c) => !c.closest("[hidden]") && !c.classList.contains("has-error"));
    const maps = columns.flatMap((c) => {
      const svg = c.querySelector<SVGSVGElement>("svg.memory-map");
      const name = c.querySelector(".compare-col-title")?.textContent?.trim() || c.dataset["allocator"] || null;
      return svg ? [{ svg, name }] : [];
    });
    if (maps.length > 0) return maps;
  }
  const svg = root.querySelector<SVGSVGElement>(single);
  return svg ? [{ svg, name: null }] : [];
}

/**
 * The surface colour behind `el`, painted behind the figure so dark-theme
 * text stays readable: its panel's on the page, else the first colour painted
 * behind it (out through a shadow root to its host), else the page's.
 */
export function surfaceOf(el: Element): string | null {
  const transparent = (c: string): boolean => !c || c === "rgba(0, 0, 0, 0)" || c === "transparent";
  const panel = el.closest(".panel");
  if (panel) {
    const c = getComputedStyle(panel).backgroundColor;
    if (!transparent(c)) return c;
  } else {
    for (let at: Element | null = el; at; ) {
      const c = getComputedStyle(at).backgroundColor;
      if (!transparent(c)) return c;
      const rootNode = at.getRootNode();
      at = at.parentElement ?? (rootNode instanceof ShadowRoot ? rootNode.host : null);
    }
  }
  const body = getComputedStyle(el.ownerDocument.body).backgroundColor;
  return transparent(body) ? null : body;
}

/** The figure's parts composed in a look (colours, font and its measure). */
export function composeInLook(
  parts: Omit<FigureInput, "colours" | "font" | "measure">,
  look: FigureLook,
  background: string | null,
): ComposedFigure {
  return composeFigure({ ...parts, colours: { background, text: look.text, muted: look.muted, link: look.link }, font: look.font, measure: look.measure });
}

/** A figure's theme: the page's own (auto), or light or dark whatever the page shows. */
export type FigureTheme = "auto" | "light" | "dark";

/**
 * Runs `read` with the page (or an element's shadow root) in `theme`:
 * `root` is the page's root or the element's host, whose data-theme
 * styles.css switches (its colours are light-dark() of the color-scheme it
 * sets there). Synchronous, so the page never paints in the other theme.
 */
export function inTheme<T>(root: HTMLElement, theme: FigureTheme, read: () => T): T {
  if (theme === "auto") return read();
  const before = root.dataset["theme"];
  root.dataset["theme"] = theme;
  try {
    return read();
  } finally {
    if (before === undefined) delete root.dataset["theme"];
    else root.dataset["theme"] = before;
  }
}

/** The element whose data-theme themes `el`: the shadow root's host for an element's map, else the page's root. */
export function themeRoot(el: Element): HTMLElement {
  const root = el.getRootNode();
  return root instanceof ShadowRoot ? (root.host as HTMLElement) : el.ownerDocument.documentElement;
}

/**
 * Puts a scratch container (drawn off the page, over several frames) in
 * `theme` without switching the page's: the stylesheet's custom properties
 * as the theme computes them at the root, set on the container, which its
 * children inherit.
 */
export function themeContainer(container: HTMLElement, theme: FigureTheme): void {
  if (theme === "auto") return;
  const root = container.ownerDocument.documentElement;
  const values = inTheme(root, theme, () => {
    const computed = getComputedStyle(root);
    return [...computed].filter((p) => p.startsWith("--")).map((p) => [p, computed.getPropertyValue(p)] as const);
  });
  for (const [p, v] of values) container.style.setProperty(p, v);
  container.style.colorScheme = theme;
}

export interface MapFigureOptions {
  /** The "Open live" link. */
  link: string;
  /** Where the legend's scratch map is drawn, so the same stylesheet paints it (a shadow root's mount; the page's body by default). */
  styleRoot?: Element;
  /** The writer's caption, said before the figure's own. */
  caption?: string | null;
  /** The figure's theme (default: the page's). */
  theme?: FigureTheme;
}

/**
 * The maps drawn under `root` for `state` (compare's columns when it
 * compares) as a composed figure, titled with every allocator it shows, or
 * null when none is drawn.
 */
export async function mapFigure(root: ParentNode, state: SharedState, trace: Run, options: MapFigureOptions): Promise<ComposedFigure | null> {
  const maps = drawnMaps(root, state.compare !== null, root instanceof Document ? "#memory-map svg.memory-map" : "svg.memory-map");
  const first = maps[0];
  if (!first) return null;
  const step = clampStep(trace, state.step);
  // A step taken just before is still gliding into place: the figure is of where it lands.
  for (const m of maps) await transitionsDone(m.svg);
  const doc = first.svg.ownerDocument;
  const { parts, legend, look, background } = inTheme(themeRoot(first.svg), options.theme ?? "auto", () => ({
    parts: maps.map((m, i) => mapColumn(m.svg, m.name, i === 0 ? "" : `c${i + 1}-`)),
    ...figureLegend(doc, anyPresent(maps.map((m) => presenceIn(m.svg))), options.styleRoot),
    background: surfaceOf(first.svg),
  }));
  const comparing = state.compare !== null && maps.length > 1;
  const names = maps.map((m) => m.name ?? trace.allocator);
  const who = comparing ? names.join(" vs ") : `${trace.allocator}, ${targetName(trace.target)}`;
  const own = comparing ? `Compared: ${names.join(", ")}; op ${step} of ${trace.length}${opText(state, trace, step) ? `: ${opText(state, trace, step)}` : ""}` : captionOf(state, trace, step);
  const caption = options.caption ? `${options.caption} (${own})` : own;
  return composeInLook(
    {
      title: `Bump Lab: ${who}, ${stepText(state, trace, step)}`,
      link: options.link,
      columns: parts.map((p) => p.column),
      captions: [caption],
      legend,
      defs: parts.map((p) => p.defs).join(""),
    },
    look,
    background,
  );
}
