import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decodeShare } from "./link";
import { appBase, embedSnippets, embedTitle, FALLBACK_CSS, fenceInfo } from "./snippets";

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
    // The generators' templates escape the parameter once: it carries the raw link.
    expect(byId.get("hugo")).toBe(`{{< bumplab src="https://me.github.io/bump-lab/embed.html#${hash}" title="Bump Lab: bumpalo" height="360" >}}`);
    expect(byId.get("jekyll")).toBe(`{% include bumplab.html src="https://me.github.io/bump-lab/embed.html#${hash}" title="Bump Lab: bumpalo" height="360" %}`);
  });

  it("reserves the figure's measured height in every snippet that embeds it live", () => {
    const hash = "v1?a=bumpalo&t=64&s=2&p=a+=+alloc+8&end";
    const byId = new Map(
      embedSnippets("https://x.org/", hash, { allocators: ["bumpalo"], figure: false, caption: "", height: 352, theme: "auto" }).map((x) => [x.id, x.code]),
    );
    expect(byId.get("iframe")).toContain(' width="100%" height="352" loading="lazy" ');
    // The element reserves it through a custom property, also while it is not yet defined (FALLBACK_CSS).
    expect(byId.get("component")).toContain('<bump-lab link="v1?a=bumpalo&amp;t=64&amp;s=2&amp;p=a+=+alloc+8&amp;end" style="--bumplab-height:352px">');
    expect(byId.get("component")).toContain("min-height:var(--bumplab-height,auto)");
    expect(byId.get("hugo")).toContain(' height="352" >}}');
    expect(byId.get("jekyll")).toContain(' height="352" %}');
  });

  it("docs/embedding.md shows the component snippet's style as the panel writes it", () => {
    const docs = readFileSync(new URL("../../../docs/embedding.md", import.meta.url), "utf8");
    expect(docs).toContain(`<style>${FALLBACK_CSS}</style>`);
  });

  it("keeps a hand-made link from ending the shortcode's or the include's quoted parameter", async () => {
    const hash = "v1?a=bumpalo&p=\"}}>{{x}}\\ 'y'%}&end".replace("%}", "%25}");
    const s = embedSnippets("https://x.org/", hash, 'bum"}}{%palo');
    const param = (id: string): string => /src="([^"]*)"/.exec(s.find((x) => x.id === id)?.code ?? "")?.[1] ?? "";
    const original = await decodeShare(hash);
    expect(original.ok && original.state.source).toBe("\"}}>{{x}}\\ 'y'%}");
    for (const id of ["hugo", "jekyll"]) {
      expect(param(id), id).toBe("https://x.org/embed.html#v1?a=bumpalo&p=%22%7D%7D%3E%7B%7Bx%7D%7D%5C%20%27y%27%25%7D&end");
      expect(await decodeShare(param(id)), id).toEqual(original);
      expect(s.find((x) => x.id === id)?.code, id).toContain(' title="Bump Lab: bumpalo" ');
    }
  });

  it("escapes quotes and angle brackets a hand-made link might carry", () => {
    const [iframe] = embedSnippets("https://x.org/", 'v1?a=b&p="><script>&end', "b");
    expect(iframe?.code).not.toContain('"><script>');
    expect(iframe?.code).toContain("&quot;>&lt;script>");
  });

  it("writes figures with the panel's settings: the iframe's query, the element's attributes, the height, a title naming every column", () => {
    const hash = "v1?a=hinckley-up&t=64&s=3&x=hinckley-up:64:-:-,fitzgen-down:64:-:-&p=a+=+alloc+8&end";
    const s = embedSnippets("https://x.org/bl/", hash, { allocators: ["hinckley-up", "fitzgen-down"], figure: true, caption: "Up & down", height: 420, theme: "dark" });
    const byId = new Map(s.map((x) => [x.id, x.code]));
    expect(embedTitle(["hinckley-up", "fitzgen-down"])).toBe("Bump Lab: hinckley-up vs fitzgen-down");
    expect(byId.get("iframe")).toContain('src="https://x.org/bl/embed.html?figure=1&amp;caption=Up+%26+down&amp;theme=dark#v1?a=hinckley-up');
    expect(byId.get("iframe")).toContain('title="Bump Lab: hinckley-up vs fitzgen-down" width="100%" height="420"');
    expect(byId.get("component")).toContain('<bump-lab link="v1?a=hinckley-up&amp;t=64&amp;s=3&amp;x=hinckley-up:64:-:-,fitzgen-down:64:-:-&amp;p=a+=+alloc+8&amp;end" figure caption="Up &amp; down" theme="dark" style="--bumplab-height:420px">');
    expect(byId.get("hugo")).toBe('{{< bumplab src="https://x.org/bl/embed.html?figure=1&caption=Up+%26+down&theme=dark#v1?a=hinckley-up&t=64&s=3&x=hinckley-up:64:-:-,fitzgen-down:64:-:-&p=a+=+alloc+8&end" title="Bump Lab: hinckley-up vs fitzgen-down" height="420" >}}');
    expect(byId.has("fence")).toBe(false);
  });

  it("writes the view as a bumplab fence: only the settings that differ from a fence's defaults", () => {
    const one = { allocator: "bumpalo", target: "64", capacity: null, minAlign: null, step: 3, compare: null };
    const plain = { figure: true, caption: "", height: 320, theme: "auto", lastStep: 3 };
    expect(fenceInfo(one, plain)).toBe("bumplab");
    expect(fenceInfo({ ...one, allocator: "bump-scope-up", target: "wasm32", capacity: 512, minAlign: 8, step: 1 }, { ...plain, figure: false, caption: 'a "quoted" word', height: 400, theme: "dark" })).toBe(
      'bumplab allocator=bump-scope-up target=wasm32 capacity=512 min-align=8 step=1 live caption="a \\"quoted\\" word" height=400 theme=dark',
    );
    const compare = [
      { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
      { allocator: "bumpalo", target: "wasm32", minAlign: 8, capacity: null },
    ];
    expect(fenceInfo({ ...one, compare }, plain)).toBe("bumplab compare=hinckley-up,bumpalo:wasm32:8");
    const s = embedSnippets("https://x.org/", "v1?a=b&end", { allocators: ["bumpalo"], figure: true, caption: "", height: 360, theme: "auto", fence: { info: "bumplab step=2", program: "a = alloc 8\nb = ```\n" } });
    expect(s.find((x) => x.id === "fence")?.code).toBe("````bumplab step=2\na = alloc 8\nb = ```\n````");
  });
});
