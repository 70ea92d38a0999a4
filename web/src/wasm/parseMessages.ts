// The messages between the page and its parse worker, and the guards each
// side reads them through: anything but the one shape is refused, as every
// message listener here does.

export interface ParseJob {
  id: number;
  source: string;
}

export type ParseReply =
  | { id: number; kind: "words"; words: Uint32Array }
  /** A program error, as the engine's JSON. */
  | { id: number; kind: "error"; json: string }
  /** The module trapped (an internal error, as JSON): this worker's instance is spent. */
  | { id: number; kind: "trapped"; json: string };

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
/** Longest program text the page sends: the engine's own limit (crates/core MAX_SOURCE_BYTES, web/src/model/limits.ts). */
const MAX_SOURCE = 32_000_000;

/** A job for the worker, or null. */
export function parseParseJob(data: unknown): ParseJob | null {
  if (!isRecord(data)) return null;
  const id = own(data, "id");
  const source = own(data, "source");
  if (!isId(id) || typeof source !== "string" || source.length > MAX_SOURCE) return null;
  return { id, source };
}

/** The worker's reply, or null. */
export function parseParseReply(data: unknown): ParseReply | null {
  if (!isRecord(data)) return null;
  const id = own(data, "id");
  const kind = own(data, "kind");
  if (!isId(id)) return null;
  if (kind === "words") {
    const words = own(data, "words");
    return words instanceof Uint32Array ? { id, kind, words } : null;
  }
  const json = own(data, "json");
  if ((kind === "error" || kind === "trapped") && typeof json === "string") return { id, kind, json };
  return null;
}
