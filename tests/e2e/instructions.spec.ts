import { readFileSync } from "node:fs";
import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./playground";

// The Instructions view: the wasm the current op executed, beside its Rust
// source. `b = alloc u64` after `a = alloc 1` on the start page's settings
// (64-bit, default chunk) is a fast-path bump on both seed algorithms: it
// runs two conditional branches bumping down (fitzgen-down: the size's
// checked_sub, not taken, then new_ptr < start, taken to the bump) and one
// bumping up (hinckley-up: the end-of-chunk check, taken), as the cost view
// counts them: 20 and 25 instructions, the u64's layout a constant.
const PROGRAM = "a = alloc 1\nb = alloc u64";

const counter = (page: Page) => page.locator(".step-counter");
// Named apart from the cost chart's "Instructions" metric: one button on the page has this name.
const toggle = (page: Page) => page.getByRole("button", { name: "Instructions this op executed", exact: true });
const panel = (page: Page) => page.locator("#instructions-view");
const summary = (page: Page) => panel(page).locator(".instructions-summary");
const rows = (page: Page) => panel(page).locator("li.instructions-op");
const executedBranches = (page: Page) => panel(page).locator("li.instructions-op.is-executed.is-branch");
const codeLine = (page: Page, text: string) => page.locator("#code-view .code-line").filter({ hasText: text });

async function run(page: Page, preset: string): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption(preset);
  await page.getByRole("textbox", { name: "Program" }).fill(PROGRAM);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 2 / 2");
  // The costs are measured (the step panel says what the op executed).
  await expect(page.locator(".op-cost")).toContainText(/\d+ wasm instructions/);
}

/** The op's count as the step panel states it: [instructions, conditional branches]. */
async function statedCost(page: Page): Promise<[number, number]> {
  const text = await page.locator(".op-cost .op-cost-text").innerText();
  const m = /^(\d+) wasm instructions?.*· (\d+) conditional branch/.exec(text);
  expect(m, `cost text: ${text}`).not.toBeNull();
  return [Number(m?.[1]), Number(m?.[2])];
}

async function openInstructions(page: Page): Promise<void> {
  await toggle(page).click();
  await expect(toggle(page)).toHaveAttribute("aria-pressed", "true");
  await expect(summary(page)).toBeVisible({ timeout: 15_000 });
}

/** The executed branches' texts and outcomes, in listing order. */
async function branchOutcomes(page: Page): Promise<{ text: string; outcome: string }[]> {
  return executedBranches(page).evaluateAll((els) =>
    els.map((el) => ({
      text: el.querySelector(".instructions-text")?.textContent?.trim() ?? "",
      outcome: el.querySelector(".instructions-outcome")?.textContent ?? "",
    })),
  );
}

async function countsMatchCostView(page: Page, branches: number): Promise<void> {
  const [instructions, stated] = await statedCost(page);
  expect(stated).toBe(branches);
  await expect(summary(page)).toHaveText(`${instructions} instructions, ${branches} conditional ${branches === 1 ? "branch" : "branches"} executed`);
  // The cost chart's bar for the op says the same count.
  expect(Number(await page.locator('svg.cost-svg g.cost-bar[data-op="1"]').getAttribute("data-total"))).toBe(instructions);
  // One highlighted row per executed instruction (a row run twice says ×2).
  const runs = await panel(page)
    .locator("li.instructions-op.is-executed")
    .evaluateAll((els) => els.map((el) => Number(/×(\d+)/.exec(el.querySelector(".instructions-runs")?.textContent ?? "")?.[1] ?? 1)));
  expect(runs.reduce((a, b) => a + b, 0)).toBe(instructions);
}

