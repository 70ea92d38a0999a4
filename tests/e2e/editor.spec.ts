import { type Locator, type Page } from "@playwright/test";
import { expect, test, programText } from "./playground";

// The program editor: highlighting, inline error markers, the Programs menu.
// The page starts on the default program (6 ops, blocks a..e) on fitzgen-down.

const program = (page: Page) => page.getByRole("textbox", { name: "Program" });
const blocks = (page: Page) => page.locator("svg.memory-map g[data-block]");
const block = (page: Page, name: string) => page.locator(`svg.memory-map g[data-block="${name}"]`);
const counter = (page: Page) => page.locator(".step-counter");
const marker = (page: Page) => page.locator(".cm-content .is-error");
const menuButton = (page: Page) => page.getByRole("button", { name: "Programs" });
const menu = (page: Page) => page.getByRole("menu", { name: "Programs" });


const scroller = (page: Page) => page.locator("#editor .cm-scroller");
const numbers = (page: Page) => page.locator("#editor .cm-lineNumbers .cm-gutterElement");

/** Where column 1 of line 1 starts on screen, unscrolled: the content's top padding and a line's left padding in. */
async function textOrigin(page: Page): Promise<{ x: number; y: number }> {
  return page.locator(".cm-content").evaluate((el) => {
    const line = el.querySelector(".cm-line");
    if (!line) throw new Error("the editor has no line");
    const box = el.getBoundingClientRect();
    const lineBox = line.getBoundingClientRect();
    return { x: lineBox.left + parseFloat(getComputedStyle(line).paddingLeft), y: box.top + parseFloat(getComputedStyle(el).paddingTop) };
  });
}

/** Expects the error marker to sit under `column` of `line` (1-based), one cell per character. */
async function expectMarkerAt(page: Page, line: number, column: number, cells: number): Promise<void> {
  const box = await marker(page).boundingBox();
  if (!box) throw new Error("the marker has no box");
  const origin = await textOrigin(page);
  const cell = box.width / cells;
  const lineHeight = 20;
  expect(Math.abs(box.x - origin.x - (column - 1) * cell), "marker x against its column").toBeLessThan(1);
  expect(box.y + box.height / 2).toBeGreaterThan(origin.y + (line - 1) * lineHeight);
  expect(box.y + box.height / 2).toBeLessThan(origin.y + line * lineHeight);
}

test("an error is marked at its line and column; fixing it clears the marker and redraws", async ({ page }) => {
  await page.getByRole("button", { name: "Last" }).click();
  await expect(blocks(page)).toHaveCount(5);
  const addressOfC = await block(page, "c").getAttribute("data-address");

  await program(page).click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\nx = alloc 8 align 3");

  const alert = page.getByRole("alert");
  await expect(alert).toHaveText(/^7:19: alignment 3 is not allowed/);
  await expect(program(page)).toHaveAccessibleDescription(/7:19: alignment 3 is not allowed/);
  await expect(program(page)).toHaveAttribute("aria-invalid", "true");
  // The marker underlines the offending "3" on line 7, and the gutter marks line 7.
  await expect(marker(page)).toHaveCount(1);
  await expect(marker(page)).toHaveText("3");
  await expect(marker(page)).toHaveAttribute("data-error-column", "19");
  await expect(page.locator('.cm-content [data-line="7"] .is-error')).toHaveCount(1);
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-error")).toHaveText("7");
  await expectMarkerAt(page, 7, 19, 1);
  // The map keeps the last good trace.
  await expect(blocks(page)).toHaveCount(5);
  await expect(block(page, "c")).toHaveAttribute("data-address", addressOfC ?? "");
  await expect(block(page, "x")).toHaveCount(0);

  await page.keyboard.press("Backspace");
  await page.keyboard.type("4");
  await expect(page.getByRole("alert")).toHaveCount(0);
  await expect(marker(page)).toHaveCount(0);
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-error")).toHaveCount(0);
  await expect(program(page)).toHaveAttribute("aria-invalid", "false");
  await expect(blocks(page)).toHaveCount(6);
  await expect(block(page, "x")).toHaveCount(1);
});

test("an error at the end of a line marks the cell after its last character", async ({ page }) => {
  await program(page).click();
  await page.keyboard.press("Control+Home");
  await page.keyboard.type("y = alloc\n");
  await expect(page.getByRole("alert")).toHaveText(/^1:10: expected a size/);
  await expect(marker(page)).toHaveAttribute("data-error-column", "10");
  await expect(page.locator('.cm-content [data-line="1"] .tok-eol.is-error')).toHaveCount(1);
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-error")).toHaveText("1");
  await expectMarkerAt(page, 1, 10, 1);
});

