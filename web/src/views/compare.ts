// Compare mode: the same program on two to four allocator configurations,
// side by side at the same step (the app's stepper moves them together). A
// setup row chooses each column's preset, target and minimum alignment; each
// column draws its own memory map; a table below lines the columns up op by
// op with each op's cost (the fewest marked) and where the placements differ. Everything drawn comes from the columns'
// traces and the step; the only state kept here is DOM references, so a
// re-render with the same data changes nothing.

import type { TraceView, ViewResult } from "../wasm/traceView";
import type { AllocatorInfo, Target } from "../wasm/types";
import { clampStep } from "../model/step";
import { bumpPointerAt, chunkViewsAt, mostChunksAlive, noChunkYet, statsAt } from "../model/chunks";
import {
  addColumn,
  bestTotals,
  columnLabels,
  columnTotals,
  compareOps,
  differenceTexts,
  effectiveChild,
  effectiveMinAlign,
  focusAt,
  MAX_COMPARE,
  MIN_COMPARE,
  placementText,
  removeColumn,
  TOTAL_FIELDS,
  traceOf,
  withAllocator,
  type CompareColumn,
  type CompareConfig,
  type OpComparison,
} from "../model/compare";
import { childText } from "../model/settings";
import { h, markCurrent, setText } from "./dom";
import { fillAllocators } from "./allocatorMenu";
import { figureFit, renderMemoryMap } from "./map";
import "./compare.css";

export interface CompareData {
  allocators: readonly AllocatorInfo[];
  columns: CompareColumn[];
  step: number;
  animate: boolean;
  sourceLines: readonly string[];
  /** Why these columns sit side by side (a counterpart pair), else null. */
  why?: string | null;
  /** The program narrates the single run: its narration waits until compare closes, and the view says so. */
  narrationWaits?: boolean;
  /**
   * A figure (an embed for a post): the columns alone, headed by their
   * allocators, each map fitted to the bytes its run uses; no setup row,
   * table or other control to edit with.
   */
  figure?: boolean;
}

export interface CompareHandlers {
  onSeek(step: number): void;
  onConfigs(configs: CompareConfig[]): void;
  onExit(): void;
}

/** Ops per page of the table: long programs show the page holding the current op. */
const TABLE_PAGE = 200;

/** One column's settings in the setup row. */
type SetupCell = ReturnType<typeof buildSetupCell>;
/** One column's heading, summary, error and memory map. */
type ColumnView = ReturnType<typeof buildColumnView>;

interface Refs {
  /** Prefix of this view's element ids. */
  prefix: string;
  root: HTMLElement;
  setupCells: HTMLElement;
  add: HTMLButtonElement;
  columns: HTMLElement;
  scroll: HTMLElement;
  head: HTMLTableSectionElement;
  body: HTMLTableSectionElement;
  foot: HTMLTableSectionElement;
  pageNote: HTMLElement;
  why: HTMLElement;
  narrationNote: HTMLElement;
  cells: SetupCell[];
  views: ColumnView[];
  /** What the table body was built from: rebuilt only when it changes. */
  tableKey: { results: ViewResult[]; text: string } | null;
  rows: Map<number, HTMLTableRowElement>;
  lastStep: number;
  /** Built as a figure: only the columns are in the document. */
  figure: boolean;
  /** The latest data and handlers, for listeners made on the first render. */
  data: CompareData;
  handlers: CompareHandlers;
  resize: ResizeObserver | null;
}

const views = new WeakMap<HTMLElement, Refs>();

const configsOf = (data: CompareData): CompareConfig[] => data.columns.map((c) => ({ ...c.config }));

/** The total number of steps: the longest column (columns of one program agree). */
function totalSteps(data: CompareData): number {
  return Math.max(0, ...data.columns.map((c) => (c.result.ok ? c.result.trace.length : 0)));
}

function setConfig(refs: Refs, index: number, change: (c: CompareConfig) => CompareConfig): void {
  const configs = configsOf(refs.data);
  const old = configs[index];
  if (!old) return;
  configs[index] = change(old);
  refs.handlers.onConfigs(configs);
}

/** Distinct ids per compare view, for the labels' `for`. */
let instances = 0;

function field(id: string, label: string, control: HTMLSelectElement): HTMLElement {
  control.id = id;
  return h("div", { class: "compare-field" }, h("label", { for: id }, label), control);
}

