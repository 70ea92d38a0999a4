// The instructions behind one cell of the x86-64 reference table, in a modal
// dialog: per function executed in the measured window, each instruction's
// address, objdump text and execution count, each conditional branch's
// outcome in words, and a total line that equals the cell. The listings file
// is fetched the first time a dialog opens (model/x86Listing.ts).

import { branchText, loadX86Listings, totalText, type X86Function, type X86Listing } from "../model/x86Listing";
import { h } from "./dom";
import "../x86Listing.css";

export interface X86ListingDialog {
  dialog: HTMLDialogElement;
  /** Opens the listing of `caseName` measured on library `lib` (shown as `libName`); `opener` gets focus back on close. */
  open(caseName: string, lib: string, libName: string, opener: HTMLElement): void;
}

/**
 * The instruction, then objdump's symbol for its target (`<f+0x1a>`, or
 * `# 7dbf0 <memcpy@GLIBC_2.14>` for a load through the GOT) in a span of its
 * own: quieter, and free to wrap anywhere on a narrow screen.
 */
function instructionText(text: string): HTMLElement[] {
  const at = text.search(/ (<|# )/);
  if (at < 0) return [h("code", {}, text)];
  return [h("code", {}, text.slice(0, at)), h("code", { class: "x86-listing-sym" }, text.slice(at))];
}

function functionSection(f: X86Function, index: number): HTMLElement {
  const id = `x86-listing-fn-${index}`;
  const rows = f.instructions.map((i) => {
    const outcome = branchText(i);
    const kind =
      i.taken === undefined ? undefined : i.taken > 0 && (i.notTaken ?? 0) > 0 ? "is-mixed" : i.taken > 0 ? "is-taken" : "is-not-taken";
    return h(
      "tr",
      { class: kind ? `is-branch ${kind}` : undefined, "data-address": i.address },
      h("td", { class: "x86-listing-address" }, i.address),
      h("td", { class: "x86-listing-text" }, ...instructionText(i.text)),
      h("td", { class: "x86-listing-count" }, String(i.count)),
      h("td", { class: "x86-listing-branch" }, outcome ?? ""),
    );
  });
  return h(
    "section",
    { class: "x86-listing-fn", "aria-labelledby": id },
    h("h3", { id }, h("code", {}, f.name)),
    h(
      "p",
      { class: "x86-listing-fn-meta" },
      `${f.object} · ${totalText(f)}`,
      f.alias ? ` · the linker merged it with the identical ${f.alias}, the name callgrind reports` : "",
    ),
    h(
      "div",
      { class: "x86-listing-scroll", tabindex: "0", role: "region", "aria-label": `Instructions of ${f.name}` },
      h(
        "table",
        { class: "x86-listing-table" },
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            h("th", { scope: "col" }, "address"),
            h("th", { scope: "col" }, "instruction"),
            h("th", { scope: "col" }, "executed"),
            h("th", { scope: "col", title: "how often a conditional branch was taken or not" }, "branch"),
          ),
        ),
        h("tbody", {}, ...rows),
      ),
    ),
  );
}

function listingBody(listing: X86Listing): HTMLElement[] {
  return listing.functions.map((f, i) => functionSection(f, i));
}

export function createX86ListingDialog(): X86ListingDialog {
  const title = h("h2", { id: "x86-listing-title" }, "Instructions");
  // A status: announced once the listing has loaded.
  const total = h("p", { class: "x86-listing-total", role: "status" });
  const about = h(
    "p",
    { class: "x86-listing-about" },
    "Every x86-64 instruction callgrind counted inside the measured entry function and what it called, with how many times it ran; a conditional branch says how often it was taken (it jumped) or not taken (it went on with the next instruction).",
  );
  const body = h("div", { class: "x86-listing-body" });
  const close = h("button", { type: "button", class: "x86-listing-close" }, "Close");
  const dialog = h(
    "dialog",
    { class: "x86-listing", "aria-labelledby": "x86-listing-title", "aria-describedby": "x86-listing-total" },
    h("div", { class: "x86-listing-head" }, title, close),
    about,
    total,
    body,
  );
  total.id = "x86-listing-total";
  let opener: HTMLElement | null = null;
  /** The request on screen: a slow load must not fill a dialog opened since for another cell. */
  let shown = 0;
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (opener?.isConnected) opener.focus();
    opener = null;
  });
  // A click on the backdrop (outside the dialog's box) closes it, as Escape does.
  dialog.addEventListener("click", (e) => {
    if (e.target !== dialog) return;
    const r = dialog.getBoundingClientRect();
    const inside = e.clientX >= r.left && e.clientX <= r.right && e.clientY >= r.top && e.clientY <= r.bottom;
    if (!inside) dialog.close();
  });

  const open = (caseName: string, lib: string, libName: string, from: HTMLElement): void => {
    const request = ++shown;
    opener = from;
    title.textContent = `${caseName} · ${libName}`;
    total.textContent = "";
    body.replaceChildren(h("p", { class: "x86-listing-loading" }, "Loading the instructions…"));
    dialog.dataset["case"] = caseName;
    dialog.dataset["lib"] = lib;
    if (!dialog.open) dialog.showModal();
    close.focus();
    void loadX86Listings().then((result) => {
      if (request !== shown) return;
      if (!result.ok) {
        body.replaceChildren(h("p", { class: "x86-listing-error", role: "alert" }, `The instructions could not be loaded: ${result.error}. Close and open the cell again to retry.`));
        return;
      }
      const listing = result.listings.cells[caseName]?.[lib];
      if (!listing) {
        body.replaceChildren(h("p", { class: "x86-listing-error", role: "alert" }, `No listing was recorded for ${caseName} on ${libName}: regenerate it with npm run bench:native.`));
        return;
      }
      total.textContent = `Total: ${totalText(listing)} (the table's ${listing.ir} / ${listing.bc})`;
      body.replaceChildren(...listingBody(listing));
    });
  };
  return { dialog, open };
}
