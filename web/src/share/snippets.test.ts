import { describe, expect, it } from "vitest";
import { appBase, embedSnippets } from "./snippets";

describe("share panel snippets", () => {
  it("finds the app's directory from any page address", () => {
    expect(appBase("https://me.github.io/bump-lab/index.html?x=1#v1?a=b")).toBe("https://me.github.io/bump-lab/");
    expect(appBase("https://me.github.io/bump-lab/#v1")).toBe("https://me.github.io/bump-lab/");
    expect(appBase("http://127.0.0.1:4179/")).toBe("http://127.0.0.1:4179/");
  });

  it("writes each snippet with the link, quoted for its context", () => {
    const hash = "v1?a=bumpalo&t=64&s=2&p=a+=+alloc+8&end";
    const s = embedSnippets("https://me.github.io/bump-lab/", hash, "bumpalo");
    expect(s.map((x) => x.id)).toEqual(["iframe", "component", "markdown", "hugo", "jekyll"]);
    const byId = new Map(s.map((x) => [x.id, x.code]));
    expect(byId.get("iframe")).toContain('src="https://me.github.io/bump-lab/embed.html#v1?a=bumpalo&amp;t=64&amp;s=2&amp;p=a+=+alloc+8&amp;end"');
    expect(byId.get("iframe")).toContain('sandbox="allow-scripts allow-same-origin');
    expect(byId.get("component")).toContain('<script type="module" src="https://me.github.io/bump-lab/bump-lab.js"></script>');
    expect(byId.get("component")).toContain('<bump-lab link="v1?a=bumpalo&amp;t=64');
    expect(byId.get("markdown")).toBe(`[![Bump Lab: bumpalo](bumplab-figure.svg)](https://me.github.io/bump-lab/index.html#${hash})`);
    expect(byId.get("hugo")).toMatch(/^\{\{< bumplab src="https:\/\/me\.github\.io\/bump-lab\/embed\.html#v1\?a=bumpalo&amp;t=64/);
    expect(byId.get("jekyll")).toMatch(/^\{% include bumplab\.html src=".+" height="360" %\}$/);
  });

  it("escapes quotes and angle brackets a hand-made link might carry", () => {
    const [iframe] = embedSnippets("https://x.org/", 'v1?a=b&p="><script>&end', "b");
    expect(iframe?.code).not.toContain('"><script>');
    expect(iframe?.code).toContain("&quot;>&lt;script>");
  });
});
