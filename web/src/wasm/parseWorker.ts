// Parses a long program in a worker, on an instance of the trace module of
// its own: the page's thread keeps taking keystrokes while a million lines
// are read, and the page's instance, which runs the program, never holds its
// text (the words it gets back are about a third of it). One request at a
// time; the client ends a worker whose answer is no longer wanted.
//
// It loads the app's build of the module, the one built for speed
// (pkg-trace-fast): the same file the page has fetched already, and it reads
// a million lines in about half the time the build for size takes.

import init, { lastPanic, parseProgram } from "../../pkg-trace-fast/trace.js";
import { internalError } from "./errors";
import { parseParseJob, type ParseReply } from "./parseMessages";

const ready = init();
const scope = globalThis as unknown as {
  addEventListener: (type: "message", f: (e: MessageEvent<unknown>) => void) => void;
  postMessage: (reply: ParseReply, transfer?: Transferable[]) => void;
};

scope.addEventListener("message", (e) => {
  const job = parseParseJob(e.data);
  if (!job) return;
  const { id, source } = job;
  void ready.then(
    () => {
      try {
        const parsed = parseProgram(source);
        const error = parsed.error();
        if (error !== undefined) {
          parsed.free();
          scope.postMessage({ id, kind: "error", json: error });
          return;
        }
        const words = parsed.words();
        parsed.free();
        scope.postMessage({ id, kind: "words", words }, [words.buffer]);
      } catch (thrown) {
        scope.postMessage({ id, kind: "trapped", json: JSON.stringify(internalError(thrown, lastPanic)) });
      }
    },
    (error: unknown) => {
      scope.postMessage({ id, kind: "trapped", json: JSON.stringify({ line: 1, column: 1, message: `the parser did not load in its worker (${error instanceof Error ? error.message : String(error)})` }) });
    },
  );
});
