// The algorithm's source with line numbers; the current micro-step's line is
// highlighted, the op's other micro-step lines are marked. Plain text only.

import { h, setText } from "./dom";

export interface CodeViewData {
  path: string;
  source: string;
  /** Line of the op's last micro-step (1-based), if it ran the algorithm. */
  currentLine: number | null;
  /** Every line the op's micro-steps touched. */
  touched: ReadonlySet<number>;
}

interface Refs {
  path: HTMLElement;
  pre: HTMLPreElement;
  lines: HTMLElement[];
  source: string | null;
  current: number | null;
}
const views = new WeakMap<HTMLElement, Refs>();

export function renderCodeView(container: HTMLElement, data: CodeViewData): void {
  let refs = views.get(container);
  if (!refs) {
    const path = h("p", { class: "code-path" });
    const pre = h("pre", { class: "code", tabindex: 0, "aria-label": "Algorithm source" });
    container.replaceChildren(path, pre);
    refs = { path, pre, lines: [], source: null, current: null };
    views.set(container, refs);
  }
  setText(refs.path, data.path);
  if (refs.source !== data.source) {
    refs.source = data.source;
    refs.current = null;
    const text = data.source.replace(/\n$/, "");
    refs.lines = text.split("\n").map((line, i) =>
      h("span", { class: "code-line", "data-line": i + 1 }, h("span", { class: "code-num" }, String(i + 1)), h("span", { class: "code-text" }, line || " ")),
    );
    const code = h("code", {}, ...refs.lines);
    refs.pre.replaceChildren(code);
  }
  refs.lines.forEach((el, i) => {
    const n = i + 1;
    el.classList.toggle("is-current", n === data.currentLine);
    el.classList.toggle("is-touched", data.touched.has(n) && n !== data.currentLine);
    if (n === data.currentLine) el.setAttribute("aria-current", "step");
    else el.removeAttribute("aria-current");
  });
  if (data.currentLine !== refs.current) {
    refs.current = data.currentLine;
    const el = data.currentLine !== null ? refs.lines[data.currentLine - 1] : undefined;
    if (el) {
      // Scroll the code box only, never the page.
      const pre = refs.pre;
      const offset = el.getBoundingClientRect().top - pre.getBoundingClientRect().top + pre.scrollTop;
      // A third of the way down: the lines before it give context.
      const top = offset - pre.clientHeight / 3;
      pre.scrollTo({ top: Math.max(0, top), behavior: "auto" });
    }
  }
}
