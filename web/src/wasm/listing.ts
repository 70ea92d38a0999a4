// The compiled code behind a count: the cost module's listing (every
// instrumented function's wasm text with the Rust file and line of each
// instruction, written when the module is built) and, for one op, the
// instructions it executed (the module's `executedOps`). Both are fetched
// only once the Instructions view opens, and of the listing only what the op
// ran: its index (the Rust file names) and one small file per function
// executed (web/pkg-cost/listing/, split from the meter's listing.json by
// scripts/split-listing.mjs), never the whole listing, whose size grows with
// the functions the module measures.

import type { RunConfig } from "./config";
import type { ExecutedColumn, ExecutedColumnName } from "./costModule";

/** One operator of a function body, as the listing has it. */
export interface ListingOp {
  /** Byte offset of the operator in the unmetered module. */
  offset: number;
  /** Its wasm text ("local.get 0", "br_if 1 (;@2;)", "call $name"). */
  text: string;
  /** Instructions it counts (0 for block, loop, else, end, nop). */
  cost: number;
  /** Whether it is a conditional branch (if, br_if, br_table). */
  branch: boolean;
  /** Index into the listing's `files`, or -1 when unknown. */
  file: number;
  /** 1-based Rust line, or 0 when unknown. */
  line: number;
}

export interface ListingFunction {
  /** Demangled Rust name ("bumplab_core::algorithms::fitzgen::Fitzgen::alloc"). */
  name: string;
  ops: ListingOp[];
}

export interface Listing {
  /** Rust source files, repository-relative where they are the repository's. */
  files: string[];
  /** By function index in the module. */
  functions: Map<number, ListingFunction>;
}

/** The meter's whole listing (listing.json), as tools and tests read it. */
export const LISTING_FORMAT = 1;
/** The split listing's format (index.json and a file per function): the one this page fetches. */
export const SPLIT_LISTING_FORMAT = 2;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** listing.json's value as a Listing, or why it is not one. */
export function parseListing(value: unknown): Listing | { error: string } {
  if (!isObject(value)) return { error: "the listing is not a JSON object" };
  if (value["format"] !== LISTING_FORMAT) return { error: `the listing has format ${String(value["format"])}, and this page reads format ${LISTING_FORMAT}` };
  const files = value["files"];
  const functions = value["functions"];
  if (!Array.isArray(files) || !files.every((f) => typeof f === "string") || !isObject(functions)) return { error: "the listing has no files or functions" };
  const out = new Map<number, ListingFunction>();
  for (const [key, f] of Object.entries(functions)) {
    const index = Number(key);
    if (!Number.isInteger(index) || !isObject(f) || typeof f["name"] !== "string" || !Array.isArray(f["ops"])) return { error: `the listing's function ${key} is malformed` };
    const ops: ListingOp[] = [];
    for (const op of f["ops"] as unknown[]) {
      if (!Array.isArray(op) || op.length < 6 || typeof op[1] !== "string") return { error: `the listing's function ${key} has a malformed operator` };
      ops.push({ offset: Number(op[0]), text: op[1], cost: Number(op[2]), branch: Number(op[3]) === 1, file: Number(op[4]), line: Number(op[5]) });
    }
    out.set(index, { name: f["name"], ops });
  }
  return { files: files as string[], functions: out };
}

/** The split listing's index.json: the Rust files, and which functions have a file. */
export function parseListingIndex(value: unknown): Listing | { error: string } {
  if (!isObject(value)) return { error: "the listing's index is not a JSON object" };
  if (value["format"] !== SPLIT_LISTING_FORMAT) return { error: `the listing has format ${String(value["format"])}, and this page reads format ${SPLIT_LISTING_FORMAT}` };
  const files = value["files"];
  if (!Array.isArray(files) || !files.every((f) => typeof f === "string")) return { error: "the listing's index has no files" };
  return { files: files as string[], functions: new Map() };
}

const digits = (v: unknown, n: number): v is string => typeof v === "string" && v.length === n && /^[0-9]*$/.test(v);

