// What one op executed, laid out as its compiled code: each function that ran
// (in the order it was first entered) with every operator of its body, the
// executed ones counted, each conditional branch's outcomes, each call's
// callees, and the Rust file and line every operator came from. Pure: from
// the listing and one column of `executedOps`.

import type { ExecutedColumn, Listing, ListingOp } from "../wasm/listing";

/** One operator of a function that ran, with what this op did with it. */
export interface InstructionRow {
  /** Its index in the function body (the listing's op index). */
  index: number;
  text: string;
  /** Whether it counts (an instruction), or is structure (block, loop, else, end, nop). */
  counted: boolean;
  branch: boolean;
  /** Times it executed during the op. */
  runs: number;
  /** A conditional branch's outcomes: times it jumped, and times it went on to the next operator. */
  taken: number;
  notTaken: number;
  /** A br_table's chosen labels (the default is the table's length), in the order chosen. */
  choices: number[];
  /** Functions a call here entered (their names), in order, once each. */
  callees: string[];
  /** Rust file (as the listing names it) and 1-based line; null / 0 when unknown. */
  file: string | null;
  line: number;
}

/** A function the op ran, headed as the view heads it. */
export interface FunctionRun {
  fn: number;
  name: string;
  /** Call depth below the root (0) when first entered. */
  depth: number;
  /** Times it was entered. */
  entries: number;
  /**
   * On the slow path: a function whose name says slow or in_another_chunk
   * (the meter's slow functions), or one such a function called; the meter
   * counts both as slow.
   */
  slow: boolean;
  rows: InstructionRow[];
  /** Executed instructions and conditional branches in it. */
  instructions: number;
  branches: number;
}

export interface ExecutedListing {
  functions: FunctionRun[];
  /** Executed instructions and conditional branches, counted from the executed list. */
  instructions: number;
  branches: number;
  /** The part of them run on the slow path (in a slow function or below one). */
  slowInstructions: number;
  slowBranches: number;
  /** The cost module's own count for the op (what the cost view shows). */
  cost: ExecutedColumn["cost"];
  truncated: boolean;
  /** Executed entries naming a function or operator the listing does not have (a stale listing). */
  unknown: number;
}

/** The meter's slow path, by name (crates/meter/src/slow.rs). */
export function isSlowPath(name: string): boolean {
  return name.includes("slow") || name.includes("in_another_chunk");
}

/** The name's last two path segments, "Fitzgen::alloc" for bumplab_core::…::Fitzgen::alloc. */
export function shortName(name: string): string {
  // Generic arguments hold "::" too: strip them before splitting.
  const bare = name.replace(/<[^<>]*(<[^<>]*>[^<>]*)*>/g, "");
  const parts = bare.split("::").filter((p) => p !== "" && !/^h[0-9a-f]{16}$/.test(p));
  return parts.slice(-2).join("::") || name;
}

/** "fitzgen.rs:52": the file's last path segment and the line, or "" when unknown. */
export function compactSource(file: string | null, line: number): string {
  if (file === null || line <= 0) return "";
  return `${file.slice(file.lastIndexOf("/") + 1)}:${line}`;
}

function row(index: number, op: ListingOp, files: readonly string[]): InstructionRow {
  return {
    index,
    text: op.text,
    counted: op.cost > 0,
    branch: op.branch,
    runs: 0,
    taken: 0,
    notTaken: 0,
    choices: [],
    callees: [],
    file: op.file >= 0 ? (files[op.file] ?? null) : null,
    line: op.line,
  };
}

/** Whether a br_table's chosen label index is its default (the last, one past its list). */
const isTable = (text: string): boolean => text.startsWith("br_table");

/**
 * Lays out a column of `executedOps` over the listing. A function is entered
 * when an instruction runs one call deeper than the one before it (or it is
 * the first); the call instruction just before it gets its name.
 */
