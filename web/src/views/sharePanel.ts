// The share panel: copy a link to this exact view, copy ready-made embed
// snippets, export the memory map (compare's maps side by side) and the cost
// chart as figures that stand alone (SVG or PNG, with a title, legend,
// caption and a link back), export a range of steps as an animated SVG,
// export the trace as JSON and import one back. Text goes through
// textContent; every failure is said in the panel's status line.

import "./sharePanel.css";
import type { Trace } from "../engine/types";
import { lineOf, type TraceView as Run } from "../engine/traceView";
import { clampStep } from "../model/blocks";
import { bumpPointerAt, chunkViewsAt } from "../model/chunks";
import { focusAt } from "../model/compare";
import { describeStep } from "../model/describe";
import { bytes } from "../model/format";
import {
  animatedMap,
  anyPresent,
  cleanCopy,
  download,
  exportFileName,
  figureLegend,
  mapColumn,
  presenceIn,
  pngSize,
  svgToPng,
  transitionsDone,
  utf8Bytes,
  type FigureLook,
} from "../share/export";
import {
  ANIMATION_MAX_BYTES,
  ANIMATION_MAX_STEPS,
  animationRange,
  composeFigure,
  SECONDS_PER_FRAME,
  type ComposedFigure,
  type FigureColumn,
  type FigureInput,
} from "../share/exportLayout";
import { traceJson } from "../share/traceFile";
import { encodeShare, type SharedState } from "../share/link";
import { EMBED_COLUMN_PX, measureEmbedHeight } from "../share/measureEmbed";
import { appBase, DEFAULT_EMBED_HEIGHT, embedSnippets } from "../share/snippets";
import { h, setText } from "./dom";
import { renderMemoryMap } from "./map";
import { emptyMapText } from "./runView";

export interface SharePanelData {
  state: SharedState;
  trace: Run | null;
}

export interface SharePanelHandlers {
  /** A trace file's text: its program replayed and shown, or refused. Resolves to what the panel says. */
  onImportTrace(text: string): Promise<string>;
  /** The JSON trace of the run on screen (the cost module writes it), or why there is none. */
  onExportTrace(): Promise<Trace | string>;
}

async function copyText(text: string): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

interface Refs {
  status: HTMLElement;
  dialog: HTMLDialogElement;
  snippets: HTMLElement;
  data: SharePanelData;
  handlers: SharePanelHandlers;
  buttons: { svg: HTMLButtonElement; png: HTMLButtonElement; trace: HTMLButtonElement; animation: HTMLButtonElement };
  range: { from: HTMLInputElement; to: HTMLInputElement };
}

const views = new WeakMap<HTMLElement, Refs>();

const targetName = (t: string): string => (t === "64" ? "64-bit" : t);

/** The program's line for the op that step `step` shows, or null at step 0 (or when the line is not in the program text). */
function opText(state: SharedState, trace: Run, step: number): string | null {
  if (step <= 0) return null;
  const line = state.source.split("\n")[lineOf(trace, step - 1) - 1]?.trim();
  return line ? line : null;
}

/** "op 3 / 6: c = alloc 24 align 16", or "before the first op". */
function stepText(state: SharedState, trace: Run, step: number): string {
  const text = opText(state, trace, step);
  return `op ${step} / ${trace.length}${text ? `: ${text}` : ", before the first op"}`;
}

/** "chunk capacity 464 bytes (its default)": the capacity chosen, or the first chunk's when the allocator's default. */
function capacityText(state: SharedState, trace: Run): string {
  const first = trace.chunks[0]?.capacity;
  const capacity = state.capacity !== null ? bytes(state.capacity) : first !== undefined ? `${bytes(first)} (its default)` : "its default";
  return `chunk capacity ${capacity}`;
}

/** What a figure says under the map: allocator, target, capacity, step, and what the op did. */
function captionOf(state: SharedState, trace: Run, step: number): string {
  return `${trace.allocator} on ${targetName(trace.target)}, ${capacityText(state, trace)}; op ${step} of ${trace.length}: ${describeStep(trace, step)}`;
}

/** The maps on the page: compare's columns (named by their headings) or the single map. */
function pageMaps(state: SharedState): { svg: SVGSVGElement; name: string | null }[] {
  if (state.compare !== null) {
    const columns = [...document.querySelectorAll<HTMLElement>(".compare-column")].filter((c) => !c.closest("[hidden]") && !c.classList.contains("has-error"));
    const maps = columns.flatMap((c) => {
      const svg = c.querySelector<SVGSVGElement>("svg.memory-map");
      const name = c.querySelector(".compare-col-title")?.textContent?.trim() || c.dataset["allocator"] || null;
      return svg ? [{ svg, name }] : [];
    });
    if (maps.length > 0) return maps;
  }
  const svg = document.querySelector<SVGSVGElement>("#memory-map svg.memory-map");
  return svg ? [{ svg, name: null }] : [];
}

