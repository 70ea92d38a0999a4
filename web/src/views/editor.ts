// The program editor and the run settings. The program is edited in a
// CodeMirror editor (views/program/), which draws only the lines in view:
// any program up to the engine's limits is editable, a recording of a
// million lines included. Its errors are lint diagnostics at their line and
// column and a list under it; the op in view marks its line.
//
// A program also opens from a file (the "Open file…" button, or a file
// dropped anywhere on the page) or a paste, as an edit of the text (Undo
// brings back the program it replaced). One over the engine's limit is
// refused before anything runs, saying its size and the limit, and the
// program on screen stays. A long program's text is handed on only once
// typing pauses (LONG_EDIT_PAUSE_MS): reading a million lines out of the
// editor at every keystroke would cost more than the keystroke. A paste, a
// drop or an undo is handed on at once: no more keys are coming.

import type { RunConfig } from "../wasm/config";
import { allErrors } from "../wasm/errors";
import type { AllocatorInfo, ProgramError } from "../wasm/types";
import { normalizeNewlines } from "../model/format";
import { sourceTooLarge, utf8Bytes, megabytes } from "../model/limits";
import { capacityHelp, fillAllocators } from "./allocatorMenu";
import { showCapacity } from "./capacitySelect";
import { childText } from "../model/settings";
import { h, setText } from "./dom";
import { createProgramEditor, type ProgramEditor } from "./program/editor";
import { PARSE_IN_WORKER_CHARS } from "../wasm/parseWorkerClient";
import { programMenu, type LessonEntry } from "./programMenu";
import "./editor.css";

export interface EditorData {
  /** The run as configured (its source as typed). */
  config: RunConfig;
  allocators: readonly AllocatorInfo[];
  error: ProgramError | null;
  /** Program line of the op in view, marked in the gutter. */
  currentLine: number | null;
  /** Lessons listed in the Programs menu (none: no Lessons group). */
  lessons?: readonly LessonEntry[];
  /** Ops the program runs, once traced (a long program's header says it). */
  ops?: number | null;
}

export interface EditorHandlers {
  /** The program typed, or a preset or setting chosen. */
  onConfigure(change: Partial<RunConfig>): void;
  /**
   * Keys are being typed into a long program whose edit waits for the typing
   * to pause: the run under way, of the text before them, should stop.
   */
  onTyping?(): void;
  /** A lesson was chosen in the Programs menu: load its program and preset. */
  onLesson?(id: string): void;
  /** A known behaviour was chosen: load its program on its allocators. */
  onGallery?(id: string): void;
}

const MIB = 1024 * 1024;

/**
 * Lines past which an edit is handed on only once typing pauses this long
 * (ms). A typist's keys come 100 to 250 ms apart, and a long program's run
 * holds the page's thread for a few hundred ms in its parts that are not
 * sliced (the view of its columns built, the map's first index), so it
 * starts once the typing has stopped, not between two keys of a word.
 */
export const LONG_PROGRAM_LINES = 20_000;
export const LONG_EDIT_PAUSE_MS = 400;

/** The error as the editor shows it: `line:column: message`, as the engine prints it. */
export function formatError(error: ProgramError): string {
  return `${error.line}:${error.column}: ${error.message}`;
}

const SYNTAX: readonly [string, string][] = [
  ["a = alloc 24 align 8", "24 bytes, aligned to 8"],
  ["b = alloc u64", "a type: its size and alignment"],
  ["c = alloc [u32; 17]", "an array of a type"],
  ["a = realloc a 64", "resize: in place or moved with a copy"],
  ["free b", "bump allocators cannot reuse it"],
  ["checkpoint s / restore s", "save and rewind the pointer"],
  ["reset", "reclaim everything"],
  ["repeat 3 { … }", "run a block of lines again"],
  ["# note", "a comment (#> narrates a lesson)"],
];

/** The error list: one button per error, each moving the caret to its place. */
function renderErrors(list: HTMLElement, error: ProgramError | null, editor: ProgramEditor): void {
  const errors = error ? allErrors(error) : [];
  const key = JSON.stringify(errors);
  if (list.dataset["key"] === key) return;
  list.dataset["key"] = key;
  list.classList.toggle("is-empty", errors.length === 0);
  const items = errors.map((e) => {
    const button = h("button", { type: "button", class: "program-error-item", title: `Move the caret to line ${e.line}` }, formatError(e));
    button.addEventListener("click", () => editor.goTo(e));
    return h("li", {}, button);
  });
  const count = errors.length > 1 ? [h("p", { class: "program-error-count" }, `${errors.length} errors`)] : [];
  list.replaceChildren(...count, ...(items.length > 0 ? [h("ul", { class: "program-error-list" }, ...items)] : []));
}

