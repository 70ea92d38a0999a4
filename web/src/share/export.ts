// Figures as files that stand alone: SVG with its computed styles inlined,
// PNG at 2×. (Trace files are traceFile.ts.)

import { blockColour } from "../views/map/palette";
import { mergeFrames } from "./exportAnimation";
import { appendMapDefs } from "./mapDefs";
import { estimateWidth, SWATCH, type FigureColumn, type LegendItem, type Measure } from "./exportLayout";
import { isInteractiveAttribute, SVG_NS } from "./svgCheck";

// ---- File names --------------------------------------------------------------

/** "bumplab-bumpalo-op-3.svg": the preset and the step, safe on every file system. */
export function exportFileName(what: string, allocator: string, step: number | null, extension: string): string {
  const safe = (s: string): string => s.replace(/[^a-z0-9-]+/gi, "-").replace(/^-+|-+$/g, "").toLowerCase() || "x";
  const parts = ["bumplab", safe(allocator), safe(what)];
  if (step !== null) parts.push(`op-${step}`);
  return `${parts.join("-")}.${extension}`;
}

// ---- SVG ---------------------------------------------------------------------

/**
 * Presentation properties a figure's look depends on. Computed values are
 * copied into each element's style attribute so the file no longer needs the
 * page's stylesheet (its custom properties are resolved by then).
 */
export const INLINED_PROPERTIES = [
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "stroke-linecap",
  "stroke-linejoin",
  "opacity",
  "visibility",
  "display",
  "font-family",
  "font-size",
  "font-weight",
  "font-style",
  "font-variant-numeric",
  "letter-spacing",
  "text-anchor",
  "dominant-baseline",
  "paint-order",
  "shape-rendering",
] as const;

/** A style attribute from computed values; values equal to the inherited ones are left out to keep files small. */
export function inlineStyle(own: (p: string) => string, inherited: ((p: string) => string) | null): string {
  const parts: string[] = [];
  for (const p of INLINED_PROPERTIES) {
    const v = own(p);
    if (v === "" || NOT_INHERITED_DEFAULTS[p] === v) continue;
    // SVG draws an element or not: of display's values only "none" changes the picture.
    if (p === "display" && v !== "none") continue;
    if (inherited && inherited(p) === v && INHERITED.has(p)) continue;
    parts.push(`${p}: ${v}`);
  }
  return parts.join("; ");
}

/** Initial values of the properties that do not inherit: not worth writing. */
const NOT_INHERITED_DEFAULTS: Readonly<Record<string, string>> = { display: "inline", opacity: "1" };

/** Inherited CSS properties (the rest must be written on every element that has them): all but those two. */
const INHERITED = new Set<string>(INLINED_PROPERTIES.filter((p) => !(p in NOT_INHERITED_DEFAULTS)));

export interface SvgExportOptions {
  /** The file's <title>. */
  title: string;
  /** Painted behind the figure (the page's surface colour), so dark-theme text stays readable. */
  background: string | null;
}

/**
 * A copy of a figure on the page that needs nothing of the page: computed
 * styles inlined (class names stay, styled by nothing), every attribute
 * that only means something to a reader interacting with the page removed,
 * the fading-out elements of a transition left out, references between
 * elements made local (`url(#id)`), and its size fixed.
 */
