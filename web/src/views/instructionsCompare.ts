// Compare mode's Instructions: the current op's executed wasm in each column,
// side by side, so a difference of one branch reads off the page ("bump up
// tests for overflow once more"). Only executed instructions are listed here,
// per function in the order first entered, each branch with its outcome in
// words. Each run of instructions from one Rust line is headed by that line,
// its file:line and its text (the text the code view shows, once fetched). A
// toggle shows or hides it (the same view setting as the single view's).
// Drawn from (lookups, source texts, view setting) alone.

import type { InstructionsLookup } from "../wasm/listing";
import { branchOutcome, compactSource, executedListing, lacking, operatorOf, shortName, summaryText, type ExecutedListing } from "../model/instructions";
import { h } from "./dom";
import { shownText, TOGGLE_NAME } from "./instructions";
import "./instructionsCompare.css";

export interface CompareInstructionsColumn {
  /** The column's name as compare mode heads it (the preset and its settings). */
  label: string;
  lookup: InstructionsLookup | null;
}

export interface CompareInstructionsData {
  shown: boolean;
  columns: CompareInstructionsColumn[];
  /** The op in view, 1-based (0: before the first op). */
  step: number;
  /**
   * A source file's text by its repository path, once fetched (undefined while
   * it loads, or for a file the page does not ship): the Rust lines shown.
   */
  sourceText?: (file: string) => string | undefined;
}

/** A source file's lines by path, split once per render. */
type SourceLines = (file: string) => readonly string[] | undefined;

/** The Rust line heading a run of instructions: its file:line and, when known, its text. */
function rustLine(file: string | null, line: number, lines: SourceLines): HTMLElement | null {
  const src = compactSource(file, line);
  if (src === "" || file === null) return null;
  const text = lines(file)?.[line - 1]?.trim();
  return h(
    "li",
    { class: "instructions-rust", "data-src": `${file}:${line}` },
    h("span", { class: "instructions-rust-src" }, src),
    text ? h("code", { class: "instructions-rust-text", title: text }, text) : null,
  );
}

export interface CompareInstructionsHandlers {
  onToggle(shown: boolean): void;
  onRetry(): void;
}

const keys = new WeakMap<HTMLElement, unknown[]>();

/** A column's executed listing, when its lookup is ready and ran instrumented code. */
function executedOf(c: CompareInstructionsColumn): ExecutedListing | null {
  const l = c.lookup;
  if (l === null || l.state !== "ready") return null;
  const model = l.executed.columns.find((col) => col.column === "model");
  return model ? executedListing(l.listing, model) : null;
}

/** The operators a listing executed, in order (a row once, whatever its runs). */
function operators(x: ExecutedListing): string[] {
  return x.functions.flatMap((f) => f.rows.filter((r) => r.runs > 0).map((r) => operatorOf(r.text)));
}

/** What a column is measured against: the other column of two, else the first (the first against the second). */
export function referenceColumn(index: number, count: number): number | null {
  if (count < 2) return null;
  return index === 0 ? 1 : 0;
}