/** The page's surface colour behind `el`, painted behind the figure so dark-theme text stays readable. */
function surfaceOf(el: Element): string | null {
  const panel = getComputedStyle(el.closest(".panel") ?? document.body).backgroundColor;
  if (panel && panel !== "rgba(0, 0, 0, 0)" && panel !== "transparent") return panel;
  return getComputedStyle(document.body).backgroundColor || null;
}

/** The app's link to `state`, as Copy link gives it. */
async function liveLink(state: SharedState): Promise<string> {
  const url = new URL(window.location.href);
  url.hash = await encodeShare(state);
  return url.href;
}

/** The figure's parts composed in the page's look (colours, font and its measure). */
function compose(
  title: string,
  link: string,
  columns: FigureInput["columns"],
  captions: FigureInput["captions"],
  look: FigureLook,
  legend: FigureInput["legend"],
  defs: string,
  background: string | null,
): ComposedFigure {
  return composeFigure({
    title,
    link,
    columns,
    captions,
    legend,
    defs,
    colours: { background, text: look.text, muted: look.muted, link: look.link },
    font: look.font,
    measure: look.measure,
  });
}

/** The memory map (or compare's maps) on the page as a composed figure, or null when none is drawn. */
async function mapFigure(state: SharedState, trace: Run): Promise<ComposedFigure | null> {
  const maps = pageMaps(state);
  const first = maps[0];
  if (!first) return null;
  const step = clampStep(trace, state.step);
  // A step taken just before is still gliding into place: the figure is of where it lands.
  for (const m of maps) await transitionsDone(m.svg);
  const parts = maps.map((m, i) => mapColumn(m.svg, m.name, i === 0 ? "" : `c${i + 1}-`));
  const { legend, look } = figureLegend(document, anyPresent(maps.map((m) => presenceIn(m.svg))));
  const names = maps.map((m) => m.name ?? trace.allocator);
  const who = state.compare !== null && maps.length > 1 ? `${names.join(" vs ")}` : `${trace.allocator}, ${targetName(trace.target)}`;
  const caption =
    state.compare !== null && maps.length > 1
      ? `Compared: ${names.join(", ")}; op ${step} of ${trace.length}${opText(state, trace, step) ? `: ${opText(state, trace, step)}` : ""}`
      : captionOf(state, trace, step);
  return compose(
    `Bump Lab: ${who}, ${stepText(state, trace, step)}`,
    await liveLink(state),
    parts.map((p) => p.column),
    [caption],
    look,
    legend,
    parts.map((p) => p.defs).join(""),
    surfaceOf(first.svg),
  );
}

/** The cost chart on the page as a composed figure (no map legend), or null when it is not drawn. */
async function costFigure(state: SharedState, trace: Run): Promise<ComposedFigure | null> {
  const svg = document.querySelector<SVGSVGElement>("#cost-view svg");
  if (!svg || svg.closest("[hidden]")) return null;
  const step = clampStep(trace, state.step);
  // The chart keeps its own definitions inside it: nothing else refers to them.
  const copy = cleanCopy(svg);
  const { look } = figureLegend(document, { meta: false, leaked: false });
  const whole: FigureColumn = {
    name: null,
    svg: new XMLSerializer().serializeToString(copy),
    width: Number(copy.getAttribute("width")) || 0,
    height: Number(copy.getAttribute("height")) || 0,
  };
  return compose(
    `Bump Lab cost: ${trace.allocator}, ${targetName(trace.target)}, ${stepText(state, trace, step)}`,
    await liveLink(state),
    [whole],
    [captionOf(state, trace, step)],
    look,
    [],
    "",
    surfaceOf(svg),
  );
}

