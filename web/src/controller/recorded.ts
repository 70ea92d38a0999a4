// Recorded programs: hundreds of kB each, so a file under the site's
// examples/, fetched when chosen. It opens like a lesson, where the
// narration's totals hold (its last op, or the one before a reset that ends it).

import { recordedLesson } from "../model/lessons";
import type { Action } from "../state/reducer";

/**
 * Fetches the recorded program `id` (relative to `base`) and starts its
 * lesson; if it does not load, says so through `onError` and changes nothing.
 */
export async function openRecorded(id: string, base: string, dispatch: (a: Action) => void, onError: (text: string) => void): Promise<void> {
  const found = recordedLesson(id);
  if (!found) return;
  const { lesson, recorded } = found;
  try {
    const response = await fetch(new URL(recorded.path, base));
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`.trim());
    const source = await response.text();
    dispatch({ type: "startLesson", lesson: { id, config: { ...lesson.config, source }, step: recorded.opensAt } });
  } catch (error: unknown) {
    onError(`The recorded program ${recorded.path} did not load (${error instanceof Error ? error.message : String(error)}): the program on screen is unchanged.`);
  }
}
