// The views of one run at one step, as the app's single view and the player
// both show them: the stepper, the memory map and its summary, and, where
// the shell shows them, the stats, the cost chart and the code. Drawn from
// (run, step, view settings) alone; the shells only say which to draw and
// where.

import type { TraceView } from "../wasm/traceView";
import { mostChunksAlive, noChunkYet, statsAt } from "../model/chunks";
import { describeMicro, describeStep, microSteps } from "../model/describe";
import { codeFocus, focusOf, highlighted, statsSeries } from "../model/focus";
import { microMapAt } from "../model/microMap";
import type { Narration } from "../model/narration";
import { stepInView, type StepInView } from "../state/inView";
import type { Action, AppState } from "../state/reducer";
import type { renderCodeView as RenderCode } from "./codeView";
import type { renderCostView as RenderCost } from "./costView";
import { figureFit, prepareMemoryMap, renderMapSummary, renderMemoryMap, type MemoryMapData } from "./map";
import type { renderStats as RenderStats } from "./stats";
import { renderStepper } from "./stepper";

export interface RunMounts {
  stepper?: HTMLElement | undefined;
  mapSummary: HTMLElement;
  map: HTMLElement;
  stats?: HTMLElement | undefined;
  cost?: HTMLElement | undefined;
  code?: HTMLElement | undefined;
}

/** The optional views' renderers: the app imports them, a player loads those it shows. */
export interface RunRenderers {
  stats?: typeof RenderStats | undefined;
  cost?: typeof RenderCost | undefined;
  code?: typeof RenderCode | undefined;
}

export interface RunViewInput {
  state: AppState;
  trace: TraceView;
  /** The narration at the step in view (its highlights show on the map). */
  narration: Narration | null;
  /** The program's lines, for the blocks' cards. */
  sourceLines?: readonly string[];
  animate: boolean;
  /** Whether the stepper names the micro-step in view. */
  micro: boolean;
  /** Where "How it is measured" leads. */
  docsHref: string;
  /** A source file's path and text (the code view). */
  source: (file: string) => { path: string; text: string };
  /** A figure: the map fitted to the bytes the run uses, without zoom controls (views/map/fit.ts). */
  figure?: boolean;
  /** The map follows a dragged scrubber: many blocks appearing at once enter over a few frames (views/map/blocks.ts). */
  following?: boolean;
}

export const emptyMapText = (trace: TraceView, step: number): string =>
  noChunkYet(trace, step)
    ? `no chunk yet: ${trace.allocator} allocates its first chunk lazily`
    : "no chunk: every chunk went back to the base allocator; the next allocation makes one";

/** The stepper's sentence for the run at `s`'s step: what the op did, or inside an op that it is in progress. */
export function runStepText(s: AppState, trace: TraceView, micro = true): string {
  const { step, op } = stepInView(s, trace);
  // Inside an op its outcome has not happened yet: the stepper names the op, not where it lands.
  return micro && op && s.micro !== null ? `${op.block ? `${op.block}: ` : ""}${op.kind} in progress` : describeStep(trace, step);
}

/** The stepper alone (compare mode moves every column with it). */
export function renderRunStepper(mount: HTMLElement, s: AppState, trace: TraceView, micro: boolean, dispatch: (a: Action) => void): void {
  const { step, op } = stepInView(s, trace);
  renderStepper(
    mount,
    {
      step,
      total: trace.length,
      playing: s.playing,
      speed: s.speed,
      description: runStepText(s, trace, micro),
      micro: micro && microSteps(op).length > 1 ? describeMicro(op, s.micro) : null,
    },
    dispatch,
  );
}

/** What a run's stepper, map summary and map show at the step in view: derived from (run, step, view settings), no DOM. */
interface RunFrame {
  step: number;
  op: StepInView["op"];
  /** The step whose memory the map and counters show (inside an op, the one before it). */
  rowsStep: number;
  stats: ReturnType<typeof statsAt>;
  map: MemoryMapData;
}

/**
 * Each player's last frame, and what it was derived from, keyed by the
 * player's map mount: a prepared step's render takes it whole (its map data
 * the same object), and players on one page never take each other's.
 */
