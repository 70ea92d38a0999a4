import { describe, expect, it } from "vitest";
import { traced } from "../../test/runs";
import { bumpPointerAt, chunkViewsAt } from "../../model/chunks";
import type { TraceView } from "../../wasm/traceView";
import { cutLabel, DETAIL_READS, FIGURE_MIN_BLOCK_PX, figureFit, rowCut, usedSpans, type AddressSpan } from "./fit";
import { layoutMap, MARGIN, type MemoryMapData } from "./layout";

// A figure's map: each chunk's row narrowed to the bytes the run ever uses
// (fit.ts), laid out by layoutMap. 720 px is a post's column.
const WIDTH = 720;

function figureData(t: TraceView, step: number, fit = true): MemoryMapData {
  return {
    direction: t.direction,
    rows: chunkViewsAt(t, step),
    bumpPtr: bumpPointerAt(t, step),
    focus: new Set(),
    emptyText: "",
    animate: false,
    ...(fit ? { fit: figureFit(t) } : {}),
  };
}

/** Pixel widths of a row's blocks as drawn (blocks.ts widens a body to the row's minimum). */
function blockWidths(row: ReturnType<typeof layoutMap>["rows"][number]): Map<string, number> {
  return new Map(row.shown.map((b) => [b.name, Math.max(row.minBlockPx, row.x(b.address + b.size) - row.x(b.address))]));
}

