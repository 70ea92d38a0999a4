import { describe, expect, it } from "vitest";
import { exportFileName, inlineStyle, pngSize } from "./export";

describe("export helpers", () => {
  it("names files by preset, figure and step, safely", () => {
    expect(exportFileName("memory map", "bumpalo", 3, "svg")).toBe("bumplab-bumpalo-memory-map-op-3.svg");
    expect(exportFileName("trace", "../../etc/passwd", null, "json")).toBe("bumplab-etc-passwd-trace.json");
    expect(exportFileName("cost", "", 0, "png")).toBe("bumplab-x-cost-op-0.png");
  });

  it("sizes PNGs at 2× in whole pixels", () => {
    expect(pngSize(720, 190)).toEqual({ width: 1440, height: 380 });
    expect(pngSize(100.3, 50.2)).toEqual({ width: 201, height: 100 });
    expect(pngSize(0, Number.NaN)).toEqual({ width: 1, height: 1 });
  });

  it("inlines the computed properties, leaving out inherited values and initial ones", () => {
    const own: Record<string, string> = { fill: "rgb(1, 2, 3)", "font-size": "12px", display: "inline", opacity: "0.5", stroke: "none" };
    const parent: Record<string, string> = { fill: "rgb(0, 0, 0)", "font-size": "12px", stroke: "none", opacity: "0.5" };
    const style = inlineStyle((p) => own[p] ?? "", (p) => parent[p] ?? "");
    expect(style).toBe("fill: rgb(1, 2, 3); opacity: 0.5");
    expect(inlineStyle((p) => own[p] ?? "", null)).toBe("fill: rgb(1, 2, 3); stroke: none; opacity: 0.5; font-size: 12px");
    // Of display, only "none" is written: SVG draws an element as inline or block alike.
    expect(inlineStyle((p) => ({ display: "block", fill: "red" })[p] ?? "", null)).toBe("fill: red");
    expect(inlineStyle((p) => ({ display: "none" })[p] ?? "", null)).toBe("display: none");
  });
});

import {
  ANIMATION_MAX_STEPS,
  animationRange,
  composeFigure,
  displayAnimation,
  estimateWidth,
  FIGURE_MARGIN,
  inFrames,
  LINK_TEXT_MAX,
  linkText,
  wrapText,
  xmlEscape,
  type FigureInput,
} from "./exportLayout";
import { isInteractiveAttribute, SVG_NS, svgProblems, type XmlNode } from "./svgCheck";
import { localUrls, roundCoordinates } from "./export";

const MAP = (width: number, height: number, blocks: number): string =>
  `<svg xmlns="${SVG_NS}" class="memory-map" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">${'<g class="block"><rect class="body" x="1" width="8" height="8"/></g>'.repeat(blocks)}</svg>`;

const INPUT: FigureInput = {
  title: "Bump Lab: bumpalo, wasm32, op 3 / 6: c = alloc 24 align 16",
  link: "http://127.0.0.1/#v1?a=bumpalo&s=3&p=a+=+alloc+1&end",
  columns: [{ name: null, svg: MAP(720, 92, 3), width: 720, height: 92 }],
  captions: ["bumpalo on wasm32; op 3 of 6: c: 24 bytes at 0x101b0"],
  legend: [
    { label: "block (a colour per op)", swatch: '<rect class="body" width="28" height="16"/>' },
    { label: "bump pointer", swatch: '<line class="ptr-line" x1="14" x2="14" y1="6" y2="16"/>' },
  ],
  defs: '<pattern id="bl-hatch" width="6" height="6"/>',
  colours: { background: "rgb(255, 255, 255)", text: "rgb(26, 31, 38)", muted: "rgb(93, 102, 115)", link: "rgb(10, 98, 184)" },
  font: 'system-ui, "Segoe UI", sans-serif',
};

/** Numbers of the attribute `name` on every element `tag` in `text`, in order. */
const attrs = (text: string, tag: string, name: string): string[] =>
  [...text.matchAll(new RegExp(`<${tag}\\b[^>]*?\\s${name}="([^"]*)"`, "g"))].map((m) => m[1] ?? "");