export function cleanCopy(svg: SVGSVGElement): SVGSVGElement {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const view = svg.ownerDocument.defaultView;
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [clone, ...clone.querySelectorAll("*")];
  const hidden: Element[] = [];
  // Each element's values, read once: they are its own and then its children's inherited ones.
  const values = new Map<Element, Map<string, string>>();
  const valuesOf = (el: Element): Map<string, string> => {
    let v = values.get(el);
    if (!v && view) {
      const computed = view.getComputedStyle(el);
      v = new Map(INLINED_PROPERTIES.map((p) => [p, computed.getPropertyValue(p)]));
      values.set(el, v);
    }
    return v ?? new Map();
  };
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy || !view) return;
    const own = valuesOf(el);
    // Drawn nowhere: left out (what a pattern or marker draws in defs is kept, drawn where it is used).
    if (own.get("display") === "none" && GRAPHICS.has(el.localName) && !el.closest("defs")) hidden.push(copy);
    const parent = el === svg || !el.parentElement ? null : valuesOf(el.parentElement);
    const style = localUrls(inlineStyle((p) => own.get(p) ?? "", parent ? (p) => parent.get(p) ?? "" : null));
    if (style) copy.setAttribute("style", style);
    else copy.removeAttribute("style");
    for (const name of copy.getAttributeNames()) {
      if (isInteractiveAttribute(name)) copy.removeAttribute(name);
      else {
        const value = copy.getAttribute(name) ?? "";
        const local = value.includes("url(") ? localUrls(value) : value;
        const short = GEOMETRY.has(name) ? roundCoordinates(local) : local;
        if (short !== value) copy.setAttribute(name, short);
      }
    }
  });
  for (const gone of hidden) gone.remove();
  for (const gone of clone.querySelectorAll(".block-exit, .chunk-row-exit")) gone.remove();
  clone.setAttribute("xmlns", SVG_NS);
  const width = svg.getAttribute("width") ?? String(svg.clientWidth);
  // A map keeps its svg taller than its rows while a run can add some: the figure is the rows.
  const content = svg.getAttribute("data-content-height");
  const height = content ?? svg.getAttribute("height") ?? String(svg.clientHeight);
  clone.setAttribute("width", width);
  clone.setAttribute("height", height);
  if (content !== null || !clone.getAttribute("viewBox")) clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
  clone.removeAttribute("data-content-height");
  return clone;
}

/** Elements that draw: one whose display is none is left out of a copy. */
const GRAPHICS = new Set(["g", "rect", "line", "path", "text", "circle", "polyline", "polygon"]);

/** Attributes holding coordinates, written to a hundredth of a pixel. */
const GEOMETRY = new Set(["x", "y", "width", "height", "x1", "x2", "y1", "y2", "cx", "cy", "r", "rx", "ry", "dx", "dy", "d", "points", "transform"]);

/**
 * Numbers in `value` to two decimals: d3 writes coordinates to seventeen
 * digits, and an animation repeats them in every frame; a hundredth of a
 * pixel draws the same.
 */
export function roundCoordinates(value: string): string {
  return value.replace(/-?\d*\.\d{3,}(e-?\d+)?/g, (n) => String(Math.round(Number(n) * 100) / 100));
}

