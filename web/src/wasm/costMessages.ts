// The two messages between the page and its cost worker, and the guards each
// side parses them through. A dedicated worker hears only the page that made
// it, and the page hears the worker only on that Worker object; the guards
// still refuse anything but the one shape, as every message listener here does.

import type { RunConfig } from "./config";
import type { Target } from "./types";

export interface CostJob {
  id: number;
  config: RunConfig;
}

export interface CostReply {
  id: number;
  json: string;
  /** The module trapped: this worker's instance is spent. */
  trapped?: boolean;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const own = (o: Record<string, unknown>, key: string): unknown => (Object.hasOwn(o, key) ? o[key] : undefined);
const isId = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;
const setting = (v: unknown): v is number | null => v === null || (typeof v === "number" && Number.isSafeInteger(v) && v > 0);
/** Longest program text the page sends: the engine's own limit (crates/core MAX_SOURCE_BYTES, web/src/model/limits.ts). */
const MAX_SOURCE = 32_000_000;

/** A job for the worker, or null. */
export function parseCostJob(data: unknown): CostJob | null {
  if (!isRecord(data)) return null;
  const id = own(data, "id");
  const config = own(data, "config");
  if (!isId(id) || !isRecord(config)) return null;
  const source = own(config, "source");
  const allocator = own(config, "allocator");
  const target = own(config, "target");
  const capacity = own(config, "capacity");
  const minAlign = own(config, "minAlign");
  const child = own(config, "child");
  if (typeof source !== "string" || source.length > MAX_SOURCE) return null;
  if (typeof allocator !== "string" || allocator.length > 64) return null;
  if (target !== "64" && target !== "wasm32") return null;
  if (!setting(capacity) || !setting(minAlign)) return null;
  if (child !== undefined && child !== null && (typeof child !== "string" || child.length > 32)) return null;
  const job: CostJob = { id, config: { source, allocator, target: target as Target, capacity, minAlign } };
  if (typeof child === "string") job.config.child = child;
  return job;
}

/** A reply from the worker, or null. */
export function parseCostReply(data: unknown): CostReply | null {
  if (!isRecord(data)) return null;
  const id = own(data, "id");
  const json = own(data, "json");
  const trapped = own(data, "trapped");
  if (!isId(id) || typeof json !== "string") return null;
  if (trapped !== undefined && typeof trapped !== "boolean") return null;
  return trapped ? { id, json, trapped } : { id, json };
}
