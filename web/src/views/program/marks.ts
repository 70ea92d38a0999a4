// What the editor marks besides the text: the lines with errors (and where
// on them), and the line of the op in view. Set from the page's state with
// `setMarks`; the highlighter, the gutter and the diagnostics read them.

import { StateEffect, StateField, RangeSet, type Extension } from "@codemirror/state";
import { GutterMarker, gutterLineClass, type ViewUpdate } from "@codemirror/view";

export interface Marks {
  /** The column of the first error on each line with one (1-based, in code points). */
  errors: ReadonlyMap<number, number>;
  /** The line of the op in view, if any. */
  current: number | null;
  /** Whether the program failed: the current line is not shown then. */
  failed: boolean;
}

const NONE: Marks = { errors: new Map(), current: null, failed: false };

export const setMarks = StateEffect.define<Marks>();

export const marksField = StateField.define<Marks>({
  create: () => NONE,
  update(marks, tr) {
    for (const e of tr.effects) if (e.is(setMarks)) return e.value;
    return marks;
  },
});

/** Whether `update` set new marks. */
export function marksChanged(update: ViewUpdate): boolean {
  return update.startState.field(marksField) !== update.state.field(marksField);
}

class LineClass extends GutterMarker {
  constructor(override readonly elementClass: string) {
    super();
  }
}
const errorLine = new LineClass("is-error");
const currentLine = new LineClass("is-current");

/** The line numbers of error lines and of the current line, classed as the mirror's were. */
const gutterMarks = gutterLineClass.compute([marksField, "doc"], (state) => {
  const { errors, current, failed } = state.field(marksField);
  const doc = state.doc;
  const lines = [...errors.keys()].filter((n) => n >= 1 && n <= doc.lines);
  if (current !== null && !failed && current >= 1 && current <= doc.lines) lines.push(current);
  lines.sort((a, b) => a - b);
  return RangeSet.of(
    lines.map((n) => (errors.has(n) ? errorLine : currentLine).range(doc.line(n).from)),
    true,
  );
});

export function programMarks(): Extension {
  return [marksField, gutterMarks];
}
