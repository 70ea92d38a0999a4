// The Instructions view: the compiled wasm the current op ran, beside its Rust
// source. Each function that ran is listed in the order it was first entered,
// headed by its name and call depth, the slow path's apart; every operator of
// it is shown, the executed ones highlighted (with how often), the rest
// dimmed; each conditional branch says "taken" or "not taken", each call
// names what it entered, and each operator its Rust file:line. Hovering or
// focusing an instruction marks its Rust line in the code view, and the
// reverse, as Compiler Explorer does; the current micro-step's line and its
// instructions are marked together. The operators are one roving-tabindex
// list moved with the arrow keys. Drawn from (lookup, current line) alone.

import type { ExecutedColumnName, InstructionsLookup } from "../wasm/listing";
import { branchOutcome, compactSource, executedListing, shortName, summaryText, type ExecutedListing, type FunctionRun, type InstructionRow } from "../model/instructions";
import { shapeListingNote } from "../model/shape";
import type { Shape } from "../wasm/types";
import { h, setText } from "./dom";

/** A Rust line: the code view's file and a 1-based line. */
export interface RustLine {
  path: string;
  line: number;
}

export interface InstructionsViewData {
  /** What the op executed, or null before the first op. */
  lookup: InstructionsLookup | null;
  /** The column shown (the cost view's counts are the model's). */
  column: ExecutedColumnName;
  /** The file the code view shows (its lines link to instructions). */
  codePath: string | null;
  /** The current micro-step's Rust line, if the op ran the algorithm. */
  current: RustLine | null;
  /** What the compiler knew of the op's layout: the listed code was compiled with it. */
  shape: Shape | null;
}

export interface InstructionsHandlers {
  onRetry(): void;
  /** Another column chosen (the model, the real crate, the global allocator). */
  onColumn(column: ExecutedColumnName): void;
}

const COLUMN_NAMES: Record<ExecutedColumnName, string> = { model: "Model", real: "Real crate", baseline: "Global allocator" };

interface Refs {
  /** The column chooser, shown when the op ran in more than one. */
  columns: HTMLElement;
  radios: Record<ExecutedColumnName, { label: HTMLElement; input: HTMLInputElement }>;
  status: HTMLElement;
  summary: HTMLElement;
  note: HTMLElement;
  list: HTMLElement;
  rows: HTMLElement[];
  /** What the list was built from: rebuilt only when it changes. */
  builtFrom: unknown;
  /** The row holding the roving tabindex once the user moved to it (function index, op index). */
  focusKey: string | null;
  codePath: string | null;
  /** The code view this list is linked with, and the line marked from there (hover, focus). */
  code: HTMLElement | null;
  handlers: InstructionsHandlers;
}

const views = new WeakMap<HTMLElement, Refs>();

const srcKey = (path: string, line: number): string => `${path}:${line}`;

/** The operator's accessible name: what it is, what the op did with it, where it came from. */
function rowLabel(r: InstructionRow): string {
  const did = !r.counted ? "structure" : r.runs === 0 ? "not executed" : r.runs === 1 ? "executed" : `executed ${r.runs} times`;
  const parts = [r.text, did];
  const outcome = branchOutcome(r);
  if (outcome) parts.push(`conditional branch ${outcome}`);
  if (r.callees.length > 0) parts.push(`calls ${r.callees.map(shortName).join(", ")}`);
  if (r.file !== null && r.line > 0) parts.push(`${r.file} line ${r.line}`);
  return parts.join(", ");
}

/** An operator's text as listed: a call names its callee by type and method (the full name is its title). */
export function shownText(text: string): string {
  const call = /^(call|return_call) \$(.+)$/.exec(text);
  return call ? `${call[1]} ${shortName(call[2] ?? "")}` : text;
}

/** A call's callee, said beside it only when its text does not already name it (call_indirect, an unnamed call). */
function calleeNote(r: InstructionRow): string | null {
  const named = r.callees.filter((c) => !shownText(r.text).endsWith(shortName(c)));
  return named.length > 0 ? `→ ${named.map(shortName).join(", ")}` : null;
}

/** Block structure's indent: block, loop and if open a level; else sits at its if's; end closes. */
function indents(rows: readonly InstructionRow[]): number[] {
  let depth = 0;
  return rows.map((r) => {
    const op = r.text.split(" ")[0] ?? "";
    if (op === "end" || op === "else") depth = Math.max(0, depth - 1);
    const at = depth;
    if (op === "block" || op === "loop" || op === "if" || op === "else" || op === "try") depth++;
    return at;
  });
}