describe("figure layout", () => {
  it("wraps text at spaces, cuts a word longer than a line, and joins back to the text", () => {
    const measure = (s: string): number => s.length * 10;
    expect(wrapText("one two three four", 90, 12, measure)).toEqual(["one two ", "three ", "four"]);
    expect(wrapText("Open live: http://example.org/#v1?a=bumpalo", 120, 12, measure)).toEqual(["Open live: ", "http://examp", "le.org/#v1?a", "=bumpalo"]);
    const text = "bumpalo on wasm32, chunk capacity 464 bytes (its default); op 3 of 6: c: 24 bytes at 0x101b0";
    const lines = wrapText(text, 200, 12);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join("")).toBe(text);
    for (const l of lines) expect(estimateWidth(l.trimEnd(), 12, false)).toBeLessThanOrEqual(200);
  });

  it("puts the title, map, legend, caption and link in order inside the margins", () => {
    const fig = composeFigure(INPUT);
    expect(fig.width).toBe(720 + 2 * FIGURE_MARGIN);
    expect(fig.mapOrigins).toEqual([{ x: FIGURE_MARGIN, y: expect.any(Number) }]);
    const mapTop = fig.mapOrigins[0]?.y ?? 0;
    expect(Number.isInteger(mapTop)).toBe(true);
    // Baselines down the figure: title, then (below the 92 px map) legend, caption, link.
    const titleY = Number(attrs(fig.text, "text", "y")[0]);
    expect(titleY).toBeGreaterThanOrEqual(FIGURE_MARGIN + 12);
    expect(mapTop).toBeGreaterThan(titleY);
    const legendTop = Number(fig.text.match(/class="figure-legend" transform="translate\(24,(\d+)\)"/)?.[1]);
    expect(legendTop).toBeGreaterThanOrEqual(mapTop + 92);
    const caption = fig.text.indexOf("bumpalo on wasm32; op 3 of 6");
    const link = fig.text.indexOf("Open live: ");
    expect(caption).toBeGreaterThan(0);
    expect(link).toBeGreaterThan(caption);
    const linkY = Number(fig.text.slice(link - 400, link).match(/<text class="figure-link-text" x="24" y="([\d.]+)"[^>]*><tspan[^>]*>$/)?.[1]);
    expect(linkY).toBeGreaterThan(legendTop);
    expect(fig.height - linkY).toBeGreaterThanOrEqual(FIGURE_MARGIN);
    // Every text starts at the left margin.
    expect(new Set(attrs(fig.text, "tspan", "x"))).toEqual(new Set(["24"]));
    expect(fig.text).toContain(`<title>${xmlEscape(INPUT.title)}</title>`);
    expect(fig.text).toContain(`href="${xmlEscape(INPUT.link)}"`);
    expect(fig.text).toContain("<defs><pattern id=\"bl-hatch\"");
    expect(fig.text).not.toContain("<animate");
  });

  it("lays compare's columns side by side under their names, and is as wide as they are", () => {
    const fig = composeFigure({
      ...INPUT,
      columns: [
        { name: "hinckley-up", svg: MAP(400, 92, 2), width: 400, height: 92 },
        { name: "fitzgen-down", svg: MAP(400, 180, 2), width: 400, height: 180 },
      ],
      captions: ["Compared"],
    });
    expect(fig.mapOrigins.map((o) => o.x)).toEqual([24, 24 + 400 + 16]);
    expect(fig.width).toBe(400 + 16 + 400 + 2 * FIGURE_MARGIN);
    expect(fig.text).toContain(">hinckley-up</tspan>");
    expect(fig.text).toContain(">fitzgen-down</tspan>");
    const legendTop = Number(fig.text.match(/class="figure-legend" transform="translate\(24,(\d+)\)"/)?.[1]);
    expect(legendTop).toBeGreaterThanOrEqual((fig.mapOrigins[0]?.y ?? 0) + 180);
  });

  it("animates the captions with SMIL: each shown for its own second of the cycle, none by script", () => {
    const fig = composeFigure({ ...INPUT, captions: ["op 0 / 3", "op 1 / 3", "op 2 / 3", "op 3 / 3"] });
    expect(fig.text).not.toContain("<script");
    expect(attrs(fig.text, "g", "display")).toEqual(["inline", "none", "none", "none"]);
    expect(attrs(fig.text, "animate", "values")).toEqual(["inline;none", "none;inline;none", "none;inline;none", "none;inline"]);
    expect(attrs(fig.text, "animate", "keyTimes")).toEqual(["0;0.25", "0;0.25;0.5", "0;0.5;0.75", "0;0.75"]);
    expect(new Set(attrs(fig.text, "animate", "dur"))).toEqual(new Set(["4s"]));
  });

  it("shows a part in the frames it is drawn in, as one SMIL animation of display", () => {
    expect(displayAnimation([true, true, true])).toBe("");
    expect(displayAnimation([true])).toBe("");
    expect(displayAnimation([false, true, true, false, true])).toBe(
      '<animate attributeName="display" values="none;inline;none;inline" keyTimes="0;0.2;0.6;0.8" calcMode="discrete" dur="5s" repeatCount="indefinite"/>',
    );
    expect(inFrames("<rect/>", [true, true])).toBe("<rect/>");
    expect(inFrames("<rect/>", [false, false])).toBe("");
    // Where nothing animates, the file shows its first frame.
    expect(inFrames("<rect/>", [true, false])).toMatch(/^<g display="inline"><animate [^>]*\/><rect\/><\/g>$/);
    expect(inFrames("<rect/>", [false, true])).toMatch(/^<g display="none"><animate /);
  });

  it("writes a long link as a sentence, keeping the whole link in the anchor", () => {
    const long = `http://x/#v1z${"a".repeat(LINK_TEXT_MAX)}`;
    expect(linkText("http://x/#v1?a=b&end")).toBe("Open live: http://x/#v1?a=b&end");
    expect(linkText(long)).toBe(`Open live in Bump Lab (a link of ${long.length} characters: follow it from the SVG)`);
    const fig = composeFigure({ ...INPUT, link: long });
    expect(fig.text).toContain(`href="${long}"`);
    expect(fig.text).not.toContain(`>${long}`);
  });

  it("escapes text for XML", () => {
    expect(xmlEscape(`a < b && "c" > 'd'`)).toBe("a &lt; b &amp;&amp; &quot;c&quot; &gt; &apos;d&apos;");
  });

  it("reads an animation's range: empty fields are the whole program up to the limit; bad ranges are refused", () => {
    expect(animationRange("", "", 12)).toEqual({ from: 0, to: 12 });
    expect(animationRange("", "", 500)).toEqual({ from: 0, to: ANIMATION_MAX_STEPS - 1 });
    expect(animationRange("300", "", 500)).toEqual({ from: 300, to: 499 });
    expect(animationRange("2", "5", 12)).toEqual({ from: 2, to: 5 });
    expect(animationRange("10", "250", 260)).toBe("Ops 10 to 250 are 241 steps: an animation holds at most 200. Choose a shorter range.");
    expect(animationRange("5", "5", 12)).toBe("To op must come after from op (5): an animation needs two steps or more.");
    expect(animationRange("1.5", "", 12)).toBe("From op must be a whole op number from 0 to 12.");
    expect(animationRange("0", "13", 12)).toBe("To op must be a whole op number from 0 to 12.");
    expect(animationRange("", "", 0)).toBe("To op must come after from op (0): an animation needs two steps or more.");
  });

  it("writes coordinates to a hundredth of a pixel, leaving short numbers alone", () => {
    expect(roundCoordinates("674.4285714285714")).toBe("674.43");
    expect(roundCoordinates("translate(0,54.400001525878906)")).toBe("translate(0,54.4)");
    expect(roundCoordinates("M12.5,34h-0.3333333v36z")).toBe("M12.5,34h-0.33v36z");
    expect(roundCoordinates("1e-7")).toBe("1e-7");
    expect(roundCoordinates("0.0000001")).toBe("0");
  });

  it("makes references local, however the browser computed them", () => {
    expect(localUrls('fill: url("http://127.0.0.1:4405/#bl-hatch")')).toBe("fill: url(#bl-hatch)");
    expect(localUrls("fill: url(#bl-meta); stroke: none")).toBe("fill: url(#bl-meta); stroke: none");
    expect(localUrls('clip-path: url("#bl-clip-1")')).toBe("clip-path: url(#bl-clip-1)");
  });
});

