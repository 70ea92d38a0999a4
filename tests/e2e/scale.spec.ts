import { expect, test } from "./playground";

// A million-op program traces in the page in slices, with visible progress,
// while the page keeps answering; then every step can be shown.
// Timings are not asserted (benchmarks measure speed): only that the work
// happened in slices and that the page stayed usable meanwhile.

const counter = (page: import("@playwright/test").Page) => page.locator(".step-counter");

test("a million ops: progress painted between slices while it traces, then the first and last steps show", async ({ page }) => {
  test.setTimeout(240_000);
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bump-scope-up");
  await expect(counter(page)).toHaveText(/^op \d+ \/ \d+/);

  // Count the progress updates the page shows while the run is under way.
  await page.evaluate(() => {
    const w = window as unknown as { __progress: number[] };
    w.__progress = [];
    const bar = document.querySelector(".trace-progress");
    new MutationObserver(() => {
      const now = bar?.getAttribute("aria-valuenow");
      if (now && !bar?.hasAttribute("hidden")) w.__progress.push(Number(now));
    }).observe(bar!, { attributes: true });
  });
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 500000 {\n  a = alloc 8\n  b = alloc 16 align 16\n}\n");

  const progress = page.getByRole("progressbar", { name: "Tracing the program" });
  await expect(progress).toBeVisible({ timeout: 30_000 });
  await expect(progress).toHaveAttribute("aria-valuemax", "1000000");
  await expect(progress).toHaveAttribute("aria-valuetext", /^Tracing… [\d,]+ of 1,000,000 ops$/);

  await expect(counter(page)).toHaveText("op 1000000 / 1000000", { timeout: 200_000 });
  await expect(progress).toBeHidden();
  // Progress is drawn in animation frames: several values means the page
  // painted (and could take input) between slices.
  const seen = await page.evaluate(() => (window as unknown as { __progress: number[] }).__progress);
  expect(seen.length).toBeGreaterThan(1);
  expect(seen).toEqual([...seen].sort((x, y) => x - y));
  expect(seen.at(-1)).toBeLessThan(1_000_000);

  // The last op's details and the costs' cap.
  await expect(page.locator("#op-details")).toContainText("alloc");
  await expect(page.locator("#cost-view")).toContainText("costs are measured for programs of up to 100,000 ops, and this one runs 1,000,000");

  // The first step: one block in the first chunk; the end again.
  await page.getByRole("button", { name: "First" }).click();
  await expect(counter(page)).toHaveText(/^op 0 \/ 1000000/);
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText(/^op 1 \/ 1000000/);
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(1);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText(/^op 1000000 \/ 1000000/);
  // bump-scope doubles its chunks: the small first ones hold few blocks, the
  // large last ones hundreds of thousands, drawn as fill.
  await expect(page.locator("svg.memory-map g.chunk-row.is-binned").first()).toBeVisible();
});

test("each traced program's wasm run is freed once another replaces it on screen", async ({ page }) => {
  const programBox = page.getByRole("textbox", { name: "Program" });
  await expect(page.locator("body")).toHaveAttribute("data-live-runs", "1");
  for (const n of [1000, 2000, 3000]) {
    await programBox.fill(`repeat ${n} {\n  a = alloc 8\n}\n`);
    await expect(counter(page)).toHaveText(`op ${n} / ${n}`);
    await expect(page.locator("body")).toHaveAttribute("data-live-runs", "1");
  }
  // A settings change makes a new run too.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await expect(page.locator("body")).toHaveAttribute("data-live-runs", "1");
});

