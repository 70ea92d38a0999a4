// What a share link must keep reproducing: the layout the reader saw. The
// digest covers the chunks and where each op put its block, not the event
// wording or the measured costs, which may improve without changing what a
// link shows (tests/share-corpus/v1.json pins these digests). Test code:
// the runs are the page's, on the trace module.

import { opAt, type TraceView } from "../wasm/traceView";
import type { Op } from "../wasm/types";
import type { SharedState } from "../share/link";
import { viewResult } from "./runs";

/** The drawn facts of a run, in a fixed key order. */
export function layoutOf(trace: TraceView): unknown {
  const ops = Array.from({ length: trace.length }, (_, i) => opAt(trace, i) as Op);
  return {
    allocator: trace.allocator,
    target: trace.target,
    direction: trace.direction,
    chunks: trace.chunks.map((c) => [c.id, c.start, c.capacity, c.header, c.footer, c.created_by ?? null, c.freed_by ?? null]),
    ops: ops.map((o) => [
      o.index,
      o.kind,
      o.block ?? null,
      o.chunk ?? null,
      o.address ?? null,
      o.size ?? null,
      o.align ?? null,
      o.padding ?? null,
      o.moved ?? null,
      o.failed,
      o.bump_ptr ?? null,
    ]),
  };
}

export async function sha256Hex(text: string): Promise<string> {
  const hash = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(hash), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One digest per configuration the state shows: the main one, then each compare column. */
export async function stateDigests(state: SharedState): Promise<string[]> {
  const configs = [
    { allocator: state.allocator, target: state.target, capacity: state.capacity, minAlign: state.minAlign, child: state.child ?? null },
    ...(state.compare ?? []),
  ];
  const digests: string[] = [];
  for (const c of configs) {
    const r = viewResult({ ...c, source: state.source });
    digests.push(r.ok ? await sha256Hex(JSON.stringify(layoutOf(r.trace))) : `error: ${r.error.message}`);
  }
  return digests;
}
