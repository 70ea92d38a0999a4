// The compiled code behind a count: the cost module's listing (every
// instrumented function's wasm text with the Rust file and line of each
// instruction, web/pkg-cost/listing.json, written when the module is built)
// and, for one op, the instructions it executed (the module's `executedOps`).
// Both are fetched only once the Instructions view opens: the listing is a
// file of its own (megabytes: every instrumented function), never part of a page's first load.

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

/** The only listing format this page reads. */
export const LISTING_FORMAT = 1;

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
  /** Fetches and parses listing.json (a failure rejects or answers `{error}`). */
  loadListing(): Promise<Listing | { error: string }>;
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
    return { state: "ready", listing, executed: ran };
  };
  return {
    lookup,
    retry() {
      if (listing !== null && "error" in listing) listing = null;
      for (const [key, r] of executed) if ("error" in r) executed.delete(key);
      deps.onLoaded();
    },
  };
}

/** Fetches web/pkg-cost/listing.json, built beside the cost module, as a Vite asset of its own. */
export async function fetchListing(): Promise<Listing | { error: string }> {
  const url = new URL("../../pkg-cost/listing.json", import.meta.url);
  const response = await fetch(url);
  if (!response.ok) return { error: `the server answered ${response.status} for listing.json` };
  return parseListing(await response.json());
}