type Refs = ReturnType<typeof build>;
const views = new WeakMap<HTMLElement, Refs>();

/** Builds the editor in `container`; returns what rendering updates. */
function build(container: HTMLElement, handlers: EditorHandlers) {
  const error = h("div", { id: "program-error", class: "program-error is-empty", role: "alert" });
  const hint = h("span", { class: "field-hint", id: "program-help" }, "Edits re-run as you type");
  const label = h("label", { id: "program-label", for: "program", class: "panel-title" }, "Program");
  const area = h("div", { class: "editor" });

  // What the editor last handed on (or was given): a render whose source is
  // this leaves the text alone, so no million-line comparison is made.
  let reported = "";
  let pending: ReturnType<typeof setTimeout> | undefined;
  let read: (() => string) | null = null;
  /** Hands `text` on as the program, and drops any edit still waiting. */
  const handOnText = (text: string): void => {
    clearTimeout(pending);
    pending = undefined;
    read = null;
    reported = text;
    handlers.onConfigure({ source: text });
  };
  const handOn = (): void => {
    if (read) handOnText(read());
    else {
      clearTimeout(pending);
      pending = undefined;
    }
  };
  // Set while the editor takes a text already handed on: its change is not another edit.
  let taking = false;
  const editor = createProgramEditor(area, {
    id: "program",
    labelledBy: label.id,
    describedBy: `${error.id} ${hint.id}`,
    onChange(text, lines, typing) {
      if (taking) return;
      read = text;
      clearTimeout(pending);
      if (typing && lines > LONG_PROGRAM_LINES) {
        pending = setTimeout(handOn, LONG_EDIT_PAUSE_MS);
        handlers.onTyping?.();
      } else handOn();
    },
  });
  // The label is not a form control's: clicking it focuses the editor as it would one.
  label.addEventListener("click", (event) => {
    event.preventDefault();
    editor.view.focus();
  });

  const allocator = h("select", { id: "allocator" });
  const description = h("p", { id: "allocator-description", class: "field-help is-clamped" });
  allocator.setAttribute("aria-describedby", description.id);
  // Long descriptions show their first lines; the button shows the rest.
  const more = h("button", { type: "button", class: "link-button", "aria-controls": description.id, "aria-expanded": "false" }, "more");
  /** Clamps the description to its first lines, or shows it whole. */
  const clampDescription = (clamped: boolean): void => {
    description.classList.toggle("is-clamped", clamped);
    more.setAttribute("aria-expanded", clamped ? "false" : "true");
    more.textContent = clamped ? "more" : "less";
  };
  more.addEventListener("click", () => clampDescription(!description.classList.contains("is-clamped")));
  const target = h(
    "select",
    { id: "target" },
    h("option", { value: "64" }, "64-bit"),
    h("option", { value: "wasm32" }, "wasm32"),
  );
  const capacityHelpText = h("p", { id: "capacity-help", class: "field-help" });
  const capacity = h(
    "select",
    { id: "capacity", "aria-describedby": capacityHelpText.id },
  );
  const minAlign = h("select", { id: "min-align" });
  const minAlignField = h("div", { class: "field field-inline" }, h("label", { for: "min-align" }, "Minimum alignment"), minAlign);
  const child = h("select", { id: "child" });
  // "Child", as the preset's description names it ("Child: …"): a label
  // with "allocator" in it would share its accessible name with "Allocator".
  const childField = h("div", { class: "field field-inline" }, h("label", { for: "child" }, "Child"), child);

  /**
   * Replaces the whole program as one edit of the editor, so Undo brings
   * back the text it replaced. A long one is handed on first and taken by
   * the editor in the next task: its parse in the worker then goes on while
   * the editor builds its lines, instead of after.
   */
  const loadProgram = (text: string): void => {
    if (text.length < PARSE_IN_WORKER_CHARS) {
      editor.replace(text);
      handOn();
      return;
    }
    handOnText(text);
    setTimeout(() => {
      taking = true;
      try {
        editor.replace(text);
      } finally {
        taking = false;
      }
    }, 0);
  };
  const menu = programMenu(
    loadProgram,
    (id) => handlers.onLesson?.(id),
    (id) => handlers.onGallery?.(id),
  );

  // ---- Opening a program from a file or a paste ----
  const importStatus = h("p", { id: "program-import-status", class: "program-import-status", role: "status" });
  const say = (text: string, refused: boolean): void => {
    importStatus.textContent = text;
    importStatus.classList.toggle("is-refused", refused);
  };
  /**
   * Opens `text` as the program (`from` names where it came from), or says
   * why not; `also` is said after, a note about how it was opened.
   */
  const openText = (raw: string, from: string, also = ""): void => {
    const bytes = utf8Bytes(raw);
    const why = sourceTooLarge(bytes);
    if (why !== null) {
      say(`${from} was not opened: ${why}. The program on screen is unchanged.${also}`, true);
      return;
    }
    // A file's line endings as a paste's: the editor makes each \r\n or lone \r a \n.
    const text = normalizeNewlines(raw);
    say(bytes >= MIB ? `Opened ${from} (${megabytes(bytes)}).${also}` : `Opened ${from}.${also}`, false);
    loadProgram(text);
  };
  /** Opens a file's text; its size is checked before any of it is read. */
  const openFile = async (file: File, also = ""): Promise<void> => {
    const why = sourceTooLarge(file.size);
    if (why !== null) {
      say(`${file.name} was not opened: ${why}. The program on screen is unchanged.`, true);
      return;
    }
    say(`Reading ${file.name}…${also}`, false);
    let text: string;
    try {
      text = await file.text();
    } catch (error: unknown) {
      say(`${file.name} could not be read (${error instanceof Error ? error.message : String(error)}). The program on screen is unchanged.${also}`, true);
      return;
    }
    openText(text, file.name, also);
  };
  const fileInput = h("input", { type: "file", id: "program-file", class: "visually-hidden", accept: ".txt,.bump,text/plain", tabindex: -1, "aria-hidden": "true" });
  fileInput.addEventListener("change", () => {
    const file = fileInput.files?.[0];
    // Cleared so choosing the same file again (edited since) opens it again.
    fileInput.value = "";
    if (file) void openFile(file);
  });
  const openButton = h("button", { type: "button", class: "programs-button open-file-button", "aria-describedby": importStatus.id }, "Open file…");
  openButton.addEventListener("click", () => fileInput.click());
  // A paste the engine would refuse is refused here, before the editor takes it.
  editor.view.contentDOM.addEventListener(
    "paste",
    (event) => {
      const text = event.clipboardData?.getData("text/plain") ?? "";
      const why = sourceTooLarge(utf8Bytes(text));
      if (why === null) return;
      event.preventDefault();
      event.stopPropagation();
      say(`The pasted program was not opened: ${why}. The program on screen is unchanged.`, true);
    },
    { capture: true },
  );
  // A file dragged anywhere over the page shows where it goes; dropped, it opens.
  const dropTarget = h("div", { class: "drop-target", hidden: true }, h("p", { class: "drop-target-text" }, "Drop a program file to open it"));
  let dragDepth = 0;
  const carriesFiles = (event: DragEvent): boolean => event.dataTransfer?.types.includes("Files") ?? false;
  const endDrag = (): void => {
    dragDepth = 0;
    dropTarget.hidden = true;
  };
  document.addEventListener("dragenter", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    dragDepth++;
    dropTarget.hidden = false;
  });
  document.addEventListener("dragover", (event) => {
    if (!carriesFiles(event)) return;
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = "copy";
    dropTarget.hidden = false;
  });
  document.addEventListener("dragleave", (event) => {
    if (!carriesFiles(event)) return;
    dragDepth = Math.max(0, dragDepth - 1);
    if (dragDepth === 0) dropTarget.hidden = true;
  });
  document.addEventListener(
    "drop",
    (event) => {
      if (!carriesFiles(event)) return;
      // Not the browser's own drop (opening the file as a page), nor the
      // editor's (the file's name as text).
      event.preventDefault();
      event.stopPropagation();
      endDrag();
      const files = event.dataTransfer?.files;
      const file = files?.[0];
      if (!file) return;
      // Said with every message the opening gives, so "Opened a.txt." cannot replace it.
      void openFile(file, files.length > 1 ? ` Only one program opens at a time: ${file.name}, the first of ${files.length}.` : "");
    },
    { capture: true },
  );
  document.addEventListener("dragend", endDrag);
  document.body.append(dropTarget);

  allocator.addEventListener("change", () => handlers.onConfigure({ allocator: allocator.value }));
  target.addEventListener("change", () => handlers.onConfigure({ target: target.value === "wasm32" ? "wasm32" : "64" }));
  capacity.addEventListener("change", () => handlers.onConfigure({ capacity: capacity.value === "" ? null : Number(capacity.value) }));
  minAlign.addEventListener("change", () => handlers.onConfigure({ minAlign: minAlign.value === "" ? null : Number(minAlign.value) }));
  child.addEventListener("change", () => handlers.onConfigure({ child: child.value === "" ? null : child.value }));

  container.replaceChildren(
    h(
      "div",
      { class: "field" },
      h("div", { class: "field-head program-head" }, label, h("div", { class: "program-actions" }, openButton, fileInput, menu.programs)),
      menu.mixForm,
      importStatus,
      area,
      error,
      hint,
    ),
    h("div", { class: "field" }, h("label", { for: "allocator" }, "Allocator"), allocator, description, more),
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: "target" }, "Target"), target),
      h("div", { class: "field" }, h("label", { for: "capacity" }, "Capacity"), capacity),
    ),
    h("div", { class: "field capacity-help" }, capacityHelpText),
    minAlignField,
    childField,
    h(
      "details",
      { class: "syntax" },
      h("summary", {}, "Program syntax"),
      h("dl", {}, ...SYNTAX.flatMap(([text, meaning]) => [h("dt", {}, h("code", {}, text)), h("dd", {}, meaning)])),
    ),
  );
  const source = {
    /** Whether an edit waits to be handed on. */
    pending: () => read !== null,
    /** Sets the editor's text to the state's, unless it is what the editor last handed on. */
    sync(text: string): void {
      if (text === reported || read !== null) return;
      reported = text;
      editor.replace(text, { undoable: false });
    },
  };
  return { editor, source, menu, error, allocator, description, more, clampDescription, target, capacity, capacityHelp: capacityHelpText, minAlign, minAlignField, child, childField };
}

