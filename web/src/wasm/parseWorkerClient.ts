// The page's side of the parse worker (parseWorker.ts). A long program is
// parsed there and only its words come back, so a keystroke never waits for
// a million lines to be read, and the page's instance never holds the text.
// One parse at a time: a newer one (or an abort) ends the worker under way,
// since a parse cannot be stopped halfway, and the next parse starts a fresh
// one.

import { parseProgramError } from "./errors";
import { parseParseReply, type ParseJob } from "./parseMessages";
import type { ProgramError } from "./types";

export type ParseOutcome = { kind: "words"; words: Uint32Array } | { kind: "failed"; error: ProgramError } | { kind: "cancelled" } | { kind: "unavailable" };

/** Programs at least this long (UTF-16 units) are parsed in the worker; shorter ones parse in less than a frame. */
export const PARSE_IN_WORKER_CHARS = 200_000;

let worker: Worker | null = null;
let nextId = 1;
let pending: { id: number; resolve: (o: ParseOutcome) => void } | null = null;

function start(): Worker | null {
  try {
    const w = new Worker(new URL("./parseWorker.ts", import.meta.url), { type: "module", name: "bump-lab parser" });
    w.addEventListener("message", (e: MessageEvent<unknown>) => {
      const reply = parseParseReply(e.data);
      if (!reply || !pending || reply.id !== pending.id) return;
      const { resolve } = pending;
      pending = null;
      if (reply.kind === "words") resolve({ kind: "words", words: reply.words });
      else {
        // A trapped instance is spent: the next parse gets a fresh worker.
        if (reply.kind === "trapped") stop();
        resolve({ kind: "failed", error: parseProgramError(reply.json) });
      }
    });
    w.addEventListener("error", () => {
      stop();
      pending?.resolve({ kind: "unavailable" });
      pending = null;
    });
    return w;
  } catch {
    return null;
  }
}

function stop(): void {
  worker?.terminate();
  worker = null;
}

/**
 * Starts the worker ahead of the first long program, once the page is idle:
 * its module compiles then, not while a pasted or opened recording waits
 * for its parse (about 200 ms of a million lines' first open).
 */
export function warmParser(): void {
  const warm = (): void => {
    worker ??= start();
  };
  if (typeof requestIdleCallback === "function") requestIdleCallback(warm, { timeout: 5000 });
  else setTimeout(warm, 1000);
}

/** Parses `source` in the worker; `unavailable` when no worker can run (the caller parses it itself). */
export function parseInWorker(source: string, signal?: AbortSignal): Promise<ParseOutcome> {
  // The parse under way is not wanted any more: end it.
  if (pending) {
    pending.resolve({ kind: "cancelled" });
    pending = null;
    stop();
  }
  if (signal?.aborted) return Promise.resolve({ kind: "cancelled" });
  worker ??= start();
  const w = worker;
  if (!w) return Promise.resolve({ kind: "unavailable" });
  const id = nextId++;
  return new Promise<ParseOutcome>((resolve) => {
    pending = { id, resolve };
    signal?.addEventListener(
      "abort",
      () => {
        if (pending?.id !== id) return;
        pending = null;
        stop();
        resolve({ kind: "cancelled" });
      },
      { once: true },
    );
    const job: ParseJob = { id, source };
    w.postMessage(job);
  });
}
