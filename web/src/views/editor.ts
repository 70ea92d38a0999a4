// The program editor and the run settings. The textarea is the one place the
// program text is typed, so rendering never rewrites it while it has focus.
// Highlighting is a mirror: the textarea's text is transparent and a <pre>
// behind it, with the same font and padding, draws the coloured tokens and
// the error marker. The textarea keeps native editing, undo and its label.

import type { RunConfig } from "../engine/config";
import type { AllocatorInfo, ProgramError } from "../engine/types";
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
import { errorTokenIndex, tokenizeLine } from "../model/highlight";
import { h, icon, setText } from "./dom";
import "./editor.css";

/** A built-in lesson the Programs menu can open (see model/lessons.ts). */
export interface LessonEntry {
  id: string;
  title: string;
  summary: string;
}

export interface EditorData {
  /** The run as configured (its source as typed). */
  config: RunConfig;
  allocators: readonly AllocatorInfo[];
  error: ProgramError | null;
  /** Program line of the op in view, marked in the gutter. */
  currentLine: number | null;
  /** Lessons listed in the Programs menu (none: no Lessons group). */
  lessons?: readonly LessonEntry[];
}

export interface EditorHandlers {
  /** The program typed, or a preset or setting chosen. */
  onConfigure(change: Partial<RunConfig>): void;
  /** A lesson was chosen in the Programs menu: load its program and preset. */
  onLesson?(id: string): void;
}

export const MIB = 1024 * 1024;
export const CAPACITIES = [64, 128, 256, 512, 1024, 2048, 4096, MIB] as const;

/** The chooser's groups, in order; presets not listed go to a last "Other" group. */
export const ALLOCATOR_GROUPS: readonly { label: string; names: readonly string[] }[] = [
  {
    label: "Seed algorithms (one fixed chunk)",
    names: ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"],
  },
  {
    label: "Libraries",
    names: [
      "bumpalo",
      "bump-scope-up",
      "bump-scope-down",
      "bumper-alloc-buffer",
      "bumper-slab",
      "cpp-arena",
      "blink-alloc",
      "llvm-bump-ptr",
      "pmr-monotonic",
      "zig-arena",
      "zig-fixed-buffer",
    ],
  },
];

/** What the Capacity knob sets, per preset (others: the generic text). */
const CAPACITY_HELP: Record<string, string> = {
  "fitzgen-down": "Capacity: the one fixed chunk's usable bytes (default 256).",
  "hinckley-up-naive": "Capacity: the one fixed chunk's usable bytes (default 256).",
  "hinckley-up": "Capacity: the one fixed chunk's usable bytes (default 256).",
  "up-min-align": "Capacity: the one fixed chunk's usable bytes (default 256).",
  "down-min-align": "Capacity: the one fixed chunk's usable bytes (default 256).",
  bumpalo: "Capacity: the first chunk's size, as Bump::with_capacity (default: none until the first allocation, then 448 bytes).",
  "bump-scope-up": "Capacity: the first chunk's size (default 464 usable bytes).",
  "bump-scope-down": "Capacity: the first chunk's size (default 464 usable bytes).",
  "bumper-alloc-buffer": "Capacity: the buffer's size (default 1 MiB).",
  "bumper-slab": "Capacity: each slab's size (default 1 MiB).",
  "cpp-arena": "Capacity: the arena's pool size cap; a pool is at least twice it (default 1024).",
  "blink-alloc": "Capacity: with_chunk_size, the size chunks start from (default 256).",
  "llvm-bump-ptr": "Capacity: SlabSize, each slab's size and the custom-slab threshold (default 4096).",
  "pmr-monotonic": "Capacity: initial_size, the first buffer's size; each next one is 1.5 times the last (default 1024).",
  "zig-arena": "Capacity: reset's limit, .retain_with_limit (default: .retain_capacity, no limit).",
  "zig-fixed-buffer": "Capacity: the buffer's size (default 4096).",
};

export function capacityHelp(allocator: string): string {
  return CAPACITY_HELP[allocator] ?? "Capacity: the preset's size setting (default: the preset's own).";
}

function capacityText(c: number): string {
  return c === MIB ? "1 MiB" : `${c} bytes`;
}

