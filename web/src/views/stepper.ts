// Step controls: buttons, a scrubber with a tick per op, the op counter and a
// one-sentence description announced politely to screen readers.

import { SPEEDS, type Action, type Speed } from "../state/reducer";
import { h, icon, setText } from "./dom";

export interface StepperData {
  step: number;
  total: number;
  playing: boolean;
  speed: Speed;
  description: string;
  /** Which micro-step of the op is in view ("2 of 4: …"), when it has several. */
  micro: string | null;
}

/** At most this many scrubber ticks: beyond it every k-th op gets one. */
export const MAX_TICKS = 100;

/** The ops that get a scrubber tick: all of them, or every k-th and the last. */
export function tickSteps(total: number, max = MAX_TICKS): number[] {
  const every = Math.max(1, Math.ceil(total / max));
  const ticks: number[] = [];
  for (let i = 0; i <= total; i += every) ticks.push(i);
  if (ticks[ticks.length - 1] !== total) ticks.push(total);
  return ticks;
}

const speedText = (s: Speed): string => `${s}×`;

const ICONS = {
  first: "M4 5h2v14H4zM13 5v14L6 12zM20 5v14l-7-7z",
  back: "M15 5v14L7 12zM16 5h2v14h-2z",
  play: "M8 5v14l11-7z",
  pause: "M7 5h4v14H7zM13 5h4v14h-4z",
  forward: "M6 5h2v14H6zM9 5v14l8-7z",
  last: "M4 5v14l7-7zM11 5v14l7-7zM18 5h2v14h-2z",
};

interface Refs {
  first: HTMLButtonElement;
  back: HTMLButtonElement;
  play: HTMLButtonElement;
  forward: HTMLButtonElement;
  last: HTMLButtonElement;
  range: HTMLInputElement;
  ticks: HTMLDataListElement;
  counter: HTMLElement;
  micro: HTMLElement;
  speed: HTMLSelectElement;
  description: HTMLElement;
}

const views = new WeakMap<HTMLElement, Refs>();

/**
 * How long the scrubber must stay still under a pressed pointer before the
 * drag counts as settled: the views a drag leaves behind (the editor's line,
 * the code, the charts) catch up then, and at the release.
 */
export const SCRUB_SETTLE_MS = 100;

/** A drag of the scrubber: pressed, moving, and what to run once it settles. */
interface Scrub {
  pressed: boolean;
  moving: boolean;
  /**
   * The stillness being timed: a timeout, "frame" while a render's frame is
   * still to be drawn (the timeout starts after it), or none.
   */
  timer: ReturnType<typeof setTimeout> | "frame" | undefined;
  settled: (() => void) | null;
  /** Ends the drag's motion and runs what waits for it. */
  settle: () => void;
}
const scrubs = new WeakMap<HTMLElement, Scrub>();

function stopTimer(scrub: Scrub): void {
  if (scrub.timer !== undefined && scrub.timer !== "frame") clearTimeout(scrub.timer);
  scrub.timer = undefined;
}

/**
 * Whether the scrubber in `container` is being dragged and has moved within
 * SCRUB_SETTLE_MS: a render then draws only what follows the hand (the map
 * and the counter) and leaves the rest to `whenScrubSettles`.
 */
export function isScrubbing(container: HTMLElement): boolean {
  const scrub = scrubs.get(container);
  return scrub !== undefined && scrub.pressed && scrub.moving;
}

/**
 * Runs `settled` once when the drag in `container` settles (released, or
 * still for SCRUB_SETTLE_MS after the frame that draws this call's render);
 * null forgets the one waiting. A later call replaces an earlier one: only
 * the last render's catch-up matters. The stillness counts from the next
 * frame, not from the input nor from the render (the render's layout and
 * paint come after it), so a slow frame is not taken for a pause.
 */
export function whenScrubSettles(container: HTMLElement, settled: (() => void) | null): void {
  const scrub = scrubs.get(container);
  if (!scrub) return;
  scrub.settled = settled;
  if (settled && scrub.timer !== undefined) {
    stopTimer(scrub);
    scrub.timer = "frame";
    requestAnimationFrame(() => {
      // An input since then timed the stillness itself (or the drag ended).
      if (scrub.timer === "frame") scrub.timer = setTimeout(scrub.settle, SCRUB_SETTLE_MS);
    });
  }
}

function watchScrub(container: HTMLElement, range: HTMLInputElement): void {
  const settle = (): void => {
    stopTimer(scrub);
    scrub.moving = false;
    const run = scrub.settled;
    scrub.settled = null;
    run?.();
  };
  const scrub: Scrub = { pressed: false, moving: false, timer: undefined, settled: null, settle };
  scrubs.set(container, scrub);
  range.addEventListener("pointerdown", () => {
    scrub.pressed = true;
  });
  // Before the input listener that dispatches the seek, so its render sees the drag.
  range.addEventListener("input", () => {
    if (!scrub.pressed) return;
    scrub.moving = true;
    stopTimer(scrub);
    scrub.timer = setTimeout(settle, SCRUB_SETTLE_MS);
  });
  const release = (): void => {
    if (!scrub.pressed) return;
    scrub.pressed = false;
    settle();
  };
  // The release may land off the scrubber: the window hears it wherever it is.
  window.addEventListener("pointerup", release, true);
  window.addEventListener("pointercancel", release, true);
  range.addEventListener("change", release);
}

