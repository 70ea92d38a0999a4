import { describe, expect, it } from "vitest";
import { FIRST_SLICE_OPS, nextSliceOps, runInSlices, type SteppableRun } from "./slices";

/** A run of `total` ops where each op takes `msPerOp` on the fake clock; fails at op `failAt`. */
function fakeRun(total: number, msPerOp: number, clock: { t: number }, failAt?: number): SteppableRun & { slices: number[] } {
  let done = 0;
  let error: string | undefined;
  const slices: number[] = [];
  return {
    slices,
    advance(maxOps) {
      const end = Math.min(total, done + maxOps, failAt ?? Infinity);
      slices.push(end - done);
      clock.t += (end - done) * msPerOp;
      done = end;
      if (failAt !== undefined && done === failAt) {
        error = JSON.stringify({ line: 3, column: 5, message: "cannot free 'x'" });
        return true;
      }
      return done === total;
    },
    executed: () => done,
    total: () => total,
    error: () => error,
  };
}

describe("runInSlices", () => {
  it("finishes a small program in one slice without yielding", async () => {
    const clock = { t: 0 };
    const run = fakeRun(100, 0.001, clock);
    let pauses = 0;
    const out = await runInSlices(run, { now: () => clock.t, pause: async () => void pauses++ });
    expect(out).toEqual({ kind: "done" });
    expect(run.slices).toEqual([100]);
    expect(pauses).toBe(0);
  });

  it("runs a million ops in slices near the time budget, reporting progress", async () => {
    const clock = { t: 0 };
    // 1/256 ms an op (exact in binary): a 12 ms slice holds 3,072 ops.
    const run = fakeRun(1_000_000, 1 / 256, clock);
    const progress: number[] = [];
    const out = await runInSlices(run, {
      now: () => clock.t,
      pause: async () => undefined,
      onProgress: (done, total) => {
        expect(total).toBe(1_000_000);
        progress.push(done);
      },
    });
    expect(out).toEqual({ kind: "done" });
    expect(run.slices[0]).toBe(FIRST_SLICE_OPS);
    // After the first slice every slice is sized to 12 ms: 3,072 ops.
    for (const n of run.slices.slice(1, -1)) expect(n).toBe(3072);
    expect(run.slices.reduce((a, b) => a + b, 0)).toBe(1_000_000);
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    expect(progress.at(-1)).toBeLessThan(1_000_000);
  });

  it("reports progress at most every progressEveryMs, the first slice's at once", async () => {
    const clock = { t: 0 };
    // 1/256 ms an op: the first slice (4,096 ops) takes 16 ms, every later one 12 ms.
    const run = fakeRun(1_000_000, 1 / 256, clock);
    const at: number[] = [];
    const out = await runInSlices(run, {
      now: () => clock.t,
      pause: async () => undefined,
      progressEveryMs: 100,
      onProgress: () => at.push(clock.t),
    });
    expect(out).toEqual({ kind: "done" });
    // 326 slices (the last one finishes), but a note only every 9th (108 ms apart).
    expect(run.slices.length).toBe(326);
    expect(at[0]).toBe(16);
    expect(at.length).toBe(37);
    for (let i = 1; i < at.length; i++) expect((at[i] ?? 0) - (at[i - 1] ?? 0)).toBe(108);
  });

  it("stops with the engine's error and its position", async () => {
    const clock = { t: 0 };
    const out = await runInSlices(fakeRun(50_000, 0.004, clock, 10_000), { now: () => clock.t, pause: async () => undefined });
    expect(out).toEqual({ kind: "failed", error: { line: 3, column: 5, message: "cannot free 'x'" } });
  });

  it("is cancelled between slices by its signal", async () => {
    const clock = { t: 0 };
    const run = fakeRun(1_000_000, 0.004, clock);
    const abort = new AbortController();
    const out = await runInSlices(run, {
      now: () => clock.t,
      signal: abort.signal,
      pause: async () => {
        if (run.executed() > 20_000) abort.abort();
      },
    });
    expect(out).toEqual({ kind: "cancelled" });
    expect(run.executed()).toBeLessThan(30_000);
  });

  it("sizes slices from the last one's rate, growing at most fourfold", () => {
    expect(nextSliceOps(4096, 6, 12)).toBe(8192);
    expect(nextSliceOps(4096, 0.5, 12)).toBe(16384);
    expect(nextSliceOps(4096, 0, 12)).toBe(16384);
    expect(nextSliceOps(4096, 1000, 12)).toBe(256);
  });

  it("fails, instead of spinning, when a slice runs no op and does not finish", async () => {
    const stuck: SteppableRun = { advance: () => false, executed: () => 7, total: () => 10, error: () => undefined };
    const out = await runInSlices(stuck, { pause: async () => undefined });
    expect(out.kind).toBe("failed");
    expect(out.kind === "failed" && out.error.message).toMatch(/stopped at op 7 of 10 without finishing/);
  });
});
