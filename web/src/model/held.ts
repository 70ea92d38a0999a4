// The blocks a trace's chunks hold after a step, straight from the TraceView's
// columns: no replay of ops, no object per block unless one is asked for.
// heldRows.ts finds each chunk's held ops by address; this module keeps the
// last two steps per trace (the one shown and the one before it), so zooming
// and panning at one step cost a binary search plus the blocks (or bins,
// heldBins.ts) in view.

import { META_ALIGN_SHIFT, META_KIND, META_PLACED, META_STMT_SHIFT, NONE, type TraceView } from "../wasm/traceView";
import type { Bin } from "./bins";
import { binsOf } from "./heldBins";
import { addressOfId, chunkStarts, deltaCore, derivable, EMPTY_ROW, fullCore, rowOf, type Core } from "./heldRows";

export type BlockState = "live" | "freed" | "leaked";

export interface Block {
  /** Index of the op that placed it: stable across steps, the data-join key. */
  id: number;
  name: string;
  chunk: number;
  address: number;
  size: number;
  align: number;
  /** Alignment padding skipped to place it. */
  padding: number;
  /** First byte of that padding: above the block bumping down, below it bumping up. */
  paddingStart: number;
  state: BlockState;
  /** The op that placed it: its kind and 1-based program line (for the block's card). */
  kind?: "alloc" | "realloc";
  line?: number;
  /** For a realloc: the op id of the block it replaced (moved away from, or grew in place). */
  from?: number;
}

/** One chunk's held blocks after a step, by address. */
export interface HeldRow {
  readonly chunk: number;
  /** Held blocks in this chunk. */
  readonly count: number;
  /** The op that placed the j-th block by address (ties in op order). */
  id(j: number): number;
  /** Index of the first block whose bytes reach past `address` (a zero-sized block: at or past it). */
  firstEndingAfter(address: number): number;
  /** Index one past the last block starting before `address`. */
  endBefore(address: number): number;
  /** The j-th block by address, as an object (made on demand, kept for the step). */
  block(j: number): Block;
  /** Blocks j in [from, to), by address. */
  slice(from: number, to: number): Block[];
  /** Every block, by address: O(count). */
  all(): Block[];
  /** The block op `id` placed, when this chunk holds it: O(1). */
  find(id: number): Block | undefined;
  /** The held block of the realloc that replaced block `id` (moved it or grew it in place), if any: O(1). */
  successor(id: number): Block | undefined;
  /** `count` level-of-detail bins over [lo, hi) of this row's blocks. */
  bins(lo: number, hi: number, count: number): Bin[];
}

export interface Held {
  readonly step: number;
  /** Held blocks over every chunk. */
  readonly total: number;
  /** The row of chunk `id` (an empty row when it holds nothing). */
  row(id: number): HeldRow;
  /** The block op `id` placed, when it is held after the step. */
  find(id: number): Block | undefined;
  /** Ids of the rows that hold something. */
  chunkIds(): number[];
}

/** Steps kept per trace: the one shown and the one before it (4 bytes per held block each). */
const CACHE = 2;
const cache = new WeakMap<TraceView, Held[]>();
const cores = new WeakMap<Held, Core>();
/** Each Held's blocks made so far, by op id: the next step's Held takes those still the same. */
const blocksOf = new WeakMap<Held, Map<number, Block>>();

/** What the chunks hold after `step` ops (step clamped to 0..length). */
export function heldAt(t: TraceView, step: number): Held {
  const k = Math.min(Math.max(0, Math.trunc(Number.isFinite(step) ? step : 0)), t.length);
  let list = cache.get(t);
  if (!list) cache.set(t, (list = []));
  const hit = list.findIndex((h) => h.step === k);
  if (hit >= 0) {
    const h = list[hit] as Held;
    if (hit !== list.length - 1) {
      list.splice(hit, 1);
      list.push(h);
    }
    return h;
  }
  // From the nearest cached step when it is close (scrubbing, playing): only
  // the rows the ops in between touched change.
  let near: Held | undefined;
  for (const h of list) if (!near || Math.abs(h.step - k) < Math.abs(near.step - k)) near = h;
  const nearCore = near ? cores.get(near) : undefined;
  const core = (nearCore && derivable(nearCore.step, k) ? deltaCore(t, nearCore, k) : undefined) ?? fullCore(t, k);
  // A block the nearest step made and this step sees in the same state is the
  // same object: a step leaves most blocks as they were, and the map compares
  // blocks by identity (and makes no garbage for them).
  const h = wrap(t, core, near ? blocksOf.get(near) : undefined);
  cores.set(h, core);
  list.push(h);
  if (list.length > CACHE) list.shift();
  return h;
}

/** The state after step k of the block op i placed. */
function stateAt(t: TraceView, i: number, k: number): BlockState {
  const dead = t.cols.dead_at[i] as number;
  if (dead === NONE || dead >= k) return "live";
  return ((t.cols.meta[dead] as number) & META_KIND) === 2 ? "freed" : "leaked";
}