test("fitzgen-down, b = alloc u64: the wasm it ran, its two branches' outcomes, the same count as the cost view", async ({ page }) => {
  await run(page, "fitzgen-down");
  await expect(panel(page)).toHaveCount(0);
  await openInstructions(page);
  await countsMatchCostView(page, 2);

  const branches = await branchOutcomes(page);
  expect(branches.map((b) => b.outcome)).toEqual(["not taken", "taken"]);
  for (const b of branches) expect(b.text).toMatch(/^br_if /);
  // The fast path: no function of the slow path ran.
  await expect(panel(page).getByText("slow path", { exact: true })).toHaveCount(0);
  // Each function is headed by its name and call depth; the root is depth 0.
  await expect(panel(page).locator(".instructions-fn-head").first()).toContainText("depth 0");
  // What did not run is listed too, dimmed.
  expect(await rows(page).count()).toBeGreaterThan(await panel(page).locator("li.instructions-op.is-executed").count());

  // The view stays open as the step moves, and follows the op.
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 1 / 2");
  await expect(toggle(page)).toHaveAttribute("aria-pressed", "true");
  const [first] = await statedCost(page);
  await expect(summary(page)).toHaveText(new RegExp(`^${first} instructions, `));
});

test("hinckley-up, b = alloc u64: one conditional branch, the same count as the cost view", async ({ page }) => {
  await run(page, "hinckley-up");
  await openInstructions(page);
  await countsMatchCostView(page, 1);
  const branches = await branchOutcomes(page);
  expect(branches.map((b) => b.outcome)).toEqual(["taken"]);
});

test("each op's shape: the u64 listed as the code compiled with its layout, `alloc 1` as the run-time path", async ({ page }) => {
  await run(page, "up-min-align");
  await openInstructions(page);
  // `b = alloc u64`: the root compiled with the u64's layout as constants.
  await expect(panel(page).locator(".instructions-note")).toContainText(
    "Compiled with the u64's layout as a constant: tests and roundings it decides were folded away before this code ran.",
  );
  await expect(panel(page).locator(".instructions-fn-head").first()).toContainText("bumplab_measure_alloc_typed");
  await expect(page.locator(".op-shape")).toHaveText("layout typed u64: size and alignment known at compile time, as in bump.alloc(value) for a u64");
  await expect(page.locator('svg.cost-svg g.cost-bar[data-op="1"]')).toHaveAttribute("aria-label", /^op 2 · alloc b · typed u64 · 15 wasm instructions/);
  await countsMatchCostView(page, 1);
  // `a = alloc 1`: a run-time layout, the plain root; up-min-align tests and rounds at run time.
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(page.locator(".op-shape")).toHaveText(/^layout run-time layout: size and alignment known only at run time/);
  await expect(panel(page).locator(".instructions-note")).toContainText("Compiled with the size and alignment as run-time values");
  await expect(panel(page).locator(".instructions-fn-head").first()).not.toContainText("_typed");
  await expect(page.locator('svg.cost-svg g.cost-bar[data-op="0"]')).toHaveAttribute("aria-label", /^op 1 · alloc a · run-time layout · 38 wasm instructions/);
});

test("bumpalo's new chunk: the slow path under its own heading, its share the cost view's slow count", async ({ page }) => {
  // wasm32, `repeat 10 { x = alloc 64 }`: op 8 makes the second chunk.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  await page.getByRole("combobox", { name: "Target" }).selectOption("wasm32");
  await page.getByRole("textbox", { name: "Program" }).fill("repeat 10 { x = alloc 64 }");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 10 / 10");
  await page.locator('svg.cost-svg g.cost-bar[data-op="7"] rect.hit').click();
  await expect(counter(page)).toHaveText("op 8 / 10");
  const costText = await page.locator(".op-cost .op-cost-text").innerText();
  const m = /^(\d+) wasm instructions \((\d+) in the slow path: new chunk\) · (\d+) conditional branches/.exec(costText);
  expect(m, costText).not.toBeNull();
  await openInstructions(page);
  await expect(summary(page)).toHaveText(`${m?.[1]} instructions, ${m?.[3]} conditional branches executed`);
  // `alloc 64` is a run-time layout; the note says so before the slow path's share.
  await expect(panel(page).locator(".instructions-note")).toHaveText(
    `Compiled with the size and alignment as run-time values: nothing about them was decided at compile time. ${m?.[2]} of them in the slow path.`,
  );
  // alloc_layout_slow is headed "slow path", below the root, with what it called.
  const slow = panel(page).locator("section.instructions-fn.is-slow");
  await expect(slow.first().locator(".instructions-fn-head")).toContainText(/^slow path\s*Bumpalo::alloc_layout_slow\s*depth 1/);
  await expect(panel(page).locator("section.instructions-fn").first()).not.toHaveClass(/is-slow/);
  // The real crate's own code, chosen instead of the model's.
  await panel(page).getByRole("radio", { name: "Real crate" }).check();
  await expect(summary(page)).toHaveText(/^\d+ instructions, \d+ conditional branches executed$/);
  await expect(panel(page).locator(".instructions-fn-path").first()).toHaveText(/bumpalo|bumplab_cost/);
});

