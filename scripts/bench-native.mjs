// `npm run bench:native`: the native x86-64 reference table.
//
// Builds crates/bench in release, runs every entry function it lists once
// under callgrind (collecting only inside that function), and writes
// docs/bench/native-x86_64.json and docs/bench/native-x86_64.md, and the
// instructions behind every cell (objdump text, execution counts, branch
// outcomes) to docs/bench/native-x86_64-listings.json.
// A benchmark, not a test: `npm test` does not run it.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { basename, join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { buildListing, checkListing, objdumpDisassembler, parseCallgrindInstructions } from "./callgrind-listing.mjs";
import { sourcesOf } from "./source-hashes.mjs";
import { log, root, run } from "./lib.mjs";

export const COMMAND = "npm run bench:native";
// --dump-instr and --collect-jumps do not change the counts: they add the
// per-instruction costs and jump records the listings are made of.
const CALLGRIND = ["--tool=callgrind", "--branch-sim=yes", "--collect-atstart=no", "--dump-instr=yes", "--collect-jumps=yes"];
export const LISTINGS_FILE = "docs/bench/native-x86_64-listings.json";

// ---------------------------------------------------------------------------
// Callgrind output

/**
 * Reads a callgrind output file: the totals of every event, and each
 * function's self cost (call lines, which carry the callee's inclusive cost,
 * are not added to the caller). Handles name compression (`fn=(id) name`,
 * later `fn=(id)`) and positions given relative (`+n`, `-n`, `*`).
 */
export function parseCallgrind(text) {
  let events = null;
  let positions = 1;
  let totals = null;
  let summary = null;
  const names = new Map();
  const self = new Map();
  let fn = null;
  let skipNext = false;
  const vector = (fields) => {
    const v = {};
    events.forEach((e, i) => {
      v[e] = Number(fields[i] ?? 0);
    });
    return v;
  };
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    let m;
    if ((m = /^events:\s*(.*)$/.exec(line))) {
      events = m[1].trim().split(/\s+/);
    } else if ((m = /^positions:\s*(.*)$/.exec(line))) {
      positions = m[1].trim().split(/\s+/).length;
    } else if ((m = /^totals:\s*(.*)$/.exec(line))) {
      totals = vector(m[1].trim().split(/\s+/));
    } else if ((m = /^summary:\s*(.*)$/.exec(line))) {
      summary = vector(m[1].trim().split(/\s+/));
    } else if ((m = /^fn=\((\d+)\)(?:\s+(.*))?$/.exec(line))) {
      if (m[2] !== undefined) names.set(m[1], m[2]);
      fn = names.get(m[1]) ?? `(${m[1]})`;
    } else if ((m = /^fn=(.+)$/.exec(line))) {
      fn = m[1];
    } else if ((m = /^cfn=\((\d+)\)\s+(.*)$/.exec(line))) {
      names.set(m[1], m[2]);
    } else if (line.startsWith("calls=") || line.startsWith("jump=") || line.startsWith("jcnd=")) {
      // The next line is the call's inclusive cost, or the jump's source (no cost).
      skipNext = true;
    } else if (/^([+-]?\d+|\*|0x[0-9a-f]+)(\s|$)/i.test(line)) {
      if (skipNext) {
        skipNext = false;
        continue;
      }
      if (events === null || fn === null) continue;
      const fields = line.split(/\s+/).slice(positions);
      const v = vector(fields);
      const acc = self.get(fn) ?? Object.fromEntries(events.map((e) => [e, 0]));
      for (const e of events) acc[e] += v[e];
      self.set(fn, acc);
    }
    // Other lines (ob=, fl=, fi=, fe=, cob=, cfi=, desc:, ...) name files
    // and objects; cfn= with a new name is handled above.
  }
  if (events === null) throw new Error("not a callgrind output: no `events:` line");
  const total = totals ?? summary;
  if (total === null) throw new Error("callgrind output without `totals:` or `summary:`");
  const fns = {};
  for (const [name, v] of self) if (Object.values(v).some((x) => x !== 0)) fns[name] = v;
  return { events, total, fns };
}

// ---------------------------------------------------------------------------
// What the table shows

