import { ORIGIN } from "../../playwright.config";
import { encodeShare, type SharedState } from "../../web/src/share/link";
import { blockLabels, clearProgram, named, textOf, wasmFetches } from "./pages";
import { expect, test, type Tab } from "./session";

// The app in Firefox and WebKit: what a student does on the start page, with
// the numbers the Chromium journeys (tests/e2e) check, so a difference
// between engines fails here. Facts (fitzgen-down, 64-bit, the start page's
// 256-byte chunk at 0x10010; tests/e2e/compare.spec.ts and
// instructions.spec.ts read them off the engine's traces):
//   a = alloc 1   -> fitzgen-down 0x1010f, hinckley-up 0x10010
//   b = alloc u64 -> fitzgen-down 0x10100 (7 bytes of padding), hinckley-up 0x10018;
//                    20 wasm instructions and 2 conditional branches bumping down
//                    (the u64's layout a constant).
const PROGRAM = "a = alloc 1\nb = alloc u64";
const A_DOWN = "a: 1 byte at 0x1010f, align 1";
const B_DOWN = "b: 8 bytes at 0x10100, align 8, 7 bytes padding";
const A_UP = "a: 1 byte at 0x10010, align 1";
const B_UP = "b: 8 bytes at 0x10018, align 8, 7 bytes padding";