describe("figure fit", () => {
  it("an 8-byte block in bumpalo's 448-byte chunk: the row shows its 8 bytes and a break of 440 unused", () => {
    const t = traced("a = alloc 8", "bumpalo");
    const chunk = t.chunks[0]!;
    expect(chunk.capacity).toBe(448);
    const end = chunk.start + chunk.capacity;
    // Bumping down: the bytes in use are the chunk's last 8, the break is at its start.
    expect(usedSpans(t).get(chunk.id)).toEqual({ lo: end - 8, hi: end });
    expect(rowCut(chunk, t.direction, figureFit(t))).toEqual({ span: { lo: end - 8, hi: end }, side: "start", bytes: 440 });

    const row = layoutMap(figureData(t, 1), WIDTH).rows[0]!;
    expect(row.x.domain()).toEqual([end - 8, end]);
    expect(row.visible).toEqual({ lo: end - 8, hi: end });
    expect(row.cut).toMatchObject({ side: "start", bytes: 440, label: "⋯ 440 B unused" });
    // The break sits between the header's end (bumpalo has none) and the span; the footer keeps its place.
    expect(row.cut!.x).toBe(0);
    expect(row.usable.x0).toBeCloseTo(row.cut!.width);
    expect(row.meta.find((m) => m.kind === "footer")!.x).toBeCloseTo(row.usable.x1);
    // The axis shows the real addresses at the span's ends.
    expect(row.ticks[0]).toBe(end - 8);
    expect(row.ticks[row.ticks.length - 1]).toBe(end);
    // Unfitted, the block is under 15 px of a 652 px row; fitted, it fills the span.
    const plain = layoutMap(figureData(t, 1, false), WIDTH).rows[0]!;
    expect(blockWidths(plain).get("a")).toBeLessThan(15);
    expect(blockWidths(row).get("a")).toBeGreaterThan(300);
  });

  it("bumping up, the span runs from the chunk's start to the high-water mark over the whole run, the same at every step", () => {
    const source = "a = alloc 64\nb = alloc 8\nreset\nc = alloc 1";
    const t = traced(source, "hinckley-up", { capacity: 1024 });
    const chunk = t.chunks[0]!;
    expect(usedSpans(t).get(chunk.id)).toEqual({ lo: chunk.start, hi: chunk.start + 72 });
    const domains = [1, 2, 3, 4].map((step) => layoutMap(figureData(t, step), WIDTH).rows[0]!.x.domain());
    for (const d of domains) expect(d).toEqual([chunk.start, chunk.start + 72]);
    const last = layoutMap(figureData(t, 4), WIDTH).rows[0]!;
    expect(last.cut).toMatchObject({ side: "end", bytes: 1024 - 72, label: cutLabel(952) });
    // The break is at the far end, before the footer (none here): it ends where the plot does.
    expect(last.cut!.x + last.cut!.width).toBeCloseTo(WIDTH - MARGIN.left - MARGIN.right);
    expect(last.usable.x1).toBeCloseTo(last.cut!.x);
  });

  it("every block of a program with a 1-byte block beside a 2000-byte one is at least the minimum wide", () => {
    const t = traced("a = alloc 1\nb = alloc 2000\nc = alloc 1\nd = alloc 2", "hinckley-up", { capacity: 8192 });
    const row = layoutMap(figureData(t, 4), WIDTH).rows[0]!;
    expect(row.minBlockPx).toBe(FIGURE_MIN_BLOCK_PX);
    const widths = blockWidths(row);
    expect([...widths.keys()]).toEqual(["a", "b", "c", "d"]);
    for (const [, w] of widths) expect(w).toBeGreaterThanOrEqual(FIGURE_MIN_BLOCK_PX);
    // a, c and d get the minimum and b the rest of the span's width: no block covers another.
    const span = row.x.domain();
    expect(span[span.length - 1]! - span[0]!).toBe(2004);
    expect(widths.get("a")).toBeCloseTo(FIGURE_MIN_BLOCK_PX, 5);
    expect(widths.get("d")).toBeCloseTo(FIGURE_MIN_BLOCK_PX, 5);
    expect(widths.get("b")).toBeCloseTo(row.usable.x1 - row.usable.x0 - 3 * FIGURE_MIN_BLOCK_PX, 5);
  });

  it("a block widened to the minimum never covers its neighbour: bumpalo's 1-byte d beside c, in a compare column", () => {
    // d = alloc 1 lands right below c (bumping down); linear, d would be under 2 px
    // and widened over c's first bytes, hidden behind it.
    const t = traced("a = alloc 8\nb = alloc u64\nc = alloc 24 align 16\nfree b\nd = alloc 1", "bumpalo");
    const row = layoutMap(figureData(t, 5), 330).rows[0]!;
    const drawn = row.shown
      .map((b) => ({ name: b.name, x0: row.x(b.address), x1: row.x(b.address) + Math.max(row.minBlockPx, row.x(b.address + b.size) - row.x(b.address)) }))
      .sort((p, q) => p.x0 - q.x0);
    expect(drawn.map((d) => d.name)).toEqual(["d", "c", "b", "a"]);
    for (const d of drawn) expect(d.x1 - d.x0, d.name).toBeGreaterThanOrEqual(FIGURE_MIN_BLOCK_PX - 1e-9);
    for (let i = 1; i < drawn.length; i++) expect(drawn[i]!.x0, `${drawn[i]!.name} after ${drawn[i - 1]!.name}`).toBeGreaterThanOrEqual(drawn[i - 1]!.x1 - 1e-9);
    // The scale still reads real addresses at the span's ends.
    const d = row.x.domain();
    expect([d[0], d[d.length - 1]]).toEqual([row.visible.lo, row.visible.hi]);
  });

  it("a chunk almost full is drawn whole, with no break", () => {
    const t = traced("a = alloc 240", "hinckley-up", { capacity: 256 });
    const chunk = t.chunks[0]!;
    expect(rowCut(chunk, t.direction, figureFit(t))).toBeNull();
    const row = layoutMap(figureData(t, 1), WIDTH).rows[0]!;
    expect(row.cut).toBeNull();
    expect(row.x.domain()).toEqual([chunk.start, chunk.start + 256]);
  });

  it("each chunk of a run gets its own span: bumpalo's second chunk is fitted to the block that made it", () => {
    const t = traced("a = alloc 400\nb = alloc 600", "bumpalo");
    expect(t.chunks.length).toBe(2);
    const spans = usedSpans(t);
    const [first, second] = [t.chunks[0]!, t.chunks[1]!];
    expect(spans.get(first.id)).toEqual({ lo: first.start + first.capacity - 400, hi: first.start + first.capacity });
    const s2 = spans.get(second.id)!;
    expect(s2.hi).toBe(second.start + second.capacity);
    expect(s2.hi - s2.lo).toBeGreaterThanOrEqual(600);
    const rows = layoutMap(figureData(t, 2), WIDTH).rows;
    expect(rows.map((r) => r.x.domain())).toEqual([
      [spans.get(first.id)!.lo, spans.get(first.id)!.hi],
      [s2.lo, s2.hi],
    ]);
  });

  it("reads one op's detail per chunk, and finds the span every op's bytes in use give", () => {
    // Odd sizes under a minimum alignment: the bump pointer rounds past the blocks.
    // (up-min-align with MIN_ALIGN 8 leaves its pointer at 65680, 7 bytes past its furthest block.)
    const source = "a = alloc 3\nb = alloc 5\nc = alloc 100\nfree c\nd = alloc 1\nreset\nf = alloc 2\ng = alloc 0";
    const cases = [["up-min-align", 8], ["bump-scope-up", 16], ["bumpalo", 8], ["hinckley-up", null], ["fitzgen-down", null]] as const;
    for (const [allocator, minAlign] of cases) {
      const t = traced(source, allocator, { minAlign });
      const reads: number[] = [];
      const counted: TraceView = { ...t, chunksUsed: (i) => (reads.push(i), t.chunksUsed(i)) };
      const spans = usedSpans(counted);
      expect(reads.length, allocator).toBeLessThanOrEqual(Math.min(t.chunks.length, DETAIL_READS) + 1);
      // The oracle: every op's bytes in use, widened to the bump origin.
      const exact = new Map<number, AddressSpan>();
      for (let i = 0; i < t.length; i++) {
        for (const u of t.chunksUsed(i)) {
          if (u.hi <= u.lo) continue;
          const c = t.chunks.find((k) => k.id === u.id)!;
          const e = exact.get(u.id);
          const lo = t.direction === "down" ? Math.min(u.lo, e?.lo ?? Infinity) : c.start;
          const hi = t.direction === "down" ? c.start + c.capacity : Math.max(u.hi, e?.hi ?? -Infinity);
          exact.set(u.id, { lo, hi });
        }
      }
      expect([...spans].sort(([a], [b]) => a - b), allocator).toEqual([...exact].sort(([a], [b]) => a - b));
    }
  });
});