/** The block op i placed, as held after step k. */
function makeBlock(t: TraceView, starts: Float64Array, i: number, k: number): Block {
  const { meta, chunk, size: sizes, padding: paddings } = t.cols;
  const m = meta[i] as number;
  const kind = (m & META_KIND) === 1 ? "realloc" : "alloc";
  const stmt = m >>> META_STMT_SHIFT;
  const name = t.stmts.block(stmt);
  const line = t.stmts.line(stmt);
  const address = addressOfId(t, starts, i);
  const size = sizes[i] as number;
  const padding = paddings[i] as number;
  const state = stateAt(t, i, k);
  const block: Block = {
    id: i,
    name: name ?? `#${i}`,
    chunk: rowOf(chunk[i] as number),
    address,
    size,
    align: 2 ** ((m >>> META_ALIGN_SHIFT) & 0xf),
    padding,
    paddingStart: t.direction === "down" ? address + size : address - padding,
    state,
    kind,
    ...(line > 0 ? { line } : {}),
  };
  if (kind === "realloc") {
    const from = t.op(i).target_op;
    if (from !== undefined) block.from = from;
  }
  return block;
}

/**
 * The Held of a core: rows and blocks made on first use and kept with it
 * (blocks `earlier` holds in the same state are taken from it).
 */
function wrap(t: TraceView, core: Core, earlier?: Map<number, Block>): Held {
  const { meta, gone_at, size: sizes } = t.cols;
  const k = core.step;
  const starts = chunkStarts(t);
  const rows = core.rows.length - 1;
  const blocks = new Map<number, Block>();
  const made = (i: number): Block => {
    let b = blocks.get(i);
    if (!b) {
      const before = earlier?.get(i);
      blocks.set(i, (b = before && before.state === stateAt(t, i, k) ? before : makeBlock(t, starts, i, k)));
    }
    return b;
  };
  const find = (id: number): Block | undefined => {
    if (!Number.isInteger(id) || id < 0 || id >= k) return undefined;
    if (((meta[id] as number) & META_PLACED) === 0 || (gone_at[id] as number) < k) return undefined;
    return made(id);
  };
  const successor = (id: number): Block | undefined => {
    if (!Number.isInteger(id) || id < 0 || id >= t.length) return undefined;
    const d = t.cols.dead_at[id] as number;
    if (d === NONE || ((meta[d] as number) & META_KIND) !== 1) return undefined;
    const b = find(d);
    return b && b.from === id ? b : undefined;
  };

  const makeRow = (chunkId: number): HeldRow => {
    const { ids, backwards } = Number.isInteger(chunkId) && chunkId >= 0 && chunkId < rows ? (core.rows[chunkId] ?? EMPTY_ROW) : EMPTY_ROW;
    const n = ids.length;
    const last = n - 1;
    const idAt = backwards ? (j: number): number => ids[last - j] as number : (j: number): number => ids[j] as number;
    const address = (j: number): number => addressOfId(t, starts, idAt(j));
    const size = (j: number): number => sizes[idAt(j)] as number;
    /** The first j in 0..n where `before(j)` is false (it is true then false along the row). */
    const search = (before: (j: number) => boolean): number => {
      let lo = 0;
      let hi = n;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (before(mid)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    const block = (j: number): Block => made(idAt(j));
    const slice = (from: number, to: number): Block[] => {
      const out: Block[] = [];
      for (let j = Math.max(0, from); j < Math.min(n, to); j++) out.push(block(j));
      return out;
    };
    const own = (b: Block | undefined): Block | undefined => (b && b.chunk === chunkId ? b : undefined);
    const row: HeldRow = {
      chunk: chunkId,
      count: n,
      id: idAt,
      firstEndingAfter: (a) =>
        search((j) => {
          const s = size(j);
          const x = address(j);
          return s === 0 ? x < a : x + s <= a;
        }),
      endBefore: (a) => search((j) => address(j) < a),
      block,
      slice,
      all: () => slice(0, n),
      find: (id) => own(find(id)),
      successor: (id) => own(successor(id)),
      bins: (lo, hi, count) => binsOf(t, chunkId, row, k, lo, hi, count),
    };
    return row;
  };
  const rowCache = new Map<number, HeldRow>();
  const held: Held = {
    step: k,
    total: core.total,
    row(id) {
      let r = rowCache.get(id);
      if (!r) rowCache.set(id, (r = makeRow(id)));
      return r;
    },
    find,
    chunkIds() {
      const out: number[] = [];
      for (let r = 0; r < rows; r++) if ((core.rows[r]?.ids.length ?? 0) > 0) out.push(r);
      return out;
    },
  };
  blocksOf.set(held, blocks);
  return held;
}
