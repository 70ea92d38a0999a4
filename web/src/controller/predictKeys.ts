// The keys of a predict question: while it is open the arrows move the guess
// instead of stepping, since a learner aiming at a byte must never run the op
// they are guessing about. Apart from the step keys (keyboard.ts) so a player
// that never asks questions does not load the predict model.
//
// In presentation mode the question is the room's, asked aloud: the teacher
// drives the lesson with → alone, so → (or Enter) reveals the answer and the
// next → steps past it, ← steps back; the guess moves only on the focused strip,
// where the arrows step again once the answer is shown.

import type { TraceView } from "../wasm/traceView";
import { moveGuess, predictionAt, stripAt, type GuessMove } from "../model/predict";
import type { Action } from "../state/reducer";
import { keepsKeys, OWN_SPACE } from "./keyboard";

/** Marks the predict strip, whose keys are always the guess's. */
export const PREDICT_STRIP_ATTR = "data-predict-strip";

/** The predict panel as the keys see it (only while it is shown). */
export interface PredictKeysState {
  trace: TraceView;
  /** The step in view: the question is about ops[step]. */
  step: number;
  guess: number | null;
  revealed: boolean;
  /** Presentation mode: the page's keys reveal and step, the strip alone moves the guess. */
  present?: boolean;
}

/** Keys that move the guess anywhere on the page, and those only the focused strip has (a slider's keys). */
const PAGE_MOVES: Record<string, [GuessMove, GuessMove]> = {
  ArrowLeft: ["byteDown", "alignDown"],
  ArrowRight: ["byteUp", "alignUp"],
};
const STRIP_MOVES: Record<string, [GuessMove, GuessMove]> = {
  ...PAGE_MOVES,
  ArrowDown: ["byteDown", "alignDown"],
  ArrowUp: ["byteUp", "alignUp"],
  PageDown: ["pageDown", "pageDown"],
  PageUp: ["pageUp", "pageUp"],
  Home: ["start", "start"],
  End: ["end", "end"],
};

/**
 * What a key does while the predict panel is shown: `{ action }` for a key it
 * takes (a null action swallows it), undefined for a key left to the others.
 * A question open: ←/→ move the guess one byte (Shift: to the next address of
 * the block's alignment), Enter answers, Space does nothing (playing would
 * step). Answered, or nothing to ask: Enter or → goes to the next op; at the
 * program's end Enter starts over.
 */
export function predictKeyAction(event: KeyboardEvent, q: PredictKeysState): { action: Action | null } | undefined {
  if (event.altKey || event.ctrlKey || event.metaKey) return undefined;
  const target = event.composedPath()[0] ?? event.target;
  const onStrip = target instanceof Element && target.closest(`[${PREDICT_STRIP_ATTR}]`) !== null;
  if (!onStrip && keepsKeys(target)) return undefined;
  // Enter and Space on a button or link press it.
  const onControl = !onStrip && target instanceof Element && target.closest(OWN_SPACE) !== null;
  const p = predictionAt(q.trace, q.step);
  if (p && !q.revealed && q.present === true && !onStrip) {
    if (onControl) return undefined;
    if (event.key === "ArrowRight" || event.key === "Enter") return { action: { type: "reveal" } };
    if (event.key === " ") return { action: null };
    return undefined;
  }
  if (p && !q.revealed) {
    const move = (onStrip ? STRIP_MOVES : PAGE_MOVES)[event.key];
    if (move) return { action: { type: "guess", address: moveGuess(p, stripAt(q.trace, q.step, p), q.guess, event.shiftKey ? move[1] : move[0]) } };
    if (onControl) return undefined;
    if (event.key === "Enter") return { action: { type: "reveal" } };
    if (event.key === " ") return { action: null };
    return undefined;
  }
  const atEnd = q.step >= q.trace.length;
  // On a projector, a question answered on the strip leaves the teacher's
  // arrows stepping there as anywhere else: the guess is fixed once revealed.
  if (onStrip && q.present === true && p && !event.shiftKey) {
    if (event.key === "ArrowRight") return { action: { type: "predictNext" } };
    if (event.key === "ArrowLeft") return { action: { type: "back" } };
  }
  if (onStrip && event.key in STRIP_MOVES) return { action: null };
  if (onControl || event.shiftKey) return undefined;
  if (event.key === "Enter") return { action: atEnd ? { type: "first" } : { type: "predictNext" } };
  // The reducer's → reveals before it steps: with the answer shown (or nothing to ask) one press steps.
  if (event.key === "ArrowRight" && !atEnd) return { action: { type: "predictNext" } };
  return undefined;
}

/** Dispatches the predict keys pressed inside `scope`; bind it before the step keys, which then skip them. */
export function bindPredictKeys(scope: Document | HTMLElement, dispatch: (a: Action) => void, question: () => PredictKeysState | null): void {
  scope.addEventListener("keydown", (event) => {
    if (!(event instanceof KeyboardEvent) || event.defaultPrevented) return;
    const q = question();
    const taken = q ? predictKeyAction(event, q) : undefined;
    if (!taken) return;
    event.preventDefault();
    if (taken.action) dispatch(taken.action);
  });
}
