// Example programs and program generators for the editor's Programs menu.
// Everything here is pure: the same options (and seed) give the same text.
//
// A failed allocation unbinds its name, so a later `free` or `realloc` of it
// is a program error. The fixed-chunk presets default to 256 bytes, so every
// generator only names a block again if it fits a 256-byte chunk even in the
// worst case (see `worstCost`); blocks past that are allocated but never
// referenced, and simply fail on a full fixed chunk.

import { DEFAULT_PROGRAM } from "./defaults";
import { RANDOM_MIX_LIMITS, type RandomMixOptions } from "./randomMixOptions";

export { DEFAULT_CONFIG, DEFAULT_PROGRAM } from "./defaults";

/** One entry of the menu: a title, one line on what it shows, and the text. */
export interface ProgramEntry {
  id: string;
  title: string;
  summary: string;
  source: () => string;
}

/** The smallest default capacity among the presets (the fixed 256-byte chunk). */
export const SAFE_BUDGET = 256;

const roundUp = (n: number, to: number): number => Math.ceil(n / to) * to;

/**
 * Bytes an allocation can take in the worst case on a fixed chunk: the size
 * rounded to a 16-byte minimum alignment, plus the most padding its alignment
 * (at least 16) can need.
 */
export function worstCost(size: number, align: number): number {
  return roundUp(size, 16) + Math.max(align, 16) - 1;
}

/** mulberry32: a small seeded generator, so a seed always gives the same program. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Pads `code` so trailing comments line up. */
function withComment(code: string, comment: string): string {
  return `${code.padEnd(26)}# ${comment}`;
}

// --- Vec push ---------------------------------------------------------------

export type ElementType = "u8" | "u16" | "u32" | "u64";
const ELEMENT_BYTES: Record<ElementType, number> = { u8: 1, u16: 2, u32: 4, u64: 8 };

export interface VecPushOptions {
  /** How many elements are pushed. */
  elements: number;
  element: ElementType;
}

/**
 * A Rust `Vec` filled by `push`: the first push allocates room for 4
 * elements (8 for bytes), and each push into a full Vec doubles it with a
 * realloc.
 */
export function vecPush({ elements, element }: VecPushOptions = { elements: 32, element: "u32" }): string {
  const bytes = ELEMENT_BYTES[element];
  const lines = [
    `# Vec<${element}>: push ${elements} elements. A full Vec doubles its capacity`,
    "# with realloc. Bumping up, an arena with a realloc fast path grows the",
    "# last block in place while its chunk has room; bumping down, every",
    "# growth moves the block down and copies its bytes.",
  ];
  let capacity = 0;
  for (let push = 1; push <= elements; push++) {
    if (push - 1 < capacity) continue;
    const next = capacity === 0 ? (bytes === 1 ? 8 : 4) : capacity * 2;
    const comment = `push ${push}: capacity ${next}`;
    lines.push(
      withComment(capacity === 0 ? `v = alloc [${element}; ${next}]` : `v = realloc v ${next * bytes}`, comment),
    );
    capacity = next;
  }
  return lines.join("\n");
}

// --- String building --------------------------------------------------------

export const WORDS: readonly string[] = ["the", "quick", "brown", "fox", "jumps", "over", "the", "lazy"];

/**
 * A string built by appending words, reallocating to the exact new length
 * each time (as a naive builder does): many small reallocs of the last block.
 */
export function stringBuilding(words: readonly string[] = WORDS): string {
  const lines = [
    `# String building: append ${words.length} words, reallocating to the exact`,
    "# length each time. Bumping up, an arena with a realloc fast path grows",
    "# the last block in place; bumping down, a growth moves the string down",
    "# and copies it, unless rounding to a minimum alignment had room to spare.",
  ];
  let text = "";
  for (const word of words) {
    const first = text === "";
    text = first ? word : `${text} ${word}`;
    const bytes = new TextEncoder().encode(text).length;
    lines.push(withComment(first ? `s = alloc ${bytes}` : `s = realloc s ${bytes}`, JSON.stringify(text)));
  }
  return lines.join("\n");
}

// --- Parser AST nodes -------------------------------------------------------

export interface ParserNodesOptions {
  /** Expression nodes to build. */
  nodes: number;
  seed: number;
}

const NODE_KINDS: readonly { kind: string; bytes: number; weight: number }[] = [
  { kind: "literal", bytes: 16, weight: 3 },
  { kind: "identifier", bytes: 16, weight: 3 },
  { kind: "binary", bytes: 24, weight: 2 },
  { kind: "call", bytes: 24, weight: 1 },
];

/**
 * A parser building a flattened expression tree in an arena, as in the C++
 * parser of seed 004: many nodes of a handful of bytes, children referred
 * to by index, and calls with a small vector of argument indexes (a second
 * allocation). All of it lives until the end, so nothing is freed.
 */
