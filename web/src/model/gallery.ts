// Known behaviours of real arenas, replayed: short programs that reproduce a
// documented behaviour, each citing where it is documented. The programs are
// data (gallery.json), so the Programs menu can list them and the core's
// tests can check them: crates/core/tests/gallery.rs runs each program on its
// allocators and checks every number its claim states against the trace.

import type { RunSettings } from "../wasm/config";
import raw from "./gallery.json";

export interface GallerySource {
  title: string;
  url?: string;
}

/** One allocator to run the program on, with its settings (absent in the data: the preset's default, 64-bit). */
export type GalleryRun = RunSettings;

export interface GalleryEntry {
  id: string;
  title: string;
  source: GallerySource;
  /** The first is the allocator the behaviour is about; others to compare. */
  allocators: GalleryRun[];
  program: string;
  /** What the trace shows, in one or two sentences (checked by gallery.rs). */
  claim: string;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);

function fail(where: string, what: string): never {
  throw new Error(`gallery.json: ${where}: ${what}`);
}

function text(o: Obj, key: string, where: string): string {
  const v = o[key];
  if (typeof v !== "string" || v === "") fail(where, `"${key}" is not a non-empty string`);
  return v;
}

function run(v: unknown, where: string): GalleryRun {
  if (!isObj(v)) fail(where, "not an object");
  const r: GalleryRun = { allocator: text(v, "allocator", where), target: "64", capacity: null, minAlign: null };
  const target = v["target"];
  if (target !== undefined) {
    if (target !== "64" && target !== "wasm32") fail(where, '"target" is not "64" or "wasm32"');
    r.target = target;
  }
  const capacity = v["capacity"];
  if (capacity !== undefined) {
    if (typeof capacity !== "number" || !Number.isInteger(capacity) || capacity <= 0) fail(where, '"capacity" is not a positive integer');
    r.capacity = capacity;
  }
  const child = v["child"];
  if (child !== undefined) {
    if (typeof child !== "string" || !/^[a-z][a-z0-9-]*$/.test(child)) fail(where, '"child" is not a child allocator\'s name');
    r.child = child;
  }
  return r;
}

/** Validates the gallery's data; throws naming the first bad field. */
export function parseGallery(value: unknown): GalleryEntry[] {
  if (!Array.isArray(value) || value.length === 0) fail("root", "not a non-empty array");
  const ids = new Set<string>();
  return value.map((e, i): GalleryEntry => {
    let where = `[${i}]`;
    if (!isObj(e)) fail(where, "not an object");
    const id = text(e, "id", where);
    where = id;
    if (ids.has(id)) fail(where, "the id is used twice");
    ids.add(id);
    const src = e["source"];
    if (!isObj(src)) fail(where, '"source" is not an object');
    const source: GallerySource = { title: text(src, "title", `${where}.source`) };
    if (src["url"] !== undefined) source.url = text(src, "url", `${where}.source`);
    const runs = e["allocators"];
    if (!Array.isArray(runs) || runs.length === 0) fail(where, '"allocators" is not a non-empty array');
    return {
      id,
      title: text(e, "title", where),
      source,
      allocators: runs.map((r, j) => run(r, `${where}.allocators[${j}]`)),
      program: text(e, "program", where),
      claim: text(e, "claim", where),
    };
  });
}

export const GALLERY: readonly GalleryEntry[] = parseGallery(raw as unknown);

export function galleryById(id: string): GalleryEntry | undefined {
  return GALLERY.find((e) => e.id === id);
}
