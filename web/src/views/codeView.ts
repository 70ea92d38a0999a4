// The source of the file the current micro-step ran in, with line numbers; the
// step's line is highlighted, the op's other micro-step lines in that file are
// marked. Each file's lines are built once and kept. Plain text only.

import { h, setText } from "./dom";

export interface CodeViewData {
  /** Repository path of the file, shown as the title. */
  path: string;
  source: string;
  /** Line of the op's last micro-step (1-based), if it ran the algorithm. */
  currentLine: number | null;
  /** Every line the op's micro-steps touched. */
  touched: ReadonlySet<number>;
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
  /** Built lines per source text, so switching files back and forth is cheap. */
  built: Map<string, Built>;
}
const views = new WeakMap<HTMLElement, Refs>();

export function renderCodeView(container: HTMLElement, data: CodeViewData): void {
  let refs = views.get(container);
  if (!refs) {
    const path = h("p", { class: "code-path" });
    const pre = h("pre", { class: "code", tabindex: 0, "aria-label": "Algorithm source" });
    container.replaceChildren(path, pre);
    refs = { path, pre, lines: [], source: null, current: null, built: new Map() };
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