function buildSetupCell(refs: Refs, index: number) {
  const n = index + 1;
  const id = (what: string): string => `${refs.prefix}-${what}-${n}`;
  const allocator = h("select", { class: "compare-allocator" });
  allocator.addEventListener("change", () => setConfig(refs, index, (c) => withAllocator(c, allocator.value)));
  const target = h(
    "select",
    { class: "compare-target" },
    h("option", { value: "64" }, "64-bit"),
    h("option", { value: "wasm32" }, "wasm32"),
  );
  target.addEventListener("change", () => {
    const value: Target = target.value === "wasm32" ? "wasm32" : "64";
    setConfig(refs, index, (c) => ({ ...c, target: value }));
  });
  const minAlign = h("select", { class: "compare-min-align" });
  minAlign.addEventListener("change", () => setConfig(refs, index, (c) => ({ ...c, minAlign: Number(minAlign.value) })));
  const remove = h("button", { type: "button", class: "compare-remove" }, "Remove");
  remove.setAttribute("aria-label", `Remove column ${n}`);
  remove.addEventListener("click", () => refs.handlers.onConfigs(removeColumn(configsOf(refs.data), index)));
  const minAlignField = field(id("min-align"), `Minimum alignment ${n}`, minAlign);
  const child = h("select", { class: "compare-child" });
  child.addEventListener("change", () => setConfig(refs, index, (c) => ({ ...c, child: child.value })));
  // "Child", as the preset's description names it ("Child: …"): a label
  // with "allocator" in it would share its accessible name with "Allocator".
  const childField = field(id("child"), `Child ${n}`, child);
  const root = h(
    "div",
    { class: "compare-setup-cell", role: "group", "aria-label": `Column ${n} settings` },
    h("div", { class: "compare-setup-head" }, h("span", { class: "compare-setup-title" }, `Column ${n}`), remove),
    field(id("allocator"), `Allocator ${n}`, allocator),
    field(id("target"), `Target ${n}`, target),
    minAlignField,
    childField,
  );
  return { root, allocator, target, minAlignField, minAlign, childField, child, remove };
}

function buildColumnView(prefix: string, index: number) {
  const heading = h("h3", { class: "compare-col-title", id: `${prefix}-column-${index + 1}` });
  const summary = h("p", { class: "compare-col-summary" });
  const error = h("p", { class: "compare-col-error", role: "alert" });
  const map = h("div", { class: "compare-map map-container" });
  const root = h(
    "section",
    { class: "compare-column", "aria-labelledby": heading.id, "data-column": index },
    heading,
    summary,
    error,
    map,
  );
  return { root, heading, summary, error, map };
}

function build(container: HTMLElement, data: CompareData, handlers: CompareHandlers): Refs {
  const setupCells = h("div", { class: "compare-setup-cells" });
  const add = h("button", { type: "button", class: "compare-button" }, "Add column");
  const exit = h("button", { type: "button", class: "compare-button compare-exit" }, "Exit compare");
  const columns = h("div", { class: "compare-columns" });
  const head = h("thead");
  const body = h("tbody");
  const foot = h("tfoot");
  const table = h(
    "table",
    { class: "compare-table" },
    h("caption", { class: "visually-hidden" }, "Op by op: each column's wasm instructions and placement, and where the placements differ"),
    head,
    body,
    foot,
  );
  const scroll = h("div", { class: "compare-table-scroll", tabindex: 0, role: "region", "aria-label": "Per-op comparison" }, table);
  const pageNote = h("p", { class: "compare-page-note" });
  const why = h("p", { class: "compare-why" });
  const narrationNote = h(
    "p",
    { class: "compare-narration-note" },
    "The narration describes the single run, so it waits while you compare: it comes back when you leave compare mode.",
  );
  const figure = data.figure === true;
  // A figure keeps the columns only: the setup row and the table are never attached.
  const root = figure
    ? h("div", { class: "compare is-figure" }, why, columns)
    : h(
        "div",
        { class: "compare" },
        h(
          "div",
          { class: "compare-setup", role: "group", "aria-label": "Compare setup" },
          setupCells,
          h("div", { class: "compare-setup-actions" }, add, exit),
        ),
        why,
        narrationNote,
        columns,
        h("h3", { class: "compare-table-title" }, "Op by op"),
        h(
          "p",
          { class: "compare-legend" },
          "Wasm instructions per op: ▼ the fewest, Σ the running total. ≠ where the columns placed a block differently. Choose a row to step there.",
        ),
        pageNote,
        scroll,
      );
  root.dataset["view"] = "compare";
  container.replaceChildren(root);

  const refs: Refs = {
    prefix: `compare${++instances}`,
    root,
    setupCells,
    add,
    columns,
    scroll,
    head,
    body,
    foot,
    pageNote,
    why,
    narrationNote,
    cells: [],
    views: [],
    tableKey: null,
    rows: new Map(),
    lastStep: -1,
    figure,
    data,
    handlers,
    resize: null,
  };
  add.addEventListener("click", () => refs.handlers.onConfigs(addColumn(configsOf(refs.data), refs.data.allocators)));
  exit.addEventListener("click", () => refs.handlers.onExit());
  body.addEventListener("click", (event) => {
    const row = event.target instanceof Element ? event.target.closest<HTMLTableRowElement>("tr[data-op]") : null;
    if (row) refs.handlers.onSeek(Number(row.dataset["op"]) + 1);
  });
  // The maps size themselves to their column; a column's width changes with
  // the window and with the number of columns, so redraw them then.
  if (typeof ResizeObserver !== "undefined") {
    let width = -1;
    let frame: number | undefined;
    refs.resize = new ResizeObserver(() => {
      if (columns.clientWidth === width) return;
      width = columns.clientWidth;
      // In the next frame: each map learns its new width from its own
      // observer, which this one (made first) runs before.
      frame ??= requestAnimationFrame(() => {
        frame = undefined;
        drawColumns(refs, refs.data);
      });
    });
    refs.resize.observe(columns);
  }
  return refs;
}

