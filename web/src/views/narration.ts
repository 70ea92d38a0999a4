// The lesson's voice: its title, the run it was written for, the narration of
// the step in view with its "Try it" actions, and a way out. Narration is
// author text: it is built as DOM nodes from the markdown-lite AST
// (model/narration.ts), never parsed as HTML.
//
// Narration states numbers of one run. When the run on screen is another
// (the learner changed a setting, or followed a Try-it detour), the step's
// words are put away behind a banner that names the run they describe and
// offers the way back: stale numbers are never shown as if they were true.

import type { Lesson } from "../model/lessons";
import { settingsText, type Departure } from "../model/settings";
import { parseInline, parseParagraphs, type Inline, type Narration, type NarrationError, type TryAction } from "../model/narration";
import { h, setText } from "./dom";
import "./narration.css";

/** A Try-it action as shown: a button, or why it cannot be offered in this run. */
export interface TryEntry {
  action: TryAction;
  problem: string | null;
  /** The action's run is the one on screen (its allocator is chosen): shown, but nothing to do. */
  taken?: boolean;
}

export interface NarrationData {
  narration: Narration | null;
  lesson: Lesson | null;
  /** How the run on screen differs from the lesson's; null or absent: it is the lesson's run (or there is no lesson). */
  departure?: Departure | null;
  /** The step's Try-it actions, each checked against this run (absent: none offered, as in an embed). */
  tries?: readonly TryEntry[];
  /** The program's directives that could not be read. */
  errors?: readonly NarrationError[];
  /** The lesson's program is still being traced: the map shows the previous run, which its words do not describe. */
  pending?: boolean;
  /**
   * Every step's narration in the program: the panel keeps the height of the
   * tallest of ordinary length (reservedHeight), so the map below it stays put
   * from step to step, and a longer step pushes it down rather than cut its
   * words off (absent: the panel is as tall as this step's).
   */
  all?: readonly Narration[];
}

export interface NarrationHandlers {
  onExitLesson(): void;
  onBackToLesson?(): void;
  onTry?(action: TryAction): void;
}

interface Refs {
  root: HTMLElement;
  kicker: HTMLElement;
  title: HTMLElement;
  exit: HTMLButtonElement;
  writtenFor: HTMLElement;
  banner: HTMLElement;
  bannerText: HTMLElement;
  body: HTMLElement;
  tries: HTMLElement;
  errors: HTMLElement;
  /** What the body shows, so an unchanged step does not re-announce it. */
  key: string | null;
  /** What the banner, actions and errors show. */
  restKey: string | null;
  /** What the panel's reserved height was measured for (the narrations, the width and the window's height), and the height. */
  reserved: { key: string; width: number; windowHeight: number; height: number } | null;
  /** The steps the panel reserves a height for, to measure again when the window's height changes. */
  reserving: { steps: readonly StepText[] } | null;
  handlers: NarrationHandlers;
}

const views = new WeakMap<HTMLElement, Refs>();

/** DOM nodes for inline markup. Links open apart from the app, and leak nothing to the page they open. */
export function inlineNodes(nodes: readonly Inline[]): Node[] {
  return nodes.map((n): Node => {
    switch (n.kind) {
      case "text":
        return document.createTextNode(n.text);
      case "code":
        return h("code", {}, n.text);
      case "em":
        return h("em", {}, ...inlineNodes(n.children));
      case "strong":
        return h("strong", {}, ...inlineNodes(n.children));
      case "link":
        return h("a", { href: n.href, target: "_blank", rel: "noopener noreferrer" }, ...inlineNodes(n.children));
    }
  });
}

function build(mount: HTMLElement, handlers: NarrationHandlers): Refs {
  const writtenFor = h("span", { class: "narration-for" });
  const kicker = h("p", { class: "narration-kicker" }, "Lesson", " ", writtenFor);
  const title = h("h2", { class: "narration-title", id: "narration-title" });
  const exit = h("button", { type: "button", class: "narration-exit" }, "Exit lesson");
  const bannerText = h("p", {});
  const back = h("button", { type: "button", class: "narration-back" }, "Back to the lesson");
  const banner = h("div", { class: "narration-banner", role: "status" }, bannerText, back);
  const body = h("div", { class: "narration-body", "aria-live": "polite" });
  const tries = h("div", { class: "narration-tries", role: "group", "aria-label": "Try it" });
  const errors = h("ul", { class: "narration-errors", "aria-label": "Narration errors" });
  const root = h(
    "section",
    { class: "narration", "aria-labelledby": "narration-title" },
    h("div", { class: "narration-head" }, h("div", {}, kicker, title), exit),
    banner,
    body,
    tries,
    errors,
  );
  root.dataset["view"] = "narration";
  mount.replaceChildren(root);
  const refs: Refs = { root, kicker, title, exit, writtenFor, banner, bannerText, body, tries, errors, key: null, restKey: null, reserved: null, reserving: null, handlers };
  exit.addEventListener("click", () => refs.handlers.onExitLesson());
  back.addEventListener("click", () => refs.handlers.onBackToLesson?.());
  return refs;
}

