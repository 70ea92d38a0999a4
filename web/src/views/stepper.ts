// Step controls: buttons, a scrubber with a tick per op, the op counter and a
// one-sentence description announced politely to screen readers.

import type { Action } from "../state/reducer";
import { h, icon, setText } from "./dom";

export interface StepperData {
  step: number;
  total: number;
  playing: boolean;
  description: string;
}

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
  description: HTMLElement;
}

const views = new WeakMap<HTMLElement, Refs>();

function button(label: string, path: string, onClick: () => void, extra = ""): HTMLButtonElement {
  const b = h("button", { type: "button", class: `icon-button ${extra}`.trim(), "aria-label": label, title: label });
  b.append(icon(path));
  b.addEventListener("click", onClick);
  return b;
}

function build(container: HTMLElement, dispatch: (a: Action) => void): Refs {
  const first = button("First", ICONS.first, () => dispatch({ type: "first" }));
  const back = button("Step back", ICONS.back, () => dispatch({ type: "back" }));
  const play = button("Play", ICONS.play, () => dispatch({ type: "togglePlay" }), "primary");
  const forward = button("Step forward", ICONS.forward, () => dispatch({ type: "forward" }));
  const last = button("Last", ICONS.last, () => dispatch({ type: "last" }));
  const ticks = h("datalist", { id: "step-ticks" });
  const range = h("input", { type: "range", id: "step", min: 0, max: 0, step: 1, value: 0, list: ticks.id });
  range.addEventListener("input", () => dispatch({ type: "seek", step: Number(range.value) }));
  const counter = h("span", { class: "step-counter" });
  const description = h("p", { class: "step-description", "aria-live": "polite" });
  container.replaceChildren(
    h(
      "div",
      { class: "stepper-row" },
      h("div", { class: "buttons", role: "group", "aria-label": "Step controls" }, first, back, play, forward, last),
      h("div", { class: "scrubber" }, h("label", { for: "step", class: "scrub-label" }, "Step"), range, ticks),
      counter,
    ),
    description,
  );
  return { first, back, play, forward, last, range, ticks, counter, description };
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
    refs.play.title = label;
    refs.play.replaceChildren(icon(playing ? ICONS.pause : ICONS.play));
  }

  if (refs.range.max !== String(total)) {
    refs.range.max = String(total);
    refs.ticks.replaceChildren(
      ...(total <= 200 ? Array.from({ length: total + 1 }, (_, i) => h("option", { value: i })) : []),
    );
  }
  if (refs.range.value !== String(step)) refs.range.value = String(step);
  refs.range.setAttribute("aria-valuetext", `op ${step} of ${total}`);
  setText(refs.counter, `op ${step} / ${total}`);
  setText(refs.description, data.description);
}