export function renderEditor(container: HTMLElement, data: EditorData, handlers: EditorHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  const { editor, error } = refs;
  refs.source.sync(data.config.source);
  editor.show(data.error, data.currentLine);
  editor.view.contentDOM.setAttribute("aria-invalid", data.error ? "true" : "false");
  renderErrors(error, data.error, editor);
  renderSettings(refs, data);
}

/** The Programs menu's lessons and the run settings under the program. */
function renderSettings(refs: Refs, data: EditorData): void {
  const { allocator, description, target, capacity, minAlign } = refs;
  const { config } = data;
  refs.menu.setLessons(data.lessons ?? []);

  fillAllocators(allocator, data.allocators);
  if (allocator.value !== config.allocator) allocator.value = config.allocator;
  const info = data.allocators.find((a) => a.name === config.allocator);
  if (description.textContent !== (info?.description ?? "")) {
    description.textContent = info?.description ?? "";
    refs.clampDescription(true);
  }
  // Offer the rest only when the clamp hides some of it.
  refs.more.hidden = description.classList.contains("is-clamped") && description.scrollHeight <= description.clientHeight + 1;
  if (target.value !== config.target) target.value = config.target;
  showCapacity(capacity, config.capacity);
  setText(refs.capacityHelp, capacityHelp(config.allocator, data.allocators));

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

  // Child allocator: only for presets that take one.
  const children = info?.children ?? [];
  refs.childField.hidden = children.length === 0;
  const childKey = children.join(",");
  if (refs.child.dataset["children"] !== childKey) {
    refs.child.dataset["children"] = childKey;
    refs.child.replaceChildren(...children.map((c, i) => h("option", { value: c }, i === 0 ? `${childText(c)} (default)` : childText(c))));
  }
  const chosen = config.child ?? children[0] ?? "";
  if (children.length > 0 && refs.child.value !== chosen) refs.child.value = chosen;
}
