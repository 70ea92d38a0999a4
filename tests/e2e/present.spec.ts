import { type Locator, type Page } from "@playwright/test";
import { expect, programText, test } from "./playground";

// Presentation mode runs a whole lesson from the keyboard: → steps, and on a
// step where the lesson asks a question → first reveals the answer (the room
// guessed aloud), then steps past it; or the teacher Tabs to the question's
// strip, moves the guess with the keys and answers with Enter, and → steps on
// from there. Every question, its answer and its reason are on screen whole.
// On every step the op's statement is
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

/** Whether `l` is not cut off by the box it scrolls in (the question's panel scrolls when it must). */
async function unclipped(l: Locator): Promise<boolean> {
  return l.evaluate((el) => {
    const r = el.getBoundingClientRect();
    for (let box = el.parentElement; box; box = box.parentElement) {
      const overflow = getComputedStyle(box).overflowY;
      if (overflow !== "auto" && overflow !== "scroll" && overflow !== "hidden") continue;
      const b = box.getBoundingClientRect();
      if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return false;
    }
    return true;
  });
}

/** Whether `l` can be read in full: inside the window and not cut off by a scroll box. */
async function readable(page: Page, l: Locator): Promise<boolean> {
  return (await onScreen(page, l)) && (await unclipped(l));
}

/**
 * Answers the open question from the keyboard alone: Tab reaches the strip,
 * End and ← move the guess a byte below the chunk's last, Enter answers. The
 * verdict grades that guess and names where the block lands: returned.
 */
async function answerByKeyboard(page: Page, step: number): Promise<string> {
  const strip = page.locator(".predict-strip");
  let presses = 0;
  while (!(await strip.evaluate((el) => el === document.activeElement)) && presses < 40) {
    await page.keyboard.press("Tab");
    presses++;
  }
  expect(presses, `op ${step}: Tab reaches the question's strip`).toBeLessThan(40);
  await page.keyboard.press("End");
  await page.keyboard.press("ArrowLeft");
  const max = Number(await strip.getAttribute("aria-valuemax"));
  await expect(strip).toHaveAttribute("aria-valuenow", String(max - 1));
  // Moving the guess ran nothing.
  await expect(counter(page)).toHaveText(new RegExp(`^op ${step} / `));
  await page.keyboard.press("Enter");
  await expect(verdict(page)).toHaveText(/ lands at 0x[0-9a-f]+\.$/);
  const text = (await verdict(page).textContent()) ?? "";
  const lands = /lands at (0x[0-9a-f]+)\.$/.exec(text)?.[1] ?? "?";
  const guess = `0x${(max - 1).toString(16)}`;
  await expect(page.locator(".predict-result")).toHaveAttribute("data-tone", guess === lands ? "right" : "wrong");
  if (guess !== lands) expect(text).toContain(`you picked ${guess}`);
  return lands;
}

/** The ops of the program: "op 3 / 7" gives 7. */
async function total(page: Page): Promise<number> {
  return Number(/\/ (\d+)$/.exec((await counter(page).textContent()) ?? "")?.[1] ?? NaN);
}

/**
 * Teaches the open lesson to its last op by the keyboard, checking each step:
 * every question is on screen whole and is answered from the keyboard before
 * the op it asks about runs (→ then steps on from the strip, and the block
 * lands where the answer said), and the statement, map and narration are on
 * screen. Returns the steps that asked.
 */
