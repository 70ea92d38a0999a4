// Costs measured off the main thread (costWorker.ts). Where a module worker
// cannot start (an old browser, a policy), the cost module runs on the page
// instead.

import type { RunConfig } from "./config";
import { parseCostReply, type CostJob } from "./costMessages";
import { parseCosts, type CostsResult } from "./costModule";
import { loadCostModule } from "./load";

let worker: Worker | null | undefined;
let nextId = 0;
const waiting = new Map<number, { config: RunConfig; resolve: (result: CostsResult) => void }>();

const onPage = (config: RunConfig): Promise<CostsResult> => loadCostModule().then((m) => m.costs(config));

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
        onPage(job.config).then(job.resolve, (error: unknown) =>
          job.resolve({ unavailable: `the cost module did not load (${error instanceof Error ? error.message : String(error)})` }),
        );
      }
    });
    return w;
  } catch {
    return null;
  }
}

/** The program's costs, real-crate run and baseline, measured in a worker when one can run. */
export function measureCosts(config: RunConfig): Promise<CostsResult> {
  if (worker === undefined) worker = typeof Worker === "function" ? start() : null;
  const w = worker;
  if (!w) return onPage(config);
  return new Promise((resolve) => {
    const id = nextId++;
    waiting.set(id, { config, resolve });
    const job: CostJob = { id, config };
    w.postMessage(job);
  });
}
