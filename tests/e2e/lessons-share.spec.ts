import type { Locator, Page } from "@playwright/test";
import { decodeShare } from "../../web/src/share/link";
import { expect, test, programText } from "./playground";

// A lesson's narration travels with the program: edit a `#>` line, share the
// page's link, and both the app and the embed show the edited words at that
// statement's step.

const LESSON = "Why bumping down needs fewer instructions";
// The narration of `c = alloc u128`, the lesson's third statement (op 3).
const ORIGINAL = "#> A `u128` needs 16-alignment, and 0x10100 − 16 = 0x100f0 already has it: no padding this time.";
const EDITED = "#> Edited: `c` is a **u128** and lands at 0x100f0, no padding.";
const EDITED_TEXT = "Edited: c is a u128 and lands at 0x100f0, no padding.";

const program = (page: Page): Locator => page.getByRole("textbox", { name: "Program" });
const counter = (page: Page): Locator => page.locator(".step-counter").first();

/** Steps from the first op to `step` with the player's own buttons. */
async function stepTo(scope: Page | Locator, count: Locator, step: number, total: number): Promise<void> {
  await scope.getByRole("button", { name: "First" }).click();
  await expect(count).toHaveText(`op 0 / ${total}`);
  for (let i = 0; i < step; i++) await scope.getByRole("button", { name: "Step forward" }).click();
  await expect(count).toHaveText(`op ${step} / ${total}`);
}

test("an edited lesson narration shows at its step through the share link, in the app and in the embed", async ({ page, context }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: LESSON }).click();
  await expect(page.locator("section.narration").getByRole("heading", { name: LESSON })).toBeVisible();

  const source = await programText(program(page));
  expect(source).toContain(ORIGINAL);
  const edited = source.replace(ORIGINAL, EDITED);
  await program(page).fill(edited);
  await stepTo(page, counter(page), 3, 5);
  await expect(page.locator(".narration-body")).toHaveText(EDITED_TEXT);

  // The hash follows the state (debounced): wait until it carries the edit and the step.
  let hash = "";
  await expect
    .poll(async () => {
      hash = new URL(page.url()).hash.slice(1);
      const decoded = await decodeShare(hash);
      return decoded.ok ? { source: decoded.state.source, step: decoded.state.step } : null;
    })
    .toEqual({ source: edited, step: 3 });

  // The app, opened fresh at the link.
  const app = await context.newPage();
  await app.goto(`/#${hash}`);
  await expect(counter(app)).toHaveText("op 3 / 5");
  await expect(program(app)).toHaveProgram(edited);
  await expect(app.locator(".narration-body")).toHaveText(EDITED_TEXT);
  await expect(app.locator(".narration-body strong")).toHaveText("u128");
  // One step on, the next statement's own narration replaces it.
  await app.getByRole("button", { name: "Step forward" }).click();
  await expect(app.locator(".narration-body")).toContainText("A 13-byte slice of u8 needs no alignment");
  await stepTo(app, counter(app), 3, 5);
  await expect(app.locator(".narration-body")).toHaveText(EDITED_TEXT);
  await app.close();

  // The embed at the same link: it opens at op 3 with the edited words, and steps to them.
  const embed = await context.newPage();
  await embed.goto(`/embed.html#${hash}`);
  const root = embed.locator("#embed");
  await expect(root).toHaveAttribute("data-ready", "true");
  const narration = root.locator(".bl-narration .narration-body");
  await expect(root.locator(".step-counter")).toHaveText("op 3 / 5");
  await expect(narration).toHaveText(EDITED_TEXT);
  await stepTo(root, root.locator(".step-counter"), 1, 5);
  await expect(narration).toContainText("it takes the chunk's very last byte, 0x1010f");
  await expect(narration).not.toContainText("Edited");
  await stepTo(root, root.locator(".step-counter"), 3, 5);
  await expect(narration).toHaveText(EDITED_TEXT);
  await expect(narration.locator("code")).toHaveText("c");
  // Before the first narrated statement there is nothing to say: the panel hides.
  await root.getByRole("button", { name: "First" }).click();
  await expect(root.locator(".bl-narration section.narration")).toBeHidden();

  // The <bump-lab> element, added to the same page as a blog post would: its shadow root shows the narration too.
  await embed.evaluate((link) => {
    const script = document.createElement("script");
    script.type = "module";
    script.src = "/bump-lab.js";
    const element = document.createElement("bump-lab");
    element.id = "lab";
    element.setAttribute("link", link);
    document.body.append(script, element);
  }, hash);
  const lab = embed.locator("bump-lab#lab");
  await expect(lab).toHaveAttribute("data-ready", "true");
  await expect(lab.locator(".step-counter")).toHaveText("op 3 / 5");
  await expect(lab.locator(".bl-narration .narration-body")).toHaveText(EDITED_TEXT);
  await lab.getByRole("button", { name: "Step back" }).click();
  await expect(lab.locator(".bl-narration .narration-body")).toContainText("skipping 7 bytes of padding");
  // Styled inside the shadow root: narration.css's accent border reaches it.
  const border = await lab.locator(".bl-narration section.narration").evaluate((el) => getComputedStyle(el).borderLeftWidth);
  expect(border).toBe("4px");
  await embed.close();
});
