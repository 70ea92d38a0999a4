// An animation's frames merged into one map that animates itself: each part
// of the map (a block, a callout, an axis tick, the bump pointer, a row's
// title) is written once with the frames it is drawn in, instead of once per
// frame. A bump allocator's blocks stay where they were placed, so from one
// step to the next most parts are the same and a long run fits a small file.
// Parts are matched by their markup (after cleanCopy); a part that changes
// (a block freed, the pointer moved) is a new part from that step on.

import { inFrames } from "./exportLayout";

/** Groups the merge looks into (by class); any other element is a part, kept whole. */
const CONTAINERS = new Set(["plot", "rows", "chunk-row", "bar", "blocks", "callouts", "meta-regions", "axis"]);

interface Part {
  kind: "part";
  markup: string;
  on: boolean[];
  /** Its place among its siblings where first drawn, then when first seen: the paint order. */
  index: number;
  seen: number;
}

interface Group {
  kind: "group";
  open: string;
  close: string;
  children: Map<string, Part | Group>;
  index: number;
  seen: number;
}

const escapeAttribute = (v: string): string => v.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");

function openTag(el: Element): string {
  const attributes = [...el.attributes].map((a) => ` ${a.name}="${escapeAttribute(a.value)}"`).join("");
  return `<${el.tagName}${attributes}>`;
}

const isContainer = (el: Element): boolean => el.localName === "g" && [...el.classList].some((c) => CONTAINERS.has(c));

/**
 * `frames` (standalone maps of one run at successive steps, the same width,
 * their defs taken out) as one group whose parts show in their frames'
 * share of a cycle of `frames.length` seconds.
 */
export function mergeFrames(frames: readonly SVGSVGElement[]): { svg: string; width: number; height: number } {
  const n = frames.length;
  const first = frames[0];
  if (!first) return { svg: "", width: 0, height: 0 };
  const serializer = new XMLSerializer();
  let seen = 0;
  const root: Group = { kind: "group", open: "", close: "", children: new Map(), index: 0, seen: 0 };
  const add = (group: Group, children: readonly Element[], k: number): void => {
    children.forEach((el, index) => {
      if (isContainer(el)) {
        const open = openTag(el);
        const key = `g${open}`;
        let child = group.children.get(key);
        if (!child || child.kind !== "group") {
          child = { kind: "group", open, close: `</${el.tagName}>`, children: new Map(), index, seen: seen++ };
          group.children.set(key, child);
        }
        add(child, [...el.children], k);
        return;
      }
      // The namespace is the file's: not repeated on every part.
      const markup = serializer.serializeToString(el).replace(/ xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, "");
      const key = `p${markup}`;
      let part = group.children.get(key);
      if (!part || part.kind !== "part") {
        part = { kind: "part", markup, on: new Array<boolean>(n).fill(false), index, seen: seen++ };
        group.children.set(key, part);
      }
      part.on[k] = true;
    });
  };
  frames.forEach((svg, k) => add(root, [...svg.children], k));

  const emit = (group: Group): string =>
    [...group.children.values()]
      .sort((a, b) => a.index - b.index || a.seen - b.seen)
      .map((c) => (c.kind === "group" ? `${c.open}${emit(c)}${c.close}` : inFrames(c.markup, c.on)))
      .join("");

  const width = Math.max(...frames.map((f) => Number(f.getAttribute("width")) || 0));
  const height = Math.max(...frames.map((f) => Number(f.getAttribute("height")) || 0));
  // A group, not a nested <svg>: an <svg> is a time container of its own, and
  // its parts would then not follow the file's clock (pausing or seeking it).
  const style = first.getAttribute("style");
  const open = `<g class="${escapeAttribute(first.getAttribute("class") ?? "")}"${style ? ` style="${escapeAttribute(style)}"` : ""}>`;
  return { svg: `${open}${emit(root)}</g>`, width, height };
}
