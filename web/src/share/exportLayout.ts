// The composition of an exported figure, as SVG text: a title, the map (or
// compare's maps side by side, each under its allocator's name), a legend, a
// caption and an "Open live" link, inside margins. Pure string work over
// parts the page has already made standalone (export.ts), so the layout can
// be checked without a browser. With more than one frame the file is an
// animation: each frame's maps and caption are shown in turn by SMIL, which
// runs in hosts that run no scripts.

/** Blank space on every side of the figure, in px. */
export const FIGURE_MARGIN = 24;
/** Between compare's columns, and between the map and what follows it. */
const GAP = 16;
const TITLE_SIZE = 16;
const NAME_SIZE = 13;
const TEXT_SIZE = 12;
const LINE = 1.4;
/** A legend swatch's box: each swatch is drawn inside 0,0 to these. */
export const SWATCH = { width: 28, height: 16 } as const;
/** The narrowest a figure is laid out, so the legend and caption have room. */
const MIN_CONTENT_WIDTH = 300;
/** How long each step of an animation is shown, in seconds. */
export const SECONDS_PER_FRAME = 1;

/** The most steps an animated export holds, and the most bytes its file may weigh. */
export const ANIMATION_MAX_STEPS = 200;
export const ANIMATION_MAX_BYTES = 2 * 1024 * 1024;

/**
 * The steps an animation covers from the two fields (empty: the whole
 * program up to the step limit), or why they cannot be animated.
 */
export function animationRange(fromText: string, toText: string, last: number): { from: number; to: number } | string {
  const read = (text: string, fallback: number, name: string): number | string => {
    if (text.trim() === "") return fallback;
    const n = Number(text);
    if (!Number.isInteger(n) || n < 0 || n > last) return `${name} must be a whole op number from 0 to ${last}.`;
    return n;
  };
  const from = read(fromText, 0, "From op");
  if (typeof from === "string") return from;
  const to = read(toText, Math.min(last, from + ANIMATION_MAX_STEPS - 1), "To op");
  if (typeof to === "string") return to;
  if (to <= from) return `To op must come after from op (${from}): an animation needs two steps or more.`;
  const count = to - from + 1;
  if (count > ANIMATION_MAX_STEPS) return `Ops ${from} to ${to} are ${count} steps: an animation holds at most ${ANIMATION_MAX_STEPS}. Choose a shorter range.`;
  return { from, to };
}

/** One map, serialised standalone (an `<svg>` element's text), and its size. */
export interface FigureColumn {
  /** Its allocator's name above it (compare mode), or null for a single map. */
  name: string | null;
  svg: string;
  width: number;
  height: number;
}

export interface LegendItem {
  label: string;
  /** SVG markup drawn in a SWATCH-sized box at the origin. */
  swatch: string;
}

export interface FigureInput {
  title: string;
  /** The app's link to this state. */
  link: string;
  /** The maps, side by side (compare's columns), or one map. */
  columns: readonly FigureColumn[];
  /**
   * What the figure says under its legend. One: a still figure; more: an
   * animation, each caption shown for its step's second of the cycle (the
   * maps animate themselves in step with them: exportAnimation.ts).
   */
  captions: readonly string[];
  legend: readonly LegendItem[];
  /** Shared definitions (patterns, clip paths, markers) the maps and swatches refer to by id. */
  defs: string;
  colours: { background: string | null; text: string; muted: string; link: string };
  font: string;
  /** How the figure's fonts measure text (a canvas in the browser); an estimate without it. */
  measure?: Measure;
}

export interface ComposedFigure {
  text: string;
  width: number;
  height: number;
  /** Where the maps are drawn: column k's top-left corner. */
  mapOrigins: readonly { x: number; y: number }[];
}

/** Text escaped for XML content and attribute values. */
export function xmlEscape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&apos;" })[c] ?? c);
}

/** How wide `text` is drawn at `size` px, bold or not. */
export type Measure = (text: string, size: number, bold: boolean) => number;

/**
 * An estimate for when no font can be measured: 0.62 em a character, wider
 * than a UI font's average, so lines break early rather than overflow.
 */
export const estimateWidth: Measure = (text, size, bold) => text.length * size * (bold ? 0.66 : 0.62);