/** The banner's words: the run the narration describes, the one on the map, and why the words are away. */
function bannerWords(lesson: Lesson, departure: Departure): string {
  const written = `The narration was written for ${settingsText(lesson.config)}`;
  if (departure.intended) {
    return `Trying ${departure.now.allocator}, as the lesson suggests. ${written}: its words are put away until you go back.`;
  }
  return `${written}. You changed ${departure.changed.join(", ")}: its numbers would not describe this run, so they are put away until you go back.`;
}

function tryButton(entry: TryEntry, handlers: () => NarrationHandlers): HTMLElement {
  const button = h("button", { type: "button", class: "narration-try", disabled: entry.taken === true }, `Try it: ${entry.action.label}`);
  button.addEventListener("click", () => handlers().onTry?.(entry.action));
  return button;
}

function errorItem(line: number, message: string): HTMLElement {
  return h("li", {}, `Line ${line}: `, ...inlineNodes(parseInline(message)));
}

/** One step's words as the body shows them. */
function paragraphs(text: string): HTMLElement[] {
  return parseParagraphs(text).map((p) => h("p", {}, ...inlineNodes(p)));
}

/** A step as the panel lays it out: its words and its Try-it buttons' labels. */
type StepText = { text: string; tries: readonly string[] };

/**
 * The share of the window's height the panel may reserve. A step taller than
 * that is an exception (a lesson's closing words, a recording's long
 * introduction): reserving it for every step would leave a screenful of blank
 * above the map on the short ones and push a question below the fold, so such
 * a step pushes the map down while it is shown instead.
 */
export const RESERVE_SHARE = 0.25;

/**
 * The height to reserve for steps measured at `heights` in a window `windowHeight`
 * tall: the tallest of those within the reserve's share of the window (the
 * steps of ordinary length, between which the map then never moves); if none
 * is, the shortest.
 */
export function reservedHeight(heights: readonly number[], windowHeight: number): number {
  if (heights.length === 0) return 0;
  const cap = windowHeight * RESERVE_SHARE;
  const ordinary = heights.filter((h) => h <= cap);
  return ordinary.length > 0 ? Math.max(...ordinary) : Math.min(...heights);
}

/**
 * The height of each of `steps` (words and Try-it buttons) in this panel at
 * its width: each is laid out in a hidden copy of the panel, in the mount so
 * the same rules apply.
 */
function stepHeights(refs: Refs, steps: readonly StepText[]): number[] {
  const probe = refs.root.cloneNode(true) as HTMLElement;
  for (const el of [probe, ...probe.querySelectorAll("[id], [aria-live], [role]")]) {
    el.removeAttribute("id");
    el.removeAttribute("aria-live");
    el.removeAttribute("role");
  }
  probe.classList.add("narration-probe");
  probe.setAttribute("aria-hidden", "true");
  probe.inert = true;
  const body = probe.querySelector<HTMLElement>(".narration-body");
  const tries = probe.querySelector<HTMLElement>(".narration-tries");
  refs.root.after(probe);
  const heights: number[] = [];
  for (const step of steps) {
    if (body) {
      body.hidden = false;
      body.replaceChildren(...paragraphs(step.text));
    }
    if (tries) {
      tries.hidden = step.tries.length === 0;
      tries.replaceChildren(...step.tries.map((label) => h("button", { type: "button", class: "narration-try" }, `Try it: ${label}`)));
    }
    heights.push(probe.offsetHeight);
  }
  probe.remove();
  return heights;
}

/** The mounts whose panels reserve a height: measured again when the window's height changes. */
const reserving = new Set<HTMLElement>();
let listening = false;

function listenForHeight(): void {
  if (listening || typeof window === "undefined") return;
  listening = true;
  window.addEventListener("resize", () => {
    for (const mount of reserving) {
      const refs = views.get(mount);
      if (!mount.isConnected || !refs?.reserving) reserving.delete(mount);
      else reserveHeight(mount, refs, refs.reserving.steps);
    }
  });
}