/** One function's file of the split listing (scripts/split-listing.mjs writes its columns), as a ListingFunction. */
export function parseListingFunction(value: unknown, index: number): ListingFunction | { error: string } {
  const bad = { error: `the listing's function ${index} is malformed` };
  if (!isObject(value) || typeof value["name"] !== "string" || typeof value["text"] !== "string") return bad;
  const texts = value["text"] === "" ? [] : value["text"].split("\n");
  const n = texts.length;
  const deltas = value["deltas"];
  const lines = value["lines"];
  const offset = value["offset"];
  if (typeof offset !== "number" || !Array.isArray(deltas) || deltas.length !== Math.max(0, n - 1) || !digits(value["cost"], n) || !digits(value["branch"], n)) return bad;
  if (!Array.isArray(lines) || lines.length % 3 !== 0 || !lines.every((x) => typeof x === "number")) return bad;
  const cost = value["cost"];
  const branch = value["branch"];
  const ops: ListingOp[] = [];
  let at = offset;
  let run = 0;
  let left = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) at += Number(deltas[i - 1]);
    while (left === 0) {
      if (run * 3 >= lines.length) return bad;
      left = Number(lines[run * 3 + 2]);
      run++;
    }
    left--;
    ops.push({ offset: at, text: texts[i] ?? "", cost: Number(cost[i]), branch: branch[i] === "1", file: Number(lines[run * 3 - 3]), line: Number(lines[run * 3 - 2]) });
  }
  return { name: value["name"], ops };
}

export type { ExecutedColumn, ExecutedColumnName };

/** What one op executed, per measured column (the cost module's `executed`, when it succeeded). */
export interface ExecutedOps {
  op: number;
  columns: ExecutedColumn[];
}

/** What the Instructions view shows for one op of one run. */
export type InstructionsLookup =
  | { state: "loading"; what: string }
  /** `retry`: the failure may pass (a fetch, a module that did not load), so the view offers Try again. */
  | { state: "failed"; message: string; retry?: boolean }
  | { state: "ready"; listing: Listing; executed: ExecutedOps };

export interface InstructionsDeps {
  /**
   * Fetches and parses the listing's index (a failure rejects or answers
   * `{error}`); with `loadFunction`, its functions are fetched one by one as
   * ops execute them, else it comes whole.
   */
  loadListing(): Promise<Listing | { error: string }>;
  /** Fetches one function of the listing. */
  loadFunction?(index: number): Promise<ListingFunction | { error: string }>;
  /** The op's executed instructions on the cost module. */
  executedOps(config: RunConfig, op: number): Promise<ExecutedOps | { error: string }>;
  /** Something asked for arrived: render again. */
  onLoaded(): void;
  /**
   * An op's instructions are measured once it has been asked for this long
   * without another op asked for since (playback passes ops it need not
   * measure; each measure replays the program). 0: at once.
   */
  settleMs?: number;
}

/**
 * The longest program the view lists instructions for: each op it shows
 * replays the whole program on the page's thread (some 30 ms per 1,000 ops
 * of bumpalo on this project's VM), which must stay short of a pause.
 */
export const INSTRUCTIONS_MAX_OPS = 5_000;

/** Why a program of `ops` ops gets no instructions listed, or undefined. */
export function overInstructionsCap(ops: number): string | undefined {
  return ops > INSTRUCTIONS_MAX_OPS
    ? `The Instructions view replays the program for each op it shows, so it lists programs of up to ${INSTRUCTIONS_MAX_OPS.toLocaleString("en-US")} ops, and this one runs ${ops.toLocaleString("en-US")}.`
    : undefined;
}

/** Ops whose executed instructions are kept (stepping back and forth over a few ops is free). */
const KEPT = 64;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

export interface InstructionsSource {
  /** What the view shows for op `op` (0-based) of `config`'s run; starts the fetches it needs. */
  lookup(config: RunConfig, op: number): InstructionsLookup;
  /** Forgets failures and renders again, so the next look-up fetches again (a Try again button). */
  retry(): void;
}

/**
 * A cached lookup of (run, op) → what the view shows: `loading` until the
 * listing and the op's instructions are both here (calling `onLoaded` when
 * they are), `failed` with the reason, else `ready`. The listing is fetched
 * on the first look-up only; a failure stays until `retry`.
 */
