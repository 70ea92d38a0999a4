// The program editor and the run settings. The textarea is the one place the
// program text is typed, so rendering never rewrites it while it has focus.
// Highlighting is a mirror: the textarea's text is transparent and a <pre>
// behind it, with the same font and padding, draws the coloured tokens and
// the error marker. The textarea keeps native editing, undo and its label.
//
// A program also opens from a file (the "Open file…" button, or a file
// dropped anywhere on the page) or a paste. One longer than
// EDITABLE_SOURCE_CHARS (a recording of a real program: a million ops is
// about 20 MB) is not drawn line by line: the editor shows its size and
// first lines, read-only, and the run takes the text as it is. One over the
// engine's limit is refused before anything runs, saying its size and the
// limit, and the program on screen stays.

import type { RunConfig } from "../engine/config";
import { allErrors } from "../engine/errors";
import type { AllocatorInfo, ProgramError } from "../engine/types";
import { normalizeNewlines } from "../model/format";
import { errorTokenIndex, tokenizeLine } from "../model/highlight";
import { EDITABLE_SOURCE_CHARS, megabytes, sourceTooLarge, utf8Bytes } from "../model/limits";
import { childText } from "../model/settings";
import { h, setText } from "./dom";
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
  /** A lesson was chosen in the Programs menu: load its program and preset. */
  onLesson?(id: string): void;
  /** A known behaviour was chosen: load its program on its allocators. */
  onGallery?(id: string): void;
}

const MIB = 1024 * 1024;
const CAPACITIES = [64, 128, 256, 512, 1024, 2048, 4096, MIB] as const;

const SEED_ALGORITHMS = ["fitzgen-down", "hinckley-up-naive", "hinckley-up", "up-min-align", "down-min-align"];

