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
