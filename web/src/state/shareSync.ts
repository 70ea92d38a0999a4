// Share links and the page's URL: a link in the hash is applied once at start
// (and again when a new one is pasted into the address bar); after that the
// hash follows the state, debounced, with replaceState so stepping does not
// fill the history. Writing starts once the start link is applied, so the
// default program never overwrites a link still being decoded.

import { decodeShare, encodeShare, MAX_STEP, type SharedState } from "../share/link";
import type { Action, AppState } from "./reducer";
import type { Store } from "./store";

/** The URL hash follows the state this long after the last change. */
export const SHARE_DEBOUNCE_MS = 400;

/** What a share link carries: the program, its settings, the step (and micro-step) and the mode. */
export function sharedOf(s: AppState): SharedState {
  return {
    source: s.source,
    allocator: s.allocator,
    target: s.target,
    capacity: s.capacity,
    minAlign: s.minAlign,
    ...(s.child != null ? { child: s.child } : {}),
    // The step a trace still to come opens at (a share link's, a lesson's
    // first op), else the one in view: a link copied before the trace arrives
    // opens where the page is going, not at op 0. "The last op" is asked for
    // as a step past any run, which a link carries as its largest.
    step: Math.min(s.pendingStep ?? s.step, MAX_STEP),
    // Only inside an op: a link at an op's end has no micro key, so its text stays the one tests/share-corpus pins.
    ...(s.micro !== null ? { micro: s.micro } : {}),
    compare: s.compare,
    lesson: s.lesson,
    // Only while sweeping: a link with no sweep has no sweep key, so its text
    // stays the one tests/share-corpus pins.
    ...(s.sweep !== null ? { sweep: s.sweep } : {}),
  };
}

/**
 * Whether a hash is meant as a share link rather than an in-page anchor such
 * as "#cost-model", which must stay a plain jump: a link of any version
 * ("v1?…", "v1z…", a later "v2…"), or key=value pairs that lost their "v1?"
 * prefix ("a=bumpalo&p=…&end"), which an anchor (an element's id) never has.
 * Whatever is meant as a link is opened or said why not: never ignored.
 */
export function isShareLink(hash: string): boolean {
  return /^v\d/.test(hash) || /^[?&]?[a-z]\w*=/i.test(hash);
}

export interface ShareSyncOptions {
  /** Whether this build has the preset a link names. */
  known(allocator: string): boolean;
  lessonExists(id: string): boolean;
  /**
   * Says why a link did not open; `link` is the whole URL it came in, for
   * the notice to offer to copy (the address bar keeps it too).
   */
  notice(text: string, link?: string): void;
  clearNotice(): void;
}

/**
 * Keeps the URL's hash and the state in step; the promise settles once the
 * start link (if the page opened with one) is applied or refused, so the page
 * is not called ready while it still shows the default program.
 */
export function syncShareLinks(store: Store<AppState, Action>, options: ShareSyncOptions): Promise<void> {
  let timer: number | undefined;
  // When the state last changed: a drag of the scrubber changes the step every
  // frame, and one timer re-armed for what is left of the quiet time (not one
  // timer per step) writes the link once, after the hand stops.
  let changedAt = 0;
  // Bumped by every pasted link: a write scheduled (or still encoding)
  // before it must not put the old state's link back over the new one.
  let pasted = 0;
  const write = (): void => {
    const at = pasted;
    encodeShare(sharedOf(store.getState())).then(
      (text) => {
        if (at === pasted && window.location.hash.slice(1) !== text) window.history.replaceState(null, "", `#${text}`);
      },
      // A state no link can carry (a program past the size limit): drop the
      // hash rather than leave one that opens an older state.
      () => {
        if (at === pasted) window.history.replaceState(null, "", `${window.location.pathname}${window.location.search}`);
      },
    );
  };
  const due = (): void => {
    const wait = changedAt + SHARE_DEBOUNCE_MS - Date.now();
    if (wait > 0) timer = window.setTimeout(due, wait);
    else {
      timer = undefined;
      write();
    }
  };
  const writeHash = (): void => {
    changedAt = Date.now();
    if (timer === undefined) timer = window.setTimeout(due, SHARE_DEBOUNCE_MS);
  };
  // A link that did not open stays in the address bar, to copy, repair or
  // report, until the reader changes the program or a setting: only then
  // does the hash follow the state again. Stepping alone keeps it (the run
  // settling on its last op is a step, not the reader's change). `held` is
  // the program and settings shown when the link was refused.
  let held: string | null = null;
  const settingsOf = (state: AppState): string => JSON.stringify({ ...sharedOf(state), step: 0, micro: null });
  const startWriting = (): void => {
    store.subscribe((s, prev) => {
      // The program apart: a recording is megabytes, too long to copy at every step.
      const rest = (state: AppState): string => JSON.stringify({ ...sharedOf(state), source: "" });
      if (s.source === prev.source && rest(s) === rest(prev)) return;
      if (held !== null && settingsOf(s) === held) return;
      held = null;
      writeHash();
    });
  };

  /** Decodes a link and applies it; a link that does not open says why and changes nothing. */
  const open = async (link: string, atStart: boolean): Promise<void> => {
    const decoded = await decodeShare(link);
    // decodeShare's error is a whole sentence already: add only what was kept.
    const kept = atStart ? "Showing the default program instead." : "The program in view is unchanged.";
    if (!decoded.ok) {
      refused(link, `${decoded.error} ${kept}`);
    } else if (!options.known(decoded.state.allocator)) {
      refused(link, `This share link names an allocator this version does not have (${decoded.state.allocator}). ${kept}`);
    } else {
      const { state } = decoded;
      options.clearNotice();
      const lesson = state.lesson && options.lessonExists(state.lesson) ? state.lesson : null;
      store.dispatch({ type: "applyShared", shared: { ...state, lesson } });
    }
  };
  /** A link that did not open: said, offered to copy, and left in the address bar. */
  const refused = (link: string, why: string): void => {
    held = settingsOf(store.getState());
    options.notice(why, `${window.location.origin}${window.location.pathname}${window.location.search}#${link}`);
    if (window.location.hash.slice(1) !== link) window.history.replaceState(null, "", `#${link}`);
  };

  const link = window.location.hash.slice(1);
  let started = Promise.resolve();
  if (isShareLink(link)) started = open(link, true).finally(startWriting);
  else startWriting();
  // A link pasted into the address bar of an open page (replaceState fires no hashchange).
  window.addEventListener("hashchange", (event) => {
    // The link that was pasted, not the hash now: a write due in the same
    // moment may already have replaced it.
    const text = new URL(event.newURL).hash.slice(1);
    if (!isShareLink(text)) return;
    window.clearTimeout(timer);
    timer = undefined;
    pasted += 1;
    void open(text, false);
  });
  return started;
}
