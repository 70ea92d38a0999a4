// Guided lessons, one per lesson the reference documents teach. Each is a
// plain program with `#>` narration (model/narration.ts), so a teacher can
// open one, edit it and share it like any other program. Every address, size
// or comparison the narration states is checked against the engine's trace in
// lessons.test.ts: edit a lesson and that test says which claim broke.

import { configOf, sameSettings, type RunConfig, type RunSettings } from "../wasm/config";
import { childText, targetText, type Departure } from "./settings";
import { parseNarration } from "./narration";
import { narrationOf, recordedById, type RecordedProgram } from "./recorded";

export interface Lesson {
  id: string;
  title: string;
  /** One sentence for the lesson chooser. */
  summary: string;
  /**
   * The run the narration was written for: its program, and a capacity
   * small enough that the map stays readable.
   */
  config: RunConfig;
  /**
   * The allocator Compare runs beside the lesson's own, and why, when the
   * lesson's point is made by another partner than the usual counterpart
   * (each preset's counterpart in the preset registry, crates/core/src/presets.rs).
   */
  compareWith?: { allocator: string; why: string };
}

const lines = (...text: string[]): string => text.join("\n");

/** Seed 000: Fitzgerald's bump down against Hinckley's bump up. */
const BUMP_DOWN: Lesson = {
  id: "bump-down",
  title: "Why bumping down needs fewer instructions",
  summary: "Bump down subtracts and rounds with one mask; compare its cost with bumping up.",
  config: {
    source: lines(
      "# Lesson: why bumping down needs fewer instructions (Hinckley 2024, after Fitzgerald 2019).",
      "",
      "#> This chunk bumps **down**: the pointer starts at the chunk's *end* and each block is carved off below it.",
      "#> The **Algorithm** panel shows the three moves: subtract the size, round down with one mask, compare with the start.",
      "#>",
      "#> `a` is one byte with no alignment, so it takes the chunk's very last byte, 0x1010f.",
      "#> !highlight a",
      "a = alloc u8",
      "#> ?predict",
      "#> `b` is a `u64`: 8 bytes, 8-aligned. Subtracting 8 from 0x1010f gives an odd address, so the mask rounds it",
      "#> *down* to 0x10100, skipping 7 bytes of padding. Rounding down is one AND with `!(align - 1)`: nothing to add.",
      "#> !highlight b",
      "b = alloc u64",
      "#> A `u128` needs 16-alignment, and 0x10100 − 16 = 0x100f0 already has it: no padding this time.",
      "c = alloc u128",
      "#> ?predict",
      "#> A 13-byte slice of `u8` needs no alignment at all: it ends exactly where `c` starts.",
      "d = alloc [u8; 13]",
      "#> !pause",
      "#> Now look at the **Cost** panel. Each request is measured as Rust code makes it, its type's layout known at",
      "#> compile time. `b` and `c` executed the *same* 20 wasm instructions and 2 branches: rounding down is one mask",
      "#> whatever the alignment, so the work does not depend on how much padding a request needs. `a` and `d` ran",
      "#> fewer instructions, 17 and 18: their alignment is 1, so the compiler dropped the mask.",
      "#>",
      "#> Switch the allocator to `hinckley-up-naive`, the first bump-up version, and step again: `b` and `c` each cost",
      "#> 27 instructions *and* 3 branches. Rounding up needs an extra addition, and its two `checked_add`s are two",
      "#> branches where bumping down has one `checked_sub`.",
      "#>",
      "#> Then try `hinckley-up`, Hinckley's one-branch bump up: it leans on the `Layout` guarantee to check once, so it",
      "#> runs *fewer* branches than bumping down, 1, yet still more instructions for `b` and `c`, 25 (the addition stays).",
      "#>",
      "#> One case runs the other way. With an alignment of 1 there is nothing to round, and bumping up needs only the",
      "#> addition and one compare: `a`, a lone `u8`, takes 13 instructions on either bump up, fewer than 17 bumping down.",
      "#>",
      "#> Or see all three side by side, op by op, in compare mode.",
      "#> !try allocator hinckley-up-naive",
      "#> !try allocator hinckley-up",
      '#> !try compare hinckley-up-naive hinckley-up "compare all three"',
      "e = alloc u64",
    ),
    allocator: "fitzgen-down",
    target: "wasm32",
    capacity: 256,
    minAlign: null,
  },
};

