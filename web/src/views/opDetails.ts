// The current op's events and the micro-steps the algorithm took, values in hex.

import type { Op } from "../engine/types";
import { hexWithDecimal } from "../model/format";
import { h, setText } from "./dom";

export interface OpDetailsData {
  op: Op | undefined;
  /** The program line the op came from, as typed. */
  sourceLine: string | null;
}

/** Badge text where it differs from the kind with spaces for underscores. */
const EVENT_LABELS: Partial<Record<string, string>> = {
  no_room: "no room",
  steps: "code",
};

interface Refs {
  heading: HTMLElement;
  body: HTMLElement;
  key: string;
}
const views = new WeakMap<HTMLElement, Refs>();

function valueCell(name: string, value: number): HTMLElement {
  const v = hexWithDecimal(value);
  return h(
    "span",
    { class: "value" },
    h("span", { class: "value-name" }, name),
    " ",
    h("code", { class: "value-hex" }, v.hex),
    v.decimal !== null ? h("span", { class: "value-dec" }, ` (${v.decimal})`) : null,
  );
}

export function renderOpDetails(container: HTMLElement, data: OpDetailsData): void {
  let refs = views.get(container);
  if (!refs) {
    const heading = h("p", { class: "op-heading" });
    const body = h("div", { class: "op-body" });
    container.replaceChildren(heading, body);
    refs = { heading, body, key: "" };
    views.set(container, refs);
  }
  const { op } = data;
  const key = op ? `${op.index}|${op.kind}|${data.sourceLine ?? ""}|${JSON.stringify(op.events)}` : "none";
  if (key === refs.key) return;
  refs.key = key;

  if (!op) {
    setText(refs.heading, "Before the first op");
    refs.body.replaceChildren(h("p", { class: "muted" }, "Step forward to run the first line of the program."));
    return;
  }
  refs.heading.replaceChildren(
    h("span", { class: "op-index" }, `Op ${op.index + 1}`),
    h("span", { class: "op-line" }, `line ${op.line}`),
    ...(data.sourceLine !== null ? [h("code", { class: "op-source" }, data.sourceLine.trim())] : []),
  );
  const parts: HTMLElement[] = [];
  for (const event of op.events) {
    parts.push(
      h(
        "p",
        { class: `event event-${event.kind}` },
        h("span", { class: "badge" }, EVENT_LABELS[event.kind] ?? event.kind.replaceAll("_", " ")),
        " ",
        event.text,
      ),
    );
    const steps = event.steps ?? [];
    if (steps.length === 0) continue;
    parts.push(
      h(
        "ol",
        { class: "steps", "aria-label": "Micro-steps of the algorithm" },
        ...steps.map((s, i) =>
          h(
            "li",
            { class: i === steps.length - 1 ? "step is-last" : "step" },
            h("span", { class: "step-num", "aria-hidden": "true" }, String(i + 1)),
            h(
              "div",
              { class: "step-main" },
              h(
                "div",
                { class: "step-head" },
                h("span", { class: "step-label" }, s.label),
                h("span", { class: "step-line" }, `line ${s.line}`),
              ),
              h("div", { class: "values" }, ...s.values.map((v) => valueCell(v.name, v.value))),
            ),
          ),
        ),
      ),
    );
  }
  refs.body.replaceChildren(...parts);
}