function build(mount: HTMLElement, data: SharePanelData, handlers: SharePanelHandlers): Refs {
  const status = h("p", { class: "share-status", role: "status", "aria-live": "polite" });
  const say = (text: string): void => setText(status, text);
  const refs = {} as Refs;
  refs.data = data;
  refs.handlers = handlers;

  const button = (label: string, onClick: () => void | Promise<void>): HTMLButtonElement => {
    const b = h("button", { type: "button", class: "share-button" }, label);
    b.addEventListener("click", () => {
      Promise.resolve(onClick()).catch((error: unknown) => say(`${label} failed: ${error instanceof Error ? error.message : String(error)}`));
    });
    return b;
  };

  const copyLink = button("Copy link", async () => {
    const url = new URL(window.location.href);
    url.hash = await encodeShare(refs.data.state);
    say((await copyText(url.href)) ? "Link copied." : `Copy this link: ${url.href}`);
  });

  const snippets = h("div", { class: "share-snippets" });
  const dialog = h(
    "dialog",
    { class: "share-dialog", "aria-labelledby": "share-dialog-title" },
    h("h2", { id: "share-dialog-title", class: "panel-title" }, "Embed this view"),
    snippets,
  );
  const close = button("Close", () => dialog.close());
  dialog.append(h("div", { class: "share-dialog-actions" }, close));
  const copyEmbed = button("Copy embed code", async () => {
    const hash = await encodeShare(refs.data.state);
    const base = appBase(window.location.href);
    // The figure's drawn height, reserved by each snippet (measureEmbed.ts).
    say("Measuring the figure's height…");
    const height = await measureEmbedHeight(`${base}embed.html#${hash}`);
    say(
      height === null
        ? `The figure's height could not be measured: the snippets reserve ${DEFAULT_EMBED_HEIGHT} px.`
        : `The snippets reserve the figure's height in a ${EMBED_COLUMN_PX} px column: ${height} px.`,
    );
    const list = embedSnippets(base, hash, refs.data.state.allocator, height ?? DEFAULT_EMBED_HEIGHT);
    snippets.replaceChildren(
      ...list.map((s) => {
        const code = h("textarea", { class: "share-code", readonly: true, rows: s.code.split("\n").length + 1, "aria-label": `${s.title} snippet`, spellcheck: "false" });
        code.value = s.code;
        const copy = button(`Copy ${s.title}`, async () => say((await copyText(s.code)) ? `${s.title} snippet copied.` : "Select the snippet and copy it."));
        return h("section", { class: "share-snippet", "data-snippet": s.id }, h("h3", {}, s.title), code, h("p", { class: "muted" }, s.note), copy);
      }),
    );
    dialog.showModal();
  });

  const exportFigure = async (what: "memory map" | "cost chart", png: boolean): Promise<boolean> => {
    const { state, trace } = refs.data;
    if (!trace) {
      say("There is no map to export: the program has an error.");
      return false;
    }
    const fig = what === "memory map" ? await mapFigure(state, trace) : await costFigure(state, trace);
    if (!fig) {
      if (what === "memory map") say(`There is no ${what} to export in this view.`);
      return false;
    }
    const step = clampStep(trace, state.step);
    const name = exportFileName(what, state.allocator, step, png ? "png" : "svg");
    if (png) {
      const blob = await svgToPng(fig.text, fig.width, fig.height, 2);
      await download(blob, name);
      const size = pngSize(fig.width, fig.height, 2);
      say(`Exported the ${what} as PNG: ${size.width} × ${size.height} px (2× a ${fig.width} × ${fig.height} figure).`);
    } else {
      await download(new Blob([fig.text], { type: "image/svg+xml" }), name);
      say(`Exported the ${what} as SVG: ${fig.width} × ${fig.height} px.`);
    }
    return true;
  };
  const exportBoth = async (png: boolean): Promise<void> => {
    if (!(await exportFigure("memory map", png))) return;
    const mapSaid = status.textContent ?? "";
    if (await exportFigure("cost chart", png)) say(`${mapSaid} Also the cost chart.`);
  };
  const svg = button("Export SVG", () => exportBoth(false));
  const png = button("Export PNG", () => exportBoth(true));

  const from = h("input", { type: "number", class: "share-step", id: "share-anim-from", min: 0, step: 1, inputmode: "numeric" });
  const to = h("input", { type: "number", class: "share-step", id: "share-anim-to", min: 0, step: 1, inputmode: "numeric" });
  const animation = button("Export animation", async () => {
    const { state, trace } = refs.data;
    if (!trace) return say("There is no run to animate: the program has an error.");
    const range = animationRange(from.value, to.value, trace.length);
    if (typeof range === "string") return say(range);
    const map = document.querySelector<SVGSVGElement>("#memory-map svg.memory-map");
    const width = Number(map?.getAttribute("width")) || 720;
    const steps = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
    say(`Drawing ${steps.length} steps…`);
    const captured = await animatedMap(
      document,
      steps,
      width,
      (container, step) => renderMemoryMap(container, frameData(trace, step)),
      (done) => {
        if (done % 10 === 0) say(`Drawing ${steps.length} steps: ${done} drawn…`);
      },
    );
    const { legend, look } = figureLegend(document, captured.presence);
    const fig = compose(
      `Bump Lab: ${trace.allocator}, ${targetName(trace.target)}, ${capacityText(state, trace)}, ops ${range.from} to ${range.to} of ${trace.length}`,
      await liveLink({ ...state, step: range.from, micro: null }),
      [captured.column],
      steps.map((step) => `${stepText(state, trace, step)}. ${describeStep(trace, step)}`),
      look,
      legend,
      captured.defs,
      map ? surfaceOf(map) : surfaceOf(document.body),
    );
    const weight = utf8Bytes(fig.text);
    if (weight > ANIMATION_MAX_BYTES) {
      return say(`The animation would be ${megabytes(weight)}, over the ${megabytes(ANIMATION_MAX_BYTES)} limit: choose fewer steps.`);
    }
    await download(new Blob([fig.text], { type: "image/svg+xml" }), exportFileName(`animation-${range.from}-to`, state.allocator, range.to, "svg"));
    say(`Exported ops ${range.from} to ${range.to} as an animated SVG: ${steps.length} steps, ${SECONDS_PER_FRAME} s each, ${megabytes(weight)}.`);
  });
  const animationRow = h(
    "div",
    { class: "share-animation", role: "group", "aria-labelledby": "share-anim-title" },
    h("span", { id: "share-anim-title", class: "share-animation-title" }, "Animation"),
    h("label", { for: "share-anim-from" }, "From op"),
    from,
    h("label", { for: "share-anim-to" }, "to op"),
    to,
    animation,
    h(
      "p",
      { class: "share-animation-note muted", id: "share-anim-note" },
      `An animated SVG, one step a second, that plays without scripts: at most ${ANIMATION_MAX_STEPS} steps and ${megabytes(ANIMATION_MAX_BYTES)}.`,
    ),
  );
  animation.setAttribute("aria-describedby", "share-anim-note");
  const trace = button("Export trace (JSON)", async () => {
    if (!refs.data.trace) return say("There is no trace yet: the program has an error.");
    const t = await refs.handlers.onExportTrace();
    if (typeof t === "string") return say(t);
    await download(new Blob([traceJson(t)], { type: "application/json" }), exportFileName("trace", t.allocator, null, "json"));
    say("Exported the trace.");
  });

  const file = h("input", { type: "file", accept: "application/json,.json", class: "visually-hidden", id: "share-import", tabindex: -1 });
  file.addEventListener("change", () => {
    const f = file.files?.[0];
    file.value = "";
    if (!f) return;
    f.text()
      .then((text) => refs.handlers.onImportTrace(text).then(say))
      .catch(() => say("The file could not be read."));
  });
  const importButton = button("Import trace", () => file.click());

  mount.replaceChildren(
    h(
      "div",
      { class: "share-panel", role: "group", "aria-label": "Share and export" },
      h("div", { class: "share-row" }, copyLink, copyEmbed, svg, png, trace, importButton, file),
      animationRow,
      status,
      dialog,
    ),
  );
  Object.assign(refs, { status, dialog, snippets, buttons: { svg, png, trace, animation }, range: { from, to } });
  return refs;
}

