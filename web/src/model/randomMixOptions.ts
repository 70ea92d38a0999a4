// The random-mix generator's options and their validation, apart from the
// generator itself: share links check them, and an embed decoding a link
// should not download the program generators to do so.

export interface RandomMixOptions {
  /** Statements to write. */
  ops: number;
  minSize: number;
  maxSize: number;
  minAlign: number;
  maxAlign: number;
  seed: number;
}

export type RandomMixField = keyof RandomMixOptions;
export type RandomMixInput = Record<RandomMixField, string>;
export type RandomMixValidation =
  | { ok: true; options: RandomMixOptions }
  | { ok: false; errors: { field: RandomMixField; message: string }[] };

export const RANDOM_MIX_DEFAULTS: RandomMixOptions = { ops: 40, minSize: 1, maxSize: 64, minAlign: 1, maxAlign: 16, seed: 1 };
export const RANDOM_MIX_LIMITS = { maxOps: 2000, maxSize: 65536, maxAlign: 4096, maxSeed: 4294967295 } as const;

const isPowerOfTwo = (n: number): boolean => n > 0 && (n & (n - 1)) === 0;

/** Checks the form's text fields; each message says what to enter instead. */
export function validateRandomMix(input: RandomMixInput): RandomMixValidation {
  const errors: { field: RandomMixField; message: string }[] = [];
  const whole = (field: RandomMixField, label: string, min: number, max: number): number => {
    const text = input[field].trim();
    const n = /^\d+$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max) {
      errors.push({ field, message: `${label}: enter a whole number from ${min} to ${max}` });
      return NaN;
    }
    return n;
  };
  const power = (field: RandomMixField, label: string): number => {
    const n = whole(field, label, 1, RANDOM_MIX_LIMITS.maxAlign);
    if (!Number.isNaN(n) && !isPowerOfTwo(n)) {
      errors.push({ field, message: `${label}: ${n} is not a power of two (1, 2, 4, … ${RANDOM_MIX_LIMITS.maxAlign})` });
      return NaN;
    }
    return n;
  };
  const ops = whole("ops", "Ops", 1, RANDOM_MIX_LIMITS.maxOps);
  const minSize = whole("minSize", "Smallest size", 0, RANDOM_MIX_LIMITS.maxSize);
  const maxSize = whole("maxSize", "Largest size", 0, RANDOM_MIX_LIMITS.maxSize);
  const minAlign = power("minAlign", "Smallest alignment");
  const maxAlign = power("maxAlign", "Largest alignment");
  const seed = whole("seed", "Seed", 0, RANDOM_MIX_LIMITS.maxSeed);
  if (minSize > maxSize) errors.push({ field: "maxSize", message: `Largest size: ${maxSize} is below the smallest size, ${minSize}` });
  if (minAlign > maxAlign) {
    errors.push({ field: "maxAlign", message: `Largest alignment: ${maxAlign} is below the smallest alignment, ${minAlign}` });
  }
  return errors.length > 0 ? { ok: false, errors } : { ok: true, options: { ops, minSize, maxSize, minAlign, maxAlign, seed } };
}