/** Seed 000 (realloc) and notes/real-allocators.md: bump-scope up against bumpalo down. */
const REALLOC: Lesson = {
  id: "realloc-fast-path",
  title: "The realloc fast path: up keeps it, down copies",
  summary: "Growing the last block is free when bumping up; bumping down has to move it.",
  config: {
    source: lines(
      "# Lesson: the realloc fast path, bumping up (bump-scope) against bumping down (bumpalo).",
      "",
      "#> Growing data you cannot size in advance (a `Vec` being pushed to, a `String` being formatted) means `realloc`.",
      "#> A bump allocator has a **fast path** for the *last* block: move the bump pointer and nothing else.",
      "#>",
      "#> This is **bump-scope bumping up**. `s` starts as 8 bytes at the chunk's start, 0x10020.",
      "s = alloc 8",
      "#> ?predict",
      "#> `s` is the last block and its end is the bump pointer: growing it to 16 bytes only moves the pointer.",
      "#> `s` stays at 0x10020 and no byte is copied.",
      "#> !highlight s",
      "s = realloc s 16",
      "#> Again in place, to 32 bytes. **Copied** in the stats is still 0 bytes.",
      "s = realloc s 32",
      "#> `t` goes right after `s`, at 0x10040. Now `s` is no longer the last block.",
      "t = alloc 8",
      "#> ?predict",
      "#> `s` cannot grow where it is: `t` is in the way. It is allocated anew after `t`, its 32 bytes are copied,",
      "#> and the old bytes stay behind as waste until a reset.",
      "#> !highlight s t",
      "s = realloc s 64",
      "#> !pause",
      "#> Now switch the allocator to **bumpalo**, which bumps *down*, and step through again. A block grows towards its",
      "#> end, upwards, but the free space is *below* it: even the last block must move down and copy its bytes on",
      "#> every growth (8, then 16 bytes here). bumpalo moves it over its own old bytes, so nothing is wasted, but it",
      "#> pays for the copy each time. See [Hinckley's post](https://coredumped.dev/2024/03/25/bump-allocation-up-or-down/).",
      "#> !try allocator bumpalo",
      "#>",
      "#> The article's own algorithms make the same point. Side by side, Hinckley's bump up grows `s` in place twice,",
      "#> while Fitzgerald's bump down moves it down over its old bytes and copies 8, then 16 bytes. The table",
      "#> below the maps gives each realloc's wasm instructions in every column; the copy itself is a memmove on top,",
      "#> which no column counts (the models track addresses, not the bytes at them).",
      "#> !try compare hinckley-up fitzgen-down \"compare with the article's algorithms\"",
    ),
    allocator: "bump-scope-up",
    target: "wasm32",
    capacity: null,
    minAlign: null,
  },
  compareWith: {
    allocator: "bumpalo",
    why: "The lesson's pair: bump-scope bumping up grows the last block in place, bumpalo bumping down moves and copies it on every growth.",
  },
};

