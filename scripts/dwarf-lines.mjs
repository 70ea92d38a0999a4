// A second reader of the cost module's source lines, to check the listing
// against. The meter (crates/meter/src/lines.rs) maps each instrumented
// operator to a Rust file and line with gimli and addr2line; this reads the
// same debug build's DWARF with LLVM's own reader, `llvm-dwarfdump`, and
// shares no code with the meter: the wasm is parsed here, the functions are
// matched here, the paths are normalised here.
//
// How an operator of the meter's input (cost_bg.unmetered.wasm, wasm-bindgen's
// output, which has no DWARF) gets a line, as the meter defines it:
// - its function is matched to the debug build's (cargo's own output of the
//   same build, cost_bg.debug.wasm) of the same name (wasm-bindgen demangles
//   names, cargo's output keeps them mangled; wasm-bindgen names the k-th
//   copy of a name `name[k]`) whose operators are the same, opcode for opcode,
//   with the same constants, branch depths and memory offsets (the indices
//   wasm-bindgen renumbers aside);
// - the operator's address is its offset in the debug build's code section
//   (DWARF addresses in wasm count from the start of the code section's
//   contents);
// - its line is the line-table row covering that address (the last row at or
//   before it in its sequence: LLVM's own lookup), unless that row is in the
//   Rust standard library or on line 0: then the line of the innermost inlined
//   call around the address whose call site is outside the standard library
//   (the `&` of `ptr & !(align - 1)`, not `BitAnd::bitand`), read from the
//   DW_TAG_inlined_subroutine entries' call file and line.
//
//   node scripts/dwarf-lines.mjs   (prints what the check compares)
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { root } from "./lib.mjs";

/** Debian's LLVM 14, which setup.mjs installs (package llvm-14). */
export const DWARFDUMP = "llvm-dwarfdump-14";
export const CXXFILT = "llvm-cxxfilt-14";

// ---- The wasm binary format -------------------------------------------------

class Reader {
  constructor(bytes, at = 0, end = bytes.length) {
    this.bytes = bytes;
    this.at = at;
    this.end = end;
  }
  byte() {
    if (this.at >= this.end) throw new Error(`the module ends inside a section (at byte ${this.at})`);
    return this.bytes[this.at++];
  }
  /** An unsigned LEB128, as a number (every value read here fits in 2^53). */
  u() {
    let result = 0;
    let scale = 1;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * scale;
      scale *= 128;
      if ((b & 0x80) === 0) return result;
    }
  }
  /** A signed LEB128, as a BigInt (i64 constants do not fit a number). */
  s() {
    let result = 0n;
    let shift = 0n;
    let b;
    do {
      b = this.byte();
      result |= BigInt(b & 0x7f) << shift;
      shift += 7n;
    } while (b & 0x80);
    if (b & 0x40) result -= 1n << shift;
    return result;
  }
  take(n) {
    if (this.at + n > this.end) throw new Error(`the module ends inside a section (at byte ${this.at})`);
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  name() {
    return new TextDecoder().decode(this.take(this.u()));
  }
}

const MEMARG_OPS = new Set(Array.from({ length: 0x3e - 0x28 + 1 }, (_, i) => 0x28 + i));

/**
 * One operator's identity for matching, as the meter compares two: its
 * opcode, and the immediates wasm-bindgen has no reason to change
 * (constants, branch depths, memory alignment and offset). Indices of
 * functions, locals, globals, types and tables are left out: wasm-bindgen
 * renumbers them.
 */
