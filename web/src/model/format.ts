// Number formatting shared by every view.

/** `0x100d0`: lowercase, no padding, as the engine writes addresses. */
export function hex(n: number): string {
  if (!Number.isFinite(n) || !Number.isInteger(n)) throw new RangeError(`hex() needs an integer, got ${n}`);
  return n < 0 ? `-0x${(-n).toString(16)}` : `0x${n.toString(16)}`;
}

/** `1 byte`, `24 bytes`; `written` is how the number is shown (`1,515`). */
export function bytes(n: number, written = String(n)): string {
  return `${written} ${n === 1 ? "byte" : "bytes"}`;
}

/** A 0..1 ratio as a percentage with one decimal: `23.8%`. */
export function percent(ratio: number): string {
  return `${(Math.round(ratio * 1000) / 10).toFixed(1)}%`;
}

/**
 * A micro-step value: hex, with the decimal alongside for small numbers
 * (sizes, alignments, padding) where it reads differently. Addresses stay hex.
 */
export function hexWithDecimal(n: number): { hex: string; decimal: string | null } {
  return { hex: hex(n), decimal: n >= 10 && n < 0x1000 ? String(n) : null };
}

/** The longest text a message quotes whole (the engine's program errors quote the same). */
export const MAX_QUOTED_CHARS = 32;

/**
 * `text` between `quote`s, or its first 24 characters and its length when it
 * is longer than MAX_QUOTED_CHARS: `'1999…' (1,000,000 characters)`, as the
 * engine quotes a long token. A message that echoes what a user gave stays a
 * line a reader can read, however long the input.
 */
export function excerpt(text: string, quote = ""): string {
  let count = 0;
  let cut = 0;
  for (const ch of text) {
    count += 1;
    if (count <= 24) cut += ch.length;
  }
  if (count <= MAX_QUOTED_CHARS) return `${quote}${text}${quote}`;
  return `${quote}${text.slice(0, cut)}…${quote} (${count.toLocaleString("en-US")} characters)`;
}

/**
 * `text` with each line ending (\r\n, or a lone \r as old Mac files and some
 * tools write) made \n, as a browser's text box makes them on a paste; the
 * engine reads all three as line ends, so the lines keep their numbers.
 */
export function normalizeNewlines(text: string): string {
  return text.includes("\r") ? text.replace(/\r\n?/g, "\n") : text;
}