/**
 * `text` in lines that fit `width` at `size` px: broken at spaces, and a
 * word longer than a line (a link) is cut where it must be. The lines joined
 * give back the text with its runs of white space made single spaces.
 */
export function wrapText(text: string, width: number, size: number, measure: Measure = estimateWidth, bold = false): string[] {
  const fits = (s: string): boolean => measure(s, size, bold) <= width;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const joined = line === "" ? word : `${line} ${word}`;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    // A line broken at a space keeps it at its end: drawn, it is nothing; read (or copied), the words stay apart.
    if (line !== "") lines.push(`${line} `);
    let rest = word;
    while (rest.length > 1 && !fits(rest)) {
      // The longest head of the word that fits (at least one character).
      let lo = 1;
      let hi = rest.length - 1;
      while (lo < hi) {
        const mid = Math.ceil((lo + hi) / 2);
        if (fits(rest.slice(0, mid))) lo = mid;
        else hi = mid - 1;
      }
      lines.push(rest.slice(0, lo));
      rest = rest.slice(lo);
    }
    line = rest;
  }
  if (line !== "") lines.push(line);
  return lines.length > 0 ? lines : [""];
}

/** A link longer than this is not written out in the figure (the anchor still carries it). */
export const LINK_TEXT_MAX = 600;

/** The text of the figure's link: the link itself, unless it is too long to be worth reading. */
export function linkText(link: string): string {
  return link.length <= LINK_TEXT_MAX ? `Open live: ${link}` : `Open live in Bump Lab (a link of ${link.length} characters: follow it from the SVG)`;
}

/** A `<text>` of lines, the first baseline at `y`. */
function textBlock(lines: readonly string[], x: number, y: number, size: number, fill: string, cls: string, extra = ""): string {
  const spans = lines.map((l, i) => `<tspan x="${x}" dy="${i === 0 ? 0 : (size * LINE).toFixed(1)}">${xmlEscape(l)}</tspan>`).join("");
  return `<text class="${cls}" x="${x}" y="${y.toFixed(1)}" style="fill: ${fill}; font-size: ${size}px${extra}">${spans}</text>`;
}

/** Height of `n` lines at `size` px. */
const linesHeight = (n: number, size: number): number => n * size * LINE;

interface LegendLayout {
  markup: string;
  height: number;
}

/** Legend items in rows: swatch, label, gap; a row wraps before it would pass `width`. */
function layoutLegend(items: readonly LegendItem[], width: number, colours: FigureInput["colours"], measure: Measure): LegendLayout {
  if (items.length === 0) return { markup: "", height: 0 };
  const rowH = Math.max(SWATCH.height, TEXT_SIZE * LINE) + 6;
  let x = 0;
  let y = 0;
  const parts: string[] = [];
  for (const item of items) {
    const w = SWATCH.width + 6 + measure(item.label, TEXT_SIZE, false) + 18;
    if (x > 0 && x + w > width) {
      x = 0;
      y += rowH;
    }
    parts.push(
      `<g class="legend-item" transform="translate(${x.toFixed(1)},${y.toFixed(1)})">${item.swatch}` +
        `<text x="${SWATCH.width + 6}" y="${(SWATCH.height / 2 + TEXT_SIZE * 0.35).toFixed(1)}" style="fill: ${colours.text}; font-size: ${TEXT_SIZE}px">${xmlEscape(item.label)}</text></g>`,
    );
    x += w;
  }
  return { markup: parts.join(""), height: y + rowH };
}

/**
 * SMIL that shows an element in the frames of an `on.length`-frame cycle
 * where `on` is true and hides it in the others (no script: it plays where
 * scripts do not run); "" when it is shown or hidden throughout.
 */
export function displayAnimation(on: readonly boolean[]): string {
  const n = on.length;
  if (n < 2 || on.every((v) => v === on[0])) return "";
  const at = (i: number): string => String(Math.round((i / n) * 1e6) / 1e6);
  const values: string[] = [];
  const times: string[] = [];
  on.forEach((v, k) => {
    if (k === 0 || v !== on[k - 1]) {
      values.push(v ? "inline" : "none");
      times.push(at(k));
    }
  });
  return `<animate attributeName="display" values="${values.join(";")}" keyTimes="${times.join(";")}" calcMode="discrete" dur="${n * SECONDS_PER_FRAME}s" repeatCount="indefinite"/>`;
}

