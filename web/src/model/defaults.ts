// The run the page, an embed and <bump-lab> start with: apart from the
// generators, so an embed's first map does not load the Programs menu's.

import type { RunConfig } from "../wasm/config";

/** The program the page starts with: sizes, types, an array, padding and a free. */
export const DEFAULT_PROGRAM = [
  "a = alloc 1",
  "b = alloc u64",
  "c = alloc 24 align 16",
  "d = alloc [u32; 5]",
  "free b",
  "e = alloc u128",
].join("\n");

/** The run the page, an embed and <bump-lab> start with when nothing says otherwise. */
export const DEFAULT_CONFIG: RunConfig = { source: DEFAULT_PROGRAM, allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null };
