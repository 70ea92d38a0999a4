// d3-transition adds transition() and interrupt() to d3-selection's
// selections. A map's first draw has nothing to slide from, so an embed's
// first map does not wait for it: it is fetched once a map has drawn, and
// until it arrives every draw is made at once.

let ready = false;
let loading: Promise<void> | undefined;

/** Whether draws may animate: d3-transition has loaded. */
export function animatable(): boolean {
  return ready;
}

/** Fetches d3-transition (once); draws animate from the next one on. */
export function loadMotion(): Promise<void> {
  return (loading ??= import("d3-transition").then(() => {
    ready = true;
  }));
}

/** Fetches d3-transition once the page is idle (a first map's paint comes first). */
export function loadMotionWhenIdle(): void {
  if (loading) return;
  const load = (): void => void loadMotion();
  if (typeof requestIdleCallback === "function") requestIdleCallback(load, { timeout: 3000 });
  else setTimeout(load, 1500);
}

/** Stops `selection`'s transitions called `name`: before d3-transition has loaded none can run. */
export function stopMotion(selection: { interrupt(name?: string): unknown }, name?: string): void {
  if (ready) selection.interrupt(name);
}
