// The step keys: ←/→ one op, Home/End the ends, Shift+←/→ one micro-step,
// Space play or pause. Typing, native controls and widgets whose arrows mean
// something of their own keep their keys. The app listens on the document;
// a player on its own root, so several on one page stay independent.
//
// While a predict question is open the arrows move the guess instead
// (predictKeys.ts, bound before these, which then skip its keys).

import type { Action } from "../state/reducer";

/** Widgets whose arrow keys, Home and End move within them (ARIA patterns). */
const OWN_ARROWS = '[role="menu"], [role="menubar"], [role="slider"], [role="listbox"], [role="grid"], [role="tablist"], [role="radiogroup"], [role="tree"]';
/** Elements that Space activates. */
export const OWN_SPACE = 'button, summary, a[href], [role="button"], [role="menuitem"], [role="checkbox"], [role="switch"], [role="radio"], [role="slider"], [role="option"], [role="tab"]';

const STEP_KEYS: Record<string, Action> = {
  ArrowLeft: { type: "back" },
  ArrowRight: { type: "forward" },
  Home: { type: "first" },
  End: { type: "last" },
};

/** Whether `target` keeps its own keys (text, native controls, composite widgets). */
export function keepsKeys(target: EventTarget | null): boolean {
  if (
    target instanceof HTMLTextAreaElement ||
    target instanceof HTMLSelectElement ||
    target instanceof HTMLInputElement ||
    (target instanceof HTMLElement && target.isContentEditable)
  ) {
    return true;
  }
  return target instanceof Element && target.closest(OWN_ARROWS) !== null;
}

/** The action a key press asks for, if it is a step key here. */
export function stepAction(event: KeyboardEvent, options: { micro: boolean; play: boolean }): Action | undefined {
  if (event.altKey || event.ctrlKey || event.metaKey) return undefined;
  const target = event.composedPath()[0] ?? event.target;
  if (keepsKeys(target)) return undefined;
  if (event.shiftKey) {
    if (!options.micro) return undefined;
    if (event.key === "ArrowRight") return { type: "microForward" };
    if (event.key === "ArrowLeft") return { type: "microBack" };
    return undefined;
  }
  // Space on a control presses it (a button, a disclosure, a link); elsewhere it plays or pauses.
  if (event.key === " ") return options.play && !(target instanceof Element && target.closest(OWN_SPACE)) ? { type: "togglePlay" } : undefined;
  return STEP_KEYS[event.key];
}

/** Dispatches the step keys pressed inside `scope` (until `signal` aborts). */
export function bindStepKeys(
  scope: Document | HTMLElement,
  dispatch: (a: Action) => void,
  options: { micro: boolean; play: boolean; enabled?: () => boolean; signal?: AbortSignal },
): void {
  scope.addEventListener(
    "keydown",
    (event) => {
      if (!(event instanceof KeyboardEvent) || event.defaultPrevented) return;
      if (options.enabled && !options.enabled()) return;
      const action = stepAction(event, options);
      if (!action) return;
      event.preventDefault();
      dispatch(action);
    },
    options.signal ? { signal: options.signal } : undefined,
  );
}
