import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// The lesson "Why bumping down needs fewer instructions" (web/src/model/lessons.ts)
// runs fitzgen-down on a 256-byte wasm32 chunk at 0x10010..0x10110; its
// addresses are checked against the engine in web/src/model/lessons.test.ts:
//   a = alloc u8 -> 0x1010f, b = alloc u64 -> 0x10100 (7 bytes of padding).


const narration = (page: Page) => page.locator("section.narration");
const narrationBody = (page: Page) => page.locator(".narration-body");

async function openLesson(page: Page, title: string): Promise<void> {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: title }).click();
  await expect(narration(page).getByRole("heading", { name: title })).toBeVisible();
}

test("a lesson from the Programs menu narrates each step, and Exit lesson leaves it", async ({ page }) => {
  await openLesson(page, "Why bumping down needs fewer instructions");
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
  await expect(page.getByRole("textbox", { name: "Program" })).toHaveValue(/^# Lesson: why bumping down/);
  // The narration region is polite: a screen reader hears each step's words.
  await expect(narrationBody(page)).toHaveAttribute("aria-live", "polite");

  await page.getByRole("button", { name: "First" }).click();
  await expect(narrationBody(page)).toHaveText("Bump down subtracts and rounds with one mask; compare its cost with bumping up.");

  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(narrationBody(page)).toContainText("it takes the chunk's very last byte, 0x1010f");
  // Markdown-lite built as elements: **down** and `a`.
  await expect(narrationBody(page).locator("strong").first()).toHaveText("down");
  await expect(narrationBody(page).locator("code").first()).toHaveText("a");
  // b's statement carries `#> ?predict`: the question is asked before it runs, without the Predict toggle.
  await expect(page.getByRole("slider", { name: "Where will b land?" })).toBeVisible();

  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(narrationBody(page)).toContainText("rounds it down to 0x10100, skipping 7 bytes of padding");
  await expect(narrationBody(page)).not.toContainText("very last byte");
  // c's statement asks nothing.
  await expect(page.getByRole("slider", { name: /^Where will/ })).toHaveCount(0);

  await page.getByRole("button", { name: "Step back" }).click();
  await expect(narrationBody(page)).toContainText("very last byte, 0x1010f");

  // The closing words sit on the last statement.
  await page.getByRole("button", { name: "Last" }).click();
  await expect(narrationBody(page)).toContainText("hinckley-up-naive");

  await narration(page).getByRole("button", { name: "Exit lesson" }).click();
  await expect(narration(page)).toBeHidden();
  // The program stays: exiting a lesson does not throw the learner's place away.
  await expect(page.getByRole("textbox", { name: "Program" })).toHaveValue(/^# Lesson: why bumping down/);
});

test("narration the user writes renders as text, links only to http(s)", async ({ page }) => {
  const hostile = [
    '#> <img src=x onerror="window.__pwned = 1"> <script>window.__pwned = 2</script>',
    "#> [bad](javascript:window.__pwned=3) and [good](https://example.com/bump)",
    "a = alloc 8",
  ].join("\n");
  await page.getByRole("textbox", { name: "Program" }).fill(hostile);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(narrationBody(page)).toContainText('<img src=x onerror="window.__pwned = 1">');
  await expect(narrationBody(page).locator("img, script")).toHaveCount(0);
  const links = narrationBody(page).getByRole("link");
  await expect(links).toHaveCount(1);
  await expect(links.first()).toHaveAttribute("href", "https://example.com/bump");
  await expect(links.first()).toHaveAttribute("target", "_blank");
  await expect(links.first()).toHaveAttribute("rel", "noopener noreferrer");
  expect(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned)).toBeUndefined();
});

test("predict mode: a wrong click, then Reveal shows the real address and why", async ({ page }) => {
  await openLesson(page, "Why bumping down needs fewer instructions");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await page.getByRole("button", { name: "Predict", exact: true }).click();

  const strip = page.getByRole("slider", { name: "Where will b land?" });
  await expect(strip).toBeVisible();
  // The far left of the strip is the chunk's start, 0x10010: b goes near its end.
  const box = await strip.boundingBox();
  if (!box) throw new Error("the strip has no box");
  await strip.click({ position: { x: 12, y: box.height / 2 } });
  await page.getByRole("button", { name: "Reveal" }).click();
  const result = page.locator(".predict-result");
  await expect(result).toContainText("Wrong: you picked 0x100");
  await expect(result).toContainText("b lands at 0x10100");
  await expect(result).toContainText("bump down: 0x1010f − 8 = 0x10107, rounded down to 0x10100");

  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("slider", { name: "Where will c land?" })).toBeVisible();
  await expect(narrationBody(page)).toContainText("rounds it down to 0x10100");
});

test("predict mode by keyboard: End, then Enter answers", async ({ page }) => {
  await openLesson(page, "Why bumping down needs fewer instructions");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Predict", exact: true }).click();

  const strip = page.getByRole("slider", { name: "Where will a land?" });
  await strip.focus();
  await page.keyboard.press("End");
  await expect(strip).toHaveAttribute("aria-valuetext", /^0x1010f,/);
  await page.keyboard.press("Enter");
  await expect(page.locator(".predict-result")).toContainText("Right: a lands at 0x1010f");
});