/** The chooser's groups, in order; presets not listed go to a last "Other" group. */
const ALLOCATOR_GROUPS: readonly { label: string; names: readonly string[] }[] = [
  { label: "Seed algorithms (one fixed chunk)", names: SEED_ALGORITHMS },
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

/** What the Capacity knob sets, per library preset (the seed algorithms share one text). */
const CAPACITY_HELP: Record<string, string> = {
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
  if (SEED_ALGORITHMS.includes(allocator)) return "Capacity: the one fixed chunk's usable bytes (default 256).";
  return CAPACITY_HELP[allocator] ?? "Capacity: the preset's size setting (default: the preset's own).";
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

/** Lists the presets in an allocator menu by family, unless it already lists exactly these. */
export function fillAllocators(select: HTMLSelectElement, allocators: readonly AllocatorInfo[]): void {
  const names = allocators.map((a) => `${a.name}:${a.direction}`).join(",");
  if (select.dataset["names"] === names) return;
  select.dataset["names"] = names;
  const option = (a: AllocatorInfo): HTMLOptionElement => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`);
  select.replaceChildren(...groupAllocators(allocators).map((g) => h("optgroup", { label: g.label }, ...g.items.map(option))));
}

/** The error as the editor shows it: `line:column: message`, as the engine prints it. */
export function formatError(error: ProgramError): string {
  return `${error.line}:${error.column}: ${error.message}`;
}

/** The column to mark on each line that has an error (one a line, the first). */
export function errorColumns(error: ProgramError | null): Map<number, number> {
  const columns = new Map<number, number>();
  if (error) for (const e of allErrors(error)) if (!columns.has(e.line)) columns.set(e.line, e.column);
  return columns;
}

/**
 * The textarea offset (UTF-16 units) of 1-based `line` and `column`, where
 * the engine counts columns in characters; clamped to the text.
 */
export function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split("\n");
  let offset = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length - 1); i++) offset += (lines[i] ?? "").length + 1;
  const chars = Array.from(lines[Math.min(line, lines.length) - 1] ?? "");
  return offset + chars.slice(0, Math.max(0, column - 1)).join("").length;
}

/**
 * The scrollTop that shows 1-based `line` in a box of `height` pixels
 * scrolled to `scrollTop`: unchanged when the line is in view already, else
 * the line a third of the way down, so a few lines before it show too.
 */
export function scrollToShow(line: number, scrollTop: number, height: number, lineHeight: number, padTop: number): number {
  const top = padTop + (line - 1) * lineHeight;
  if (top >= scrollTop && top + lineHeight <= scrollTop + height) return scrollTop;
  return Math.max(0, Math.round(top - height / 3));
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

/** The textarea, the gutter and mirror drawn from it, and what they last drew. */
interface Code {
  textarea: HTMLTextAreaElement;
  gutter: HTMLElement;
  mirror: HTMLElement;
  /** The errors' columns by line and the current line to mark, kept so typing repaints them without a render. */
  errors: Map<number, number>;
  current: number | null;
  /** The current line the textarea last scrolled to show. */
  shown: number | null;
  /** Gutter state last drawn: line count, current line, error line. */
  marks: string;
  /** The mirror's line elements and what each was drawn from. */
  lines: HTMLElement[];
  keys: string[];
}

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

/** Redraws the mirror lines whose text or marks changed, and the gutter when its marks did. */
function paint(code: Code): void {
  const lines = code.textarea.value.split("\n");
  const { errors, current } = code;
  const failed = errors.size > 0;
  lines.forEach((text, i) => {
    const n = i + 1;
    const errorColumn = errors.get(n) ?? null;
    const isCurrent = n === current && !failed;
    const key = `${errorColumn ?? ""}|${isCurrent ? 1 : 0}|${text}`;
    if (code.keys[i] === key) return;
    const el = mirrorLine(text, n, errorColumn, isCurrent);
    const old = code.lines[i];
    if (old) old.replaceWith(el);
    else code.mirror.append(el);
    code.lines[i] = el;
    code.keys[i] = key;
  });
  for (const el of code.lines.splice(lines.length)) el.remove();
  code.keys.length = lines.length;

  const count = Math.max(1, lines.length);
  const marks = `${count}|${current ?? ""}|${[...errors.keys()].join(",")}`;
  if (marks === code.marks) return;
  code.marks = marks;
  const items: HTMLElement[] = [];
  for (let n = 1; n <= count; n++) {
    const cls = ["ln"];
    if (n === current && !failed) cls.push("is-current");
    if (errors.has(n)) cls.push("is-error");
    items.push(h("span", { class: cls.join(" ") }, String(n)));
  }
  code.gutter.replaceChildren(...items);
  code.gutter.style.setProperty("--digits", String(String(count).length));
}

/** The gutter and the mirror follow the textarea's scroll position. */
function syncScroll(code: Code): void {
  code.gutter.scrollTop = code.textarea.scrollTop;
  code.mirror.scrollTop = code.textarea.scrollTop;
  code.mirror.scrollLeft = code.textarea.scrollLeft;
}

/** Scrolls the textarea (and with it the mirror and gutter) so `line` is in view. */
function showLine(code: Code, line: number): void {
  const { textarea } = code;
  const style = getComputedStyle(textarea);
  const lineHeight = Number.parseFloat(style.lineHeight) || 20;
  const padTop = Number.parseFloat(style.paddingTop) || 0;
  textarea.scrollTop = scrollToShow(line, textarea.scrollTop, textarea.clientHeight, lineHeight, padTop);
  syncScroll(code);
}

/** The error list: one button per error, each moving the caret to its place. */
function renderErrors(list: HTMLElement, error: ProgramError | null, code: Code): void {
  const errors = error ? allErrors(error) : [];
  const key = JSON.stringify(errors);
  if (list.dataset["key"] === key) return;
  list.dataset["key"] = key;
  list.classList.toggle("is-empty", errors.length === 0);
  const go = (e: ProgramError): void => {
    const { textarea } = code;
    const at = offsetOf(textarea.value, e.line, e.column);
    textarea.focus({ preventScroll: true });
    textarea.setSelectionRange(at, at);
    showLine(code, e.line);
  };
  const items = errors.map((e) =>
    h(
      "li",
      {},
      h("button", { type: "button", class: "program-error-item", title: `Move the caret to line ${e.line}` }, formatError(e)),
    ),
  );
  items.forEach((li, i) => {
    const e = errors[i];
    if (e) li.firstElementChild?.addEventListener("click", () => go(e));
  });
  const count = errors.length > 1 ? [h("p", { class: "program-error-count" }, `${errors.length} errors`)] : [];
  list.replaceChildren(...count, ...(items.length > 0 ? [h("ul", { class: "program-error-list" }, ...items)] : []));
}

/** Lines a long program's read-only view shows from its start. */
export const PREVIEW_LINES = 200;

/** The first `count` lines of `text` and how many lines it has, without splitting all of it. */
export function headLines(text: string, count: number): { head: string[]; lines: number } {
  const head: string[] = [];
  let lines = 1;
  let start = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) {
    if (head.length < count) head.push(text.slice(start, at));
    start = at + 1;
    lines++;
  }
  if (head.length < count) head.push(text.slice(start));
  // A final newline ends the last line; it does not start another.
  if (text.endsWith("\n")) lines--;
  return { head, lines: Math.max(1, lines) };
}

/** A long program's header: its size, lines and (once traced) ops. */
export function largeProgramSummary(bytes: number, lines: number, ops: number | null): string {
  const n = (v: number): string => v.toLocaleString("en-US");
  const traced = ops === null ? "" : `, ${n(ops)} ops`;
  return `Long program: ${megabytes(bytes)}, ${n(lines)} lines${traced}. Shown read-only: its first ${n(Math.min(lines, PREVIEW_LINES))} lines.`;
}

type Refs = ReturnType<typeof build>;
const views = new WeakMap<HTMLElement, Refs>();

/** Builds the editor in `container`; returns what rendering updates. */
function build(container: HTMLElement, handlers: EditorHandlers) {
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
  const code: Code = { textarea, gutter, mirror, errors: new Map(), current: null, shown: null, marks: "", lines: [], keys: [] };
  const error = h("div", { id: "program-error", class: "program-error is-empty", role: "alert" });
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
  const capacityHelp = h("p", { id: "capacity-help", class: "field-help" });
  const capacity = h(
    "select",
    { id: "capacity", "aria-describedby": capacityHelp.id },
    h("option", { value: "" }, "default"),
    ...CAPACITIES.map((c) => h("option", { value: c }, c === MIB ? "1 MiB" : `${c} bytes`)),
  );
  const minAlign = h("select", { id: "min-align" });
  const minAlignField = h("div", { class: "field field-inline" }, h("label", { for: "min-align" }, "Minimum alignment"), minAlign);
  const child = h("select", { id: "child" });
  // "Child", as the preset's description names it ("Child: …"): a label
  // with "allocator" in it would share its accessible name with "Allocator".
  const childField = h("div", { class: "field field-inline" }, h("label", { for: "child" }, "Child"), child);

  /**
   * Replaces the whole program as an edit of the textarea, so Undo brings
   * back the text it replaced; the input event sends it on to onConfigure.
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
    paint(code);
    syncScroll(code);
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
    // A file's line endings as a paste's: the text box makes each \r\n or lone \r a \n.
    const text = normalizeNewlines(raw);
    if (text.length > EDITABLE_SOURCE_CHARS) {
      say(`Opened ${from} (${megabytes(bytes)}): it replaces the program, read-only.${also}`, false);
      handlers.onConfigure({ source: text });
    } else {
      say(`Opened ${from}.${also}`, false);
      loadProgram(text);
    }
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
  /** A paste too long to draw line by line replaces the program as a whole; a shorter one edits the text natively. */
  const onPaste = (event: ClipboardEvent): void => {
    const text = event.clipboardData?.getData("text/plain") ?? "";
    const inLarge = event.currentTarget !== textarea;
    if (!inLarge && text.length <= EDITABLE_SOURCE_CHARS) return;
    event.preventDefault();
    if (text !== "") openText(text, "The pasted program");
  };
  textarea.addEventListener("paste", onPaste);
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
  document.addEventListener("drop", (event) => {
    if (!carriesFiles(event)) return;
    // Not the browser's own drop (opening the file as a page, or its path in the textarea).
    event.preventDefault();
    endDrag();
    const files = event.dataTransfer?.files;
    const file = files?.[0];
    if (!file) return;
    // Said with every message the opening gives, so "Opened a.txt." cannot replace it.
    void openFile(file, files.length > 1 ? ` Only one program opens at a time: ${file.name}, the first of ${files.length}.` : "");
  });
  document.addEventListener("dragend", endDrag);
  document.body.append(dropTarget);

  const hint = h("span", { class: "field-hint", id: "program-help" }, "Edits re-run as you type");
  // The read-only view of a program too long to draw line by line.
  const largeSummary = h("p", { id: "large-program-summary", class: "large-program-summary" });
  const largeLine = h("p", { class: "large-program-line" });
  const largePreview = h("pre", { class: "large-program-preview" });
  const large = h(
    "div",
    { class: "large-program", role: "region", tabindex: 0, "aria-label": "Program, read-only", "aria-describedby": largeSummary.id, hidden: true },
    largeSummary,
    largeLine,
    largePreview,
  );
  large.addEventListener("paste", onPaste);

  textarea.addEventListener("input", () => {
    // Paint now, not on the next render, so the coloured text never lags the caret.
    paint(code);
    handlers.onConfigure({ source: textarea.value });
  });
  textarea.addEventListener("scroll", () => syncScroll(code));
  allocator.addEventListener("change", () => handlers.onConfigure({ allocator: allocator.value }));
  target.addEventListener("change", () => handlers.onConfigure({ target: target.value === "wasm32" ? "wasm32" : "64" }));
  capacity.addEventListener("change", () => handlers.onConfigure({ capacity: capacity.value === "" ? null : Number(capacity.value) }));
  minAlign.addEventListener("change", () => handlers.onConfigure({ minAlign: minAlign.value === "" ? null : Number(minAlign.value) }));
  child.addEventListener("change", () => handlers.onConfigure({ child: child.value === "" ? null : child.value }));

  container.replaceChildren(
    h(
      "div",
      { class: "field" },
      h("div", { class: "field-head program-head" }, h("label", { for: "program", class: "panel-title" }, "Program"), h("div", { class: "program-actions" }, openButton, fileInput, menu.programs)),
      menu.mixForm,
      importStatus,
      h("div", { class: "editor" }, gutter, h("div", { class: "code-area" }, mirror, textarea)),
      large,
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
    h("div", { class: "field capacity-help" }, capacityHelp),
    minAlignField,
    childField,
    h(
      "details",
      { class: "syntax" },
      h("summary", {}, "Program syntax"),
      h("dl", {}, ...SYNTAX.flatMap(([text, meaning]) => [h("dt", {}, h("code", {}, text)), h("dd", {}, meaning)])),
    ),
  );
  const longView = { large, summary: largeSummary, line: largeLine, preview: largePreview, editor: textarea.closest<HTMLElement>(".editor"), hint, source: null as string | null, bytes: 0, lines: 0 };
  return {
    code,
    menu,
    error,
    allocator,
    description,
    more,
    clampDescription,
    target,
    capacity,
    capacityHelp,
    minAlign,
    minAlignField,
    child,
    childField,
    longView,
  };
}

export function renderEditor(container: HTMLElement, data: EditorData, handlers: EditorHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  const { code, error } = refs;
  const { config } = data;
  const { textarea } = code;
  if (renderLong(refs.longView, config.source, data)) {
    textarea.setAttribute("aria-invalid", data.error ? "true" : "false");
    renderErrors(error, data.error, code);
    renderSettings(refs, data);
    return;
  }
  if (textarea.value !== config.source && document.activeElement !== textarea) textarea.value = config.source;

  // Mirror and gutter: the text in the textarea (what is on screen), the
  // error at its line and column, the op in view.
  code.errors = errorColumns(data.error);
  code.current = data.currentLine;
  paint(code);
  // Stepping moves the current line: scroll it into view, once per line so
  // the reader can scroll away from it, and never under the caret of someone
  // typing.
  if (data.currentLine !== code.shown) {
    code.shown = data.currentLine;
    if (data.currentLine !== null && !data.error && document.activeElement !== textarea) showLine(code, data.currentLine);
  }
  syncScroll(code);

  textarea.setAttribute("aria-invalid", data.error ? "true" : "false");
  renderErrors(error, data.error, code);
  renderSettings(refs, data);
}

/**
 * Shows a program too long to draw line by line (its size, lines, ops and
 * first lines, read-only) instead of the textarea; false for a shorter one,
 * which the textarea shows.
 */
function renderLong(view: Refs["longView"], source: string, data: EditorData): boolean {
  const long = source.length > EDITABLE_SOURCE_CHARS;
  view.large.hidden = !long;
  if (view.editor) view.editor.hidden = long;
  // Nothing is typed into the read-only view.
  view.hint.hidden = long;
  if (!long) {
    view.source = null;
    return false;
  }
  if (view.source !== source) {
    view.source = source;
    const { head, lines } = headLines(source, PREVIEW_LINES);
    view.bytes = utf8Bytes(source);
    view.lines = lines;
    const width = String(head.length).length;
    view.preview.textContent = head.map((text, i) => `${String(i + 1).padStart(width)}  ${text}`).join("\n");
  }
  setText(view.summary, largeProgramSummary(view.bytes, view.lines, data.ops ?? null));
  setText(view.line, data.currentLine !== null && !data.error ? `The op in view is on line ${data.currentLine.toLocaleString("en-US")}.` : "");
  return true;
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
