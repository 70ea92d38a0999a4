// Small constants that share links and the reducer check, apart from the
// modules that use them at length (compare, sweep): an embed that decodes a
// link loads this, not those.

/** Compare mode shows this many columns at least, and at most MAX_COMPARE. */
export const MIN_COMPARE = 2;
export const MAX_COMPARE = 4;

/** A sweep never runs more configurations than this. */
export const MAX_SWEEP_POINTS = 64;

export type SweepParam = "minAlign" | "target" | "preset" | "capacity" | "generatorSize" | "generatorAlign";

export const SWEEP_PARAMS: readonly { param: SweepParam; label: string }[] = [
  { param: "minAlign", label: "Minimum alignment" },
  { param: "target", label: "Target" },
  { param: "preset", label: "Preset" },
  { param: "capacity", label: "First chunk size" },
  { param: "generatorSize", label: "Random mix: size range" },
  { param: "generatorAlign", label: "Random mix: alignment range" },
];

export const isSweepParam = (text: string): text is SweepParam => SWEEP_PARAMS.some((p) => p.param === text);

/**
 * The largest capacity and minimum alignment a run takes (the engine's
 * MAX_CAPACITY, 1 GiB, and MAX_ALIGN). Every way a number reaches the engine
 * checks it against these first: the wasm boundary takes a u32 and would
 * wrap a larger number around (4294967552 runs as 256).
 */
export const MAX_CAPACITY = 1 << 30;
export const MAX_MIN_ALIGN = 4096;

/**
 * The engine's limits on a program (crates/core: program.rs
 * MAX_SOURCE_BYTES, engine/mod.rs MAX_EXECUTED_OPS; a test checks they
 * agree). A recording of a real program takes 15 to 25 bytes an op, so the
 * text limit holds a recording of the op limit. The op limit is memory's: a
 * million-line recording takes about 66 MB of the running instance's wasm
 * memory (its text is parsed in a worker), and a changed setting runs it
 * again beside the run on screen.
 */
export const MAX_SOURCE_BYTES = 32_000_000;
export const MAX_RUN_OPS = 1_500_000;

/** The bytes `text` takes in UTF-8 (a file's size), without encoding it. */
export function utf8Bytes(text: string): number {
  // Up to the first character past ASCII, each is one byte: a regular
  // expression finds it four times faster than a loop reading each one
  // (a recording of 20 MB is all ASCII).
  const first = text.search(/[^\x00-\x7f]/);
  if (first < 0) return text.length;
  let n = text.length;
  for (let i = first; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) continue;
    // Two bytes up to U+07FF, else three; a surrogate pair (two units) is
    // four bytes, a lone surrogate the three of the U+FFFD it becomes.
    const pair = c >= 0xd800 && c <= 0xdbff && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      n += 2;
      i++;
    } else {
      n += c < 0x800 ? 1 : 2;
    }
  }
  return n;
}

const grouped = (n: number): string => n.toLocaleString("en-US");

/** `32 MB`, `20.4 MB`: megabytes of 1,000,000 bytes, one decimal unless it is zero. */
export function megabytes(n: number): string {
  const tenths = Math.ceil(Math.floor(n / 50_000) / 2);
  return tenths % 10 === 0 ? `${tenths / 10} MB` : `${Math.floor(tenths / 10)}.${tenths % 10} MB`;
}

/**
 * Why a program of `bytes` bytes is refused, as the engine says it
 * (program.rs `too_large`): both sizes in megabytes, or in bytes where one
 * decimal would make them read the same. Null: within the limit.
 */
export function sourceTooLarge(bytes: number): string | null {
  if (bytes <= MAX_SOURCE_BYTES) return null;
  const size = megabytes(bytes);
  const limit = megabytes(MAX_SOURCE_BYTES);
  return size === limit
    ? `the program is ${grouped(bytes)} bytes; the limit is ${grouped(MAX_SOURCE_BYTES)} bytes`
    : `the program is ${size}; the limit is ${limit}`;
}