/** Allocators grouped for the chooser: known groups in order, then "Other". */
export function groupAllocators(allocators: readonly AllocatorInfo[]): { label: string; items: AllocatorInfo[] }[] {
  const groups = ALLOCATOR_GROUPS.map((g) => ({
    label: g.label,
    items: g.names.flatMap((n) => allocators.filter((a) => a.name === n)),
  }));
  const known = new Set(ALLOCATOR_GROUPS.flatMap((g) => g.names));
  groups.push({ label: "Other", items: allocators.filter((a) => !known.has(a.name)) });
  return groups.filter((g) => g.items.length > 0);
}

/** The error as the editor shows it: `line:column: message`, as the engine prints it. */
export function formatError(error: ProgramError): string {
  return `${error.line}:${error.column}: ${error.message}`;
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

/** One entry of the Programs menu and what choosing it does. */
type MenuAction = { kind: "program"; source: () => string } | { kind: "lesson"; id: string } | { kind: "randomMix" };

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

interface Refs {
  textarea: HTMLTextAreaElement;
  gutter: HTMLElement;
  mirror: HTMLElement;
  error: HTMLElement;
  allocator: HTMLSelectElement;
  description: HTMLElement;
  more: HTMLButtonElement;
  target: HTMLSelectElement;
  capacity: HTMLSelectElement;
  capacityHelp: HTMLElement;
  minAlign: HTMLSelectElement;
  minAlignField: HTMLElement;
  lessonsGroup: HTMLElement;
  menuActions: Map<HTMLElement, MenuAction>;
  /** Gutter state last drawn: line count, current line, error line. */
  marks: string;
  /** The mirror's line elements and what each was drawn from. */
  mirrorLines: HTMLElement[];
  mirrorKeys: string[];
  /** The error and current line last rendered, for repainting while typing. */
  shownError: ProgramError | null;
  shownCurrent: number | null;
  lessonKey: string;
}

const views = new WeakMap<HTMLElement, Refs>();

/** One line of the mirror: coloured tokens, the error marker, the current-op shading. */
function mirrorLine(text: string, line: number, errorColumn: number | null, current: boolean): HTMLElement {
  const tokens = tokenizeLine(text);
  const marked = errorColumn === null ? null : errorTokenIndex(tokens, errorColumn);
  const el = h("span", { class: current ? "code-line is-current" : "code-line", "data-line": line });
  tokens.forEach((t, k) => {
    if (t.kind === "space") {
      el.append(t.text);
      return;
    }
    const span = h("span", { class: `tok tok-${t.kind}` }, t.text);
    if (k === marked) {
      span.classList.add("is-error");
      span.dataset["errorColumn"] = String(errorColumn);
    }
    el.append(span);
  });
  // Past the last character (e.g. "found the end of the line"): mark one blank cell.
  if (marked === "end") el.append(h("span", { class: "tok-eol is-error", "data-error-column": errorColumn }, " "));
  return el;
}

function paintMirror(refs: Refs, source: string): void {
  const lines = source.split("\n");
  const error = refs.shownError;
  lines.forEach((text, i) => {
    const n = i + 1;
    const errorColumn = error && error.line === n ? error.column : null;
    const current = n === refs.shownCurrent && !error;
    const key = `${errorColumn ?? ""}|${current ? 1 : 0}|${text}`;
    if (refs.mirrorKeys[i] === key) return;
    const el = mirrorLine(text, n, errorColumn, current);
    const old = refs.mirrorLines[i];
    if (old) old.replaceWith(el);
    else refs.mirror.append(el);
    refs.mirrorLines[i] = el;
    refs.mirrorKeys[i] = key;
  });
  for (const el of refs.mirrorLines.splice(lines.length)) el.remove();
  refs.mirrorKeys.length = lines.length;
}

function paintGutter(refs: Refs, source: string): void {
  const lines = Math.max(1, source.split("\n").length);
  const errorLine = refs.shownError?.line ?? null;
  const marks = `${lines}|${refs.shownCurrent ?? ""}|${errorLine ?? ""}`;
  if (marks === refs.marks) return;
  refs.marks = marks;
  const items: HTMLElement[] = [];
  for (let n = 1; n <= lines; n++) {
    const cls = ["ln"];
    if (n === refs.shownCurrent && errorLine === null) cls.push("is-current");
    if (n === errorLine) cls.push("is-error");
    items.push(h("span", { class: cls.join(" ") }, String(n)));
  }
  refs.gutter.replaceChildren(...items);
  refs.gutter.style.setProperty("--digits", String(String(lines).length));
}

/** The gutter and the mirror follow the textarea's scroll position. */
function syncScroll(refs: Refs): void {
  refs.gutter.scrollTop = refs.textarea.scrollTop;
  refs.mirror.scrollTop = refs.textarea.scrollTop;
  refs.mirror.scrollLeft = refs.textarea.scrollLeft;
}

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

function build(container: HTMLElement, handlers: EditorHandlers): Refs {
  const textarea = h("textarea", {
    id: "program",
    class: "program-input",
    spellcheck: "false",
    autocapitalize: "off",
    autocomplete: "off",
    wrap: "off",
    rows: 12,
    "aria-describedby": "program-error program-help",
  });
  const gutter = h("div", { class: "gutter", "aria-hidden": "true" });
  // The mirror repeats the text: hidden from assistive tech, which reads the textarea.
  const mirror = h("pre", { class: "code-mirror", "aria-hidden": "true" });
  const error = h("p", { id: "program-error", class: "program-error", role: "alert" });
  const allocator = h("select", { id: "allocator" });
  const description = h("p", { id: "allocator-description", class: "field-help is-clamped" });
  allocator.setAttribute("aria-describedby", description.id);
  // Long descriptions show their first lines; the button shows the rest.
  const more = h("button", { type: "button", class: "link-button", "aria-controls": description.id, "aria-expanded": "false" }, "more");
  more.addEventListener("click", () => {
    const clamped = description.classList.toggle("is-clamped");
    more.setAttribute("aria-expanded", clamped ? "false" : "true");
    more.textContent = clamped ? "more" : "less";
  });
  const target = h(
    "select",
    { id: "target" },
    h("option", { value: "64" }, "64-bit"),
    h("option", { value: "wasm32" }, "wasm32"),
  );
  const capacityHelp = h("p", { id: "capacity-help", class: "field-help" });
  const capacity = h(
    "select",
    { id: "capacity", "aria-describedby": capacityHelp.id },
    h("option", { value: "" }, "default"),
    ...CAPACITIES.map((c) => h("option", { value: c }, capacityText(c))),
  );
  const minAlign = h("select", { id: "min-align" });
  const minAlignField = h("div", { class: "field field-inline" }, h("label", { for: "min-align" }, "Minimum alignment"), minAlign);

  // --- Programs menu --------------------------------------------------------
  const menuActions = new Map<HTMLElement, MenuAction>();
  const entryItems = (entries: readonly ProgramEntry[]): HTMLElement[] =>
    entries.map((e) => {
      const item = menuItem(e.id, e.title, e.summary);
      menuActions.set(item, { kind: "program", source: e.source });
      return item;
    });
  const mixItem = menuItem("random-mix", "Random mix…", "A seeded mix of allocs, reallocs and frees: choose the ranges.");
  menuActions.set(mixItem, { kind: "randomMix" });
  const lessonsGroup = menuGroup("Lessons", []);
  lessonsGroup.hidden = true;
  const menuButton = h(
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
    menuGroup("Generators", [...entryItems(GENERATORS), mixItem]),
  );
  const programs = h("div", { class: "programs" }, menuButton, menu);

  // --- Random mix form ------------------------------------------------------
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

  const refs: Refs = {
    textarea,
    gutter,
    mirror,
    error,
    allocator,
    description,
    more,
    target,
    capacity,
    capacityHelp,
    minAlign,
    minAlignField,
    lessonsGroup,
    menuActions,
    marks: "",
    mirrorLines: [],
    mirrorKeys: [],
    shownError: null,
    shownCurrent: null,
    lessonKey: "",
  };

  /**
   * Replaces the whole program as an edit of the textarea, so Undo brings
   * back the text it replaced; the input event sends it on to onSource.
   */
  const loadProgram = (text: string): void => {
    textarea.focus();
    textarea.select();
    // execCommand is the one way to edit a textarea that keeps the native undo stack.
    const edited = document.execCommand("insertText", false, text);
    if (!edited || textarea.value !== text) {
      textarea.value = text;
      handlers.onConfigure({ source: text });
    }
    textarea.setSelectionRange(0, 0);
    textarea.scrollTop = 0;
    textarea.scrollLeft = 0;
    paintMirror(refs, textarea.value);
    paintGutter(refs, textarea.value);
    syncScroll(refs);
  };

  const items = (): HTMLButtonElement[] =>
    Array.from(menu.querySelectorAll<HTMLButtonElement>('[role="menuitem"]')).filter((el) => !el.closest("[hidden]"));
  const isOpen = (): boolean => !menu.hidden;
  const openMenu = (focus: "first" | "last"): void => {
    menu.hidden = false;
    menuButton.setAttribute("aria-expanded", "true");
    const all = items();
    all[focus === "first" ? 0 : all.length - 1]?.focus();
  };
  const closeMenu = (returnFocus: boolean): void => {
    if (!isOpen()) return;
    menu.hidden = true;
    menuButton.setAttribute("aria-expanded", "false");
    if (returnFocus) menuButton.focus();
  };

  const closeMix = (): void => {
    mixForm.hidden = true;
    menuButton.focus();
  };
  const openMix = (): void => {
    mixForm.hidden = false;
    mixInputs.get("ops")?.focus();
    mixInputs.get("ops")?.select();
  };

  const choose = (item: HTMLElement): void => {
    const action = menuActions.get(item);
    if (!action) return;
    closeMenu(true);
    if (action.kind === "program") {
      mixForm.hidden = true;
      loadProgram(action.source());
    } else if (action.kind === "lesson") {
      mixForm.hidden = true;
      handlers.onLesson?.(action.id);
    } else {
      openMix();
    }
  };

  menuButton.addEventListener("click", () => (isOpen() ? closeMenu(true) : openMenu("first")));
  menuButton.addEventListener("keydown", (event) => {
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
    for (const { field } of MIX_FIELDS) {
      const el = mixInputs.get(field);
      const message = bad.get(field);
      if (!el) continue;
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
    loadProgram(randomMix(result.options));
  });
  mixForm.querySelector(".mix-cancel")?.addEventListener("click", closeMix);
  mixForm.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    event.preventDefault();
    closeMix();
  });

  // --- Editing ----------------------------------------------------------------
  textarea.addEventListener("input", () => {
    // Paint now, not on the next render, so the coloured text never lags the caret.
    paintMirror(refs, textarea.value);
    paintGutter(refs, textarea.value);
    handlers.onConfigure({ source: textarea.value });
  });
  textarea.addEventListener("scroll", () => syncScroll(refs));
  allocator.addEventListener("change", () => handlers.onConfigure({ allocator: allocator.value }));
  target.addEventListener("change", () => handlers.onConfigure({ target: target.value === "wasm32" ? "wasm32" : "64" }));
  capacity.addEventListener("change", () => handlers.onConfigure({ capacity: capacity.value === "" ? null : Number(capacity.value) }));
  minAlign.addEventListener("change", () => handlers.onConfigure({ minAlign: minAlign.value === "" ? null : Number(minAlign.value) }));

  const syntax: [string, string][] = [
    ["a = alloc 24 align 8", "24 bytes, aligned to 8"],
    ["b = alloc u64", "a type: its size and alignment"],
    ["c = alloc [u32; 17]", "an array of a type"],
    ["a = realloc a 64", "grow: allocates anew and copies"],
    ["free b", "bump allocators cannot reuse it"],
    ["checkpoint s / restore s", "save and rewind the pointer"],
    ["reset", "reclaim everything"],
    ["repeat 3 { … }", "run a block of lines again"],
    ["# note", "a comment (#> narrates a lesson)"],
  ];

  container.replaceChildren(
    h(
      "div",
      { class: "field" },
      h("div", { class: "field-head program-head" }, h("label", { for: "program", class: "panel-title" }, "Program"), programs),
      mixForm,
      h("div", { class: "editor" }, gutter, h("div", { class: "code-area" }, mirror, textarea)),
      error,
      h("span", { class: "field-hint", id: "program-help" }, "Edits re-run as you type"),
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: "allocator" }, "Allocator"),
      allocator,
      description,
      more,
    ),
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: "target" }, "Target"), target),
      h("div", { class: "field" }, h("label", { for: "capacity" }, "Capacity"), capacity),
    ),
    h("div", { class: "field capacity-help" }, capacityHelp),
    minAlignField,
    h(
      "details",
      { class: "syntax" },
      h("summary", {}, "Program syntax"),
      h(
        "dl",
        {},
        ...syntax.flatMap(([code, text]) => [h("dt", {}, h("code", {}, code)), h("dd", {}, text)]),
      ),
    ),
  );
  return refs;
}

