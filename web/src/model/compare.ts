// Compare mode: the same program run on two to four allocator configurations
// side by side. This module holds the configuration type shared by the app
// state, the compare view and share links.

import type { Target } from "../engine/types";

/** One column of compare mode: a preset and its settings. */
export interface CompareConfig {
  allocator: string;
  target: Target;
  /** One of the preset's minimum alignments; null: its default. */
  minAlign: number | null;
  /** The preset's size knob; null: its default. */
  capacity: number | null;
}

/** Compare mode shows at least two and at most four columns. */
export const MIN_COMPARE = 2;
export const MAX_COMPARE = 4;

/** The start page's one-click comparison: the seed algorithms bumping up and down. */
export const UP_VS_DOWN: readonly CompareConfig[] = [
  { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
  { allocator: "fitzgen-down", target: "64", minAlign: null, capacity: null },
];