test("a Rust line and its instructions mark each other, as Compiler Explorer does", async ({ page }) => {
  await run(page, "fitzgen-down");
  await openInstructions(page);
  // The round-down line of bump_down.rs: one mask.
  const round = codeLine(page, "step: round_down");
  await expect(round).toHaveCount(1);
  const line = await round.getAttribute("data-line");
  await expect(round).toHaveClass(/has-instructions/);
  await round.hover();
  const linked = panel(page).locator("li.instructions-op.is-linked");
  await expect(linked.first()).toBeVisible();
  const linkedTexts = await linked.locator(".instructions-text").allInnerTexts();
  expect(linkedTexts.join(" | ")).toMatch(/i(32|64)\.and/);
  for (const src of await linked.locator(".instructions-src").allInnerTexts()) expect(src).toBe(`bump_down.rs:${line}`);

  // The reverse: an instruction marks its Rust line.
  await page.locator("h1").hover();
  await expect(linked).toHaveCount(0);
  const and = panel(page).locator(`li.instructions-op.is-executed[data-src$=":${line}"]`).first();
  await and.hover();
  await expect(round).toHaveClass(/is-linked/);
  await expect(codeLine(page, "step: checked_sub")).not.toHaveClass(/is-linked/);
});

test("keyboard only: the toggle, the instructions with the arrow keys, each named with its outcome and Rust line", async ({ page }) => {
  await run(page, "fitzgen-down");
  await toggle(page).focus();
  await page.keyboard.press("Enter");
  await expect(toggle(page)).toHaveAttribute("aria-pressed", "true");
  await expect(summary(page)).toBeVisible({ timeout: 15_000 });
  // Tab reaches the list (through the code view's linked lines); one instruction is in the tab order.
  const focused = (): Locator => page.locator(":focus");
  for (let i = 0; i < 8; i++) {
    await page.keyboard.press("Tab");
    if (await focused().evaluate((el) => el.classList.contains("instructions-op"))) break;
  }
  await expect(focused()).toHaveClass(/instructions-op/);
  await expect(focused()).toHaveClass(/is-executed/);
  await expect(panel(page).locator('li.instructions-op[tabindex="0"]')).toHaveCount(1);
  // → goes to the next executed instruction, ↓ to the next operator; the step does not move.
  const before = await focused().getAttribute("data-key");
  await page.keyboard.press("ArrowRight");
  await expect(focused()).not.toHaveAttribute("data-key", before ?? "");
  await expect(counter(page)).toHaveText("op 2 / 2");
  // Walk to the executed branch of bump_down.rs (new_ptr < start): its name says the outcome in words.
  for (let i = 0; i < 60; i++) {
    const at = await focused().evaluate((el) => el.classList.contains("is-branch") && el.classList.contains("is-executed") && /bump_down\.rs:\d+$/.test(el.getAttribute("data-src") ?? ""));
    if (at) break;
    await page.keyboard.press("ArrowRight");
  }
  await expect(focused()).toHaveAttribute("aria-label", /^br_if .*, executed, conditional branch (taken|not taken), crates\/core\/src\/algorithms\/bump_down\.rs line \d+$/);
  // Its Rust line is marked in the code view while it has focus.
  const src = (await focused().getAttribute("data-src")) ?? "";
  const n = src.slice(src.lastIndexOf(":") + 1);
  await expect(page.locator(`#code-view .code-line[data-line="${n}"]`)).toHaveClass(/is-linked/);
  // Home and End reach the ends of the list.
  await page.keyboard.press("End");
  await expect(focused()).toHaveAttribute("data-key", (await rows(page).last().getAttribute("data-key")) ?? "");
});