/**
 * The first `n` parts of `pool` (built as the columns grow, kept when they
 * shrink, so their inputs keep focus), shown in `parent` in order.
 */
function showFirst<T extends { root: HTMLElement }>(parent: HTMLElement, pool: T[], n: number, build: (i: number) => T): T[] {
  while (pool.length < n) pool.push(build(pool.length));
  const shown = pool.slice(0, n);
  if (parent.children.length !== n || shown.some((p, i) => parent.children[i] !== p.root)) parent.replaceChildren(...shown.map((p) => p.root));
  return shown;
}

// ---- Setup row -------------------------------------------------------------------

function drawSetup(refs: Refs, data: CompareData): void {
  const n = data.columns.length;
  const shown = showFirst(refs.setupCells, refs.cells, n, (i) => buildSetupCell(refs, i));
  shown.forEach((cell, i) => {
    const config = data.columns[i]?.config;
    if (!config) return;
    fillAllocators(cell.allocator, data.allocators);
    if (cell.allocator.value !== config.allocator) cell.allocator.value = config.allocator;
    if (cell.target.value !== config.target) cell.target.value = config.target;
    // Minimum alignment: only when the preset offers a choice.
    const aligns = data.allocators.find((a) => a.name === config.allocator)?.minAligns ?? [];
    cell.minAlignField.hidden = aligns.length < 2;
    const alignKey = aligns.join(",");
    if (cell.minAlign.dataset["aligns"] !== alignKey) {
      cell.minAlign.dataset["aligns"] = alignKey;
      cell.minAlign.replaceChildren(...aligns.map((a, k) => h("option", { value: a }, k === 0 ? `${a} (default)` : String(a))));
    }
    const align = String(effectiveMinAlign(config, data.allocators) ?? "");
    if (aligns.length > 0 && cell.minAlign.value !== align) cell.minAlign.value = align;
    // Child allocator: only for a preset that takes one.
    const children = data.allocators.find((a) => a.name === config.allocator)?.children ?? [];
    cell.childField.hidden = children.length < 2;
    const childKey = children.join(",");
    if (cell.child.dataset["children"] !== childKey) {
      cell.child.dataset["children"] = childKey;
      cell.child.replaceChildren(...children.map((c, k) => h("option", { value: c }, k === 0 ? `${childText(c)} (default)` : childText(c))));
    }
    const child = effectiveChild(config, data.allocators) ?? "";
    if (children.length > 0 && cell.child.value !== child) cell.child.value = child;
    cell.remove.hidden = n <= MIN_COMPARE;
  });
  refs.add.hidden = n >= MAX_COMPARE;
}

// ---- Columns ---------------------------------------------------------------------

function emptyText(trace: TraceView, step: number): string {
  return noChunkYet(trace, step)
    ? `no chunk yet: ${trace.allocator} allocates its first chunk lazily`
    : "no chunk: every chunk went back to the base allocator; the next allocation makes one";
}

function columnSummary(trace: TraceView, step: number): string {
  const stats = statsAt(trace, step);
  const totals = columnTotals(trace, step);
  const parts = [`bumps ${trace.direction}`, `${stats.used} B used`, `${stats.padding} B padding`];
  if (totals.instructions !== null) parts.push(`${totals.instructions} instructions so far`);
  return parts.join(" · ");
}