/** Seed 000 (minimum alignment): up-min-align. */
const MIN_ALIGN: Lesson = {
  id: "min-align",
  title: "Minimum alignment: less work per allocation",
  summary: "Keep the bump pointer 8-aligned and a u64, its layout known at compile time, needs no alignment work.",
  config: {
    source: lines(
      "# Lesson: a minimum alignment (MIN_ALIGN = 8) keeps the bump pointer aligned.",
      "",
      "#> Most data is word-aligned. With a **minimum alignment** of 8, every size is rounded up to a multiple of 8,",
      "#> so the bump pointer is *always* 8-aligned and any request aligned to 8 or less needs no alignment work.",
      "#>",
      "#> In the **Algorithm** panel, `a` (a `u64`) runs no alignment step: the size, one check, the end rounded to 8",
      "#> (by 0 bytes), the bump. Its layout is known at compile time, so the compiled code settles the `align > MIN_ALIGN`",
      "#> test and that rounding before it runs: the **Cost** panel shows 15 wasm instructions, where `hinckley-up` runs",
      "#> 25 for the same `u64`.",
      "a = alloc u64",
      "#> ?predict",
      "#> `b` lands right after `a`, at 0x10018, with nothing to compute.",
      "b = alloc u64",
      "#> ?predict",
      "#> `c` is a 3-byte slice of `u8`. It lands at 0x10020, and the pointer is rounded up past it to 0x10028 so that",
      "#> it stays 8-aligned for whoever comes next. A slice's length comes at run time, so that rounding is computed:",
      "#> 21 instructions, more than a `u64`'s 15.",
      "c = alloc [u8; 3]",
      "#> `d`, another `u64`, lands on the already-aligned pointer, 0x10028, with no alignment step: the 5 bytes after",
      "#> `c` were set aside when `c` was rounded. Any allocator leaves them before a `u64` here (`hinckley-up` puts",
      "#> `d` at 0x10028 too, padding it by 5); what MIN_ALIGN adds shows with blocks smaller than 8, below.",
      "d = alloc u64",
      "#> ?predict",
      "#> A `u128` asks for 16, *above* MIN_ALIGN: only now does the code compute an alignment offset, 25 instructions",
      "#> against a `u64`'s 15.",
      "e = alloc u128",
      "#> !pause",
      "#> The cost of the trick: every 1-byte allocation takes 8 bytes. Watch **Used** grow by 8 each time while",
      "#> **Requested** grows by 1.",
      "repeat 3 {",
      "  f = alloc u8",
      "}",
      "#> The saving needs a layout the compiler knows. `g` asks for 24 bytes aligned to 8 with both numbers known only",
      "#> at run time, as `alloc_layout` with a computed `Layout` does. Now the code tests `align > MIN_ALIGN` and rounds",
      "#> the end as it runs: 38 instructions, more than the 27 `hinckley-up` runs for the same request. Compare the",
      "#> two, op by op.",
      "#> !try compare hinckley-up",
      "g = alloc 24 align 8",
      "#> Switch the allocator to `down-min-align`: bumping down keeps the pointer aligned the same way, rounding",
      "#> each size up to 8, so a 3-byte block takes 8 bytes there too.",
      "#> !try allocator down-min-align",
    ),
    allocator: "up-min-align",
    target: "wasm32",
    capacity: 256,
    minAlign: 8,
  },
};

/** Seed 001: Bumper.jl's SlabBuffer and the slab-boundary pitfall. */
const SLAB: Lesson = {
  id: "slab-boundary",
  title: "The slab-boundary pitfall",
  summary: "A scope opened when the slab is full makes and frees a new slab on every iteration.",
  config: {
    source: lines(
      "# Lesson: Bumper.jl's SlabBuffer and the slab-boundary pitfall.",
      "",
      "#> Bumper.jl's **SlabBuffer** hands out memory from fixed-size slabs: 1 MiB by default, 256 bytes here so the",
      "#> map stays readable. It bumps up, by the byte count, with no alignment.",
      "#>",
      "#> `a` takes just under half of the first slab.",
      "a = alloc 127",
      "#> `b` takes just under the other half: 2 bytes of the slab are left.",
      "b = alloc 127",
      "#> Inside the loop, each iteration opens a scope: `checkpoint` saves the position, and `restore` will free",
      "#> whatever the scope allocated.",
      "repeat 3 {",
      "  checkpoint s",
      "  #> ?predict",
      "  #> `y` needs 10 bytes and only 2 are left: it cannot fit, so **a new slab** is made for it, and `y` lands",
      "  #> at its start, 0x10120.",
      "  y = alloc 10",
      "  #> !pause",
      "  #> Restoring frees the slabs made since the checkpoint: the new slab goes back. Next time round the same",
      "  #> slab is made again at the same address and freed again. That is the **pitfall**: every iteration pays",
      "  #> for a slab allocation and a free (the slow part of the bars in the **Cost** panel).",
      "  restore s",
      "}",
    ),
    allocator: "bumper-slab",
    target: "wasm32",
    capacity: 256,
    minAlign: null,
  },
};