function readOperator(r) {
  const op = r.byte();
  switch (op) {
    case 0x02: // block
    case 0x03: // loop
    case 0x04: {
      // if: a block type, one byte (empty or a value type) or a type index
      const b = r.bytes[r.at];
      if (b === 0x40 || (b >= 0x6f && b <= 0x7f)) r.byte();
      else r.s();
      return `${op}`;
    }
    case 0x0c: // br
    case 0x0d: // br_if
      return `${op} ${r.u()}`;
    case 0x0e: {
      // br_table
      const n = r.u();
      const targets = [];
      for (let i = 0; i <= n; i++) targets.push(r.u());
      return `${op} ${targets.join(",")}`;
    }
    case 0x10: // call
    case 0x12: // return_call
    case 0x20: // local.get
    case 0x21: // local.set
    case 0x22: // local.tee
    case 0x23: // global.get
    case 0x24: // global.set
    case 0x25: // table.get
    case 0x26: // table.set
    case 0xd2: // ref.func
      r.u();
      return `${op}`;
    case 0x11: // call_indirect
    case 0x13: // return_call_indirect
      r.u();
      r.u();
      return `${op}`;
    case 0x1c: {
      // select t*
      const n = r.u();
      r.take(n);
      return `${op}`;
    }
    case 0x3f: // memory.size
    case 0x40: // memory.grow
      r.u();
      return `${op}`;
    case 0x41: // i32.const
    case 0x42: // i64.const
      return `${op} ${r.s()}`;
    case 0x43: // f32.const
      return `${op} ${[...r.take(4)].join(",")}`;
    case 0x44: // f64.const
      return `${op} ${[...r.take(8)].join(",")}`;
    case 0xd0: // ref.null
      r.byte();
      return `${op}`;
    case 0xfc: {
      const sub = r.u();
      // 0-7: saturating truncations; then the bulk memory and table operators.
      const immediates = { 8: 2, 9: 1, 10: 2, 11: 1, 12: 2, 13: 1, 14: 2, 15: 1, 16: 1, 17: 1 }[sub] ?? (sub <= 7 ? 0 : -1);
      if (immediates < 0) throw new Error(`unknown operator 0xfc ${sub} at byte ${r.at}`);
      for (let i = 0; i < immediates; i++) r.u();
      return `${op}.${sub}`;
    }
    default:
      if (MEMARG_OPS.has(op)) {
        const align = r.u();
        // Bit 6 of the alignment says a memory index follows (multiple memories).
        if (align & 0x40) r.u();
        return `${op} ${align} ${r.u()}`;
      }
      // No immediates: unreachable, nop, else, end, return, drop, select and the numeric operators.
      if (op <= 0x01 || op === 0x05 || op === 0x0b || op === 0x0f || op === 0x1a || op === 0x1b || (op >= 0x45 && op <= 0xc4) || op === 0xd1) return `${op}`;
      throw new Error(`unknown operator 0x${op.toString(16)} at byte ${r.at - 1}`);
  }
}

/**
 * What this check needs of a module: its imported functions' count, the file
 * offset of its code section's contents, each body's operators (file offset
 * and identity) and the name section's function names.
 */
export function parseModule(bytes) {
  const r = new Reader(bytes);
  const magic = r.take(8);
  if (magic[0] !== 0 || magic[1] !== 0x61 || magic[2] !== 0x73 || magic[3] !== 0x6d) throw new Error("not a wasm module");
  const out = { funcImports: 0, codeStart: -1, bodies: [], names: new Map(), debugSections: [] };
  while (r.at < r.end) {
    const id = r.byte();
    const size = r.u();
    const s = new Reader(bytes, r.at, r.at + size);
    r.at += size;
    if (id === 2) {
      // Imports: only functions take indices before the module's own.
      for (let n = s.u(); n > 0; n--) {
        s.name();
        s.name();
        const kind = s.byte();
        if (kind === 0) {
          out.funcImports++;
          s.u();
        } else if (kind === 1) {
          s.byte();
          const flags = s.u();
          s.u();
          if (flags & 1) s.u();
        } else if (kind === 2) {
          const flags = s.u();
          s.u();
          if (flags & 1) s.u();
        } else if (kind === 3) {
          s.byte();
          s.byte();
        } else if (kind === 4) {
          s.byte();
          s.u();
        } else throw new Error(`unknown import kind ${kind}`);
      }
    } else if (id === 10) {
      out.codeStart = s.at;
      for (let n = s.u(); n > 0; n--) {
        const bodySize = s.u();
        const start = s.at;
        const body = new Reader(bytes, start, start + bodySize);
        s.at += bodySize;
        for (let groups = body.u(); groups > 0; groups--) {
          body.u();
          body.byte();
        }
        const ops = [];
        while (body.at < body.end) {
          const offset = body.at;
          ops.push({ offset, key: readOperator(body) });
        }
        out.bodies.push({ start, ops });
      }
    } else if (id === 0) {
      const name = s.name();
      if (name.startsWith(".debug_")) out.debugSections.push(name);
      if (name !== "name") continue;
      while (s.at < s.end) {
        const sub = s.byte();
        const subSize = s.u();
        const end = s.at + subSize;
        if (sub === 1) {
          for (let n = s.u(); n > 0; n--) {
            const index = s.u();
            out.names.set(index, s.name());
          }
        }
        s.at = end;
      }
    }
  }
  if (out.codeStart < 0) throw new Error("the module has no code section");
  return out;
}

