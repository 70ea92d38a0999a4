// The share panel: copy a link to this exact view, copy ready-made embed
// snippets, export the memory map and cost chart as standalone SVG or PNG,
// export the trace as JSON and import one back. Text goes through
// textContent; every failure is said in the panel's status line.

import "./sharePanel.css";
import type { TraceView } from "../engine/traceView";
import type { Trace } from "../engine/types";
import { download, exportFileName, standaloneSvg, svgFileText, svgToPng } from "../share/export";
import { traceJson } from "../share/traceFile";
import { encodeShare, type SharedState } from "../share/link";
import { appBase, embedSnippets } from "../share/snippets";
import { h, setText } from "./dom";

export interface SharePanelData {
  state: SharedState;
  trace: TraceView | null;
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
  buttons: { svg: HTMLButtonElement; png: HTMLButtonElement; trace: HTMLButtonElement };
}

const views = new WeakMap<HTMLElement, Refs>();

/** The figure's SVG on the page, standalone, or null when it is not drawn. */
function figure(selector: string, title: string): { text: string; width: number; height: number } | null {
  const svg = document.querySelector<SVGSVGElement>(selector);
  if (!svg) return null;
  const surface = getComputedStyle(svg.closest(".panel") ?? document.body).backgroundColor;
  const copy = standaloneSvg(svg, { title, background: surface || null });
  return { text: svgFileText(copy), width: Number(copy.getAttribute("width")), height: Number(copy.getAttribute("height")) };
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
    const list = embedSnippets(appBase(window.location.href), hash, refs.data.state.allocator);
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

  const exportFigure = async (selector: string, what: string, png: boolean): Promise<void> => {
    const step = refs.data.state.step;
    const fig = figure(selector, `Bump Lab ${what}: ${refs.data.state.allocator}, op ${step}`);
    if (!fig) {
      say(`There is no ${what} to export in this view.`);
      return;
    }
    if (png) {
      download(await svgToPng(fig.text, fig.width, fig.height, 2), exportFileName(what, refs.data.state.allocator, step, "png"));
    } else {
      download(new Blob([fig.text], { type: "image/svg+xml" }), exportFileName(what, refs.data.state.allocator, step, "svg"));
    }
    say(`Exported the ${what} as ${png ? "PNG" : "SVG"}.`);
  };
  const svg = button("Export SVG", async () => {
    await exportFigure("#memory-map svg.memory-map", "memory map", false);
    if (document.querySelector("#cost-view svg")) await exportFigure("#cost-view svg", "cost chart", false);
  });
  const png = button("Export PNG", async () => {
    await exportFigure("#memory-map svg.memory-map", "memory map", true);
    if (document.querySelector("#cost-view svg")) await exportFigure("#cost-view svg", "cost chart", true);
  });
  const trace = button("Export trace (JSON)", async () => {
    if (!refs.data.trace) return say("There is no trace yet: the program has an error.");
    const t = await refs.handlers.onExportTrace();
    if (typeof t === "string") return say(t);
    download(new Blob([traceJson(t)], { type: "application/json" }), exportFileName("trace", t.allocator, null, "json"));
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
      status,
      dialog,
    ),
  );
  Object.assign(refs, { status, dialog, snippets, buttons: { svg, png, trace } });
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
}