export function executedListing(listing: Listing, column: ExecutedColumn): ExecutedListing {
  const runs = new Map<number, FunctionRun>();
  const order: FunctionRun[] = [];
  let instructions = 0;
  let branches = 0;
  let slowInstructions = 0;
  let slowBranches = 0;
  let unknown = 0;
  let prev: { fn: number; depth: number; row: InstructionRow | undefined } | null = null;
  // Whether the frame at each call depth is on the slow path, set as it is entered.
  const slowAt: boolean[] = [];
  for (const [fn, opIndex, depth, taken] of column.executed) {
    const f = listing.functions.get(fn);
    const op = f?.ops[opIndex];
    if (!f || !op) {
      unknown++;
      prev = null;
      continue;
    }
    let run = runs.get(fn);
    if (!run) {
      run = { fn, name: f.name, depth, entries: 0, slow: false, rows: f.ops.map((o, i) => row(i, o, listing.files)), instructions: 0, branches: 0 };
      runs.set(fn, run);
      order.push(run);
    }
    const entered = prev === null ? instructions === 0 : depth > prev.depth;
    if (entered || slowAt[depth] === undefined) slowAt[depth] = (depth > 0 && slowAt[depth - 1] === true) || isSlowPath(f.name);
    const inSlow = slowAt[depth] === true;
    if (inSlow) run.slow = true;
    if (entered) {
      run.entries++;
      // The caller's instruction just before the callee's first: its call.
      const caller = prev?.row;
      if (caller && !caller.callees.includes(run.name)) caller.callees.push(run.name);
    }
    const r = run.rows[opIndex];
    if (!r) continue;
    r.runs++;
    run.instructions++;
    instructions++;
    if (inSlow) slowInstructions++;
    if (r.branch) {
      run.branches++;
      branches++;
      if (inSlow) slowBranches++;
      if (isTable(r.text)) r.choices.push(taken);
      else if (taken === 1) r.taken++;
      else r.notTaken++;
    }
    prev = { fn, depth, row: r };
  }
  return { functions: order, instructions, branches, slowInstructions, slowBranches, cost: column.cost, truncated: column.truncated, unknown };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** "22 instructions, 2 conditional branches executed". */
export function summaryText(x: Pick<ExecutedListing, "instructions" | "branches">): string {
  return `${plural(x.instructions, "instruction", "instructions")}, ${plural(x.branches, "conditional branch", "conditional branches")} executed`;
}

/** A branch's outcomes in words: "taken", "not taken", "taken 2×, not taken 1×", "chose label 3". */
export function branchOutcome(r: InstructionRow): string {
  if (!r.branch || r.runs === 0) return "";
  if (r.choices.length > 0) {
    const labels = [...new Set(r.choices)];
    return `chose label ${labels.join(", ")}`;
  }
  if (r.notTaken === 0) return r.taken === 1 ? "taken" : `taken ${r.taken}×`;
  if (r.taken === 0) return r.notTaken === 1 ? "not taken" : `not taken ${r.notTaken}×`;
  return `taken ${r.taken}×, not taken ${r.notTaken}×`;
}

/** The column's executed branches in execution order, each with its outcome: what a test or a reader checks first. */
export function executedBranches(listing: Listing, column: ExecutedColumn): { fn: string; text: string; taken: number }[] {
  const out: { fn: string; text: string; taken: number }[] = [];
  for (const [fn, opIndex, , taken] of column.executed) {
    const f = listing.functions.get(fn);
    const op = f?.ops[opIndex];
    if (f && op?.branch) out.push({ fn: f.name, text: op.text, taken });
  }
  return out;
}

/** An instruction's operator, without its immediates: `i32.add`, `br_if`, `local.get`. */
export function operatorOf(text: string): string {
  return text.trim().split(/\s+/, 1)[0] ?? "";
}

/**
 * Which of `mine` the other run lacks: the two runs' operators, in the order
 * they ran, lined up by their longest common subsequence; an operator of
 * `mine` outside it is one `theirs` has no counterpart for (true). This is
 * how a learner sees the extra addition and compare of bumping up: the two
 * listings agree everywhere else.
 */
export function lacking(mine: readonly string[], theirs: readonly string[]): boolean[] {
  const n = mine.length;
  const m = theirs.length;
  // lcs[i][j]: the longest common subsequence of mine[i..] and theirs[j..].
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    const row = lcs[i] as number[];
    const below = lcs[i + 1] as number[];
    for (let j = m - 1; j >= 0; j--) {
      row[j] = mine[i] === theirs[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const out = new Array<boolean>(n).fill(true);
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (mine[i] === theirs[j]) {
      out[i] = false;
      i++;
      j++;
    } else if ((lcs[i + 1]?.[j] ?? 0) >= (lcs[i]?.[j + 1] ?? 0)) i++;
    else j++;
  }
  return out;
}
