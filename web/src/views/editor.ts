// The program editor and the run settings. The textarea is the one place the
// program text is typed, so rendering never rewrites it while it has focus.

import type { AllocatorInfo, ProgramError, Target } from "../engine/types";
import { h, setText } from "./dom";

export interface EditorData {
  source: string;
  allocators: readonly AllocatorInfo[];
  allocator: string;
  target: Target;
  /** null: the preset's default. */
  capacity: number | null;
  /** null: the preset's default minimum alignment. */
  minAlign: number | null;
  error: ProgramError | null;
  /** Program line of the op in view, marked in the gutter. */
  currentLine: number | null;
}

export interface EditorHandlers {
  onSource(source: string): void;
  onAllocator(allocator: string): void;
  onTarget(target: Target): void;
  onCapacity(capacity: number | null): void;
  onMinAlign(minAlign: number | null): void;
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
    names: ["bumpalo", "bump-scope-up", "bump-scope-down", "bumper-alloc-buffer", "bumper-slab", "cpp-arena"],
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

interface Refs {
  textarea: HTMLTextAreaElement;
  gutter: HTMLElement;
  error: HTMLElement;
  allocator: HTMLSelectElement;
  description: HTMLElement;
  more: HTMLButtonElement;
  target: HTMLSelectElement;
  capacity: HTMLSelectElement;
  capacityHelp: HTMLElement;
  minAlign: HTMLSelectElement;
  minAlignField: HTMLElement;
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

  textarea.addEventListener("input", () => handlers.onSource(textarea.value));
  textarea.addEventListener("scroll", () => {
    gutter.scrollTop = textarea.scrollTop;
  });
  allocator.addEventListener("change", () => handlers.onAllocator(allocator.value));
  target.addEventListener("change", () => handlers.onTarget(target.value === "wasm32" ? "wasm32" : "64"));
  capacity.addEventListener("change", () => handlers.onCapacity(capacity.value === "" ? null : Number(capacity.value)));
  minAlign.addEventListener("change", () => handlers.onMinAlign(minAlign.value === "" ? null : Number(minAlign.value)));

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
  return {
    textarea,
    gutter,
    error,
    allocator,
    description,
    more,
    target,
    capacity,
    capacityHelp,
    minAlign,
    minAlignField,
    lineCount: -1,
    marks: "",
  };
}

export function renderEditor(container: HTMLElement, data: EditorData, handlers: EditorHandlers): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  const { textarea, gutter, error, allocator, description, target, capacity, minAlign } = refs;

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
      ...groupAllocators(data.allocators).map((g) =>
        h(
          "optgroup",
          { label: g.label },
          ...g.items.map((a) => h("option", { value: a.name }, `${a.name} (bumps ${a.direction})`)),
        ),
      ),
    );
  }
  if (allocator.value !== data.allocator) allocator.value = data.allocator;
  const info = data.allocators.find((a) => a.name === data.allocator);
  if (description.textContent !== (info?.description ?? "")) {
    description.textContent = info?.description ?? "";
    description.classList.add("is-clamped");
    refs.more.setAttribute("aria-expanded", "false");
    refs.more.textContent = "more";
  }
  // Offer the rest only when the clamp hides some of it.
  refs.more.hidden = description.classList.contains("is-clamped") && description.scrollHeight <= description.clientHeight + 1;
  if (target.value !== data.target) target.value = data.target;
  const cap = data.capacity === null ? "" : String(data.capacity);
  if (capacity.value !== cap) capacity.value = cap;
  setText(refs.capacityHelp, capacityHelp(data.allocator));

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
  const align = String(data.minAlign ?? aligns[0] ?? "");
  if (aligns.length > 0 && minAlign.value !== align) minAlign.value = align;
}