/** Columns: the real crates, then ours (seed algorithms, then the models). */
export const LIBS = [
  { id: "bumpalo", name: "bumpalo", kind: "real", what: "bumpalo 3.20.4, `Bump<MIN_ALIGN>` (allocator-api2 0.2 impl)" },
  { id: "bump_scope_up", name: "bump-scope (up)", kind: "real", what: "bump-scope 2.4.1, `Bump<Global, BumpSettings<MIN_ALIGN, true>>`" },
  { id: "bump_scope_down", name: "bump-scope (down)", kind: "real", what: "bump-scope 2.4.1, `Bump<Global, BumpSettings<MIN_ALIGN, false>>`" },
  { id: "blink_alloc", name: "blink-alloc", kind: "real", what: "blink-alloc 0.4.0, `Blink` over `BlinkAlloc<Global>` (`put_no_drop`, `copy_slice`; allocator-api2 0.4 impl), as bump-scope's benches drive it" },
  { id: "fitzgen_down", name: "fitzgen-down", kind: "algorithm", what: "`Fixed<u64, BumpDown<u64>>` (seed 000, 2019 bump down)" },
  { id: "hinckley_up_naive", name: "hinckley-up-naive", kind: "algorithm", what: "`Fixed<u64, BumpUpNaive<u64>>` (seed 000, first bump up)" },
  { id: "hinckley_up", name: "hinckley-up", kind: "algorithm", what: "`Fixed<u64, BumpUp<u64>>` (seed 000, one-branch bump up)" },
  { id: "up_min_align", name: "up-min-align", kind: "algorithm", what: "`Fixed<u64, MinAlignUp<u64, MIN_ALIGN>>`" },
  { id: "down_min_align", name: "down-min-align", kind: "algorithm", what: "`Fixed<u64, MinAlignDown<u64, MIN_ALIGN>>`" },
  { id: "model_bumpalo", name: "model bumpalo", kind: "model", what: "`models::bumpalo::Bumpalo<u64, MIN_ALIGN>`" },
  { id: "model_bump_scope_up", name: "model bump-scope-up", kind: "model", what: "`models::bump_scope::BumpScope<u64, true, MIN_ALIGN>`" },
  { id: "model_bump_scope_down", name: "model bump-scope-down", kind: "model", what: "`models::bump_scope::BumpScope<u64, false, MIN_ALIGN>`" },
];
const REAL = LIBS.filter((l) => l.kind === "real");
/** The crates seed 002's table gives 10 / 1 for `alloc_u8`: the anchor. */
const ANCHORED = ["bumpalo", "bump_scope_up", "bump_scope_down"];
/** Seed 002's own blink-alloc figure for `alloc_u8`, from its bench's blink-alloc version. */
const SEED_BLINK_ALLOC_U8 = { ir: 14, bc: 3 };
const OURS = LIBS.filter((l) => l.kind !== "real");

/** Seed 002's groups, in its order. */
export const GROUPS = [
  {
    title: "Allocation",
    about:
      "A value or a slice through the typed, infallible API (`alloc(value)`, `alloc_slice_copy(slice)`). `_aligned`: MIN_ALIGN equal to the type's alignment; `_overaligned`: MIN_ALIGN above it (u8 at 8, u32 at 8, the 56-byte struct at 16); `_underaligned`: MIN_ALIGN below it (u128 at 8).",
    cases: [
      "alloc_u8", "alloc_u8_overaligned",
      "alloc_u32", "alloc_u32_aligned", "alloc_u32_overaligned",
      "alloc_u64", "alloc_u64_aligned",
      "alloc_u128", "alloc_u128_underaligned",
      "alloc_big_struct", "alloc_big_struct_aligned", "alloc_big_struct_overaligned",
      "alloc_u8_slice", "alloc_u8_slice_overaligned",
      "alloc_u32_slice", "alloc_u32_slice_aligned", "alloc_u32_slice_overaligned",
    ],
  },
  {
    title: "Allocator API",
    about: "The `Allocator` methods with a `Layout` known at compile time.",
    cases: [
      "allocate",
      "grow_same_align", "grow_smaller_align", "grow_larger_align",
      "shrink_same_align", "shrink_smaller_align", "shrink_larger_align",
      "deallocate", "deallocate_non_last",
    ],
  },
  {
    title: "Allocator API, layout known only at run time",
    about: "The same calls with every `Layout` passed through `black_box`, as `Vec` and other generic consumers call an allocator. `_overaligned`: MIN_ALIGN 8, above the u32 layout's alignment.",
    cases: [
      "black_box_allocate", "black_box_allocate_overaligned",
      "black_box_grow_same_align", "black_box_grow_smaller_align", "black_box_grow_larger_align",
      "black_box_shrink_same_align", "black_box_shrink_smaller_align", "black_box_shrink_larger_align",
      "black_box_deallocate", "black_box_deallocate_non_last",
    ],
  },
  {
    title: "Miscellaneous",
    about: "`warm_up`: construct the allocator and allocate a u32 (the first chunk included). `reset`: reset after allocating a u32.",
    cases: ["warm_up", "reset"],
  },
];

/** Why a library has no entry for a case (the footnotes of the "—" cells). */
export const UNSUPPORTED = {
  single_chunk: {
    text: "The seed-000 algorithms define only allocation over one fixed chunk: no grow, shrink, free, reset or construction of their own (the playground's `Fixed` glue for those is not the reference's code).",
  },
  no_min_align: {
    text: "fitzgen-down, hinckley-up-naive and hinckley-up have no minimum-alignment setting, so the `_aligned`/`_overaligned` cases do not apply.",
  },
  larger_align: {
    text: "`Model::realloc` keeps the block's alignment (the playground's realloc op does), so a grow or shrink that raises it has no counterpart in the models.",
  },
  blink_no_min_align: {
    text: "blink-alloc has no minimum-alignment setting (as in seed 002's table), so the `_aligned`/`_overaligned` cases do not apply.",
  },
};