/** `url("http://host/page#bl-hatch")` (how a browser may compute a reference) as `url(#bl-hatch)`. */
export function localUrls(value: string): string {
  return value.replace(/url\(\s*["']?[^"')#]*#([^"')]+)["']?\s*\)/g, "url(#$1)");
}

/**
 * A standalone copy of a chart on the page (cleanCopy) with a background
 * and a title.
 */
export function standaloneSvg(svg: SVGSVGElement, options: SvgExportOptions): SVGSVGElement {
  const clone = cleanCopy(svg);
  clone.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
  const doc = svg.ownerDocument;
  const title = doc.createElementNS(SVG_NS, "title");
  title.textContent = options.title;
  clone.insertBefore(title, clone.firstChild);
  if (options.background) {
    const bg = doc.createElementNS(SVG_NS, "rect");
    bg.setAttribute("width", "100%");
    bg.setAttribute("height", "100%");
    bg.setAttribute("fill", options.background);
    bg.setAttribute("class", "export-background");
    title.after(bg);
  }
  return clone;
}

// ---- Maps as parts of a composed figure ---------------------------------------

/**
 * A map made standalone as one column of a composed figure, its definitions
 * (patterns, clip paths, markers) taken out to be written once at the top of
 * the file: a frame of an animation that is hidden still lends them. Ids get
 * `idPrefix`, so several maps in one file keep their own.
 */
export function mapColumn(svg: SVGSVGElement, name: string | null, idPrefix: string): { column: FigureColumn; defs: string } {
  const copy = cleanCopy(svg);
  if (idPrefix) prefixIds(copy, idPrefix);
  const serializer = new XMLSerializer();
  const defs = [...copy.querySelectorAll(":scope > defs")]
    .map((d) => {
      const text = [...d.children].map((c) => serializer.serializeToString(c)).join("");
      d.remove();
      return text;
    })
    .join("");
  const column: FigureColumn = {
    name,
    svg: serializer.serializeToString(copy),
    width: Number(copy.getAttribute("width")) || 0,
    height: Number(copy.getAttribute("height")) || 0,
  };
  return { column, defs };
}

/** Renames every id in `root` to `prefix + id`, and every local reference to one. */
function prefixIds(root: Element, prefix: string): void {
  const ids = new Set<string>();
  for (const el of [root, ...root.querySelectorAll("[id]")]) {
    const id = el.getAttribute("id");
    if (id === null) continue;
    ids.add(id);
    el.setAttribute("id", prefix + id);
  }
  for (const el of [root, ...root.querySelectorAll("*")]) {
    for (const name of el.getAttributeNames()) {
      const value = el.getAttribute(name) ?? "";
      const renamed = value
        .replace(/url\(#([^)]+)\)/g, (all, id: string) => (ids.has(id) ? `url(#${prefix}${id})` : all))
        .replace(/^#(.+)$/, (all, id: string) => (name.endsWith("href") && ids.has(id) ? `#${prefix}${id}` : all));
      if (renamed !== value) el.setAttribute(name, renamed);
    }
  }
}

/** What a map draws that the legend names only when it is there. */
export interface LegendPresence {
  /** A chunk header or footer (chunk metadata). */
  meta: boolean;
  /** A block a moved realloc left behind. */
  leaked: boolean;
}

export function presenceIn(svg: Element): LegendPresence {
  return { meta: svg.querySelector("g.meta") !== null, leaked: svg.querySelector("g.block.is-leaked") !== null };
}

export const anyPresent = (list: readonly LegendPresence[]): LegendPresence => ({
  meta: list.some((p) => p.meta),
  leaked: list.some((p) => p.leaked),
});

/** An SVG element with attributes and children. */
function svgEl(doc: Document, name: string, attrs: Record<string, string | number>, ...children: Element[]): SVGElement {
  const el = doc.createElementNS(SVG_NS, name) as SVGElement;
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  el.append(...children);
  return el;
}

/** The legend's entries, each swatch drawn with the map's own classes so the page's stylesheet paints it. */
function legendSpecs(doc: Document, presence: LegendPresence): { label: string; swatch: Element[] }[] {
  const w = SWATCH.width;
  const hgt = SWATCH.height;
  const body = (cls: string, x: number, width: number, colour: number): Element => {
    const c = blockColour(colour);
    return svgEl(
      doc,
      "g",
      { class: `block ${cls}`, style: `--block-fill: ${c.fill}; --block-ink: ${c.ink}` },
      svgEl(doc, "rect", { class: "body", x, y: 0.5, width, height: hgt - 1, rx: 2 }),
    );
  };
  const specs = [
    { label: "block (a colour per op)", swatch: [body("is-live", 0.5, w / 2 - 0.5, 0), body("is-live", w / 2, w / 2 - 0.5, 1)] },
    { label: "block of the current op", swatch: [body("is-live is-current", 1, w - 2, 0)] },
    { label: "padding (hatched: skipped for alignment)", swatch: [svgEl(doc, "g", { class: "block is-live" }, svgEl(doc, "rect", { class: "pad", width: w, height: hgt }))] },
    { label: "freed block (dead bytes)", swatch: [body("is-freed", 0.5, w - 1, 0)] },
  ];
  if (presence.leaked) specs.push({ label: "left behind by a moved realloc", swatch: [body("is-leaked", 0.5, w - 1, 0)] });
  specs.push({
    label: "free bytes of the chunk",
    swatch: [
      svgEl(doc, "rect", { class: "chunk-free", width: w, height: hgt }),
      svgEl(doc, "rect", { class: "chunk-outline", x: 0.5, y: 0.5, width: w - 1, height: hgt - 1 }),
    ],
  });
  if (presence.meta) {
    specs.push({ label: "chunk header/footer (striped: metadata)", swatch: [svgEl(doc, "g", { class: "meta" }, svgEl(doc, "rect", { class: "meta-body", width: w, height: hgt }))] });
  }
  specs.push({
    label: "bump pointer",
    swatch: [
      svgEl(
        doc,
        "g",
        { class: "bump-pointer" },
        svgEl(doc, "line", { class: "ptr-line", x1: w / 2, x2: w / 2, y1: 6, y2: hgt }),
        svgEl(doc, "path", { class: "ptr-head", d: `M${w / 2 - 5},1 h10 l-5,6 z` }),
      ),
    ],
  });
  return specs;
}

/** The figure's text colours and font, as the map's own classes compute them. */
export interface FigureLook {
  text: string;
  muted: string;
  link: string;
  font: string;
  /** Text widths in that font, from a canvas (an estimate where there is none). */
  measure: Measure;
}

/** Measures text in `font` with a canvas, a little wide so a viewer's fallback font still fits. */
function canvasMeasure(doc: Document, font: string): Measure {
  const ctx = doc.createElement("canvas").getContext("2d");
  if (!ctx) return estimateWidth;
  return (text, size, bold) => {
    ctx.font = `${bold ? 700 : 400} ${size}px ${font}`;
    return ctx.measureText(text).width * 1.04;
  };
}

/**
 * The legend for maps showing `presence`, drawn by the page's stylesheet in
 * a scratch map (so its colours and hatching are the map's own, in the
 * current theme), and the colours the figure's text takes from the same
 * classes.
 */
export function figureLegend(doc: Document, presence: LegendPresence, styleRoot: Element = doc.body): { legend: LegendItem[]; look: FigureLook } {
  const host = doc.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.style.cssText = "position: fixed; left: -100000px; top: 0;";
  const specs = legendSpecs(doc, presence);
  const text = (cls: string): Element => svgEl(doc, "text", { class: cls });
  const svg = svgEl(
    doc,
    "svg",
    { class: "memory-map", width: SWATCH.width, height: SWATCH.height },
    ...specs.map((spec) => svgEl(doc, "g", { class: "legend-swatch" }, ...spec.swatch)),
    text("callout-text"),
    text("row-title"),
    svgEl(doc, "g", { class: "chunk-row is-current" }, text("row-fill")),
  ) as SVGSVGElement;
  // The swatches' hatch and stripes: patterns of the scratch map's own, each
  // written into the swatch that uses it, so the legend stands alone in a file.
  const defs = svgEl(doc, "defs", {});
  svg.prepend(defs);
  appendMapDefs(svg, defs);
  host.append(svg);
  styleRoot.append(host);
  try {
    const fill = (selector: string): string => {
      const el = svg.querySelector(selector);
      return el ? getComputedStyle(el).fill : "currentColor";
    };
    const font = getComputedStyle(svg).fontFamily;
    const look: FigureLook = {
      text: fill("text.callout-text"),
      muted: fill("text.row-title"),
      link: fill("text.row-fill"),
      font,
      measure: canvasMeasure(doc, font),
    };
    const copy = cleanCopy(svg);
    const serializer = new XMLSerializer();
    const patterns = [...copy.querySelectorAll(":scope > defs > pattern")];
    const legend = [...copy.querySelectorAll(":scope > g.legend-swatch")].map((g, i) => {
      const swatch = [...g.children].map((c) => serializer.serializeToString(c)).join("");
      const used = patterns.filter((p) => swatch.includes(`url(#${p.id})`));
      const defsText = used.length > 0 ? `<defs>${used.map((p) => serializer.serializeToString(p)).join("")}</defs>` : "";
      return { label: specs[i]?.label ?? "", swatch: defsText + swatch };
    });
    return { legend, look };
  } finally {
    host.remove();
  }
}

/**
 * Each of `steps` drawn by `draw` into a scratch container `width` px wide
 * off the page, made standalone, and merged into one map that animates
 * through them (exportAnimation.ts). `progress` hears of each step drawn.
 */
export async function animatedMap(
  doc: Document,
  steps: readonly number[],
  width: number,
  draw: (container: HTMLElement, step: number) => void,
  progress: (done: number) => void,
): Promise<{ column: FigureColumn; defs: string; presence: LegendPresence }> {
  const host = doc.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.setAttribute("inert", "");
  host.style.cssText = `position: fixed; left: -100000px; top: 0; width: ${Math.round(width)}px;`;
  doc.body.append(host);
  const frames: SVGSVGElement[] = [];
  const seen: LegendPresence[] = [];
  let defs = "";
  try {
    for (const [k, step] of steps.entries()) {
      draw(host, step);
      await transitionsDone(host);
      const svg = host.querySelector<SVGSVGElement>("svg.memory-map");
      if (!svg) throw new Error(`op ${step} drew no map`);
      seen.push(presenceIn(svg));
      const copy = cleanCopy(svg);
      // One scratch map draws every frame: their definitions are the same, written once.
      for (const d of copy.querySelectorAll(":scope > defs")) {
        if (k === 0) defs = [...d.children].map((c) => new XMLSerializer().serializeToString(c)).join("");
        d.remove();
      }
      frames.push(copy);
      progress(k + 1);
    }
  } finally {
    host.remove();
  }
  const merged = mergeFrames(frames);
  return { column: { name: null, svg: merged.svg, width: merged.width, height: merged.height }, defs, presence: anyPresent(seen) };
}

/**
 * Waits for the transitions under `root` to end. An unanimated render still
 * moves some elements (the bump pointer, the used bytes) through d3
 * transitions of zero duration, which d3 applies on its next frames: d3
 * marks a node with `__transition` until then.
 */
export async function transitionsDone(root: Element): Promise<void> {
  const pending = (): boolean => [root, ...root.querySelectorAll("*")].some((el) => "__transition" in el);
  const frame = (): Promise<void> =>
    new Promise((resolve) => (typeof requestAnimationFrame === "function" ? requestAnimationFrame(() => resolve()) : setTimeout(resolve, 16)));
  for (let i = 0; i < 20 && pending(); i++) await frame();
}

/** Bytes of `text` as UTF-8: what the file will weigh. */
export const utf8Bytes = (text: string): number => new TextEncoder().encode(text).length;

/** The file's text: an XML declaration and the serialised element. */
export function svgFileText(svg: SVGSVGElement): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(svg)}\n`;
}

/** Pixel size of a PNG export: `scale`× the figure, whole pixels, at least 1. */
export function pngSize(width: number, height: number, scale = 2): { width: number; height: number } {
  const px = (n: number): number => Math.max(1, Math.round((Number.isFinite(n) ? n : 0) * scale));
  return { width: px(width), height: px(height) };
}

/** Renders SVG text into a PNG through a canvas (the browser rasterises it, fonts and all). */
export async function svgToPng(svgText: string, width: number, height: number, scale = 2): Promise<Blob> {
  // A data: URL, not an object URL: nothing to revoke, and the page makes no
  // request for it (a blob: URL is fetched like any other resource).
  const url = `data:image/svg+xml;charset=utf-8,${encodeURIComponent(svgText)}`;
  const image = new Image();
  image.decoding = "async";
  image.src = url;
  await image.decode();
  const size = pngSize(width, height, scale);
  const canvas = document.createElement("canvas");
  canvas.width = size.width;
  canvas.height = size.height;
  const ctx = canvas.getContext("2d");
  if (!ctx) throw new Error("this browser gives no 2D canvas");
  ctx.drawImage(image, 0, 0, size.width, size.height);
  return await new Promise<Blob>((resolve, reject) =>
    canvas.toBlob((b) => (b ? resolve(b) : reject(new Error("the canvas gave no PNG"))), "image/png"),
  );
}

/**
 * The least time between two downloads the page starts. WebKit (Safari)
 * starts a download as a navigation of the page and turns it into a
 * download only after the response arrives; a second download started
 * before then cancels the first, so of two started in one task, a
 * microtask or a setTimeout(0) apart, only the last file arrives. 10 ms
 * apart both arrived in WebKitGTK 2.50 on a quiet machine: this leaves room
 * for a busy one.
 */
export const DOWNLOAD_GAP_MS = 400;

/** When the last download started (performance.now()), and the queue of those waiting their turn. */
let lastDownload = -Infinity;
let downloads: Promise<void> = Promise.resolve();

/**
 * Saves a blob as a file through a temporary link, at least DOWNLOAD_GAP_MS
 * after the page's previous download; settles once the link is clicked.
 */
export function download(blob: Blob, fileName: string): Promise<void> {
  const turn = downloads.then(async () => {
    const wait = lastDownload + DOWNLOAD_GAP_MS - performance.now();
    if (wait > 0) await new Promise((resolve) => window.setTimeout(resolve, wait));
    lastDownload = performance.now();
    const url = URL.createObjectURL(blob);
    const a = document.createElement("a");
    a.href = url;
    a.download = fileName;
    a.rel = "noopener";
    a.style.display = "none";
    document.body.append(a);
    a.click();
    a.remove();
    // Revoked after the click has been handled: some browsers read the URL late.
    window.setTimeout(() => URL.revokeObjectURL(url), 10_000);
  });
  downloads = turn;
  return turn;
}