// ---- Names --------------------------------------------------------------------

const ESCAPES = { SP: "@", BP: "*", RF: "&", LT: "<", GT: ">", LP: "(", RP: ")", C: "," };

/**
 * A Rust symbol in the legacy mangling (`_ZN` <length><element>... `E`) as
 * wasm-bindgen writes it demangled: elements joined by `::`, `$LT$`-style and
 * `$u7e$`-style escapes decoded, `..` as `::`, the hash element kept. Any
 * other name is returned as it is (demangling a demangled name changes nothing).
 */
export function demangle(name) {
  const m = /^_?_ZN(.*)E(\..*)?$/.exec(name);
  if (!m) return name;
  let rest = m[1] ?? "";
  const elements = [];
  while (rest.length > 0) {
    const len = /^\d+/.exec(rest);
    if (!len) return name;
    const n = Number(len[0]);
    const element = rest.slice(len[0].length, len[0].length + n);
    if (element.length !== n) return name;
    rest = rest.slice(len[0].length + n);
    elements.push(element);
  }
  const decoded = elements.map((element) => {
    let e = element.startsWith("_$") ? element.slice(1) : element;
    let outText = "";
    for (;;) {
      if (e.startsWith("..")) {
        outText += "::";
        e = e.slice(2);
      } else if (e.startsWith(".")) {
        outText += ".";
        e = e.slice(1);
      } else if (e.startsWith("$")) {
        const end = e.indexOf("$", 1);
        if (end < 0) break;
        const escape = e.slice(1, end);
        let text = ESCAPES[escape];
        if (text === undefined && escape.startsWith("u")) {
          const code = Number.parseInt(escape.slice(1), 16);
          if (Number.isInteger(code) && /^[0-9a-f]+$/.test(escape.slice(1))) text = String.fromCodePoint(code);
        }
        if (text === undefined) break;
        outText += text;
        e = e.slice(end + 1);
      } else {
        const i = e.search(/[$.]/);
        if (i < 0) break;
        outText += e.slice(0, i);
        e = e.slice(i);
      }
    }
    return outText + e;
  });
  return decoded.join("::") + (m[2] ?? "");
}

/** A final-module name without wasm-bindgen's `[k]` suffix, and k (0 without one). */
export function splitCopy(name) {
  const m = /^(.*)\[(\d+)\]$/.exec(name);
  return m ? { base: m[1] ?? "", copy: Number(m[2]) } : { base: name, copy: 0 };
}

/**
 * Crate disambiguators (`core[c5930c85a12de822]::fmt::write`), which
 * rustc-demangle prints for names in the v0 mangling (the precompiled
 * standard library's) and LLVM's demangler leaves out.
 */
export const withoutDisambiguators = (name) => name.replace(/(?<=\w)\[[0-9a-f]{1,16}\]/g, "");

/**
 * Names in the v0 mangling (`_R...`, the standard library's own), demangled
 * by LLVM's llvm-cxxfilt, in one run: name -> demangled.
 */