function functionSection(f: FunctionRun, order: number): HTMLElement {
  const headId = `instructions-fn-${order}`;
  const counts = `${f.instructions} ${f.instructions === 1 ? "instruction" : "instructions"}${f.branches > 0 ? `, ${f.branches} ${f.branches === 1 ? "branch" : "branches"}` : ""}`;
  const head = h(
    "h3",
    { class: "instructions-fn-head", id: headId, title: f.name },
    f.slow ? h("span", { class: "badge tone-slow instructions-slow" }, "slow path") : null,
    h("span", { class: "instructions-fn-name" }, shortName(f.name)),
    h("span", { class: "instructions-fn-meta" }, `depth ${f.depth}${f.entries > 1 ? ` · entered ${f.entries}×` : ""} · ${counts}`),
    h("span", { class: "instructions-fn-path" }, f.name),
  );
  const pad = indents(f.rows);
  const list = h("ol", { class: "instructions-ops", "aria-labelledby": headId });
  for (const r of f.rows) {
    const executed = r.runs > 0;
    const outcome = branchOutcome(r);
    const src = compactSource(r.file, r.line);
    const li = h(
      "li",
      {
        class: `instructions-op${executed ? " is-executed" : r.counted ? " is-dimmed" : " is-structure"}${r.branch ? " is-branch" : ""}`,
        tabindex: -1,
        "data-key": `${f.fn}:${r.index}`,
        "data-src": r.file !== null && r.line > 0 ? srcKey(r.file, r.line) : null,
        "aria-label": rowLabel(r),
      },
      h("span", { class: "instructions-text", style: `padding-left: ${(pad[r.index] ?? 0) * 1.2}em`, title: r.text }, shownText(r.text)),
      executed && r.runs > 1 ? h("span", { class: "instructions-runs" }, `×${r.runs}`) : null,
      outcome ? h("span", { class: `instructions-outcome ${r.taken > 0 && r.notTaken === 0 ? "is-taken" : r.notTaken > 0 && r.taken === 0 ? "is-not-taken" : "is-both"}` }, outcome) : null,
      calleeNote(r) ? h("span", { class: "instructions-call" }, calleeNote(r)) : null,
      h("span", { class: "instructions-src", title: r.file !== null ? `${r.file}:${r.line}` : null }, src),
    );
    list.append(li);
  }
  return h("section", { class: `instructions-fn${f.slow ? " is-slow" : ""}` }, head, list);
}

/** The summary and, where they differ, the cost module's own count (they are one count: a difference is a stale listing). */
function notes(x: ExecutedListing, shape: Shape | null): string[] {
  const out: string[] = shape ? [shapeListingNote(shape)] : [];
  if (x.slowInstructions > 0) out.push(`${x.slowInstructions} of them in the slow path.`);
  if (x.truncated) out.push("The op ran more instructions than the recording holds: the list stops short.");
  if (x.unknown > 0) out.push(`${x.unknown} executed instructions are not in the listing: it is not the one built with this cost module.`);
  else if (!x.truncated && (x.instructions !== x.cost[0] || x.branches !== x.cost[1])) {
    out.push(`The cost module counted ${x.cost[0]} instructions and ${x.cost[1]} branches for this op, not what is listed: the listing is out of date.`);
  }
  return out;
}

