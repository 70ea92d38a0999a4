// The documents under docs/ as pages of their own: "How it is measured" and
// the other links from the page open a rendered, UTF-8 HTML page at the right
// section, not a Markdown file (which a browser shows as raw text, and in a
// guessed encoding). Rendered with `marked` at build time into
// dist/docs/<path>.html, and on request by the dev server; links between
// the documents point at their pages. Headings get GitHub's anchors, so the
// same `#cost` works on GitHub and here.
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { Marked } from "marked";

const DOCS = fileURLToPath(new URL("../docs", import.meta.url));

/** GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens. */
export function slug(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/<[^>]*>/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

function escapeHtml(s) {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
}

/** Every Markdown file under docs/, as paths relative to it with "/". */
export function docPaths(dir = DOCS) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...docPaths(full));
    else if (entry.name.endsWith(".md")) out.push(relative(DOCS, full).split(sep).join("/"));
  }
  return out;
}

const STYLE = `
:root { color-scheme: light dark; --ink: #1d2433; --muted: #5b6577; --bg: #f7f8fa; --surface: #fff; --line: #d9dee7; --accent: #0b5cad; --code: #eef1f6; }
@media (prefers-color-scheme: dark) { :root { --ink: #e6e9ef; --muted: #a3adbf; --bg: #12151c; --surface: #1a1f29; --line: #323a49; --accent: #8cc2ff; --code: #232a37; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink); font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 860px; margin: 0 auto; padding: 24px 20px 64px; background: var(--surface); min-height: 100vh; }
nav { font-size: 14px; margin-bottom: 16px; }
a { color: var(--accent); }
h1, h2, h3 { line-height: 1.25; margin: 1.6em 0 0.5em; }
h1 { margin-top: 0.4em; font-size: 1.8em; }
:target { scroll-margin-top: 12px; background: color-mix(in srgb, var(--accent) 12%, transparent); }
code { font: 0.9em/1.4 ui-monospace, "DejaVu Sans Mono", monospace; background: var(--code); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--code); padding: 12px; border-radius: 6px; overflow-x: auto; }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; display: block; overflow-x: auto; margin: 1em 0; font-size: 14px; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: var(--code); }
`;

/** `docs/<path>.md` as a standalone page. */
export function renderDoc(path) {
  const source = readFileSync(join(DOCS, path), "utf8");
  const depth = path.split("/").length; // docs/<path>.html sits this deep below dist/
  const up = "../".repeat(depth);
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading({ tokens, depth: level }) {
        const inner = this.parser.parseInline(tokens);
        return `<h${level} id="${slug(inner)}">${inner}</h${level}>\n`;
      },
      link({ href, title, tokens }) {
        const text = this.parser.parseInline(tokens);
        // Another document: its page. Anything else stays as written.
        const target = /^(?![a-z]+:)[^#]*\.md(#.*)?$/i.test(href) ? href.replace(/\.md(#|$)/i, ".html$1") : href;
        return `<a href="${escapeHtml(target)}"${title ? ` title="${escapeHtml(title)}"` : ""}>${text}</a>`;
      },
    },
  });
  // GitHub's footnotes ([^7] and "[^7]: text"), which marked leaves as text.
  const notes = [];
  const text = source
    .replace(/^\[\^([\w-]+)\]:\s*(.*)$/gm, (_, id, note) => {
      notes.push([id, note]);
      return "";
    })
    .replace(/\[\^([\w-]+)\]/g, (_, id) => `<sup><a href="#fn-${id}" id="fnref-${id}">${id}</a></sup>`);
  let body = marked.parse(text);
  if (notes.length > 0) {
    const items = notes.map(([id, note]) => `<li id="fn-${id}" value="${Number(id) || ""}">${marked.parseInline(note)} <a href="#fnref-${id}" aria-label="back">↩</a></li>`);
    body += `<section class="footnotes"><h2 id="notes">Notes</h2><ol>${items.join("\n")}</ol></section>\n`;
  }
  const title = /^#\s+(.+)$/m.exec(source)?.[1] ?? path;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8" />
<meta name="viewport" content="width=device-width, initial-scale=1" />
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src 'self'" />
<meta name="referrer" content="no-referrer" />
<title>${escapeHtml(title)} · Bump Lab</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<nav><a href="${up}index.html">← Bump Lab</a></nav>
${body}
</main>
</body>
</html>
`;
}

/** Vite plugin: dist/docs/<path>.html at build; /docs/<path>.html from the dev server. */
export function docsPages() {
  return {
    name: "bumplab-docs-pages",
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/docs\/(.+)\.html(?:[?#].*)?$/.exec(req.url ?? "");
        const path = m && `${decodeURIComponent(m[1])}.md`;
        if (!path || !docPaths().includes(path)) return next();
        res.setHeader("Content-Type", "text/html; charset=utf-8");
        res.end(renderDoc(path));
      });
    },
    generateBundle() {
      for (const path of docPaths()) {
        this.emitFile({ type: "asset", fileName: `docs/${path.replace(/\.md$/, ".html")}`, source: renderDoc(path) });
      }
    },
  };
}