export function demangleV0(names, bin = CXXFILT) {
  const list = [...new Set(names.filter((n) => n.startsWith("_R")))];
  if (list.length === 0) return new Map();
  const r = spawnSync(bin, [], { input: list.join("\n") + "\n", encoding: "utf8", maxBuffer: 1 << 28 });
  if (r.error || r.status !== 0) throw new Error(`could not run ${bin}: ${r.error?.message ?? r.stderr} (scripts/setup.mjs --with-native-tools installs Debian's llvm-14)`);
  const out = r.stdout.split("\n");
  return new Map(list.map((n, i) => [n, out[i] ?? n]));
}

const sameOps = (a, b) => a.length === b.length && a.every((op, i) => op.key === b[i]?.key);

/**
 * Each function of `fin` (final-module index) matched to a body of `debug`
 * (index into its bodies): same demangled name, same operators; the k-th
 * copy of a name first, else any copy not yet taken.
 */
export function matchFunctions(debug, fin, v0 = new Map()) {
  const byName = new Map();
  debug.bodies.forEach((_, i) => {
    const name = debug.names.get(debug.funcImports + i);
    if (name === undefined) return;
    const key = withoutDisambiguators(v0.get(name) ?? demangle(name));
    const list = byName.get(key) ?? [];
    list.push(i);
    byName.set(key, list);
  });
  const taken = new Set();
  const matched = new Map();
  const differing = [];
  let unmatched = 0;
  fin.bodies.forEach((body, i) => {
    const index = fin.funcImports + i;
    const name = fin.names.get(index);
    const { base, copy } = name === undefined ? { base: "", copy: 0 } : splitCopy(name);
    const candidates = name === undefined ? undefined : byName.get(withoutDisambiguators(demangle(base)));
    if (!candidates) {
      unmatched++;
      return;
    }
    const same = (d) => !taken.has(d) && sameOps(debug.bodies[d]?.ops ?? [], body.ops);
    const kth = candidates[copy];
    const d = kth !== undefined && same(kth) ? kth : candidates.find(same);
    if (d === undefined) {
      differing.push(name);
      return;
    }
    taken.add(d);
    matched.set(index, d);
  });
  return { matched, differing, unmatched };
}

// ---- llvm-dwarfdump's output ----------------------------------------------------

/**
 * Runs llvm-dwarfdump with `args` on `file`, calling `onLine` with each line
 * of its output as it comes (the whole of `--debug-info` is some 200 MB of
 * text, never held at once). Rejects with its error output when it fails.
 */
export function dwarfdumpLines(args, file, onLine, bin = DWARFDUMP) {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [...args, file], { stdio: ["ignore", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.on("error", (e) => reject(new Error(`could not run ${bin}: ${e.message} (scripts/setup.mjs --with-native-tools installs Debian's llvm-14)`)));
    const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on("line", onLine);
    const closed = new Promise((r) => lines.once("close", r));
    child.on("close", async (code) => {
      await closed;
      if (code === 0) resolve();
      else reject(new Error(`${bin} ${args.join(" ")} ${file} failed (exit ${code}): ${stderr.trim()}`));
    });
  });
}

/** Collects the compile units of `--debug-info --recurse-depth=0`, line by line: each one's line-table offset and compilation directory. */
export function unitParser() {
  const units = [];
  let unit = null;
  return {
    units,
    line(line) {
      if (/^0x[0-9a-f]+: Compile Unit:/.test(line)) units.push((unit = { stmtList: -1, compDir: "" }));
      else if (unit) {
        let m;
        if ((m = /DW_AT_stmt_list\s+\((0x[0-9a-f]+)\)/.exec(line))) unit.stmtList = Number(m[1]);
        else if ((m = /DW_AT_comp_dir\s+\("(.*)"\)$/.exec(line))) unit.compDir = m[1] ?? "";
      }
    },
  };
}

