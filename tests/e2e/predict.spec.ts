import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Predict, graded to the exact byte. The lesson "Why bumping down needs fewer
// instructions" runs fitzgen-down on a 256-byte wasm32 chunk, 0x10010..0x10110
// (its addresses are checked against the engine in web/src/model/lessons.test.ts):
//   a = alloc u8 -> 0x1010f; b = alloc u64 from the bump pointer 0x1010f:
//   0x1010f − 8 = 0x10107, rounded down to 0x10100 (7 bytes of padding).

const counter = (page: Page) => page.locator(".step-counter");
const panel = (page: Page) => page.locator("section.predict");
const pick = (page: Page) => page.locator(".predict-pick");
const verdict = (page: Page) => page.locator(".predict-verdict");
const mistake = (page: Page) => page.locator(".predict-mistake");

/** Lesson 1 from the Programs menu, at op 1: the lesson asks where b will land. */
async function atQuestionB(page: Page): Promise<void> {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
  await expect(counter(page)).toHaveText("op 0 / 5");
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 1 / 5");
  await expect(page.getByRole("slider", { name: "Where will b land?" })).toBeVisible();
}

test("the classic mistake, 0x10107 for b, is graded wrong with the padding it missed", async ({ page }) => {
  await atQuestionB(page);
  // The question gives the numbers the arithmetic needs.
  await expect(panel(page).locator(".predict-ask")).toHaveText(
    "b = alloc 8 bytes, align 8, in chunk 0, 0x10010–0x10110 (bumping down); the bump pointer is at 0x1010f.",
  );
  await expect(panel(page).locator(".predict-zoom-caption")).toHaveText(/^Zoomed in: 0x[0-9a-f]+–0x[0-9a-f]+, one cell per byte; the long lines are 8-aligned\.$/);
  const strip = page.getByRole("slider", { name: "Where will b land?" });
  await strip.focus();
  await page.keyboard.press("End");
  for (let i = 0; i < 8; i++) await page.keyboard.press("ArrowLeft");
  await expect(strip).toHaveAttribute("aria-valuetext", "0x10107, 247 bytes into the chunk");
  await expect(pick(page)).toHaveText("Your guess: 0x10107.");
  await expect(counter(page)).toHaveText("op 1 / 5");

  await page.keyboard.press("Enter");
  await expect(panel(page).locator(".predict-result")).toHaveAttribute("data-tone", "wrong");
  await expect(verdict(page)).toHaveText("Wrong: you picked 0x10107, 7 bytes too high: b lands at 0x10100.");
  await expect(mistake(page)).toHaveText(
    "You subtracted the size but did not round down to the alignment: 0x1010f − 8 = 0x10107, which is not 8-aligned; rounding down to 0x10100 leaves 7 bytes of padding.",
  );
  await expect(panel(page).locator(".predict-reason")).toHaveText(
    "Why: bump down: 0x1010f − 8 = 0x10107, rounded down to 0x10100 for alignment (7 bytes of padding).",
  );
  // Answering runs nothing: the op asked about is still the next one.
  await expect(counter(page)).toHaveText("op 1 / 5");
});

test("a block of alignment 1 may start at any byte, and the zoomed strip says so", async ({ page }) => {
  await atQuestionB(page);
  // d = alloc [u8; 13], two ops on: the lesson asks about it too.
  await panel(page).getByRole("button", { name: "Next", exact: true }).click();
  await expect(counter(page)).toHaveText("op 2 / 5");
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(page.getByRole("slider", { name: "Where will d land?" })).toBeVisible();
  await expect(panel(page).locator(".predict-zoom-caption")).toHaveText(/^Zoomed in: 0x[0-9a-f]+–0x[0-9a-f]+, one cell per byte; the block could start at any byte\.$/);
});

