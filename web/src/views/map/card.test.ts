import { describe, expect, it } from "vitest";
import { traced } from "../../test/runs";
import { blocksAt } from "../../test/blocks";
import { binCard, blockCard, opText } from "./card";

const PROGRAM = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\nd = alloc [u32; 5]\nfree b\nc = realloc c 48";

function blocks() {
  const t = traced(PROGRAM, "fitzgen-down", { capacity: 256 });
  return { start: t.chunks[0]?.start ?? Number.NaN, list: blocksAt(t, 6) };
}

describe("blockCard", () => {
  it("c: address, size, alignment, the padding before it and the op with its line", () => {
    const { start, list } = blocks();
    const c = list.find((b) => b.id === 2);
    expect(c).toBeDefined();
    const card = blockCard(c!, PROGRAM.split("\n"));
    expect(card.title).toBe("c");
    const end = start + 0xd0 + 24;
    expect(card.fields).toEqual([
      { label: "address", value: `0x${(start + 0xd0).toString(16)}–0x${end.toString(16)}` },
      { label: "size", value: "24 bytes" },
      { label: "alignment", value: "16" },
      // Bumping down, the padding is above the block: skipped before placing it.
      { label: "padding before it", value: `8 bytes at 0x${end.toString(16)}–0x${(end + 8).toString(16)}` },
      { label: "state", value: "left behind by a realloc that moved it" },
      { label: "made by", value: "op 3, line 3: c = alloc 24 align 16" },
    ]);
  });

  it("the realloc's block names the block it replaced", () => {
    const { start, list } = blocks();
    const moved = list.find((b) => b.id === 5);
    const card = blockCard(moved!, PROGRAM.split("\n"));
    expect(card.fields.find((f) => f.label === "made by")?.value).toBe("op 6, line 6: c = realloc c 48");
    expect(card.fields.find((f) => f.label === "replaces")?.value).toBe("the block op 3 placed");
    // d ends the used bytes at +0xbc; 48 bytes below is +0x8c, aligned down to 16: +0x80, 12 bytes skipped.
    expect(moved?.address).toBe(start + 0x80);
    expect(card.fields.find((f) => f.label === "padding before it")?.value).toBe(
      `12 bytes at 0x${(start + 0xb0).toString(16)}–0x${(start + 0xbc).toString(16)}`,
    );
    expect(blockCard(list.find((b) => b.id === 0)!).fields.find((f) => f.label === "padding before it")?.value).toBe("none");
  });

  it("without the program text, the op's line and kind", () => {
    const { list } = blocks();
    const a = list.find((b) => b.id === 0);
    expect(opText(a!)).toBe("op 1, line 1 (alloc)");
  });
});

describe("binCard", () => {
  it("sums a bin: where, how much is taken and by what", () => {
    const card = binCard({ lo: 0x10000, hi: 0x10400, blocks: 100, live: 800, dead: 16, padding: 8 });
    expect(card.title).toBe("100 blocks start here");
    expect(card.fields).toEqual([
      { label: "addresses", value: "0x10000–0x10400" },
      { label: "taken", value: "824 bytes of 1024 bytes (80%)" },
      { label: "live", value: "800 bytes" },
      { label: "freed or left behind", value: "16 bytes" },
      { label: "padding", value: "8 bytes" },
    ]);
  });
});