test("the program is highlighted as it is typed", async ({ page }) => {
  const line = (n: number) => page.locator(`.cm-content .code-line[data-line="${n}"]`);
  await expect(line(3).locator(".tok-keyword")).toHaveText(["alloc", "align"]);
  await expect(line(3).locator(".tok-number")).toHaveText(["24", "16"]);
  await expect(line(3).locator(".tok-name")).toHaveText(["c"]);
  await expect(line(2).locator(".tok-type")).toHaveText(["u64"]);
  await expect(line(4).locator(".tok-punct")).toHaveText(["=", "[", ";", "]"]);
  // Keywords and names are drawn in different colours.
  const colour = (l: Locator) => l.evaluate((el) => getComputedStyle(el).color);
  expect(await colour(line(3).locator(".tok-keyword").first())).not.toBe(await colour(line(3).locator(".tok-name")));

  await program(page).click();
  await page.keyboard.press("Control+End");
  await page.keyboard.type("\n# a note\n#> narration\nrepeat 2 { z = alloc 0x10 }");
  await expect(line(7).locator(".tok-comment")).toHaveText("# a note");
  await expect(line(8).locator(".tok-narration")).toHaveText("#> narration");
  await expect(line(9).locator(".tok-keyword")).toHaveText(["repeat", "alloc"]);
  await expect(line(9).locator(".tok-number")).toHaveText(["2", "0x10"]);
  // The coloured lines are exactly the program's text, line for line.
  const drawn = await page.locator(".cm-content .code-line").allTextContents();
  expect(drawn.join("\n")).toBe(await programText(program(page)));
  // Narration is set apart from a plain comment.
  const style = (l: Locator) => l.evaluate((el) => `${getComputedStyle(el).color} ${getComputedStyle(el).fontStyle}`);
  expect(await style(line(8).locator(".tok-narration"))).not.toBe(await style(line(7).locator(".tok-comment")));
});