function build(container: HTMLElement, handlers: InstructionsHandlers): Refs {
  const radio = (column: ExecutedColumnName): { label: HTMLElement; input: HTMLInputElement } => {
    const input = h("input", { type: "radio", name: "instructions-column", value: column, id: `instructions-column-${column}` });
    input.addEventListener("change", () => {
      if (input.checked) refs.handlers.onColumn(column);
    });
    return { label: h("label", { class: "segment", for: input.id }, input, h("span", {}, COLUMN_NAMES[column])), input };
  };
  const radios = { model: radio("model"), real: radio("real"), baseline: radio("baseline") };
  const columns = h(
    "div",
    { class: "segmented instructions-columns", role: "radiogroup", "aria-label": "Whose wasm", hidden: true },
    radios.model.label,
    radios.real.label,
    radios.baseline.label,
  );
  const status = h("p", { class: "instructions-status", role: "status" });
  const summary = h("p", { class: "instructions-summary" });
  const note = h("p", { class: "instructions-note muted" });
  const list = h("div", {
    class: "instructions-list",
    role: "group",
    "aria-label": "Wasm the op executed: arrow keys move between instructions; each one's Rust line is marked in the source",
  });
  container.replaceChildren(columns, status, summary, note, list);
  const refs: Refs = { columns, radios, status, summary, note, list, rows: [], builtFrom: null, focusKey: null, codePath: null, code: null, handlers };

  const rowOf = (t: EventTarget | null): HTMLElement | null => (t instanceof Element ? t.closest<HTMLElement>("li.instructions-op") : null);
  list.addEventListener("pointerover", (e) => {
    const row = rowOf(e.target);
    if (row) markFromRow(refs, row);
  });
  list.addEventListener("pointerleave", () => {
    const focused = rowOf(document.activeElement);
    if (focused && list.contains(focused)) markFromRow(refs, focused);
    else clearLinked(refs);
  });
  list.addEventListener("focusin", (e) => {
    const row = rowOf(e.target);
    if (!row) return;
    refs.focusKey = row.dataset["key"] ?? null;
    rove(refs);
    markFromRow(refs, row, true);
  });
  list.addEventListener("focusout", (e) => {
    if (!(e.relatedTarget instanceof Node && list.contains(e.relatedTarget))) clearLinked(refs);
  });
  list.addEventListener("keydown", (e) => {
    const row = rowOf(e.target);
    if (!row || e.altKey || e.ctrlKey || e.metaKey) return;
    const i = refs.rows.indexOf(row);
    const last = refs.rows.length - 1;
    const nextExecuted = (from: number, by: 1 | -1): number => {
      for (let j = from + by; j >= 0 && j <= last; j += by) if (refs.rows[j]?.classList.contains("is-executed")) return j;
      return from;
    };
    const moves: Record<string, number> = {
      ArrowDown: i + 1,
      ArrowUp: i - 1,
      ArrowRight: nextExecuted(i, 1),
      ArrowLeft: nextExecuted(i, -1),
      PageDown: i + 10,
      PageUp: i - 10,
      Home: 0,
      End: last,
    };
    const to = moves[e.key];
    if (to === undefined) return;
    // Handled here: the page's step keys must not also see it.
    e.preventDefault();
    e.stopPropagation();
    refs.rows[Math.min(Math.max(0, to), last)]?.focus();
  });
  return refs;
}

/** One row is in the tab order: the one last moved to, else the first executed. */
function rove(refs: Refs): void {
  const keyed = refs.focusKey !== null ? refs.rows.find((r) => r.dataset["key"] === refs.focusKey) : undefined;
  const target = keyed ?? refs.rows.find((r) => r.classList.contains("is-executed")) ?? refs.rows[0];
  for (const r of refs.rows) r.tabIndex = r === target ? 0 : -1;
}

function codeLines(refs: Refs): NodeListOf<HTMLElement> | [] {
  return refs.code ? refs.code.querySelectorAll<HTMLElement>(".code-line[data-line]") : [];
}

function clearLinked(refs: Refs): void {
  for (const r of refs.list.querySelectorAll(".is-linked")) r.classList.remove("is-linked");
  for (const l of codeLines(refs)) l.classList.remove("is-linked");
}

/** Marks the instructions of one Rust line, and the line itself in the code view. */
function markLine(refs: Refs, key: string | null, from: "code" | "row", reveal = false): void {
  clearLinked(refs);
  if (key === null) return;
  const rows = refs.rows.filter((r) => r.dataset["src"] === key);
  for (const r of rows) r.classList.add("is-linked");
  const path = refs.codePath;
  if (path !== null && key.startsWith(`${path}:`)) {
    const line = refs.code?.querySelector<HTMLElement>(`.code-line[data-line="${key.slice(path.length + 1)}"]`);
    line?.classList.add("is-linked");
    // A focused instruction brings its line into the code box's view (never the page's).
    if (reveal && from === "row" && line) scrollWithin(line, line.closest("pre"));
  }
  if (reveal && from === "code") {
    const first = rows.find((r) => r.classList.contains("is-executed")) ?? rows[0];
    if (first) scrollWithin(first, refs.list);
  }
}

function markFromRow(refs: Refs, row: HTMLElement, reveal = false): void {
  markLine(refs, row.dataset["src"] ?? null, "row", reveal);
}

