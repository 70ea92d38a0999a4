// When an edit to the program is traced: typing waits for the next key (the
// debounce), a paste or a file is traced at once. A trace's start is seen
// here as the module's `ready` call, which this fake module counts.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TraceModule } from "../wasm/traceModule";
import { initialState, reducer } from "../state/reducer";
import { createStore } from "../state/store";
import { startTracer, TYPED_CHARS, type Tracer } from "./tracer";

let started: number;
let tracer: Tracer | undefined;
/** A module whose `ready` (a trace's start) is counted and answers `ready()`. */
const fakeModule = (ready: () => Promise<void>): TraceModule =>
  ({
    ready: () => {
      started++;
      return ready();
    },
  }) as unknown as TraceModule;

beforeEach(() => {
  started = 0;
  vi.useFakeTimers();
});
afterEach(() => {
  tracer?.destroy();
  vi.useRealTimers();
});

describe("the tracer's debounce", () => {
  const setUp = () => {
    const store = createStore(reducer, initialState());
    tracer = startTracer(fakeModule(() => Promise.reject(new Error("not loaded in this test"))), store, { debounceMs: 150 });
    return store;
  };

  it("a key typed waits 150 ms for the next, and keys typed in that time trace once", () => {
    const store = setUp();
    const base = store.getState().source;
    store.dispatch({ type: "configure", config: { source: `${base}a` } });
    vi.advanceTimersByTime(100);
    store.dispatch({ type: "configure", config: { source: `${base}ab` } });
    vi.advanceTimersByTime(149);
    expect(started).toBe(0);
    vi.advanceTimersByTime(1);
    expect(started).toBe(1);
  });

  it(`a change of more than ${TYPED_CHARS} characters at once (a paste, a file) is traced at once`, () => {
    const store = setUp();
    const base = store.getState().source;
    store.dispatch({ type: "configure", config: { source: `${base}${"x = alloc 8\n".repeat(7)}` } });
    expect(started).toBe(1);
    // A line of the typed size still waits.
    store.dispatch({ type: "configure", config: { source: `${base}${"y".repeat(TYPED_CHARS)}` } });
    expect(started).toBe(1);
    vi.advanceTimersByTime(150);
    expect(started).toBe(2);
  });
});

describe("a run held while its program is typed into", () => {
  const setUp = () => {
    const store = createStore(reducer, initialState());
    const spy = vi.spyOn(AbortController.prototype, "abort");
    // A run that stays under way: its engine never finishes loading.
    tracer = startTracer(fakeModule(() => new Promise(() => undefined)), store, { debounceMs: 0 });
    return { store, spy };
  };

  it("stops the run under way, and starts it again when the edit handed on changed nothing", () => {
    const { store, spy } = setUp();
    tracer?.retrace();
    expect(started).toBe(1);
    tracer?.hold();
    expect(spy).toHaveBeenCalledTimes(1);
    // Keys typed and deleted again: the store's program is the same.
    store.dispatch({ type: "configure", config: { source: store.getState().source } });
    tracer?.resume();
    expect(started).toBe(2);
    // Resumed once: another resume without a hold starts nothing.
    tracer?.resume();
    expect(started).toBe(2);
    spy.mockRestore();
  });

  it("lets the edit's own run replace the held one when the program changed", () => {
    const { store, spy } = setUp();
    tracer?.retrace();
    tracer?.hold();
    store.dispatch({ type: "configure", config: { source: `${store.getState().source}${"z = alloc 8\n".repeat(8)}` } });
    expect(started).toBe(2);
    tracer?.resume();
    expect(started).toBe(2);
    spy.mockRestore();
  });

  it("holds nothing when no run is under way", () => {
    const { spy } = setUp();
    tracer?.hold();
    tracer?.resume();
    expect(started).toBe(0);
    expect(spy).not.toHaveBeenCalled();
    spy.mockRestore();
  });
});
