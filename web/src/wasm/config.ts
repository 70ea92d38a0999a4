// What a run runs on. One type for a run's configuration, everywhere: the
// app's state, a share link, a lesson, a compare column (its settings), a
// sweep point and both wasm modules' calls. "The preset's default" is null,
// and only `wasmArgs` turns it into what wasm-bindgen takes (undefined).

import type { Target } from "./types";

/** A preset and its settings; null: the preset's default. */
export interface RunSettings {
  allocator: string;
  target: Target;
  /**
   * The preset's size knob (fixed chunk, buffer, slab, first pool or first
   * chunk, depending on the preset).
   */
  capacity: number | null;
  /** One of the preset's minimum alignments. */
  minAlign: number | null;
  /**
   * The preset's child allocator, for a preset that takes one (zig-arena:
   * "page", std.heap.page_allocator, or "heap", a simulated heap that never
   * resizes in place). Optional: a setting written before it existed has
   * none, which is the preset's default.
   */
  child?: string | null;
}

/** A program on a preset with its settings. */
export interface RunConfig extends RunSettings {
  source: string;
}

/** The arguments of the modules' `TraceRun` constructor, `traceProgram` and `traceCosts`. */
export type WasmArgs = [
  source: string,
  allocator: string,
  target: string,
  capacity: number | undefined,
  minAlign: number | undefined,
  child: string | undefined,
];

export function wasmArgs(c: RunConfig): WasmArgs {
  return [c.source, c.allocator, c.target, c.capacity ?? undefined, c.minAlign ?? undefined, c.child ?? undefined];
}

/** Just the configuration of anything that carries one (an app state, a link). */
export function configOf(c: RunConfig): RunConfig {
  const out: RunConfig = { source: c.source, allocator: c.allocator, target: c.target, capacity: c.capacity, minAlign: c.minAlign };
  if (c.child != null) out.child = c.child;
  return out;
}

/** Whether two configurations run the same thing. */
export function sameConfig(a: RunConfig, b: RunConfig): boolean {
  return a.source === b.source && sameSettings(a, b);
}

export function sameSettings(a: RunSettings, b: RunSettings): boolean {
  return (
    a.allocator === b.allocator && a.target === b.target && a.capacity === b.capacity && a.minAlign === b.minAlign && (a.child ?? null) === (b.child ?? null)
  );
}
