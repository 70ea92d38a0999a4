// Predict mode: a strip of the chunk the next block will land in, drawn to
// scale with what it holds now. The learner clicks where the block will go
// (or moves a cursor with the arrow keys and presses Enter), then Reveal
// shows the real place, whether the guess was right, and why.
//
// The guess and the reveal live in the app's state (they survive a re-render);
// only the keyboard cursor is local to the strip.

import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import type { TraceView } from "../engine/traceView";
import type { Block } from "../model/blocks";
import { bytes, hex } from "../model/format";
import {
  clampAddress,
  cursorStart,
  cursorStep,
  predictionAt,
  scoreGuess,
  stripAt,
  toleranceFor,
  type Prediction,
  type StripData,
} from "../model/predict";
import { h, setText } from "./dom";
import { blockColour } from "./map";
import "./predict.css";

export interface PredictData {
  trace: TraceView;
  /** The step in view: the question is about the op after it (ops[step]). */
  step: number;
  /** The address the learner picked, if any. */
  guess: number | null;
  revealed: boolean;
}

export interface PredictHandlers {
  onGuess(address: number): void;
  onReveal(): void;
  onNext(): void;
}

// SVG geometry in pixels. The width is the strip's own, read at each render,
// so text stays its CSS size; DEFAULT_W serves while it is not laid out.
const DEFAULT_W = 600;
const H = 70;
const MARGIN = { left: 10, right: 10 };
const BAR_Y = 18;
const BAR_H = 30;
const LABEL_Y = 64;
const SVG_NS = "http://www.w3.org/2000/svg";

interface Refs {
  root: HTMLElement;
  question: HTMLElement;
  ask: HTMLElement;
  strip: HTMLElement;
  svg: SVGSVGElement;
  hint: HTMLElement;
  reveal: HTMLButtonElement;
  next: HTMLButtonElement;
  result: HTMLElement;
  verdict: HTMLElement;
  reason: HTMLElement;
  handlers: PredictHandlers;
  /** The question on screen, its strip, and the keyboard cursor over it. */
  current: { key: string; p: Prediction; strip: StripData; revealed: boolean; width: number } | null;
  cursor: number;
}

const views = new WeakMap<HTMLElement, Refs>();

function svgEl<K extends keyof SVGElementTagNameMap>(tag: K, attrs: Record<string, string | number> = {}): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  return el;
}

function scaleFor(strip: StripData, width: number) {
  return scaleLinear()
    .domain([strip.start, Math.max(strip.end, strip.start + 1)])
    .range([MARGIN.left, width - MARGIN.right]);
}

/** The address under a client x position on the strip. */
function addressAt(refs: Refs, clientX: number): number | null {
  const cur = refs.current;
  if (!cur) return null;
  const rect = refs.svg.getBoundingClientRect();
  if (rect.width <= 0) return null;
  const x = ((clientX - rect.left) / rect.width) * cur.width;
  return clampAddress(cur.strip, Math.floor(scaleFor(cur.strip, cur.width).invert(x)));
}

/** Bytes a few screen pixels span on this strip: what still counts as a hit. */
function tolerance(refs: Refs, strip: StripData, width: number): number {
  const rendered = refs.svg.getBoundingClientRect().width || width;
  const barPixels = (rendered * (width - MARGIN.left - MARGIN.right)) / width;
  return toleranceFor((strip.end - strip.start) / Math.max(1, barPixels));
}