async function teach(page: Page, lines: readonly string[]): Promise<{ asked: number[]; statements: string[] }> {
  const ops = await total(page);
  const asked: number[] = [];
  const statements: string[] = [];
  await expect(counter(page)).toHaveText(`op 0 / ${ops}`);
  await expect(statement(page)).toContainText(`Before the first of ${ops} ops`);
  for (let step = 0; step < ops; ) {
    const asking = await question(page).isVisible();
    let lands: string | null = null;
    if (asking && (await page.locator(".predict-result").getAttribute("data-tone")) === null) {
      // An unanswered question: on screen whole, and answered from the keyboard without stepping.
      asked.push(step);
      for (const [what, l] of [
        ["question", page.locator(".predict-question")],
        ["strip", page.locator(".predict-strip")],
        ["Reveal button", question(page).getByRole("button", { name: "Reveal", exact: true })],
      ] as const) {
        expect(await readable(page, l), `op ${step}: the question's ${what}`).toBe(true);
      }
      lands = await answerByKeyboard(page, step);
      await expect(counter(page)).toHaveText(`op ${step} / ${ops}`);
      for (const [what, l] of [
        ["verdict", verdict(page)],
        ["reason", page.locator(".predict-reason")],
      ] as const) {
        expect(await readable(page, l), `op ${step}: the answer's ${what}`).toBe(true);
      }
    }
    await page.keyboard.press("ArrowRight");
    step++;
    await expect(counter(page)).toHaveText(`op ${step} / ${ops}`);
    // The block lands where the answer said.
    if (lands !== null) await expect(statement(page).locator(".present-statement-outcome")).toContainText(` at ${lands}`);
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
      // The lesson asks where b lands and where d lands: each answered before its op ran.
      expect(asked).toEqual([1, 3]);
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
      // Back by ← and the question is asked again, its answer hidden; the room
      // guesses aloud: → reveals the answer without stepping, and the next → steps.
      for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowLeft");
      await expect(counter(page)).toHaveText("op 1 / 5");
      await expect(verdict(page)).toBeHidden();
      await page.keyboard.press("ArrowRight");
      await expect(verdict(page)).toHaveText("b lands at 0x10100.");
      await expect(counter(page)).toHaveText("op 1 / 5");
      await page.keyboard.press("ArrowRight");
      await expect(counter(page)).toHaveText("op 2 / 5");
    });

    test("the minimum-alignment lesson is taught start to end with the keyboard alone", async ({ page }) => {
      await openLesson(page, "Minimum alignment: less work per allocation");
      const lines = await programLines(page);
      const { asked } = await teach(page, lines);
      // Its three questions (b, c and e), each answered from the keyboard.
      expect(asked).toEqual([1, 2, 4]);
      const ops = await total(page);
      await expect(counter(page)).toHaveText(`op ${ops} / ${ops}`);
    });
  });
}

test("entering and leaving presentation mode, the bump pointer is drawn at the byte it points to", async ({ page }) => {
  // Lesson 1's op 1: a, one byte, takes 0x1010f, the chunk's last; the pointer is there.
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
  const map = page.locator("#memory-map svg.memory-map").first();
  // Where the axis puts an address: between the two address labels around it.
  const axisX = (address: number) =>
    map.locator("text").evaluateAll((texts, at) => {
      const ticks = texts
        .filter((t) => /^0x[0-9a-f]+$/.test(t.textContent ?? ""))
        .map((t) => {
          const r = t.getBoundingClientRect();
          return { address: parseInt(t.textContent ?? "", 16), x: r.x + r.width / 2 };
        });
      const lo = ticks.filter((t) => t.address <= at).sort((a, b) => b.address - a.address)[0];
      const hi = ticks.filter((t) => t.address > at).sort((a, b) => a.address - b.address)[0];
      if (!lo || !hi) return { x: NaN, byte: NaN };
      const byte = (hi.x - lo.x) / (hi.address - lo.address);
      return { x: lo.x + (at - lo.address) * byte, byte };
    }, address);
  const pointerX = async (): Promise<number> => (await map.locator("g.bump-pointer line.ptr-line").boundingBox())?.x ?? NaN;
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  // Each switch lays the map out again at another width: a glide begun for
  // one layout (a step just taken) must not leave the pointer where that
  // layout put it.
  for (const presenting of [true, false, true, false, true]) {
    await page.keyboard.press("Home");
    await expect(counter(page)).toHaveText("op 0 / 5");
    await page.keyboard.press("ArrowRight");
    await page.keyboard.press("p");
    await expect(counter(page)).toHaveText("op 1 / 5");
    await expect(page.getByRole("button", { name: "Present" })).toHaveAttribute("aria-pressed", String(presenting));
    await expect(map.locator("g.bump-pointer")).toHaveAttribute("data-address", String(0x1010f));
    // Past any glide (they last 250 ms), the pointer stays at 0x1010f, within two bytes or 6 px.
    await page.waitForTimeout(700);
    const want = await axisX(0x1010f);
    expect(want.byte).toBeGreaterThan(0);
    expect(Math.abs((await pointerX()) - want.x), `presenting ${presenting}: the pointer at ${await pointerX()}, 0x1010f at ${want.x}`).toBeLessThan(Math.max(6, 2 * want.byte));
  }
});

/** The program's op lines, trimmed, in order (a repeat's body once): each step's statement is one of them. */
async function programLines(page: Page): Promise<string[]> {
  // The editor is put away in presentation mode; its text is still the program.
  const text = await programText(page.getByRole("textbox", { name: "Program", includeHidden: true }));
  return text
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "" && !l.startsWith("#") && !l.startsWith("repeat") && l !== "}");
}