/**
 * Keeps the mount at least as tall as the program's steps of ordinary length
 * (reservedHeight), measured again when the narrations, the panel's width or
 * the window's height change (--narration-tallest, narration.css).
 */
function reserveHeight(mount: HTMLElement, refs: Refs, steps: readonly StepText[]): void {
  const width = refs.root.offsetWidth;
  if (steps.length === 0 || width === 0) {
    refs.reserved = null;
    refs.reserving = null;
    reserving.delete(mount);
    mount.style.removeProperty("--narration-tallest");
    return;
  }
  const key = JSON.stringify(steps);
  refs.reserving = { steps };
  reserving.add(mount);
  listenForHeight();
  const windowHeight = window.innerHeight;
  if (refs.reserved && refs.reserved.key === key && refs.reserved.width === width && refs.reserved.windowHeight === windowHeight) return;
  const height = reservedHeight(stepHeights(refs, steps), windowHeight);
  refs.reserved = { key, width, windowHeight, height };
  mount.style.setProperty("--narration-tallest", `${height}px`);
}

/** The steps whose height the panel reserves: the lesson's summary (before the first narrated step) and every narration. */
function reservedSteps(all: readonly Narration[] | undefined, summary: string | null): StepText[] {
  return [...(summary !== null ? [{ text: summary, tries: [] }] : []), ...(all ?? []).map((n) => ({ text: n.text, tries: n.tries.map((t) => t.label) }))];
}

export function renderNarration(mount: HTMLElement, data: NarrationData, handlers: NarrationHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root)) {
    refs = build(mount, handlers);
    views.set(mount, refs);
  }
  refs.handlers = handlers;
  const { narration, lesson } = data;
  const departure = data.departure ?? null;
  const allTries = data.tries ?? [];
  const errors = data.errors ?? [];
  const text = narration?.text ?? "";
  const away = lesson !== null && departure !== null;
  // A program of the user's own with `#>` comments narrates too, without a lesson around it.
  refs.root.hidden = lesson === null && text === "" && allTries.length === 0 && errors.length === 0;
  refs.root.classList.toggle("is-away", away);
  refs.kicker.hidden = lesson === null;
  refs.exit.hidden = lesson === null;
  refs.writtenFor.hidden = lesson === null;
  setText(refs.writtenFor, lesson ? `Written for ${settingsText(lesson.config)}` : "");
  setText(refs.title, lesson?.title ?? "Narration");
  refs.banner.hidden = !away;
  refs.body.hidden = away;

  const current = refs;
  const tries = allTries.filter((t) => t.problem === null);
  const problems = [...errors, ...allTries.flatMap((t) => (t.problem === null ? [] : [{ line: t.action.line, message: t.problem }]))];
  const restKey = JSON.stringify([away && lesson && departure ? bannerWords(lesson, departure) : "", tries.map((t) => [t.action, t.taken === true]), problems]);
  if (restKey !== refs.restKey) {
    refs.restKey = restKey;
    if (away && lesson && departure) setText(refs.bannerText, bannerWords(lesson, departure));
    refs.tries.replaceChildren(...tries.map((t) => tryButton(t, () => current.handlers)));
    refs.tries.hidden = tries.length === 0;
    refs.errors.replaceChildren(...problems.map((p) => errorItem(p.line, p.message)));
    refs.errors.hidden = problems.length === 0;
  }

  // Before the first narrated step, the lesson's one-line summary. Away from
  // the lesson's run the body is hidden, and emptied so nothing stale is announced.
  const pending = lesson !== null && !away && data.pending === true;
  reserveHeight(mount, refs, reservedSteps(away || pending ? undefined : data.all, lesson && !away && !pending ? lesson.summary : null));
  const key = away ? "away" : pending ? "pending" : text !== "" ? `n:${text}` : lesson ? `s:${lesson.summary}` : "";
  if (key === refs.key) return;
  refs.key = key;
  if (away) {
    refs.body.replaceChildren();
  } else if (pending) {
    refs.body.replaceChildren(h("p", { class: "narration-summary" }, "Tracing the lesson's program: its narration follows once the map shows it."));
  } else if (text !== "") {
    refs.body.replaceChildren(...paragraphs(text));
  } else if (lesson) {
    refs.body.replaceChildren(h("p", { class: "narration-summary" }, lesson.summary));
  } else {
    refs.body.replaceChildren();
  }
}