function unsupportedReason(caseName, lib) {
  if (lib.id === "blink_alloc" && /_(over|under)?aligned$/.test(caseName)) return "blink_no_min_align";
  if (lib.kind === "algorithm") {
    const allocation = caseName.startsWith("alloc_") || caseName === "allocate" || caseName.startsWith("black_box_allocate");
    if (!allocation) return "single_chunk";
    return "no_min_align";
  }
  if (lib.kind === "model" && caseName.includes("larger_align")) return "larger_align";
  return null;
}

const cell = (r) => (r ? `${r.ir} / ${r.bc}` : null);

// Notes, each naming a cause read from the disassembly of the entry
// functions (objdump -d target/release/bumplab-bench), never a guess.
// `NOTE_TEXT` holds the texts; `CASE_NOTES` attaches them to rows (a key
// ending in `*` matches every case with that prefix). The memcpy note is
// computed from the measured per-function costs.
export const NOTE_TEXT = {
  no_bytes:
    "Not like for like: ours computes the block's address only. The simulated heap has no memory behind its addresses, so ours stores no value and copies no slice; the real crates store the value (1 instruction for a u8, u32 or u64, 2 for a u128, 8 for the 56-byte struct) and keep it in a callee-saved register across the slow-path call (a push/pop pair), or call memcpy for a slice.",
  typed_infallible:
    "Ours calls `Model::alloc_with::<Infallible, _>`: the models write their allocation path once, generic over how a failure comes back (as bumpalo's is over fallible and infallible callers), and for this caller a failure is a cold call that does not return, so the fast path hands back the address without testing it for an error code. The engine and the `Allocator` rows use `Model::alloc`, the same code with `Fallible`: one word, the address or an error code.",
  fitzgen_branches: (r) =>
    `fitzgen-down and down-min-align keep the 2019 bump down's two branches by design (the checked subtraction, then the start check): fewer instructions than bump-scope down (${cell(r.bump_scope_down)}), which saturates the subtraction with a cmov and branches once, but one branch more. Ours returns one word (\`Allocated\`) in a register, as the crates' \`NonNull<[u8]>\` does; the length is the same \`mov\` in all.`,
  grow_models: (r) =>
    `Ours best is the bump-scope-down model, faithful to the crate's grow (extend the last block downwards, else allocate and copy). It is under the crate (${cell(r.bump_scope_down)}) by the copy it does not make (a 4-byte load and store) and the current chunk it holds inline (one load less, no saved register). The bumpalo model is at ${cell(r.model_bumpalo)}, under real bumpalo (${cell(r.bumpalo)}) for the same reasons: no copy, and its chunk footer inline.`,
  realloc_one_method: (r) =>
    `\`Model::realloc\` is one method for grow and shrink: with the layouts black-boxed it picks one at run time, one compare and branch more than the \`Allocator\` API, which has two methods. So ours best, the bump-scope-up model, has a branch more than the crate (${cell(r.bump_scope_up)}), which also folds its alignment and last-block tests into one branch; it is under it in instructions because the crate saves three registers for its slow path (3 push/pop pairs) where ours saves one (a push/pop pair).`,
  black_box_shrink: (r) =>
    `Ours is above bump-scope up here (${cell(r.model_bump_scope_up)} against ${cell(r.bump_scope_up)}). With the layouts black-boxed, grow and shrink are the same entry code for ours (\`Model::realloc\` picks one at run time, where the crate's shrink tests the new alignment instead, one instruction more than our compare), and the grow half keeps the new size in a callee-saved register across its slow-path call, so the entry saves that register on every path (a push/pop pair) and makes one more register move than the crate's shrink, which saves none and tail-calls its unfit case. The bumpalo model is faithful to bumpalo's shrink (the last block moves up only when at least half of it comes back, with a copy) and lands under real bumpalo (${cell(r.bumpalo)}${copyPart(r.bumpalo)}) because it copies nothing.`,
  smaller_align_kept:
    "Not like for like: `Model::realloc` keeps the block's alignment, so ours serves the align-2 request at the old align 4 (valid for it). For bumpalo's shrink that matters: rounded to 4, the bytes given back are 0 and the model keeps the block in place, where bumpalo rounds to 2, moves the block up 2 bytes and copies.",
  shrink_static: (r) =>
    `Ours best is the bumpalo model, faithful to bumpalo's shrink; with the layout known, bumpalo's at-least-half test folds away in both. The model is under bumpalo (${cell(r.bumpalo)}) by the copy it does not make (2 instructions) and its inline footer.`,
  blink_shrink: (r) =>
    `The best reference is blink-alloc's shrink (${cell(r.blink_alloc)}), which does nothing: when the alignment is kept it hands the block back where it is and gives no byte back (seed 002's footnote says as much). Ours best, the bumpalo model, shrinks as bumpalo does (the last block moves up when at least half of it comes back), so it does more than blink-alloc and less than bumpalo (${cell(r.bumpalo)}).`,
  warm_up_heap: (r) =>
    `Simulated-memory overhead: ours gets its first chunk from the simulated base allocator (\`heap::Heap::alloc\`, a first fit over a \`Vec\` free list: ${cell(fnCost(r.model_bump_scope_down, /Heap.*::alloc$/))}), where the real crates make one malloc call (${cell(fnCost(r.bump_scope_down, LIBC_ALLOC))} in libc). Ours best is the bump-scope-down model; the entry returns the whole allocator by value (model and simulated heap, a memcpy of 144 bytes: ${cell(fnCost(r.model_bump_scope_down, COPY_FN))}) where the crate returns one pointer. The bumpalo model (${cell(r.model_bumpalo)}) allocates its first chunk lazily in the first \`alloc\`, as bumpalo does (${cell(r.bumpalo)}).`,
  reset_models: (r) =>
    `The bumpalo model keeps no allocated-bytes counter, which bumpalo's reset also rewrites (3 instructions), and keeps its footer inline. The bump-scope models (${cell(r.model_bump_scope_up)} and ${cell(r.model_bump_scope_down)}, against the crate's ${cell(r.bump_scope_up)} and ${cell(r.bump_scope_down)}) find both chunk lists empty (two \`Vec\` length tests) and set the inline bump pointer back to the chunk's start or end.`,
  bump_scope_model:
    "The bump-scope models hold the current chunk inline (start, capacity, bump pointer) where the crate follows a pointer to the chunk's header: one load less on every fast path. The other chunks are kept in `Vec`s that only the slow paths and `reset` touch. A chunk's end is computed as start + capacity. The model bumps with the crate's run-time-layout path even when the layout is a constant (its documented simplification: the same addresses, a saturating add or subtraction with a cmov more than the crate's typed path).",
  black_box_min_align: (r) =>
    `Ours best is the bump-scope-down model, the crate's run-time path instruction for instruction: the saturating subtraction (a cmov), the alignment raised to MIN_ALIGN 8 (a compare and a cmov), the mask and one compare. It holds the bump pointer inline where the crate (${cell(r.bump_scope_down)}) first loads its chunk pointer (one load less), but it moves its two argument registers before it starts (two moves more): one instruction more in all.`,
  bumpalo_model:
    "The bumpalo model keeps the current chunk's footer inline in the allocator, where the crate loads it through `current_chunk_footer`: one load less on every path (and the compare can read the bump pointer straight from memory), so its fast paths are an instruction or two under the crate's.",
};

