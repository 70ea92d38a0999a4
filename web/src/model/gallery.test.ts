// The gallery's data parses, and every program runs on every allocator it
// names (the claims themselves are checked in crates/core/tests/gallery.rs).
import { describe, expect, it } from "vitest";
import raw from "./gallery.json";
import { loadTraceModuleSync } from "../wasm/node";
import { viewResult } from "../test/runs";
import { GALLERY, galleryById, parseGallery } from "./gallery";

describe("gallery", () => {
  it("parses, one entry per id, each citing a source", () => {
    expect(GALLERY.map((e) => e.id)).toEqual([
      "bumpalo-next-chunk-doubles",
      "llvm-custom-sized-slab",
      "bumper-slab-boundary",
      "pmr-abandoned-tail",
      "zig-reset-retains-capacity",
    ]);
    for (const e of GALLERY) {
      expect(e.source.title.length).toBeGreaterThan(10);
      // Each shows its behaviour beside an arena that behaves otherwise.
      expect(new Set(e.allocators.map((r) => r.allocator)).size, e.id).toBeGreaterThanOrEqual(2);
    }
    expect(galleryById("pmr-abandoned-tail")?.allocators[0]?.allocator).toBe("pmr-monotonic");
  });

  it("rejects malformed data, naming the field", () => {
    const good = JSON.parse(JSON.stringify(raw)) as Record<string, unknown>[];
    expect(() => parseGallery([])).toThrow(/root/);
    expect(() => parseGallery([{ ...good[0], claim: "" }])).toThrow(/bumpalo-next-chunk-doubles: "claim"/);
    expect(() => parseGallery([good[0], good[0]])).toThrow(/used twice/);
    expect(() => parseGallery([{ ...good[0], allocators: [{ allocator: "bumpalo", capacity: -1 }] }])).toThrow(/capacity/);
    expect(() => parseGallery([{ ...good[0], allocators: [{ allocator: "zig-arena", child: 5 }] }])).toThrow(/child/);
    expect(galleryById("zig-reset-retains-capacity")?.allocators.map((r) => r.child ?? null)).toEqual([null, "heap", null]);
  });

  it("runs every program on every allocator it names", () => {
    const names = new Set(loadTraceModuleSync().allocators().map((a) => a.name));
    for (const e of GALLERY) {
      for (const r of e.allocators) {
        expect(names.has(r.allocator), `${e.id}: ${r.allocator}`).toBe(true);
        const t = viewResult({ ...r, source: e.program });
        expect(t.ok, `${e.id} on ${r.allocator}`).toBe(true);
      }
    }
  });
});
