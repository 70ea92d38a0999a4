import { describe, expect, it } from "vitest";
import { errorTokenIndex, tokenize, tokenizeLine, type Token } from "./highlight";

/** Tokens as "kind:text", spaces left out, for compact expectations. */
const kinds = (line: string): string[] =>
  tokenizeLine(line)
    .filter((t) => t.kind !== "space")
    .map((t) => `${t.kind}:${t.text}`);

describe("tokenizeLine", () => {
  it("colours an alloc with a size and an alignment", () => {
    expect(kinds("a = alloc 24 align 8")).toEqual(["name:a", "punct:=", "keyword:alloc", "number:24", "keyword:align", "number:8"]);
  });

  it("knows the types, arrays and hex numbers", () => {
    expect(kinds("b = alloc u64")).toEqual(["name:b", "punct:=", "keyword:alloc", "type:u64"]);
    expect(kinds("c = alloc [usize; 0x1F]")).toEqual([
      "name:c",
      "punct:=",
      "keyword:alloc",
      "punct:[",
      "type:usize",
      "punct:;",
      "number:0x1F",
      "punct:]",
    ]);
    expect(kinds("d = alloc 1_000")).toEqual(["name:d", "punct:=", "keyword:alloc", "number:1_000"]);
  });

  it("marks every statement keyword", () => {
    const source = "a = realloc a 64\nfree a\ncheckpoint s\nrestore s\nreset\nrepeat 3 {\n}";
    const keywords = tokenize(source)
      .flat()
      .filter((t) => t.kind === "keyword")
      .map((t) => t.text);
    expect(keywords).toEqual(["realloc", "free", "checkpoint", "restore", "reset", "repeat"]);
  });

  it("tells comments from #> narration, which only starts a line", () => {
    expect(kinds("# a comment")).toEqual(["comment:# a comment"]);
    expect(kinds("  #> the chunk fills up")).toEqual(["narration:#> the chunk fills up"]);
    expect(kinds("a = alloc 8 #> not narration")).toEqual(["name:a", "punct:=", "keyword:alloc", "number:8", "comment:#> not narration"]);
    // Lesson directives (model/narration.ts) stand out from the narration text.
    expect(kinds("#> !pause")).toEqual(["directive:#> !pause"]);
    expect(kinds("#> ?predict")).toEqual(["directive:#> ?predict"]);
    expect(kinds("#> !highlight a b")).toEqual(["directive:#> !highlight a b"]);
    expect(kinds('#> !try step 5 "back"')).toEqual(['directive:#> !try step 5 "back"']);
    expect(kinds("#> !pause now, please")).toEqual(["narration:#> !pause now, please"]);
    expect(kinds("#> !highlighted text")).toEqual(["narration:#> !highlighted text"]);
    // Inside a comment nothing is a keyword.
    expect(kinds("#alloc 8")).toEqual(["comment:#alloc 8"]);
  });

  it("flags what the engine's lexer rejects", () => {
    expect(kinds("a = alloc 12ab")).toContain("invalid:12ab");
    expect(kinds("a = alloc -4")).toContain("invalid:-4");
    expect(kinds("a = alloc 0x")).toContain("invalid:0x");
    expect(kinds("a = alloc 8 @")).toContain("invalid:@");
    // Non-ASCII letters are not word characters for the engine.
    expect(kinds("é = alloc 8")[0]).toBe("invalid:é");
  });

  it("covers the line exactly, with code-point columns", () => {
    for (const line of ["", "   ", "x=alloc[u8;3]#c", "  é = alloc 8  ", "repeat 2 { y = alloc 1 }"]) {
      const tokens = tokenizeLine(line);
      expect(tokens.map((t) => t.text).join("")).toBe(line);
      let column = 1;
      for (const t of tokens) {
        expect(t.column).toBe(column);
        column += Array.from(t.text).length;
      }
    }
    // The column after a two-unit character counts it once, as the engine does.
    const astral = tokenizeLine("😀 a");
    expect(astral.map((t) => [t.text, t.column])).toEqual([
      ["😀", 1],
      [" ", 2],
      ["a", 3],
    ]);
  });

  it("splits the source into lines as the textarea holds them", () => {
    expect(tokenize("a = alloc 1\n\nfree a").map((l) => l.length)).toEqual([7, 0, 3]);
  });
});

describe("errorTokenIndex", () => {
  const line = "x = alloc 8 align 3";
  const tokens: Token[] = tokenizeLine(line);
  const marked = (column: number): string => {
    const k = errorTokenIndex(tokens, column);
    return k === "end" ? "end" : (tokens[k]?.text ?? "?");
  };

  it("marks the token that starts at the error's column", () => {
    expect(marked(19)).toBe("3");
    expect(marked(13)).toBe("align");
    expect(marked(1)).toBe("x");
  });

  it("marks a token the column falls inside, or the next one after a space", () => {
    expect(marked(7)).toBe("alloc");
    expect(marked(12)).toBe("align");
  });

  it("marks the end of the line past its last character", () => {
    expect(marked(20)).toBe("end");
    expect(errorTokenIndex(tokenizeLine(""), 1)).toBe("end");
    expect(errorTokenIndex(tokenizeLine("a = alloc 8 # why"), 13)).toBe("end");
  });
});
