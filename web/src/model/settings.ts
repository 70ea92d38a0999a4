// A run's settings in words, for the lessons and the narration view: small,
// so an embed's narration does not load the lessons (or compare) with it.

import type { RunSettings } from "../wasm/config";
import type { Target } from "../wasm/types";

export function targetText(target: Target): string {
  return target === "64" ? "64-bit" : "wasm32";
}

/** What each child allocator a preset can run over is, by its setting's value. */
export const CHILD_NAMES: Readonly<Record<string, string>> = {
  page: "std.heap.page_allocator",
  heap: "a simulated heap that never resizes in place",
};

/** A child allocator in words: its value's name, or the value itself. */
export function childText(child: string): string {
  return CHILD_NAMES[child] ?? child;
}

/** A run's settings in words: "fitzgen-down, wasm32, capacity 256". */
export function settingsText(s: RunSettings): string {
  const parts = [s.allocator, targetText(s.target)];
  if (s.capacity !== null) parts.push(`capacity ${s.capacity}`);
  if (s.minAlign !== null) parts.push(`minimum alignment ${s.minAlign}`);
  if (s.child != null) parts.push(`over ${childText(s.child)}`);
  return parts.join(", ");
}

/**
 * How the run on screen differs from the one a lesson's narration was
 * written for. Only the settings count: an edited program brings its own
 * narration (a teacher edits a lesson's words with its statements), while
 * another allocator or size runs the same words against other numbers.
 */
export interface Departure {
  /**
   * The lesson asked for this run: an allocator one of its `!try allocator`
   * actions names, with the lesson's other settings. Still not the run the
   * narration describes, but no mistake either.
   */
  intended: boolean;
  /** What changed, in words ("the allocator to hinckley-up", "the target to 64-bit"). */
  changed: string[];
  /** The settings of the run on screen. */
  now: RunSettings;
}
