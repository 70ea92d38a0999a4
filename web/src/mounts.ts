// The app page's mounts: the elements of index.html each view draws into,
// found by id once at start.

export interface Mounts {
  editor: HTMLElement;
  mapSummary: HTMLElement;
  map: HTMLElement;
  stepper: HTMLElement;
  stats: HTMLElement;
  cost: HTMLElement;
  x86: HTMLElement;
  opDetails: HTMLElement;
  code: HTMLElement;
  theme: HTMLElement;
  compare: HTMLElement;
  /** The header's mode toggle: Single run, Compare, Sweep; the active one is pressed. */
  singleButton: HTMLElement;
  compareButton: HTMLElement;
  /** The sweep view, in place of the single map and cost panels. */
  sweep: HTMLElement;
  sweepButton: HTMLElement;
  /** The map's legend: nothing on a sweep's chart is a block. */
  mapLegend: HTMLElement;
  /** The heading of the panel the modes share: it names what the mode shows there. */
  mapHeading: HTMLElement;
  /** Messages that are not the program's error (a share link that did not open). */
  notice: HTMLElement;
  narration: HTMLElement;
  predict: HTMLElement;
  share: HTMLElement;
  predictButton: HTMLElement;
  /** Shown only in the single view: compare mode draws its own maps and costs. */
  costPanel: HTMLElement;
  details: HTMLElement;
}

const IDS: Record<keyof Mounts, string> = {
  editor: "editor",
  mapSummary: "map-summary",
  map: "memory-map",
  stepper: "stepper",
  stats: "stats",
  cost: "cost-view",
  x86: "x86-reference",
  opDetails: "op-details",
  code: "code-view",
  theme: "theme-toggle",
  compare: "compare",
  singleButton: "single-button",
  compareButton: "compare-button",
  sweep: "sweep",
  sweepButton: "sweep-button",
  mapLegend: "map-legend",
  mapHeading: "map-heading",
  notice: "notice",
  narration: "narration",
  share: "share-panel",
  predict: "predict",
  predictButton: "predict-button",
  costPanel: "cost-panel",
  details: "detail-grid",
};

export function findMounts(): Mounts {
  const out = {} as Mounts;
  for (const [key, id] of Object.entries(IDS) as [keyof Mounts, string][]) {
    const el = document.getElementById(id);
    if (!el) throw new Error(`#${id} is missing from index.html`);
    out[key] = el;
  }
  return out;
}
