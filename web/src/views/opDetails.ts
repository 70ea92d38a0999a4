// The current op's events in order, each with a badge for its kind, and the
// micro-steps under the events that ran recorded code, values in hex. Notes
// (quirks of the reference) are asides. The micro-step in view (Shift+←/→) is
// highlighted and named: "Micro-step 2 of 4: round down to the alignment";
// those after it have not run yet, so their values stay hidden, as do the
// events (placed, padding) their outcome reports.

import type { Op } from "../wasm/types";
import type { OpCostSummary } from "../model/costs";
import { hexWithDecimal } from "../model/format";
import { shapeSentence } from "../model/shape";
import { h, markCurrent, setText } from "./dom";
import { renderOpCost } from "./opCost";

export interface OpDetailsData {
  op: Op | undefined;
  /** The program line the op came from, as typed. */
  sourceLine: string | null;
  /** What the op's code executed (null: before the first op, or not measured). */
  cost: OpCostSummary | null;
  /** Index of the micro-step in view among the op's (flattened); null: it has none. */
  micro: number | null;
}

/** Badge text where it differs from the kind with spaces for underscores. */
const EVENT_LABELS: Partial<Record<string, string>> = {
  steps: "code",
  out_of_memory: "out of memory",
  grew_in_place: "grew in place",
  shrank_in_place: "shrank in place",
  not_reclaimed: "not reclaimed",
};

/** Colour family of a badge, by event kind (unknown kinds stay neutral). */
const EVENT_TONES: Partial<Record<string, string>> = {
  bump: "accent",
  placed: "accent",
  grew_in_place: "accent",
  shrank_in_place: "accent",
  new_chunk: "chunk",
  chunk_freed: "chunk",
  chunk_reused: "chunk",
  no_room: "warn",
  leaked: "warn",
  not_reclaimed: "warn",
  moved: "warn",
  out_of_memory: "error",
  reclaimed: "good",
  freed: "good",
  restored: "good",
  reset: "good",
};

function eventLabel(kind: string): string {
  return EVENT_LABELS[kind] ?? kind.replaceAll("_", " ");
}

interface Refs {
  heading: HTMLElement;
  micro: HTMLElement;
  cost: HTMLElement;
  body: HTMLElement;
  key: string;
  /** The op's micro-step items, in order (flattened across events). */
  steps: HTMLElement[];
  /** Each event's line, with the micro-step index from which its outcome has happened (-1: from the start). */
  events: { el: HTMLElement; from: number }[];
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
    const micro = h("p", { class: "op-micro" });
    const cost = h("div", { class: "op-cost" });
    const body = h("div", { class: "op-body" });
    container.replaceChildren(heading, micro, cost, body);
    refs = { heading, micro, cost, body, key: "", steps: [], events: [] };
    views.set(container, refs);
  }
  renderOpCost(refs.cost, data.op ? data.cost : null);
  const { op } = data;
  const key = op ? `${op.index}|${op.kind}|${data.sourceLine ?? ""}|${JSON.stringify(op.events)}` : "none";
  if (key !== refs.key) {
    refs.key = key;
    build(refs, data);
  }
  const count = refs.steps.length;
  const label = data.micro !== null ? refs.steps[data.micro]?.dataset["label"] : undefined;
  setText(refs.micro, label !== undefined && data.micro !== null ? `Micro-step ${data.micro + 1} of ${count}: ${label}` : "");
  refs.micro.hidden = label === undefined;
  refs.steps.forEach((el, i) => {
    markCurrent(el, i === data.micro);
    // Micro-steps after the one in view have not run: their values would tell the future.
    const pending = data.micro !== null && i > data.micro;
    el.classList.toggle("is-pending", pending);
    const values = el.querySelector<HTMLElement>(".values");
    const tag = el.querySelector<HTMLElement>(".step-pending");
    if (values) values.hidden = pending;
    if (tag) tag.hidden = !pending;
  });
  // An event reports what its micro-steps did: it shows once they have all run.
  for (const { el, from } of refs.events) el.hidden = data.micro !== null && data.micro < from;
}

function build(refs: Refs, data: OpDetailsData): void {
  const { op } = data;
  refs.steps = [];
  refs.events = [];

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
  // What the compiler knows of the layout: the cost above was measured with it.
  if (op.shape) {
    parts.push(
      h("p", { class: "event op-shape", "data-shape": op.shape.kind }, h("span", { class: "badge tone-neutral" }, "layout"), " ", shapeSentence(op.shape, op.kind)),
    );
  }
  for (const event of op.events) {
    const tone = EVENT_TONES[event.kind] ?? "neutral";
    const badge = h("span", { class: `badge tone-${tone}` }, eventLabel(event.kind));
    const line =
      event.kind === "note"
        ? h("aside", { class: "event event-note", "data-kind": event.kind }, badge, " ", event.text)
        : h("p", { class: `event event-${event.kind}`, "data-kind": event.kind }, badge, " ", event.text);
    parts.push(line);
    const steps = event.steps ?? [];
    refs.events.push({ el: line, from: refs.steps.length + steps.length - 1 });
    if (steps.length === 0) continue;
    // Numbered across the op's events, as "Micro-step 2 of 4" counts them.
    const first = refs.steps.length + 1;
    const items = steps.map((s, i) =>
      h(
        "li",
        { class: "step", "data-label": s.label },
        h("span", { class: "step-num", "aria-hidden": "true" }, String(first + i)),
        h(
          "div",
          { class: "step-main" },
          h(
            "div",
            { class: "step-head" },
            h("span", { class: "step-label" }, s.label),
            h("span", { class: "step-line", title: s.file ?? "" }, `line ${s.line}`),
          ),
          h("div", { class: "values" }, ...s.values.map((v) => valueCell(v.name, v.value))),
          h("p", { class: "step-pending", hidden: true }, "not run yet"),
        ),
      ),
    );
    refs.steps.push(...items);
    parts.push(h("ol", { class: "steps", start: first, "aria-label": "Micro-steps of the algorithm" }, ...items));
  }
  refs.body.replaceChildren(...parts);
}