export function renderEditor(container: HTMLElement, data: EditorData, handlers: EditorHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  const { textarea, error, allocator, description, target, capacity, minAlign } = refs;

  const { config } = data;
  if (textarea.value !== config.source && document.activeElement !== textarea) textarea.value = config.source;

  // Mirror and gutter: the text in the textarea (what is on screen), the
  // error at its line and column, the op in view.
  refs.shownError = data.error;
  refs.shownCurrent = data.currentLine;
  paintMirror(refs, textarea.value);
  paintGutter(refs, textarea.value);
  syncScroll(refs);

  textarea.setAttribute("aria-invalid", data.error ? "true" : "false");
  setText(error, data.error ? formatError(data.error) : "");
  error.classList.toggle("is-empty", !data.error);

  // Lessons, when the app has them, head the Programs menu.
  const lessons = data.lessons ?? [];
  const lessonKey = lessons.map((l) => `${l.id}\u0000${l.title}\u0000${l.summary}`).join("\u0001");
  if (lessonKey !== refs.lessonKey) {
    refs.lessonKey = lessonKey;
    for (const el of refs.lessonsGroup.querySelectorAll('[role="menuitem"]')) {
      refs.menuActions.delete(el as HTMLElement);
      el.remove();
    }
    for (const lesson of lessons) {
      const item = menuItem(`lesson-${lesson.id}`, lesson.title, lesson.summary);
      refs.menuActions.set(item, { kind: "lesson", id: lesson.id });
      refs.lessonsGroup.append(item);
    }
    refs.lessonsGroup.hidden = lessons.length === 0;
  }

  const names = data.allocators.map((a) => a.name).join(",");
  if (allocator.dataset["names"] !== names) {
    allocator.dataset["names"] = names;
    allocator.replaceChildren(
      ...groupAllocators(data.allocators).map((g) =>
        h(
          "optgroup",
          { label: g.label },
          ...g.items.map((a) => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`)),
        ),
      ),
    );
  }
  if (allocator.value !== config.allocator) allocator.value = config.allocator;
  const info = data.allocators.find((a) => a.name === config.allocator);
  if (description.textContent !== (info?.description ?? "")) {
    description.textContent = info?.description ?? "";
    description.classList.add("is-clamped");
    refs.more.setAttribute("aria-expanded", "false");
    refs.more.textContent = "more";
  }
  // Offer the rest only when the clamp hides some of it.
  refs.more.hidden = description.classList.contains("is-clamped") && description.scrollHeight <= description.clientHeight + 1;
  if (target.value !== config.target) target.value = config.target;
  const cap = config.capacity === null ? "" : String(config.capacity);
  if (capacity.value !== cap) capacity.value = cap;
  setText(refs.capacityHelp, capacityHelp(config.allocator));

  // Minimum alignment: only for presets that have the setting.
  const aligns = info?.minAligns ?? [];
  refs.minAlignField.hidden = aligns.length === 0;
  const alignKey = aligns.join(",");
  if (minAlign.dataset["aligns"] !== alignKey) {
    minAlign.dataset["aligns"] = alignKey;
    minAlign.replaceChildren(
      ...aligns.map((a, i) => h("option", { value: a }, i === 0 ? `${a} (default)` : String(a))),
    );
  }
  const align = String(config.minAlign ?? aligns[0] ?? "");
  if (aligns.length > 0 && minAlign.value !== align) minAlign.value = align;
}