/**
 * Collects `--debug-line`'s tables, line by line: for each, its offset, its
 * directories and files (DWARF 4: index 0 is the unit's compilation
 * directory, which the table itself does not give) and its rows in order,
 * sequences ended by `end_sequence`.
 */
export function lineTableParser() {
  const tables = [];
  let table = null;
  let file = null;
  return {
    tables,
    line(line) {
      let m;
      if ((m = /^debug_line\[(0x[0-9a-f]+)\]/.exec(line))) {
        tables.push((table = { offset: Number(m[1]), version: 0, dirs: new Map(), files: new Map(), rows: [] }));
        file = null;
      } else if (!table) return;
      else if ((m = /^0x([0-9a-f]{16})\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s+(\d+)\s*(.*)$/.exec(line))) {
        table.rows.push({ address: Number.parseInt(m[1] ?? "", 16), line: Number(m[2]), file: Number(m[4]), end: (m[7] ?? "").includes("end_sequence") });
      } else if ((m = /^\s+version: (\d+)/.exec(line))) table.version = Number(m[1]);
      else if ((m = /^include_directories\[\s*(\d+)\] = "(.*)"$/.exec(line))) table.dirs.set(Number(m[1]), m[2] ?? "");
      else if ((m = /^file_names\[\s*(\d+)\]:/.exec(line))) table.files.set(Number(m[1]), (file = { name: "", dir: 0 }));
      else if (file && (m = /^\s+name: "(.*)"$/.exec(line))) file.name = m[1] ?? "";
      else if (file && (m = /^\s+dir_index: (\d+)$/.exec(line))) file.dir = Number(m[1]);
    },
  };
}

/** `path` with `.` and `..` resolved, or null when a `..` climbs above its start. */
function resolveDots(path) {
  const parts = [];
  for (const part of path.split("/")) {
    if (part === ".") continue;
    if (part === "..") {
      if (parts.length === 0 || parts[parts.length - 1] === "") return null;
      parts.pop();
    } else parts.push(part);
  }
  return parts.join("/");
}

/**
 * A source path as the listing names files: repository-relative for the
 * repository's, `<crate>-<version>/...` for the cargo registry's and the
 * standard library's vendored dependencies, `library/...` for the standard
 * library's; null for anything else (a build script's output).
 */
export function normalisePath(path, repoRoot) {
  const p = resolveDots(path);
  const rootDir = resolveDots(repoRoot)?.replace(/\/+$/, "");
  if (p === null || rootDir === null || rootDir === undefined) return null;
  if (p.startsWith(`${rootDir}/`)) {
    const rest = p.slice(rootDir.length + 1);
    return rest.startsWith("target/") ? null : rest;
  }
  const registry = p.indexOf("/registry/src/");
  if (registry >= 0) {
    const rest = p.slice(registry + "/registry/src/".length);
    const slash = rest.indexOf("/");
    return slash < 0 ? null : rest.slice(slash + 1);
  }
  if (p.startsWith("/rust/deps/")) return p.slice("/rust/deps/".length);
  if (p.startsWith("/rustc/") || p.includes("/rustlib/src/rust/")) {
    const at = p.indexOf("/library/");
    return at < 0 ? null : p.slice(at + 1);
  }
  return null;
}

/** `name` under `dir` (both may be relative: to the compilation directory). */
const under = (compDir, dir, name) => (name.startsWith("/") ? name : dir.startsWith("/") ? `${dir}/${name}` : `${compDir}/${dir}/${name}`);

/**
 * The rows of every line table, each with its normalised file (null when
 * unknown), as sequences sorted by their first address: `{low, high, rows}`,
 * rows in address order, the last one ending the sequence.
 */
