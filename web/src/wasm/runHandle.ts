// A run of the trace module that outlives its wasm instance. When a call
// traps (a Rust panic: a bug), the instance's memory is whatever the panic
// left, so the adapter makes a fresh instance of the same module (`recover`);
// every run of the old one loses its wasm object. A run that was fine (the
// last good run on screen, a compare column) is made again on the new
// instance from what it was made from, the first time something asks it
// anything, and advanced as far as it had gone: runs are deterministic, so
// it answers as before. The run whose call trapped is not made again: it
// stays failed, with the trap as its error.

import type { ColumnName, TraceRunLike } from "./traceView";

/** What a wasm-bindgen `TraceRun` answers (the trace module's class). */
export interface WasmRun extends TraceRunLike {
  advance(maxOps: number): boolean;
  executed(): number;
  total(): number;
  error(): string | undefined;
  free(): void;
  memoryBytes(): number;
  longestRerun(): number;
  /** wasm-bindgen's: forgets the wasm object without a call into the module. */
  __destroy_into_raw?(): number;
}

/** A `TraceRun` whose wasm object the adapter may make again; see the file's comment. */
export class RunHandle implements WasmRun {
  private wasm: WasmRun | null;
  /** Ops the run had run before it lost its wasm object. */
  private reached = 0;
  private freed = false;
  /** Set when this run's own call trapped: it is not made again. */
  private trapped: string | undefined;

  constructor(
    private readonly make: () => WasmRun,
    private readonly onFree: (run: RunHandle) => void,
  ) {
    this.wasm = make();
  }

  /** Drops the wasm object of a run whose instance was replaced (no call into it). */
  lose(): void {
    if (!this.wasm) return;
    this.reached = this.wasm.executed();
    this.wasm.__destroy_into_raw?.();
    this.wasm = null;
  }

  /** Marks the run failed with `error` (JSON): its call trapped. */
  fail(error: string): void {
    this.trapped = error;
    this.lose();
  }

  /** The wasm object, made again (and advanced as far as before) if the instance was replaced. */
  private get run(): WasmRun {
    if (this.freed) throw new Error("this run was freed");
    if (!this.wasm) {
      const run = this.make();
      while (run.executed() < this.reached && !run.advance(this.reached - run.executed())) {
        // as far as it had gone
      }
      this.wasm = run;
    }
    return this.wasm;
  }

  advance(maxOps: number): boolean {
    return this.trapped !== undefined || this.run.advance(maxOps);
  }
  executed(): number {
    return this.trapped !== undefined ? this.reached : this.run.executed();
  }
  total(): number {
    return this.trapped !== undefined ? 0 : this.run.total();
  }
  error(): string | undefined {
    return this.trapped ?? this.run.error();
  }
  free(): void {
    if (this.freed) return;
    this.freed = true;
    this.wasm?.free();
    this.wasm = null;
    this.onFree(this);
  }
  column(which: ColumnName): Uint32Array {
    return this.run.column(which);
  }
  statsSamples(): Float64Array {
    return this.run.statsSamples();
  }
  header(): string {
    return this.run.header();
  }
  chunks(): string {
    return this.run.chunks();
  }
  detail(i: number): string {
    return this.run.detail(i);
  }
  stmtLines(): Uint32Array {
    return this.run.stmtLines();
  }
  stmtColumns(): Uint32Array {
    return this.run.stmtColumns();
  }
  stmtKinds(): Uint32Array {
    return this.run.stmtKinds();
  }
  names(): string {
    return this.run.names();
  }
  memoryBytes(): number {
    return this.wasm?.memoryBytes() ?? 0;
  }
  longestRerun(): number {
    return this.run.longestRerun();
  }
}