function columnBody(c: CompareInstructionsColumn, onRetry: () => void, against: { label: string; x: ExecutedListing } | null, lines: SourceLines): HTMLElement[] {
  const l = c.lookup;
  if (l === null) return [h("p", { class: "instructions-status" }, "No op yet.")];
  if (l.state === "loading") return [h("p", { class: "instructions-status", role: "status" }, l.what)];
  if (l.state === "failed") {
    const again = h("button", { type: "button", class: "link-button" }, "Try again");
    again.addEventListener("click", onRetry);
    return [h("p", { class: "instructions-status", "data-tone": "bad" }, l.message, ...(l.retry ? [" ", again] : []))];
  }
  const model = l.executed.columns.find((col) => col.column === "model");
  if (!model) return [h("p", { class: "instructions-status" }, "This op ran no instrumented code.")];
  const x = executedListing(l.listing, model);
  // The operators the other run has no counterpart for, in this run's order.
  const extra = against ? lacking(operators(x), operators(against.x)) : [];
  const extraCount = extra.filter(Boolean).length;
  let at = 0;
  const out: HTMLElement[] = [
    h("p", { class: "instructions-summary", "data-instructions": x.instructions, "data-branches": x.branches }, summaryText(x)),
    ...(against
      ? [
          h(
            "p",
            { class: "instructions-lacking", "data-lacking": extraCount },
            extraCount === 0 ? `Every instruction here has a counterpart in ${against.label}.` : `Marked +: ${extraCount} ${extraCount === 1 ? "instruction" : "instructions"} ${against.label} does not execute.`,
          ),
        ]
      : []),
  ];
  for (const f of x.functions) {
    const rows = f.rows.filter((r) => r.runs > 0);
    const marks = rows.map(() => extra[at++] === true);
    let heading: string | null = null;
    out.push(
      h(
        "section",
        { class: `instructions-fn${f.slow ? " is-slow" : ""}` },
        h(
          "h4",
          { class: "instructions-fn-head", title: f.name },
          f.slow ? h("span", { class: "badge tone-slow instructions-slow" }, "slow path") : null,
          h("span", { class: "instructions-fn-name" }, shortName(f.name)),
          h("span", { class: "instructions-fn-meta" }, `depth ${f.depth}`),
        ),
        h(
          "ol",
          { class: "instructions-ops", "aria-label": `Executed in ${shortName(f.name)}` },
          ...rows.flatMap((r, i) => {
            const outcome = branchOutcome(r);
            const only = marks[i] === true;
            // A new Rust line heads the instructions compiled from it.
            const from = r.file !== null && r.line > 0 ? `${r.file}:${r.line}` : null;
            const head = from !== null && from !== heading ? rustLine(r.file, r.line, lines) : null;
            if (from !== null) heading = from;
            const li = h(
              "li",
              { class: `instructions-op is-executed${r.branch ? " is-branch" : ""}${only ? " is-unshared" : ""}`, ...(only ? { "data-unshared": "" } : {}) },
              only ? h("span", { class: "instructions-unshared", title: `${against?.label ?? "the other column"} has no counterpart` }, "+") : null,
              h("span", { class: "instructions-text", title: r.text }, shownText(r.text)),
              r.runs > 1 ? h("span", { class: "instructions-runs" }, `×${r.runs}`) : null,
              outcome ? h("span", { class: `instructions-outcome ${r.notTaken === 0 ? "is-taken" : r.taken === 0 ? "is-not-taken" : "is-both"}` }, outcome) : null,
              r.callees.length > 0 && !r.text.startsWith("call $") ? h("span", { class: "instructions-call" }, `→ ${r.callees.map(shortName).join(", ")}`) : null,
              h("span", { class: "instructions-src" }, compactSource(r.file, r.line)),
            );
            return head ? [head, li] : [li];
          }),
        ),
      ),
    );
  }
  return out;
}

/** The source files the ready columns' executed instructions come from. */
function sourceFiles(columns: readonly CompareInstructionsColumn[]): string[] {
  const files = new Set<string>();
  for (const c of columns) for (const f of executedOf(c)?.functions ?? []) for (const r of f.rows) if (r.runs > 0 && r.file !== null) files.add(r.file);
  return [...files];
}

export function renderCompareInstructions(mount: HTMLElement, data: CompareInstructionsData, handlers: CompareInstructionsHandlers): void {
  // Drawn again when a source text arrives, too.
  const texts = new Map((data.shown ? sourceFiles(data.columns) : []).map((file) => [file, data.sourceText?.(file)]));
  const key = [data.shown, data.step, ...data.columns.flatMap((c) => [c.label, c.lookup]), ...[...texts].flatMap(([file, text]) => [file, text])];
  const was = keys.get(mount);
  if (was && was.length === key.length && was.every((v, i) => v === key[i])) return;
  keys.set(mount, key);
  const toggle = h("button", { type: "button", class: "mode-button instructions-toggle", "aria-label": TOGGLE_NAME, "aria-pressed": String(data.shown) }, "Instructions");
  toggle.addEventListener("click", () => handlers.onToggle(!data.shown));
  const head = h(
    "div",
    { class: "compare-instructions-head" },
    h("h3", { class: "panel-title" }, data.step > 0 ? `Wasm executed by op ${data.step}, side by side` : "Wasm executed, side by side"),
    toggle,
  );
  const hadFocus = document.activeElement instanceof HTMLElement && mount.contains(document.activeElement) && document.activeElement.classList.contains("instructions-toggle");
  if (!data.shown) {
    mount.replaceChildren(head);
    if (hadFocus) toggle.focus();
    return;
  }
  const split = new Map<string, readonly string[]>();
  const lines: SourceLines = (file) => {
    const text = texts.get(file);
    if (text === undefined) return undefined;
    let got = split.get(file);
    if (!got) split.set(file, (got = text.split("\n")));
    return got;
  };
  const grid = h(
    "div",
    { class: "compare-instructions-grid", style: `--columns: ${Math.max(1, data.columns.length)}` },
    ...data.columns.map((c, i) => {
      const ref = referenceColumn(i, data.columns.length);
      const other = ref === null ? undefined : data.columns[ref];
      const otherX = other ? executedOf(other) : null;
      const against = other && otherX ? { label: other.label, x: otherX } : null;
      return h("section", { class: "compare-instructions-column", "aria-label": `Wasm executed on ${c.label}` }, h("h4", { class: "compare-instructions-label" }, c.label), ...columnBody(c, handlers.onRetry, against, lines));
    }),
  );
  mount.replaceChildren(head, grid);
  if (hadFocus) toggle.focus();
}