export function parserNodes({ nodes, seed }: ParserNodesOptions = { nodes: 40, seed: 1 }): string {
  const random = seededRandom(seed);
  const total = NODE_KINDS.reduce((n, k) => n + k.weight, 0);
  const lines = [
    `# Parser AST: ${nodes} expression nodes (seed ${seed}). Each node is a few bytes;`,
    "# children are u32 indexes, and a call also gets a vector of argument",
    "# indexes. Nothing is freed: the tree lives as long as the arena.",
    "# A fixed 256-byte chunk fills up; cpp-arena or bumpalo grow.",
  ];
  for (let n = 1; n <= nodes; n++) {
    let pick = random() * total;
    const kind = NODE_KINDS.find((k) => (pick -= k.weight) < 0) ?? NODE_KINDS[0];
    if (!kind) break;
    lines.push(withComment(`n${n} = alloc ${kind.bytes} align 8`, kind.kind));
    if (kind.kind === "call") {
      const args = 1 + Math.floor(random() * 4);
      lines.push(withComment(`n${n}args = alloc [u32; ${args}]`, `${args} argument index${args === 1 ? "" : "es"}`));
    }
  }
  return lines.join("\n");
}

// --- Random mix ---------------------------------------------------------------

export {
  RANDOM_MIX_DEFAULTS,
  RANDOM_MIX_LIMITS,
  validateRandomMix,
  type RandomMixField,
  type RandomMixInput,
  type RandomMixOptions,
  type RandomMixValidation,
} from "./randomMixOptions";

/**
 * A seeded mix of allocs, reallocs, frees and the odd reset. Sizes and
 * alignments are drawn uniformly from the ranges (alignments among their
 * powers of two). Only blocks that surely fit a fixed 256-byte chunk are
 * reallocated or freed later (see the file comment).
 */
export function randomMix(options: RandomMixOptions): string {
  const { ops, minSize, maxSize, minAlign, maxAlign, seed } = options;
  const random = seededRandom(seed);
  const between = (lo: number, hi: number): number => lo + Math.floor(random() * (hi - lo + 1));
  const aligns: number[] = [];
  for (let a = minAlign; a <= maxAlign; a *= 2) aligns.push(a);

  const lines = [`# Random mix: ${ops} ops, sizes ${minSize}..${maxSize}, align ${minAlign}..${maxAlign}, seed ${seed}`];
  /** Live blocks that may be named again, with their alignment. */
  let live: { name: string; align: number }[] = [];
  let used = 0;
  let next = 1;
  for (let k = 0; k < ops; k++) {
    const roll = random();
    const size = between(minSize, maxSize);
    const victim = live.length > 0 ? between(0, live.length - 1) : -1;
    const block = live[victim];
    if (block && roll < 0.05) {
      lines.push("reset");
      live = [];
      used = 0;
    } else if (block && roll < 0.25) {
      lines.push(`free ${block.name}`);
      live.splice(victim, 1);
    } else if (block && roll < 0.45 && used + worstCost(size, block.align) <= SAFE_BUDGET) {
      lines.push(`${block.name} = realloc ${block.name} ${size}`);
      used += worstCost(size, block.align);
    } else {
      const align = aligns[between(0, aligns.length - 1)] ?? 1;
      const name = `b${next++}`;
      lines.push(align === 1 ? `${name} = alloc ${size}` : `${name} = alloc ${size} align ${align}`);
      const cost = worstCost(size, align);
      // Past the budget the block may fail on a full chunk: never name it again.
      if (used + cost <= SAFE_BUDGET) live.push({ name, align });
      used += cost;
    }
  }
  return lines.join("\n");
}

// --- The menu's catalogue -------------------------------------------------------

export const EXAMPLES: readonly ProgramEntry[] = [
  {
    id: "default",
    title: "A few blocks",
    summary: "The starting program: sizes, types, an array, padding and a free.",
    source: () => DEFAULT_PROGRAM,
  },
  {
    id: "padding",
    title: "Alignment padding",
    summary: "Small blocks between large alignments: padding the bump must skip.",
    source: () =>
      [
        "# Each 1-byte block is followed by one that wants a larger alignment:",
        "# the bump pointer skips bytes to reach the next aligned address.",
        "a = alloc 1",
        "b = alloc 8 align 8",
        "c = alloc 1",
        "d = alloc 16 align 16",
        "e = alloc 1",
        "f = alloc 32 align 32",
      ].join("\n"),
  },
  {
    id: "checkpoint",
    title: "Checkpoint and restore",
    summary: "Save the bump pointer, allocate scratch space, then rewind.",
    source: () =>
      [
        "# A checkpoint saves the bump pointer; restore rewinds to it and",
        "# reclaims every block allocated since, all at once.",
        "keep = alloc 32 align 8",
        "checkpoint s",
        "scratch = alloc [u64; 8]",
        "tmp = alloc 24",
        "restore s",
        "after = alloc 16 align 8",
      ].join("\n"),
  },
  {
    id: "repeat-reset",
    title: "Frames with reset",
    summary: "Per-frame scratch allocations, reclaimed by a reset each frame.",
    source: () =>
      [
        "# A game loop: each frame allocates scratch data, then resets.",
        "repeat 3 {",
        "  verts = alloc [u32; 12]",
        "  repeat 4 { node = alloc 8 align 8 }",
        "  reset",
        "}",
      ].join("\n"),
  },
];

export const GENERATORS: readonly ProgramEntry[] = [
  {
    id: "vec-push",
    title: "Vec push with doubling",
    summary: "32 pushes into a Vec<u32>: capacity 4, 8, 16, 32 by realloc.",
    source: () => vecPush(),
  },
  {
    id: "string-building",
    title: "String building",
    summary: "A string grown word by word: many small reallocs of the last block.",
    source: () => stringBuilding(),
  },
  {
    id: "parser-nodes",
    title: "Parser AST nodes",
    summary: "40 small expression nodes, as a parser builds them in an arena.",
    source: () => parserNodes(),
  },
];
