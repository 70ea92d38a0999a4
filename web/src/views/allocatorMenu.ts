// The allocator chooser and the Capacity knob's help, shared by the editor
// panel and the compare view's columns. A module of its own so the compare
// view (in embeds too) does not bring the program editor with it.

import type { AllocatorInfo } from "../engine/types";
import { h } from "./dom";

const SEED_ALGORITHMS = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"];

/** The chooser's groups, in order; presets not listed go to a last "Other" group. */
const ALLOCATOR_GROUPS: readonly { label: string; names: readonly string[] }[] = [
  { label: "Seed algorithms (one fixed chunk)", names: SEED_ALGORITHMS },
  {
    label: "Libraries",
    names: [
      "bumpalo",
      "bump-scope-up",
      "bump-scope-down",
      "bumper-alloc-buffer",
      "bumper-slab",
      "cpp-arena",
      "blink-alloc",
      "llvm-bump-ptr",
      "pmr-monotonic",
      "zig-arena",
      "zig-fixed-buffer",
    ],
  },
];

/** What the Capacity knob sets, per library preset (the seed algorithms share one text). */
const CAPACITY_HELP: Record<string, string> = {
  bumpalo: "Capacity: the first chunk's size, as Bump::with_capacity (default: none until the first allocation, then 448 bytes).",
  "bump-scope-up": "Capacity: the first chunk's size (default 464 usable bytes).",
  "bump-scope-down": "Capacity: the first chunk's size (default 464 usable bytes).",
  "bumper-alloc-buffer": "Capacity: the buffer's size (default 1 MiB).",
  "bumper-slab": "Capacity: each slab's size (default 1 MiB).",
  "cpp-arena": "Capacity: the arena's pool size cap; a pool is at least twice it (default 1024).",
  "blink-alloc": "Capacity: with_chunk_size, the size chunks start from (default 256).",
  "llvm-bump-ptr": "Capacity: SlabSize, each slab's size and the custom-slab threshold (default 4096).",
  "pmr-monotonic": "Capacity: initial_size, the first buffer's size; each next one is 1.5 times the last (default 1024).",
  "zig-arena": "Capacity: reset's limit, .retain_with_limit (default: .retain_capacity, no limit).",
  "zig-fixed-buffer": "Capacity: the buffer's size (default 4096).",
};

export function capacityHelp(allocator: string): string {
  if (SEED_ALGORITHMS.includes(allocator)) return "Capacity: the one fixed chunk's usable bytes (default 256).";
  return CAPACITY_HELP[allocator] ?? "Capacity: the preset's size setting (default: the preset's own).";
}

/** Allocators grouped for the chooser: known groups in order, then "Other". */
export function groupAllocators(allocators: readonly AllocatorInfo[]): { label: string; items: AllocatorInfo[] }[] {
  const groups = ALLOCATOR_GROUPS.map((g) => ({
    label: g.label,
    items: g.names.flatMap((n) => allocators.filter((a) => a.name === n)),
  }));
  const known = new Set(ALLOCATOR_GROUPS.flatMap((g) => g.names));
  groups.push({ label: "Other", items: allocators.filter((a) => !known.has(a.name)) });
  return groups.filter((g) => g.items.length > 0);
}

/** Lists the presets in an allocator menu by family, unless it already lists exactly these. */
export function fillAllocators(select: HTMLSelectElement, allocators: readonly AllocatorInfo[]): void {
  const names = allocators.map((a) => `${a.name}:${a.direction}`).join(",");
  if (select.dataset["names"] === names) return;
  select.dataset["names"] = names;
  const option = (a: AllocatorInfo): HTMLOptionElement => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`);
  select.replaceChildren(...groupAllocators(allocators).map((g) => h("optgroup", { label: g.label }, ...g.items.map(option))));
}

