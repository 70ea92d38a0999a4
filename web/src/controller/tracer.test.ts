// When an edit to the program is traced: typing waits for the next key (the
// debounce), a paste or a file is traced at once. A trace's start is seen
// here as the module's `ready` call, which this fake module counts.

import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { TraceModule } from "../wasm/traceModule";
import { initialState, reducer } from "../state/reducer";
import { createStore } from "../state/store";
import { startTracer, TYPED_CHARS, type Tracer } from "./tracer";

describe("the tracer's debounce", () => {
  let started: number;
  let tracer: Tracer | undefined;
  const module = (): TraceModule =>
    ({
      ready: () => {
        started++;
        return Promise.reject(new Error("not loaded in this test"));
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

  const setUp = () => {
    const store = createStore(reducer, initialState());
    tracer = startTracer(module(), store, { debounceMs: 150 });
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
