// The native x86-64 reference inside the Cost panel: a collapsible table of
// callgrind's Ir / Bc per case (docs/bench/native-x86_64.json, imported at
// build time), the row of the case the current op performs highlighted and
// scrolled into view inside the table's own box, the preset's column marked.
// Each count is a button that opens the instructions behind it (x86Listing.ts).

import {
  countText,
  presetLibrary,
  REAL_COLUMNS,
  type X86Bench,
  type X86Count,
  type X86Reference,
  x86Notes,
} from "../model/x86";
import { h, markCurrent } from "./dom";
import { createX86ListingDialog, type X86ListingDialog } from "./x86Listing";

export interface X86TableData {
  reference: X86Reference;
  /** The preset (trace.allocator). */
  preset: string;
  /** The case the current op performs, if any. */
  currentCase: string | undefined;
}

interface Refs {
  details: HTMLDetailsElement;
  body: HTMLElement;
  box: HTMLElement | null;
  /** What the table was built for (the preset's column). */
  builtFor: string | null;
  current: string | undefined;
  listing: X86ListingDialog;
}

const views = new WeakMap<HTMLElement, Refs>();

/**
 * A count, as a button that opens its instructions (`open` names the case
 * and the library whose listing it is: for "ours best", the first of ours
 * with that count); a missing count as a dash whose title says why.
 */
function cell(
  count: X86Count | null | undefined,
  lib: string,
  title: string | undefined,
  own = false,
  open?: { caseName: string; lib: string; libName: string },
): HTMLElement {
  const content =
    count && open
      ? h(
          "button",
          {
            type: "button",
            class: "x86-cell",
            "data-case": open.caseName,
            "data-lib": open.lib,
            "data-lib-name": open.libName,
            "aria-label": `${open.caseName}, ${open.libName}: ${countText(count)}. Show its instructions`,
          },
          countText(count),
        )
      : count
        ? countText(count)
        : "—";
  return h("td", { class: own ? "is-preset" : undefined, title, "data-lib": lib }, content);
}

function buildTable(bench: X86Bench, preset: string, notesOf: Map<string, number[]>): HTMLElement {
  // The "ours" column: the preset's own library, else the best of ours.
  const lib = presetLibrary(bench, preset);
  const ours = lib ? { id: lib.id, label: lib.name } : { id: null, label: "ours best" };
  const name = (id: string): string => bench.libraries.find((l) => l.id === id)?.name ?? id;
  const head = h(
    "tr",
    {},
    h("th", { scope: "col" }, "case"),
    ...REAL_COLUMNS.map((id) => h("th", { scope: "col", "data-lib": id }, name(id))),
    h("th", { scope: "col", "data-lib": ours.id ?? "ours_best", class: ours.id ? "is-preset" : undefined }, ours.label),
  );
  const rows = bench.cases.map((c) => {
    // A missing count's title says why it is missing.
    const result = (id: string, own = false): HTMLElement => {
      const count = c.results[id];
      const key = c.unsupported[id];
      const why = count ? undefined : key !== undefined ? bench.unsupported_reasons[key] : "not measured";
      return cell(count, id, why, own, { caseName: c.name, lib: id, libName: name(id) });
    };
    const best = c.ours_best;
    // "ours best" may name several libraries with the same count: their listings differ, show the first's.
    const bestLib = best?.lib.split(", ")[0];
    return h(
      "tr",
      { "data-case": c.name, title: `${c.group}, MIN_ALIGN ${c.min_align}` },
      h(
        "th",
        { scope: "row" },
        c.name,
        // Buttons, not #fragment links: the page's hash is its share link.
        ...(notesOf.get(c.name) ?? []).map((n) =>
          h("sup", {}, h("button", { type: "button", class: "x86-note-ref", "data-note": String(n), "aria-label": `note ${n}` }, String(n))),
        ),
      ),
      ...REAL_COLUMNS.map((id) => result(id)),
      ours.id
        ? result(ours.id, true)
        : cell(
            best,
            "ours_best",
            best ? `by ${best.lib.replaceAll("_", "-")}` : "none of ours supports this case",
            false,
            bestLib ? { caseName: c.name, lib: bestLib, libName: name(bestLib) } : undefined,
          ),
    );
  });
  return h("table", { class: "x86-table" }, h("thead", {}, head), h("tbody", {}, ...rows));
}

