// The Capacity select's options. The list offers round sizes; a run can carry
// any other (a gallery entry's 464-byte slab, a share link, an imported
// trace), and a select whose value is not among its options shows nothing:
// the setting would be on the map but blank on the control. Such a capacity
// gets an option of its own, listed in order among the others, for as long
// as it is the one chosen.

import { h } from "./dom";

const MIB = 1024 * 1024;

/** The sizes the select always offers. */
export const CAPACITIES: readonly number[] = [64, 128, 256, 512, 1024, 2048, 4096, MIB];

/** An option's words: "256 bytes", "1 MiB". */
export function capacityLabel(bytes: number): string {
  return bytes === MIB ? "1 MiB" : `${bytes} bytes`;
}

/** The capacities listed for a chosen one (null: the preset's default): the round sizes, and the chosen one among them in order. */
export function capacityChoices(chosen: number | null): number[] {
  if (chosen === null || CAPACITIES.includes(chosen)) return [...CAPACITIES];
  return [...CAPACITIES, chosen].sort((a, b) => a - b);
}

/** Shows `chosen` on `select`, adding or dropping the option of a capacity the list does not offer. */
export function showCapacity(select: HTMLSelectElement, chosen: number | null): void {
  const values = ["", ...capacityChoices(chosen).map(String)];
  const have = [...select.options].map((o) => o.value);
  if (have.length !== values.length || have.some((v, i) => v !== values[i])) {
    select.replaceChildren(h("option", { value: "" }, "default"), ...capacityChoices(chosen).map((c) => h("option", { value: c }, capacityLabel(c))));
  }
  const value = chosen === null ? "" : String(chosen);
  if (select.value !== value) select.value = value;
}
