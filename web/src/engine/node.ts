// Node-only loader for unit tests: `init()` cannot fetch a file: URL there.

import { readFileSync } from "node:fs";
import * as bumplab from "../../pkg/bumplab.js";
import { adaptModule, createEngine, type Engine } from "./facade";

let engine: Engine | undefined;

export function loadEngineSync(): Engine {
  if (!engine) {
    bumplab.initSync({ module: readFileSync(new URL("../../pkg/bumplab_bg.wasm", import.meta.url)) });
    engine = createEngine(adaptModule(bumplab));
  }
  return engine;
}