test("the current micro-step's Rust line and its instructions are marked together", async ({ page }) => {
  await run(page, "fitzgen-down");
  await openInstructions(page);
  // Into op 2 one micro-step at a time until the code view's current line has instructions.
  await page.getByRole("button", { name: "Step back" }).click();
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press("Shift+ArrowRight");
    const current = page.locator("#code-view .code-line.is-current");
    if ((await current.count()) === 1 && (await current.evaluate((el) => el.classList.contains("has-instructions")))) break;
  }
  const current = page.locator("#code-view .code-line.is-current");
  const n = await current.getAttribute("data-line");
  const marked = panel(page).locator("li.instructions-op.is-current-line");
  await expect(marked.first()).toBeVisible();
  for (const src of await marked.locator(".instructions-src").allInnerTexts()) expect(src).toBe(`bump_down.rs:${n}`);
});

test("compare: the two columns' executed wasm side by side, two branches against one", async ({ page }) => {
  await page.getByRole("textbox", { name: "Program" }).fill(PROGRAM);
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  const mount = page.locator(".compare-instructions");
  await mount.getByRole("button", { name: "Instructions this op executed", exact: true }).click();
  await expect(mount.getByRole("button", { name: "Instructions this op executed", exact: true })).toHaveAttribute("aria-pressed", "true");
  const down = mount.getByRole("region", { name: /^Wasm executed on fitzgen-down/ });
  const up = mount.getByRole("region", { name: /^Wasm executed on hinckley-up/ });
  await expect(down.locator(".instructions-summary")).toHaveText(/^\d+ instructions, 2 conditional branches executed$/, { timeout: 15_000 });
  await expect(up.locator(".instructions-summary")).toHaveText(/^\d+ instructions, 1 conditional branch executed$/, { timeout: 15_000 });
  await expect(down.locator("li.is-branch .instructions-outcome")).toHaveCount(2);
  await expect(up.locator("li.is-branch .instructions-outcome")).toHaveCount(1);
  // Side by side: the two columns share a row.
  const a = await down.boundingBox();
  const b = await up.boundingBox();
  expect(a && b && Math.abs(a.y - b.y) < 2 && b.x > a.x + a.width - 1).toBe(true);
  // Stepping moves both.
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(mount.getByRole("heading", { name: "Wasm executed by op 1, side by side" })).toBeVisible();
});

test("while the listing loads the view says so, and a listing it cannot read gets a message and Try again", async ({ page }) => {
  let release: () => void = () => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  let requests = 0;
  await page.route(/listing(-[\w-]+)?\/index\.json$/, async (route) => {
    requests++;
    await held;
    await route.fulfill({ status: 200, contentType: "application/json", body: JSON.stringify({ format: 99, files: [], functions: {} }) });
  });
  await run(page, "fitzgen-down");
  expect(requests).toBe(0);
  await toggle(page).click();
  await expect(panel(page).locator(".instructions-status")).toHaveText("Loading the compiled code's listing…");
  release();
  await expect(panel(page).locator(".instructions-status")).toHaveText(
    "The compiled code's listing is not available: the listing has format 99, and this page reads format 2. Try again",
  );
  await panel(page).getByRole("button", { name: "Try again" }).click();
  await expect.poll(() => requests).toBe(2);
});

