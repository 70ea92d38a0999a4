// Escape closes what is open, one thing per press: the Share panel first,
// then compare mode or the sweep. A select keeps Escape to close itself.

import type { Action, AppState } from "../state/reducer";
import type { Store } from "../state/store";

export function bindEscape(doc: Document, store: Store<AppState, Action>): void {
  doc.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    const share = doc.querySelector<HTMLDetailsElement>("details.share-menu[open]");
    const s = store.getState();
    if (share) {
      share.open = false;
      share.querySelector("summary")?.focus();
    } else if (event.target instanceof HTMLSelectElement) return;
    else if (s.compare !== null) store.dispatch({ type: "exitCompare" });
    else if (s.sweep !== null) store.dispatch({ type: "closeSweep" });
    else return;
    event.preventDefault();
  });
}