/** Notes that make a row not like for like. */
const UNLIKE = new Set(["no_bytes", "smaller_align_kept"]);

export const CASE_NOTES = {
  "alloc_*": ["no_bytes", "typed_infallible"],
  allocate: ["fitzgen_branches"],
  black_box_allocate: ["fitzgen_branches"],
  black_box_allocate_overaligned: ["black_box_min_align"],
  grow_same_align: ["grow_models"],
  grow_smaller_align: ["grow_models", "smaller_align_kept"],
  shrink_same_align: ["shrink_static", "blink_shrink"],
  shrink_smaller_align: ["smaller_align_kept", "bumpalo_model"],
  black_box_grow_same_align: ["realloc_one_method"],
  black_box_grow_smaller_align: ["realloc_one_method", "smaller_align_kept"],
  black_box_shrink_same_align: ["black_box_shrink"],
  black_box_shrink_smaller_align: ["black_box_shrink", "smaller_align_kept"],
  deallocate: ["bumpalo_model"],
  deallocate_non_last: ["bumpalo_model"],
  black_box_deallocate: ["bumpalo_model"],
  black_box_deallocate_non_last: ["bumpalo_model"],
  warm_up: ["warm_up_heap"],
  reset: ["reset_models"],
};

/** Notes on whole columns of ours, shown with the column list. */
export const COLUMN_NOTES = {
  model_bumpalo: "bumpalo_model",
  model_bump_scope_up: "bump_scope_model",
  model_bump_scope_down: "bump_scope_model",
};

const COPY_FN = /memcpy|memmove/;
const LIBC_ALLOC = /^(malloc|_int_malloc|free|_int_free|alloc_perturb|realloc|_int_realloc)$/;

/** The summed self cost of the functions of one cell whose names match. */
function fnCost(r, pattern) {
  const hit = Object.entries(r?.fns ?? {}).filter(([n]) => pattern.test(n));
  return { ir: hit.reduce((a, [, v]) => a + v.ir, 0), bc: hit.reduce((a, [, v]) => a + v.bc, 0) };
}

