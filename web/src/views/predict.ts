// Predict mode: a strip of the chunk the next block will land in, drawn to
// scale with what it holds now. The learner places a guess on an exact byte
// (a click, or ←/→ from anywhere on the page: controller/predictKeys.ts), then
// answers; the answer is graded to the byte, and a wrong guess is explained
// in terms of the guess. Past the last op it says the program is finished.
//
// A pure function of its data: the guess and the reveal live in the app's
// state. The view keeps only what it drew, to turn a click into an address.

import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { PREDICT_STRIP_ATTR } from "../controller/predictKeys";
import type { TraceView } from "../engine/traceView";
import type { Block } from "../model/blocks";
import { bytes, hex } from "../model/format";
import { clampAddress, gradeGuess, predictionAt, stripAt, type Prediction, type StripData } from "../model/predict";
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
  onStartOver(): void;
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
  pick: HTMLElement;
  hint: HTMLElement;
  reveal: HTMLButtonElement;
  next: HTMLButtonElement;
  startOver: HTMLButtonElement;
  result: HTMLElement;
  verdict: HTMLElement;
  mistake: HTMLElement;
  reason: HTMLElement;
  handlers: PredictHandlers;
  /** The strip drawn last and its width: what a click is measured against. */
  drawn: { strip: StripData; revealed: boolean; width: number } | null;
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

/** The byte under a client x position on the strip. */
function addressAt(refs: Refs, clientX: number): number | null {
  const drawn = refs.drawn;
  if (!drawn) return null;
  const rect = refs.svg.getBoundingClientRect();
  if (rect.width <= 0) return null;
  const x = ((clientX - rect.left) / rect.width) * drawn.width;
  return clampAddress(drawn.strip, scaleFor(drawn.strip, drawn.width).invert(x));
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
    svgEl("text", { class: "predict-axis predict-axis-start", x: MARGIN.left, y: LABEL_Y }),
    svgEl("text", { class: "predict-axis predict-axis-end", y: LABEL_Y }),
  );
  const strip = h("div", { class: "predict-strip", role: "slider", tabindex: 0, "aria-orientation": "horizontal", [PREDICT_STRIP_ATTR]: "" }, svg);
  // Polite: a guess moved by the keys is heard even when the strip has no focus.
  const pick = h("p", { class: "predict-pick", "aria-live": "polite" });
  const hint = h("p", { class: "predict-hint" });
  const reveal = h("button", { type: "button", class: "predict-button" }, "Reveal");
  const next = h("button", { type: "button", class: "predict-button primary" }, "Next");
  const startOver = h("button", { type: "button", class: "predict-button primary" }, "Start over");
  const verdict = h("p", { class: "predict-verdict" });
  const mistake = h("p", { class: "predict-mistake" });
  const reason = h("p", { class: "predict-reason" });
  const result = h("div", { class: "predict-result", "aria-live": "polite" }, verdict, mistake, reason);
  const root = h(
    "section",
    { class: "predict", "aria-labelledby": "predict-question" },
    question,
    ask,
    strip,
    pick,
    hint,
    h("div", { class: "predict-buttons" }, reveal, next, startOver),
    result,
  );
  root.dataset["view"] = "predict";
  mount.replaceChildren(root);

  const refs: Refs = { root, question, ask, strip, svg, pick, hint, reveal, next, startOver, result, verdict, mistake, reason, handlers, drawn: null };
  strip.addEventListener("click", (e) => {
    if (!refs.drawn || refs.drawn.revealed) return;
    const at = addressAt(refs, e.clientX);
    if (at !== null) refs.handlers.onGuess(at);
  });
  reveal.addEventListener("click", () => refs.handlers.onReveal());
  next.addEventListener("click", () => refs.handlers.onNext());
  startOver.addEventListener("click", () => refs.handlers.onStartOver());
  return refs;
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
      .text(`bump pointer ${hex(strip.pointer)}`);
  }

  // The guess is one byte: a bar that wide (at least visible), standing out of
  // the strip below the pointer's label.
  const guess = svg.select<SVGGElement>(".predict-guess");
  guess.selectAll("*").remove();
  if (data.guess !== null) {
    const gx = x(data.guess);
    guess
      .append("rect")
      .attr("x", gx)
      .attr("y", BAR_Y - 4)
      .attr("width", Math.max(2, x(data.guess + 1) - gx))
      .attr("height", BAR_H + 8)
      .attr("rx", 1);
  }

  const answer = svg.select<SVGGElement>(".predict-answer");
  answer.selectAll("*").remove();
  if (data.revealed) {
    // The padding the bump skipped, between the bump pointer and the block: what a guess that missed the rounding left out.
    const pad = paddingOf(p);
    if (pad) {
      answer
        .append("rect")
        .attr("class", "predict-answer-pad")
        .attr("x", x(pad.start))
        .attr("y", BAR_Y)
        .attr("width", Math.max(1, x(pad.end) - x(pad.start)))
        .attr("height", BAR_H);
    }
    answer
      .append("rect")
      .attr("class", "predict-answer-block")
      .attr("x", x(p.address))
      .attr("y", BAR_Y - 3)
      .attr("width", width(p))
      .attr("height", BAR_H + 6)
      .attr("rx", 2);
  }

  setText(svg.select(".predict-axis-start").node() as Element, hex(strip.start));
  setText(svg.select(".predict-axis-end").node() as Element, hex(strip.end));
}

