// Costs measured off the main thread (costWorker.ts). Where a module worker
// cannot start (an old browser, a policy), the metered module runs on the
// page instead, as it does for the embed.

import { loadCostModule, parseCosts, type CostsResult } from "./browser";
import { parseCostReply, type CostJob } from "./costMessages";
import type { TraceRequest } from "./types";

let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, { request: TraceRequest; resolve: (result: CostsResult) => void }>();

const onPage = (request: TraceRequest): Promise<CostsResult> => loadCostModule().then((m) => m.costs(request));

function start(): Worker | null {
  try {
    const w = new Worker(new URL("./costWorker.ts", import.meta.url), { type: "module", name: "bump-lab costs" });
    w.addEventListener("message", (e: MessageEvent<unknown>) => {
      const reply = parseCostReply(e.data);
      if (!reply) return;
      const job = waiting.get(reply.id);
      waiting.delete(reply.id);
      job?.resolve(parseCosts(reply.json));
      // A trapped instance is spent: the next request gets a fresh worker.
      if (reply.trapped && worker === w) {
        w.terminate();
        worker = undefined;
      }
    });
    w.addEventListener("error", () => {
      // It could not start (or its script failed): the page measures on its
      // own thread from now on, starting with what the worker had.
      w.terminate();
      worker = null;
      const jobs = [...waiting.values()];
      waiting.clear();
      for (const job of jobs) {
        onPage(job.request).then(job.resolve, (error: unknown) =>
          job.resolve({ unavailable: `the metered module did not load (${error instanceof Error ? error.message : String(error)})` }),
        );
      }
    });
    return w;
  } catch {
    return null;
  }
}

/** The program's costs, real-crate run and baseline, measured in a worker when one can run. */
export function measureCosts(request: TraceRequest): Promise<CostsResult> {
  if (worker === undefined) worker = typeof Worker === "function" ? start() : null;
  const w = worker;
  if (!w) return onPage(request);
  return new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, { request, resolve });
    const job: CostJob = { id, request };
    w.postMessage(job);
  });
}
