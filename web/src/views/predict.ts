// Predict mode: a strip of the chunk the next block will land in, drawn to
// scale with what it holds now, and under it the bytes around the bump
// pointer zoomed to a cell each. The learner places a guess on an exact byte
// (a click or a tap on either strip, the −1 +1 and ± alignment buttons, or
// ←/→ from anywhere on the page: controller/predictKeys.ts), then answers;
// the answer is graded to the byte, and a wrong guess is explained in terms
// of the guess. Past the last op it says the program is finished.
//
// A pure function of its data: the guess and the reveal live in the app's
// state. The view keeps only what it drew, to turn a click into an address.

import { scaleLinear } from "d3-scale";
import { select } from "d3-selection";
import { PREDICT_STRIP_ATTR } from "../controller/predictKeys";
import type { TraceView } from "../wasm/traceView";
import type { Block } from "../model/blocks";
import { bytes, hex } from "../model/format";
import { clampAddress, gradeGuess, moveGuess, predictionAt, stripAt, zoomWindow, type GuessMove, type Prediction, type StripData } from "../model/predict";
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
  /** Presentation mode: the room guesses aloud, and → reveals then steps (controller/predictKeys.ts). */
  present?: boolean;
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

// The zoomed strip: one cell per byte around the bump pointer.
const ZOOM_H = 58;
const ZOOM_BAR_Y = 6;
const ZOOM_BAR_H = 30;
const ZOOM_LABEL_Y = 52;

interface Refs {
  root: HTMLElement;
  question: HTMLElement;
  ask: HTMLElement;
  strip: HTMLElement;
  svg: SVGSVGElement;
  zoom: HTMLElement;
  zoomSvg: SVGSVGElement;
  zoomCaption: HTMLElement;
  nudges: HTMLElement;
  nudge: Record<Extract<GuessMove, "byteDown" | "byteUp" | "alignDown" | "alignUp">, HTMLButtonElement>;
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
  /** The zoomed strip drawn last: its bytes and width, for a tap; and the question, for the ± buttons. */
  zoomed: { lo: number; hi: number; width: number; p: Prediction; strip: StripData; guess: number | null } | null;
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
  // The bytes around the bump pointer, one cell each: a finger picks a byte
  // here that the whole chunk's strip gives a pixel or less. The slider above
  // is the control a keyboard and a screen reader use.
  const zoomSvg = svgEl("svg", { viewBox: `0 0 ${DEFAULT_W} ${ZOOM_H}`, height: ZOOM_H, class: "predict-zoom-svg", "aria-hidden": "true", focusable: "false" });
  zoomSvg.append(
    svgEl("rect", { class: "predict-zoom-bar", x: MARGIN.left, y: ZOOM_BAR_Y, height: ZOOM_BAR_H, rx: 3 }),
    svgEl("g", { class: "predict-zoom-pads" }),
    svgEl("g", { class: "predict-zoom-blocks" }),
    svgEl("g", { class: "predict-zoom-cells" }),
    svgEl("g", { class: "predict-zoom-answer" }),
    svgEl("g", { class: "predict-zoom-guess" }),
    svgEl("g", { class: "predict-zoom-pointer" }),
    svgEl("g", { class: "predict-zoom-ticks" }),
  );
  const zoomCaption = h("p", { class: "predict-zoom-caption" });
  const zoom = h("div", { class: "predict-zoom" }, zoomCaption, zoomSvg);
  const nudgeButton = (text: string): HTMLButtonElement => h("button", { type: "button", class: "predict-nudge" }, text);
  const nudge = { alignDown: nudgeButton(""), byteDown: nudgeButton("−1"), byteUp: nudgeButton("+1"), alignUp: nudgeButton("") };
  nudge.byteDown.setAttribute("aria-label", "Guess one byte lower");
  nudge.byteUp.setAttribute("aria-label", "Guess one byte higher");
  const nudges = h("div", { class: "predict-nudges", role: "group", "aria-label": "Move the guess" }, nudge.alignDown, nudge.byteDown, nudge.byteUp, nudge.alignUp);
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
    zoom,
    hint,
    // One row where it fits, so the question, its strips and its answer keep to one screen of a laptop.
    h("div", { class: "predict-controls" }, nudges, pick, h("div", { class: "predict-buttons" }, reveal, next, startOver)),
    result,
  );
  root.dataset["view"] = "predict";
  mount.replaceChildren(root);

  const refs: Refs = {
    root,
    question,
    ask,
    strip,
    svg,
    zoom,
    zoomSvg,
    zoomCaption,
    nudges,
    nudge,
    pick,
    hint,
    reveal,
    next,
    startOver,
    result,
    verdict,
    mistake,
    reason,
    handlers,
    drawn: null,
    zoomed: null,
  };
  strip.addEventListener("click", (e) => {
    if (!refs.drawn || refs.drawn.revealed) return;
    const at = addressAt(refs, e.clientX);
    if (at !== null) refs.handlers.onGuess(at);
  });
  zoom.addEventListener("click", (e) => {
    if (!refs.drawn || refs.drawn.revealed) return;
    const at = zoomAddressAt(refs, e.clientX);
    if (at !== null) refs.handlers.onGuess(at);
  });
  for (const [move, button] of Object.entries(nudge) as [keyof typeof nudge, HTMLButtonElement][]) {
    button.addEventListener("click", () => {
      const z = refs.zoomed;
      if (z && refs.drawn && !refs.drawn.revealed) refs.handlers.onGuess(moveGuess(z.p, z.strip, z.guess, move));
    });
  }
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

