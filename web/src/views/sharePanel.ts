// The share panel: copy a link to this exact view, copy ready-made embed
// snippets, export the memory map (compare's maps side by side) and the cost
// chart as figures that stand alone (SVG or PNG, with a title, legend,
// caption and a link back), export a range of steps as an animated SVG,
// export the trace as JSON and import one back. Text goes through
// textContent; every failure is said in the panel's status line.

import "./sharePanel.css";
import type { Trace } from "../wasm/types";
import type { TraceView as Run } from "../wasm/traceView";
import { clampStep } from "../model/step";
import { bumpPointerAt, chunkViewsAt } from "../model/chunks";
import { focusAt } from "../model/compare";
import { describeStep } from "../model/describe";
import { animatedMap, anyPresent, cleanCopy, download, exportFileName, figureLegend, mapColumn, presenceIn, pngSize, svgToPng, transitionsDone, utf8Bytes, type FigureLook, type LegendPresence } from "../share/export";
import {
  ANIMATION_MAX_BYTES,
  ANIMATION_MAX_STEPS,
  animationRange,
  SECONDS_PER_FRAME,
  type ComposedFigure,
  type FigureColumn,
  type FigureInput,
} from "../share/exportLayout";
import { capacityText, captionOf, composeInLook, inTheme, mapFigure, stepText, surfaceOf, targetName, themeContainer, themeRoot, type FigureTheme } from "../share/figure";
import { traceJson } from "../share/traceFile";
import { encodeShare, type SharedState } from "../share/link";
import { EMBED_COLUMN_PX, measureEmbedHeight } from "../share/measureEmbed";
import { appBase, DEFAULT_EMBED_HEIGHT, embedSnippets, embedUrl, fenceInfo } from "../share/snippets";
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
  settings(): FigureSettings;
  status: HTMLElement;
  dialog: HTMLDialogElement;
  snippets: HTMLElement;
  data: SharePanelData;
  handlers: SharePanelHandlers;
  buttons: { svg: HTMLButtonElement; png: HTMLButtonElement; trace: HTMLButtonElement; animation: HTMLButtonElement; gif: HTMLButtonElement };
  range: { from: HTMLInputElement; to: HTMLInputElement };
}

/** What the panel's Figure controls say: how snippets show the view and how exports draw it. */
export interface FigureSettings {
  figure: boolean;
  caption: string;
  /** The height the field gives, or the default when it gives none (`heightChosen` false: the snippets measure the figure's). */
  height: number;
  heightChosen: boolean;
  theme: FigureTheme;
}

/** A snippet's height when the field is empty or not a height, and the figure's could not be measured. */
const DEFAULT_HEIGHT = DEFAULT_EMBED_HEIGHT;

const views = new WeakMap<HTMLElement, Refs>();

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
  return composeInLook({ title, link, columns, captions, legend, defs }, look, background);
}

/** The cost chart on the page as a composed figure (no map legend), or null when it is not drawn. */
async function costFigure(state: SharedState, trace: Run, settings: FigureSettings): Promise<ComposedFigure | null> {
  const svg = document.querySelector<SVGSVGElement>("#cost-view svg");
  if (!svg || svg.closest("[hidden]")) return null;
  const step = clampStep(trace, state.step);
  // The chart keeps its own definitions inside it: nothing else refers to them.
  const { copy, look, background } = inTheme(themeRoot(svg), settings.theme, () => ({
    copy: cleanCopy(svg),
    look: figureLegend(document, { meta: false, leaked: false }).look,
    background: surfaceOf(svg),
  }));
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
    [withCaption(settings, captionOf(state, trace, step))],
    look,
    [],
    "",
    background,
  );
}

/** The writer's caption before the figure's own words. */
const withCaption = (settings: FigureSettings, own: string): string => (settings.caption.trim() ? `${settings.caption.trim()} (${own})` : own);

/** The allocators the view shows: compare's columns, or the one. */
const shownAllocators = (state: SharedState): string[] => (state.compare !== null && state.compare.length > 1 ? state.compare.map((c) => c.allocator) : [state.allocator]);

/**
 * Each of `steps` drawn by `renderMemoryMap` into one scratch map `width`
 * px wide off the page (in `theme`), as a map column, with the legend's
 * presence over all of them.
 */
