import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { encodeShare } from "../share/link";
import { traced } from "../test/runs";
import { initialState, reducer, type Action, type AppState } from "./reducer";
import { SHARE_DEBOUNCE_MS, sharedOf, syncShareLinks } from "./shareSync";
import { createStore } from "./store";

// The page's URL while the scrubber is dragged: a window with a location,
// a history that records each replaceState and the test's fake clock.

const SOURCE = "repeat 200 { a = alloc 8\nb = alloc 16 }";
const TRACE = traced(SOURCE, "bumpalo");

interface FakeWindow {
  location: { hash: string; pathname: string; search: string };
  written: string[];
  timersSet: number;
}

function fakeWindow(): FakeWindow {
  const w: FakeWindow = { location: { hash: "", pathname: "/", search: "" }, written: [], timersSet: 0 };
  vi.stubGlobal("window", {
    location: w.location,
    history: {
      replaceState: (_: unknown, __: string, url: string) => {
        w.written.push(url);
        w.location.hash = url.startsWith("#") ? url : "";
      },
    },
    setTimeout: (f: () => void, ms: number) => {
      w.timersSet += 1;
      return setTimeout(f, ms);
    },
    clearTimeout: (id: number | undefined) => clearTimeout(id),
    addEventListener: () => undefined,
  });
  return w;
}

describe("the share link while the scrubber is dragged", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it("is written once, with the step the hand stopped at, after a 2 s drag of a step every frame", async () => {
    const w = fakeWindow();
    const store = createStore<AppState, Action>(reducer, initialState({ source: SOURCE, allocator: "bumpalo" }));
    store.dispatch({ type: "traced", trace: TRACE, source: SOURCE });
    syncShareLinks(store, { known: () => true, lessonExists: () => false, notice: () => undefined, clearNotice: () => undefined });
    // 125 frames of 16 ms, each a step further.
    for (let f = 1; f <= 125; f++) {
      store.dispatch({ type: "seek", step: 3 * f });
      await vi.advanceTimersByTimeAsync(16);
    }
    expect(w.written).toEqual([]);
    // One timer re-armed for the rest of the quiet time, not one per frame.
    expect(w.timersSet).toBeLessThanOrEqual(Math.ceil(2000 / SHARE_DEBOUNCE_MS) + 1);
    await vi.advanceTimersByTimeAsync(SHARE_DEBOUNCE_MS);
    expect(store.getState().step).toBe(375);
    const want = await encodeShare(sharedOf(store.getState()));
    expect(w.written).toEqual([`#${want}`]);
    expect(w.location.hash).toBe(`#${want}`);
    // Nothing more is written while the state stays as it is.
    await vi.advanceTimersByTimeAsync(5 * SHARE_DEBOUNCE_MS);
    expect(w.written).toHaveLength(1);
  });

  it("a pause longer than the quiet time writes the step paused at, and the drag's end writes its last", async () => {
    const w = fakeWindow();
    const store = createStore<AppState, Action>(reducer, initialState({ source: SOURCE, allocator: "bumpalo" }));
    store.dispatch({ type: "traced", trace: TRACE, source: SOURCE });
    syncShareLinks(store, { known: () => true, lessonExists: () => false, notice: () => undefined, clearNotice: () => undefined });
    store.dispatch({ type: "seek", step: 100 });
    await vi.advanceTimersByTimeAsync(SHARE_DEBOUNCE_MS + 50);
    const paused = await encodeShare(sharedOf(store.getState()));
    store.dispatch({ type: "seek", step: 250 });
    await vi.advanceTimersByTimeAsync(SHARE_DEBOUNCE_MS + 50);
    const end = await encodeShare(sharedOf(store.getState()));
    expect(paused).not.toBe(end);
    expect(w.written).toEqual([`#${paused}`, `#${end}`]);
  });
});