/** The zoomed strip's x of an address, at its drawn width. */
function zoomScale(lo: number, hi: number, width: number) {
  return scaleLinear()
    .domain([lo, hi])
    .range([MARGIN.left, width - MARGIN.right]);
}

/** The byte under a client x position on the zoomed strip. */
function zoomAddressAt(refs: Refs, clientX: number): number | null {
  const z = refs.zoomed;
  if (!z) return null;
  const rect = refs.zoomSvg.getBoundingClientRect();
  if (rect.width <= 0) return null;
  const x = ((clientX - rect.left) / rect.width) * z.width;
  const at = Math.floor(zoomScale(z.lo, z.hi, z.width).invert(x));
  return at >= z.lo && at < z.hi ? at : null;
}

/** The zoomed strip: a cell per byte of [lo, hi), the blocks and padding there, the pointer, the guess and (revealed) the answer. */
function drawZoom(refs: Refs, strip: StripData, p: Prediction, data: PredictData, W: number): void {
  const { lo, hi } = zoomWindow(p, strip, data.guess);
  refs.zoomed = { lo, hi, width: W, p, strip, guess: data.guess };
  const x = zoomScale(lo, hi, W);
  const cell = x(lo + 1) - x(lo);
  const clip = (a: number, b: number): { x: number; width: number } | null => {
    const from = Math.max(a, lo);
    const to = Math.min(b, hi);
    return to > from ? { x: x(from), width: x(to) - x(from) } : null;
  };
  const svg = select(refs.zoomSvg);
  svg.attr("viewBox", `0 0 ${W} ${ZOOM_H}`);
  svg.attr("data-lo", lo).attr("data-hi", hi);
  svg.select(".predict-zoom-bar").attr("width", W - MARGIN.left - MARGIN.right);
  const boxes = (items: { key: string; cls: string; a: number; b: number; fill?: string | null }[], group: string, y: number, height: number): void => {
    svg
      .select<SVGGElement>(group)
      .selectAll<SVGRectElement, (typeof items)[number]>("rect")
      .data(items.filter((i) => clip(i.a, i.b) !== null), (i) => i.key)
      .join("rect")
      .attr("class", (i) => i.cls)
      .attr("x", (i) => clip(i.a, i.b)?.x ?? 0)
      .attr("width", (i) => clip(i.a, i.b)?.width ?? 0)
      .attr("y", y)
      .attr("height", height)
      .attr("fill", (i) => i.fill ?? null);
  };
  boxes(
    strip.blocks.filter((b) => b.padding > 0).map((b) => ({ key: String(b.id), cls: "predict-pad", a: b.paddingStart, b: b.paddingStart + b.padding })),
    ".predict-zoom-pads",
    ZOOM_BAR_Y,
    ZOOM_BAR_H,
  );
  boxes(
    strip.blocks.map((b) => ({
      key: String(b.id),
      cls: `predict-block is-${b.state}`,
      a: b.address,
      b: b.address + Math.max(1, b.size),
      fill: b.state === "live" ? blockColour(b.id).fill : null,
    })),
    ".predict-zoom-blocks",
    ZOOM_BAR_Y,
    ZOOM_BAR_H,
  );
  // A line between bytes, longer at each address of the block's alignment (where it could start).
  const align = Math.max(1, p.align);
  const cells: string[] = [];
  for (let a = lo + 1; a < hi; a++) {
    const top = a % align === 0 ? ZOOM_BAR_Y - 4 : ZOOM_BAR_Y + ZOOM_BAR_H - 8;
    cells.push(`M${x(a).toFixed(1)},${top}V${ZOOM_BAR_Y + ZOOM_BAR_H}`);
  }
  const grid = svg.select<SVGGElement>(".predict-zoom-cells");
  grid.selectAll("path").data([cells.join("")]).join("path").attr("d", (d) => d);
  // Aligned addresses labelled where their labels do not touch.
  const labelled: number[] = [];
  // A label is about 60 px wide; the first and last are anchored at their end of the strip.
  const room = 84;
  for (let a = Math.ceil(lo / align) * align; a < hi; a += align) {
    const last = labelled.at(-1);
    if (last === undefined || x(a) - x(last) >= room) labelled.push(a);
  }
  svg
    .select<SVGGElement>(".predict-zoom-ticks")
    .selectAll<SVGTextElement, number>("text")
    .data(labelled, (a) => String(a))
    .join("text")
    .attr("class", "predict-axis")
    .attr("x", (a) => x(a))
    .attr("y", ZOOM_LABEL_Y)
    .attr("text-anchor", (a) => (x(a) < MARGIN.left + 30 ? "start" : x(a) > W - MARGIN.right - 30 ? "end" : "middle"))
    .text((a) => hex(a));
  const ptr = svg.select<SVGGElement>(".predict-zoom-pointer");
  ptr.selectAll("*").remove();
  if (strip.pointer !== undefined && strip.pointer >= lo && strip.pointer <= hi) {
    ptr.append("line").attr("x1", x(strip.pointer)).attr("x2", x(strip.pointer)).attr("y1", 0).attr("y2", ZOOM_BAR_Y + ZOOM_BAR_H + 2);
  }
  const guess = svg.select<SVGGElement>(".predict-zoom-guess");
  guess.selectAll("*").remove();
  if (data.guess !== null && data.guess >= lo && data.guess < hi) {
    guess
      .append("rect")
      .attr("x", x(data.guess) + 1)
      .attr("y", ZOOM_BAR_Y + 2)
      .attr("width", Math.max(2, cell - 2))
      .attr("height", ZOOM_BAR_H - 4)
      .attr("rx", 2);
  }
  const answer = svg.select<SVGGElement>(".predict-zoom-answer");
  answer.selectAll("*").remove();
  if (data.revealed) {
    const pad = paddingOf(p);
    const padBox = pad ? clip(pad.start, pad.end) : null;
    if (padBox) answer.append("rect").attr("class", "predict-answer-pad").attr("x", padBox.x).attr("width", padBox.width).attr("y", ZOOM_BAR_Y).attr("height", ZOOM_BAR_H);
    const block = clip(p.address, p.address + Math.max(1, p.size));
    if (block) answer.append("rect").attr("class", "predict-answer-block").attr("x", block.x).attr("width", block.width).attr("y", ZOOM_BAR_Y - 2).attr("height", ZOOM_BAR_H + 4).attr("rx", 2);
  }
  // With an alignment of 1 every line is long: any byte is a place the block could start.
  const lines = align > 1 ? `the long lines are ${align}-aligned` : "the block could start at any byte";
  setText(refs.zoomCaption, `Zoomed in: ${hex(lo)}–${hex(hi)}, one cell per byte; ${lines}.`);
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
  refs.zoomed = null;
  refs.strip.hidden = true;
  refs.zoom.hidden = true;
  refs.nudges.hidden = true;
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
  if (data.present) refs.hint.replaceChildren(data.revealed ? `→ runs ${p.name}'s op.` : `Guess aloud: → reveals where ${p.name} lands.`);
  else if (data.revealed) refs.hint.replaceChildren(`Next runs ${p.name}'s op and asks about the block after it`, h("span", { class: "key-hint" }, " (or press Enter)"), ".");
  else refs.hint.replaceChildren(`Click the byte where ${p.name} will start`, h("span", { class: "key-hint" }, `, or move your guess with ← → (one byte; ${alignKey}); Enter answers`), ".");

  drawStrip(refs, strip, p, data, width);
  // A projector's room guesses aloud: the strip alone, no controls to aim with.
  const aiming = !data.present && !data.revealed;
  refs.zoom.hidden = data.present === true;
  refs.nudges.hidden = !aiming;
  if (!data.present) drawZoom(refs, strip, p, data, width);
  const alignStep = Math.max(1, p.align);
  setText(refs.nudge.alignDown, `−${alignStep}`);
  setText(refs.nudge.alignUp, `+${alignStep}`);
  refs.nudge.alignDown.setAttribute("aria-label", `Guess the previous ${alignStep}-aligned address`);
  refs.nudge.alignUp.setAttribute("aria-label", `Guess the next ${alignStep}-aligned address`);
  // With an alignment of 1 an alignment step is a byte: the ±1 buttons say it.
  refs.nudge.alignDown.hidden = alignStep === 1;
  refs.nudge.alignUp.hidden = alignStep === 1;

  if (!data.revealed) {
    delete refs.result.dataset["tone"];
    setText(refs.verdict, "");
    setText(refs.mistake, "");
    setText(refs.reason, "");
    return;
  }
  if (data.guess === null) {
    refs.result.dataset["tone"] = "none";
    // On a projector the room guessed aloud: the answer is all there is to say.
    setText(refs.verdict, data.present ? `${p.name} lands at ${hex(p.address)}.` : `You made no guess: ${p.name} lands at ${hex(p.address)}.`);
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