test("picking a generator replaces the program, redraws the map, and Undo brings the old text back", async ({ page }) => {
  const before = await programText(program(page));
  await menuButton(page).click();
  await expect(menu(page)).toBeVisible();
  await page.getByRole("menuitem", { name: "Vec push with doubling" }).click();
  await expect(menu(page)).toBeHidden();
  await expect(program(page)).toHaveProgram(/^# Vec<u32>: push 32 elements/);
  await expect(program(page)).toHaveProgram(/\nv = realloc v 128 +# push 17: capacity 32$/);

  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 4 / 4");
  // Bumping down, every growth moves the Vec down over its own old bytes and
  // copies them (16 + 32 + 64): one live block, nothing left behind.
  await expect(block(page, "v")).toHaveCount(1);
  await expect(block(page, "v").and(page.locator('[data-state="live"]'))).toHaveAttribute("data-size", "128");
  await expect(page.locator('dd[data-stat="copied"]')).toHaveText("112 B");
  await expect(page.locator('dd[data-stat="leaked"]')).toHaveText("0 B");

  await program(page).focus();
  await page.keyboard.press("Control+z");
  await expect(program(page)).toHaveProgram(before);
  await expect(counter(page)).toHaveText(/\/ 6$/);
});

test("the Programs menu works from the keyboard alone", async ({ page }) => {
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 6 / 6");
  const first = page.getByRole("menuitem").first();
  await menuButton(page).focus();
  await page.keyboard.press("ArrowDown");
  await expect(menuButton(page)).toHaveAttribute("aria-expanded", "true");
  await expect(first).toBeFocused();
  await page.keyboard.press("End");
  await expect(page.getByRole("menuitem", { name: "Random mix…" })).toBeFocused();
  await page.keyboard.press("ArrowDown");
  await expect(first).toBeFocused();
  await page.keyboard.press("ArrowUp");
  await expect(page.getByRole("menuitem", { name: "Random mix…" })).toBeFocused();
  // Arrows inside the menu never reach the app's step keys.
  await page.keyboard.press("ArrowLeft");
  await expect(counter(page)).toHaveText("op 6 / 6");
  // Escape closes and gives focus back to the button.
  await page.keyboard.press("Escape");
  await expect(menu(page)).toBeHidden();
  await expect(menuButton(page)).toBeFocused();
  await expect(menuButton(page)).toHaveAttribute("aria-expanded", "false");

  // Enter opens it again; typing a letter jumps to the next entry starting with it.
  await page.keyboard.press("Enter");
  await expect(first).toBeFocused();
  await page.keyboard.press("s");
  await expect(page.getByRole("menuitem", { name: "String building" })).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(menu(page)).toBeHidden();
  await expect(program(page)).toHaveProgram(/^# String building: append 8 words/);
  await expect(program(page)).toHaveProgram(/\ns = realloc s 39 +# "the quick brown fox jumps over the lazy"$/);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 8 / 8");
  await expect(block(page, "s").and(page.locator('[data-state="live"]'))).toHaveAttribute("data-size", "39");
});

test("the random mix form validates its fields and generates a seeded program", async ({ page }) => {
  await menuButton(page).focus();
  await page.keyboard.press("ArrowUp");
  await expect(page.getByRole("menuitem", { name: "Random mix…" })).toBeFocused();
  await page.keyboard.press("Enter");
  const form = page.getByRole("form", { name: "Random mix" });
  await expect(form).toBeVisible();
  const ops = form.getByRole("textbox", { name: "Ops" });
  await expect(ops).toBeFocused();

  await page.keyboard.type("0");
  await form.getByRole("textbox", { name: "Smallest size" }).fill("90");
  await form.getByRole("textbox", { name: "Largest size" }).fill("12");
  await form.getByRole("button", { name: "Generate" }).click();
  const alert = form.getByRole("alert");
  await expect(alert.getByRole("listitem")).toHaveText([
    "Ops: enter a whole number from 1 to 2000",
    "Largest size: 12 is below the smallest size, 90",
  ]);
  await expect(ops).toHaveAttribute("aria-invalid", "true");
  await expect(ops).toHaveAccessibleDescription("Ops: enter a whole number from 1 to 2000");
  await expect(ops).toBeFocused();
  // The invalid form leaves the program alone.
  await expect(program(page)).toHaveProgram(/^a = alloc 1\n/);

  await page.keyboard.press("Control+a");
  await page.keyboard.type("25");
  await form.getByRole("textbox", { name: "Largest size" }).fill("120");
  await form.getByRole("textbox", { name: "Seed" }).fill("7");
  await form.getByRole("textbox", { name: "Seed" }).press("Enter");
  await expect(form).toBeHidden();
  await expect(program(page)).toHaveProgram(/^# Random mix: 25 ops, sizes 90\.\.120, align 1\.\.16, seed 7\n/);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 25 / 25");
  await expect(blocks(page).first()).toBeVisible();
  await expect(page.getByRole("alert")).toHaveCount(0);
});

test("the menu lists the lessons first, and choosing one loads its program and preset", async ({ page }) => {
  await menuButton(page).click();
  const groups = menu(page).getByRole("group");
  await expect(groups).toHaveCount(5);
  await expect(groups.nth(0)).toHaveAccessibleName("Lessons");
  await expect(groups.nth(1)).toHaveAccessibleName("Examples");
  await expect(groups.nth(2)).toHaveAccessibleName("Known behaviours of real arenas");
  await expect(groups.nth(3)).toHaveAccessibleName("Recorded from real programs");
  await expect(groups.nth(4)).toHaveAccessibleName("Generators");
  const lesson = page.getByRole("menuitem", { name: "The realloc fast path: up keeps it, down copies" });
  await expect(lesson).toHaveAccessibleDescription(/Growing the last block is free when bumping up/);
  await lesson.click();
  await expect(menu(page)).toBeHidden();
  await expect(program(page)).toHaveProgram(/^# Lesson: the realloc fast path/);
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("bump-scope-up");
  // Its narration is highlighted as narration.
  await expect(page.locator(".cm-content .tok-narration").first()).toContainText("#> Growing data");
});

test("a long program scrolls the gutter and the highlighting with the text", async ({ page }) => {
  await menuButton(page).click();
  await page.getByRole("menuitem", { name: "Parser AST nodes" }).click();
  await expect(program(page)).toHaveProgram(/^# Parser AST: 40 expression nodes \(seed 1\)/);
  const lines = (await programText(program(page))).split("\n").length;
  expect(lines).toBeGreaterThan(40);
  // Scroll to the end, as the caret does after Control+End.
  await program(page).press("Control+End");
  const lastLine = page.locator(`.cm-content .code-line[data-line="${lines}"]`);
  const lastNumber = numbers(page).filter({ hasText: new RegExp(`^${lines}$`) });
  await expect(lastLine).toBeVisible();
  await expect(lastNumber).toBeVisible();
  // The last line is in the box, scrolled to, its number beside it.
  const area = await scroller(page).boundingBox();
  const lastText = await lastLine.boundingBox();
  const lastBox = await lastNumber.boundingBox();
  if (!area || !lastText || !lastBox) throw new Error("missing boxes");
  expect(await scroller(page).evaluate((el) => el.scrollTop)).toBeGreaterThan(0);
  expect(lastText.y).toBeGreaterThan(area.y);
  expect(lastText.y + lastText.height / 2).toBeLessThan(area.y + area.height);
  expect(Math.abs(lastText.y - lastBox.y)).toBeLessThan(1);
  // Its tokens are the program's last line.
  const last = (await programText(program(page))).split("\n").pop() ?? "";
  await expect(lastLine).toHaveText(last);
});

test("the Programs menu replays known behaviours of real arenas, each beside an arena that behaves otherwise", async ({ page }) => {
  await menuButton(page).click();
  await expect(menu(page).getByRole("group", { name: "Known behaviours of real arenas" }).getByRole("menuitem")).toHaveCount(5);
  await page.getByRole("menuitem", { name: "LLVM puts a large request in a slab of its own and keeps filling the current one" }).click();
  await expect(program(page)).toHaveProgram(/^# A request larger than a slab, between two small ones\.\na = alloc 100\nbig = alloc 10000\nb = alloc 100\n$/);
  const columns = page.locator("section.compare-column");
  await expect(columns).toHaveCount(2);
  await expect(columns.nth(0).getByRole("heading")).toHaveText("llvm-bump-ptr");
  await expect(columns.nth(1).getByRole("heading")).toHaveText("bumpalo");

  // Bumper.jl's pitfall beside bump-scope: at the end, the slab each pass
  // made is freed again, while bump-scope keeps the chunk its scope made.
  await menuButton(page).click();
  await page.getByRole("menuitem", { name: "Bumper.jl's slab-boundary pitfall: a scope at a slab's end makes and frees a slab every pass" }).click();
  await expect(columns).toHaveCount(2);
  await expect(columns.nth(0).getByRole("heading")).toHaveText("bumper-slab · capacity 464");
  await expect(columns.nth(1).getByRole("heading")).toHaveText("bump-scope-up · default capacity");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 13 / 13");
  await expect(columns.nth(0).locator("g.chunk-row[data-chunk-id]")).toHaveCount(1);
  await expect(columns.nth(1).locator("g.chunk-row[data-chunk-id]")).toHaveCount(2);
});

test("stepping through a long program scrolls the editor so the current op's line is in view", async ({ page }) => {
  // Some forty steps, each waited on: more than the default 30 s on a busy 2-core machine.
  test.setTimeout(90_000);
  const source = Array.from({ length: 200 }, (_, i) => `b${i + 1} = alloc 8`).join("\n");
  await program(page).fill(source);
  await page.locator("#allocator").selectOption("bumpalo");
  await expect(counter(page).first()).toHaveText("op 200 / 200");
  const current = page.locator(".cm-content .code-line.is-current");
  const scrollTop = (): Promise<number> => scroller(page).evaluate((el) => el.scrollTop);
  /** The current line's box lies inside the editor's box, and the gutter marks the same line. */
  const expectInView = async (line: number): Promise<void> => {
    await expect(current).toHaveAttribute("data-line", String(line));
    await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-current")).toHaveText(String(line));
    await expect
      .poll(async () => {
        const [box, area] = [await current.boundingBox(), await scroller(page).boundingBox()];
        if (!box || !area) return false;
        return box.y >= area.y && box.y + box.height <= area.y + area.height;
      })
      .toBe(true);
  };

  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expectInView(1);
  expect(await scrollTop()).toBe(0);

  // Step by step past the bottom of the box: the editor follows.
  const visible = await scroller(page).evaluate((el) => Math.floor(el.clientHeight / 20));
  for (let line = 2; line <= visible + 3; line++) {
    await page.getByRole("button", { name: "Step forward" }).click();
    await expectInView(line);
  }
  const down = await scrollTop();
  expect(down).toBeGreaterThan(0);

  // The last op, far below: in view again; then back to the top.
  await page.getByRole("button", { name: "Last" }).click();
  await expectInView(200);
  expect(await scrollTop()).toBeGreaterThan(down);
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expectInView(1);
  expect(await scrollTop()).toBe(0);

  // The keyboard's steps scroll it too (with nothing focused, as after a click on the page).
  await page.getByRole("button", { name: "Last" }).click();
  await expectInView(200);
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("ArrowLeft");
  await expectInView(199);
});

test("the Capacity select shows a gallery entry's 464-byte slab, never blank", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("group", { name: "Known behaviours of real arenas" }).getByRole("menuitem", { name: /^Bumper\.jl's slab-boundary pitfall/ }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(2);
  await page.getByRole("button", { name: "Exit compare" }).click();
  await expect(page.locator("section.compare-column")).toHaveCount(0);
  const capacity = page.getByRole("combobox", { name: "Capacity", exact: true });
  await expect(page.getByRole("combobox", { name: "Allocator", exact: true })).toHaveValue("bumper-slab");
  await expect(capacity).toHaveValue("464");
  expect(await capacity.evaluate((s: HTMLSelectElement) => s.selectedOptions[0]?.textContent)).toBe("464 bytes");
  // Listed in order among the round sizes; choosing another drops it.
  await expect(capacity.locator("option")).toHaveText(["default", "64 bytes", "128 bytes", "256 bytes", "464 bytes", "512 bytes", "1024 bytes", "2048 bytes", "4096 bytes", "1 MiB"]);
  await capacity.selectOption("512");
  await expect(capacity).toHaveValue("512");
  await expect(capacity.locator("option")).toHaveCount(9);
});
