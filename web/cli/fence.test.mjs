// The fence as the Markdown plugins render it (web/cli/fence.mjs, over the
// Rust parser in the trace module's CLI build), and as a Markdown renderer
// with no plugin shows it: GitHub-flavoured Markdown (marked, with gfm) must
// leave the program readable as code.
import { readFileSync } from "node:fs";
import { marked } from "marked";
import { describe, expect, test } from "vitest";
import { decodeShare } from "../src/share/link.ts";
import { errorLine, isBumplab, renderFence } from "./fence.mjs";
import bumplabMarkdownIt from "./markdown-it.mjs";
import remarkBumplab from "./remark.mjs";

const POST = readFileSync(new URL("../../tests/sites/fence-post.md", import.meta.url), "utf8");
const PROGRAM = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16";

describe("where no plugin runs", () => {
  test("GitHub-flavoured Markdown shows each fence's program as code, line for line", () => {
    const html = marked.parse(POST, { gfm: true, async: false });
    const blocks = [...html.matchAll(/<pre><code class="language-bumplab">([\s\S]*?)<\/code><\/pre>/g)].map((m) => m[1]);
    expect(blocks).toEqual([`${PROGRAM}\n`, `${PROGRAM}\n`]);
    expect(html).not.toContain("<bump-lab");
  });
});

describe("the plugins' fence", () => {
  test("is recognised by its first word only", () => {
    expect(isBumplab("bumplab step=1")).toBe(true);
    expect(isBumplab("  bumplab")).toBe(true);
    expect(isBumplab("bumplabs")).toBe(false);
    expect(isBumplab("rust")).toBe(false);
  });

  test("writes the element with every setting, a fallback link to the same view and the reserved height", async () => {
    const r = renderFence('bumplab allocator=bumpalo target=wasm32 capacity=256 step=2 caption="Two blocks" height=300 theme=dark', `${PROGRAM}\n`, { base: "https://example.org/bl", script: true });
    expect(r.error).toBeUndefined();
    expect(r.element.attributes).toEqual([
      ["program", PROGRAM],
      ["allocator", "bumpalo"],
      ["target", "wasm32"],
      ["step", "2"],
      ["capacity", "256"],
      ["figure", null],
      ["caption", "Two blocks"],
      ["theme", "dark"],
      ["aria-label", "Two blocks"],
    ]);
    expect(r.element.height).toBe(300);
    expect(r.element.title).toBe("Bump Lab: bumpalo on wasm32, op 2 of 3");
    expect(r.html).toContain('<script type="module" src="https://example.org/bl/bump-lab.js"></script>');
    expect(r.html).toContain('style="display:block;min-height:300px"');
    expect(r.html).not.toMatch(/\n\s*\n/);
    expect(r.element.href.startsWith("https://example.org/bl/index.html#v1?")).toBe(true);
    const link = await decodeShare(r.element.href.slice(r.element.href.indexOf("#") + 1));
    expect(link).toEqual({
      ok: true,
      state: { source: PROGRAM, allocator: "bumpalo", target: "wasm32", capacity: 256, minAlign: null, step: 2, compare: null },
    });
  });

  test("says where a bad fence is wrong, and keeps its program readable", () => {
    const bad = renderFence("bumplab alocator=bumpalo", "a = alloc 8\n");
    expect(bad.error).toEqual({ kind: "info", line: 0, column: 9, message: "unknown setting 'alocator': a fence takes allocator, target, capacity, min-align, step, compare, figure, live, caption, height, theme" });
    expect(errorLine("post.md", 12, 4, bad.error)).toBe("post.md:12:12: unknown setting 'alocator': a fence takes allocator, target, capacity, min-align, step, compare, figure, live, caption, height, theme");
    expect(bad.html).toContain("<pre><code>a = alloc 8</code></pre>");
    const program = renderFence("bumplab", "a = alloc 8\nb = allok 8\n");
    expect(program.error?.kind).toBe("program");
    expect(program.error?.line).toBe(2);
    expect(errorLine("post.md", 12, 4, program.error)).toMatch(/^post\.md:14:\d+: /);
  });

  test("markdown-it: a bumplab fence is the fence's HTML, any other is left to markdown-it, the script is written once a page", () => {
    const seen = [];
    const md = { renderer: { rules: { fence: (tokens, idx) => `<pre>${tokens[idx].content}</pre>` } } };
    bumplabMarkdownIt(md, { base: "/bl/", onError: (m) => seen.push(m) });
    const env = { relativePath: "post.md" };
    const tokens = [
      { info: "bumplab step=1", content: "a = alloc 8\n", markup: "```", map: [0, 3] },
      { info: "rust", content: "let a = 1;\n", markup: "```", map: [4, 7] },
      { info: "bumplab", content: "a = alloc 8\n", markup: "```", map: [8, 11] },
      { info: "bumplab stp=1", content: "a = alloc 8\n", markup: "````", map: [12, 15] },
    ];
    const out = tokens.map((_, i) => md.renderer.rules.fence(tokens, i, {}, env, {}));
    expect(out[0]).toBe(renderFence("bumplab step=1", "a = alloc 8\n", { base: "/bl/", script: true }).html);
    expect(out[1]).toBe("<pre>let a = 1;\n</pre>");
    expect(out[2]).toBe(renderFence("bumplab", "a = alloc 8\n", { base: "/bl/", script: false }).html);
    expect(out[3]).toContain("bumplab-fence-error");
    expect(seen).toEqual(["post.md:13:13: unknown setting 'stp': a fence takes allocator, target, capacity, min-align, step, compare, figure, live, caption, height, theme"]);
  });

  test("remark: a bumplab code node becomes an html node with the same HTML", () => {
    const tree = {
      type: "root",
      children: [
        { type: "paragraph", children: [{ type: "text", value: "x" }] },
        { type: "code", lang: "bumplab", meta: "step=1", value: "a = alloc 8", position: { start: { line: 3, column: 1 } } },
        { type: "blockquote", children: [{ type: "code", lang: "bumplab", meta: null, value: "a = alloc 8" }] },
        { type: "code", lang: "rust", meta: null, value: "let a = 1;" },
      ],
    };
    remarkBumplab({ base: "/bl/" })(tree, { path: "post.md" });
    expect(tree.children[1]).toMatchObject({ type: "html", value: renderFence("bumplab step=1", "a = alloc 8", { base: "/bl/", script: true }).html.trimEnd() });
    expect(tree.children[2].children[0]).toMatchObject({ type: "html", value: renderFence("bumplab", "a = alloc 8", { base: "/bl/", script: false }).html.trimEnd() });
    expect(tree.children[3].type).toBe("code");
  });
});
