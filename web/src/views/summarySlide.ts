// Compare's one-slide summary for a lecture: the slide (model/summarySlide.ts)
// drawn as one SVG, so what the room sees is the file the Save buttons write.
// Its colours are the page's theme, read when it is drawn and written into
// the SVG as attributes: the saved file looks as the slide did.

import type { SlideCell, SummarySlide } from "../model/summarySlide";
import { download, svgFileText, svgToPng } from "../share/export";
import { h, setText } from "./dom";

const SVG_NS = "http://www.w3.org/2000/svg";
const LABEL_W = 300;
const COLUMN_W = 230;
const ROW_H = 34;
const TITLE_H = 64;
const PAD = 20;

interface Palette {
  text: string;
  muted: string;
  surface: string;
  accent: string;
  border: string;
  band: string;
}

function palette(): Palette {
  const css = getComputedStyle(document.documentElement);
  const v = (name: string, fallback: string): string => css.getPropertyValue(name).trim() || fallback;
  return {
    text: v("--text", "#111111"),
    muted: v("--muted", "#555555"),
    surface: v("--surface", "#ffffff"),
    accent: v("--accent", "#1f5fbf"),
    border: v("--border", "#999999"),
    band: v("--surface-2", "#f0f2f5"),
  };
}

function el<K extends keyof SVGElementTagNameMap>(name: K, attrs: Record<string, string | number>, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A cell's words: "20 instr · 2 br", with the padding it skipped. */
export function cellText(c: SlideCell | null): string {
  if (c === null) return "—";
  if (c.failed) return "out of memory";
  const parts = [c.instructions === null ? "not measured" : `${c.instructions} instr`];
  if (c.branches !== null) parts.push(`${c.branches} br`);
  if (c.padding !== null && c.padding > 0) parts.push(`${c.padding} B pad`);
  return parts.join(" · ");
}

/** The slide as an SVG element, in `colours`. */
export function slideSvg(slide: SummarySlide, colours: Palette): SVGSVGElement {
  // Each column as wide as its longest words (about 0.6 em a character at 17 to 18 px, bold a little wider).
  const textWidth = (text: string, size: number): number => Math.ceil(text.length * size * 0.62);
  const widths = slide.columns.map((label, i) =>
    Math.max(
      COLUMN_W,
      textWidth(label, 18) + 16,
      ...slide.rows.map((r) => textWidth(`▼ ${cellText(r.cells[i] ?? null)}`, 17) + 16),
      ...slide.totals.map((t) => textWidth(`▼ ${t.values[i] ?? "—"}`, 17) + 16),
    ),
  );
  const labelW = Math.max(LABEL_W, ...slide.rows.map((r) => Math.ceil(`${r.index + 1}. ${r.statement}`.length * 17 * 0.62) + 16));
  const width = PAD * 2 + labelW + widths.reduce((a, b) => a + b, 0);
  const bodyTop = TITLE_H + ROW_H;
  const totalsTop = bodyTop + ROW_H * slide.rows.length + 12;
  const height = totalsTop + ROW_H * slide.totals.length + PAD;
  const svg = el("svg", { xmlns: SVG_NS, viewBox: `0 0 ${width} ${height}`, width, height, role: "img", class: "summary-slide-svg", "font-family": "system-ui, sans-serif" });
  svg.setAttribute("aria-label", `Summary slide: ${slide.subtitle}`);
  svg.append(el("rect", { x: 0, y: 0, width, height, fill: colours.surface }));
  svg.append(el("text", { x: PAD, y: 34, "font-size": 26, "font-weight": 700, fill: colours.text }, "Per op, per allocator: wasm instructions · branches · padding"));
  svg.append(el("text", { x: PAD, y: 56, "font-size": 16, fill: colours.muted }, slide.subtitle));
  const colX = (i: number): number => PAD + labelW + widths.slice(0, i).reduce((a, b) => a + b, 0);
  slide.columns.forEach((label, i) => {
    svg.append(el("text", { x: colX(i) + 8, y: TITLE_H + 24, "font-size": 18, "font-weight": 700, fill: colours.text, class: "summary-col" }, label));
  });
  svg.append(el("line", { x1: PAD, x2: width - PAD, y1: bodyTop, y2: bodyTop, stroke: colours.border, "stroke-width": 1.5 }));
  slide.rows.forEach((row, r) => {
    const y = bodyTop + ROW_H * r;
    const g = el("g", { class: "summary-row", "data-op": row.index + 1 });
    if (row.current) g.append(el("rect", { x: PAD, y, width: width - 2 * PAD, height: ROW_H, fill: colours.band, class: "summary-current" }));
    g.append(el("text", { x: PAD + 6, y: y + 23, "font-size": 17, "font-family": "ui-monospace, monospace", fill: colours.text }, `${row.index + 1}. ${row.statement}`));
    row.cells.forEach((cell, i) => {
      const fewest = row.fewest.includes(i);
      g.append(
        el(
          "text",
          { x: colX(i) + 8, y: y + 23, "font-size": 17, "font-weight": fewest ? 700 : 400, fill: fewest ? colours.accent : colours.text, class: "summary-cell", "data-column": i },
          `${fewest ? "▼ " : ""}${cellText(cell)}`,
        ),
      );
    });
    svg.append(g);
  });
  svg.append(el("line", { x1: PAD, x2: width - PAD, y1: totalsTop - 6, y2: totalsTop - 6, stroke: colours.border, "stroke-width": 1.5 }));
  slide.totals.forEach((t, r) => {
    const y = totalsTop + ROW_H * r;
    const g = el("g", { class: "summary-total", "data-total": t.label });
    g.append(el("text", { x: PAD + 6, y: y + 23, "font-size": 17, "font-weight": 700, fill: colours.text }, t.label));
    t.values.forEach((v, i) => {
      const least = t.least.includes(i);
      g.append(
        el(
          "text",
          { x: colX(i) + 8, y: y + 23, "font-size": 17, "font-weight": least ? 700 : 400, fill: least ? colours.accent : colours.text, class: "summary-cell", "data-column": i },
          `${least ? "▼ " : ""}${v === null ? "—" : v.toLocaleString("en-US")}`,
        ),
      );
    });
    svg.append(g);
  });
  return svg;
}

export interface SummarySlideHandlers {
  onClose(): void;
}

interface Refs {
  root: HTMLElement;
  figure: HTMLElement;
  note: HTMLElement;
  svg: SVGSVGElement | null;
  key: string | null;
  handlers: SummarySlideHandlers;
}

const views = new WeakMap<HTMLElement, Refs>();

function build(mount: HTMLElement, handlers: SummarySlideHandlers): Refs {
  const close = h("button", { type: "button", class: "compare-button" }, "Back to the columns");
  const saveSvg = h("button", { type: "button", class: "compare-button" }, "Save SVG");
  const savePng = h("button", { type: "button", class: "compare-button" }, "Save PNG");
  const note = h("p", { class: "summary-slide-note", role: "status" });
  const figure = h("div", { class: "summary-slide-figure" });
  const root = h(
    "section",
    { class: "summary-slide", "aria-label": "Summary slide" },
    h("div", { class: "summary-slide-actions" }, close, saveSvg, savePng),
    figure,
    note,
  );
  mount.replaceChildren(root);
  const refs: Refs = { root, figure, note, svg: null, key: null, handlers };
  close.addEventListener("click", () => refs.handlers.onClose());
  saveSvg.addEventListener("click", () => {
    if (!refs.svg) return;
    void download(new Blob([svgFileText(refs.svg)], { type: "image/svg+xml" }), "bump-lab-summary.svg");
  });
  savePng.addEventListener("click", () => {
    const svg = refs.svg;
    if (!svg) return;
    const w = Number(svg.getAttribute("width"));
    const ht = Number(svg.getAttribute("height"));
    svgToPng(svgFileText(svg), w, ht)
      .then((png) => download(png, "bump-lab-summary.png"))
      .catch((error: unknown) => setText(refs.note, `The PNG was not made: ${error instanceof Error ? error.message : String(error)}.`));
  });
  return refs;
}

/** Draws `slide` in `mount` (redrawn only when it or the theme changes). */
export function renderSummarySlide(mount: HTMLElement, slide: SummarySlide, theme: string, handlers: SummarySlideHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root)) {
    refs = build(mount, handlers);
    views.set(mount, refs);
  }
  refs.handlers = handlers;
  const key = JSON.stringify([slide, theme, document.documentElement.className]);
  if (key === refs.key) return;
  refs.key = key;
  refs.svg = slideSvg(slide, palette());
  refs.figure.replaceChildren(refs.svg);
}
