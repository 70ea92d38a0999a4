// The program language in the editor: each line in view coloured by the
// tokens of model/highlight.ts (the engine's lexer's tokens, which a test
// holds to it), the line's number as `data-line`, and the current op's line
// shaded. Only the lines in view are tokenized, so a program of a million
// lines costs what its visible ones do.

import { RangeSetBuilder, type Extension } from "@codemirror/state";
import { Decoration, ViewPlugin, WidgetType, type DecorationSet, type EditorView, type ViewUpdate } from "@codemirror/view";
import { errorTokenIndex, tokenizeLine } from "../../model/highlight";
import { marksField, marksChanged } from "./marks";

/** Longer lines are drawn uncoloured: tokenizing one at every update would hold each keystroke. */
const MAX_HIGHLIGHT_CHARS = 10_000;

const tokenMarks = new Map<string, Decoration>();
function tokenMark(kind: string): Decoration {
  let mark = tokenMarks.get(kind);
  if (!mark) tokenMarks.set(kind, (mark = Decoration.mark({ class: `tok tok-${kind}` })));
  return mark;
}

/** The token an error points at, with the column the engine gave. */
function errorMark(kind: string, column: number): Decoration {
  return Decoration.mark({ class: `tok tok-${kind} is-error`, attributes: { "data-error-column": String(column) } });
}

/** An error past the line's last character ("found the end of the line"): one marked blank cell. */
class EndOfLineError extends WidgetType {
  constructor(readonly column: number) {
    super();
  }
  override eq(other: EndOfLineError): boolean {
    return other.column === this.column;
  }
  toDOM(): HTMLElement {
    const span = document.createElement("span");
    span.className = "tok-eol is-error";
    span.dataset["errorColumn"] = String(this.column);
    span.textContent = " ";
    return span;
  }
}

function lineDecoration(line: number, current: boolean): Decoration {
  return Decoration.line({ class: current ? "code-line is-current" : "code-line", attributes: { "data-line": String(line) } });
}

function decorate(view: EditorView): DecorationSet {
  const builder = new RangeSetBuilder<Decoration>();
  const { current, failed, errors } = view.state.field(marksField);
  const doc = view.state.doc;
  // A long line can be in more than one visible range (CodeMirror draws the
  // part of it in view): each line is decorated once, in order.
  let done = 0;
  for (const { from, to } of view.visibleRanges) {
    let pos = from;
    while (pos <= to) {
      const line = doc.lineAt(pos);
      pos = line.to + 1;
      if (line.number <= done) continue;
      done = line.number;
      builder.add(line.from, line.from, lineDecoration(line.number, line.number === current && !failed));
      const errorColumn = errors.get(line.number);
      if (line.length <= MAX_HIGHLIGHT_CHARS || errorColumn !== undefined) {
        const tokens = tokenizeLine(line.text);
        const marked = errorColumn === undefined ? null : errorTokenIndex(tokens, errorColumn);
        const coloured = line.length <= MAX_HIGHLIGHT_CHARS;
        // Token columns count code points; the document's offsets UTF-16 units,
        // which a token's text length is.
        let offset = line.from;
        tokens.forEach((t, k) => {
          const end = offset + t.text.length;
          if (k === marked && errorColumn !== undefined) builder.add(offset, end, errorMark(t.kind, errorColumn));
          else if (coloured && t.kind !== "space") builder.add(offset, end, tokenMark(t.kind));
          offset = end;
        });
        if (marked === "end" && errorColumn !== undefined) builder.add(line.to, line.to, Decoration.widget({ widget: new EndOfLineError(errorColumn), side: 1 }));
      }
    }
  }
  return builder.finish();
}

/** The coloured tokens, line numbers and current line of the lines in view. */
export function programHighlight(): Extension {
  return ViewPlugin.fromClass(
    class {
      decorations: DecorationSet;
      constructor(view: EditorView) {
        this.decorations = decorate(view);
      }
      update(update: ViewUpdate): void {
        if (update.docChanged || update.viewportChanged || marksChanged(update)) this.decorations = decorate(update.view);
      }
    },
    { decorations: (v) => v.decorations },
  );
}
