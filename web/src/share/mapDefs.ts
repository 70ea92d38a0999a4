// The memory map's definitions: the hatch that paints alignment padding, the
// stripes that paint chunk headers and footers, and the bump pointer's arrow.
//
// Each svg that draws a map gets its own copies, with ids no other element of
// the document has, and says which are its own through CSS variables on the
// svg (`--bl-hatch`, `--bl-meta`), which the stylesheet's `fill:
// var(--bl-hatch)` reads. With one shared id, every map's padding would be
// painted by the first pattern of that id in the document: one inside a map
// that is hidden (the single run's, while compare shows) paints nothing, and
// its padding would look like free bytes.

// Written out rather than imported from svgCheck.ts: the map's first draw
// would fetch the export checks with it.
const SVG_NS = "http://www.w3.org/2000/svg";

let made = 0;

export interface MapDefIds {
  hatch: string;
  meta: string;
  arrow: string;
}

function el(doc: Document, name: string, attrs: Record<string, string | number>, ...children: Element[]): Element {
  const e = doc.createElementNS(SVG_NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  e.append(...children);
  return e;
}

/** Appends the map's patterns and marker to `defs`, ids of their own, and points `svg`'s variables at them. */
export function appendMapDefs(svg: SVGSVGElement, defs: Element): MapDefIds {
  made += 1;
  const doc = svg.ownerDocument;
  const ids: MapDefIds = { hatch: `bl-hatch-${made}`, meta: `bl-meta-${made}`, arrow: `bl-arrow-${made}` };
  defs.append(
    el(
      doc,
      "pattern",
      { id: ids.hatch, patternUnits: "userSpaceOnUse", width: 6, height: 6, patternTransform: "rotate(45)" },
      el(doc, "rect", { class: "hatch-bg", width: 6, height: 6 }),
      el(doc, "line", { class: "hatch-line", x1: 1, y1: 0, x2: 1, y2: 6 }),
    ),
    el(
      doc,
      "pattern",
      { id: ids.meta, patternUnits: "userSpaceOnUse", width: 8, height: 8, patternTransform: "rotate(-45)" },
      el(doc, "rect", { class: "meta-bg", width: 8, height: 8 }),
      el(doc, "rect", { class: "meta-stripe", width: 3, height: 8 }),
    ),
    el(
      doc,
      "marker",
      { id: ids.arrow, viewBox: "0 0 10 10", refX: 8, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      el(doc, "path", { class: "arrow-head", d: "M0,0 L10,5 L0,10 z" }),
    ),
  );
  svg.style.setProperty("--bl-hatch", `url(#${ids.hatch})`);
  svg.style.setProperty("--bl-meta", `url(#${ids.meta})`);
  return ids;
}
