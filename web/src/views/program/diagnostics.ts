// The program's errors as the editor's lint diagnostics: each at the token
// its line and column point at (the engine counts columns in characters),
// or at the end of its line when the column is past it ("found the end of
// the line").

import type { Text } from "@codemirror/state";
import type { Diagnostic } from "@codemirror/lint";
import type { ProgramError } from "../../wasm/types";
import { errorTokenIndex, tokenizeLine } from "../../model/highlight";

/** The document range of the token error `e` points at; a point at the line's end past it. */
export function errorRange(doc: Text, e: ProgramError): { from: number; to: number } {
  const lineNo = Math.min(Math.max(1, e.line), doc.lines);
  const line = doc.line(lineNo);
  const tokens = tokenizeLine(line.text);
  const k = errorTokenIndex(tokens, e.column);
  if (k === "end") return { from: line.to, to: line.to };
  let from = line.from;
  for (let i = 0; i < k; i++) from += tokens[i]?.text.length ?? 0;
  return { from, to: from + (tokens[k]?.text.length ?? 0) };
}

/** One diagnostic per error, as `line:column: message` lists them. */
export function diagnosticsOf(doc: Text, errors: readonly ProgramError[]): Diagnostic[] {
  return errors.map((e) => ({ ...errorRange(doc, e), severity: "error", message: `${e.line}:${e.column}: ${e.message}` }));
}
