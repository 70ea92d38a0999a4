// What an exported SVG may contain: SVG elements in the SVG namespace, and
// of attributes only the presentational ones in an allow-list. Anything the
// page uses for interaction (tabindex, role, aria-*, data-*, event handlers)
// is refused, as is any element a standalone figure has no use for (script,
// foreignObject, HTML). Checked over a plain tree so a parser anywhere (the
// browser's DOMParser in the journeys) can feed it.

export const SVG_NS = "http://www.w3.org/2000/svg";

/** An element as the check reads it: its name, namespace, attributes and child elements. */
export interface XmlNode {
  name: string;
  ns: string | null;
  attributes: readonly { name: string; value: string }[];
  children: readonly XmlNode[];
}

export const ALLOWED_ELEMENTS: ReadonlySet<string> = new Set([
  "svg",
  "g",
  "defs",
  "title",
  "desc",
  "rect",
  "line",
  "path",
  "circle",
  "polyline",
  "polygon",
  "text",
  "tspan",
  "pattern",
  "clipPath",
  "marker",
  "a",
  "animate",
  "set",
]);

export const ALLOWED_ATTRIBUTES: ReadonlySet<string> = new Set([
  "xmlns",
  "xmlns:xlink",
  "id",
  "class",
  "style",
  "transform",
  "x",
  "y",
  "dx",
  "dy",
  "x1",
  "x2",
  "y1",
  "y2",
  "width",
  "height",
  "rx",
  "ry",
  "cx",
  "cy",
  "r",
  "d",
  "points",
  "viewBox",
  "preserveAspectRatio",
  "fill",
  "fill-opacity",
  "stroke",
  "stroke-width",
  "stroke-opacity",
  "stroke-dasharray",
  "opacity",
  "display",
  "visibility",
  "font-family",
  "font-size",
  "font-weight",
  "text-anchor",
  "dominant-baseline",
  "clip-path",
  "marker-end",
  "marker-start",
  "patternUnits",
  "patternTransform",
  "refX",
  "refY",
  "markerWidth",
  "markerHeight",
  "orient",
  "href",
  "xlink:href",
  "target",
  "attributeName",
  "values",
  "keyTimes",
  "calcMode",
  "dur",
  "begin",
  "repeatCount",
]);

/** Attributes that only mean something to a page a reader interacts with. */
export function isInteractiveAttribute(name: string): boolean {
  const n = name.toLowerCase();
  return /^(on|aria-|data-)/.test(n) || ["tabindex", "role", "focusable", "contenteditable", "draggable"].includes(n);
}

/** Why `root` is not a standalone figure's SVG, one line per problem (empty: it is). */
export function svgProblems(root: XmlNode): string[] {
  const problems: string[] = [];
  if (root.name !== "svg") problems.push(`the root element is <${root.name}>, not <svg>`);
  const walk = (node: XmlNode, path: string): void => {
    const here = `${path}/${node.name}`;
    if (node.ns !== SVG_NS) problems.push(`${here}: namespace ${node.ns ?? "(none)"}, not SVG's`);
    if (!ALLOWED_ELEMENTS.has(node.name)) problems.push(`${here}: <${node.name}> is not an allowed element`);
    for (const a of node.attributes) {
      if (isInteractiveAttribute(a.name)) problems.push(`${here}: interactive attribute ${a.name}`);
      else if (!ALLOWED_ATTRIBUTES.has(a.name)) problems.push(`${here}: attribute ${a.name} is not allowed`);
      if (/javascript:/i.test(a.value)) problems.push(`${here}: ${a.name} holds a script URL`);
    }
    node.children.forEach((c) => walk(c, here));
  };
  walk(root, "");
  return problems;
}