export function instructionsSource(deps: InstructionsDeps): InstructionsSource {
  let listing: Listing | { error: string } | null = null;
  let listingPending = false;
  const executed = new Map<string, ExecutedOps | { error: string }>();
  const pending = new Set<string>();
  let wanted: { key: string; config: RunConfig; op: number } | null = null;
  // Functions of the split listing: fetching, or why one could not be read.
  const fetching = new Set<number>();
  const functionErrors = new Map<number, string>();
  /** The functions `ran` executed that the listing does not hold yet (and starts fetching them). */
  const missingFunctions = (l: Listing, ran: ExecutedOps): number[] => {
    const load = deps.loadFunction;
    if (!load) return [];
    const missing = new Set<number>();
    for (const column of ran.columns) for (const [fn] of column.executed) if (!l.functions.has(fn)) missing.add(fn);
    for (const fn of missing) {
      if (fetching.has(fn) || functionErrors.has(fn)) continue;
      fetching.add(fn);
      load(fn).then(
        (f) => {
          fetching.delete(fn);
          if ("error" in f) functionErrors.set(fn, f.error);
          else l.functions.set(fn, f);
          deps.onLoaded();
        },
        (e: unknown) => {
          fetching.delete(fn);
          functionErrors.set(fn, `function ${fn} did not load (${message(e)})`);
          deps.onLoaded();
        },
      );
    }
    return [...missing];
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const measure = (key: string, config: RunConfig, op: number): void => {
    pending.add(key);
    deps.executedOps(config, op).then(
      (r) => {
        pending.delete(key);
        executed.set(key, r);
        // The oldest first: Map keeps insertion order.
        for (const old of executed.keys()) {
          if (executed.size <= KEPT) break;
          executed.delete(old);
        }
        deps.onLoaded();
      },
      (e: unknown) => {
        pending.delete(key);
        executed.set(key, { error: message(e) });
        deps.onLoaded();
      },
    );
  };
  const lookup = (config: RunConfig, op: number): InstructionsLookup => {
    if (listing === null && !listingPending) {
      listingPending = true;
      deps.loadListing().then(
        (l) => {
          listing = l;
          listingPending = false;
          deps.onLoaded();
        },
        (e: unknown) => {
          listing = { error: `the listing did not load (${message(e)})` };
          listingPending = false;
          deps.onLoaded();
        },
      );
    }
    const key = JSON.stringify([config.source, config.allocator, config.target, config.capacity, config.minAlign, config.child ?? null, op]);
    const ran = executed.get(key);
    if (ran === undefined && !pending.has(key)) {
      wanted = { key, config, op };
      const settle = deps.settleMs ?? 0;
      if (settle <= 0) measure(key, config, op);
      else {
        clearTimeout(timer);
        timer = setTimeout(() => {
          if (wanted && !pending.has(wanted.key) && !executed.has(wanted.key)) measure(wanted.key, wanted.config, wanted.op);
        }, settle);
      }
    }
    if (listing !== null && "error" in listing) return { state: "failed", message: `The compiled code's listing is not available: ${listing.error}.`, retry: true };
    if (ran !== undefined && "error" in ran) return { state: "failed", message: `The op's executed instructions could not be measured: ${ran.error}.`, retry: true };
    if (listing === null) return { state: "loading", what: "Loading the compiled code's listing…" };
    if (ran === undefined) return { state: "loading", what: "Running the op on the compiled code…" };
    const missing = missingFunctions(listing, ran);
    const failed = missing.find((fn) => functionErrors.has(fn));
    if (failed !== undefined) return { state: "failed", message: `The compiled code's listing is not available: ${functionErrors.get(failed) ?? ""}.`, retry: true };
    if (missing.length > 0) return { state: "loading", what: `Loading the compiled code of ${missing.length === 1 ? "1 function" : `${missing.length} functions`}…` };
    return { state: "ready", listing, executed: ran };
  };
  return {
    lookup,
    retry() {
      if (listing !== null && "error" in listing) listing = null;
      functionErrors.clear();
      for (const [key, r] of executed) if ("error" in r) executed.delete(key);
      deps.onLoaded();
    },
  };
}

/**
 * The split listing's folder: web/pkg-cost/listing/ as the dev server serves
 * it, a folder of the build's assets (named by its contents' hash) in a build;
 * vite.config.ts says which (LISTING_DIR, relative to this module).
 */
const listingDir = (): URL => new URL(/* @vite-ignore */ LISTING_DIR, import.meta.url);

async function fetchJson(url: URL, what: string): Promise<unknown> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`the server answered ${response.status} for ${what}`);
  return (await response.json()) as unknown;
}

/** Fetches the split listing's index.json. */
export async function fetchListing(): Promise<Listing | { error: string }> {
  return parseListingIndex(await fetchJson(new URL("index.json", listingDir()), "the listing's index.json"));
}

/** Fetches one function's file of the split listing. */
export async function fetchListingFunction(index: number): Promise<ListingFunction | { error: string }> {
  return parseListingFunction(await fetchJson(new URL(`${index}.json`, listingDir()), `the listing's ${index}.json`), index);
}