/** Scrolls the highlighted row into the middle of the table's box (never the page). */
function scrollToCurrent(refs: Refs): void {
  const box = refs.box;
  if (!box || !refs.details.open || refs.current === undefined) return;
  const row = box.querySelector<HTMLElement>("tr.is-current");
  if (!row) return;
  const head = box.querySelector<HTMLElement>("thead")?.offsetHeight ?? 0;
  const visible = box.clientHeight - head;
  const top = row.offsetTop - head - (visible - row.offsetHeight) / 2;
  box.scrollTop = Math.max(0, top);
}

function build(container: HTMLElement): Refs {
  const body = h("div", { class: "x86-body" });
  const details = h(
    "details",
    { class: "x86-ref" },
    h("summary", {}, "x86-64 reference (callgrind, not this op)"),
    body,
  );
  const listing = createX86ListingDialog();
  container.replaceChildren(details, listing.dialog);
  const refs: Refs = { details, body, box: null, builtFor: null, current: undefined, listing };
  details.addEventListener("toggle", () => scrollToCurrent(refs));
  body.addEventListener("click", (e) => {
    const count = e.target instanceof Element ? e.target.closest<HTMLElement>("button.x86-cell") : null;
    if (count) {
      const { case: caseName, lib, libName } = count.dataset;
      if (caseName !== undefined && lib !== undefined) listing.open(caseName, lib, libName ?? lib, count);
      return;
    }
    const ref = e.target instanceof Element ? e.target.closest<HTMLElement>("button.x86-note-ref") : null;
    const note = ref ? body.querySelector<HTMLElement>(`#x86-note-${ref.dataset["note"] ?? ""}`) : null;
    if (!note) return;
    note.scrollIntoView({ block: "nearest" });
    note.focus({ preventScroll: true });
  });
  return refs;
}

export function renderX86Table(container: HTMLElement, data: X86TableData): void {
  let refs = views.get(container);
  if (!refs) {
    refs = build(container);
    views.set(container, refs);
  }
  const { reference } = data;
  if (!reference.ok) {
    if (refs.builtFor !== "error") {
      refs.builtFor = "error";
      refs.box = null;
      refs.body.replaceChildren(h("p", { class: "x86-error" }, `The reference table could not be read: ${reference.error}`));
    }
    return;
  }
  const bench = reference.bench;
  if (refs.builtFor !== data.preset) {
    refs.builtFor = data.preset;
    refs.current = undefined;
    const { notes, byCase } = x86Notes(bench);
    const box = h("div", { class: "x86-scroll", tabindex: "0", role: "region", "aria-label": "x86-64 reference table" }, buildTable(bench, data.preset, byCase));
    const noteList = h(
      "ol",
      { class: "x86-notes", "aria-label": "Notes on the x86-64 table" },
      ...notes.map(({ n, text }) => h("li", { id: `x86-note-${n}`, value: String(n), tabindex: "-1" }, text)),
    );
    refs.box = box;
    refs.body.replaceChildren(
      h(
        "p",
        { class: "x86-note" },
        "Native x86-64 counts (instructions / conditional branches, callgrind's Ir / Bc) of the same operations, measured once with callgrind (",
        h("code", {}, bench.meta.command),
        "): a different instruction set from the wasm bars above, never to be compared number-for-number with them. A count opens the instructions behind it.",
      ),
      h("p", { class: "x86-meta" }, `${bench.meta.rustc.version} · measured ${bench.meta.date}`),
      box,
      noteList,
    );
  }
  if (refs.current !== data.currentCase) {
    refs.current = data.currentCase;
    for (const row of refs.body.querySelectorAll<HTMLElement>("tr[data-case]")) {
      markCurrent(row, row.dataset["case"] === data.currentCase, "true");
    }
    scrollToCurrent(refs);
  }
}
