// The embed snippets the share panel offers, for a link hash and the app's
// address. Pure, so each snippet's quoting is tested (snippets.test.ts).

export interface Snippet {
  id: string;
  title: string;
  code: string;
  note: string;
}

/** The app's directory URL (where index.html, embed.html and bump-lab.js are), from the page's address. */
export function appBase(href: string): string {
  const url = new URL(href);
  url.hash = "";
  url.search = "";
  url.pathname = url.pathname.replace(/[^/]*$/, "");
  return url.href;
}

const escapeAttr = (s: string): string => s.replaceAll("&", "&amp;").replaceAll('"', "&quot;").replaceAll("<", "&lt;");

/**
 * A URL as a quoted parameter of a Hugo shortcode or a Jekyll include: the
 * raw URL, because their templates (docs/embedding.md, tests/sites/) escape
 * it for the attribute themselves, and escaping here too would hand the
 * iframe a literal "&amp;". What could end the quoted string or the tag
 * early (a quote, a brace, an angle bracket, a backslash, white space) is
 * percent-encoded instead, which a link reads as the same character.
 */
const generatorParam = (url: string): string =>
  url.replace(/[\s"'`<>{}\\]/g, (c) => [...new TextEncoder().encode(c)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""));

/**
 * The component snippet's style for a <bump-lab> the browser has not
 * defined: its children as a visible fallback box, as tall as the figure
 * will be (the element's --bumplab-height), so the page under it does not
 * move when the figure is drawn in its place.
 */
export const FALLBACK_CSS =
  "bump-lab:not(:defined){display:block;box-sizing:border-box;min-height:var(--bumplab-height,auto);padding:12px 16px;border:1px dashed #888;border-radius:6px}";

/** The height snippets reserve when the figure's own could not be measured. */
export const DEFAULT_EMBED_HEIGHT = 360;

/** Text as a quoted parameter of a shortcode or an include, without what could end it early. */
const generatorText = (text: string): string => text.replace(/["'`<>{}%\\]/g, "");

/** How the Share panel's snippets show the view. */
export interface EmbedOptions {
  /** The allocators shown: compare's columns, or the one. The title names every one. */
  allocators: readonly string[];
  /** A read-only figure (no editing controls, maps fitted to the bytes in use) rather than the player. */
  figure: boolean;
  /** Words under the figure ("" for none). */
  caption: string;
  /** The height the page reserves, in CSS pixels. */
  height: number;
  theme: "auto" | "light" | "dark";
  /** The view as a `bumplab` code fence's info string and body, for the Markdown fence snippet. */
  fence?: { info: string; program: string };
}

/** The snippets' title: every allocator shown ("Bump Lab: hinckley-up vs fitzgen-down"). */
export function embedTitle(allocators: readonly string[]): string {
  return `Bump Lab: ${allocators.join(" vs ")}`;
}

/** The iframe's query: what the embed shows (figure, caption, theme), before the link's #. */
function embedQuery(o: Pick<EmbedOptions, "figure" | "caption" | "theme">): string {
  const params = new URLSearchParams();
  if (o.figure) params.set("figure", "1");
  if (o.caption.trim() !== "") params.set("caption", o.caption.trim());
  if (o.theme !== "auto") params.set("theme", o.theme);
  const q = params.toString();
  return q ? `?${q}` : "";
}

/** The address the iframe snippet loads: embed.html with the view's settings, then the link. */
export function embedUrl(base: string, hash: string, o: Pick<EmbedOptions, "figure" | "caption" | "theme">): string {
  return `${base}embed.html${embedQuery(o)}#${hash}`;
}

/**
 * The snippets for a link hash, for a blog on any host. Attribute values are
 * escaped for HTML; the Hugo and Jekyll parameters carry the URL unescaped,
 * for their templates to escape once. `options` as a name alone: the player
 * of that one allocator, in the page's theme. The height is the figure's
 * drawn height in CSS pixels: each snippet reserves it before the figure is
 * drawn, so the page under it does not move.
 */
export function embedSnippets(base: string, hash: string, options: EmbedOptions | string): Snippet[] {
  const o: EmbedOptions = typeof options === "string" ? { allocators: [options], figure: false, caption: "", height: DEFAULT_EMBED_HEIGHT, theme: "auto" } : options;
  const embed = embedUrl(base, hash, o);
  const app = `${base}index.html#${hash}`;
  const title = embedTitle(o.allocators);
  const height = String(Math.round(o.height));
  const caption = o.caption.trim();
  const elementAttrs = [
    `link="${escapeAttr(hash)}"`,
    o.figure ? "figure" : "",
    caption ? `caption="${escapeAttr(caption)}"` : "",
    o.theme !== "auto" ? `theme="${o.theme}"` : "",
    // Reserved until the figure is drawn (component.ts), and by FALLBACK_CSS while the element is not defined.
    `style="--bumplab-height:${height}px"`,
  ].filter(Boolean);
  const snippets: Snippet[] = [
    {
      id: "iframe",
      title: "iframe",
      code: `<iframe class="bumplab" src="${escapeAttr(embed)}" title="${escapeAttr(title)}" width="100%" height="${height}" loading="lazy" style="border:0" sandbox="allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox"></iframe>`,
      note: "Works on any page that allows iframes. Add ?views=code,cost or ?controls=0 before the # to change what it shows.",
    },
    {
      id: "component",
      title: "Web component",
      // The <style> frames the link as a fallback box while the element is
      // not defined: without JavaScript, or when bump-lab.js cannot load (a
      // module script from another origin needs a CORS header) and so cannot
      // say anything itself.
      code: `<style>${FALLBACK_CSS}</style>\n<script type="module" src="${escapeAttr(`${base}bump-lab.js`)}"></script>\n<bump-lab ${elementAttrs.join(" ")}><a href="${escapeAttr(app)}">${escapeAttr(title)}</a> (a live figure: if it does not show here, the link opens it)</bump-lab>`,
      note: "One script per page, any number of elements. The link inside shows, framed, where the script does not run.",
    },
    {
      id: "markdown",
      title: "Markdown image + link",
      code: `[![${title.replaceAll("]", "")}](bumplab-figure.svg)](${app})`,
      note: "A static figure for any Markdown renderer: save it with Export SVG and put it beside the post.",
    },
    {
      id: "hugo",
      title: "Hugo shortcode",
      code: `{{< bumplab src="${generatorParam(embed)}" title="${generatorText(title)}" height="${height}" >}}`,
      note: "Needs layouts/shortcodes/bumplab.html (docs/embedding.md), which escapes the link once.",
    },
    {
      id: "jekyll",
      title: "Jekyll include",
      code: `{% include bumplab.html src="${generatorParam(embed)}" title="${generatorText(title)}" height="${height}" %}`,
      note: "Needs _includes/bumplab.html (docs/embedding.md), which escapes the link once.",
    },
  ];
  if (o.fence) {
    // Longer than any run of backticks in the program, so the program cannot close it.
    const ticks = "`".repeat(Math.max(3, ...[...o.fence.program.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    snippets.push({
      id: "fence",
      title: "Markdown fence",
      code: `${ticks}${o.fence.info}\n${o.fence.program.replace(/\n*$/, "")}\n${ticks}`,
      note: "For mdBook (mdbook-bumplab), VitePress and Eleventy (bumplab/markdown-it), Astro (bumplab/remark): a live figure where the plugin runs, the program as code elsewhere (docs/embedding.md).",
    });
  }
  return snippets;
}

/** A value for a fence's info string: bare when it can be, else quoted. */
const infoValue = (v: string): string => (/^[^\s"\\]+$/.test(v) ? v : `"${v.replace(/[\\"]/g, (c) => `\\${c}`)}"`);

/**
 * The view as a `bumplab` fence's info string: the settings that differ from
 * a fence's defaults (bumpalo, 64-bit, the last op, a figure, 320 px).
 */
export function fenceInfo(
  state: { allocator: string; target: string; capacity: number | null; minAlign: number | null; step: number; compare: readonly { allocator: string; target: string; minAlign: number | null; capacity: number | null }[] | null },
  options: { figure: boolean; caption: string; height: number; theme: string; lastStep: number },
): string {
  const words = ["bumplab"];
  if (state.compare === null || state.compare.length === 0) {
    if (state.allocator !== "bumpalo") words.push(`allocator=${infoValue(state.allocator)}`);
    if (state.target !== "64") words.push(`target=${state.target}`);
    if (state.capacity !== null) words.push(`capacity=${state.capacity}`);
    if (state.minAlign !== null) words.push(`min-align=${state.minAlign}`);
  } else {
    const col = (c: { allocator: string; target: string; minAlign: number | null; capacity: number | null }): string => {
      const fields = [c.allocator, c.target, c.minAlign === null ? "-" : String(c.minAlign), c.capacity === null ? "-" : String(c.capacity)];
      while (fields.length > 1 && (fields.at(-1) === "-" || (fields.length === 2 && fields[1] === "64"))) fields.pop();
      return fields.join(":");
    };
    words.push(`compare=${infoValue(state.compare.map(col).join(","))}`);
  }
  if (state.step !== options.lastStep) words.push(`step=${state.step}`);
  if (!options.figure) words.push("live");
  if (options.caption.trim() !== "") words.push(`caption=${infoValue(options.caption.trim())}`);
  if (options.height !== 320) words.push(`height=${Math.round(options.height)}`);
  if (options.theme !== "auto") words.push(`theme=${options.theme}`);
  return words.join(" ");
}