function build(mount: HTMLElement, handlers: PredictHandlers): Refs {
  const question = h("h2", { class: "predict-question", id: "predict-question" });
  const ask = h("p", { class: "predict-ask" });
  const svg = svgEl("svg", { viewBox: `0 0 ${DEFAULT_W} ${H}`, height: H, class: "predict-svg", "aria-hidden": "true", focusable: "false" });
  svg.append(
    svgEl("rect", { class: "predict-bar", x: MARGIN.left, y: BAR_Y, height: BAR_H, rx: 3 }),
    svgEl("g", { class: "predict-pads" }),
    svgEl("g", { class: "predict-blocks" }),
    svgEl("g", { class: "predict-pointer" }),
    svgEl("g", { class: "predict-answer" }),
    svgEl("g", { class: "predict-guess" }),
    svgEl("line", { class: "predict-cursor", y1: BAR_Y - 6, y2: BAR_Y + BAR_H + 6 }),
    svgEl("text", { class: "predict-axis predict-axis-start", x: MARGIN.left, y: LABEL_Y }),
    svgEl("text", { class: "predict-axis predict-axis-end", y: LABEL_Y }),
  );
  const strip = h("div", { class: "predict-strip", role: "slider", tabindex: 0, "aria-orientation": "horizontal" }, svg);
  const hint = h("p", { class: "predict-hint" }, "Click the strip where the block will start, or move with ← → (Shift: bigger steps) and press Enter.");
  const reveal = h("button", { type: "button", class: "predict-button" }, "Reveal");
  const next = h("button", { type: "button", class: "predict-button primary" }, "Next");
  const verdict = h("p", { class: "predict-verdict" });
  const reason = h("p", { class: "predict-reason" });
  const result = h("div", { class: "predict-result", "aria-live": "polite" }, verdict, reason);
  const root = h(
    "section",
    { class: "predict", "aria-labelledby": "predict-question" },
    question,
    ask,
    strip,
    hint,
    h("div", { class: "predict-buttons" }, reveal, next),
    result,
  );
  root.dataset["view"] = "predict";
  mount.replaceChildren(root);

  const refs: Refs = { root, question, ask, strip, svg, hint, reveal, next, result, verdict, reason, handlers, current: null, cursor: 0 };
  strip.addEventListener("click", (e) => {
    if (!refs.current || refs.current.revealed) return;
    const at = addressAt(refs, e.clientX);
    if (at === null) return;
    refs.cursor = at;
    refs.handlers.onGuess(at);
  });
  strip.addEventListener("keydown", (e) => {
    const cur = refs.current;
    if (!cur || e.altKey || e.ctrlKey || e.metaKey) return;
    const fine = cursorStep(cur.p, cur.strip, false);
    const coarse = cursorStep(cur.p, cur.strip, true);
    const moves: Record<string, number> = {
      ArrowLeft: -(e.shiftKey ? coarse : fine),
      ArrowDown: -(e.shiftKey ? coarse : fine),
      ArrowRight: e.shiftKey ? coarse : fine,
      ArrowUp: e.shiftKey ? coarse : fine,
      PageDown: -coarse,
      PageUp: coarse,
    };
    let handled = true;
    if (e.key in moves) refs.cursor = clampAddress(cur.strip, refs.cursor + (moves[e.key] ?? 0));
    else if (e.key === "Home") refs.cursor = cur.strip.start;
    else if (e.key === "End") refs.cursor = clampAddress(cur.strip, cur.strip.end - 1);
    else if ((e.key === "Enter" || e.key === " ") && !cur.revealed) refs.handlers.onGuess(refs.cursor);
    else handled = false;
    if (!handled) return;
    // Keeps the app's own arrow keys (stepping) off while the strip has focus.
    e.preventDefault();
    drawCursor(refs);
  });
  reveal.addEventListener("click", () => refs.handlers.onReveal());
  next.addEventListener("click", () => refs.handlers.onNext());
  return refs;
}

function drawCursor(refs: Refs): void {
  const cur = refs.current;
  if (!cur) return;
  const x = scaleFor(cur.strip, cur.width)(refs.cursor + 0.5);
  const line = refs.svg.querySelector(".predict-cursor");
  line?.setAttribute("x1", String(x));
  line?.setAttribute("x2", String(x));
  refs.strip.setAttribute("aria-valuenow", String(refs.cursor));
  refs.strip.setAttribute("aria-valuetext", `${hex(refs.cursor)}, ${bytes(refs.cursor - cur.strip.start)} into the chunk`);
}

function drawStrip(refs: Refs, strip: StripData, p: Prediction, data: PredictData, W: number): void {
  const x = scaleFor(strip, W);
  const width = (b: { address: number; size: number }): number => Math.max(1.5, x(b.address + Math.max(b.size, 1)) - x(b.address));
  const svg = select(refs.svg);
  svg.attr("viewBox", `0 0 ${W} ${H}`);
  svg.select(".predict-bar").attr("width", W - MARGIN.left - MARGIN.right);
  svg.select(".predict-axis-end").attr("x", W - MARGIN.right);
  // Padding first, so a block drawn at its one-pixel minimum stays on top.
  svg
    .select<SVGGElement>(".predict-pads")
    .selectAll<SVGRectElement, Block>("rect")
    .data(
      strip.blocks.filter((b) => b.padding > 0),
      (b) => String(b.id),
    )
    .join("rect")
    .attr("class", "predict-pad")
    .attr("x", (b) => x(b.paddingStart))
    .attr("y", BAR_Y)
    .attr("width", (b) => Math.max(1, x(b.paddingStart + b.padding) - x(b.paddingStart)))
    .attr("height", BAR_H);
  svg
    .select<SVGGElement>(".predict-blocks")
    .selectAll<SVGRectElement, Block>("rect")
    .data(strip.blocks, (b) => String(b.id))
    .join("rect")
    .attr("class", (b) => `predict-block is-${b.state}`)
    .attr("x", (b) => x(b.address))
    .attr("y", BAR_Y)
    .attr("width", width)
    .attr("height", BAR_H)
    .attr("fill", (b) => (b.state === "live" ? blockColour(b.id).fill : null));

  const ptr = svg.select<SVGGElement>(".predict-pointer");
  ptr.selectAll("*").remove();
  if (strip.pointer !== undefined) {
    const px = x(strip.pointer);
    ptr.append("line").attr("x1", px).attr("x2", px).attr("y1", 4).attr("y2", BAR_Y + BAR_H);
    ptr
      .append("text")
      .attr("x", px)
      .attr("y", 10)
      .attr("text-anchor", px > W / 2 ? "end" : "start")
      .attr("dx", px > W / 2 ? -3 : 3)
      .text("bump pointer");
  }

  const guess = svg.select<SVGGElement>(".predict-guess");
  guess.selectAll("*").remove();
  if (data.guess !== null) {
    const gx = x(data.guess + 0.5);
    guess.append("line").attr("x1", gx).attr("x2", gx).attr("y1", BAR_Y - 8).attr("y2", BAR_Y + BAR_H + 8);
    guess.append("circle").attr("cx", gx).attr("cy", BAR_Y - 8).attr("r", 3.5);
  }

  const answer = svg.select<SVGGElement>(".predict-answer");
  answer.selectAll("*").remove();
  if (data.revealed) {
    answer
      .append("rect")
      .attr("x", x(p.address))
      .attr("y", BAR_Y - 3)
      .attr("width", width(p))
      .attr("height", BAR_H + 6)
      .attr("rx", 2);
  }

  setText(svg.select(".predict-axis-start").node() as Element, hex(strip.start));
  setText(svg.select(".predict-axis-end").node() as Element, hex(strip.end));
}