async function stepColumns(trace: Run, steps: readonly number[], width: number, theme: FigureTheme, progress: (done: number) => void): Promise<{ columns: FigureColumn[]; defs: string; presence: LegendPresence; host: HTMLElement }> {
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.setAttribute("inert", "");
  host.style.cssText = `position: fixed; left: -100000px; top: 0; width: ${Math.round(width)}px;`;
  themeContainer(host, theme);
  document.body.append(host);
  const columns: FigureColumn[] = [];
  const seen: LegendPresence[] = [];
  let defs = "";
  for (const [k, step] of steps.entries()) {
    renderMemoryMap(host, frameData(trace, step));
    await transitionsDone(host);
    const svg = host.querySelector<SVGSVGElement>("svg.memory-map");
    if (!svg) throw new Error(`op ${step} drew no map`);
    seen.push(presenceIn(svg));
    const part = mapColumn(svg, null, "");
    if (k === 0) defs = part.defs;
    columns.push(part.column);
    progress(k + 1);
  }
  return { columns, defs, presence: anyPresent(seen), host };
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
    await showSnippets();
    dialog.showModal();
  });
  /**
   * The dialog's snippets for the view and the Figure controls. Each reserves
   * the height the field gives, else the figure's own, measured as the
   * snippet will show it (measureEmbed.ts), so a post does not jump when the
   * figure is drawn.
   */
  const showSnippets = async (): Promise<void> => {
    const { state, trace } = refs.data;
    const settings = refs.settings();
    const hash = await encodeShare(state);
    const base = appBase(window.location.href);
    const last = trace?.length ?? state.step;
    const shown = { allocators: shownAllocators(state), ...settings };
    let height = settings.height;
    if (!settings.heightChosen) {
      say("Measuring the figure's height…");
      const measured = await measureEmbedHeight(embedUrl(base, hash, shown));
      height = measured ?? DEFAULT_EMBED_HEIGHT;
      say(
        measured === null
          ? `The figure's height could not be measured: the snippets reserve ${DEFAULT_EMBED_HEIGHT} px.`
          : `The snippets reserve the figure's height in a ${EMBED_COLUMN_PX} px column: ${measured} px.`,
      );
    }
    const list = embedSnippets(base, hash, {
      ...shown,
      height,
      fence: { info: fenceInfo(state, { ...settings, height, lastStep: last }), program: state.source },
    });
    snippets.replaceChildren(
      ...list.map((s) => {
        const code = h("textarea", { class: "share-code", readonly: true, rows: s.code.split("\n").length + 1, "aria-label": `${s.title} snippet`, spellcheck: "false" });
        code.value = s.code;
        const copy = button(`Copy ${s.title}`, async () => say((await copyText(s.code)) ? `${s.title} snippet copied.` : "Select the snippet and copy it."));
        return h("section", { class: "share-snippet", "data-snippet": s.id }, h("h3", {}, s.title), code, h("p", { class: "muted" }, s.note), copy);
      }),
    );
  };

  const exportFigure = async (what: "memory map" | "cost chart", png: boolean): Promise<boolean> => {
    const { state, trace } = refs.data;
    if (!trace) {
      say("There is no map to export: the program has an error.");
      return false;
    }
    const settings = refs.settings();
    const fig =
      what === "memory map"
        ? await mapFigure(document, state, trace, { link: await liveLink(state), caption: settings.caption.trim() || null, theme: settings.theme })
        : await costFigure(state, trace, settings);
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
    const settings = refs.settings();
    const captured = await animatedMap(
      document,
      steps,
      width,
      (container, step) => {
        if (step === range.from) themeContainer(container, settings.theme);
        renderMemoryMap(container, frameData(trace, step));
      },
      (done) => {
        if (done % 10 === 0) say(`Drawing ${steps.length} steps: ${done} drawn…`);
      },
    );
    const { legend, look } = inTheme(document.documentElement, settings.theme, () => figureLegend(document, captured.presence));
    const fig = compose(
      `Bump Lab: ${trace.allocator}, ${targetName(trace.target)}, ${capacityText(state, trace)}, ops ${range.from} to ${range.to} of ${trace.length}`,
      await liveLink({ ...state, step: range.from, micro: null }),
      [captured.column],
      steps.map((step) => withCaption(settings, `${stepText(state, trace, step)}. ${describeStep(trace, step)}`)),
      look,
      legend,
      captured.defs,
      inTheme(document.documentElement, settings.theme, () => (map ? surfaceOf(map) : surfaceOf(document.body))),
    );
    const weight = utf8Bytes(fig.text);
    if (weight > ANIMATION_MAX_BYTES) {
      return say(`The animation would be ${megabytes(weight)}, over the ${megabytes(ANIMATION_MAX_BYTES)} limit: choose fewer steps.`);
    }
    await download(new Blob([fig.text], { type: "image/svg+xml" }), exportFileName(`animation-${range.from}-to`, state.allocator, range.to, "svg"));
    say(`Exported ops ${range.from} to ${range.to} as an animated SVG: ${steps.length} steps, ${SECONDS_PER_FRAME} s each, ${megabytes(weight)}.`);
  });
  const gif = button("Export GIF", async () => {
    const { state, trace } = refs.data;
    if (!trace) return say("There is no run to animate: the program has an error.");
    const range = animationRange(from.value, to.value, trace.length);
    if (typeof range === "string") return say(range);
    const settings = refs.settings();
    const map = document.querySelector<SVGSVGElement>("#memory-map svg.memory-map");
    const width = Number(map?.getAttribute("width")) || 720;
    const steps = Array.from({ length: range.to - range.from + 1 }, (_, i) => range.from + i);
    say(`Drawing ${steps.length} steps…`);
    const drawn = await stepColumns(trace, steps, width, settings.theme, (done) => {
      if (done % 10 === 0) say(`Drawing ${steps.length} steps: ${done} drawn…`);
    });
    let frames;
    let background: string;
    try {
      const { legend, look } = figureLegend(document, drawn.presence, drawn.host);
      background = inTheme(document.documentElement, settings.theme, () => (map ? surfaceOf(map) : surfaceOf(document.body))) ?? "#ffffff";
      const link = await liveLink({ ...state, step: range.from, micro: null });
      frames = steps.map((step, k) =>
        compose(
          `Bump Lab: ${trace.allocator}, ${targetName(trace.target)}, ${capacityText(state, trace)}, ops ${range.from} to ${range.to} of ${trace.length}`,
          link,
          [drawn.columns[k] ?? { name: null, svg: "", width: 0, height: 0 }],
          [withCaption(settings, `${stepText(state, trace, step)}. ${describeStep(trace, step)}`)],
          look,
          legend,
          drawn.defs,
          background,
        ),
      );
    } finally {
      drawn.host.remove();
    }
    const { encodeGif, GIF_MAX_BYTES } = await import("../share/exportGif");
    const out = await encodeGif(
      frames.map((f) => ({ svg: f.text, width: f.width, height: f.height })),
      SECONDS_PER_FRAME * 1000,
      background,
      (done) => {
        if (done % 10 === 0) say(`Encoding ${steps.length} frames: ${done} done…`);
      },
    );
    if (out.bytes.length > GIF_MAX_BYTES) return say(`The GIF would be ${megabytes(out.bytes.length)}, over the ${megabytes(GIF_MAX_BYTES)} limit: choose fewer steps.`);
    download(new Blob([out.bytes.slice().buffer], { type: "image/gif" }), exportFileName(`animation-${range.from}-to`, state.allocator, range.to, "gif"));
    const size = out.bytes.length < 1024 * 1024 ? `${Math.round(out.bytes.length / 1024)} kB` : megabytes(out.bytes.length);
    say(`Exported ops ${range.from} to ${range.to} as an animated GIF: ${steps.length} frames of ${out.width} × ${out.height} px, ${SECONDS_PER_FRAME} s each, ${size}.`);
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
    gif,
    h(
      "p",
      { class: "share-animation-note muted", id: "share-anim-note" },
      `An animated SVG, one step a second, that plays without scripts (at most ${ANIMATION_MAX_STEPS} steps and ${megabytes(ANIMATION_MAX_BYTES)}), or a GIF of the same steps for hosts that take neither SVG nor iframes.`,
    ),
  );
  gif.setAttribute("aria-describedby", "share-anim-note");

  // The Figure controls: how the snippets show the view and how the exports draw it.
  const figureBox = h("input", { type: "checkbox", id: "share-figure", checked: true });
  const caption = h("input", { type: "text", class: "share-caption", id: "share-caption", maxlength: 300, placeholder: "Words under the figure" });
  const height = h("input", { type: "number", class: "share-step", id: "share-height", min: 120, max: 4000, step: 10, inputmode: "numeric", placeholder: "measured" });
  const theme = h(
    "select",
    { id: "share-theme" },
    h("option", { value: "auto" }, "the page's"),
    h("option", { value: "light" }, "light"),
    h("option", { value: "dark" }, "dark"),
  );
  refs.settings = (): FigureSettings => {
    const n = Number(height.value);
    const t = theme.value;
    const chosen = height.value.trim() !== "" && Number.isFinite(n) && n >= 120 && n <= 4000;
    return {
      figure: figureBox.checked,
      caption: caption.value,
      height: chosen ? Math.round(n) : DEFAULT_HEIGHT,
      heightChosen: chosen,
      theme: t === "light" || t === "dark" ? t : "auto",
    };
  };
  for (const input of [figureBox, caption, height, theme]) {
    input.addEventListener("change", () => {
      if (dialog.open) showSnippets().catch(() => undefined);
    });
  }
  const figureRow = h(
    "div",
    { class: "share-figure", role: "group", "aria-labelledby": "share-figure-title" },
    h("span", { id: "share-figure-title", class: "share-animation-title" }, "Figure"),
    h("label", { class: "share-check" }, figureBox, " read-only figure"),
    h("label", { for: "share-caption" }, "Caption"),
    caption,
    h("label", { for: "share-height" }, "Height (px)"),
    height,
    h("label", { for: "share-theme" }, "Theme"),
    theme,
    h(
      "p",
      { class: "share-animation-note muted" },
      "The embed snippets show the view as a figure (no editing controls, each map fitted to the bytes in use) or as the player; the caption and theme are the exports' too.",
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
      figureRow,
      animationRow,
      status,
      dialog,
    ),
  );
  Object.assign(refs, { status, dialog, snippets, buttons: { svg, png, trace, animation, gif }, range: { from, to } });
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
  refs.buttons.gif.disabled = data.trace === null;
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