export function lineSequences(tables, units, repoRoot) {
  const compDirOf = new Map(units.map((u) => [u.stmtList, u.compDir]));
  const sequences = [];
  for (const table of tables) {
    if (table.version !== 4) throw new Error(`line table ${table.offset} has DWARF version ${table.version}; this reader knows version 4's file numbering`);
    const compDir = compDirOf.get(table.offset);
    if (compDir === undefined) throw new Error(`no compile unit names line table ${table.offset}`);
    const paths = new Map();
    const pathOf = (i) => {
      if (!paths.has(i)) {
        const f = table.files.get(i);
        const dir = f ? (f.dir === 0 ? compDir : table.dirs.get(f.dir)) : undefined;
        paths.set(i, f && dir !== undefined ? normalisePath(under(compDir, dir, f.name), repoRoot) : null);
      }
      return paths.get(i);
    };
    let rows = [];
    for (const row of table.rows) {
      rows.push({ address: row.address, line: row.line, file: pathOf(row.file) });
      if (row.end) {
        sequences.push({ low: rows[0].address, high: row.address, rows });
        rows = [];
      }
    }
  }
  sequences.sort((a, b) => a.low - b.low || b.high - a.high);
  return sequences;
}

/**
 * The row covering `address`: in a sequence whose [low, high) holds it, the
 * last row at or before it (of several rows at one address, the last).
 */
export function rowAt(sequences, address) {
  let lo = 0;
  let hi = sequences.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sequences[mid]?.low ?? 0) <= address) lo = mid + 1;
    else hi = mid;
  }
  for (let s = lo - 1; s >= 0; s--) {
    const seq = sequences[s];
    if (!seq || address >= seq.high) continue;
    const rows = seq.rows;
    let a = 0;
    let b = rows.length - 1;
    while (a < b) {
      const mid = (a + b + 1) >> 1;
      if ((rows[mid]?.address ?? 0) <= address) a = mid;
      else b = mid - 1;
    }
    return rows[a];
  }
  return undefined;
}

// ---- Inlined calls -------------------------------------------------------------

const isStd = (file) => file.startsWith("library/");

/**
 * Collects, line by line from `--debug-info`, every DW_TAG_inlined_subroutine
 * whose call site is outside the standard library: its address ranges, its
 * call site (normalised file and line) and its depth in the tree.
 */
export function inlinedCallParser(repoRoot) {
  const calls = [];
  let compDir = "";
  let entry = null;
  let inRanges = false;
  const finish = () => {
    if (entry && entry.ranges.length > 0 && entry.callLine > 0 && entry.callFile !== null && !isStd(entry.callFile)) calls.push(entry);
    entry = null;
  };
  return {
    calls,
    line(line) {
      let m;
      if (inRanges) {
        // DW_AT_ranges lists one [low, high) a line, the last closing the attribute.
        const r = /^\s+\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)(\))?$/.exec(line);
        if (r) {
          entry?.ranges.push([Number(r[1]), Number(r[2])]);
          if (r[3]) inRanges = false;
          return;
        }
        inRanges = false;
      }
      if ((m = /^0x[0-9a-f]+:(\s+)(DW_TAG_\w+|NULL)/.exec(line))) {
        finish();
        if (m[2] === "DW_TAG_inlined_subroutine") entry = { depth: (m[1] ?? "").length, ranges: [], callFile: null, callLine: 0, low: undefined };
        return;
      }
      if (/^0x[0-9a-f]+: Compile Unit:/.test(line)) {
        finish();
        return;
      }
      if ((m = /DW_AT_comp_dir\s+\("(.*)"\)$/.exec(line))) compDir = m[1] ?? "";
      if (!entry) return;
      if ((m = /DW_AT_call_file\s+\("(.*)"\)$/.exec(line))) entry.callFile = normalisePath(under(compDir, ".", m[1] ?? ""), repoRoot);
      else if ((m = /DW_AT_call_line\s+\((\d+)\)/.exec(line))) entry.callLine = Number(m[1]);
      else if ((m = /DW_AT_low_pc\s+\((0x[0-9a-f]+)\)/.exec(line))) entry.low = Number(m[1]);
      else if ((m = /DW_AT_high_pc\s+\((0x[0-9a-f]+)\)/.exec(line))) {
        if (entry.low !== undefined) entry.ranges.push([entry.low, Number(m[1])]);
      } else if ((m = /DW_AT_ranges\s+\((0x[0-9a-f]+)(\))?$/.exec(line))) inRanges = !m[2];
    },
    finish,
  };
}