test("one byte off is wrong; the exact byte is right", async ({ page }) => {
  await atQuestionB(page);
  const strip = page.getByRole("slider", { name: "Where will b land?" });
  await strip.focus();
  await page.keyboard.press("End");
  // Shift moves to the next 8-aligned address below: 0x10108, then 0x10100; one byte up is 0x10101.
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(pick(page)).toHaveText("Your guess: 0x10108.");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("ArrowRight");
  await expect(pick(page)).toHaveText("Your guess: 0x10101.");
  await page.getByRole("button", { name: "Reveal" }).click();
  await expect(verdict(page)).toHaveText("Wrong: you picked 0x10101, 1 byte too high: b lands at 0x10100.");
  await expect(mistake(page)).toBeHidden();

  // The same question again, answered on the byte.
  await page.getByRole("button", { name: "Step back" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 1 / 5");
  await expect(pick(page)).toHaveText("No guess yet.");
  await strip.focus();
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText("Right: b lands at 0x10100.");
  await expect(panel(page).locator(".predict-result")).toHaveAttribute("data-tone", "right");
});

test("keys inside predict never step: ← → move the guess, Enter answers, then the next step asks the next question", async ({ page }) => {
  await atQuestionB(page);
  await page.getByRole("button", { name: "Predict", exact: true }).click();
  // Nothing focused: the page's own arrow keys are the guess's while the question is open.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await expect(pick(page)).toHaveText("No guess yet.");
  // The first move starts from the strip's middle, 0x10090.
  for (const key of ["ArrowRight", "ArrowRight", "ArrowRight", "ArrowLeft"]) await page.keyboard.press(key);
  await expect(pick(page)).toHaveText("Your guess: 0x10092.");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(pick(page)).toHaveText("Your guess: 0x10098.");
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(pick(page)).toHaveText("Your guess: 0x10090.");
  // Space would play (and so step): it does nothing while a question is open.
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  await expect(counter(page)).toHaveText("op 1 / 5");

  // On the strip: its slider keys, and still no step.
  const strip = page.getByRole("slider", { name: "Where will b land?" });
  await strip.focus();
  for (const key of ["PageUp", "ArrowUp", "Home", "ArrowRight", "End", "ArrowDown", " "]) await page.keyboard.press(key);
  await expect(pick(page)).toHaveText("Your guess: 0x1010e.");
  await expect(counter(page)).toHaveText("op 1 / 5");

  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText("Wrong: you picked 0x1010e, 14 bytes too high: b lands at 0x10100.");
  // Answered: arrows on the strip still do not step; Enter goes on to the next question.
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText("op 1 / 5");
  await page.keyboard.press("Enter");
  await expect(counter(page)).toHaveText("op 2 / 5");
  await expect(page.getByRole("slider", { name: "Where will c land?" })).toBeVisible();
  await expect(pick(page)).toHaveText("No guess yet.");
  await expect(verdict(page)).toHaveText("");

  // Enter with no guess shows the answer, ungraded; then → (from the page) steps once.
  await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText("You made no guess: c lands at 0x100f0.");
  await expect(counter(page)).toHaveText("op 2 / 5");
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText("op 3 / 5");
  await expect(page.getByRole("slider", { name: "Where will d land?" })).toBeVisible();
});

test("predict at the last op says the program is finished and offers to start over", async ({ page }) => {
  await atQuestionB(page);
  await page.getByRole("button", { name: "Predict", exact: true }).click();
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 5 / 5");
  await expect(panel(page).getByRole("heading", { name: "The program is finished" })).toBeVisible();
  await expect(panel(page).locator(".predict-ask")).toHaveText("All 5 ops have run: there is no next block to predict.");
  await expect(page.getByRole("slider", { name: /^Where will/ })).toHaveCount(0);
  await panel(page).getByRole("button", { name: "Start over" }).click();
  await expect(counter(page)).toHaveText("op 0 / 5");
  await expect(page.getByRole("slider", { name: "Where will a land?" })).toBeVisible();
});

test("the Predict toggle hands the keys to the question: arrows then Enter answer it, and the step keys' hint is put away", async ({ page }) => {
  // A plain program (no lesson asking): the question opens with the toggle.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("fitzgen-down");
  await page.getByRole("combobox", { name: "Capacity" }).selectOption("256");
  await page.getByRole("textbox", { name: "Program" }).fill("a = alloc u8\nb = alloc u64");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 1 / 2");
  const keysHint = page.locator("#stepper .step-keys");
  await expect(keysHint).toBeVisible();
  await page.getByRole("button", { name: "Predict", exact: true }).click();
  await expect(page.getByRole("slider", { name: "Where will b land?" })).toBeFocused();
  await expect(keysHint).toBeHidden();
  // One byte up from the strip's middle, 0x10090.
  await page.keyboard.press("ArrowRight");
  await expect(pick(page)).toHaveText("Your guess: 0x10091.");
  // Enter answers; it does not press the toggle again.
  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText("Wrong: you picked 0x10091, 111 bytes too low: b lands at 0x10100.");
  await expect(page.getByRole("button", { name: "Predict", exact: true })).toHaveAttribute("aria-pressed", "true");
  await expect(counter(page)).toHaveText("op 1 / 2");
  // Closing the question gives the step keys their hint back.
  await page.getByRole("button", { name: "Predict", exact: true }).click();
  await expect(keysHint).toBeVisible();
});

test("at 1280×800 lesson 1's question is on screen whole, its buttons too, and the map keeps its place between ordinary steps", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  const map = page.locator("#memory-map svg.memory-map").first();
  const mapTop = () => map.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  await atQuestionB(page);
  // The page is not scrolled: what the learner sees on arrival at the question.
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  const questionTop = await mapTop();
  for (const l of [
    page.getByRole("heading", { name: "Where will b land?" }),
    page.getByRole("slider", { name: "Where will b land?" }),
    page.getByRole("group", { name: "Move the guess" }),
    panel(page).getByRole("button", { name: "Reveal", exact: true }),
    panel(page).getByRole("button", { name: "Next", exact: true }),
  ]) {
    const box = await l.boundingBox();
    expect(box, await l.evaluate((el) => el.className)).not.toBeNull();
    expect((box?.y ?? 0) + (box?.height ?? 0)).toBeLessThanOrEqual(800);
    expect(box?.y ?? -1).toBeGreaterThanOrEqual(0);
  }
  // Answered by the keyboard from there, the verdict is on screen too.
  await page.getByRole("slider", { name: "Where will b land?" }).focus();
  await page.keyboard.press("End");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText("Right: b lands at 0x10100.");
  expect(await page.evaluate(() => window.scrollY)).toBe(0);
  // Steps of one to three lines (ops 0 to 4) leave the map where it was; the
  // closing step's four paragraphs and three Try-it buttons are shown whole,
  // pushing the map down while they are shown.
  const tops: number[] = [];
  await page.getByRole("button", { name: "First" }).click();
  for (let op = 0; op <= 4; op++) {
    if (op > 0) await page.getByRole("button", { name: "Step forward" }).click();
    await expect(counter(page)).toHaveText(`op ${op} / 5`);
    tops.push(await mapTop());
  }
  expect(tops).toEqual(Array<number>(5).fill(questionTop));
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 5 / 5");
  const narration = page.locator(".narration-mount > .narration");
  await expect(narration.getByRole("button", { name: "Try it: compare all three" })).toBeVisible();
  const inside = await narration.evaluate((panelEl) => {
    const box = panelEl.getBoundingClientRect();
    return [...panelEl.querySelectorAll(".narration-body p, .narration-try")].every((el) => el.getBoundingClientRect().bottom <= box.bottom);
  });
  expect(inside).toBe(true);
  expect(await mapTop()).toBeGreaterThan(questionTop);
  // A taller window reserves for the closing step too (a quarter of 1700 px
  // holds it): measured again when the window's height changes, the map no
  // longer moves at that step.
  await page.setViewportSize({ width: 1280, height: 1700 });
  const tall = await mapTop();
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 4 / 5");
  expect(await mapTop()).toBe(tall);
});
