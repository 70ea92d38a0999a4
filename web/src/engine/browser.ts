// Loads the wasm module once in the browser. Vite emits bumplab_bg.wasm as a
// hashed asset and rewrites the `new URL(..., import.meta.url)` in bumplab.js.

import init, * as bumplab from "../../pkg/bumplab.js";
import { adaptModule, createEngine, type Engine } from "./facade";

let loading: Promise<Engine> | undefined;

export function loadEngine(): Promise<Engine> {
  loading ??= init().then(() => createEngine(adaptModule(bumplab)));
  return loading;
}
