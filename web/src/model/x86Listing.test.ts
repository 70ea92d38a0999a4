import { readFileSync } from "node:fs";
import { describe, expect, test } from "vitest";
import raw from "../../../docs/bench/native-x86_64.json";
import { parseX86Bench } from "./x86";
import { branchText, listingSums, parseX86Listing, parseX86Listings, totalText } from "./x86Listing";

const bench = parseX86Bench(raw as unknown);
const file = JSON.parse(readFileSync(new URL("../../../docs/bench/native-x86_64-listings.json", import.meta.url), "utf8")) as unknown;
const listings = parseX86Listings(file);

describe("the shipped listings", () => {
  test("every measured cell of the table has a listing that adds up to its Ir and Bc", () => {
    let cells = 0;
    for (const c of bench.cases) {
      for (const [lib, count] of Object.entries(c.results)) {
        if (count === null) continue;
        cells++;
        const listing = listings.cells[c.name]?.[lib];
        expect(listing, `${c.name} / ${lib}`).toBeDefined();
        if (!listing) continue;
        expect({ case: c.name, lib, ...listingSums(listing) }).toEqual({ case: c.name, lib, ir: count.ir, bc: count.bc });
        expect({ case: c.name, lib, ir: listing.ir, bc: listing.bc }).toEqual({ case: c.name, lib, ir: count.ir, bc: count.bc });
        // Each function's own totals add up too, and every conditional branch's outcomes to its executions.
        for (const f of listing.functions) {
          expect(f.instructions.reduce((a, i) => a + i.count, 0)).toBe(f.ir);
          for (const i of f.instructions) if (i.taken !== undefined) expect(i.taken + (i.notTaken ?? 0)).toBe(i.count);
        }
      }
    }
    expect(cells).toBeGreaterThan(200);
    // No listing for a cell the table does not have.
    const listed = Object.entries(listings.cells).flatMap(([name, libs]) => Object.keys(libs).map((lib) => `${name}/${lib}`));
    expect(listed.length).toBe(cells);
  });

  test("bumpalo's alloc_u8 is the anchor's 10 instructions, its one branch not taken on the fast path", () => {
    const l = listings.cells["alloc_u8"]?.["bumpalo"];
    expect(l && totalText(l)).toBe("10 instructions, 1 conditional branch");
    const entry = l?.functions[0];
    expect(entry?.name).toBe("bumplab_bench__alloc_u8__bumpalo");
    const branch = entry?.instructions.find((i) => i.taken !== undefined);
    expect(branch?.text).toMatch(/^j/);
    expect(branch && branchText(branch)).toBe("not taken 1×");
    expect(entry?.instructions.at(-1)?.text).toBe("ret");
  });
});

describe("parseX86Listing", () => {
  const cell = {
    ir: 3,
    bc: 1,
    functions: [{ name: "f", object: "bumplab-bench", ir: 3, bc: 1, instructions: [["10", "cmp %rsi,%rax", 1], ["13", "je 20 <f+0x10>", 1, 1, 0], ["20", "ret", 1]] }],
  };

  test("reads instructions and branch outcomes", () => {
    const l = parseX86Listing(cell, "c / l");
    expect(l.functions[0]?.instructions[1]).toEqual({ address: "13", text: "je 20 <f+0x10>", count: 1, taken: 1, notTaken: 0 });
    expect(totalText(l)).toBe("3 instructions, 1 conditional branch");
  });

  test("refuses a listing that does not add up to its cell", () => {
    expect(() => parseX86Listing({ ...cell, ir: 4 }, "alloc_u8 / bumpalo")).toThrow(
      "native-x86_64-listings.json: alloc_u8 / bumpalo: its instructions add up to 3 / 1, not the cell's 4 / 1",
    );
    expect(() => parseX86Listing({ ...cell, bc: 2 }, "c / l")).toThrow(/3 \/ 1, not the cell's 3 \/ 2/);
  });

  test("names the first bad field", () => {
    const bad = { ...cell, functions: [{ ...cell.functions[0], instructions: [["zz", "ret", 1]] }] };
    expect(() => parseX86Listing(bad, "c / l")).toThrow("c / l.functions[0].instructions[0]: the address is not hexadecimal");
    expect(() => parseX86Listings({ format: 2, cells: {} })).toThrow(/format 2 is not 1/);
  });
});

test("totals and outcomes in words", () => {
  expect(totalText({ ir: 1, bc: 0 })).toBe("1 instruction, 0 conditional branches");
  expect(totalText({ ir: 24, bc: 2 })).toBe("24 instructions, 2 conditional branches");
  expect(branchText({ address: "1", text: "jb 2", count: 4, taken: 3, notTaken: 1 })).toBe("taken 3×, not taken 1×");
  expect(branchText({ address: "1", text: "ret", count: 1 })).toBeUndefined();
});