function copyPart(r) {
  const c = fnCost(r, COPY_FN);
  return c.ir > 0 ? `, of which memcpy ${cell(c)}` : "";
}

/** The memcpy share of the real crates' counts, as a note (or null). */
function copyNote(results) {
  let copy = null;
  let without = null;
  for (const l of REAL) {
    const r = results[l.id];
    if (!r) continue;
    const c = fnCost(r, COPY_FN);
    if (c.ir > 0) copy ??= c;
    const rest = { ir: r.ir - c.ir, bc: r.bc - c.bc };
    if (without === null || better(rest, without)) without = { ...rest, lib: l.name };
  }
  // Only worth a note when taking the copy out changes the best reference.
  const realBest = best(results, REAL);
  if (copy === null || !better(without, realBest)) return null;
  return {
    key: `copy ${copy.ir}/${copy.bc} ${without.ir}/${without.bc}`,
    text: `The real crates' counts include their memcpy call (${copy.ir} / ${copy.bc} inside memcpy); without it the best reference is ${without.ir} / ${without.bc} (${without.lib}, still with the call's set-up and saved registers).`,
  };
}

/** The lower of two costs: fewer instructions, then fewer branches. */
function better(a, b) {
  if (a.ir !== b.ir) return a.ir < b.ir;
  return a.bc < b.bc;
}

function best(results, libs) {
  let top = null;
  for (const lib of libs) {
    const r = results[lib.id];
    if (!r) continue;
    if (top === null || better(r, top)) top = { lib: lib.id, ir: r.ir, bc: r.bc };
    else if (r.ir === top.ir && r.bc === top.bc) top.lib += `, ${lib.id}`;
  }
  return top;
}

// ---------------------------------------------------------------------------
// Running