test("costs are measured in a worker: the page draws frames all through the cost module's replay", async ({ page }) => {
  // Record every animation frame from before the edit on. Measuring 60,000
  // ops replays each on the cost module; on the main thread that would be one
  // long frame, in the worker the page keeps drawing. No time budget is
  // asserted: only that frames kept coming while the costs were pending.
  await page.evaluate(() => {
    const w = window as unknown as { __frames: number[] };
    w.__frames = [];
    const tick = (t: number): void => {
      w.__frames.push(t);
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const pageNow = (): Promise<number> => page.evaluate(() => performance.now());
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 60000 {\n  a = alloc 8\n}\n");
  await expect(page.locator("#cost-view")).toContainText("Measuring costs on the compiled code…", { timeout: 30_000 });
  const from = await pageNow();
  await expect(page.locator("#cost-view")).toContainText(/60,?000 ops, [\d,]+ wasm instructions in all/, { timeout: 60_000 });
  const to = await pageNow();
  const frames = await page.evaluate(([a, b]) => {
    const all = (window as unknown as { __frames: number[] }).__frames;
    return all.filter((t) => t >= a! && t <= b!);
  }, [from, to]);
  // Measured on the main thread, the replay would be one long frame: no
  // frame in between. In the worker, frames keep their usual pace (the one
  // long gap is the page taking the results in, at the end).
  const gaps = frames.slice(1).map((t, i) => t - frames[i]!).sort((x, y) => x - y);
  const median = gaps[Math.floor(gaps.length / 2)] ?? Infinity;
  const window = to - from;
  expect(frames.length, `frames drawn in the ${window.toFixed(0)} ms the costs were pending`).toBeGreaterThan(5);
  expect(median, `the median frame gap while the costs were pending`).toBeLessThan(100);
  const workers = page.workers().map((w) => w.url());
  expect(workers.some((url) => /costWorker/.test(url)), workers.join(", ")).toBe(true);
});

test("dragging the scrubber across 100,000 ops leaves the editor, the code view and the op's details at the op where the hand stops", async ({ page }) => {
  test.setTimeout(120_000);
  // Four ops an iteration, each on its own line: op k is on line 2 + (k - 1) % 4.
  const kinds = ["alloc", "alloc", "free", "alloc"];
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bump-scope-up");
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 25000 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}\n");
  await expect(counter(page)).toHaveText("op 100000 / 100000", { timeout: 60_000 });
  await page.getByRole("button", { name: "First" }).click();
  await expect(counter(page)).toHaveText(/^op 0 \//);
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-current")).toHaveCount(0);

  const box = await page.locator("#step").boundingBox();
  if (!box) throw new Error("the scrubber is not on screen");
  const y = box.y + box.height / 2;
  const at = (fraction: number): number => box.x + 1 + (box.width - 2) * fraction;
  const opShown = async (): Promise<number> => Number(/^op (\d+) \//.exec((await counter(page).textContent()) ?? "")?.[1]);
  /** The editor's gutter and mirror, the code view and the op's details all show op `n`. */
  const expectAt = async (n: number): Promise<void> => {
    const line = 2 + ((n - 1) % 4);
    await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-current")).toHaveText(String(line));
    await expect(page.locator(".cm-content .code-line.is-current")).toHaveAttribute("data-line", String(line));
    await expect(page.locator("#op-details")).toContainText(kinds[(n - 1) % 4]!);
    await expect(page.locator("#code-view .code-line.is-current")).toHaveCount(1);
  };

  /** The map's rows drawn block by block whose blocks on screen are not all those in view (none, once the map is whole). */
  const rowsMissingBlocks = (): Promise<string[]> =>
    page.evaluate(() =>
      [...document.querySelectorAll<SVGGElement>("#memory-map g.chunk-row:not(.is-binned)")]
        .map((row) => ({ id: row.dataset["chunkId"], inView: Number(row.dataset["blocksInView"]), drawn: row.querySelectorAll("g.block").length }))
        .filter((r) => r.drawn !== r.inView)
        .map((r) => `chunk ${r.id}: ${r.drawn} of ${r.inView} blocks`),
    );

  /** The chunk rows on screen, and the number the step has (the svg says it). */
  const rowsDrawn = (): Promise<number> => page.locator("#memory-map g.chunk-row").count();
  const rowsOfTheStep = async (): Promise<number> => Number(await page.locator("#memory-map svg.memory-map").getAttribute("data-chunks"));

  // Every frame of the drag: the op the counter names, and the map's summary and rows drawn with it.
  await page.evaluate(() => {
    const w = window as unknown as { __dragFrames: { op: string; summary: string; chunks: string; detailsOp: string; busy: string; statsShown: string }[]; __dragSampling: boolean };
    w.__dragFrames = [];
    w.__dragSampling = true;
    const sample = (): void => {
      const dd = document.querySelector("#stats dd");
      w.__dragFrames.push({
        op: document.querySelector(".step-counter")?.textContent ?? "",
        summary: document.getElementById("map-summary")?.textContent ?? "",
        chunks: document.querySelector("#memory-map svg.memory-map")?.getAttribute("data-chunks") ?? "",
        detailsOp: document.querySelector("#op-details .op-index")?.textContent ?? "",
        busy: ["stats", "cost-view", "op-details", "code-view"].map((id) => document.getElementById(id)?.getAttribute("aria-busy") ?? "-").join(","),
        statsShown: dd ? getComputedStyle(dd).visibility : "",
      });
      if (w.__dragSampling) requestAnimationFrame(sample);
    };
    requestAnimationFrame(sample);
  });

  // Pressed and moved in small steps, as a hand drags; then held still, pressed.
  await page.mouse.move(at(0), y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(at((0.4 * i) / 20), y);
  const held = await opShown();
  expect(held).toBeGreaterThan(30_000);
  expect(held).toBeLessThan(50_000);
  await expectAt(held);
  // Rows and blocks that enter the map over several frames while the hand moves are all there once it pauses.
  expect(await page.locator("#memory-map g.chunk-row:not(.is-binned)").count()).toBeGreaterThan(0);
  await expect.poll(rowsDrawn).toEqual(await rowsOfTheStep());
  await expect.poll(rowsMissingBlocks).toEqual([]);
  // On, and released mid-way.
  for (let i = 1; i <= 20; i++) await page.mouse.move(at(0.4 + (0.3 * i) / 20), y);
  await page.mouse.up();
  await page.evaluate(() => ((window as unknown as { __dragSampling: boolean }).__dragSampling = false));
  // The page draws one frame behind the hand: once it has caught up, the
  // slider and the counter agree on the op where the hand let go.
  let stopped = NaN;
  await expect
    .poll(async () => {
      const slider = Number(await page.locator("#step").inputValue());
      stopped = await opShown();
      return slider === stopped;
    })
    .toBe(true);
  expect(stopped).toBeGreaterThan(60_000);
  expect(stopped).toBeLessThan(80_000);
  await expectAt(stopped);
  await expect.poll(rowsDrawn).toEqual(await rowsOfTheStep());
  await expect.poll(rowsMissingBlocks).toEqual([]);
  const code = await page.locator("#code-view .code-line.is-current").getAttribute("data-line");
  const details = await page.locator("#op-details").textContent();

  // A step away and back draws the page whole at the same op: the same lines and details.
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText(`op ${stopped + 1} / 100000`);
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText(`op ${stopped} / 100000`);
  await expectAt(stopped);
  await expect(page.locator("#code-view .code-line.is-current")).toHaveAttribute("data-line", code ?? "");
  await expect(page.locator("#op-details")).toHaveText(details ?? "");

  // What each frame of the drag showed is what the page shows at rest at that op: the counter
  // never names one step while the map draws another (a frame draws the step prepared before it).
  const seen = await page.evaluate(
    () => (window as unknown as { __dragFrames: { op: string; summary: string; chunks: string; detailsOp: string; busy: string; statsShown: string }[] }).__dragFrames,
  );
  // No two numbers on screen disagree: a frame whose op's details and stats are
  // not the counter's op shows them dimmed, busy and with their numbers hidden.
  const behind = seen.filter((f) => f.detailsOp !== "" && f.detailsOp !== `Op ${/^op (\d+) \//.exec(f.op)?.[1]}`);
  expect(behind.length, "frames where the hand moved on from the settled step").toBeGreaterThan(5);
  for (const f of behind) expect([f.busy, f.statsShown], `${f.op}, details of ${f.detailsOp}`).toEqual(["true,true,true,true", "hidden"]);
  // At rest nothing is marked.
  await expect(page.locator("#stats")).not.toHaveAttribute("aria-busy", "true");
  await expect(page.locator("#stats dd").first()).toBeVisible();
  const during = [...new Map(seen.filter((f) => !f.op.startsWith("op 0 ")).map((f) => [f.op, f])).values()];
  expect(during.length, "distinct ops drawn during the drag").toBeGreaterThan(5);
  for (const f of [during[0], during[Math.floor(during.length / 3)], during[Math.floor((2 * during.length) / 3)], during.at(-2)]) {
    if (!f) continue;
    const op = Number(/^op (\d+) \//.exec(f.op)?.[1]);
    await page.evaluate((op) => {
      const range = document.getElementById("step") as HTMLInputElement;
      range.value = String(op);
      range.dispatchEvent(new Event("input", { bubbles: true }));
    }, op);
    await expect(counter(page)).toHaveText(f.op);
    await expect(page.locator("#map-summary")).toHaveText(f.summary);
    await expect(page.locator("#memory-map svg.memory-map")).toHaveAttribute("data-chunks", f.chunks);
  }
});
