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