function cargoTargetDir() {
  const r = spawnSync("cargo", ["metadata", "--format-version", "1", "--no-deps"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  if (r.status !== 0) throw new Error(`cargo metadata failed: ${r.stderr}`);
  return JSON.parse(r.stdout).target_directory;
}

function text(cmd, args) {
  const r = spawnSync(cmd, args, { cwd: root, encoding: "utf8", maxBuffer: 64 << 20 });
  if (r.error || r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr ?? r.error}`);
  return r.stdout;
}

/** Symbols that share an address (LLVM merges identical functions into aliases). */
function aliases(bin) {
  const byAddr = new Map();
  const addrOf = new Map();
  for (const line of text("nm", ["--defined-only", bin]).split("\n")) {
    const m = /^([0-9a-f]+)\s+\S\s+(bumplab_bench__\S+)$/.exec(line);
    if (!m) continue;
    addrOf.set(m[2], m[1]);
    byAddr.set(m[1], [...(byAddr.get(m[1]) ?? []), m[2]]);
  }
  return (symbol) => byAddr.get(addrOf.get(symbol)) ?? [symbol];
}

/** The file name a listing shows for an object ("bumplab-bench", "libc.so.6"). */
function objectName(path) {
  return basename(path);
}

function callgrind(bin, entry, symbols, dir, disassembly) {
  const out = join(dir, `${entry.symbol}.out`);
  const args = [
    ...CALLGRIND,
    ...symbols.map((s) => `--toggle-collect=${s}`),
    `--callgrind-out-file=${out}`,
    bin,
    entry.case,
    entry.lib,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("valgrind", args, { cwd: root, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => {
      err += d;
    });
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`valgrind failed for ${entry.symbol} (exit ${code}):\n${err}`));
      try {
        const parsed = parseCallgrind(readFileSync(out, "utf8"));
        const ir = parsed.total.Ir;
        const bc = parsed.total.Bc;
        if (ir === undefined || bc === undefined) throw new Error("no Ir/Bc events (is --branch-sim=yes set?)");
        if (ir === 0) throw new Error(`nothing collected: ${entry.symbol} never ran`);
        const fns = {};
        for (const [name, v] of Object.entries(parsed.fns)) {
          // An alias may carry another case's name (merged identical functions).
          fns[name.startsWith("bumplab_bench__") ? "(entry)" : name] = { ir: v.Ir, bc: v.Bc };
        }
        const listing = buildListing(parseCallgrindInstructions(readFileSync(out, "utf8")), {
          entry: entry.symbol,
          aliases: symbols,
          disassembly,
        });
        // The listing and the table count the same events: fail rather than ship a listing that disagrees.
        if (listing.ir !== ir || listing.bc !== bc) throw new Error(`listing ${listing.ir} / ${listing.bc}, cell ${ir} / ${bc}`);
        checkListing(listing, entry.symbol);
        for (const f of listing.functions) f.object = objectName(f.object);
        resolve({ ir, bc, fns, listing });
      } catch (e) {
        reject(new Error(`${entry.symbol}: ${e.message}`));
      }
    });
  });
}

async function pool(items, limit, work) {
  const results = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      results[i] = await work(items[i], i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

// ---------------------------------------------------------------------------
// Writing

/**
 * The listings file: per case and library, the functions executed inside the
 * entry's window, each instruction as `[address, text, count]` or, for a
 * conditional branch, `[address, text, count, taken, notTaken]`. One line per
 * cell, so a regenerated file diffs cell by cell.
 */
export function listingsJson(meta, entries, measured) {
  const byCase = new Map();
  entries.forEach((e, i) => {
    const l = measured[i].listing;
    const cell = {
      ir: l.ir,
      bc: l.bc,
      functions: l.functions.map((f) => ({
        name: f.name,
        ...(f.alias ? { alias: f.alias } : {}),
        object: f.object,
        ir: f.ir,
        bc: f.bc,
        instructions: f.instructions.map((x) =>
          x.taken === undefined ? [x.address.toString(16), x.text, x.count] : [x.address.toString(16), x.text, x.count, x.taken, x.notTaken],
        ),
      })),
    };
    checkListing(
      { ...cell, functions: cell.functions.map((f) => ({ instructions: f.instructions.map(([, , count, taken, notTaken]) => ({ count, taken, notTaken })) })) },
      `${e.case} / ${e.lib}`,
    );
    const row = byCase.get(e.case) ?? [];
    row.push(`    ${JSON.stringify(e.lib)}: ${JSON.stringify(cell)}`);
    byCase.set(e.case, row);
  });
  const head = {
    format: 1,
    command: meta.command,
    date: meta.date,
    rustc: meta.rustc.version,
    valgrind: meta.valgrind,
    objdump: meta.objdump,
    instruction: ["address (hex)", "text", "count", "taken", "not taken"],
  };
  const cases = [...byCase].map(([name, rows]) => `  ${JSON.stringify(name)}: {\n${rows.join(",\n")}\n  }`);
  return `${JSON.stringify(head, null, 1).slice(0, -2)},\n "cells": {\n${cases.join(",\n")}\n }\n}\n`;
}

function markdown(report) {
  const { meta } = report;
  const footnotes = [];
  const footnote = (body) => {
    let i = footnotes.findIndex((f) => f.body === body);
    if (i < 0) {
      footnotes.push({ body });
      i = footnotes.length - 1;
    }
    return `[^${i + 1}]`;
  };
  const unsupported = (key) => `— ${footnote(UNSUPPORTED[key].text)}`;
  const noteRefs = (c) => c.notes.map((n) => footnote(n.text)).join(" ");
  const pad = (rows) => {
    const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
    const line = (r) => `| ${r.map((c, i) => c.padEnd(widths[i])).join(" | ")} |`;
    return [line(rows[0]), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...rows.slice(1).map(line)].join("\n");
  };
  const libName = (ids) =>
    ids
      .split(", ")
      .map((id) => LIBS.find((l) => l.id === id)?.name ?? id)
      .join(", ");

  const out = [];
  out.push("# Native x86-64 costs: ours vs bumpalo, bump-scope and blink-alloc");
  out.push("");
  out.push(`Generated by \`${COMMAND}\` (scripts/bench-native.mjs, entry functions in crates/bench) on ${meta.date}.`);
  out.push(`Do not edit by hand: regenerate with \`${COMMAND}\`.`);
  out.push("");
  out.push(`- Compiler: \`${meta.rustc.version}\` on \`${meta.rustc.host}\` using \`LLVM version ${meta.rustc.llvm}\`; release profile (opt-level 3, fat LTO, codegen-units 1, panic = abort).`);
  out.push(`- Counter: \`${meta.valgrind}\`, \`valgrind ${CALLGRIND.join(" ")} --toggle-collect=<entry>\`.`);
  out.push(
    `- Instructions: every cell's executed instructions (objdump text, execution counts, each conditional branch's taken / not-taken counts) are in \`${LISTINGS_FILE}\`, read from the same callgrind runs and disassembled with \`${meta.objdump ?? "objdump"}\`; the page opens one when a cell of its x86-64 table is clicked.`,
  );
  out.push(`- Real crates: bumpalo 3.20.4, bump-scope 2.4.1, blink-alloc 0.4.0, measured in the same run. Ours: bumplab-core with \`W = u64\` and \`NoProbe\`.`);
  out.push("");
  out.push("## Convention");
  out.push("");
  out.push(
    "Each cell is **instructions executed / conditional branches executed** (callgrind's `Ir` / `Bc`) inside one " +
      "`#[inline(never)]`, unmangled entry function whose body is only the operation, as in bump-scope's " +
      "callgrind benches (the seed 002 tables): setup runs before it, arguments and result pass through " +
      "`black_box`. The count **includes the entry function's own prologue and epilogue (push/pop/ret)** and " +
      "everything it calls (a memcpy, a slow path). It is not the per-iteration cost of a loop (that convention " +
      "gives 13 for the same `alloc(1u8)`: 7 fast path + 6 loop and `black_box`).",
  );
  out.push("");
  const a = report.anchor;
  out.push(
    `Anchor: \`alloc_u8\` is ${a.observed.map((o) => `${LIBS.find((l) => l.id === o.lib).name} ${cell(o)}`).join(", ")} ` +
      `(expected 10 / 1 for each: the figure in bump-scope's own benchmark table for these versions): ${a.ok ? "**matches**" : "**DOES NOT MATCH**"}. ` +
      `blink-alloc 0.4.0 measures ${cell(a.blink_alloc)}; seed 002's table gives ${cell(SEED_BLINK_ALLOC_U8)} for the blink-alloc its bench pinned (not necessarily 0.4.0), so that figure is shown for comparison, not as an anchor.`,
  );
  out.push("");
  out.push("How to read the summary: *best reference* is the lowest of the real columns; *ours best* the lowest of our " +
    "algorithms and models that support the case (fewer instructions first, then fewer branches). A note explains every " +
    "row where ours is worse, and every row where the comparison is not like for like.");

  for (const g of GROUPS) {
    out.push("");
    out.push(`## ${g.title}`);
    out.push("");
    out.push(g.about);
    out.push("");
    const rows = [["case", ...REAL.map((l) => l.name), "best reference", "ours best", "ours vs best", "notes"]];
    for (const name of g.cases) {
      const c = report.cases.find((x) => x.name === name);
      const row = [name];
      for (const l of REAL) {
        const why = c.unsupported[l.id];
        row.push(cell(c.results[l.id]) ?? (why ? unsupported(why) : "—"));
      }
      row.push(c.real_best ? cell(c.real_best) : "—");
      row.push(c.ours_best ? `${cell(c.ours_best)} (${libName(c.ours_best.lib)})` : "—");
      row.push(c.verdict);
      row.push(noteRefs(c));
      rows.push(row);
    }
    out.push(pad(rows));
  }

  out.push("");
  out.push("## Every column of ours");
  out.push("");
  out.push("The algorithms run over one fixed chunk (`models::fixed::Fixed`), the models over the simulated base allocator (`heap::Heap`). What each column is:");
  out.push("");
  for (const l of LIBS) {
    const n = COLUMN_NOTES[l.id];
    out.push(`- **${l.name}**: ${l.what}${n ? ` ${footnote(NOTE_TEXT[n])}` : ""}`);
  }
  out.push("");
  const rows = [["case", ...OURS.map((l) => l.name)]];
  for (const g of GROUPS) {
    for (const name of g.cases) {
      const c = report.cases.find((x) => x.name === name);
      rows.push([name, ...OURS.map((l) => cell(c.results[l.id]) ?? unsupported(c.unsupported[l.id]))]);
    }
  }
  out.push(pad(rows));

  out.push("");
  out.push("## Notes");
  out.push("");
  footnotes.forEach((f, i) => out.push(`[^${i + 1}]: ${f.body}`));
  out.push("");
  return out.join("\n");
}

