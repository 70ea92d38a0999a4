// The cost module in a worker: measuring a program's costs replays every op
// on the instrumented code and the real crate, up to 2 s for 100,000 ops on
// this project's VM. Here that time never holds the page. One request at a
// time, answered with the `traceCosts` JSON (or an `error` JSON when the
// module traps: the client then starts a fresh worker).

import init, { lastPanic, traceCosts } from "../../pkg-cost/cost.js";
import { wasmArgs } from "./config";
import { parseCostJob, type CostReply } from "./costMessages";
import { internalError } from "./errors";

const ready = init();
const scope = globalThis as unknown as { addEventListener: (type: "message", f: (e: MessageEvent<unknown>) => void) => void; postMessage: (reply: CostReply) => void };

scope.addEventListener("message", (e) => {
  const job = parseCostJob(e.data);
  if (!job) return;
  const { id, config } = job;
  void ready.then(
    () => {
      let reply: CostReply;
      try {
        reply = { id, json: traceCosts(...wasmArgs(config)) };
      } catch (thrown) {
        reply = { id, trapped: true, json: JSON.stringify({ error: internalError(thrown, lastPanic) }) };
      }
      scope.postMessage(reply);
    },
    (error: unknown) => {
      const message = `the cost module did not load in its worker (${error instanceof Error ? error.message : String(error)})`;
      scope.postMessage({ id, trapped: true, json: JSON.stringify({ error: { line: 1, column: 1, message } }) });
    },
  );
});