function scrollWithin(el: HTMLElement, box: Element | null): void {
  if (!(box instanceof HTMLElement)) return;
  const top = el.getBoundingClientRect().top - box.getBoundingClientRect().top + box.scrollTop;
  if (top < box.scrollTop || top + el.offsetHeight > box.scrollTop + box.clientHeight) box.scrollTo({ top: Math.max(0, top - box.clientHeight / 3) });
}

/**
 * Links the code view's lines with this list: hovering or focusing a line
 * marks its instructions. Lines with instructions are focusable (one in the
 * tab order; the arrow keys move between them) while the list is shown.
 */
function linkCode(refs: Refs, code: HTMLElement | null): void {
  if (refs.code !== code) {
    refs.code = code;
    if (code && !linked.has(code)) {
      linked.add(code);
      const lineOf = (t: EventTarget | null): HTMLElement | null => (t instanceof Element ? t.closest<HTMLElement>(".code-line[data-line]") : null);
      const keyOf = (line: HTMLElement): string | null => (refs.codePath !== null && refs.code === code && refs.rows.length > 0 ? srcKey(refs.codePath, Number(line.dataset["line"])) : null);
      code.addEventListener("pointerover", (e) => {
        const line = lineOf(e.target);
        if (line) markLine(refs, keyOf(line), "code");
      });
      code.addEventListener("pointerleave", () => clearLinked(refs));
      code.addEventListener("focusin", (e) => {
        const line = lineOf(e.target);
        if (line) markLine(refs, keyOf(line), "code", true);
      });
      code.addEventListener("focusout", () => clearLinked(refs));
      code.addEventListener("keydown", (e) => {
        const line = lineOf(e.target);
        if (!line || (e.key !== "ArrowDown" && e.key !== "ArrowUp") || e.altKey || e.ctrlKey || e.metaKey) return;
        const lines = [...code.querySelectorAll<HTMLElement>(".code-line.has-instructions")];
        const i = lines.indexOf(line);
        const next = lines[e.key === "ArrowDown" ? i + 1 : i - 1];
        e.preventDefault();
        e.stopPropagation();
        if (next) {
          for (const l of lines) l.tabIndex = l === next ? 0 : -1;
          next.focus();
        }
      });
    }
  }
  syncCodeLines(refs);
}

const linked = new WeakSet<HTMLElement>();

/** The code view's lines that have instructions: marked, and focusable (their text, number first, is what is read). */
function syncCodeLines(refs: Refs): void {
  const path = refs.codePath;
  const lines = new Set<number>();
  if (path !== null) {
    for (const r of refs.rows) {
      const src = r.dataset["src"];
      if (src?.startsWith(`${path}:`)) lines.add(Number(src.slice(path.length + 1)));
    }
  }
  let first: HTMLElement | null = null;
  let roving: HTMLElement | null = null;
  for (const l of codeLines(refs)) {
    const n = Number(l.dataset["line"]);
    const has = lines.has(n);
    l.classList.toggle("has-instructions", has);
    if (has) {
      first ??= l;
      if (l.tabIndex === 0) roving = l;
      if (l.tabIndex !== 0) l.tabIndex = -1;
    } else if (l.hasAttribute("tabindex")) l.removeAttribute("tabindex");
  }
  if (!roving && first) first.tabIndex = 0;
}

/** Takes the code view's lines out of the tab order again (the Instructions view closed). */
export function unlinkCode(code: HTMLElement): void {
  for (const l of code.querySelectorAll<HTMLElement>(".code-line")) {
    l.classList.remove("has-instructions", "is-linked");
    l.removeAttribute("tabindex");
  }
}