export function renderSharePanel(mount: HTMLElement, data: SharePanelData, handlers: SharePanelHandlers): void {
  let refs = views.get(mount);
  if (!refs) {
    refs = build(mount, data, handlers);
    views.set(mount, refs);
  }
  refs.data = data;
  refs.handlers = handlers;
  refs.buttons.trace.disabled = data.trace === null;
  refs.buttons.animation.disabled = data.trace === null;
  // Empty fields mean the defaults, which follow the run: the whole program, up to the step limit.
  const last = data.trace?.length ?? 0;
  refs.range.from.max = String(last);
  refs.range.to.max = String(last);
  refs.range.from.placeholder = "0";
  refs.range.to.placeholder = String(Math.min(last, ANIMATION_MAX_STEPS - 1));
}

/** "1.5 MB" (MiB, as the limit is set). */
function megabytes(n: number): string {
  const mb = n / (1024 * 1024);
  return `${mb >= 10 || Number.isInteger(mb) ? Math.round(mb) : mb.toFixed(1)} MB`;
}

/** The map of `trace` at the end of op `step`, unanimated: one frame of an animation. */
function frameData(trace: Run, step: number): Parameters<typeof renderMemoryMap>[1] {
  return {
    direction: trace.direction,
    rows: chunkViewsAt(trace, step),
    bumpPtr: bumpPointerAt(trace, step),
    focus: focusAt(trace, step),
    emptyText: emptyMapText(trace, step),
    animate: false,
  };
}