test("light and dark, desktop and phone @screenshot", async ({ page }) => {
  await page.emulateMedia({ reducedMotion: "reduce", colorScheme: "light" });
  await page.setViewportSize({ width: 1440, height: 1000 });
  await run(page, "fitzgen-down");
  await openInstructions(page);
  const codePanel = page.locator(".code-panel");
  await codePanel.scrollIntoViewIfNeeded();
  await codeLine(page, "step: round_down").hover();
  await page.screenshot({ path: "test-results/instructions-light-1440.png", fullPage: true });
  if (process.env["SCREENSHOT"]) {
    // The step's panel and the code panel in one 1440 px view: the op's cost beside the wasm that makes it.
    await page.locator("#op-heading").evaluate((el) => el.closest("section")?.scrollIntoView({ block: "start" }));
    await page.mouse.move(0, 0);
    await codeLine(page, "step: round_down").hover();
    await page.screenshot({ path: "docs/instructions.png" });
  }
  await page.emulateMedia({ colorScheme: "dark" });
  await page.screenshot({ path: "test-results/instructions-dark-1440.png", fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(summary(page)).toBeVisible();
  // Nothing is wider than the phone's screen.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await codePanel.screenshot({ path: "test-results/instructions-dark-390.png" });
  await page.emulateMedia({ colorScheme: "light" });
  await codePanel.screenshot({ path: "test-results/instructions-light-390.png" });
});

test("compare: the instructions one run executes and the other lacks are marked, on each side, under the Rust line each came from", async ({ page }) => {
  await page.getByRole("textbox", { name: "Program" }).fill(PROGRAM);
  await page.getByRole("button", { name: "Last" }).click();
  await page.getByRole("button", { name: "Compare", exact: true }).click();
  const mount = page.locator(".compare-instructions");
  await mount.getByRole("button", { name: "Instructions this op executed", exact: true }).click();
  const down = mount.getByRole("region", { name: /^Wasm executed on fitzgen-down/ });
  const up = mount.getByRole("region", { name: /^Wasm executed on hinckley-up/ });
  await expect(down.locator(".instructions-summary")).toHaveText(/^\d+ instructions, 2 conditional branches executed$/, { timeout: 15_000 });
  await expect(up.locator(".instructions-summary")).toHaveText(/^\d+ instructions, 1 conditional branch executed$/, { timeout: 15_000 });
  // Lined up by operator, in the order each ran: 14 instructions have a counterpart on both sides.
  const marked = (col: typeof down) =>
    col.locator("li.instructions-op").evaluateAll((lis) => lis.filter((li) => li.hasAttribute("data-unshared")).map((li) => li.querySelector(".instructions-text")?.textContent ?? ""));
  // fitzgen-down's 20: its extra branch is the checked subtract's overflow test (i64.lt_u, br_if), which one-branch up does without.
  expect(await marked(down)).toEqual(["i64.const 8", "i64.lt_u", "br_if 0 (;@2;)", "local.get 2", "i64.add", "i64.ge_u"]);
  await expect(down.locator(".instructions-lacking")).toHaveText("Marked +: 6 instructions hinckley-up does not execute.");
  await expect(down.locator("li[data-unshared] .instructions-unshared")).toHaveText(Array<string>(6).fill("+"));
  // hinckley-up's 25: its extra are rounding up's arithmetic and the room check's subtract and compare.
  expect(await marked(up)).toHaveLength(11);
  await expect(up.locator(".instructions-lacking")).toHaveText("Marked +: 11 instructions fitzgen-down does not execute.");
  expect(20 - 6).toBe(25 - 11);
  await expect(down.locator("li.instructions-op")).toHaveCount(20);
  await expect(up.locator("li.instructions-op")).toHaveCount(25);
  // Each run of instructions is headed by the Rust line it was compiled from:
  // its file:line and its text, as in the files the modules were built from.
  const rust = (col: typeof down, src: string) => col.locator(`li.instructions-rust[data-src="crates/core/src/${src}"]`);
  for (const [col, src, text] of [
    [down, "algorithms/bump_down.rs:36", "let new_ptr = new_ptr & !(align - W::ONE); // step: round_down"],
    [down, "word.rs:67", "<$t>::checked_sub(self, rhs)"],
    [up, "algorithms/bump_up.rs:29", "let padding = W::ZERO.wrapping_sub(ptr) & (align - W::ONE); // step: align_offset"],
    [up, "algorithms/bump_up.rs:33", "let total = padding + size; // step: total_size"],
  ] as const) {
    const [file, line] = src.split(":") as [string, string];
    expect(readFileSync(`crates/core/src/${file}`, "utf8").split("\n")[Number(line) - 1]?.trim()).toBe(text);
    await expect(rust(col, src)).toHaveCount(1);
    await expect(rust(col, src).locator(".instructions-rust-src")).toHaveText(`${file.slice(file.lastIndexOf("/") + 1)}:${line}`);
    await expect(rust(col, src).locator(".instructions-rust-text")).toHaveText(text);
    // The instruction after the heading is one compiled from that line.
    await expect(rust(col, src).locator("+ li.instructions-op .instructions-src")).toHaveText(`${file.slice(file.lastIndexOf("/") + 1)}:${line}`);
  }
  // The extra branch of bumping down is the checked subtract's: its instructions are under word.rs:67's heading, marked +.
  await expect(rust(down, "word.rs:67").locator("+ li.instructions-op")).toHaveAttribute("data-unshared", "");
});