export function renderInstructions(container: HTMLElement, data: InstructionsViewData, handlers: InstructionsHandlers, code: HTMLElement | null = null): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container, handlers);
    views.set(container, refs);
  }
  refs.handlers = handlers;
  refs.codePath = data.codePath;
  const { lookup } = data;
  const ran = lookup?.state === "ready" ? lookup.executed.columns.map((c) => c.column) : [];
  refs.columns.hidden = ran.length < 2;
  for (const [name, r] of Object.entries(refs.radios) as [ExecutedColumnName, Refs["radios"][ExecutedColumnName]][]) {
    r.label.hidden = !ran.includes(name);
    r.input.checked = name === data.column;
  }
  const column = lookup?.state === "ready" ? lookup.executed.columns.find((c) => c.column === data.column) : undefined;
  const built = lookup?.state === "ready" ? `${data.column}` : lookup === null ? "none" : lookup.state === "loading" ? "loading" : `failed:${lookup.message}`;
  const source = lookup?.state === "ready" ? [lookup.listing, column] : built;
  if (refs.builtFrom === null || !sameSource(refs.builtFrom, source)) {
    refs.builtFrom = source;
    container.dataset["state"] = lookup === null ? "empty" : lookup.state;
    if (lookup === null) {
      showStatus(refs, "No op yet: step to an op to see the instructions it executed.");
    } else if (lookup.state === "loading") {
      showStatus(refs, lookup.what);
    } else if (lookup.state === "failed") {
      const again = h("button", { type: "button", class: "link-button" }, "Try again");
      again.addEventListener("click", () => refs?.handlers.onRetry());
      showStatus(refs, lookup.message, ...(lookup.retry ? [again] : []));
      refs.status.dataset["tone"] = "bad";
    } else if (!column) {
      showStatus(refs, "This op has no measured cost in this column: it ran no instrumented code.");
    } else {
      const x = executedListing(lookup.listing, column);
      refs.status.hidden = true;
      delete refs.status.dataset["tone"];
      setText(refs.summary, summaryText(x));
      refs.summary.hidden = false;
      refs.summary.dataset["instructions"] = String(x.instructions);
      refs.summary.dataset["branches"] = String(x.branches);
      const said = notes(x, data.shape);
      setText(refs.note, said.join(" "));
      refs.note.hidden = said.length === 0;
      refs.list.replaceChildren(...x.functions.map(functionSection));
      refs.list.hidden = x.functions.length === 0;
      refs.rows = [...refs.list.querySelectorAll<HTMLElement>("li.instructions-op")];
      // A new op's list: the roving stop goes back to its first executed instruction.
      refs.focusKey = null;
      rove(refs);
    }
  }
  linkCode(refs, code);
  markCurrent(refs, data.current);
}

function sameSource(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) return a[0] === b[0] && a[1] === b[1];
  return a === b;
}

function showStatus(refs: Refs, text: string, ...extra: Node[]): void {
  refs.status.replaceChildren(text, ...(extra.length > 0 ? [" ", ...extra] : []));
  delete refs.status.dataset["tone"];
  refs.status.hidden = false;
  refs.summary.hidden = true;
  refs.note.hidden = true;
  refs.list.hidden = true;
  refs.list.replaceChildren();
  refs.rows = [];
}

/** The current micro-step's line: its instructions marked as the line is. */
function markCurrent(refs: Refs, current: RustLine | null): void {
  const key = current ? srcKey(current.path, current.line) : null;
  for (const r of refs.rows) r.classList.toggle("is-current-line", key !== null && r.dataset["src"] === key);
}

const toggles = new WeakMap<HTMLElement, { button: HTMLButtonElement; onToggle: (shown: boolean) => void; shown: boolean }>();

/** The Instructions toggles' accessible name (their text is "Instructions"). */
export const TOGGLE_NAME = "Instructions this op executed";

/**
 * The code panel's Instructions toggle, after its heading (built once, so it
 * keeps focus across renders). Pressed: the panel shows the wasm beside the
 * Rust source.
 */
export function renderInstructionsToggle(panel: HTMLElement, shown: boolean, onToggle: (shown: boolean) => void): void {
  let t = toggles.get(panel);
  if (!t) {
    // Named apart from the cost chart's "Instructions" metric button, and
    // starting with the visible word, so speech input can still say it.
    const button = h(
      "button",
      { type: "button", class: "mode-button instructions-toggle", "aria-label": TOGGLE_NAME, title: "Show the compiled wasm this op executed beside its Rust source" },
      "Instructions",
    );
    const entry = { button, onToggle, shown };
    button.addEventListener("click", () => entry.onToggle(!entry.shown));
    const heading = panel.querySelector("h2");
    const row = h("div", { class: "code-panel-head" });
    if (heading) {
      heading.before(row);
      row.append(heading, button);
    } else panel.prepend(row, button);
    toggles.set(panel, entry);
    t = entry;
  }
  t.onToggle = onToggle;
  t.shown = shown;
  t.button.setAttribute("aria-pressed", String(shown));
}
