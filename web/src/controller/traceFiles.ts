// Trace files in and out of the app. An import replays the file's program
// here and shows it only if every op lands where the file says; otherwise
// nothing changes. An export is the full trace (the cost module's, which
// carries each op's costs) of the configuration that made the map on screen.

import { loadCostModule } from "../wasm/load";
import { traceNow } from "../wasm/run";
import type { TraceModule } from "../wasm/traceModule";
import type { AllocatorInfo, Trace } from "../wasm/types";
import { parseTraceFile, replayDiffers } from "../share/traceFile";
import type { Action } from "../state/reducer";
import type { Tracer } from "./tracer";

export interface TraceFiles {
  /** Imports a trace file's text: what happened, in a sentence for the Share panel. */
  importTrace(text: string): Promise<string>;
  /** The trace on screen, or why there is none to export. */
  exportTrace(): Promise<Trace | string>;
}

export function traceFiles(module: TraceModule, allocators: readonly AllocatorInfo[], tracer: Tracer, dispatch: (a: Action) => void): TraceFiles {
  return {
    async importTrace(text) {
      const file = parseTraceFile(text, allocators);
      if (!file.ok) return file.error;
      await module.ready(file.config.allocator);
      const replay = traceNow(module, file.config);
      if (!replay.ok) return `The file's program does not run here: ${replay.error.line}:${replay.error.column}: ${replay.error.message}.`;
      const differs = replayDiffers(replay.view, file.ops);
      replay.run.free();
      if (differs !== null) return `The trace was not imported: ${differs}.`;
      tracer.cancel();
      dispatch({ type: "openConfig", config: file.config });
      return `Imported a trace of ${file.ops.length} ops on ${file.config.allocator}: its program is in the editor.`;
    },
    exportTrace() {
      // The configuration that made the map on screen (the settings may have changed since).
      const config = tracer.shownConfig();
      if (!config) return Promise.resolve("There is no traced program to export.");
      return loadCostModule().then(
        (m) => {
          const r = m.trace(config);
          return r.ok ? r.trace : `The trace could not be exported: ${r.error.message}`;
        },
        (error: unknown) => `The exporter (the cost module) did not load: ${error instanceof Error ? error.message : String(error)}. Try again.`,
      );
    },
  };
}