// ---------------------------------------------------------------------------

/** Builds the bench, runs every entry under callgrind, and notes the tools' versions. */
async function measureAll() {
  run("cargo", ["build", "--release", "-p", "bumplab-bench"]);
  const bin = join(cargoTargetDir(), "release", "bumplab-bench");
  const entries = text(bin, ["--list"])
    .trim()
    .split("\n")
    .map((l) => {
      const [c, lib, symbol, minAlign] = l.split("\t");
      return { case: c, lib, symbol, min_align: Number(minAlign) };
    });
  const sameAs = aliases(bin);
  const dir = mkdtempSync(join(tmpdir(), "bumplab-bench-"));
  log(`callgrind: ${entries.length} entry functions, ${availableParallelism()} at a time`);
  let measured;
  try {
    const disassembly = objdumpDisassembler();
    measured = await pool(entries, availableParallelism(), (e) => callgrind(bin, e, sameAs(e.symbol), dir, disassembly));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }

  const rustcLines = Object.fromEntries(
    text("rustc", ["-vV"])
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split(": ")),
  );
  const meta = {
    command: COMMAND,
    date: new Date().toISOString().slice(0, 10),
    rustc: {
      version: text("rustc", ["-V"]).trim(),
      release: rustcLines.release,
      commit: rustcLines["commit-hash"],
      host: rustcLines.host,
      llvm: rustcLines["LLVM version"],
    },
    valgrind: text("valgrind", ["--version"]).trim(),
    objdump: text("objdump", ["--version"]).split("\n")[0].trim(),
    // The sources the measured binary was compiled from (cargo's dep-info):
    // web/src/model/x86.test.ts fails when one changes without a new run.
    sources: sourcesOf(readFileSync(`${bin}.d`, "utf8"), root, "crates/bench"),
    convention:
      `Ir / Bc executed inside one #[inline(never)] unmangled entry function per case and library (callgrind ${CALLGRIND.slice(1).join(" ")} --toggle-collect=<entry>); includes the entry's push/pop/ret and its callees; setup outside.`,
  };
  return { meta, entries, measured };
}

