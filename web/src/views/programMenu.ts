// The Programs menu over the editor: a button opening a one-level menu of
// lessons, examples and generators (keyboard as a native menu: arrows, Home,
// End, type-ahead, Escape, Tab out), and the Random mix form its last item
// opens. A chosen program goes to `load`, which the editor applies as an edit
// of its textarea.

import { GALLERY } from "../model/gallery";
import { RECORDED_LESSON_PREFIX } from "../model/lessons";
import { RECORDED } from "../model/recorded";
import {
  EXAMPLES,
  GENERATORS,
  RANDOM_MIX_DEFAULTS,
  randomMix,
  validateRandomMix,
  type ProgramEntry,
  type RandomMixField,
  type RandomMixInput,
} from "../model/generators";
import { h, icon } from "./dom";

/** A built-in lesson the Programs menu can open (see model/lessons.ts). */
export interface LessonEntry {
  id: string;
  title: string;
  summary: string;
}

/** The menu item a navigation key moves to from `current` (null: not a navigation key). */
export function menuKeyIndex(key: string, current: number, count: number): number | null {
  if (count === 0) return null;
  switch (key) {
    case "ArrowDown":
      return (current + 1) % count;
    case "ArrowUp":
      return current <= 0 ? count - 1 : current - 1;
    case "Home":
      return 0;
    case "End":
      return count - 1;
    default:
      return null;
  }
}

/** Type-ahead: the next item after `current` whose label starts with `char`, wrapping (null: none). */
export function typeaheadIndex(labels: readonly string[], current: number, char: string): number | null {
  const c = char.toLowerCase();
  for (let k = 1; k <= labels.length; k++) {
    const i = (current + k) % labels.length;
    if (labels[i]?.toLowerCase().startsWith(c)) return i;
  }
  return null;
}

/** What choosing a menu entry does. */
type MenuAction =
  | { kind: "program"; source: () => string }
  | { kind: "lesson"; id: string }
  | { kind: "gallery"; id: string }
  | { kind: "randomMix" };

const MIX_FIELDS: readonly { field: RandomMixField; label: string }[] = [
  { field: "ops", label: "Ops" },
  { field: "seed", label: "Seed" },
  { field: "minSize", label: "Smallest size" },
  { field: "maxSize", label: "Largest size" },
  { field: "minAlign", label: "Smallest alignment" },
  { field: "maxAlign", label: "Largest alignment" },
];

// A chevron pointing down (the menu opens below its button).
const CHEVRON = "M7.4 9.4 12 14l4.6-4.6L18 10.8l-6 6-6-6z";

function menuItem(id: string, title: string, summary: string): HTMLButtonElement {
  return h(
    "button",
    {
      type: "button",
      role: "menuitem",
      tabindex: -1,
      class: "menu-item",
      "aria-labelledby": `menu-${id}-title`,
      "aria-describedby": `menu-${id}-summary`,
    },
    h("span", { class: "menu-item-title", id: `menu-${id}-title` }, title),
    h("span", { class: "menu-item-summary", id: `menu-${id}-summary` }, summary),
  );
}

function menuGroup(label: string, items: HTMLElement[]): HTMLElement {
  // The visible heading is for sight; the group's own name is what is announced.
  return h("div", { role: "group", "aria-label": label, class: "menu-group" }, h("div", { class: "menu-heading", "aria-hidden": "true" }, label), ...items);
}

/**
 * The menu: `programs` (the button and its menu, for the program field's
 * heading), `mixForm` (hidden until chosen) and `setLessons`, which lists
 * lessons at the head of the menu (none: no Lessons group).
 */