function verdictText(p: Prediction, guess: number | null, tol: number): { text: string; tone: "right" | "wrong" | "none" } {
  const where = `${p.name} lands at ${hex(p.address)}`;
  if (guess === null) return { text: `${where} (${bytes(p.size)}).`, tone: "none" };
  const score = scoreGuess(p, guess, tol);
  if (score.right) return { text: `Right: ${where} (${bytes(p.size)}); you picked ${hex(guess)}.`, tone: "right" };
  return { text: `Not quite: you picked ${hex(guess)}; ${where}, ${bytes(score.distance)} away.`, tone: "wrong" };
}

export function renderPredict(mount: HTMLElement, data: PredictData, handlers: PredictHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root)) {
    refs = build(mount, handlers);
    views.set(mount, refs);
  }
  refs.handlers = handlers;

  const p = predictionAt(data.trace, data.step);
  if (!p) {
    refs.current = null;
    setText(refs.question, "Nothing to predict");
    setText(refs.ask, "The next op places no block.");
    refs.strip.hidden = true;
    refs.hint.hidden = true;
    refs.reveal.hidden = true;
    setText(refs.verdict, "");
    setText(refs.reason, "");
    return;
  }
  refs.strip.hidden = false;
  refs.hint.hidden = data.revealed;
  refs.reveal.hidden = false;
  refs.reveal.disabled = data.revealed;

  const strip = stripAt(data.trace, data.step, p);
  const key = `${data.step}:${p.opIndex}:${p.chunk.id}:${strip.start}:${strip.end}`;
  if (refs.current?.key !== key) refs.cursor = data.guess ?? cursorStart(strip);
  const width = Math.round(refs.strip.clientWidth) || DEFAULT_W;
  refs.current = { key, p, strip, revealed: data.revealed, width };

  const label = `Where will ${p.name} land?`;
  setText(refs.question, label);
  refs.strip.setAttribute("aria-label", label);
  refs.strip.setAttribute("aria-valuemin", String(strip.start));
  refs.strip.setAttribute("aria-valuemax", String(Math.max(strip.start, strip.end - 1)));
  refs.strip.classList.toggle("is-revealed", data.revealed);
  const what = p.kind === "realloc" ? `${p.name} = realloc to ${bytes(p.size)}` : `${p.name} = alloc ${bytes(p.size)}`;
  const chunkText = `${p.newChunk ? "a new chunk" : `chunk ${p.chunk.id}`}, ${hex(strip.start)}–${hex(strip.end)}`;
  // A chunk with thousands of blocks: the strip draws those nearest the pointer and says so.
  const older = strip.hidden > 0 ? ` The strip draws the ${strip.blocks.length} blocks nearest the bump pointer; ${strip.hidden} older ones are not drawn.` : "";
  setText(refs.ask, `${what}, align ${p.align}, in ${chunkText} (${data.trace.direction === "down" ? "bumping down" : "bumping up"}).${older}`);

  drawStrip(refs, strip, p, data, width);
  drawCursor(refs);

  if (data.revealed) {
    const v = verdictText(p, data.guess, tolerance(refs, strip, width));
    refs.result.dataset["tone"] = v.tone;
    setText(refs.verdict, v.text);
    setText(refs.reason, `Why: ${p.reason}.`);
  } else {
    delete refs.result.dataset["tone"];
    setText(refs.verdict, data.guess === null ? "" : `Your guess: ${hex(data.guess)}. Press Reveal to check it.`);
    setText(refs.reason, "");
  }
}
