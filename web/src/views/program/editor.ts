// The program editor: CodeMirror 6, which draws only the lines in view, so a
// recording of a million lines is edited as a short program is. Its content
// is the textbox named "Program" (the panel's label), described by the error
// list and the hint; it keeps the browser's editing keys, undo, search
// (Ctrl/Cmd+F), and Tab moving focus on. What it marks (errors, the op in
// view) comes from the page's state through `show`.

import { EditorState, Transaction } from "@codemirror/state";
import { EditorView, drawSelection, keymap, lineNumbers } from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, isolateHistory } from "@codemirror/commands";
import { lintGutter, setDiagnostics } from "@codemirror/lint";
import { search, searchKeymap } from "@codemirror/search";
import type { ProgramError } from "../../wasm/types";
import { allErrors } from "../../wasm/errors";
import { diagnosticsOf, errorRange } from "./diagnostics";
import { programHighlight } from "./highlight";
import { marksField, programMarks, setMarks } from "./marks";

export interface ProgramEditorOptions {
  /** The content's id, and the ids that label and describe it. */
  id: string;
  labelledBy: string;
  describedBy: string;
  /** Called after the text changed by typing, a paste or `replace`, with a way to read it. */
  /** `typing`: the edit is keys typed or deleted, and more may follow at once. */
  onChange(text: () => string, lines: number, typing: boolean): void;
}

export interface ProgramEditor {
  readonly view: EditorView;
  /** The whole text (a copy: costs the text's length). */
  text(): string;
  /** Replaces the whole text as one edit (undo brings the old back), the caret at the start. */
  replace(text: string, options?: { undoable?: boolean }): void;
  /** The errors and the line of the op in view; scrolls that line into view unless the editor has focus. */
  show(error: ProgramError | null, currentLine: number | null): void;
  /** Moves the caret to `error`'s place and focuses the editor. */
  goTo(error: ProgramError): void;
}

/**
 * Whether an edit is a key's: keys typed or deleted come one after another,
 * so more may follow at once. CodeMirror names a typed character
 * "input.type", but Enter, Tab and a copied line are plain "input" (or
 * "input.indent", "input.copyline"), and a moved or indented line is
 * "move.line" or "indent". A paste, a drop, an undo or a program set from
 * outside (no user event) is the whole edit.
 */
export function typedEdit(tr: Transaction): boolean {
  if (tr.isUserEvent("input.paste") || tr.isUserEvent("input.drop")) return false;
  return tr.isUserEvent("input") || tr.isUserEvent("delete") || tr.isUserEvent("move.line") || tr.isUserEvent("indent");
}

export function createProgramEditor(parent: HTMLElement, options: ProgramEditorOptions): ProgramEditor {
  let shownError: ProgramError | null = null;
  let shownLine: number | null = null;
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: "",
      extensions: [
        lineNumbers(),
        history(),
        drawSelection(),
        search({ top: true }),
        keymap.of([...defaultKeymap, ...historyKeymap, ...searchKeymap]),
        programMarks(),
        programHighlight(),
        lintGutter(),
        EditorView.contentAttributes.of({
          id: options.id,
          "aria-labelledby": options.labelledBy,
          "aria-describedby": options.describedBy,
          spellcheck: "false",
          autocapitalize: "off",
          autocorrect: "off",
        }),
        EditorView.updateListener.of((u) => {
          if (!u.docChanged) return;
          const typing = u.transactions.some(typedEdit);
          options.onChange(() => u.state.doc.toString(), u.state.doc.lines, typing);
        }),
      ],
    }),
  });

  const text = (): string => view.state.doc.toString();

  return {
    view,
    text,
    replace(next, { undoable = true } = {}) {
      // The caret goes to the top and the editor's own scroller with it, the
      // page staying where it is: CodeMirror's scrollIntoView would scroll the
      // page too, and on a phone (the editor under the map) a share link
      // opened at the editor instead of the page's top.
      view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: next },
        selection: { anchor: 0 },
        // An undoable replacement is an undo step of its own: CodeMirror
        // joins changes made within half a second, and a program chosen just
        // after the page set its first one would undo to an empty editor.
        // One that is not undoable (the page setting the text it shows)
        // stays out of the history.
        annotations: undoable ? isolateHistory.of("full") : Transaction.addToHistory.of(false),
      });
      view.scrollDOM.scrollTop = 0;
    },
    show(error, currentLine) {
      const doc = view.state.doc;
      const errors = error ? allErrors(error) : [];
      const columns = new Map<number, number>();
      for (const e of errors) if (!columns.has(e.line)) columns.set(e.line, e.column);
      const marks = view.state.field(marksField);
      const sameErrors = error === shownError;
      const sameLine = currentLine === marks.current && (error !== null) === marks.failed;
      if (sameErrors && sameLine) return;
      const effects = [setMarks.of({ errors: columns, current: currentLine, failed: error !== null })];
      const spec = sameErrors ? { effects } : { effects: [...effects, ...(setDiagnostics(view.state, diagnosticsOf(doc, errors)).effects as never[])] };
      // Stepping moves the current line into view, once per line so the reader
      // can scroll away from it, and never under the caret of someone typing.
      const scroll = currentLine !== null && currentLine !== shownLine && error === null && !view.hasFocus && currentLine <= doc.lines;
      view.dispatch(spec);
      // The editor's own scroller only: CodeMirror's scrollIntoView also
      // scrolls the page, which on a phone (the editor above the map) threw
      // the reader away from the map at every step.
      if (scroll) {
        const from = doc.line(currentLine).from;
        view.requestMeasure({
          read: (v) => v.lineBlockAt(from),
          write: (block, v) => {
            const box = v.scrollDOM;
            const margin = 60;
            const top = block.top + v.documentPadding.top;
            const bottom = block.bottom + v.documentPadding.top;
            if (top - margin < box.scrollTop) box.scrollTop = Math.max(0, top - margin);
            else if (bottom + margin > box.scrollTop + box.clientHeight) box.scrollTop = bottom + margin - box.clientHeight;
          },
        });
      }
      shownError = error;
      shownLine = currentLine;
    },
    goTo(e) {
      const { from } = errorRange(view.state.doc, e);
      view.dispatch({ selection: { anchor: from }, scrollIntoView: true });
      view.focus();
    },
  };
}
