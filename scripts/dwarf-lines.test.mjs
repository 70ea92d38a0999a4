// The Instructions view's source lines, read a second way. The listing the
// view fetches (web/pkg-cost/listing/, the meter's gimli reading of the debug
// build, split per function) must give, for every instrumented operator on a
// line of a seed algorithm or model, the file and line LLVM's own DWARF reader
// gives for that operator's code address (scripts/dwarf-lines.mjs). The
// pieces of that second reader are checked here on small inputs first.
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, test } from "vitest";
import { parseListingFunction, parseListingIndex } from "../web/src/wasm/listing.ts";
import {
  callerLine,
  compareListing,
  demangle,
  describeDisagreement,
  DWARFDUMP,
  indexCalls,
  inlinedCallParser,
  isSeedSource,
  lineSequences,
  lineTableParser,
  matchFunctions,
  normalisePath,
  parseModule,
  readDebugBuild,
  rowAt,
  splitCopy,
  unitParser,
  withoutDisambiguators,
} from "./dwarf-lines.mjs";

const feed = (parser, text) => {
  for (const line of text.split("\n")) parser.line(line);
  return parser;
};

describe("the second reader's pieces", () => {
  test("legacy Rust symbols demangle as wasm-bindgen writes them; v0 names lose their crate disambiguators", () => {
    expect(demangle("_ZN12wasm_bindgen19__wbindgen_describe17h49b3c37d6615feafE")).toBe("wasm_bindgen::__wbindgen_describe::h49b3c37d6615feaf");
    expect(demangle("_ZN4core3ptr51drop_in_place$LT$bumplab_core..program..Program$GT$17h0123456789abcdefE")).toBe(
      "core::ptr::drop_in_place<bumplab_core::program::Program>::h0123456789abcdef",
    );
    expect(demangle("_ZN95_$LT$bumplab_core..models..bumpalo..Bumpalo$LT$W$C$_$GT$$u20$as$u20$bumplab_core..Allocator$GT$5alloc17hffffffffffffffffE")).toBe(
      "<bumplab_core::models::bumpalo::Bumpalo<W,_> as bumplab_core::Allocator>::alloc::hffffffffffffffff",
    );
    // Demangled already, or not a symbol: as it is.
    expect(demangle("bumplab_core::engine::run::h0123456789abcdef")).toBe("bumplab_core::engine::run::h0123456789abcdef");
    expect(demangle("traceProgram")).toBe("traceProgram");
    expect(splitCopy("alloc::fmt::format[3]")).toEqual({ base: "alloc::fmt::format", copy: 3 });
    expect(splitCopy("<[u8]>::len")).toEqual({ base: "<[u8]>::len", copy: 0 });
    expect(withoutDisambiguators("<core[c5930c85a12de822]::fmt::Formatter>::pad")).toBe("<core::fmt::Formatter>::pad");
    expect(withoutDisambiguators("<[f64] as core[c59]::fmt::Debug>::fmt")).toBe("<[f64] as core::fmt::Debug>::fmt");
  });

  test("paths are named as the listing names them", () => {
    const root = "/home/dev/bump-lab";
    const cases = [
      ["/home/dev/bump-lab/crates/core/src/algorithms/bump_down.rs", "crates/core/src/algorithms/bump_down.rs"],
      ["/home/dev/bump-lab/crates/cost/src/../../meter/src/rebuild.rs", "crates/meter/src/rebuild.rs"],
      ["/home/dev/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/bumpalo-3.20.4/src/lib.rs", "bumpalo-3.20.4/src/lib.rs"],
      ["/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/num/uint_macros.rs", "library/core/src/num/uint_macros.rs"],
      ["/rust/deps/hashbrown-0.16.1/src/map.rs", "hashbrown-0.16.1/src/map.rs"],
      ["/home/dev/bump-lab/target/wasm32-unknown-unknown/release/build/bumplab-core-0123/out/step_lines.rs", null],
      ["/home/dev/bump-lab-other/crates/core/src/lib.rs", null],
      ["/tmp/generated.rs", null],
    ];
    for (const [path, want] of cases) expect(normalisePath(path, root), path).toBe(want);
  });

  // What llvm-dwarfdump 14 prints, cut down: one unit, one table of two sequences.
  const UNITS = `
0x00000000: Compile Unit: length = 0x00000100, format = DWARF32, version = 0x0004, abbr_offset = 0x0000, addr_size = 0x04 (next unit at 0x00000104)

0x0000000b: DW_TAG_compile_unit
              DW_AT_name	("crates/core/src/lib.rs/@/bumplab_core.cgu.0")
              DW_AT_stmt_list	(0x00000000)
              DW_AT_comp_dir	("/home/dev/bump-lab")`;
  const LINES = `
debug_line[0x00000000]
Line table prologue:
    total_length: 0x00000100
         version: 4
include_directories[  1] = "/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860"
include_directories[  2] = "crates/core/src/algorithms"
file_names[  1]:
           name: "library/core/src/num/uint_macros.rs"
      dir_index: 1
       mod_time: 0x00000000
         length: 0x00000000
file_names[  2]:
           name: "bump_down.rs"
      dir_index: 2
       mod_time: 0x00000000
         length: 0x00000000

Address            Line   Column File   ISA Discriminator Flags
------------------ ------ ------ ------ --- ------------- -------------
0x0000000000000010     62     24      2   0             0  is_stmt prologue_end
0x0000000000000014     70     16      2   0             0  is_stmt
0x0000000000000014     71     16      2   0             0
0x0000000000000018      0     16      2   0             0
0x000000000000001c   3890     24      1   0             0  is_stmt
0x0000000000000020     81      9      2   0             0  is_stmt end_sequence
0x0000000000000030     28      5      2   0             0  is_stmt
0x0000000000000034     28      5      2   0             0  is_stmt end_sequence
`;

  test("a line table's row for an address: the last at or before it in its sequence, none past a sequence's end", () => {
    const seqs = lineSequences(feed(lineTableParser(), LINES).tables, feed(unitParser(), UNITS).units, "/home/dev/bump-lab");
    const at = (a) => {
      const r = rowAt(seqs, a);
      return r ? `${r.file}:${r.line}` : "none";
    };
    expect([0x0f, 0x10, 0x13, 0x14, 0x17, 0x18, 0x1c, 0x1f, 0x20, 0x2f, 0x30, 0x33, 0x34].map(at)).toEqual([
      "none",
      "crates/core/src/algorithms/bump_down.rs:62",
      "crates/core/src/algorithms/bump_down.rs:62",
      // Two rows at one address: the last.
      "crates/core/src/algorithms/bump_down.rs:71",
      "crates/core/src/algorithms/bump_down.rs:71",
      "crates/core/src/algorithms/bump_down.rs:0",
      "library/core/src/num/uint_macros.rs:3890",
      "library/core/src/num/uint_macros.rs:3890",
      "none",
      "none",
      "crates/core/src/algorithms/bump_down.rs:28",
      "crates/core/src/algorithms/bump_down.rs:28",
      "none",
    ]);
  });

  test("the innermost inlined call outside the standard library around an address", () => {
    const INFO = `${UNITS}

0x00000040:   DW_TAG_subprogram
                DW_AT_low_pc	(0x00000010)
                DW_AT_high_pc	(0x00000040)

0x00000050:     DW_TAG_inlined_subroutine
                  DW_AT_abstract_origin	(0x00000090 "alloc")
                  DW_AT_ranges	(0x00000000
                     [0x00000012, 0x00000020)
                     [0x00000028, 0x00000030))
                  DW_AT_call_file	("crates/core/src/models/fixed.rs")
                  DW_AT_call_line	(40)

0x00000060:       DW_TAG_inlined_subroutine
                    DW_AT_low_pc	(0x00000018)
                    DW_AT_high_pc	(0x00000020)
                    DW_AT_call_file	("crates/core/src/algorithms/bump_down.rs")
                    DW_AT_call_line	(70)

0x00000070:         DW_TAG_inlined_subroutine
                      DW_AT_low_pc	(0x0000001c)
                      DW_AT_high_pc	(0x00000020)
                      DW_AT_call_file	("/rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/core/src/ops/bit.rs")
                      DW_AT_call_line	(12)

0x00000080:         NULL

0x00000081:       NULL
`;
    const parser = feed(inlinedCallParser("/home/dev/bump-lab"), INFO);
    parser.finish();
    // The standard library's call site is not kept.
    expect(parser.calls.map((c) => [c.callFile, c.callLine, c.ranges])).toEqual([
      ["crates/core/src/models/fixed.rs", 40, [[0x12, 0x20], [0x28, 0x30]]],
      ["crates/core/src/algorithms/bump_down.rs", 70, [[0x18, 0x20]]],
    ]);
    const index = indexCalls(parser.calls);
    const at = (a) => {
      const c = callerLine(index, a);
      return c ? `${c.file}:${c.line}` : "none";
    };
    expect([0x10, 0x12, 0x18, 0x1d, 0x20, 0x2c, 0x30].map(at)).toEqual([
      "none",
      "crates/core/src/models/fixed.rs:40",
      "crates/core/src/algorithms/bump_down.rs:70",
      "crates/core/src/algorithms/bump_down.rs:70",
      "none",
      "crates/core/src/models/fixed.rs:40",
      "none",
    ]);
  });

  /** A module of `bodies` (operator bytes), after one imported function, named by `names`. */
  function module(bodies, names) {
    const leb = (n) => {
      const out = [];
      do {
        let b = n & 0x7f;
        n >>>= 7;
        if (n) b |= 0x80;
        out.push(b);
      } while (n);
      return out;
    };
    const str = (s) => [...leb(s.length), ...new TextEncoder().encode(s)];
    const section = (id, bytes) => [id, ...leb(bytes.length), ...bytes];
    const code = bodies.map((ops) => {
      const body = [0x01, 0x01, 0x7f, ...ops, 0x0b];
      return [...leb(body.length), ...body];
    });
    const nameMap = [...leb(names.length), ...names.flatMap((n, i) => [...leb(i + 1), ...str(n)])];
    return new Uint8Array([
      0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
      ...section(1, [0x01, 0x60, 0x00, 0x00]),
      ...section(2, [0x01, ...str("env"), ...str("f"), 0x00, 0x00]),
      ...section(3, [...leb(bodies.length), ...bodies.map(() => 0x00)]),
      ...section(10, [...leb(bodies.length), ...code.flat()]),
      ...section(0, [...str("name"), 0x01, ...leb(nameMap.length), ...nameMap]),
    ]);
  }

  test("operators are read with their offsets, and functions match by name and operators up to renumbered indices", () => {
    // i32.const -3, local.get 0, i32.load offset=8, br_if 0, call 0, i64.const 2^40, drop
    const ops = (call, constant) => [0x41, 0x7d, 0x20, 0x00, 0x28, 0x02, 0x08, 0x0d, 0x00, 0x10, call, 0x42, 0x80, 0x80, 0x80, 0x80, 0x80, constant, 0x1a, 0x1a, 0x1a];
    const debug = parseModule(module([ops(0, 0x20), ops(0, 0x20), [0x01]], ["_ZN4core3fmt5write17h0000000000000000E", "_ZN4core3fmt5write17h0000000000000000E", "_ZN1a1b17h0000000000000000E"]));
    expect(debug.funcImports).toBe(1);
    expect(debug.bodies[0]?.ops.map((o) => o.key)).toEqual(["65 -3", "32", "40 2 8", "13 0", "16", "66 1099511627776", "26", "26", "26", "11"]);
    // Offsets: the body's size, then its one group of locals (3 bytes), then the operators.
    const first = debug.bodies[0];
    expect(first?.ops.map((o) => o.offset - (first?.start ?? 0))).toEqual([3, 5, 7, 10, 12, 14, 21, 22, 23, 24]);
    // The final module: the call renumbered (matches), the second copy's constant changed (does not), the third name unknown.
    const fin = parseModule(module([ops(5, 0x20), ops(5, 0x21), [0x01]], ["core::fmt::write::h0000000000000000", "core::fmt::write::h0000000000000000[1]", "glue"]));
    const m = matchFunctions(debug, fin);
    expect([...m.matched]).toEqual([[1, 0]]);
    expect(m.differing).toEqual(["core::fmt::write::h0000000000000000[1]"]);
    expect(m.unmatched).toBe(1);
  });

  test("a listing that disagrees with the reader is reported by function, operator, both lines and the address", () => {
    const lines = [
      { file: "crates/core/src/algorithms/bump_up.rs", line: 30, via: "row", address: 0x100 },
      { file: "library/core/src/num/mod.rs", line: 9, via: "row", address: 0x104 },
      { file: "crates/core/src/models/fixed.rs", line: 12, via: "call", address: 0x108 },
      null,
    ];
    const reader = { opCount: () => 4, offsetOf: (_f, op) => 1000 + op, lineOf: (_f, op) => lines[op] };
    const listing = (rows) => ({ functions: new Map([[7, { name: "alloc", ops: rows.map(([file, line], i) => ({ offset: 1000 + i, file, line })) }]]) });
    const agree = compareListing(reader, listing([["crates/core/src/algorithms/bump_up.rs", 30], ["library/core/src/num/mod.rs", 9], ["crates/core/src/models/fixed.rs", 12], [null, 0]]));
    expect([agree.compared, agree.byRow, agree.byCall, agree.disagreements]).toEqual([2, 1, 1, []]);
    const shifted = compareListing(reader, listing([["crates/core/src/algorithms/bump_up.rs", 31], ["library/core/src/num/mod.rs", 9], [null, 0], ["crates/core/src/models/zig_arena.rs", 3]]));
    expect(shifted.disagreements.map(describeDisagreement)).toEqual([
      "function 7 (alloc) operator 0: the listing says crates/core/src/algorithms/bump_up.rs:31, llvm-dwarfdump's line table crates/core/src/algorithms/bump_up.rs:30 (code address 0x100)",
      "function 7 (alloc) operator 2: the listing says no line, the innermost inlined call outside the standard library (llvm-dwarfdump --debug-info) crates/core/src/models/fixed.rs:12 (code address 0x108)",
      "function 7 (alloc) operator 3: the listing says crates/core/src/models/zig_arena.rs:3, llvm-dwarfdump's line table no line (code address 0x?)",
    ]);
  });
});

