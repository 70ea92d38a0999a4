// The program editor and the run settings. The textarea is the one place the
// program text is typed, so rendering never rewrites it while it has focus.

import type { AllocatorInfo, ProgramError, Target } from "../engine/types";
import { h, setText } from "./dom";

export interface EditorData {
  source: string;
  allocators: readonly AllocatorInfo[];
  allocator: string;
  target: Target;
  capacity: number;
  error: ProgramError | null;
  /** Program line of the op in view, marked in the gutter. */
  currentLine: number | null;
}

export interface EditorHandlers {
  onSource(source: string): void;
  onAllocator(allocator: string): void;
  onTarget(target: Target): void;
  onCapacity(capacity: number): void;
}

export const CAPACITIES = [64, 128, 256, 512, 1024, 4096] as const;

interface Refs {
  textarea: HTMLTextAreaElement;
  gutter: HTMLElement;
  error: HTMLElement;
  allocator: HTMLSelectElement;
  description: HTMLElement;
  target: HTMLSelectElement;
  capacity: HTMLSelectElement;
  lineCount: number;
  marks: string;
}

const views = new WeakMap<HTMLElement, Refs>();

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
  const error = h("p", { id: "program-error", class: "program-error", role: "alert" });
  const allocator = h("select", { id: "allocator" });
  const description = h("p", { id: "allocator-description", class: "field-help" });
  allocator.setAttribute("aria-describedby", description.id);
  const target = h(
    "select",
    { id: "target" },
    h("option", { value: "64" }, "64-bit"),
    h("option", { value: "wasm32" }, "wasm32"),
  );
  const capacity = h("select", { id: "capacity" }, ...CAPACITIES.map((c) => h("option", { value: c }, `${c} bytes`)));

  textarea.addEventListener("input", () => handlers.onSource(textarea.value));
  textarea.addEventListener("scroll", () => {
    gutter.scrollTop = textarea.scrollTop;
  });
  allocator.addEventListener("change", () => handlers.onAllocator(allocator.value));
  target.addEventListener("change", () => handlers.onTarget(target.value === "wasm32" ? "wasm32" : "64"));
  capacity.addEventListener("change", () => handlers.onCapacity(Number(capacity.value)));

  const syntax: [string, string][] = [
    ["a = alloc 24 align 8", "24 bytes, aligned to 8"],
    ["b = alloc u64", "a type: its size and alignment"],
    ["c = alloc [u32; 17]", "an array of a type"],
    ["a = realloc a 64", "grow: allocates anew and copies"],
    ["free b", "bump allocators cannot reuse it"],
    ["checkpoint s / restore s", "save and rewind the pointer"],
    ["reset", "reclaim everything"],
    ["repeat 3 { … }", "run a block of lines again"],
  ];

  container.replaceChildren(
    h(
      "div",
      { class: "field" },
      h(
        "div",
        { class: "field-head" },
        h("label", { for: "program", class: "panel-title" }, "Program"),
        h("span", { class: "field-hint", id: "program-help" }, "Edits re-run as you type"),
      ),
      h("div", { class: "editor" }, gutter, textarea),
      error,
    ),
    h(
      "div",
      { class: "field" },
      h("label", { for: "allocator" }, "Allocator"),
      allocator,
      description,
    ),
    h(
      "div",
      { class: "field-row" },
      h("div", { class: "field" }, h("label", { for: "target" }, "Target"), target),
      h("div", { class: "field" }, h("label", { for: "capacity" }, "Chunk"), capacity),
    ),
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
  return { textarea, gutter, error, allocator, description, target, capacity, lineCount: -1, marks: "" };
}

export function renderEditor(container: HTMLElement, data: EditorData, handlers: EditorHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  const { textarea, gutter, error, allocator, description, target, capacity } = refs;

  if (textarea.value !== data.source && document.activeElement !== textarea) textarea.value = data.source;

  // Gutter: line numbers, the op in view and the error line.
  const lines = Math.max(1, data.source.split("\n").length);
  const marks = `${lines}|${data.currentLine ?? ""}|${data.error?.line ?? ""}`;
  if (marks !== refs.marks) {
    refs.marks = marks;
    const items: HTMLElement[] = [];
    for (let n = 1; n <= lines; n++) {
      const cls = ["ln"];
      if (n === data.currentLine && !data.error) cls.push("is-current");
      if (n === data.error?.line) cls.push("is-error");
      items.push(h("span", { class: cls.join(" ") }, String(n)));
    }
    gutter.replaceChildren(...items);
    gutter.scrollTop = textarea.scrollTop;
  }

  textarea.setAttribute("aria-invalid", data.error ? "true" : "false");
  setText(error, data.error ? `${data.error.line}:${data.error.column} ${data.error.message}` : "");
  error.classList.toggle("is-empty", !data.error);

  const names = data.allocators.map((a) => a.name).join(",");
  if (allocator.dataset["names"] !== names) {
    allocator.dataset["names"] = names;
    allocator.replaceChildren(
      ...data.allocators.map((a) => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`)),
    );
  }
  if (allocator.value !== data.allocator) allocator.value = data.allocator;
  setText(description, data.allocators.find((a) => a.name === data.allocator)?.description ?? "");
  if (target.value !== data.target) target.value = data.target;
  if (capacity.value !== String(data.capacity)) capacity.value = String(data.capacity);
}
