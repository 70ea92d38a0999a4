// Minimal DOM building. Text always goes through textContent, never innerHTML.

import { nextTask } from "../wasm/tasks";

type Attrs = Record<string, string | number | boolean | null | undefined>;
type Child = Node | string | null | undefined | false;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    el.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(typeof child === "string" ? document.createTextNode(child) : child);
  }
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** A small inline icon (decorative: hidden from assistive tech). */
export function icon(pathData: string): SVGSVGElement {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("width", "18");
  svg.setAttribute("height", "18");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  const path = document.createElementNS(SVG_NS, "path");
  path.setAttribute("d", pathData);
  svg.append(path);
  return svg;
}

/** Sets text only when it changed (keeps live regions from re-announcing). */
export function setText(el: Element, text: string): void {
  if (el.textContent !== text) el.textContent = text;
}

/** Marks an element as the current one of its list, for the eye (class) and for assistive tech (aria-current). */
export function markCurrent(el: Element, current: boolean, kind: "step" | "true" = "step"): void {
  el.classList.toggle("is-current", current);
  if (current) el.setAttribute("aria-current", kind);
  else el.removeAttribute("aria-current");
}

/**
 * Marks a view that still shows an earlier step than the one on screen (the
 * scrubber's hand moves on without it): dimmed, its numbers hidden (app.css
 * `.is-catching-up`) and busy for a screen reader. Writes nothing when the
 * mark is already so: a drag calls this every frame.
 */
export function markCatchingUp(el: Element, catching: boolean): void {
  if (el.classList.contains("is-catching-up") === catching) return;
  el.classList.toggle("is-catching-up", catching);
  if (catching) el.setAttribute("aria-busy", "true");
  else el.removeAttribute("aria-busy");
}

/**
 * Coalesces render requests into one per animation frame: a view is a pure
 * function of the state, so drawing once after the last change is enough.
 */
export function frameScheduler(render: () => void): () => void {
  let frame: number | undefined;
  return () => {
    frame ??= window.requestAnimationFrame(() => {
      frame = undefined;
      render();
    });
  };
}

/**
 * A frameScheduler that can split a render in two: while `staged()` holds,
 * `prepare()` runs first in a task of its own (the state's derivations, into
 * their caches) and the frame after it calls `render` with what it prepared,
 * even if the state has moved on since: that move has asked for a
 * preparation of its own, and its frame follows. A frame then only draws,
 * one frame behind the input. Otherwise it is a frameScheduler, and `render`
 * gets null.
 */
export function stagedFrameScheduler<T>(staged: () => boolean, prepare: () => T | null, render: (prepared: T | null) => void): () => void {
  let prepared: T | null = null;
  let preparing = false;
  const frame = frameScheduler(() => {
    const p = prepared;
    prepared = null;
    render(p);
  });
  return () => {
    if (!staged()) {
      frame();
      return;
    }
    if (preparing) return;
    preparing = true;
    void nextTask().then(() => {
      preparing = false;
      prepared = staged() ? prepare() : null;
      frame();
    });
  };
}
