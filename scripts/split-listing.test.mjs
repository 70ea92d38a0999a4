// The split listing reads back as the meter wrote it: every operator's
// offset, text, cost, branch flag, file and line, through the page's own parser.
import { existsSync, mkdtempSync, readFileSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, test } from "vitest";
import { parseListing, parseListingFunction, parseListingIndex } from "../web/src/wasm/listing.ts";
import { splitFunction, splitListing } from "./split-listing.mjs";

const LISTING = {
  format: 1,
  files: ["crates/core/src/algorithms/fitzgen.rs", "bumpalo-3.20.4/src/lib.rs"],
  functions: {
    "3": { name: "empty", ops: [] },
    "12": {
      name: "bumplab_core::algorithms::fitzgen::Fitzgen::alloc",
      ops: [
        [200, "block", 0, 0, 0, 40],
        [202, "local.get 1", 1, 0, 0, 41],
        [204, "i32.sub", 1, 0, 0, 41],
        [205, "br_if 0 (;@1;)", 1, 1, 1, 41],
        [209, "call $alloc_slow", 1, 0, -1, 0],
        [212, "end", 0, 0, -1, 0],
      ],
    },
  },
};

describe("split-listing", () => {
  test("a function's columns read back to the same operators", () => {
    const whole = parseListing(LISTING);
    if ("error" in whole) throw new Error(whole.error);
    for (const [key, f] of Object.entries(LISTING.functions)) {
      const split = JSON.parse(JSON.stringify(splitFunction(f)));
      expect(parseListingFunction(split, Number(key))).toEqual(whole.functions.get(Number(key)));
    }
    expect(splitFunction(LISTING.functions["12"]).lines).toEqual([0, 40, 1, 0, 41, 2, 1, 41, 1, -1, 0, 2]);
  });

  test("writes an index and a file per function; a malformed file is refused", () => {
    const out = join(mkdtempSync(join(tmpdir(), "listing-")), "listing");
    expect(splitListing(LISTING, out)).toBe(2);
    expect(readdirSync(out).sort()).toEqual(["12.json", "3.json", "index.json"]);
    const index = parseListingIndex(JSON.parse(readFileSync(join(out, "index.json"), "utf8")));
    expect(index).toEqual({ files: LISTING.files, functions: new Map() });
    expect(parseListingIndex({ format: 1, files: [] })).toEqual({ error: "the listing has format 1, and this page reads format 2" });
    const f = JSON.parse(readFileSync(join(out, "12.json"), "utf8"));
    expect(parseListingFunction({ ...f, cost: "1" }, 12)).toEqual({ error: "the listing's function 12 is malformed" });
    expect(parseListingFunction({ ...f, lines: [0, 40, 1] }, 12)).toEqual({ error: "the listing's function 12 is malformed" });
  });

  test.runIf(existsSync(new URL("../web/pkg-cost/listing/index.json", import.meta.url)))("the built module's split listing holds every function of its listing.json, operator for operator", () => {
    const dir = new URL("../web/pkg-cost/listing/", import.meta.url);
    const whole = JSON.parse(readFileSync(new URL("../web/pkg-cost/listing.json", import.meta.url), "utf8"));
    const index = JSON.parse(readFileSync(new URL("index.json", dir), "utf8"));
    expect(index.functions).toEqual(Object.keys(whole.functions).map(Number).sort((a, b) => a - b));
    const parsed = parseListing(whole);
    if ("error" in parsed) throw new Error(parsed.error);
    for (const i of index.functions) {
      const f = parseListingFunction(JSON.parse(readFileSync(new URL(`${i}.json`, dir), "utf8")), i);
      expect(f, `function ${i}`).toEqual(parsed.functions.get(i));
    }
  });
});