/** `markup` shown only in the frames where `on` is true; as it stands when the viewer does not animate, frame 0's state. */
export function inFrames(markup: string, on: readonly boolean[]): string {
  const animation = displayAnimation(on);
  if (animation === "") return on[0] === false ? "" : markup;
  return `<g display="${on[0] ? "inline" : "none"}">${animation}${markup}</g>`;
}

/** The whole figure as an SVG file's text, with its size and where its maps sit. */
export function composeFigure(input: FigureInput): ComposedFigure {
  const { colours, font } = input;
  const measure = input.measure ?? estimateWidth;
  const m = FIGURE_MARGIN;
  const mapsWidth = input.columns.reduce((w, c) => w + c.width, 0) + GAP * Math.max(0, input.columns.length - 1);
  const content = Math.max(MIN_CONTENT_WIDTH, mapsWidth);
  const width = Math.ceil(content + 2 * m);

  const titleLines = wrapText(input.title, content, TITLE_SIZE, measure, true);
  let y = m;
  const title = textBlock(titleLines, m, y + TITLE_SIZE, TITLE_SIZE, colours.text, "figure-title", "; font-weight: 700");
  y += linesHeight(titleLines.length, TITLE_SIZE) + GAP / 2;
  // Whole pixels: a map drawn at a fraction of a pixel is antialiased unlike the page's.
  y = Math.round(y);

  const named = input.columns.some((c) => c.name !== null);
  const nameH = named ? linesHeight(1, NAME_SIZE) + 4 : 0;
  const mapTop = Math.round(y + nameH);
  const mapsH = Math.max(0, ...input.columns.map((c) => c.height));
  y = mapTop + mapsH + GAP;

  const legend = layoutLegend(input.legend, content, colours, measure);
  const legendTop = Math.round(y);
  y += legend.height + (legend.height > 0 ? GAP / 2 : 0);

  const captions = input.captions.map((c) => wrapText(c, content, TEXT_SIZE, measure));
  const captionTop = y;
  y += linesHeight(Math.max(1, ...captions.map((c) => c.length)), TEXT_SIZE) + 4;

  const linkLines = wrapText(linkText(input.link), content, TEXT_SIZE, measure);
  const linkTop = y;
  y += linesHeight(linkLines.length, TEXT_SIZE);
  const height = Math.ceil(y + m);

  const mapOrigins: { x: number; y: number }[] = [];
  const maps: string[] = [];
  let x = m;
  for (const c of input.columns) {
    mapOrigins.push({ x, y: mapTop });
    if (c.name !== null) maps.push(textBlock([c.name], x, mapTop - 6, NAME_SIZE, colours.text, "figure-name", "; font-weight: 700"));
    maps.push(`<g class="figure-map" transform="translate(${x},${mapTop})">${c.svg}</g>`);
    x += c.width + GAP;
  }
  const captionText = captions.map((lines, k) =>
    inFrames(
      textBlock(lines, m, captionTop + TEXT_SIZE, TEXT_SIZE, colours.muted, "figure-caption"),
      captions.map((_, i) => i === k),
    ),
  );

  const link = xmlEscape(input.link);
  const text = [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" style="font-family: ${xmlEscape(font)}">`,
    `<title>${xmlEscape(input.title)}</title>`,
    input.defs ? `<defs>${input.defs}</defs>` : "",
    input.colours.background ? `<rect class="figure-background" width="${width}" height="${height}" style="fill: ${input.colours.background}"/>` : "",
    title,
    ...maps,
    ...captionText,
    legend.markup ? `<g class="figure-legend" transform="translate(${m},${legendTop})">${legend.markup}</g>` : "",
    `<a class="figure-link" href="${link}" xlink:href="${link}" target="_blank">${textBlock(linkLines, m, linkTop + TEXT_SIZE, TEXT_SIZE, colours.link, "figure-link-text", "; text-decoration: underline")}</a>`,
    `</svg>`,
    ``,
  ]
    .filter((line) => line !== "")
    .join("\n");
  return { text: `${text}\n`, width, height, mapOrigins };
}
