// Playback: one op per beat while the state says it plays, the beat divided
// by the speed. `pauseAt` lets a lesson stop playback where its narration
// asks (a pause directive, a question before the next op).

import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";

/** One op per beat at 1×. */
export const PLAY_INTERVAL_MS = 700;

export interface Playback {
  /** An offscreen player stops its ticks (and resumes when visible). */
  setVisible(visible: boolean): void;
  destroy(): void;
}

export function startPlayback(store: Store<AppState, Action>, pauseAt?: (s: AppState, step: number) => boolean): Playback {
  let timer: ReturnType<typeof setInterval> | undefined;
  let speed = 0;
  let visible = true;
  let destroyed = false;
  const sync = (s: AppState): void => {
    const want = s.playing && visible && !destroyed;
    if (want && (timer === undefined || speed !== s.speed)) {
      clearInterval(timer);
      speed = s.speed;
      timer = setInterval(() => {
        const now = store.getState();
        store.dispatch({ type: "tick", pause: pauseAt?.(now, now.step + 1) ?? false });
      }, PLAY_INTERVAL_MS / s.speed);
    } else if (!want && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
  const unsubscribe = store.subscribe(sync);
  return {
    setVisible(v) {
      visible = v;
      sync(store.getState());
    },
    destroy() {
      destroyed = true;
      unsubscribe();
      sync(store.getState());
    },
  };
}