/** The bytes skipped for alignment between the bump pointer and the block, if any. */
function paddingOf(p: Prediction): { start: number; end: number } | null {
  if (p.bumpFrom === null) return null;
  const pad = p.direction === "down" ? { start: p.address + p.size, end: p.bumpFrom } : { start: p.bumpFrom, end: p.address };
  return pad.end > pad.start && pad.end - pad.start < p.align ? pad : null;
}

/** Shows only the buttons named. */
function showButtons(refs: Refs, shown: { reveal?: boolean; next?: boolean; startOver?: boolean }): void {
  refs.reveal.hidden = !shown.reveal;
  refs.next.hidden = !shown.next;
  refs.startOver.hidden = !shown.startOver;
}

/** No question: past the last op, or the next op places no block. */
function renderNoQuestion(refs: Refs, data: PredictData): void {
  refs.drawn = null;
  refs.strip.hidden = true;
  refs.pick.hidden = true;
  delete refs.result.dataset["tone"];
  setText(refs.verdict, "");
  setText(refs.mistake, "");
  setText(refs.reason, "");
  refs.hint.hidden = false;
  if (data.step >= data.trace.length) {
    setText(refs.question, "The program is finished");
    const n = data.trace.length;
    setText(refs.ask, `All ${n} ${n === 1 ? "op has" : "ops have"} run: there is no next block to predict.`);
    // The keys are said apart so a touch screen can leave them out (styles.css, .key-hint).
    refs.hint.replaceChildren("Start over to predict every block again from the first op", h("span", { class: "key-hint" }, " (or press Enter)"), ".");
    showButtons(refs, { startOver: true });
    return;
  }
  setText(refs.question, "Nothing to predict");
  setText(refs.ask, "The next op places no block.");
  refs.hint.replaceChildren("Next runs it", h("span", { class: "key-hint" }, " (or press Enter or →)"), ".");
  showButtons(refs, { next: true });
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
    renderNoQuestion(refs, data);
    return;
  }
  refs.strip.hidden = false;
  refs.pick.hidden = data.revealed;
  showButtons(refs, { reveal: true, next: true });
  refs.reveal.disabled = data.revealed;

  const strip = stripAt(data.trace, data.step, p);
  const width = Math.round(refs.strip.clientWidth) || DEFAULT_W;
  refs.drawn = { strip, revealed: data.revealed, width };

  const label = `Where will ${p.name} land?`;
  setText(refs.question, label);
  refs.strip.setAttribute("aria-label", label);
  refs.strip.setAttribute("aria-valuemin", String(strip.start));
  refs.strip.setAttribute("aria-valuemax", String(Math.max(strip.start, strip.end - 1)));
  if (data.guess !== null) {
    refs.strip.setAttribute("aria-valuenow", String(data.guess));
    refs.strip.setAttribute("aria-valuetext", `${hex(data.guess)}, ${bytes(data.guess - strip.start)} into the chunk`);
  } else {
    refs.strip.removeAttribute("aria-valuenow");
    refs.strip.setAttribute("aria-valuetext", "no guess yet");
  }
  refs.strip.classList.toggle("is-revealed", data.revealed);
  const what = p.kind === "realloc" ? `${p.name} = realloc to ${bytes(p.size)}` : `${p.name} = alloc ${bytes(p.size)}`;
  const chunkText = `${p.newChunk ? "a new chunk" : `chunk ${p.chunk.id}`}, ${hex(strip.start)}–${hex(strip.end)}`;
  const pointer = strip.pointer !== undefined ? `; the bump pointer is at ${hex(strip.pointer)}` : "";
  // A chunk with thousands of blocks: the strip draws those nearest the pointer and says so.
  const older = strip.hidden > 0 ? ` The strip draws the ${strip.blocks.length} blocks nearest the bump pointer; ${strip.hidden} older ones are not drawn.` : "";
  setText(refs.ask, `${what}, align ${p.align}, in ${chunkText} (${p.direction === "down" ? "bumping down" : "bumping up"})${pointer}.${older}`);
  setText(refs.pick, data.guess === null ? "No guess yet." : `Your guess: ${hex(data.guess)}.`);
  const alignKey = p.align > 1 ? `Shift+← →: to the next ${p.align}-aligned address` : "Shift+← → as well";
  if (data.revealed) refs.hint.replaceChildren(`Next runs ${p.name}'s op and asks about the block after it`, h("span", { class: "key-hint" }, " (or press Enter)"), ".");
  else refs.hint.replaceChildren(`Click the byte where ${p.name} will start`, h("span", { class: "key-hint" }, `, or move your guess with ← → (one byte; ${alignKey}); Enter answers`), ".");

  drawStrip(refs, strip, p, data, width);

  if (!data.revealed) {
    delete refs.result.dataset["tone"];
    setText(refs.verdict, "");
    setText(refs.mistake, "");
    setText(refs.reason, "");
    return;
  }
  if (data.guess === null) {
    refs.result.dataset["tone"] = "none";
    setText(refs.verdict, `You made no guess: ${p.name} lands at ${hex(p.address)}.`);
    setText(refs.mistake, "");
  } else {
    const grade = gradeGuess(p, data.guess);
    refs.result.dataset["tone"] = grade.right ? "right" : "wrong";
    setText(refs.verdict, grade.verdict);
    setText(refs.mistake, grade.mistake);
  }
  refs.mistake.hidden = refs.mistake.textContent === "";
  setText(refs.reason, `Why: ${p.reason}.`);
}
