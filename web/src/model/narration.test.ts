import { describe, expect, it } from "vitest";
import { lineOf, type TraceView } from "../engine/traceView";
import { traced } from "../test/runs";
import { inlineText, narrationAt, parseInline, parseNarration, parseParagraphs, pausesAt, predictsNext, safeHref } from "./narration";

function trace(source: string, allocator = "fitzgen-down"): TraceView {
  return traced(source, allocator, { capacity: 256 });
}

describe("parseNarration", () => {
  it("attaches a #> block to the statement below it, joining lines and splitting paragraphs", () => {
    const src = ["#> First line", "#> goes on.", "#>", "#> Second paragraph.", "a = alloc 8", "b = alloc 8"].join("\n");
    const n = parseNarration(src);
    expect([...n.keys()]).toEqual([5]);
    expect(n.get(5)).toEqual({ text: "First line goes on.\n\nSecond paragraph.", pause: false, predict: false, highlight: [] });
  });

  it("reads the directives and keeps them out of the text", () => {
    const src = ["  #> !pause", "#> ?predict", "#> !highlight a b", "#> !highlight b, c", "#> Look.", "c = alloc 8"].join("\n");
    expect(parseNarration(src).get(6)).toEqual({ text: "Look.", pause: true, predict: true, highlight: ["a", "b", "c"] });
  });

  it("treats an unknown directive-looking line as text", () => {
    expect(parseNarration("#> !stop here\na = alloc 1").get(2)?.text).toBe("!stop here");
  });

  it("does not join #> lines a plain line separates, but still attaches both to the next statement", () => {
    const src = ["#> One.", "# a plain comment", "", "#> Two.", "a = alloc 1"].join("\n");
    expect(parseNarration(src).get(5)?.text).toBe("One.\n\nTwo.");
  });

  it("skips repeat openers and closers: narration goes to the next statement that runs", () => {
    const src = ["#> Before the loop.", "repeat 3 {", "  #> Inside.", "  x = alloc 8", "}", "#> After.", "y = alloc 8"].join("\n");
    const n = parseNarration(src);
    expect([...n.entries()]).toEqual([
      [4, { text: "Before the loop.\n\nInside.", pause: false, predict: false, highlight: [] }],
      [7, { text: "After.", pause: false, predict: false, highlight: [] }],
    ]);
  });

  it("counts a statement on a one-line repeat's line", () => {
    expect([...parseNarration("#> Loop.\nrepeat 2 { a = alloc 8 }").keys()]).toEqual([2]);
  });

  it("adds narration after the last statement to that statement's narration", () => {
    const src = ["a = alloc 1", "#> Said first.", "b = alloc 1", "#> The end.", "#> !pause"].join("\n");
    expect(parseNarration(src).get(3)).toEqual({ text: "Said first.\n\nThe end.", pause: true, predict: false, highlight: [] });
    expect(parseNarration("a = alloc 1\n#> Only an ending.").get(1)?.text).toBe("Only an ending.");
  });

  it("drops narration when there is no statement at all", () => {
    expect(parseNarration("#> Nothing to narrate.\n# comment").size).toBe(0);
  });

  it("reads CRLF and lone CR line endings", () => {
    const src = "#> Windows\r\n#> lines.\r\na = alloc 1\r\n#> Old Mac.\rb = alloc 1";
    const n = parseNarration(src);
    expect(n.get(3)?.text).toBe("Windows lines.");
    expect(n.get(5)?.text).toBe("Old Mac.");
  });

  it("keeps trailing comments on a statement line from hiding the statement", () => {
    expect([...parseNarration("#> x\na = alloc 8 # the first").keys()]).toEqual([2]);
  });

  it("agrees with the engine's op lines, inside repeats and with CRLF", () => {
    const src = ["#> Intro.", "a = alloc 8", "repeat 2 {", "  #> ?predict", "  #> Each time.", "  b = alloc u64", "}", "#> Last.", "free b", "#> Fin."].join("\r\n");
    const t = trace(src);
    const n = parseNarration(src);
    expect([0, 1, 2, 3].map((i) => lineOf(t, i))).toEqual([2, 6, 6, 9]);
    expect([...n.keys()]).toEqual([2, 6, 9]);
    expect(narrationAt(t, 0, n)).toBeNull();
    expect(narrationAt(t, 1, n)?.text).toBe("Intro.");
    // Both iterations of the loop body show its narration.
    expect(narrationAt(t, 2, n)?.text).toBe("Each time.");
    expect(narrationAt(t, 3, n)?.text).toBe("Each time.");
    expect(narrationAt(t, 4, n)?.text).toBe("Last.\n\nFin.");
    // The question is asked before b's op runs: at steps 1 and 2.
    expect([0, 1, 2, 3, 4].map((s) => predictsNext(t, s, n))).toEqual([false, true, true, false, false]);
    expect([0, 1, 2, 3, 4].map((s) => pausesAt(t, s, n))).toEqual([false, true, true, false, false]);
  });

  it("treats hostile text as text", () => {
    const src = '#> <img src=x onerror="alert(1)"> <script>alert(2)</script>\na = alloc 1';
    const text = parseNarration(src).get(2)?.text ?? "";
    expect(text).toBe('<img src=x onerror="alert(1)"> <script>alert(2)</script>');
    expect(parseInline(text)).toEqual([{ kind: "text", text }]);
  });
});

