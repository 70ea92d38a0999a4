// The lesson's voice: its title, the narration of the step in view, and a way
// out. Narration is author text: it is built as DOM nodes from the
// markdown-lite AST (model/narration.ts), never parsed as HTML.

import type { Lesson } from "../model/lessons";
import { parseParagraphs, type Inline, type Narration } from "../model/narration";
import { h, setText } from "./dom";
import "./narration.css";

export interface NarrationData {
  narration: Narration | null;
  lesson: Lesson | null;
}

export interface NarrationHandlers {
  onExitLesson(): void;
}

interface Refs {
  root: HTMLElement;
  kicker: HTMLElement;
  title: HTMLElement;
  exit: HTMLButtonElement;
  body: HTMLElement;
  /** What the body shows, so an unchanged step does not re-announce it. */
  key: string | null;
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
  const kicker = h("p", { class: "narration-kicker" }, "Lesson");
  const title = h("h2", { class: "narration-title", id: "narration-title" });
  const exit = h("button", { type: "button", class: "narration-exit" }, "Exit lesson");
  const body = h("div", { class: "narration-body", "aria-live": "polite" });
  const root = h(
    "section",
    { class: "narration", "aria-labelledby": "narration-title" },
    h("div", { class: "narration-head" }, h("div", {}, kicker, title), exit),
    body,
  );
  root.dataset["view"] = "narration";
  mount.replaceChildren(root);
  const refs: Refs = { root, kicker, title, exit, body, key: null, handlers };
  exit.addEventListener("click", () => refs.handlers.onExitLesson());
  return refs;
}

export function renderNarration(mount: HTMLElement, data: NarrationData, handlers: NarrationHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root)) {
    refs = build(mount, handlers);
    views.set(mount, refs);
  }
  refs.handlers = handlers;
  const { narration, lesson } = data;
  const text = narration?.text ?? "";
  // A program of the user's own with `#>` comments narrates too, without a lesson around it.
  refs.root.hidden = lesson === null && text === "";
  refs.kicker.hidden = lesson === null;
  refs.exit.hidden = lesson === null;
  setText(refs.title, lesson?.title ?? "Narration");

  // Before the first narrated step, the lesson's one-line summary.
  const key = text !== "" ? `n:${text}` : lesson ? `s:${lesson.summary}` : "";
  if (key === refs.key) return;
  refs.key = key;
  if (text !== "") {
    refs.body.replaceChildren(...parseParagraphs(text).map((p) => h("p", {}, ...inlineNodes(p))));
  } else if (lesson) {
    refs.body.replaceChildren(h("p", { class: "narration-summary" }, lesson.summary));
  } else {
    refs.body.replaceChildren();
  }
}