function labelsOf(data: CompareData): string[] {
  return columnLabels(
    data.columns.map((c) => c.config),
    data.allocators,
  );
}

function drawColumns(refs: Refs, data: CompareData): void {
  const labels = labelsOf(data);
  const n = data.columns.length;
  const shown = showFirst(refs.columns, refs.views, n, (i) => buildColumnView(refs.prefix, i));
  refs.columns.dataset["count"] = String(n);
  shown.forEach((view, i) => {
    const column = data.columns[i];
    if (!column) return;
    setText(view.heading, labels[i] ?? column.config.allocator);
    view.root.dataset["allocator"] = column.config.allocator;
    const { result } = column;
    view.root.classList.toggle("has-error", !result.ok);
    if (!result.ok) {
      setText(view.error, `${column.config.allocator}: line ${result.error.line}:${result.error.column} ${result.error.message}`);
      view.error.hidden = false;
      setText(view.summary, "");
      view.map.hidden = true;
      view.root.removeAttribute("data-direction");
      return;
    }
    const trace = result.trace;
    const step = clampStep(trace, data.step);
    view.root.dataset["direction"] = trace.direction;
    view.error.hidden = true;
    setText(view.error, "");
    view.map.hidden = false;
    setText(view.summary, columnSummary(trace, step));
    renderMemoryMap(view.map, {
      direction: trace.direction,
      rows: chunkViewsAt(trace, step),
      bumpPtr: bumpPointerAt(trace, step),
      focus: focusAt(trace, step),
      emptyText: emptyText(trace, step),
      animate: data.animate,
      reserveRows: mostChunksAlive(trace),
      // Fitted as a figure is, in the workbench too: each row narrowed to the
      // bytes the run ever uses and every block wide enough to see and name.
      // Drawn whole, a 100-byte block beside a 10,000-byte one in a column's
      // width is 3 px, unlabelled, under the bump pointer: the difference a
      // comparison is opened to show would be invisible.
      fit: figureFit(trace),
    });
  });
}

// ---- Table -----------------------------------------------------------------------

function pageOf(step: number, total: number): { from: number; to: number } {
  const page = Math.floor(Math.max(0, Math.min(step, total) - 1) / TABLE_PAGE);
  return { from: page * TABLE_PAGE, to: Math.min(total, (page + 1) * TABLE_PAGE) };
}

function fewest(label: string): HTMLElement {
  return h(
    "span",
    { class: "compare-fewest", title: `fewest ${label} of the columns` },
    h("span", { "aria-hidden": "true" }, "▼"),
    h("span", { class: "visually-hidden" }, ` fewest ${label}`),
  );
}

function costCell(row: OpComparison, column: number, max: number): HTMLTableCellElement {
  const c = row.columns[column];
  if (!c) return h("td", { class: "compare-cost is-missing" }, "—");
  const cheapest = row.cheapest.instructions.includes(column);
  const width = c.instructions !== null && max > 0 ? (c.instructions / max) * 100 : 0;
  const placement = placementText(c.placement);
  const slow = c.cost?.slow_instructions ?? 0;
  const bar = h("span", { class: "compare-bar", "aria-hidden": "true" }, h("span", { class: "compare-bar-fill" }));
  bar.style.setProperty("--w", `${width.toFixed(1)}%`);
  return h(
    "td",
    { class: `compare-cost${cheapest ? " is-cheapest" : ""}${row.differs.length > 0 ? " is-differs" : ""}` },
    h(
      "div",
      { class: "compare-cost-line" },
      h("span", { class: "compare-num" }, c.instructions === null ? "not measured" : String(c.instructions)),
      cheapest ? fewest("instructions") : null,
      // The part a new chunk (or slab, or pool) cost: why a column is dearer here.
      slow > 0 ? h("span", { class: "compare-slow" }, `${slow} slow path`) : null,
      c.branches !== null ? h("span", { class: "compare-branches" }, `${c.branches} br`) : null,
      h("span", { class: "compare-sum" }, `Σ ${c.cumulativeInstructions}`),
    ),
    bar,
    placement ? h("div", { class: "compare-placement" }, placement) : null,
  );
}

