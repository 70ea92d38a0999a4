// The current op's cost in the step panel: what its compiled code executed,
// how much of it was the slow path and why, and, when the trace has them, the
// real crate's count, whether its placement matches the model's, and the
// global allocator's count. All wasm numbers: x86-64 counts never appear here.

import type { OpCostSummary } from "../model/costs";
import { h } from "./dom";

const keys = new WeakMap<HTMLElement, string>();

export function renderOpCost(container: HTMLElement, summary: OpCostSummary | null): void {
  const key = JSON.stringify(summary);
  if (keys.get(container) === key) return;
  keys.set(container, key);
  container.hidden = summary === null;
  if (!summary) {
    container.replaceChildren();
    return;
  }
  const compare: HTMLElement[] = [];
  if (summary.real) compare.push(h("span", { class: "op-cost-real" }, summary.real));
  if (summary.baseline) compare.push(h("span", { class: "op-cost-baseline" }, summary.baseline));
  const parts: (HTMLElement | null)[] = [
    h(
      "p",
      { class: "op-cost-main" },
      h("span", { class: "badge tone-cost" }, "cost"),
      " ",
      h("span", { class: summary.slow ? "op-cost-text is-slow" : "op-cost-text" }, summary.text),
      " ",
      h("a", { class: "op-cost-how", href: "#cost-model" }, "how counted"),
    ),
    compare.length > 0 ? h("p", { class: "op-cost-compare" }, ...compare) : null,
    summary.realWhy ? h("p", { class: "op-cost-why muted" }, summary.realWhy) : null,
    summary.verdict
      ? h("p", { class: `op-cost-verdict ${summary.verdict.ok ? "is-match" : "is-mismatch"}` }, summary.verdict.text)
      : null,
    ...summary.notes.map((note) => h("p", { class: "op-cost-note muted" }, note)),
  ];
  container.replaceChildren(...parts.filter((p): p is HTMLElement => p !== null));
}
