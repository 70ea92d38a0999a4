import { afterEach, describe, expect, it, vi } from "vitest";
import { stagedFrameScheduler } from "./dom";

/** A page's frames, run by hand: `frame()` runs the callbacks asked for so far. */
function frames(): { frame: () => void; asked: () => number } {
  let callbacks: (() => void)[] = [];
  vi.stubGlobal("window", { requestAnimationFrame: (f: () => void) => callbacks.push(f) });
  return {
    frame: () => {
      const now = callbacks;
      callbacks = [];
      for (const f of now) f();
    },
    asked: () => callbacks.length,
  };
}

/** Lets the tasks posted so far run (a MessageChannel message each). */
const tasks = (): Promise<void> => new Promise((r) => setTimeout(r, 10));

afterEach(() => vi.unstubAllGlobals());

describe("stagedFrameScheduler", () => {
  it("asks for a frame at once, and renders null, while the render is not staged", () => {
    const page = frames();
    const prepare = vi.fn(() => 1);
    const rendered: (number | null)[] = [];
    const schedule = stagedFrameScheduler(() => false, prepare, (p) => rendered.push(p));
    schedule();
    schedule();
    expect(page.asked()).toBe(1);
    page.frame();
    expect(rendered).toEqual([null]);
    expect(prepare).not.toHaveBeenCalled();
  });

  it("prepares in a task of its own, then draws what it prepared in the frame after it", async () => {
    const page = frames();
    let state = 10;
    const prepared: number[] = [];
    const rendered: (number | null)[] = [];
    const schedule = stagedFrameScheduler(
      () => true,
      () => {
        prepared.push(state);
        return state;
      },
      (p) => rendered.push(p),
    );
    schedule();
    schedule();
    // Nothing runs in the calling task: not the preparation, not a frame.
    expect(prepared).toEqual([]);
    expect(page.asked()).toBe(0);
    await tasks();
    expect(prepared).toEqual([10]);
    expect(page.asked()).toBe(1);
    // The hand moves on before the frame: the frame still draws step 10, and 11 is prepared after it.
    state = 11;
    schedule();
    page.frame();
    expect(rendered).toEqual([10]);
    await tasks();
    expect(prepared).toEqual([10, 11]);
    page.frame();
    expect(rendered).toEqual([10, 11]);
  });

  it("renders null when the staging ended before its task ran", async () => {
    const page = frames();
    let staged = true;
    const prepare = vi.fn(() => 5);
    const rendered: (number | null)[] = [];
    const schedule = stagedFrameScheduler(() => staged, prepare, (p) => rendered.push(p));
    schedule();
    staged = false;
    await tasks();
    page.frame();
    expect(prepare).not.toHaveBeenCalled();
    expect(rendered).toEqual([null]);
  });
});