/** Seed 004: the C++ parser arena. */
const PARSER: Lesson = {
  id: "parser-arena",
  title: "A parser's arena: pools of small nodes",
  summary: "The C++ arena's pool growth formula, and the exact fit that still makes a new pool.",
  config: {
    source: lines(
      "# Lesson: the C++ parser arena (\"Using arena allocators to improve parser performance\").",
      "",
      "#> A parser makes many small nodes that all live as long as the parse. This arena gives them out from",
      "#> **pools** in a linked list; each pool's 12-byte header sits at its own start (wasm32).",
      "#> A new pool is `max(cap * 2, (n / cap) * 2 * cap)` bytes for a request of `n`, with `cap` the last pool's",
      "#> size, or the initial capacity (32 here) for the first: 64 bytes. Each node then takes the next 12 bytes.",
      "repeat 4 {",
      "  node = alloc 12 align 4",
      "}",
      "#> ?predict",
      "#> Exactly 16 bytes are left and `exact` needs 16. But the arena tests `remaining <= n`, so an exact fit",
      "#> **still makes a new pool**, `64 * 2` = 128 bytes, and leaves those 16 bytes unused.",
      "exact = alloc 16 align 4",
      "#> `call`, the children of a call expression (three `u32` indexes), fits in the new pool.",
      "call = alloc [u32; 3]",
      "#> ?predict",
      "#> 300 bytes: `(300 / 128) * 2 * 128` = 512 beats `128 * 2` = 256, so the new pool holds 512 bytes.",
      "big = alloc 300 align 4",
      "#> !pause",
      "#> Freeing one node does nothing at all: `deallocate` is a no-op that executes no instruction (see the",
      "#> **Cost** panel). The pools go back only when the whole arena is destroyed.",
      "#>",
      "#> Go back to the exact fit to see the 16 bytes its pool left unused.",
      '#> !try step 5 "back to the exact fit"',
      "free call",
    ),
    allocator: "cpp-arena",
    target: "wasm32",
    capacity: 32,
    minAlign: null,
  },
};

/** Seed 003: bump allocation against the general-purpose allocator. */
const VERSUS: Lesson = {
  id: "bump-vs-malloc",
  title: "A bump allocation against the general-purpose allocator",
  summary: "bumpalo's fast path next to Rust's global allocator, op by op, in the Cost panel.",
  config: {
    source: lines(
      "# Lesson: bumpalo against Rust's global allocator (dlmalloc) on wasm32.",
      "",
      "#> How cheap is a bump allocation next to a general-purpose allocator? On wasm32 the **Cost** panel shows,",
      "#> beside each op of the model, the real **bumpalo** crate and Rust's **global allocator** doing the same op.",
      "#>",
      "#> The first allocation is the *slow path*: bumpalo owns no chunk yet, so it asks the global allocator for one.",
      "a = alloc u64",
      "#> ?predict",
      "#> Now the *fast path*: subtract, mask, compare. The real bumpalo executes fewer wasm instructions here",
      "#> than the global allocator does for the same `u64`.",
      "b = alloc u64",
      "#> Again the fast path, 40 bytes below `b`.",
      "c = alloc [u8; 40]",
      "#> `c` is the last block, so freeing it moves the pointer back: its 40 bytes are free again.",
      "free c",
      "#> ?predict",
      "#> A 16-aligned `u128`: rounding down costs bumpalo nothing extra, while the global allocator does",
      "#> more work than for the `u64`s.",
      "d = alloc u128",
      "#> `a` is not the last block: freeing it does nothing, its bytes wait for a reset.",
      "free a",
      "#> !pause",
      "#> `reset` gives everything back in one move of the pointer, and costs bumpalo fewer instructions than the",
      "#> global allocator spends. Yet the global allocator is no snail either: allocation is not the villain it",
      "#> is made out to be (\"Allocations are good, actually\"). Bump allocation wins by doing *less*.",
      "reset",
    ),
    allocator: "bumpalo",
    target: "wasm32",
    capacity: null,
    minAlign: null,
  },
};