describe("SVG validity check", () => {
  const node = (name: string, attributes: Record<string, string> = {}, children: XmlNode[] = [], ns: string | null = SVG_NS): XmlNode => ({
    name,
    ns,
    attributes: Object.entries(attributes).map(([n, value]) => ({ name: n, value })),
    children,
  });

  it("accepts a figure of SVG elements with presentational attributes", () => {
    const ok = node("svg", { xmlns: SVG_NS, width: "10", height: "10", viewBox: "0 0 10 10" }, [
      node("title"),
      node("g", { class: "block is-live", transform: "translate(1,2)" }, [node("rect", { class: "body", x: "0", width: "4", style: "fill: red" })]),
      node("a", { href: "http://x/#v1", target: "_blank" }, [node("text", { x: "0", y: "9" }, [node("tspan", { x: "0", dy: "0" })])]),
      node("g", { display: "none" }, [node("animate", { attributeName: "display", values: "none;inline", keyTimes: "0;0.5", calcMode: "discrete", dur: "2s", repeatCount: "indefinite" })]),
    ]);
    expect(svgProblems(ok)).toEqual([]);
  });

  it("names every interactive attribute, foreign element and script URL", () => {
    const bad = node("svg", { role: "group", tabindex: "0" }, [
      node("g", { "aria-label": "b", "data-block": "b", onclick: "x()" }),
      node("script"),
      node("div", {}, [], "http://www.w3.org/1999/xhtml"),
      node("a", { href: "javascript:alert(1)" }),
      node("rect", { "pointer-events": "all" }),
    ]);
    expect(svgProblems(bad)).toEqual([
      "/svg: interactive attribute role",
      "/svg: interactive attribute tabindex",
      "/svg/g: interactive attribute aria-label",
      "/svg/g: interactive attribute data-block",
      "/svg/g: interactive attribute onclick",
      "/svg/script: <script> is not an allowed element",
      "/svg/div: namespace http://www.w3.org/1999/xhtml, not SVG's",
      "/svg/div: <div> is not an allowed element",
      "/svg/a: href holds a script URL",
      "/svg/rect: attribute pointer-events is not allowed",
    ]);
    expect(svgProblems(node("html", {}, [], null))).toContain("the root element is <html>, not <svg>");
  });

  it("tells interactive attributes from presentational ones", () => {
    for (const a of ["tabindex", "role", "aria-hidden", "data-id", "onpointerenter", "focusable"]) expect(isInteractiveAttribute(a), a).toBe(true);
    for (const a of ["opacity", "orient", "offset", "d", "class", "style"]) expect(isInteractiveAttribute(a), a).toBe(false);
  });
});