describe("markdown-lite", () => {
  it("parses emphasis, strong, code and links", () => {
    expect(parseInline("a *b* **c** `d*e*` [f](https://example.com/x?y=1)")).toEqual([
      { kind: "text", text: "a " },
      { kind: "em", children: [{ kind: "text", text: "b" }] },
      { kind: "text", text: " " },
      { kind: "strong", children: [{ kind: "text", text: "c" }] },
      { kind: "text", text: " " },
      { kind: "code", text: "d*e*" },
      { kind: "text", text: " " },
      { kind: "link", href: "https://example.com/x?y=1", children: [{ kind: "text", text: "f" }] },
    ]);
  });

  it("nests emphasis and code inside strong and link labels", () => {
    expect(parseInline("**bump `down` *now*!**")).toEqual([
      {
        kind: "strong",
        children: [
          { kind: "text", text: "bump " },
          { kind: "code", text: "down" },
          { kind: "text", text: " " },
          { kind: "em", children: [{ kind: "text", text: "now" }] },
          { kind: "text", text: "!" },
        ],
      },
    ]);
    expect(parseInline("[*see* `x`](http://a.example)")).toEqual([
      { kind: "link", href: "http://a.example/", children: [{ kind: "em", children: [{ kind: "text", text: "see" }] }, { kind: "text", text: " " }, { kind: "code", text: "x" }] },
    ]);
  });

  it("leaves arithmetic, unclosed markers and escapes as text", () => {
    expect(inlineText(parseInline("2 * 3 * 4"))).toBe("2 * 3 * 4");
    expect(parseInline("2 * 3 * 4")).toEqual([{ kind: "text", text: "2 * 3 * 4" }]);
    expect(parseInline("a *b")).toEqual([{ kind: "text", text: "a *b" }]);
    expect(parseInline("`open")).toEqual([{ kind: "text", text: "`open" }]);
    expect(parseInline("\\*not em\\*")).toEqual([{ kind: "text", text: "*not em*" }]);
  });

  it("renders only http(s) links; other schemes stay text", () => {
    for (const bad of ["[x](javascript:alert(1))", "[x](data:text/html,hi)", "[x](//evil.example)", "[x](vbscript:msgbox)", "[x](JAVASCRIPT:alert(1))", "[x](https://x.example/ spaced)", "[x](/relative)"]) {
      const nodes = parseInline(bad);
      expect(nodes.every((n) => n.kind === "text"), bad).toBe(true);
      expect(inlineText(nodes)).toBe(bad.replace("\\", ""));
    }
    expect(safeHref("javascript:alert(1)")).toBeNull();
    expect(safeHref("https://ok.example/a")).toBe("https://ok.example/a");
    expect(safeHref('https://x.example/"onmouseover=alert(1)')).toBeNull();
  });

  it("splits paragraphs on blank lines", () => {
    expect(parseParagraphs("one\n\ntwo *2*").map(inlineText)).toEqual(["one", "two 2"]);
    expect(parseParagraphs("")).toEqual([]);
  });
});