async function openApp(tab: Tab, hash = ""): Promise<void> {
  await tab.goto(`${ORIGIN}/${hash ? `#${hash}` : ""}`);
  await expect.poll(() => tab.run(() => document.body.dataset["ready"] ?? null)).toBe("true");
}

const counter = (tab: Tab) => tab.run(textOf, ".step-counter");
const button = (tab: Tab, name: string) => tab.click(named, "button", name);

/** The start page with PROGRAM typed into the editor key by key, at its last op. */
async function typed(tab: Tab): Promise<void> {
  await openApp(tab);
  await tab.run(clearProgram);
  await tab.type(PROGRAM, named, "textarea#program", null);
  await expect.poll(() => counter(tab)).toMatch(/^op \d+ \/ 2$/);
  await button(tab, "Last");
  await expect.poll(() => counter(tab)).toBe("op 2 / 2");
}

test("load, type a program and step: the blocks land where the engine puts them", async ({ tab }) => {
  await typed(tab);
  await expect.poll(() => tab.run(() => (document.querySelector<HTMLTextAreaElement>("textarea#program")?.value ?? ""))).toBe(PROGRAM);
  await button(tab, "First");
  await expect.poll(() => counter(tab)).toBe("op 0 / 2");
  expect(await tab.run(blockLabels, "#memory-map")).toEqual([]);
  await button(tab, "Step forward");
  await expect.poll(() => counter(tab)).toBe("op 1 / 2");
  await expect.poll(() => tab.run(blockLabels, "#memory-map")).toEqual([A_DOWN]);
  // The arrow key steps too (the page's shortcut, from the focused button).
  await tab.press("ArrowRight");
  await expect.poll(() => counter(tab)).toBe("op 2 / 2");
  expect(await tab.run(blockLabels, "#memory-map")).toEqual([A_DOWN, B_DOWN]);
  await tab.press("ArrowLeft");
  await expect.poll(() => counter(tab)).toBe("op 1 / 2");
});

test("costs: the cost view counts what the op executed, as in Chromium", async ({ tab }) => {
  await typed(tab);
  await expect.poll(() => tab.run(textOf, ".cost-note"), { timeout: 20_000 }).toMatch(/^2 ops, \d+ wasm instructions in all/);
  expect(await tab.run(() => document.querySelector('svg.cost-svg g.cost-bar[data-op="1"]')?.getAttribute("data-total") ?? null)).toBe("20");
  await expect.poll(() => tab.run(textOf, ".op-cost .op-cost-text")).toMatch(/^20 wasm instructions?.*· 2 conditional branches/);
});

test("the Instructions view: the wasm b = alloc u64 ran, its two branches' outcomes", async ({ tab }) => {
  await typed(tab);
  await tab.click(named, "button", "Instructions this op executed");
  await expect.poll(() => tab.run(textOf, "#instructions-view .instructions-summary"), { timeout: 30_000 }).toBe("20 instructions, 2 conditional branches executed");
  const outcomes = await tab.run(() =>
    [...document.querySelectorAll("#instructions-view li.instructions-op.is-executed.is-branch .instructions-outcome")].map((e) => e.textContent ?? ""),
  );
  expect(outcomes).toEqual(["not taken", "taken"]);
});

test("compare: the program on fitzgen-down beside hinckley-up, stepping together", async ({ tab }) => {
  await typed(tab);
  await button(tab, "Compare");
  const column = (i: number) => `[data-view="compare"] section.compare-column[data-column="${i}"]`;
  await expect.poll(() => tab.run(() => document.querySelectorAll('[data-view="compare"] svg.memory-map').length)).toBe(2);
  expect(await tab.run(() => [...document.querySelectorAll('[data-view="compare"] section.compare-column h3')].map((h) => h.textContent))).toEqual(["fitzgen-down", "hinckley-up"]);
  await expect.poll(() => tab.run(blockLabels, column(0))).toEqual([A_DOWN, B_DOWN]);
  expect(await tab.run(blockLabels, column(1))).toEqual([A_UP, B_UP]);
  await button(tab, "Step back");
  await expect.poll(() => tab.run(blockLabels, column(1))).toEqual([A_UP]);
  expect(await tab.run(blockLabels, column(0))).toEqual([A_DOWN]);
});

test("predict: the lesson's question, answered with the keyboard, graded to the byte", async ({ tab }) => {
  await openApp(tab);
  await button(tab, "Programs");
  await tab.click(named, "[role=menuitem]", "Why bumping down needs fewer instructions");
  await expect.poll(() => counter(tab)).toBe("op 0 / 5");
  await button(tab, "Step forward");
  await expect.poll(() => counter(tab)).toBe("op 1 / 5");
  await tab.click(named, "[role=slider]", "Where will b land?");
  await tab.press("End");
  for (let i = 0; i < 8; i++) await tab.press("ArrowLeft");
  await expect.poll(() => tab.run(textOf, ".predict-pick")).toBe("Your guess: 0x10107.");
  await tab.press("Enter");
  await expect.poll(() => tab.run(textOf, ".predict-verdict")).toBe("Wrong: you picked 0x10107, 7 bytes too high: b lands at 0x10100.");
  expect(await counter(tab)).toBe("op 1 / 5");
});

test("each wasm is fetched once: the preloaded engine is the one the page runs", async ({ tab }) => {
  await openApp(tab);
  // Wait for the cost module too (the cost view measures the start page's program).
  await expect.poll(() => tab.run(textOf, ".cost-note"), { timeout: 20_000 }).toMatch(/^6 ops, \d+ wasm instructions in all/);
  const app = await tab.run(wasmFetches);
  expect(Object.keys(app).filter((f) => f.startsWith("trace_bg-"))).toHaveLength(1);
  expect(Object.values(app)).toEqual(Object.keys(app).map(() => 1));
  const state: SharedState = { source: PROGRAM, allocator: "fitzgen-down", target: "64", capacity: null, minAlign: null, step: 2, compare: null };
  await tab.goto(`${ORIGIN}/embed.html#${await encodeShare(state)}`);
  await expect.poll(() => tab.run(() => document.getElementById("embed")?.dataset["ready"] ?? null)).toBe("true");
  const embed = await tab.run(wasmFetches);
  expect(Object.keys(embed)).toEqual([expect.stringMatching(/^trace_bg-[\w-]+\.wasm$/)]);
  expect(Object.values(embed)).toEqual([1]);
});

test("the phone width: nothing wider than the screen, the map on the first screen, stepping by its buttons", async ({ tab }) => {
  const size = await tab.resize(390, 844);
  // MiniBrowser's window is never narrower than its toolbar (447 CSS px); both widths are under every phone breakpoint (600 px).
  expect(size.width).toBeLessThanOrEqual(tab.engine === "webkit" ? 447 : 390);
  await openApp(tab);
  expect(await tab.run(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width);
  const mapTop = () => tab.run(() => Math.round((document.querySelector("#memory-map svg.memory-map")?.getBoundingClientRect().top ?? 1e9) + scrollY));
  await expect.poll(mapTop).toBeLessThan(size.height);
  await button(tab, "First");
  await expect.poll(() => counter(tab)).toBe("op 0 / 6");
  await button(tab, "Step forward");
  await button(tab, "Step forward");
  await expect.poll(() => counter(tab)).toBe("op 2 / 6");
  await expect.poll(() => tab.run(blockLabels, "#memory-map")).toEqual([A_DOWN, B_DOWN]);
});
