// The instruction-level callgrind reader of scripts/callgrind-listing.mjs, on
// a checked-in run: `alloc_u8_slice` through bumpalo, whose entry calls libc's
// memcpy (callgrind 3.19, --dump-instr=yes --collect-jumps=yes), with the
// objdump text of the same addresses.
// Vitest: covered once vitest.config.ts's include lists this file.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, test } from "vitest";
import {
  branchTarget,
  buildListing,
  checkListing,
  listingSums,
  parseCallgrindInstructions,
  parseObjdump,
} from "./callgrind-listing.mjs";

const here = (name) => new URL(`./fixtures/${name}`, import.meta.url);
const OUT = readFileSync(here("callgrind-alloc_u8_slice-bumpalo.out"), "utf8");
const OBJDUMP = readFileSync(here("objdump-alloc_u8_slice-bumpalo.txt"), "utf8");
const BENCH = "/work/main/target/release/bumplab-bench";
const LIBC = "/usr/lib/x86_64-linux-gnu/libc.so.6";
const ENTRY = "bumplab_bench__alloc_u8_slice__bumpalo";

/** The fixture's objdump output holds two objects, each after its `<path>: file format` line (keyed by file name). */
function objdumpByObject(text) {
  const out = new Map();
  const parts = text.split(/^(\S[^\n]*):\s+file format [^\n]*$/m);
  for (let i = 1; i < parts.length; i += 2) out.set(basename(parts[i]), parseObjdump(parts[i + 1]));
  return out;
}
const DISASSEMBLY = objdumpByObject(OBJDUMP);
const disassembly = (object) => DISASSEMBLY.get(basename(object)) ?? new Map();

describe("parseCallgrindInstructions", () => {
  const parsed = parseCallgrindInstructions(OUT);

  test("reads the totals and each executed instruction's own counts", () => {
    expect(parsed.total.Ir).toBe(33);
    expect(parsed.total.Bc).toBe(4);
    const entry = parsed.functions.find((f) => f.name === ENTRY);
    expect(entry?.object).toBe(BENCH);
    // Relative positions: 0x39a90, +2, +1, +1, +3 is the `je` at 0x39a97 (Ir 1, Bc 1).
    expect(entry?.instructions.get(0x39a97)?.events).toMatchObject({ Ir: 1, Bc: 1 });
    // The call site's cost line is memcpy's inclusive cost (10), not the entry's own (1).
    expect(entry?.instructions.get(0x39ac0)?.events.Ir).toBe(1);
    const own = [...(entry?.instructions.values() ?? [])].reduce((a, i) => a + i.events.Ir, 0);
    expect(own).toBe(23);
  });

  test("a jump's target and source lines do not move the relative position", () => {
    const entry = parsed.functions.find((f) => f.name === ENTRY);
    // `jump=1 +7` from the jmp at 0x39ab3, then the next cost line `+7` is 0x39aba.
    expect(entry?.instructions.get(0x39ab3)?.jumps).toEqual([{ conditional: false, target: 0x39aba, followed: 1, executions: 1 }]);
    expect(entry?.instructions.get(0x39aba)?.events.Ir).toBe(1);
  });

  test("records calls with the callee's object and entry address", () => {
    const entry = parsed.functions.find((f) => f.name === ENTRY);
    expect(entry?.calls).toEqual([{ object: LIBC, name: "__memcpy_avx_unaligned_erms", count: 1, target: 0x152a80, site: 0x39ac0 }]);
  });

  test("refuses a file written without --dump-instr", () => {
    const lineLevel = "events: Ir Bc\npositions: line\nfn=f\n1 3 1\njcnd=1/1 2\n1\ntotals: 3 1\n";
    expect(() => parseCallgrindInstructions(lineLevel)).toThrow(/--dump-instr=yes/);
  });
});

