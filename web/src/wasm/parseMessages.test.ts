import { describe, expect, it } from "vitest";
import { parseParseJob, parseParseReply } from "./parseMessages";

describe("the parse worker's messages", () => {
  it("take a job of an id and a text up to the engine's limit, and nothing else", () => {
    expect(parseParseJob({ id: 3, source: "a = alloc 8" })).toEqual({ id: 3, source: "a = alloc 8" });
    expect(parseParseJob({ id: -1, source: "" })).toBeNull();
    expect(parseParseJob({ id: 1, source: 7 })).toBeNull();
    expect(parseParseJob({ id: 1, source: "x".repeat(32_000_001) })).toBeNull();
    expect(parseParseJob(JSON.parse('{"__proto__": {"id": 1, "source": "a"}}'))).toBeNull();
  });

  it("take a reply of words, a program error or a trap, and nothing else", () => {
    const words = new Uint32Array([1, 2, 3]);
    expect(parseParseReply({ id: 2, kind: "words", words })).toEqual({ id: 2, kind: "words", words });
    expect(parseParseReply({ id: 2, kind: "words", words: [1, 2, 3] })).toBeNull();
    expect(parseParseReply({ id: 2, kind: "error", json: '{"line":1}' })).toEqual({ id: 2, kind: "error", json: '{"line":1}' });
    expect(parseParseReply({ id: 2, kind: "trapped", json: "{}" })).toEqual({ id: 2, kind: "trapped", json: "{}" });
    expect(parseParseReply({ id: 2, kind: "other", json: "{}" })).toBeNull();
    expect(parseParseReply({ id: 2.5, kind: "error", json: "{}" })).toBeNull();
  });
});