const lastFrames = new WeakMap<HTMLElement, { input: RunViewInput; frame: RunFrame }>();

/** Whether two inputs derive the same frame: the same run, step, micro-step and view settings. */
function sameFrame(a: RunViewInput, b: RunViewInput): boolean {
  return (
    a.trace === b.trace &&
    a.state.step === b.state.step &&
    a.state.micro === b.state.micro &&
    a.micro === b.micro &&
    a.narration === b.narration &&
    a.sourceLines === b.sourceLines &&
    a.animate === b.animate &&
    a.figure === b.figure &&
    a.following === b.following
  );
}

function runFrame(player: HTMLElement, input: RunViewInput): RunFrame {
  const last = lastFrames.get(player);
  if (last && sameFrame(last.input, input)) return last.frame;
  const frame = deriveFrame(input);
  lastFrames.set(player, { input, frame });
  return frame;
}

function deriveFrame(input: RunViewInput): RunFrame {
  const { state: s, trace } = input;
  const { step, op } = stepInView(s, trace);
  // Inside an op (a micro-step before its last) the map shows the memory as its code has it so far.
  const micro = microMapAt(trace, step, input.micro ? s.micro : null);
  const rows = micro.rows;
  return {
    step,
    op,
    rowsStep: micro.rowsStep,
    // The counters follow the map: inside an op they are the memory's before it.
    stats: statsAt(trace, micro.rowsStep),
    map: {
      direction: trace.direction,
      rows,
      bumpPtr: micro.bumpPtr,
      focus: focusOf(op),
      highlight: highlighted(new Set(), rows, input.narration, trace),
      micro: { candidate: micro.rowsStep < step ? micro.candidate : null, padding: micro.padding, place: micro.place, room: micro.room },
      ...(input.sourceLines ? { sourceLines: input.sourceLines } : {}),
      emptyText: emptyMapText(trace, step),
      animate: input.animate,
      reserveRows: mostChunksAlive(trace),
      ...(input.figure ? { fit: figureFit(trace) } : {}),
      ...(input.following ? { progressive: true } : {}),
    },
  };
}

/**
 * Derives what `renderRun` draws at the input's step without drawing it: the
 * step's frame (op detail, blocks, stats) and the map's layout are kept, and a
 * render of the same step soon after takes them as they are. A dragged scrubber
 * runs this in a task of its own, so the frame that draws the step does no
 * more than draw.
 */
export function prepareRun(mounts: RunMounts, input: RunViewInput): void {
  prepareMemoryMap(mounts.map, runFrame(mounts.map, input).map);
}

export function renderRun(mounts: RunMounts, renderers: RunRenderers, input: RunViewInput, dispatch: (a: Action) => void): void {
  const { state: s, trace } = input;
  const { step, op, rowsStep, stats, map } = runFrame(mounts.map, input);
  const rows = map.rows;
  if (mounts.stepper) renderRunStepper(mounts.stepper, s, trace, input.micro, dispatch);
  renderMapSummary(mounts.mapSummary, {
    used: stats.used,
    capacity: rows.reduce((n, r) => n + r.chunk.capacity, 0),
    chunks: rows.length,
    current: rows.find((r) => r.current)?.chunk,
    direction: trace.direction,
    allocator: trace.allocator,
    stale: s.error !== null,
  });
  renderMemoryMap(mounts.map, map);
  const seek = (to: number): void => dispatch({ type: "seek", step: to });
  if (mounts.stats && renderers.stats) renderers.stats(mounts.stats, { series: statsSeries(trace), step: rowsStep, current: stats }, { onSeek: seek });
  // Until the cost module has answered, the cost view says it is measuring.
  if (mounts.cost && renderers.cost) renderers.cost(mounts.cost, { trace, step, metric: s.costMetric, docsHref: input.docsHref }, dispatch);
  if (mounts.code && renderers.code) {
    const focus = codeFocus(trace, op, s.micro);
    const { path, text } = input.source(focus.file);
    renderers.code(mounts.code, { path, source: text, currentLine: focus.current, touched: focus.touched, label: focus.label, values: focus.values });
  }
}