describe("buildListing", () => {
  const listing = buildListing(parseCallgrindInstructions(OUT), { entry: ENTRY, disassembly });

  test("the entry first, then what it called, with their own counts", () => {
    expect(listing.functions.map((f) => [f.name, f.ir, f.bc])).toEqual([
      [ENTRY, 23, 2],
      ["__memcpy_avx_unaligned_erms", 10, 2],
    ]);
    expect(listingSums(listing)).toEqual({ ir: 33, bc: 4 });
    const first = listing.functions[0]?.instructions[0];
    expect(first).toEqual({ address: 0x39a90, text: "push %r14", count: 1 });
  });

  test("branch outcomes come from the window's counts, not callgrind's jcnd totals", () => {
    const rows = listing.functions.flatMap((f) => f.instructions.filter((i) => i.taken !== undefined));
    expect(rows.map((r) => [r.address.toString(16), r.taken, r.notTaken])).toEqual([
      ["39a97", 0, 1], // je: the slice is not empty
      ["39aaa", 0, 1], // ja: it fits the chunk
      ["152a87", 1, 0], // memcpy's jb (< 32 bytes): jcnd says 6 follows, counted over the whole run
      ["152ab3", 1, 0], // jae (>= 16 bytes)
    ]);
    // A library's nearest-export annotation is dropped; the address stays.
    expect(rows[2]?.text).toBe("jb 152ab0");
  });

  test("an alias of the entry is shown under the cell's own name, in its heading and its jumps' symbols", () => {
    const other = "bumplab_bench__alloc_u8_slice__other";
    const renamed = OUT.replaceAll(ENTRY, other);
    // objdump may name the shared address after either symbol.
    const aliased = (object, addresses) =>
      new Map([...disassembly(object, addresses)].map(([a, d]) => [a, { ...d, text: d.text.replaceAll(ENTRY, other) }]));
    const l = buildListing(parseCallgrindInstructions(renamed), { entry: ENTRY, aliases: [ENTRY, other], disassembly: aliased });
    expect(l.functions[0]).toMatchObject({ name: ENTRY, alias: other, ir: 23 });
    expect(l.functions[0]?.instructions.find((i) => i.address === 0x39a97)?.text).toBe(`je 39ab5 <${ENTRY}+0x25>`);
  });

  test("fails when an executed address is not an instruction objdump knows", () => {
    const none = () => new Map();
    expect(() => buildListing(parseCallgrindInstructions(OUT), { entry: ENTRY, disassembly: none })).toThrow(/no instruction at 0x39a90/);
  });

  test("fails when the entry did not run", () => {
    expect(() => buildListing(parseCallgrindInstructions(OUT), { entry: "nothing", disassembly })).toThrow(/executed nothing/);
  });
});

describe("checkListing (the sum check)", () => {
  const cell = (ir, bc) => ({
    ir,
    bc,
    functions: [
      {
        instructions: [
          { count: 3 },
          { count: 2, taken: 1, notTaken: 1 },
        ],
      },
    ],
  });

  test("passes when counts add up to Ir and branch executions to Bc", () => {
    expect(() => checkListing(cell(5, 2))).not.toThrow();
  });

  test("fails loudly on a missing instruction or branch", () => {
    expect(() => checkListing(cell(6, 2), "alloc_u8 / bumpalo")).toThrow("alloc_u8 / bumpalo: the instructions add up to 5 / 2, the cell is 6 / 2");
    expect(() => checkListing(cell(5, 3))).toThrow(/5 \/ 2, the cell is 5 \/ 3/);
  });
});

test("branchTarget reads direct jumps and rep repetitions", () => {
  expect(branchTarget("jne 3b7f5 <f+0x35>", 0x3b7cf)).toBe(0x3b7f5);
  expect(branchTarget("rep movsb %ds:(%rsi),%es:(%rdi)", 0x10)).toBe(0x10);
  expect(branchTarget("call 1f820 <f>", 0x10)).toBeNull();
});
