// The card shown for the block under the pointer or with keyboard focus: what
// the block is, where, how it was aligned and which op made it. The text is a
// pure function of the block (tested); the card element only lays it out.

import type { Block } from "../../model/blocks";
import type { Bin } from "../../model/bins";
import { bytes, hex } from "../../model/format";
import { h, setText } from "../dom";

export interface CardField {
  label: string;
  value: string;
}

export interface BlockCard {
  title: string;
  fields: CardField[];
}

const STATE_TEXT: Record<Block["state"], string> = {
  live: "live",
  freed: "freed, not reclaimed (a bump allocator only reclaims by rewinding)",
  leaked: "left behind by a realloc that moved it",
};

/** "op 3, line 3: c = alloc 24 align 16" (the line's text when the program is known). */
export function opText(block: Block, sourceLines?: readonly string[]): string {
  const op = `op ${block.id + 1}`;
  if (block.line === undefined) return op;
  const text = sourceLines?.[block.line - 1]?.trim();
  return text ? `${op}, line ${block.line}: ${text}` : `${op}, line ${block.line}${block.kind ? ` (${block.kind})` : ""}`;
}

export function blockCard(block: Block, sourceLines?: readonly string[]): BlockCard {
  const fields: CardField[] = [
    { label: "address", value: `${hex(block.address)}–${hex(block.address + block.size)}` },
    { label: "size", value: bytes(block.size) },
    { label: "alignment", value: String(block.align) },
  ];
  // The padding was skipped just before the block was placed: above it bumping down, below it bumping up.
  const padding =
    block.padding > 0
      ? `${bytes(block.padding)} at ${hex(block.paddingStart)}–${hex(block.paddingStart + block.padding)}`
      : "none";
  fields.push({ label: "padding before it", value: padding });
  fields.push({ label: "state", value: STATE_TEXT[block.state] });
  fields.push({ label: "made by", value: opText(block, sourceLines) });
  if (block.from !== undefined) fields.push({ label: "replaces", value: `the block op ${block.from + 1} placed` });
  return { title: block.name, fields };
}

/** The card for one bin of a binned row: what its addresses hold, in sum. */
export function binCard(bin: Bin): BlockCard {
  const lo = Math.floor(bin.lo);
  const hi = Math.ceil(bin.hi);
  const span = Math.max(0, bin.hi - bin.lo);
  const taken = bin.live + bin.dead + bin.padding;
  const pct = span > 0 ? Math.round((100 * taken) / span) : 0;
  const round = (n: number): number => Math.round(n);
  return {
    title: `${bin.blocks} ${bin.blocks === 1 ? "block starts" : "blocks start"} here`,
    fields: [
      { label: "addresses", value: `${hex(lo)}–${hex(hi)}` },
      { label: "taken", value: `${bytes(round(taken))} of ${bytes(round(span))} (${pct}%)` },
      { label: "live", value: bytes(round(bin.live)) },
      { label: "freed or left behind", value: bytes(round(bin.dead)) },
      { label: "padding", value: bytes(round(bin.padding)) },
    ],
  };
}

/** Builds the (hidden) card element once; `showCard` fills and places it, and hiding it is setting `hidden`. */
export function createCardElement(id: string): HTMLElement {
  const card = h("div", { class: "block-card", id, role: "tooltip", hidden: true });
  card.append(h("div", { class: "block-card-title" }), h("dl", { class: "block-card-fields" }));
  return card;
}

/**
 * Fills the card and places it above `anchor` (a rectangle in viewport
 * coordinates: the card is fixed, so the map's scrolling box cannot clip it),
 * flipping below when there is no room and keeping it inside the viewport.
 */
export function showCard(card: HTMLElement, content: BlockCard, anchor: { left: number; top: number; width: number; height: number }): void {
  const title = card.querySelector(".block-card-title");
  const list = card.querySelector(".block-card-fields");
  if (title) setText(title, content.title);
  if (list) {
    list.replaceChildren(...content.fields.flatMap((f) => [h("dt", {}, f.label), h("dd", {}, f.value)]));
  }
  card.hidden = false;
  const viewport = { width: window.innerWidth, height: window.innerHeight };
  const w = card.offsetWidth;
  const hgt = card.offsetHeight;
  const left = Math.min(Math.max(4, anchor.left + anchor.width / 2 - w / 2), Math.max(4, viewport.width - w - 4));
  const above = anchor.top - hgt - 8;
  const below = anchor.top + anchor.height + 8;
  const top = above >= 4 || below + hgt > viewport.height ? Math.max(4, above) : below;
  card.style.left = `${Math.round(left)}px`;
  card.style.top = `${Math.round(top)}px`;
}
