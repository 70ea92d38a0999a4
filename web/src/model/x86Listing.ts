// The instructions behind each cell of the x86-64 reference table
// (docs/bench/native-x86_64-listings.json, written by `npm run bench:native`
// from the same callgrind runs): per case and library, the functions the
// measured entry executed, each instruction with its objdump text and how
// often it ran, each conditional branch with how often it was taken. The file
// is a Vite asset of its own, fetched the first time a listing is opened, so
// no page pays for it up front.

/** One executed instruction; `taken`/`notTaken` only on a conditional branch. */
export interface X86Instruction {
  /** Hexadecimal, as objdump prints it ("394dc"). */
  address: string;
  text: string;
  count: number;
  taken?: number;
  notTaken?: number;
}

export interface X86Function {
  name: string;
  /** The name callgrind saw, when the linker merged this entry with another identical one. */
  alias?: string;
  /** The file the code lives in ("bumplab-bench", "libc.so.6"). */
  object: string;
  ir: number;
  bc: number;
  instructions: X86Instruction[];
}

/** One cell's listing: its Ir / Bc and the functions that make them up. */
export interface X86Listing {
  ir: number;
  bc: number;
  functions: X86Function[];
}

export interface X86Listings {
  date: string;
  objdump: string;
  /** By case, then library id. */
  cells: Record<string, Record<string, X86Listing>>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (n: unknown): n is number => typeof n === "number" && Number.isInteger(n) && n >= 0;

function fail(where: string, what: string): never {
  throw new Error(`native-x86_64-listings.json: ${where}: ${what}`);
}

function count(o: Obj, key: string, where: string): number {
  const v = o[key];
  if (!isCount(v)) fail(where, `"${key}" is not a count`);
  return v;
}

function text(o: Obj, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== "string") fail(where, `"${key}" is not a string`);
  return v;
}

function instruction(row: unknown, where: string): X86Instruction {
  if (!Array.isArray(row) || (row.length !== 3 && row.length !== 5)) fail(where, "not [address, text, count] or [address, text, count, taken, not taken]");
  const [address, t, n, taken, notTaken] = row as unknown[];
  if (typeof address !== "string" || !/^[0-9a-f]+$/.test(address)) fail(where, "the address is not hexadecimal");
  if (typeof t !== "string") fail(where, "the text is not a string");
  if (!isCount(n)) fail(where, "the count is not a count");
  if (row.length === 3) return { address, text: t, count: n };
  if (!isCount(taken) || !isCount(notTaken)) fail(where, "the branch outcome is not two counts");
  return { address, text: t, count: n, taken, notTaken };
}

/** Validates one cell's listing, including that its counts add up to its Ir and Bc. */
export function parseX86Listing(value: unknown, where: string): X86Listing {
  if (!isObj(value)) fail(where, "not an object");
  const fnsRaw = value["functions"];
  if (!Array.isArray(fnsRaw) || fnsRaw.length === 0) fail(where, '"functions" is not a non-empty array');
  const functions = fnsRaw.map((f, i): X86Function => {
    const at = `${where}.functions[${i}]`;
    if (!isObj(f)) fail(at, "not an object");
    const rows = f["instructions"];
    if (!Array.isArray(rows)) fail(at, '"instructions" is not an array');
    const alias = f["alias"];
    return {
      name: text(f, "name", at),
      ...(typeof alias === "string" ? { alias } : {}),
      object: text(f, "object", at),
      ir: count(f, "ir", at),
      bc: count(f, "bc", at),
      instructions: rows.map((r, k) => instruction(r, `${at}.instructions[${k}]`)),
    };
  });
  const listing = { ir: count(value, "ir", where), bc: count(value, "bc", where), functions };
  const sums = listingSums(listing);
  if (sums.ir !== listing.ir || sums.bc !== listing.bc) {
    fail(where, `its instructions add up to ${sums.ir} / ${sums.bc}, not the cell's ${listing.ir} / ${listing.bc}`);
  }
  return listing;
}

/** Validates the listings file; throws an Error naming the first bad field. */
export function parseX86Listings(value: unknown): X86Listings {
  if (!isObj(value)) fail("root", "not an object");
  if (value["format"] !== 1) fail("root", `format ${String(value["format"])} is not 1`);
  const cellsRaw = value["cells"];
  if (!isObj(cellsRaw)) fail("root", '"cells" is not an object');
  const cells: Record<string, Record<string, X86Listing>> = {};
  for (const [name, libs] of Object.entries(cellsRaw)) {
    if (!isObj(libs)) fail(name, "not an object");
    const row: Record<string, X86Listing> = {};
    for (const [lib, l] of Object.entries(libs)) row[lib] = parseX86Listing(l, `${name} / ${lib}`);
    cells[name] = row;
  }
  return { date: text(value, "date", "root"), objdump: text(value, "objdump", "root"), cells };
}

/** The instructions and conditional-branch executions a listing adds up to. */
export function listingSums(listing: X86Listing): { ir: number; bc: number } {
  let ir = 0;
  let bc = 0;
  for (const f of listing.functions) {
    for (const i of f.instructions) {
      ir += i.count;
      if (i.taken !== undefined) bc += i.taken + (i.notTaken ?? 0);
    }
  }
  return { ir, bc };
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** "10 instructions, 1 conditional branch": what a listing (and its cell) counts. */
export function totalText(c: { ir: number; bc: number }): string {
  return `${plural(c.ir, "instruction", "instructions")}, ${plural(c.bc, "conditional branch", "conditional branches")}`;
}

/** "not taken 1×", "taken 3×, not taken 1×": a branch's outcome, in words. */
export function branchText(i: X86Instruction): string | undefined {
  if (i.taken === undefined) return undefined;
  const parts: string[] = [];
  if (i.taken > 0) parts.push(`taken ${i.taken}×`);
  if ((i.notTaken ?? 0) > 0) parts.push(`not taken ${i.notTaken ?? 0}×`);
  return parts.join(", ") || "never reached";
}

export type X86ListingsResult = { ok: true; listings: X86Listings } | { ok: false; error: string };

let loading: Promise<X86ListingsResult> | undefined;

/**
 * Fetches and validates the listings once; a failure (offline for a moment)
 * is not kept, so opening a listing again tries again.
 */
export function loadX86Listings(): Promise<X86ListingsResult> {
  loading ??= (async (): Promise<X86ListingsResult> => {
    try {
      const response = await fetch(new URL("../../../docs/bench/native-x86_64-listings.json", import.meta.url));
      if (!response.ok) throw new Error(`the server answered ${response.status} for native-x86_64-listings.json`);
      return { ok: true, listings: parseX86Listings(await response.json()) };
    } catch (e) {
      loading = undefined;
      return { ok: false, error: e instanceof Error ? e.message : String(e) };
    }
  })();
  return loading;
}
