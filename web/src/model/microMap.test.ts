import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import { chunkMadeBy } from "../wasm/traceView";
import { traced } from "../test/runs";
import { bumpPointerAt, chunkViewsAt } from "./chunks";
import { microSteps } from "./describe";
import { microMapAt } from "./microMap";

const ids = (rows: ReturnType<typeof chunkViewsAt>): number[][] => rows.map((r) => r.held.all().map((b) => b.id));

describe("microMapAt", () => {
  // Lesson 1's opening on fitzgen-down (chunk 0x10010..0x10110): a takes
  // 0x1010f; b (u64) subtracts 8 to 0x10107, rounds down to 0x10100 skipping
  // 7 bytes of padding (0x10108..0x1010f), checks the start, then bumps.
  const t = traced("a = alloc u8\nb = alloc u64", "fitzgen-down");

  it("before b's last micro-step shows the memory before b, with the address the code holds", () => {
    const at0 = microMapAt(t, 2, 0);
    expect(at0.rowsStep).toBe(1);
    expect(ids(at0.rows)).toEqual([[0]]);
    expect(at0.bumpPtr).toBe(0x1010f);
    expect(at0.candidate).toEqual({ address: 0x10107, name: "new_ptr", chunk: 0 });
    expect(at0.padding).toBeNull();

    const at1 = microMapAt(t, 2, 1);
    expect(at1.candidate?.address).toBe(0x10100);
    expect(at1.paddingFrom).toBe(1);
    expect(at1.padding).toEqual({ chunk: 0, lo: 0x10108, bytes: 7 });
    expect(ids(at1.rows)).toEqual([[0]]);

    expect(microMapAt(t, 2, 2).padding).toEqual({ chunk: 0, lo: 0x10108, bytes: 7 });
  });

  it("bumping up, every micro-step before the bump changes the map: padding, then the block's place, then the room checked", () => {
    // hinckley-up on a 256-byte chunk 0x10010..0x10110: a takes 0x10010, the
    // pointer is at 0x10011; b (u64) needs 7 bytes of padding, then
    // padding + size = 15 bytes, checked against the 255 bytes left.
    const up = traced("a = alloc u8\nb = alloc u64", "hinckley-up", { capacity: 256 });
    expect(microSteps(up.op(1)).map((s) => s.id)).toEqual(["align_offset", "total_size", "check_room:pass", "bump"]);
    const at0 = microMapAt(up, 2, 0);
    expect(at0.padding).toEqual({ chunk: 0, lo: 0x10011, bytes: 7 });
    expect(at0.place).toBeNull();
    expect(at0.room).toBeNull();
    const at1 = microMapAt(up, 2, 1);
    expect(at1.place).toEqual({ chunk: 0, address: 0x10018, size: 8, name: "b" });
    expect(at1.room).toBeNull();
    const at2 = microMapAt(up, 2, 2);
    expect(at2.place).toEqual({ chunk: 0, address: 0x10018, size: 8, name: "b" });
    expect(at2.room).toEqual({ chunk: 0, lo: 0x10011, hi: 0x10110, edge: "end", fits: true, from: "ptr" });
    const end = microMapAt(up, 2, 3);
    expect([end.padding, end.place, end.room]).toEqual([null, null, null]);
  });

  it("bumpalo's round-down decides the padding and the place at once, and its check runs down to the chunk's start", () => {
    // bumpalo's 448-byte chunk 0x10010..0x101d0: a takes 0x101cf; b rounds
    // the pointer down to 0x101c8 (7 bytes of padding) and lands at 0x101c0.
    const down = traced("a = alloc u8\nb = alloc u64", "bumpalo", { capacity: 256 });
    expect(microSteps(down.op(1)).map((s) => s.id)).toEqual(["round_size", "round_ptr", "room:pass", "bump"]);
    expect(microMapAt(down, 2, 0).padding).toBeNull();
    const at1 = microMapAt(down, 2, 1);
    expect(at1.padding).toEqual({ chunk: 0, lo: 0x101c8, bytes: 7 });
    expect(at1.place).toEqual({ chunk: 0, address: 0x101c0, size: 8, name: "b" });
    expect(microMapAt(down, 2, 2).room).toEqual({ chunk: 0, lo: 0x10010, hi: 0x101c8, edge: "start", fits: true, from: "aligned_ptr" });
  });

  it("at the last micro-step, and at the op's end, is the op's end", () => {
    for (const micro of [3, null]) {
      const m = microMapAt(t, 2, micro);
      expect(m.rowsStep).toBe(2);
      expect(ids(m.rows)).toEqual([[1, 0]]);
      expect(m.bumpPtr).toBe(0x10100);
      expect(m.padding).toBeNull();
    }
  });

  it("a failed capacity check holds an address below the chunk, in the current chunk's row", () => {
    const full = traced("a = alloc u8\nc = alloc [u8; 300]", "fitzgen-down");
    const m = microMapAt(full, 2, 0);
    expect(m.candidate).toEqual({ address: 0x1010f - 300, name: "new_ptr", chunk: 0 });
  });

  it("a chunk the op makes appears, empty and not current, after its new_chunk event", () => {
    // bumpalo, 256-byte capacity: chunk 0 at 0x10010 (448 B); 900 bytes need chunk 1 (0x10210,
    // 960 B), made after op 1's two failed-check and seven new-chunk micro-steps (0..8); the
    // block goes at 0x1024c at the bump event's last micro-step (11).
    const big = traced("a = alloc [u8; 200]\nb = alloc [u8; 900]", "bumpalo", { capacity: 256 });
    const chunks = (k: number) => microMapAt(big, 2, k).rows.map((r) => [r.chunk.id, r.current, r.held.count]);
    expect(chunks(8)).toEqual([[0, true, 1]]);
    expect(chunks(9)).toEqual([
      [0, true, 1],
      [1, false, 0],
    ]);
    // The new chunk's pointer starts at its end, 0x105d0: drawn in no row until the chunk is.
    expect(microMapAt(big, 2, 8).candidate).toEqual({ address: 0x105d0, name: "ptr", chunk: undefined });
    const bumping = microMapAt(big, 2, 10);
    expect(bumping.bumpPtr).toBe(0x10108);
    expect(bumping.candidate).toEqual({ address: 0x105d0, name: "ptr", chunk: 1 });
    expect(microMapAt(big, 2, 11).rows.map((r) => [r.chunk.id, r.current, r.held.count])).toEqual([
      [0, false, 1],
      [1, true, 1],
    ]);
  });

  it("before the first op and for ops without micro-steps is the step itself", () => {
    const m = microMapAt(t, 0, 0);
    expect(m.rowsStep).toBe(0);
    expect(m.index).toBeNull();
    expect(m.candidate).toBeNull();
  });

  // Every preset: what the micro-steps derive agrees with the op's end.
  const program = "a = alloc u8\nb = alloc u64\nc = alloc u128\nd = alloc [u8; 13]\ne = alloc u16\nf = alloc [u64; 40]";
  for (const { name } of loadTraceModuleSync().allocators()) {
    it(`${name}: the last micro-step of every alloc equals the op's end, and padding is decided before it`, () => {
      const run = traced(program, name);
      let checked = 0;
      for (let step = 1; step <= run.length; step++) {
        const op = run.op(step - 1);
        const n = microSteps(op).length;
        if (op.kind !== "alloc" || n === 0) continue;
        const end = microMapAt(run, step, n - 1);
        expect(end.rowsStep).toBe(step);
        expect(ids(end.rows)).toEqual(ids(chunkViewsAt(run, step)));
        expect(end.bumpPtr).toBe(bumpPointerAt(run, step));
        if (!op.failed) {
          // The last address the code computed is where the pointer or the block ends up.
          const where = [op.bump_ptr, op.address, (op.address ?? 0) + (op.size ?? 0)];
          // An op that made a chunk may record only that chunk's bounds (which are not where the code is).
          if (chunkMadeBy(run, op.index) === undefined || end.candidate !== null) {
            expect(where, `op ${op.index} ${microSteps(op).at(-1)?.id}`).toContain(end.candidate?.address);
          }
          if ((op.padding ?? 0) > 0) expect(end.paddingFrom, `op ${op.index}`).not.toBeNull();
        }
        for (let k = 0; k < n - 1; k++) {
          const m = microMapAt(run, step, k);
          expect(m.rows.some((r) => r.held.find(op.index) !== undefined)).toBe(false);
          expect(m.bumpPtr).toBe(bumpPointerAt(run, step - 1));
        }
        checked++;
      }
      expect(checked).toBeGreaterThan(0);
    });
  }
});