// ---- The built cost module -------------------------------------------------------

const pkg = (name) => fileURLToPath(new URL(`../web/pkg-cost/${name}`, import.meta.url));
const repoRoot = fileURLToPath(new URL("..", import.meta.url));
const built = ["cost_bg.debug.wasm", "cost_bg.unmetered.wasm", "listing/index.json"].every((f) => existsSync(pkg(f)));
const haveDwarfdump = spawnSync(DWARFDUMP, ["--version"]).status === 0;
// Under `npm test` a missing module or tool fails here instead of skipping.
const required = process.env["BUMPLAB_NPM_TEST"] !== undefined;

describe.runIf(required || (built && haveDwarfdump))("the built cost module's listing, against llvm-dwarfdump", () => {
  let reader;
  let listing;

  beforeAll(async () => {
    if (!built) throw new Error("web/pkg-cost is not built (cost_bg.debug.wasm, cost_bg.unmetered.wasm, listing/): node scripts/build-wasm.mjs");
    if (!haveDwarfdump) throw new Error(`${DWARFDUMP} is missing: node scripts/setup.mjs --with-native-tools installs Debian's llvm-14`);
    // The listing exactly as the Instructions view reads it: the index, then each function's file.
    const index = JSON.parse(readFileSync(pkg("listing/index.json"), "utf8"));
    const parsed = parseListingIndex(index);
    if ("error" in parsed) throw new Error(parsed.error);
    const functions = new Map();
    for (const i of index.functions) {
      const f = parseListingFunction(JSON.parse(readFileSync(pkg(`listing/${i}.json`), "utf8")), i);
      if ("error" in f) throw new Error(f.error);
      functions.set(i, { name: f.name, ops: f.ops.map((op) => ({ offset: op.offset, file: op.file >= 0 ? (parsed.files[op.file] ?? null) : null, line: op.line })) });
    }
    listing = { functions };
    reader = await readDebugBuild({ debugFile: pkg("cost_bg.debug.wasm"), finalFile: pkg("cost_bg.unmetered.wasm"), repoRoot });
  }, 300_000);

  test("every instrumented operator on a seed algorithm's or model's line has the line llvm-dwarfdump gives its address", () => {
    const r = compareListing(reader, listing);
    console.log(
      `dwarf-lines: ${r.compared} operators on seed algorithm and model lines compared with llvm-dwarfdump ` +
        `(${r.byRow} by the line table's row, ${r.byCall} by the innermost inlined call outside the standard library), ` +
        `in ${r.files.size} files; ${r.operators} operators in ${r.functions} instrumented functions; ` +
        `${reader.matchedFunctions} functions matched to the debug build`,
    );
    const first = r.disagreements.slice(0, 8).map(describeDisagreement);
    expect(first, `${r.disagreements.length} of ${r.compared} operators disagree; the first ${first.length}:\n${first.join("\n")}`).toEqual([]);
    expect(reader.differing).toEqual([]);
    // Every operator the listing puts on a seed line was compared (and, with
    // no disagreement, llvm-dwarfdump put no other there).
    let listed = 0;
    for (const f of listing.functions.values()) listed += f.ops.filter((op) => isSeedSource(op.file)).length;
    expect(r.compared).toBe(listed);
    // Every seed source with code in it is among the files compared.
    const seeds = ["crates/core/src/algorithms", "crates/core/src/models"].flatMap((dir) =>
      readdirSync(`${repoRoot}/${dir}`)
        .filter((f) => f.endsWith(".rs") && /\bfn\s/.test(readFileSync(`${repoRoot}/${dir}/${f}`, "utf8")))
        .map((f) => `${dir}/${f}`),
    );
    expect([...r.files].sort()).toEqual(seeds.sort());
  });

  test("a listing with one line shifted, or one line dropped, fails, naming the operator", () => {
    // The first operator on a seed line, of the first function with one.
    const [func, f] = [...listing.functions].find(([, g]) => g.ops.some((op) => isSeedSource(op.file))) ?? [];
    const i = f.ops.findIndex((op) => isSeedSource(op.file));
    const op = f.ops[i];
    const wrong = (change) => ({ functions: new Map([[func, { ...f, ops: f.ops.map((o, j) => (j === i ? { ...o, ...change } : o)) }]]) });
    const shifted = compareListing(reader, wrong({ line: op.line + 1 })).disagreements.map(describeDisagreement);
    expect(shifted).toHaveLength(1);
    expect(shifted[0]).toContain(`function ${func} (${f.name}) operator ${i}: the listing says ${op.file}:${op.line + 1}, `);
    expect(shifted[0]).toContain(` ${op.file}:${op.line} (code address 0x`);
    const dropped = compareListing(reader, wrong({ file: null, line: 0 })).disagreements.map(describeDisagreement);
    expect(dropped).toHaveLength(1);
    expect(dropped[0]).toContain(`operator ${i}: the listing says no line, `);
  });
});
