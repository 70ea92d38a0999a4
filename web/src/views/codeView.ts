// The source of the file the current micro-step ran in, with line numbers; the
// step's line is highlighted, the op's other micro-step lines in that file are
// marked, and the values the step recorded show under its line, as a debugger
// shows locals. Each file's lines are built once and kept. Plain text only.

import type { NamedValue } from "../wasm/types";
import { hexWithDecimal } from "../model/format";
import { h, setText } from "./dom";

export interface CodeViewData {
  /** Repository path of the file, shown as the title. */
  path: string;
  source: string;
  /** Line of the micro-step in view (1-based), if the op ran the algorithm. */
  currentLine: number | null;
  /** Every line the op's micro-steps touched. */
  touched: ReadonlySet<number>;
  /** What the micro-step in view did ("round down to the alignment"), if any. */
  label: string | null;
  /** The values it recorded (addresses and sizes). */
  values: readonly NamedValue[];
}

interface Built {
  code: HTMLElement;
  lines: HTMLElement[];
}

interface Refs {
  path: HTMLElement;
  pre: HTMLPreElement;
  lines: HTMLElement[];
  source: string | null;
  current: number | null;
  /** The values row under the current line (moved from line to line). */
  values: HTMLElement;
  valuesKey: string;
  /** Built lines per source text, so switching files back and forth is cheap. */
  built: Map<string, Built>;
  /** The line to scroll to in the next frame, and that frame's request. */
  scrollTo: HTMLElement | null;
  scrollFrame: number | undefined;
}
const views = new WeakMap<HTMLElement, Refs>();

/** `ptr = 0x10110`, with the decimal beside small numbers (sizes, alignments). */
function valueItem(v: NamedValue): HTMLElement {
  const f = hexWithDecimal(v.value);
  return h(
    "span",
    { class: "code-value" },
    h("span", { class: "code-value-name" }, v.name),
    " = ",
    h("span", { class: "code-value-hex" }, f.hex),
    f.decimal !== null ? h("span", { class: "code-value-dec" }, ` (${f.decimal})`) : null,
  );
}

export function renderCodeView(container: HTMLElement, data: CodeViewData): void {
  let refs = views.get(container);
  if (!refs) {
    const path = h("p", { class: "code-path" });
    const pre = h("pre", { class: "code", tabindex: 0, "aria-label": "Algorithm source" });
    container.replaceChildren(path, pre);
    const values = h("span", { class: "code-values", role: "note", "aria-label": "Values at this step" });
    refs = { path, pre, lines: [], source: null, current: null, values, valuesKey: "", built: new Map(), scrollTo: null, scrollFrame: undefined };
    views.set(container, refs);
  }
  setText(refs.path, data.path);
  refs.pre.setAttribute("aria-label", `Source of ${data.path}`);
  if (refs.source !== data.source) {
    refs.source = data.source;
    refs.current = null;
    let built = refs.built.get(data.source);
    if (!built) {
      const text = data.source.replace(/\n$/, "");
      const lines = text.split("\n").map((line, i) =>
        h("span", { class: "code-line", "data-line": i + 1 }, h("span", { class: "code-num" }, String(i + 1)), h("span", { class: "code-text" }, line || " ")),
      );
      built = { code: h("code", {}, ...lines), lines };
      refs.built.set(data.source, built);
    }
    refs.lines = built.lines;
    refs.pre.replaceChildren(built.code);
  }
  refs.lines.forEach((el, i) => {
    const n = i + 1;
    el.classList.toggle("is-current", n === data.currentLine);
    el.classList.toggle("is-touched", data.touched.has(n) && n !== data.currentLine);
    if (n === data.currentLine) el.setAttribute("aria-current", "step");
    else el.removeAttribute("aria-current");
  });

  // The values row follows the current line (after it, so the line reads first).
  const currentEl = data.currentLine !== null ? refs.lines[data.currentLine - 1] : undefined;
  const valuesKey = `${data.label ?? ""}|${data.values.map((v) => `${v.name}=${v.value}`).join(",")}`;
  if (valuesKey !== refs.valuesKey) {
    refs.valuesKey = valuesKey;
    refs.values.replaceChildren(
      ...(data.label ? [h("span", { class: "code-value-label" }, data.label)] : []),
      ...data.values.map(valueItem),
    );
  }
  if (currentEl && (data.values.length > 0 || data.label)) {
    if (refs.values.previousElementSibling !== currentEl) currentEl.after(refs.values);
  } else {
    refs.values.remove();
  }

  if (data.currentLine !== refs.current) {
    refs.current = data.currentLine;
    if (currentEl) scrollToLine(refs, currentEl);
  }
}

/**
 * Scrolls the code box (never the page) so `line` sits a third of the way
 * down, in the next frame before it renders: the layout is then the one just
 * painted, so reading the line's place costs nothing, where reading it while
 * rendering would force a layout of the whole page at every step.
 */
function scrollToLine(refs: Refs, line: HTMLElement): void {
  refs.scrollTo = line;
  refs.scrollFrame ??= requestAnimationFrame(() => {
    refs.scrollFrame = undefined;
    const el = refs.scrollTo;
    refs.scrollTo = null;
    const pre = refs.pre;
    if (!el || !pre.contains(el)) return;
    const offset = el.getBoundingClientRect().top - pre.getBoundingClientRect().top + pre.scrollTop;
    // A third of the way down: the lines before it give context.
    pre.scrollTo({ top: Math.max(0, offset - pre.clientHeight / 3), behavior: "auto" });
  });
}
