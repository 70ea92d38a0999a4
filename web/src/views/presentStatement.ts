// Presentation mode's statement line: the op in view as the program wrote it
// (`b = alloc u64`), what it did and its measured cost. The editor is put away on a
// projector, so without it the room would see the map change and not the
// line that changed it. Shown only while presenting (present.css); drawn from
// (step, the op's line, its cost) alone.

import { h, setText } from "./dom";
import "./present.css";

export interface PresentStatementData {
  /** The step in view (0: before the first op). */
  step: number;
  total: number;
  /** The op's line of the program, trimmed (null before the first op). */
  statement: string | null;
  /** What the op did, as the stepper says it ("b: 8 bytes at 0x10100, 7 bytes padding"). */
  outcome: string;
  /** The op's measured cost in words ("20 wasm instructions · 2 conditional branches (fast path)"), when measured. */
  cost: string | null;
}

interface Refs {
  root: HTMLElement;
  label: HTMLElement;
  code: HTMLElement;
  outcome: HTMLElement;
  cost: HTMLElement;
}

const views = new WeakMap<HTMLElement, Refs>();

function build(mount: HTMLElement): Refs {
  const label = h("span", { class: "present-statement-label" });
  const code = h("code", { class: "present-statement-code" });
  const outcome = h("span", { class: "present-statement-outcome" });
  const cost = h("span", { class: "present-statement-cost" });
  const root = h("p", { class: "present-statement-line" }, label, code, outcome, cost);
  mount.replaceChildren(root);
  return { root, label, code, outcome, cost };
}

/** "Op 2 of 5 ran" before the statement, or what is on screen before the first op. */
export function statementLabel(step: number, total: number): string {
  return step === 0 ? `Before the first of ${total} ops` : `Op ${step} of ${total}:`;
}

export function renderPresentStatement(mount: HTMLElement, data: PresentStatementData): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root)) {
    refs = build(mount);
    views.set(mount, refs);
  }
  setText(refs.label, statementLabel(data.step, data.total));
  setText(refs.code, data.statement ?? "");
  refs.code.hidden = data.statement === null;
  setText(refs.outcome, data.outcome);
  setText(refs.cost, data.cost ?? "");
  refs.cost.hidden = data.cost === null;
}