/** Bytes of code per bucket of the inlined-call index. */
const BUCKET = 64;

/** An index of `calls` by address: each in every BUCKET-byte bucket its ranges overlap. */
export function indexCalls(calls) {
  const buckets = new Map();
  for (const c of calls) {
    for (const [lo, hi] of c.ranges) {
      for (let b = Math.floor(lo / BUCKET); b * BUCKET < hi; b++) {
        const list = buckets.get(b) ?? [];
        if (list[list.length - 1] !== c) list.push(c);
        buckets.set(b, list);
      }
    }
  }
  return buckets;
}

/** The innermost inlined call around `address` (whose call site is outside the standard library), from indexCalls' `index`. */
export function callerLine(index, address) {
  let best = null;
  for (const c of index.get(Math.floor(address / BUCKET)) ?? []) {
    if (!c.ranges.some(([lo, hi]) => lo <= address && address < hi)) continue;
    if (!best || c.depth > best.depth) best = c;
  }
  return best ? { file: best.callFile, line: best.callLine } : null;
}

// ---- The check -------------------------------------------------------------------

/** Whether a file is one of the seed algorithms' or models' sources. */
export const isSeedSource = (file) => typeof file === "string" && (file.startsWith("crates/core/src/algorithms/") || file.startsWith("crates/core/src/models/"));

/**
 * This reader's source lines for the meter's input `finalFile`, from the
 * DWARF of `debugFile` (cargo's output of the same build) through
 * llvm-dwarfdump: `lineOf(func, op)` is operator `op` of function `func`
 * (final-module index)'s file and line, or null; `offsetOf` its byte offset
 * in `finalFile`; also what was matched.
 */
export async function readDebugBuild({ debugFile, finalFile, repoRoot, dwarfdumpBin = DWARFDUMP, cxxfiltBin = CXXFILT }) {
  const debug = parseModule(readFileSync(debugFile));
  const fin = parseModule(readFileSync(finalFile));
  if (!debug.debugSections.includes(".debug_line")) throw new Error(`${debugFile} has no .debug_line section: build it with line tables`);
  const { matched, differing, unmatched } = matchFunctions(debug, fin, demangleV0([...debug.names.values()], cxxfiltBin));
  const units = unitParser();
  await dwarfdumpLines(["--debug-info", "--recurse-depth=0"], debugFile, units.line, dwarfdumpBin);
  const tables = lineTableParser();
  await dwarfdumpLines(["--debug-line"], debugFile, tables.line, dwarfdumpBin);
  const sequences = lineSequences(tables.tables, units.units, repoRoot);
  const inlined = inlinedCallParser(repoRoot);
  await dwarfdumpLines(["--debug-info"], debugFile, inlined.line, dwarfdumpBin);
  inlined.finish();
  const calls = indexCalls(inlined.calls);
  const body = (func) => fin.bodies[func - fin.funcImports];
  return {
    matchedFunctions: matched.size,
    differing,
    unmatched,
    /** Operators in function `func`, or undefined when the module has no such function. */
    opCount: (func) => body(func)?.ops.length,
    offsetOf: (func, op) => body(func)?.ops[op]?.offset,
    /** `{file, line, via}`: via "row" (the line table's row) or "call" (the innermost inlined call outside the standard library); null when neither has a line, undefined when the function is not matched. */
    lineOf(func, op) {
      const d = matched.get(func);
      const source = d === undefined ? undefined : debug.bodies[d]?.ops[op];
      if (!source) return undefined;
      const address = source.offset - debug.codeStart;
      const row = rowAt(sequences, address);
      const at = row && row.line > 0 && row.file !== null ? { file: row.file, line: row.line, via: "row", address } : null;
      if (at && !isStd(at.file)) return at;
      const call = callerLine(calls, address);
      return call ? { ...call, via: "call", address } : at;
    },
  };
}

