// Figures as files that stand alone: SVG with its computed styles inlined,
// PNG at 2×. (Trace files are traceFile.ts.)

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
    if (inherited && inherited(p) === v && INHERITED.has(p)) continue;
    parts.push(`${p}: ${v}`);
  }
  return parts.join("; ");
}

/** Initial values of the properties that do not inherit: not worth writing. */
const NOT_INHERITED_DEFAULTS: Readonly<Record<string, string>> = { display: "inline", opacity: "1" };

/** Inherited CSS properties (the rest must be written on every element that has them): all but those two. */
const INHERITED = new Set<string>(INLINED_PROPERTIES.filter((p) => !(p in NOT_INHERITED_DEFAULTS)));

const SVG_NS = "http://www.w3.org/2000/svg";

export interface SvgExportOptions {
  /** The file's <title>. */
  title: string;
  /** Painted behind the figure (the page's surface colour), so dark-theme text stays readable. */
  background: string | null;
}

/**
 * A standalone copy of a figure on the page: computed styles inlined, the
 * fading-out elements of a transition left out, a background and a title.
 */
export function standaloneSvg(svg: SVGSVGElement, options: SvgExportOptions): SVGSVGElement {
  const clone = svg.cloneNode(true) as SVGSVGElement;
  const view = svg.ownerDocument.defaultView;
  const originals = [svg, ...svg.querySelectorAll("*")];
  const copies = [clone, ...clone.querySelectorAll("*")];
  originals.forEach((el, i) => {
    const copy = copies[i];
    if (!copy || !view) return;
    const own = view.getComputedStyle(el);
    const parent = el === svg || !el.parentElement ? null : view.getComputedStyle(el.parentElement);
    const style = inlineStyle((p) => own.getPropertyValue(p), parent ? (p) => parent.getPropertyValue(p) : null);
    if (style) copy.setAttribute("style", style);
    else copy.removeAttribute("style");
  });
  for (const gone of clone.querySelectorAll(".block-exit")) gone.remove();
  clone.setAttribute("xmlns", SVG_NS);
  clone.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
  const width = svg.getAttribute("width") ?? String(svg.clientWidth);
  const height = svg.getAttribute("height") ?? String(svg.clientHeight);
  clone.setAttribute("width", width);
  clone.setAttribute("height", height);
  if (!clone.getAttribute("viewBox")) clone.setAttribute("viewBox", `0 0 ${width} ${height}`);
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

/** Saves a blob as a file through a temporary link. */
export function download(blob: Blob, fileName: string): void {
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
}
