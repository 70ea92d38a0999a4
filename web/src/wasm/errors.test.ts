import { describe, expect, it } from "vitest";
import { allErrors, parseProgramError } from "./errors";

describe("the modules' error JSON", () => {
  it("reads one error, without a list of more", () => {
    expect(parseProgramError('{"line":2,"column":6,"message":"unknown block \'zz\': no line allocates it"}')).toEqual({
      line: 2,
      column: 6,
      message: "unknown block 'zz': no line allocates it",
    });
  });

  it("keeps the further errors of a program with several, in order, and lists them all", () => {
    const json = JSON.stringify({
      line: 1,
      column: 10,
      message: "expected a size",
      more: [
        { line: 3, column: 5, message: "expected the name of a block to free" },
        { line: 4, message: "no column: not an error" },
        { line: 7, column: 1, message: "'}' without a matching 'repeat N {'" },
      ],
    });
    const e = parseProgramError(json);
    expect(allErrors(e).map((x) => `${x.line}:${x.column}: ${x.message}`)).toEqual([
      "1:10: expected a size",
      "3:5: expected the name of a block to free",
      "7:1: '}' without a matching 'repeat N {'",
    ]);
  });

  it("says what came back when it is not an error", () => {
    expect(parseProgramError("oops").message).toBe("the engine failed without a readable error (oops)");
    expect(parseProgramError(undefined)).toEqual({ line: 1, column: 1, message: "the engine failed without a readable error (undefined)" });
  });
});