export function programMenu(load: (text: string) => void, onLesson: (id: string) => void, onGallery: (id: string) => void) {
  const actions = new Map<HTMLElement, MenuAction>();
  const entryItems = (entries: readonly ProgramEntry[]): HTMLElement[] =>
    entries.map((e) => {
      const item = menuItem(e.id, e.title, e.summary);
      actions.set(item, { kind: "program", source: e.source });
      return item;
    });
  const galleryItems = GALLERY.map((e) => {
    const item = menuItem(e.id, e.title, `${e.source.title}. ${e.claim}`);
    actions.set(item, { kind: "gallery", id: e.id });
    return item;
  });
  // Allocations recorded from real software: each opens like a lesson, narrated for the arena it was measured on.
  const recordedItems = RECORDED.map((r) => {
    const item = menuItem(`recorded-${r.id}`, r.title, `${r.facts.ops.toLocaleString("en-US")} ops, narrated on ${r.allocator}. Recorded with: ${r.command}`);
    actions.set(item, { kind: "lesson", id: `${RECORDED_LESSON_PREFIX}${r.id}` });
    return item;
  });
  const mixItem = menuItem("random-mix", "Random mix…", "A seeded mix of allocs, reallocs and frees: choose the ranges.");
  actions.set(mixItem, { kind: "randomMix" });
  const lessonsGroup = menuGroup("Lessons", []);
  lessonsGroup.hidden = true;
  const button = h(
    "button",
    {
      type: "button",
      id: "programs-button",
      class: "programs-button",
      "aria-haspopup": "menu",
      "aria-expanded": "false",
      "aria-controls": "programs-menu",
    },
    "Programs",
    icon(CHEVRON),
  );
  const menu = h(
    "div",
    { id: "programs-menu", class: "programs-menu", role: "menu", "aria-labelledby": "programs-button", hidden: true },
    lessonsGroup,
    menuGroup("Examples", entryItems(EXAMPLES)),
    menuGroup("Known behaviours of real arenas", galleryItems),
    menuGroup("Recorded from real programs", recordedItems),
    menuGroup("Generators", [...entryItems(GENERATORS), mixItem]),
  );
  const programs = h("div", { class: "programs" }, button, menu);

  const mixInputs = new Map<RandomMixField, HTMLInputElement>();
  const mixErrors = h("div", { class: "mix-errors", role: "alert", hidden: true });
  const mixForm = h(
    "form",
    { class: "mix-form", "aria-labelledby": "mix-title", hidden: true, novalidate: true },
    h("h3", { id: "mix-title", class: "mix-title" }, "Random mix"),
    h(
      "div",
      { class: "mix-fields" },
      ...MIX_FIELDS.map(({ field, label }) => {
        const input = h("input", {
          id: `mix-${field}`,
          type: "text",
          inputmode: "numeric",
          autocomplete: "off",
          spellcheck: "false",
          value: RANDOM_MIX_DEFAULTS[field],
        });
        mixInputs.set(field, input);
        return h("div", { class: "mix-field" }, h("label", { for: input.id }, label), input);
      }),
    ),
    mixErrors,
    h(
      "div",
      { class: "mix-actions" },
      h("button", { type: "submit", class: "mix-generate" }, "Generate"),
      h("button", { type: "button", class: "mix-cancel" }, "Cancel"),
    ),
  );

  // Items inside a hidden group (Lessons, when there are none) are not in the menu.
  const items = (): HTMLButtonElement[] =>
    Array.from(menu.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')).filter((el) => !el.closest("[hidden]"));
  const isOpen = (): boolean => !menu.hidden;
  const openMenu = (focus: "first" | "last"): void => {
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    const all = items();
    all[focus === "first" ? 0 : all.length - 1]?.focus();
  };
  const closeMenu = (returnFocus: boolean): void => {
    if (!isOpen()) return;
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (returnFocus) button.focus();
  };
  const closeMix = (): void => {
    mixForm.hidden = true;
    button.focus();
  };

  const choose = (item: HTMLElement): void => {
    const action = actions.get(item);
    if (!action) return;
    closeMenu(true);
    if (action.kind === "randomMix") {
      mixForm.hidden = false;
      mixInputs.get("ops")?.focus();
      mixInputs.get("ops")?.select();
      return;
    }
    mixForm.hidden = true;
    if (action.kind === "program") load(action.source());
    else if (action.kind === "gallery") onGallery(action.id);
    else onLesson(action.id);
  };

  button.addEventListener("click", () => (isOpen() ? closeMenu(true) : openMenu("first")));
  button.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      // Also keeps the app's arrow keys (step back and forward) from seeing it.
      event.preventDefault();
      openMenu(event.key === "ArrowDown" ? "first" : "last");
    }
  });
  menu.addEventListener("click", (event) => {
    const item = event.target instanceof Element ? event.target.closest<HTMLElement>('[role="menuitem"]') : null;
    if (item) choose(item);
  });
  menu.addEventListener("keydown", (event) => {
    const all = items();
    const current = all.findIndex((el) => el === document.activeElement);
    const next = menuKeyIndex(event.key, current, all.length);
    if (next !== null) {
      all[next]?.focus();
    } else if (event.key === "Escape") {
      closeMenu(true);
    } else if (event.key === "Tab") {
      // Tab leaves the menu, as from a native one; focus moves on from the button.
      closeMenu(false);
      return;
    } else if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      // A one-level menu: nothing to the sides (and not the app's step keys).
    } else if (event.key.length === 1 && event.key !== " " && !event.altKey && !event.ctrlKey && !event.metaKey) {
      const labels = all.map((el) => el.querySelector(".menu-item-title")?.textContent ?? "");
      const found = typeaheadIndex(labels, current, event.key);
      if (found !== null) all[found]?.focus();
    } else {
      return;
    }
    event.preventDefault();
  });
  menu.addEventListener("focusout", (event) => {
    const to = event.relatedTarget;
    if (to instanceof Node && programs.contains(to)) return;
    if (to !== null) closeMenu(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (isOpen() && event.target instanceof Node && !programs.contains(event.target)) closeMenu(false);
  });

  mixForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const input = Object.fromEntries(MIX_FIELDS.map(({ field }) => [field, mixInputs.get(field)?.value ?? ""])) as RandomMixInput;
    const result = validateRandomMix(input);
    const bad = new Map(result.ok ? [] : result.errors.map((e) => [e.field, e.message]));
    const messages: HTMLElement[] = [];
    for (const [field, el] of mixInputs) {
      const message = bad.get(field);
      el.setAttribute("aria-invalid", message ? "true" : "false");
      if (message) {
        messages.push(h("li", { id: `mix-error-${field}` }, message));
        el.setAttribute("aria-describedby", `mix-error-${field}`);
      } else {
        el.removeAttribute("aria-describedby");
      }
    }
    mixErrors.replaceChildren(...(messages.length > 0 ? [h("ul", {}, ...messages)] : []));
    mixErrors.hidden = messages.length === 0;
    if (!result.ok) {
      const first = result.errors[0];
      if (first) mixInputs.get(first.field)?.focus();
      return;
    }
    mixForm.hidden = true;
    load(randomMix(result.options));
  });
  mixForm.querySelector(".mix-cancel")?.addEventListener("click", closeMix);
  mixForm.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    closeMix();
  });

  let lessonKey = "";
  const setLessons = (lessons: readonly LessonEntry[]): void => {
    const key = lessons.map((l) => `${l.id}\u0000${l.title}\u0000${l.summary}`).join("\u0001");
    if (key === lessonKey) return;
    lessonKey = key;
    for (const el of lessonsGroup.querySelectorAll<HTMLElement>('[role="menuitem"]')) {
      actions.delete(el);
      el.remove();
    }
    for (const lesson of lessons) {
      const item = menuItem(`lesson-${lesson.id}`, lesson.title, lesson.summary);
      actions.set(item, { kind: "lesson", id: lesson.id });
      lessonsGroup.append(item);
    }
    lessonsGroup.hidden = lessons.length === 0;
  };

  return { programs, mixForm, setLessons };
}
