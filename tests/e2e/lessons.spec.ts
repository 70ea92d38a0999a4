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
  await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram(/^# Lesson: why bumping down/);
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
  await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram(/^# Lesson: why bumping down/);
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

// hinckley-up-naive bumps up from the same chunk's start: there `a` lands at
// 0x10010, not at the lesson's 0x1010f (lessons.test.ts checks both runs).
const banner = (page: Page) => narration(page).getByRole("status");
const blockA = (page: Page) => page.locator("svg.memory-map").getByRole("img", { name: /^a:/ });
const counter = (page: Page) => page.locator(".step-counter").first();

test("switching the allocator inside a lesson shows the banner", async ({ page }) => {
  await openLesson(page, "Why bumping down needs fewer instructions");
  await expect(narration(page).locator(".narration-for")).toHaveText("Written for fitzgen-down, wasm32, capacity 256");
  await expect(banner(page)).toBeHidden();
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(narrationBody(page)).toContainText("very last byte, 0x1010f");
  await expect(blockA(page)).toHaveAttribute("aria-label", /^a: 1 byte at 0x1010f\b/);

  // The lesson says to switch to hinckley-up-naive: do it by hand and step once.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("hinckley-up-naive");
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 2 / 5");
  await expect(blockA(page)).toHaveAttribute("aria-label", /^a: 1 byte at 0x10010\b/);
  // The words of the fitzgen-down run are put away, not shown beside a map they do not describe.
  await expect(narrationBody(page)).toBeHidden();
  await expect(narration(page)).not.toContainText("0x1010f");
  await expect(narration(page)).not.toContainText("0x10100");
  await expect(banner(page)).toContainText("Trying hinckley-up-naive, as the lesson suggests.");
  await expect(banner(page)).toContainText("The narration was written for fitzgen-down, wasm32, capacity 256");

  // A change the lesson did not ask for is named as the learner's own.
  await page.getByRole("combobox", { name: "Target" }).selectOption("64");
  await expect(banner(page)).toContainText(
    "The narration was written for fitzgen-down, wasm32, capacity 256. You changed the allocator to hinckley-up-naive, the target to 64-bit: its numbers would not describe this run",
  );
  await expect(narrationBody(page)).toBeHidden();

  // One click back: the lesson's allocator, target and capacity, at the same op, and its words again.
  await banner(page).getByRole("button", { name: "Back to the lesson" }).click();
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
  await expect(page.getByRole("combobox", { name: "Target" })).toHaveValue("wasm32");
  await expect(page.getByRole("combobox", { name: "Capacity" })).toHaveValue("256");
  await expect(banner(page)).toBeHidden();
  await expect(counter(page)).toHaveText("op 2 / 5");
  await expect(narrationBody(page)).toContainText("rounds it down to 0x10100, skipping 7 bytes of padding");
  await expect(page.locator("svg.memory-map").getByRole("img", { name: /^b:/ })).toHaveAttribute("aria-label", /^b: 8 bytes at 0x10100, align 8, 7 bytes padding/);
  await expect(blockA(page)).toHaveAttribute("aria-label", /^a: 1 byte at 0x1010f\b/);
});

test("a Try-it action switches the allocator as an intended detour, and the way back restores the lesson", async ({ page }) => {
  await openLesson(page, "Why bumping down needs fewer instructions");
  await page.getByRole("button", { name: "Last" }).click();
  const tries = narration(page).getByRole("group", { name: "Try it" });
  await expect(tries.getByRole("button")).toHaveText(["Try it: switch to hinckley-up-naive", "Try it: switch to hinckley-up", "Try it: compare all three"]);

  await tries.getByRole("button", { name: "Try it: switch to hinckley-up-naive" }).click();
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("hinckley-up-naive");
  await expect(blockA(page)).toHaveAttribute("aria-label", /^a: 1 byte at 0x10010\b/);
  await expect(counter(page)).toHaveText("op 5 / 5");
  // Asked for by the lesson: no "You changed", only where the words belong and the way back.
  await expect(banner(page)).toHaveText(
    "Trying hinckley-up-naive, as the lesson suggests. The narration was written for fitzgen-down, wasm32, capacity 256: its words are put away until you go back.Back to the lesson",
  );
  await expect(narrationBody(page)).toBeHidden();
  // The other detours stay on offer; the one taken is the run on screen.
  await expect(tries.getByRole("button", { name: "Try it: switch to hinckley-up-naive" })).toBeDisabled();
  await tries.getByRole("button", { name: "Try it: switch to hinckley-up", exact: true }).click();
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("hinckley-up");
  await expect(banner(page)).toContainText("Trying hinckley-up, as the lesson suggests.");

  await banner(page).getByRole("button", { name: "Back to the lesson" }).click();
  await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
  await expect(banner(page)).toBeHidden();
  await expect(counter(page)).toHaveText("op 5 / 5");
  await expect(narrationBody(page)).toContainText("Switch the allocator to hinckley-up-naive");
  await expect(blockA(page)).toHaveAttribute("aria-label", /^a: 1 byte at 0x1010f\b/);

  // Compare mode, with the lesson's run as the first column beside the two it names, on the lesson's settings.
  await tries.getByRole("button", { name: "Try it: compare all three" }).click();
  const columns = page.locator('[data-view="compare"] section.compare-column');
  await expect(columns).toHaveCount(3);
  await expect(columns.getByRole("heading")).toHaveText([/^fitzgen-down\b/, /^hinckley-up-naive\b/, /^hinckley-up(?!-)\b/]);
  await expect(columns.nth(0).getByRole("img", { name: /^a:/ })).toHaveAttribute("aria-label", /^a: 1 byte at 0x1010f\b/);
  await expect(columns.nth(1).getByRole("img", { name: /^a:/ })).toHaveAttribute("aria-label", /^a: 1 byte at 0x10010\b/);
  // The run on screen is still the lesson's: nothing to go back from.
  await expect(page.getByRole("combobox", { name: "Allocator", exact: true })).toHaveValue("fitzgen-down");
  await expect(banner(page)).toBeHidden();
});

test("a Try-it action goes to an op: the parser arena's exact fit", async ({ page }) => {
  await openLesson(page, "A parser's arena: pools of small nodes");
  await expect(narration(page).locator(".narration-for")).toHaveText("Written for cpp-arena, wasm32, capacity 32");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 8 / 8");
  await narration(page).getByRole("button", { name: "Try it: back to the exact fit" }).click();
  await expect(counter(page)).toHaveText("op 5 / 8");
  await expect(narrationBody(page)).toContainText("so an exact fit still makes a new pool, 64 * 2 = 128 bytes");
});

test("a directive the narration cannot read is shown at its line", async ({ page }) => {
  const source = ["#> !tri allocator bumpalo", "#> Look at `a`.", "#> !try allocator no-such-arena", "#> !try step 9", "a = alloc 8", "b = alloc 8"].join("\n");
  await page.getByRole("textbox", { name: "Program" }).fill(source);
  await page.getByRole("button", { name: "First" }).click();
  const errors = narration(page).getByRole("list", { name: "Narration errors" });
  // Read as the program is: shown from the first op, before the statement's own step.
  await expect(errors.getByRole("listitem")).toHaveText([
    "Line 1: unknown directive !tri: a narration directive is one of !pause, ?predict, !highlight, !try",
  ]);
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(narrationBody(page)).toHaveText("Look at a.");
  await expect(errors.getByRole("listitem")).toHaveText([
    "Line 1: unknown directive !tri: a narration directive is one of !pause, ?predict, !highlight, !try",
    "Line 3: !try names no allocator the engine has: no-such-arena",
    "Line 4: !try step 9: the program runs 2 ops",
  ]);
  await expect(narration(page).getByRole("button", { name: /^Try it/ })).toHaveCount(0);
});

test("minimum alignment: the numbers the narration states are the ones the Cost panel shows", async ({ page }) => {
  await openLesson(page, "Minimum alignment: less work per allocation");
  const cost = page.locator(".op-cost .op-cost-text");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(counter(page)).toHaveText("op 1 / 9");
  // `a`, a u64 whose layout the compiler knows: 15, as the words say.
  await expect(narrationBody(page)).toContainText("the Cost panel shows 15 wasm instructions, where hinckley-up runs 25 for the same u64");
  await expect(cost).toHaveText(/^15 wasm instructions · 1 conditional branch/);
  await expect(page.locator(".op-shape")).toContainText("typed u64");
  // `g`, a run-time layout: 38.
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 9 / 9");
  await expect(narrationBody(page)).toContainText("38 instructions, more than the 27 hinckley-up runs for the same request");
  await expect(cost).toHaveText(/^38 wasm instructions · 1 conditional branch/);
  await expect(page.locator(".op-shape")).toContainText("run-time layout");
});

test("a lesson's last step shows all its words with its Try-it buttons, none clipped", async ({ page }) => {
  // Lesson 1's closing narration: five paragraphs, then three Try-it buttons
  // that the words explain. A fixed-height box cut it to two.
  await openLesson(page, "Why bumping down needs fewer instructions");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 5 / 5");
  const paragraphs = narrationBody(page).locator("p");
  await expect(paragraphs).toHaveCount(5);
  await expect(narration(page).getByRole("button", { name: /^Try it:/ })).toHaveCount(3);
  // Nothing scrolls inside the panel, and every paragraph lies inside what the panel shows.
  const clipped = await page.locator(".narration-mount").evaluate((mount) => {
    const box = mount.getBoundingClientRect();
    const scrollers = [mount, ...mount.querySelectorAll<HTMLElement>("*")].filter(
      (el) => el.scrollHeight > el.clientHeight + 1 && ["auto", "scroll", "hidden"].includes(getComputedStyle(el).overflowY),
    );
    const outside = [...mount.querySelectorAll(".narration-body p")].filter((p) => {
      const r = p.getBoundingClientRect();
      return r.top < box.top - 1 || r.bottom > box.bottom + 1;
    });
    return { scrollers: scrollers.length, outside: outside.length };
  });
  expect(clipped).toEqual({ scrollers: 0, outside: 0 });
});
