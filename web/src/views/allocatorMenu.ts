// The allocator chooser and the Capacity knob's help, shared by the editor
// panel and the compare view's columns. A module of its own so the compare
// view (in embeds too) does not bring the program editor with it.

import type { AllocatorInfo } from "../wasm/types";
import { h } from "./dom";

/** The Capacity knob's help for `allocator`: its row of the preset registry, through the engine's list. */
export function capacityHelp(allocator: string, allocators: readonly AllocatorInfo[]): string {
  return allocators.find((a) => a.name === allocator)?.capacity.help || "Capacity: the preset's size setting (default: the preset's own).";
}

/** Allocators grouped for the chooser: each preset's group and place in it (the preset registry), groups in the engine's order. */
export function groupAllocators(allocators: readonly AllocatorInfo[]): { label: string; items: AllocatorInfo[] }[] {
  const labels = [...new Set(allocators.map((a) => a.group))];
  return labels.map((label) => ({ label, items: allocators.filter((a) => a.group === label).sort((x, y) => x.menuRank - y.menuRank) }));
}

/** Lists the presets in an allocator menu by family, unless it already lists exactly these. */
export function fillAllocators(select: HTMLSelectElement, allocators: readonly AllocatorInfo[]): void {
  const names = allocators.map((a) => `${a.name}:${a.direction}`).join(",");
  if (select.dataset["names"] === names) return;
  select.dataset["names"] = names;
  const option = (a: AllocatorInfo): HTMLOptionElement => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`);
  select.replaceChildren(...groupAllocators(allocators).map((g) => h("optgroup", { label: g.label }, ...g.items.map(option))));
}
