// A tiny store: one state value, a pure reducer, subscribers told of changes.

export type Listener<S> = (state: S, previous: S) => void;

export interface Store<S, A> {
  getState(): S;
  dispatch(action: A): void;
  /** Returns an unsubscribe function. */
  subscribe(listener: Listener<S>): () => void;
}

export function createStore<S, A>(reducer: (state: S, action: A) => S, initial: S): Store<S, A> {
  let state = initial;
  const listeners = new Set<Listener<S>>();
  // Actions dispatched by a listener run after every listener has seen the
  // current change, so each listener sees changes in order.
  const queue: A[] = [];
  let dispatching = false;
  return {
    getState: () => state,
    dispatch(action) {
      queue.push(action);
      if (dispatching) return;
      dispatching = true;
      try {
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const previous = state;
          state = reducer(state, next);
          if (state === previous) continue;
          for (const listener of [...listeners]) listener(state, previous);
        }
      } finally {
        dispatching = false;
        queue.length = 0;
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