/**
 * Compares, for every operator of `listing` (function index -> {name, ops:
 * [{offset, file, line}]}, file a path or null) whose file is a seed
 * algorithm's or model's on either side, the listing's file and line with
 * `reader`'s. Returns the counts and every disagreement, in function order.
 */
export function compareListing(reader, listing) {
  const result = { functions: 0, operators: 0, compared: 0, byRow: 0, byCall: 0, files: new Set(), disagreements: [] };
  const show = (x) => (x ? `${x.file}:${x.line}` : "no line");
  for (const [func, f] of [...listing.functions].sort((a, b) => a[0] - b[0])) {
    result.functions++;
    const count = reader.opCount(func);
    if (count !== f.ops.length) {
      result.disagreements.push({ func, name: f.name, op: -1, problem: `the listing has ${f.ops.length} operators, the module ${count ?? "no such function"}` });
      continue;
    }
    f.ops.forEach((op, i) => {
      result.operators++;
      if (reader.offsetOf(func, i) !== op.offset) {
        result.disagreements.push({ func, name: f.name, op: i, problem: `the listing puts it at byte ${op.offset}, the module at ${reader.offsetOf(func, i)}` });
        return;
      }
      const at = reader.lineOf(func, i);
      if (at === undefined) {
        result.disagreements.push({ func, name: f.name, op: i, problem: "its function has no match in the debug build" });
        return;
      }
      const listed = op.file === null ? null : { file: op.file, line: op.line };
      if (!isSeedSource(listed?.file) && !isSeedSource(at?.file)) return;
      result.compared++;
      if (at?.via === "call") result.byCall++;
      else result.byRow++;
      if (listed) result.files.add(listed.file);
      if (listed?.file !== at?.file || listed?.line !== at?.line) {
        const how = at?.via === "call" ? "the innermost inlined call outside the standard library (llvm-dwarfdump --debug-info)" : "llvm-dwarfdump's line table";
        result.disagreements.push({ func, name: f.name, op: i, problem: `the listing says ${show(listed)}, ${how} ${show(at)} (code address 0x${at?.address.toString(16) ?? "?"})` });
      }
    });
  }
  return result;
}

/** A disagreement as one line of a failure message. */
export const describeDisagreement = (d) => `function ${d.func} (${d.name}) operator ${d.op}: ${d.problem}`;

// ---- By hand -------------------------------------------------------------------

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const pkg = join(root, "web", "pkg-cost");
  const debugFile = join(pkg, "cost_bg.debug.wasm");
  if (!existsSync(debugFile)) {
    console.error("[bump-lab] web/pkg-cost is not built: node scripts/build-wasm.mjs");
    process.exit(1);
  }
  const whole = JSON.parse(readFileSync(join(pkg, "listing.json"), "utf8"));
  const functions = new Map(
    Object.entries(whole.functions).map(([k, f]) => [Number(k), { name: f.name, ops: f.ops.map((o) => ({ offset: o[0], file: o[4] >= 0 ? whole.files[o[4]] : null, line: o[5] })) }]),
  );
  const started = Date.now();
  const reader = await readDebugBuild({ debugFile, finalFile: join(pkg, "cost_bg.unmetered.wasm"), repoRoot: root });
  const r = compareListing(reader, { functions });
  console.log(
    `${r.compared} operators on seed algorithm and model lines compared (${r.byRow} by the line table's row, ${r.byCall} by an inlined call's line), in ${r.files.size} files, of ${r.operators} operators in ${r.functions} functions; ` +
      `${reader.matchedFunctions} functions matched, ${reader.differing.length} differ, ${reader.unmatched} unnamed or unknown; ${r.disagreements.length} disagreements; ${Date.now() - started} ms`,
  );
  for (const d of r.disagreements.slice(0, 20)) console.log(`  ${describeDisagreement(d)}`);
}
