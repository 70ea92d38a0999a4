export type * from "./types";
export { TRACE_VERSION } from "./types";
export { adaptModule, createEngine, parseTraceResult, type Engine, type WasmExports } from "./facade";
export * from "./traceView";
