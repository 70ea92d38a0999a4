import { describe, expect, it } from "vitest";
import { lineOf, type TraceView } from "../wasm/traceView";
import { traced } from "../test/runs";
import { inlineText, narrationAt, narrationErrors, parseInline, parseNarration, parseParagraphs, pausesAt, predictsNext, safeHref, tryProblem, type TryAction } from "./narration";

function trace(source: string, allocator = "fitzgen-down"): TraceView {
  return traced(source, allocator, { capacity: 256 });
}

describe("parseNarration", () => {
  it("attaches a #> block to the statement below it, joining lines and splitting paragraphs", () => {
    const src = ["#> First line", "#> goes on.", "#>", "#> Second paragraph.", "a = alloc 8", "b = alloc 8"].join("\n");
    const n = parseNarration(src);
    expect([...n.keys()]).toEqual([5]);
    expect(n.get(5)).toEqual({ text: "First line goes on.\n\nSecond paragraph.", pause: false, predict: false, highlight: [], tries: [] });
  });

  it("reads the directives and keeps them out of the text", () => {
    const src = ["  #> !pause", "#> ?predict", "#> !highlight a b", "#> !highlight b, c", "#> Look.", "c = alloc 8"].join("\n");
    expect(parseNarration(src).get(6)).toEqual({ text: "Look.", pause: true, predict: true, highlight: ["a", "b", "c"], tries: [] });
  });

  it("reports an unknown directive at its line instead of reading it as text", () => {
    const src = "#> !stop here\na = alloc 1";
    expect(parseNarration(src).get(2)?.text).toBe("");
    expect(narrationErrors(src)).toEqual([{ line: 1, message: "unknown directive `!stop`: a narration directive is one of `!pause`, `?predict`, `!highlight`, `!try`" }]);
    // Text that merely starts with punctuation is still text.
    expect(parseNarration("#> !!! Look.\n#> ? Why.\na = alloc 1").get(3)?.text).toBe("!!! Look. ? Why.");
    expect(narrationErrors("#> !!! Look.\na = alloc 1")).toEqual([]);
  });

  it("reads Try-it actions with their default or quoted labels, in order", () => {
    const src = [
      "#> Try others.",
      "#> !try allocator hinckley-up-naive",
      '#> !try compare bump-scope-down bumpalo "both real crates"',
      "#> !try step 3",
      "a = alloc 8",
      "#> !try compare hinckley-up",
      "b = alloc 8",
    ].join("\n");
    const n = parseNarration(src);
    expect(n.get(5)?.tries).toEqual([
      { kind: "allocator", allocator: "hinckley-up-naive", label: "switch to hinckley-up-naive", line: 2 },
      { kind: "compare", allocators: ["bump-scope-down", "bumpalo"], label: "both real crates", line: 3 },
      { kind: "step", step: 3, label: "go to op 3", line: 4 },
    ]);
    expect(n.get(7)?.tries).toEqual([{ kind: "compare", allocators: ["hinckley-up"], label: "compare with hinckley-up", line: 6 }]);
    expect(narrationErrors(src)).toEqual([]);
  });

  it("reports each malformed directive at its line, and keeps the rest", () => {
    const src = [
      "#> !try allocator",
      "#> !try compare a b c d",
      "#> !try step five",
      "#> !try jump 3",
      '#> !try step 2 "unclosed',
      "#> !pause now",
      "#> !highlight",
      "#> !try allocator bumpalo",
      "a = alloc 8",
    ].join("\n");
    expect(narrationErrors(src).map((e) => e.line)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(narrationErrors(src)[3]?.message).toMatch(/^`!try jump` is not an action/);
    expect(narrationErrors(src)[5]?.message).toBe("`!pause` takes nothing after it");
    const n = parseNarration(src).get(9);
    expect(n?.tries.map((t) => t.label)).toEqual(["switch to bumpalo"]);
    expect(n?.pause).toBe(false);
  });

  it("checks a Try-it action against the run it would act on", () => {
    const ctx = { allocators: new Set(["fitzgen-down", "bumpalo"]), ops: 4 };
    const at = (action: TryAction): string | null => tryProblem(action, ctx);
    const common = { label: "x", line: 1 };
    expect(at({ kind: "allocator", allocator: "bumpalo", ...common })).toBeNull();
    expect(at({ kind: "allocator", allocator: "nope", ...common })).toBe("`!try` names no allocator the engine has: `nope`");
    expect(at({ kind: "compare", allocators: ["bumpalo", "gone"], ...common })).toBe("`!try` names no allocator the engine has: `gone`");
    expect(at({ kind: "step", step: 4, ...common })).toBeNull();
    expect(at({ kind: "step", step: 5, ...common })).toBe("`!try step 5`: the program runs 4 ops");
  });

  it("does not join #> lines a plain line separates, but still attaches both to the next statement", () => {
    const src = ["#> One.", "# a plain comment", "", "#> Two.", "a = alloc 1"].join("\n");
    expect(parseNarration(src).get(5)?.text).toBe("One.\n\nTwo.");
  });

  it("skips repeat openers and closers: narration goes to the next statement that runs", () => {
    const src = ["#> Before the loop.", "repeat 3 {", "  #> Inside.", "  x = alloc 8", "}", "#> After.", "y = alloc 8"].join("\n");
    const n = parseNarration(src);
    expect([...n.entries()]).toEqual([
      [4, { text: "Before the loop.\n\nInside.", pause: false, predict: false, highlight: [], tries: [] }],
      [7, { text: "After.", pause: false, predict: false, highlight: [], tries: [] }],
    ]);
  });

  it("counts a statement on a one-line repeat's line", () => {
    expect([...parseNarration("#> Loop.\nrepeat 2 { a = alloc 8 }").keys()]).toEqual([2]);
  });

  it("adds narration after the last statement to that statement's narration", () => {
    const src = ["a = alloc 1", "#> Said first.", "b = alloc 1", "#> The end.", "#> !pause"].join("\n");
    expect(parseNarration(src).get(3)).toEqual({ text: "Said first.\n\nThe end.", pause: true, predict: false, highlight: [], tries: [] });
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
