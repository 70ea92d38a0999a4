import { type Locator, type Page } from "@playwright/test";
import { expect, programText, test } from "./playground";

// Presentation mode runs a whole lesson from the keyboard: → steps, and on a
// step where the lesson asks a question → first reveals the answer (the room
// guessed aloud), then steps past it. On every step the op's statement is
// shown, and what the lesson needs (statement, map, words, question) is on
// one screen, at a 720-line projector and at 1080.

const counter = (page: Page) => page.locator(".step-counter");
const statement = (page: Page) => page.locator(".present-statement");
const question = (page: Page) => page.locator("section.predict");
const verdict = (page: Page) => page.locator(".predict-verdict");

/** Whether `l` lies wholly inside the window (the page is not scrolled to show it). */
async function onScreen(page: Page, l: Locator): Promise<boolean> {
  const box = await l.boundingBox();
  const size = page.viewportSize();
  if (!box || !size) return false;
  return box.y >= 0 && box.x >= 0 && box.y + box.height <= size.height + 1 && box.x + box.width <= size.width + 1;
}

/** The ops of the program: "op 3 / 7" gives 7. */
async function total(page: Page): Promise<number> {
  return Number(/\/ (\d+)$/.exec((await counter(page).textContent()) ?? "")?.[1] ?? NaN);
}

/**
 * Teaches the open lesson to its last op with → alone, checking each step:
 * a question is revealed before the op it asks about runs, and the statement,
 * map, narration and question are on screen. Returns the steps that asked.
 */
async function teach(page: Page, lines: readonly string[]): Promise<{ asked: number[]; statements: string[] }> {
  const ops = await total(page);
  const asked: number[] = [];
  const statements: string[] = [];
  await expect(counter(page)).toHaveText(`op 0 / ${ops}`);
  await expect(statement(page)).toContainText(`Before the first of ${ops} ops`);
  for (let step = 0; step < ops; ) {
    const asking = await question(page).isVisible();
    if (asking && (await page.locator(".predict-result").getAttribute("data-tone")) === null) {
      // An unanswered question: it is on screen, and → reveals it without stepping.
      asked.push(step);
      expect(await onScreen(page, page.locator(".predict-strip")), `op ${step}: the question's strip`).toBe(true);
      expect(await onScreen(page, page.locator(".predict-question")), `op ${step}: the question`).toBe(true);
      await page.keyboard.press("ArrowRight");
      await expect(verdict(page)).toHaveText(/ lands at 0x[0-9a-f]+\.$/);
      await expect(counter(page)).toHaveText(`op ${step} / ${ops}`);
      continue;
    }
    await page.keyboard.press("ArrowRight");
    step++;
    await expect(counter(page)).toHaveText(`op ${step} / ${ops}`);
    // The statement of the op that just ran, as the program wrote it.
    await expect(statement(page).locator(".present-statement-label")).toHaveText(`Op ${step} of ${ops}:`);
    const code = (await statement(page).locator(".present-statement-code").textContent()) ?? "";
    expect(lines, `op ${step}'s statement`).toContain(code);
    statements.push(code);
    for (const [what, l] of [
      ["statement", statement(page)],
      ["map", page.locator("#memory-map svg.memory-map").first()],
      ["narration", page.locator(".map-panel > .narration-mount")],
    ] as const) {
      expect(await onScreen(page, l), `op ${step}: the ${what}`).toBe(true);
    }
  }
  return { asked, statements };
}

async function openLesson(page: Page, title: string): Promise<void> {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: title }).click();
  await page.getByRole("button", { name: "First" }).click();
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  await page.keyboard.press("p");
  await expect(page.getByRole("button", { name: "Present" })).toHaveAttribute("aria-pressed", "true");
}

for (const [width, height] of [
  [1280, 720],
  [1920, 1080],
] as const) {
  test.describe(`at ${width}×${height}`, () => {
    test.use({ viewport: { width, height } });

    test("lesson 1 is taught start to end with the keyboard alone", async ({ page }) => {
      await openLesson(page, "Why bumping down needs fewer instructions");
      const lines = await programLines(page);
      expect(lines.slice(0, 2)).toEqual(["a = alloc u8", "b = alloc u64"]);
      const { asked, statements } = await teach(page, lines);
      // Five ops, one line each: the statements are the program's, in order.
      expect(statements).toEqual(lines);
      // The lesson asks where b lands: → revealed it before b ran.
      expect(asked).toContain(1);
      await expect(counter(page)).toHaveText("op 5 / 5");
      // Its closing words read as paragraphs, a line's space apart, not 100 px.
      const gaps = await page.locator(".map-panel > .narration-mount .narration-body").evaluate((body) => {
        const ps = [...body.querySelectorAll("p")].map((p) => p.getBoundingClientRect());
        return ps.slice(1).map((r, i) => r.top - (ps[i]?.bottom ?? 0));
      });
      expect(gaps.length).toBeGreaterThanOrEqual(3);
      for (const gap of gaps) expect(gap).toBeLessThanOrEqual(24);
      // Its Try-it opens compare, by the keyboard too: each column fitted to the bytes its run uses.
      await page.getByRole("button", { name: "Try it: compare all three" }).focus();
      await page.keyboard.press("Enter");
      const columns = page.locator("section.compare-column");
      await expect(columns).toHaveCount(3);
      for (let i = 0; i < 3; i++) await expect(columns.nth(i).locator("svg.memory-map g.row-cut")).toHaveCount(1);
      await expect(counter(page)).toHaveText("op 5 / 5");
      await page.keyboard.press("ArrowLeft");
      await expect(counter(page)).toHaveText("op 4 / 5");
      await expect(statement(page).locator(".present-statement-code")).toHaveText(lines[3] ?? "?");
      await page.keyboard.press("Escape");
      await expect(columns).toHaveCount(0);
      await expect(page.getByRole("button", { name: "Present" })).toHaveAttribute("aria-pressed", "true");
      // Back by ← and the question is asked again, its answer hidden.
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
      await expect(counter(page)).toHaveText("op 1 / 5");
      await expect(verdict(page)).toBeHidden();
    });

    test("the minimum-alignment lesson is taught start to end with the keyboard alone", async ({ page }) => {
      await openLesson(page, "Minimum alignment: less work per allocation");
      const lines = await programLines(page);
      await teach(page, lines);
      const ops = await total(page);
      await expect(counter(page)).toHaveText(`op ${ops} / ${ops}`);
    });
  });
}

/** The program's op lines, trimmed, in order (a repeat's body once): each step's statement is one of them. */
async function programLines(page: Page): Promise<string[]> {
  // The editor is put away in presentation mode; its text is still the program.
  const text = await programText(page.getByRole("textbox", { name: "Program", includeHidden: true }));
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("repeat") && l !== "}");
}