/** `--render`: the measurements of the last run, from the JSON, to rewrite the notes and tables. */
function fromJson(file) {
  const old = JSON.parse(readFileSync(file, "utf8"));
  const entries = [];
  const measured = [];
  for (const c of old.cases) {
    for (const [lib, r] of Object.entries(c.results)) {
      if (!r) continue;
      entries.push({ case: c.name, lib, symbol: c.symbols[lib], min_align: c.min_align ?? 1 });
      measured.push({ ir: r.ir, bc: r.bc, fns: r.fns ?? {} });
    }
  }
  return { meta: old.meta, entries, measured };
}

async function main() {
  const started = Date.now();
  const docs = join(root, "docs", "bench");
  const jsonFile = join(docs, "native-x86_64.json");
  const { meta, entries, measured } = process.argv.includes("--render") ? fromJson(jsonFile) : await measureAll();

  const cases = [];
  for (const g of GROUPS) {
    for (const name of g.cases) {
      const results = {};
      const symbols = {};
      const unsupported = {};
      for (const l of LIBS) {
        const i = entries.findIndex((e) => e.case === name && e.lib === l.id);
        if (i < 0) {
          const why = unsupportedReason(name, l);
          if (why === null && l.kind !== "real") throw new Error(`no entry for ${name} / ${l.id} and no reason why`);
          unsupported[l.id] = why;
          results[l.id] = null;
          continue;
        }
        const m = measured[i];
        const fns = Object.keys(m.fns).length > 1 ? m.fns : undefined;
        results[l.id] = { ir: m.ir, bc: m.bc, ...(fns ? { fns } : {}) };
        symbols[l.id] = entries[i].symbol;
      }
      const real_best = best(results, REAL);
      const ours_best = best(results, OURS);
      const notes = [];
      for (const [pattern, keys] of Object.entries(CASE_NOTES)) {
        const hit = pattern.endsWith("*") ? name.startsWith(pattern.slice(0, -1)) : name === pattern;
        if (!hit) continue;
        for (const key of keys) {
          const t = NOTE_TEXT[key];
          notes.push({ key, text: typeof t === "function" ? t(results) : t });
        }
      }
      const copy = copyNote(results);
      if (copy) notes.push(copy);
      let verdict = "—";
      if (real_best && ours_best) {
        if (ours_best.ir === real_best.ir && ours_best.bc === real_best.bc) verdict = "equal";
        else verdict = better(ours_best, real_best) ? "ours better" : "ours worse";
        if (verdict === "ours better" && notes.some((n) => UNLIKE.has(n.key))) verdict = "ours lower, not like for like";
      }
      if (verdict === "ours worse" && notes.length === 0) {
        console.warn(`[bump-lab] ${name}: ours is worse and no note explains it`);
        notes.push({ key: "unexplained", text: "Ours is worse here and no note explains it yet." });
      }
      const min_align = entries.find((e) => e.case === name)?.min_align ?? 1;
      cases.push({ name, group: g.title, min_align, results, unsupported, symbols, real_best, ours_best, verdict, notes });
    }
  }
  const anchorCase = cases.find((c) => c.name === "alloc_u8");
  const observed = ANCHORED.map((lib) => ({ lib, ...anchorCase.results[lib] }));
  const blink = anchorCase.results.blink_alloc;
  const anchor = {
    case: "alloc_u8",
    expected: { ir: 10, bc: 1 },
    observed: observed.map(({ lib, ir, bc }) => ({ lib, ir, bc })),
    ok: observed.every((o) => o.ir === 10 && o.bc === 1),
    blink_alloc: blink ? { ir: blink.ir, bc: blink.bc } : null,
    blink_alloc_seed: SEED_BLINK_ALLOC_U8,
  };
  const report = { meta, anchor, libraries: LIBS, unsupported_reasons: UNSUPPORTED, cases };

  mkdirSync(docs, { recursive: true });
  writeFileSync(jsonFile, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(join(docs, "native-x86_64.md"), markdown(report));
  if (measured.every((m) => m.listing)) {
    const text = listingsJson(meta, entries, measured);
    writeFileSync(join(root, LISTINGS_FILE), text);
    log(`wrote ${LISTINGS_FILE}: ${text.length} bytes, ${gzipSync(text).length} gzipped`);
  }
  log(`wrote docs/bench/native-x86_64.{json,md} in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  if (!anchor.ok) {
    console.error(`[bump-lab] anchor mismatch: alloc_u8 should be 10 / 1 for the real crates, got ${JSON.stringify(anchor.observed)}`);
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  main().catch((e) => {
    console.error(`[bump-lab] ${e.stack ?? e}`);
    process.exit(1);
  });
}