export const LESSONS: readonly Lesson[] = [BUMP_DOWN, REALLOC, MIN_ALIGN, SLAB, PARSER, VERSUS];

/** A recorded program's lesson id: `recorded:` and its id. */
export const RECORDED_LESSON_PREFIX = "recorded:";

/**
 * A program recorded from real software, opened from the Programs menu,
 * reads like a lesson: its narration (what the arena does with the
 * workload, written from facts a test recomputes from its trace) is written
 * for one allocator on 64-bit, and is put away when the settings change.
 * Its program is a file fetched when opened, so the lesson carries none.
 */
export function recordedLesson(id: string): { lesson: Lesson; recorded: RecordedProgram } | undefined {
  const recorded = id.startsWith(RECORDED_LESSON_PREFIX) ? recordedById(id.slice(RECORDED_LESSON_PREFIX.length)) : undefined;
  if (!recorded) return undefined;
  const lesson: Lesson = {
    id,
    title: `Recorded: ${recorded.title}`,
    summary: `${narrationOf(recorded)} Recorded with: ${recorded.command}`,
    config: { source: "", allocator: recorded.allocator, target: "64", capacity: null, minAlign: null },
  };
  return { lesson, recorded };
}

export function lessonById(id: string): Lesson | undefined {
  return LESSONS.find((l) => l.id === id) ?? recordedLesson(id)?.lesson;
}

export { settingsText, type Departure } from "./settings";

/**
 * The run a `!try allocator` switches to: as choosing that allocator in the
 * editor does, the preset starts at its own default minimum alignment.
 */
export function triedConfig(from: RunConfig, allocator: string): RunConfig {
  const same = allocator === from.allocator;
  const out: RunConfig = { ...configOf(from), allocator, minAlign: same ? from.minAlign : null };
  if (!same) delete out.child;
  return out;
}

/** Null while `current` runs on the settings the lesson was written for. */
export function departureFrom(lesson: Lesson, current: RunConfig): Departure | null {
  const l = lesson.config;
  if (sameSettings(l, current)) return null;
  const changed: string[] = [];
  if (current.allocator !== l.allocator) changed.push(`the allocator to ${current.allocator}`);
  if (current.target !== l.target) changed.push(`the target to ${targetText(current.target)}`);
  if (current.capacity !== l.capacity) changed.push(current.capacity === null ? "the capacity to the preset's default" : `the capacity to ${current.capacity}`);
  // Another allocator resets the minimum alignment by itself: only a chosen one is a change of its own.
  if (current.minAlign !== l.minAlign && (current.minAlign !== null || current.allocator === l.allocator)) {
    changed.push(current.minAlign === null ? "the minimum alignment to the preset's default" : `the minimum alignment to ${current.minAlign}`);
  }
  // Likewise the child allocator.
  if ((current.child ?? null) !== (l.child ?? null) && (current.child != null || current.allocator === l.allocator)) {
    changed.push(current.child == null ? "the child allocator to the preset's default" : `the child allocator to ${childText(current.child)}`);
  }
  // The detours the program on screen offers (a teacher's edit may add one).
  const suggested = new Set<string>();
  for (const n of parseNarration(current.source).values()) for (const t of n.tries) if (t.kind === "allocator") suggested.add(t.allocator);
  const intended = [...suggested].some((a) => sameSettings(triedConfig(l, a), current));
  const now: RunSettings = { allocator: current.allocator, target: current.target, capacity: current.capacity, minAlign: current.minAlign };
  if (current.child != null) now.child = current.child;
  return { intended, changed, now };
}