function buildRow(row: OpComparison, labels: readonly string[], sourceLines: readonly string[]): HTMLTableRowElement {
  // Bars compare the columns within the op: the row's most expensive column is full width.
  const max = Math.max(0, ...row.columns.map((c) => c?.instructions ?? 0));
  const source = sourceLines[row.line - 1]?.trim() ?? "";
  const diffs = differenceTexts(row, labels);
  const tr = h(
    "tr",
    { "data-op": row.index, class: diffs.length > 0 ? "has-differences" : "" },
    h(
      "th",
      { scope: "row", class: "compare-op" },
      h("button", { type: "button", class: "compare-op-button", "aria-label": `Step to op ${row.index + 1}, ${row.name}` }, `${row.index + 1}`),
      h("code", { class: "compare-source" }, source || row.name),
    ),
    ...row.columns.map((_, i) => costCell(row, i, max)),
    h(
      "td",
      { class: `compare-diff${diffs.length > 0 ? " is-differs" : ""}` },
      diffs.length > 0
        ? h("span", {}, h("span", { class: "compare-diff-mark", "aria-hidden": "true" }, "≠ "), diffs.join("; "))
        : h("span", { class: "compare-same" }, row.columns.some((c) => c?.placement.address !== undefined) ? "same placement" : "—"),
    ),
  );
  return tr;
}

function drawTable(refs: Refs, data: CompareData): void {
  const labels = labelsOf(data);
  const results = data.columns.map((c) => c.result);
  const total = totalSteps(data);
  const step = Number.isFinite(data.step) ? Math.min(Math.max(0, Math.trunc(data.step)), total) : 0;
  const page = pageOf(step, total);
  const text = [labels.join("|"), data.sourceLines.join("\n"), page.from].join("\u0000");
  const key = refs.tableKey;
  const same = key !== null && key.text === text && key.results.length === results.length && key.results.every((r, i) => r === results[i]);
  if (!same) {
    refs.tableKey = { results, text };
    const traces = results.map(traceOf);
    const rows = compareOps(traces, page.from, page.to);
    refs.head.replaceChildren(
      h(
        "tr",
        {},
        h("th", { scope: "col" }, "Op"),
        ...labels.map((l) => h("th", { scope: "col" }, l)),
        h("th", { scope: "col" }, "Placement"),
      ),
    );
    refs.rows = new Map();
    const trs = rows.map((r) => {
      const tr = buildRow(r, labels, data.sourceLines);
      refs.rows.set(r.index, tr);
      return tr;
    });
    refs.body.replaceChildren(...trs);
    // Totals over the whole run, the least of each marked.
    const totals = traces.map((t) => (t ? columnTotals(t) : null));
    const best = bestTotals(totals);
    refs.foot.replaceChildren(
      ...TOTAL_FIELDS.map(({ key: field, label }) =>
        h(
          "tr",
          { "data-total": field },
          h("th", { scope: "row" }, label),
          ...totals.map((t, i) => {
            const least = best[field].includes(i);
            return h(
              "td",
              { class: least ? "is-cheapest" : "" },
              t ? String(t[field] ?? "not measured") : "—",
              least ? fewest(label.toLowerCase()) : null,
            );
          }),
          h("td", {}),
        ),
      ),
    );
    setText(
      refs.pageNote,
      total > TABLE_PAGE ? `Ops ${page.from + 1}–${page.to} of ${total}: the table shows the hundreds around the current op.` : "",
    );
    refs.pageNote.hidden = total <= TABLE_PAGE;
    refs.lastStep = -1;
  }

  // The current op's row: marked, and scrolled into the table's view when the step moved.
  const currentIndex = step - 1;
  for (const [index, tr] of refs.rows) markCurrent(tr, index === currentIndex);
  if (refs.lastStep !== step) {
    refs.lastStep = step;
    const tr = refs.rows.get(currentIndex);
    if (tr) {
      const top = tr.offsetTop - refs.head.offsetHeight;
      const bottom = tr.offsetTop + tr.offsetHeight;
      const view = refs.scroll;
      if (top < view.scrollTop) view.scrollTop = top;
      else if (bottom > view.scrollTop + view.clientHeight) view.scrollTop = bottom - view.clientHeight;
    }
  }
}

// ---- Entry -----------------------------------------------------------------------

export function renderCompare(mount: HTMLElement, data: CompareData, handlers: CompareHandlers): void {
  let refs = views.get(mount);
  if (!refs || !mount.contains(refs.root) || refs.figure !== (data.figure === true)) {
    refs?.resize?.disconnect();
    refs = build(mount, data, handlers);
    views.set(mount, refs);
  }
  refs.data = data;
  refs.handlers = handlers;
  setText(refs.why, data.why ?? "");
  refs.why.hidden = !data.why;
  refs.narrationNote.hidden = data.narrationWaits !== true;
  if (refs.figure) {
    drawColumns(refs, data);
    return;
  }
  drawSetup(refs, data);
  drawColumns(refs, data);
  drawTable(refs, data);
}
