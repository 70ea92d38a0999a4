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

/**
 * The snippets for a link hash, for a blog on any host. Attribute values are
 * escaped for HTML; the Hugo and Jekyll parameters carry the URL unescaped,
 * for their templates to escape once. `height` is the figure's drawn height
 * in CSS pixels: each snippet reserves it before the figure is drawn.
 */
export function embedSnippets(base: string, hash: string, allocator: string, height: number = DEFAULT_EMBED_HEIGHT): Snippet[] {
  const embed = `${base}embed.html#${hash}`;
  const app = `${base}index.html#${hash}`;
  const title = `Bump Lab: ${allocator}`;
  return [
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
      code: `<style>${FALLBACK_CSS}</style>\n<script type="module" src="${escapeAttr(`${base}bump-lab.js`)}"></script>\n<bump-lab link="${escapeAttr(hash)}" style="--bumplab-height:${height}px"><a href="${escapeAttr(app)}">${escapeAttr(title)}</a> (a live figure: if it does not show here, the link opens it)</bump-lab>`,
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
}