function button(label: string, keys: string, path: string, onClick: () => void, extra = ""): HTMLButtonElement {
  const b = h("button", {
    type: "button",
    class: `icon-button ${extra}`.trim(),
    "aria-label": label,
    // The page-wide keys that do the same (app.ts), announced with the button.
    "aria-keyshortcuts": keys,
    title: `${label} (${keys.replace("Arrow", "")})`,
  });
  b.append(icon(path));
  b.addEventListener("click", onClick);
  return b;
}

function build(container: HTMLElement, dispatch: (a: Action) => void): Refs {
  const first = button("First", "Home", ICONS.first, () => dispatch({ type: "first" }));
  const back = button("Step back", "ArrowLeft", ICONS.back, () => dispatch({ type: "back" }));
  const play = button("Play", "Space", ICONS.play, () => dispatch({ type: "togglePlay" }), "primary");
  const forward = button("Step forward", "ArrowRight", ICONS.forward, () => dispatch({ type: "forward" }));
  const last = button("Last", "End", ICONS.last, () => dispatch({ type: "last" }));
  const ticks = h("datalist", { id: "step-ticks" });
  const range = h("input", { type: "range", id: "step", min: 0, max: 0, step: 1, value: 0, list: ticks.id });
  watchScrub(container, range);
  range.addEventListener("input", () => dispatch({ type: "seek", step: Number(range.value) }));
  const counter = h("span", { class: "step-counter" });
  const speed = h(
    "select",
    { id: "speed", class: "speed-select", title: "Playback speed" },
    ...SPEEDS.map((v) => h("option", { value: v }, speedText(v))),
  );
  speed.addEventListener("change", () => {
    const v = SPEEDS.find((x) => String(x) === speed.value);
    if (v !== undefined) dispatch({ type: "setSpeed", speed: v });
  });
  const micro = h("p", { class: "step-micro" });
  const description = h("p", { class: "step-description", "aria-live": "polite" });
  container.replaceChildren(
    h(
      "div",
      { class: "stepper-row" },
      h("div", { class: "buttons", role: "group", "aria-label": "Step controls" }, first, back, play, forward, last),
      h("div", { class: "speed" }, h("label", { for: "speed", class: "visually-hidden" }, "Speed"), speed),
      h("div", { class: "scrubber" }, h("label", { for: "step", class: "scrub-label" }, "Step"), range, ticks),
      counter,
    ),
    h(
      "div",
      { class: "step-text" },
      description,
      h(
        "div",
        { class: "step-foot" },
        micro,
        h(
          "p",
          { class: "step-keys" },
          h("kbd", {}, "←"),
          " ",
          h("kbd", {}, "→"),
          " op · ",
          h("kbd", {}, "Shift"),
          "+",
          h("kbd", {}, "←"),
          " ",
          h("kbd", {}, "→"),
          " micro-step · ",
          h("kbd", {}, "Space"),
          " play · ",
          h("kbd", {}, "Home"),
          " ",
          h("kbd", {}, "End"),
        ),
      ),
    ),
  );
  return { first, back, play, forward, last, range, ticks, counter, micro, speed, description };
}

export function renderStepper(container: HTMLElement, data: StepperData, dispatch: (a: Action) => void): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, dispatch);
    views.set(container, refs);
  }
  const { step, total, playing } = data;
  // Buttons at a bound stay enabled (a no-op, dimmed): disabling would drop
  // keyboard focus from the button just pressed.
  refs.first.classList.toggle("at-bound", step === 0);
  refs.back.classList.toggle("at-bound", step === 0);
  refs.forward.classList.toggle("at-bound", step >= total);
  refs.last.classList.toggle("at-bound", step >= total);
  refs.play.classList.toggle("at-bound", total === 0);

  const label = playing ? "Pause" : "Play";
  if (refs.play.getAttribute("aria-label") !== label) {
    refs.play.setAttribute("aria-label", label);
    refs.play.title = `${label} (Space)`;
    refs.play.replaceChildren(icon(playing ? ICONS.pause : ICONS.play));
  }

  if (refs.range.max !== String(total)) {
    refs.range.max = String(total);
    refs.ticks.replaceChildren(...tickSteps(total).map((i) => h("option", { value: i })));
  }
  if (refs.range.value !== String(step)) refs.range.value = String(step);
  refs.range.setAttribute("aria-valuetext", `op ${step} of ${total}`);
  setText(refs.counter, `op ${step} / ${total}`);
  if (refs.speed.value !== String(data.speed)) refs.speed.value = String(data.speed);
  setText(refs.description, data.description);
  // Shift+←/→ moves through micro-steps; the line says which one is in view.
  // Empty, not hidden, at op 0: the line keeps its height (styles.css .step-micro).
  setText(refs.micro, data.micro ? `Micro-step ${data.micro}` : "");
}
