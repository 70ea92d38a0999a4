import { type Page } from "@playwright/test";
import { expect, test } from "./playground";
import { decodeShare } from "../../web/src/share/link";

// The app shell: keyboard stepping through ops and micro-steps, the theme,
// the stats chart, compare mode and the start page's look.
//
// Facts checked against the wasm engine (traceProgram in Node) for the default
// program on fitzgen-down (256-byte chunk at 0x10010): every alloc runs the
// bump-down algorithm's 4 recorded micro-steps in bump_down.rs, on lines 62
// (subtract the size), 70 (round down to the alignment), 74 (check the start)
// and 81 (bump). Op 2, `b = alloc u64`, rounds 0x10107 down to 0x10100.
const START = 0x10010;
const hex = (n: number) => `0x${n.toString(16)}`;

const counter = (page: Page) => page.locator(".step-counter");
const codeLine = (page: Page) => page.locator("#code-view .code-line.is-current");
const focusedName = (page: Page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    return el ? (el.getAttribute("aria-label") ?? el.textContent ?? "") : "";
  });


test("keyboard only: Tab to the controls, step ops and micro-steps, play and pause, Home and End", async ({ page }) => {
  // Tab from the top of the page until the stepper's First button has focus.
  let name = "";
  for (let i = 0; i < 60 && name !== "First"; i++) {
    await page.keyboard.press("Tab");
    name = await focusedName(page);
  }
  expect(name).toBe("First");
  await page.keyboard.press("Enter");
  await expect(counter(page)).toHaveText("op 0 / 6");

  // ←/→ go op by op, ending on the op's last micro-step (the bump, line 47).
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText("op 1 / 6");
  await expect(codeLine(page)).toHaveAttribute("data-line", "47");

  // Shift+→ enters op 2 at its first micro-step, then walks its lines.
  await page.keyboard.press("Shift+ArrowRight");
  await expect(counter(page)).toHaveText("op 2 / 6");
  await expect(codeLine(page)).toHaveAttribute("data-line", "28");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 1 of 4: subtract the size from the bump pointer");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(codeLine(page)).toHaveAttribute("data-line", "36");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 2 of 4: round down to the alignment (one mask)");
  // The values the step recorded, under its line, addresses in hex.
  const values = page.locator("#code-view .code-values");
  await expect(values).toContainText(`new_ptr = ${hex(START + 0xf0)}`);
  await expect(values).toContainText("align = 0x8");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(codeLine(page)).toHaveAttribute("data-line", "40");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(codeLine(page)).toHaveAttribute("data-line", "47");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 4 of 4: move the bump pointer down to the block");
  await expect(counter(page)).toHaveText("op 2 / 6");
  // Shift+← goes back a micro-step; at the op's first, into the previous op's end.
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(codeLine(page)).toHaveAttribute("data-line", "40");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Shift+ArrowLeft");
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(counter(page)).toHaveText("op 1 / 6");
  await expect(codeLine(page)).toHaveAttribute("data-line", "47");
  // Plain ← stays op by op.
  await page.keyboard.press("ArrowLeft");
  await expect(counter(page)).toHaveText("op 0 / 6");

  // On a focusable element that is not a button, Space plays and pauses.
  const code = page.getByRole("region", { name: "Algorithm" }).locator("pre.code");
  await code.focus();
  await page.keyboard.press("End");
  await expect(counter(page)).toHaveText("op 6 / 6");
  await page.keyboard.press("Home");
  await expect(counter(page)).toHaveText("op 0 / 6");
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Pause" })).toBeVisible();
  await page.keyboard.press(" ");
  await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
  // The description is one sentence, announced politely.
  await page.keyboard.press("End");
  await expect(page.locator(".step-description[aria-live=polite]")).toHaveText(`e: 16 bytes at ${hex(START + 0xa0)}, 12 bytes padding`);
});

test("the stepper: speeds, a tick per op, focus visible on its buttons", async ({ page }) => {
  const speed = page.getByRole("combobox", { name: "Speed" });
  await expect(speed.locator("option")).toHaveText(["0.5×", "1×", "2×", "4×"]);
  await speed.selectOption("4");
  await expect(speed).toHaveValue("4");
  await expect(page.locator("#step-ticks option")).toHaveCount(7);
  // Each button names the page-wide key that does the same.
  await expect(page.getByRole("button", { name: "Step forward" })).toHaveAttribute("aria-keyshortcuts", "ArrowRight");
  await expect(page.getByRole("button", { name: "Play" })).toHaveAttribute("aria-keyshortcuts", "Space");
  await page.getByRole("button", { name: "Last" }).focus();
  await page.keyboard.press("Shift+Tab");
  const outline = await page.getByRole("button", { name: "Step forward" }).evaluate((el) => getComputedStyle(el).outlineStyle);
  expect(outline).toBe("solid");
});

test("theme: the toggle switches the palette and is remembered", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  const bg = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
  await expect.poll(bg).toBe("rgb(244, 246, 248)");
  await page.getByRole("radio", { name: "Dark" }).check();
  await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
  await expect.poll(bg).toBe("rgb(14, 17, 22)");
  await page.reload();
  await expect(page.getByRole("radio", { name: "Dark" })).toBeChecked();
  await expect.poll(bg).toBe("rgb(14, 17, 22)");
  // Auto follows the system again.
  await page.getByRole("radio", { name: "Auto" }).check();
  await expect(page.locator("html")).not.toHaveAttribute("data-theme", /./);
  await expect.poll(bg).toBe("rgb(244, 246, 248)");
  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(bg).toBe("rgb(14, 17, 22)");
});

test("stats: counters and a chart of them; clicking the chart seeks", async ({ page }) => {
  await expect(page.locator('[data-stat="requested"]')).toHaveText("61 B");
  await expect(page.locator('[data-stat="copied"]')).toHaveText("0 B");
  const chart = page.getByRole("img", { name: /^Counters over 6 ops/ });
  await expect(chart).toBeVisible();
  await expect(chart.locator("path.series")).toHaveCount(4);
  await expect(chart.locator("line.marker")).toHaveAttribute("data-step", "6");
  const box = await chart.boundingBox();
  if (!box) throw new Error("the chart has no box");
  await chart.click({ position: { x: 4, y: box.height / 2 } });
  await expect(counter(page)).toHaveText("op 0 / 6");
  await expect(chart.locator("line.marker")).toHaveAttribute("data-step", "0");
  await expect(page.locator('[data-stat="requested"]')).toHaveText("0 B");
  // The third op of six sits half way along.
  await chart.click({ position: { x: box.width / 2, y: box.height / 2 } });
  await expect(counter(page)).toHaveText("op 3 / 6");
});

test("compare up vs down: two maps at the same step, the same block placed differently", async ({ page }) => {
  await page.getByRole("button", { name: /^Compare/ }).click();
  const columns = page.locator(".compare-column");
  await expect(columns).toHaveCount(2);
  // Each column by its heading: which one comes first is compare mode's choice.
  const column = (name: string) => columns.filter({ has: page.getByRole("heading", { name, exact: true }) });
  const up = column("hinckley-up");
  const down = column("fitzgen-down");
  // The mode stays in sight, pressed; the view's Exit compare (or Escape) leaves.
  await expect(page.getByRole("button", { name: /^Compare/ })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByRole("button", { name: "Exit compare" })).toHaveCount(1);
  await expect(page.locator("svg.memory-map:visible")).toHaveCount(2);
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  // Bumping up puts a at the chunk start; bumping down at its last byte.
  await expect(up.getByRole("img", { name: /^a:/ })).toHaveAccessibleName(`a: 1 byte at ${hex(START)}, align 1`);
  await expect(down.getByRole("img", { name: /^a:/ })).toHaveAccessibleName(`a: 1 byte at ${hex(START + 0xff)}, align 1`);
  // Stepping moves both columns.
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(up.getByRole("img", { name: /^b:/ })).toHaveAccessibleName(`b: 8 bytes at ${hex(START + 8)}, align 8, 7 bytes padding`);
  await expect(down.getByRole("img", { name: /^b:/ })).toHaveAccessibleName(`b: 8 bytes at ${hex(START + 0xf0)}, align 8, 7 bytes padding`);
  // Escape leaves: one map again.
  await page.getByRole("heading", { name: "Memory" }).click();
  await page.keyboard.press("Escape");
  await expect(columns).toHaveCount(0);
  await expect(page.locator("svg.memory-map:visible")).toHaveCount(1);
  await expect(page.getByRole("button", { name: /^Compare/ })).toBeVisible();
});

test.describe("modes and panels", () => {
  const modes = (page: Page) => page.getByRole("group", { name: "Mode" });
  const pressed = (page: Page) =>
    modes(page)
      .getByRole("button")
      .evaluateAll((els) => els.filter((e) => e.getAttribute("aria-pressed") === "true").map((e) => (e.textContent?.startsWith("Compare") ? "Compare" : e.textContent)));
  const look = (page: Page, name: string | RegExp) =>
    modes(page)
      .getByRole("button", { name })
      .evaluate((e) => {
        const css = getComputedStyle(e);
        return `${css.backgroundColor} ${css.color}`;
      });

  test("the header's mode toggle keeps the active mode pressed and visibly filled, and the shared panel's heading names it", async ({ page }) => {
    const heading = page.locator("#map-heading");
    await expect(modes(page).getByRole("button")).toHaveText(["Single run", /^Compare/, "Sweep"]);
    expect(await pressed(page)).toEqual(["Single run"]);
    await expect(heading).toHaveText("Memory");
    const idle = await look(page, "Sweep");

    await modes(page).getByRole("button", { name: /^Compare/ }).click();
    await expect(page.locator(".compare-column")).toHaveCount(2);
    expect(await pressed(page)).toEqual(["Compare"]);
    await expect(heading).toHaveText("Memory, side by side");
    await expect(page.getByRole("region", { name: "Memory, side by side" })).toBeVisible();
    // Pressed is filled: its colours differ from an idle button's.
    const active = await look(page, /^Compare/);
    expect(active).not.toBe(idle);
    expect(await look(page, "Single run")).toBe(idle);

    await modes(page).getByRole("button", { name: "Sweep", exact: true }).click();
    await expect(page.locator('[data-view="sweep"]')).toBeVisible();
    expect(await pressed(page)).toEqual(["Sweep"]);
    await expect(page.getByRole("region", { name: "Sweep: one run per value" })).toBeVisible();
    await expect(modes(page)).toBeVisible();
    expect(await look(page, "Sweep")).toBe(active);

    // Single run goes back, as Escape does.
    await modes(page).getByRole("button", { name: "Single run" }).click();
    await expect(page.locator('[data-view="sweep"]')).toHaveCount(0);
    expect(await pressed(page)).toEqual(["Single run"]);
    await expect(heading).toHaveText("Memory");
    // Pressing the active Compare again leaves it too.
    await modes(page).getByRole("button", { name: /^Compare/ }).click();
    await expect(page.locator(".compare-column")).toHaveCount(2);
    await modes(page).getByRole("button", { name: /^Compare/ }).click();
    await expect(page.locator(".compare-column")).toHaveCount(0);
    expect(await pressed(page)).toEqual(["Single run"]);
  });

  test("every panel is a region named by what it shows", async ({ page }) => {
    const names = await page
      .locator("main section.panel:visible")
      .evaluateAll((els) =>
        els.map((e) => {
          const by = e.getAttribute("aria-labelledby");
          return (by ? document.getElementById(by)?.textContent : e.getAttribute("aria-label")) ?? "";
        }),
      );
    expect(names).toEqual(["Program editor", "Memory", "Cost", "This step", "Algorithm"]);
    for (const name of names) await expect(page.getByRole("region", { name, exact: true })).toBeVisible();
    // Each named region with a heading shows it (the editor's name is its label's).
    for (const name of ["Memory", "Cost", "This step", "Algorithm"]) {
      await expect(page.getByRole("region", { name, exact: true }).getByRole("heading", { name, exact: true })).toBeVisible();
    }
  });
});

test.describe("share links", () => {
  // A v1 short link: hinckley-up, 64-bit, step 1 of a two-line program.
  const LINK = "v1?a=hinckley-up&t=64&s=1&p=a+=+alloc+1%0Ab+=+alloc+u64&end";

  test("a link opens its program, preset and step; stepping rewrites the hash", async ({ page }) => {
    await page.goto(`/#${LINK}`);
    await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("hinckley-up");
    await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram("a = alloc 1\nb = alloc u64");
    await expect(counter(page)).toHaveText("op 1 / 2");
    await expect(page.getByRole("img", { name: /^a:/ })).toHaveAccessibleName(`a: 1 byte at ${hex(START)}, align 1`);
    await page.getByRole("button", { name: "Step forward" }).click();
    await expect(counter(page)).toHaveText("op 2 / 2");
    await expect.poll(() => page.evaluate(() => window.location.hash)).toContain("s=2");
    // The rewritten hash opens the same state.
    const hash = await page.evaluate(() => window.location.hash);
    await page.goto(`/${hash}`);
    await page.reload();
    await expect(counter(page)).toHaveText("op 2 / 2");
    await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("hinckley-up");
  });

  test("a link taken at a micro-step reopens at that micro-step", async ({ page }) => {
    await page.getByRole("button", { name: "First" }).click();
    await page.getByRole("button", { name: "Step forward" }).click();
    await page.getByRole("heading", { name: "Memory" }).click();
    await page.keyboard.press("Shift+ArrowRight");
    await page.keyboard.press("Shift+ArrowRight");
    const micro = "Micro-step 2 of 4: round down to the alignment (one mask)";
    await expect(page.locator(".op-micro")).toHaveText(micro);
    await expect(counter(page)).toHaveText("op 2 / 6");
    await expect.poll(() => page.evaluate(() => window.location.hash)).toMatch(/&s=2&u=1&/);
    const hash = await page.evaluate(() => window.location.hash);
    // A fresh page on the link: same op, same micro-step, the code on its line.
    const other = await page.context().newPage();
    await other.goto(`/${hash}`);
    await expect(other.locator(".step-counter")).toHaveText("op 2 / 6");
    await expect(other.locator(".op-micro")).toHaveText(micro);
    await expect(other.locator("#code-view .code-line.is-current")).toContainText("round_down");
    await other.close();
    // Stepping to the op's end drops the key again.
    await page.keyboard.press("ArrowRight");
    await expect.poll(() => page.evaluate(() => window.location.hash)).not.toContain("u=");
  });

  test("a link with compare columns opens compare mode", async ({ page }) => {
    await page.goto("/#v1?a=fitzgen-down&t=64&s=1&x=hinckley-up:64:-:-,fitzgen-down:64:-:-&p=a+=+alloc+1&end");
    const columns = page.locator(".compare-column");
    await expect(columns).toHaveCount(2);
    await expect(columns.nth(0).getByRole("img", { name: /^a:/ })).toHaveAccessibleName(`a: 1 byte at ${hex(START)}, align 1`);
    await expect(columns.nth(1).getByRole("img", { name: /^a:/ })).toHaveAccessibleName(`a: 1 byte at ${hex(START + 0xff)}, align 1`);
  });

  test("the Share panel opens with Space, not playback, and Escape closes it", async ({ page }) => {
    const summary = page.locator("summary", { hasText: "Share" });
    await summary.focus();
    await page.keyboard.press(" ");
    await expect(page.getByRole("button", { name: "Copy link" })).toBeVisible();
    await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
    await page.keyboard.press("Escape");
    await expect(page.getByRole("button", { name: "Copy link" })).toBeHidden();
    await expect(summary).toBeFocused();
  });

  test("an in-page anchor is a jump, not a share link", async ({ page }) => {
    const hash = () => page.evaluate(() => window.location.hash);
    await expect.poll(hash).toMatch(/^#v1\?/);
    await page.getByRole("link", { name: "how counted" }).click();
    await expect.poll(hash).toBe("#cost-model");
    await expect(page.locator("#cost-model")).toBeInViewport();
    await expect(page.locator("#notice")).toBeHidden();
    // Stepping writes the share link again.
    await page.getByRole("button", { name: "Step back" }).click();
    await expect.poll(hash).toMatch(/^#v1\?.*&s=5&/);
  });

  test("a broken link says why and keeps the default program", async ({ page }) => {
    await page.goto("/#v1?a=hinckley-up&t=128&p=a+=+alloc+1&end");
    await expect(page.locator("#notice")).toContainText("Cannot open this link:");
    await expect(page.locator("#notice")).toContainText('"t" must be 64 or wasm32');
    await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram(/^a = alloc 1\nb = alloc u64\n/);
    await expect(page.getByRole("combobox", { name: "Allocator" })).toHaveValue("fitzgen-down");
    await page.locator("#notice").getByRole("button", { name: "Dismiss" }).click();
    await expect(page.locator("#notice")).toBeHidden();
  });
});

test.describe("lessons and predict mode", () => {
  // The lesson "Why bumping down needs fewer instructions" (model/lessons.ts):
  // fitzgen-down, wasm32, 256 bytes; `a = alloc u8` lands at 0x1010f and the
  // narration asks `?predict` before `b = alloc u64` (0x10100).
  const narration = (page: Page) => page.locator(".narration-body");

  async function openLesson(page: Page): Promise<void> {
    await page.getByRole("button", { name: "Programs" }).click();
    await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
    await expect(page.getByRole("textbox", { name: "Program" })).toHaveProgram(/^# Lesson: why bumping down/);
    await expect(counter(page)).toHaveText("op 0 / 5");
  }

  test("a lesson opens at op 0; its narration changes per step; autoplay stops where it asks a question", async ({ page }) => {
    await openLesson(page);
    await page.getByRole("button", { name: "Play" }).click();
    // Playback stops by itself after a: the next op asks where b will land.
    await expect(page.getByRole("button", { name: "Play" })).toBeVisible();
    await expect(counter(page)).toHaveText("op 1 / 5");
    await expect(narration(page)).toContainText("the chunk's very last byte, 0x1010f");
    await expect(page.getByRole("slider", { name: "Where will b land?" })).toBeVisible();
    await page.getByRole("button", { name: "Step forward" }).click();
    await expect(counter(page)).toHaveText("op 2 / 5");
    await expect(narration(page)).toContainText("rounds it down to 0x10100");
    await expect(narration(page)).not.toContainText("very last byte");
    // The share link (compressed: the program is long) carries the lesson and
    // the step, and reopens there.
    const shared = async () => {
      const decoded = await decodeShare((await page.evaluate(() => window.location.hash)).slice(1));
      return decoded.ok ? { lesson: decoded.state.lesson, step: decoded.state.step } : null;
    };
    await expect.poll(shared).toEqual({ lesson: "bump-down", step: 2 });
    await page.reload();
    await expect(counter(page)).toHaveText("op 2 / 5");
    await expect(page.locator("section.narration").getByRole("heading", { name: "Why bumping down needs fewer instructions" })).toBeVisible();
    await expect(narration(page)).toContainText("rounds it down to 0x10100");
  });

  test("a narration's !highlight marks the blocks it names on the map", async ({ page }) => {
    const source = ["a = alloc 8", "#> `b` goes below `a`.", "#> !highlight a", "b = alloc 8", "c = alloc 8"].join("\n");
    await page.getByRole("textbox", { name: "Program" }).fill(source);
    await page.getByRole("button", { name: "Last" }).click();
    await expect(counter(page)).toHaveText("op 3 / 3");
    const block = (name: string) => page.locator(`svg.memory-map g[data-block="${name}"]`);
    // Op 3 has no narration: only its own block is marked.
    await expect(block("c")).toHaveClass(/is-current/);
    await expect(block("a")).not.toHaveClass(/is-current/);
    await page.getByRole("button", { name: "Step back" }).click();
    await expect(narration(page)).toHaveText("b goes below a.");
    await expect(block("b")).toHaveClass(/is-current/);
    // Named by the narration, marked apart from the op's own block.
    await expect(block("a")).toHaveClass(/is-highlight/);
    await expect(block("a")).not.toHaveClass(/is-current/);
  });

  test("predict mode from the header: → moves a wrong guess without stepping, Enter answers, then → steps", async ({ page }) => {
    await page.getByRole("button", { name: "First" }).click();
    const predict = page.getByRole("button", { name: "Predict", exact: true });
    await predict.click();
    await expect(predict).toHaveAttribute("aria-pressed", "true");
    const strip = page.getByRole("slider", { name: "Where will a land?" });
    const box = await strip.boundingBox();
    if (!box) throw new Error("the strip has no box");
    // The strip's far left is the chunk start; bumping down, a lands at its last byte.
    await strip.click({ position: { x: 12, y: box.height / 2 } });
    await predict.focus();
    await page.keyboard.press("ArrowRight");
    await expect(counter(page)).toHaveText("op 0 / 6");
    await expect(page.locator(".predict-pick")).toHaveText(/^Your guess: 0x100[0-9a-f]{2}\.$/);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.keyboard.press("Enter");
    await expect(counter(page)).toHaveText("op 0 / 6");
    await expect(page.locator(".predict-result")).toContainText("Wrong: you picked");
    await expect(page.locator(".predict-result")).toContainText(`a lands at ${hex(START + 0xff)}`);
    await page.keyboard.press("ArrowRight");
    await expect(counter(page)).toHaveText("op 1 / 6");
    await expect(page.getByRole("slider", { name: "Where will b land?" })).toBeVisible();
    await expect(page.locator(".predict-result")).not.toContainText("Wrong");
  });
});

/**
 * Each block's body and padding where its address and size put them, worked
 * out here from the numbers (not by the map's layout code): the one 256-byte
 * chunk, START to START + 256, is drawn to scale across the map's width less
 * its 34 px margin on each side (the room the pointer and the axis's end
 * labels need), so byte k of the chunk is k / 256 of the way along the bar.
 * Bumping down, a block's padding is the bytes between its end and where the
 * bump pointer stood before it. A block of a few bytes is still wider than
 * the map's 3 px minimum here (a 1-byte block is 4.7 px), so none is widened.
 */
async function expectBlocksToScale(page: Page, labels: readonly string[]): Promise<void> {
  const CHUNK = 256;
  const MARGIN_PX = 34;
  const drawn = await page.locator("svg.memory-map").evaluate((svg: SVGSVGElement) => {
    const box = (e: Element | null) => {
      const r = e?.getBoundingClientRect();
      return r ? { x: r.x, width: r.width } : null;
    };
    return {
      svg: box(svg),
      viewBoxWidth: svg.viewBox.baseVal.width,
      blocks: [...svg.querySelectorAll("g[data-block]")].map((g) => ({
        name: g.getAttribute("data-block"),
        body: box(g.querySelector("rect.body")),
        pad: box(g.querySelector("rect.pad")),
      })),
    };
  });
  if (!drawn.svg) throw new Error("the map has no box");
  // The svg's user units in CSS pixels (1 at this viewport; kept general).
  const unit = drawn.svg.width / drawn.viewBoxWidth;
  const barX = drawn.svg.x + MARGIN_PX * unit;
  const barWidth = drawn.svg.width - 2 * MARGIN_PX * unit;
  const at = (address: number) => barX + ((address - START) / CHUNK) * barWidth;
  const want = labels.map((label) => {
    const m = /^(\w+): (\d+) bytes? at 0x([0-9a-f]+), align \d+(?:, (\d+) bytes padding)?/.exec(label);
    if (!m) throw new Error(`not a block's label: ${label}`);
    const [name, size, address, padding] = [m[1], Number(m[2]), parseInt(m[3] ?? "", 16), Number(m[4] ?? 0)];
    return {
      name,
      body: { x: at(address), width: at(address + size) - at(address) },
      pad: { x: at(address + size), width: at(address + size + padding) - at(address + size) },
    };
  });
  expect(drawn.blocks.map((b) => b.name)).toEqual(want.map((w) => w.name));
  drawn.blocks.forEach((b, i) => {
    const w = want[i];
    if (!w || !b.body || !b.pad) throw new Error(`block ${b.name} has no body or padding rectangle`);
    // Within a twentieth of a pixel: a block one byte off is 4.7 px off.
    expect(b.body.x, `${b.name}'s x`).toBeCloseTo(w.body.x, 1);
    expect(b.body.width, `${b.name}'s width`).toBeCloseTo(w.body.width, 1);
    // No padding: an empty rectangle, wherever it stands.
    if (w.pad.width > 0) expect(b.pad.x, `${b.name}'s padding's x`).toBeCloseTo(w.pad.x, 1);
    expect(b.pad.width, `${b.name}'s padding's width`).toBeCloseTo(w.pad.width, 1);
  });
}

test.describe("golden screenshots", () => {
  // The start page as a first-time visitor sees it, in both themes. Animations
  // off. The images must match pixel for pixel (a pixel counts as changed past
  // Playwright's default colour threshold, which lets anti-aliased edges vary
  // in shade): a ratio of 2% lets about 20,000 pixels change, enough for a
  // map drawn 15 px narrower and new instruction counts to pass. A new
  // Chromium that renders text differently needs the images re-taken
  // (--update-snapshots) after a look at the diff.
  for (const scheme of ["light", "dark"] as const) {
    test(`start page, ${scheme}`, async ({ page }) => {
      await page.emulateMedia({ reducedMotion: "reduce", colorScheme: scheme });
      await page.setViewportSize({ width: 1280, height: 800 });
      await page.reload();
      await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(5);
      await expect(counter(page)).toHaveText("op 6 / 6");
      // The numbers and labels the image shows, and where each block is drawn,
      // are asserted here too, so a failure names what changed.
      const blocks = page.locator("svg.memory-map g[data-block]");
      const labels = [
        "e: 16 bytes at 0x100b0, align 16, 12 bytes padding",
        "d: 20 bytes at 0x100cc, align 4",
        "c: 24 bytes at 0x100e0, align 16, 8 bytes padding",
        "b: 8 bytes at 0x10100, align 8, 7 bytes padding, freed, not reclaimed",
        "a: 1 byte at 0x1010f, align 1",
      ];
      await expect(blocks.evaluateAll((els) => els.map((e) => e.getAttribute("aria-label")))).resolves.toEqual(labels);
      await expectBlocksToScale(page, labels);
      const map = page.locator("svg.memory-map");
      await expect(map).toContainText("chunk 0 · 256 B usable · first chunk, made up front");
      await expect(map).toContainText("96 / 256 B used");
      await expect(map).toContainText("bump ptr 0x100b0");
      const stats = page.locator("#stats").first();
      for (const [label, value] of [
        ["Requested", "61 B"],
        ["Used", "96 B"],
        ["Padding", "27 B"],
        ["Leaked", "8 B"],
        ["Unused", "160 B"],
        ["Chunks", "1"],
        ["Utilisation", "23.8%"],
      ] as const) {
        await expect(stats).toContainText(`${label}${value}`);
      }
      await expect(page).toHaveScreenshot(`start-${scheme}.png`, { maxDiffPixels: 0, animations: "disabled" });
    });
  }

  test("this step and the algorithm at a micro-step, dark", async ({ page }) => {
    await page.emulateMedia({ reducedMotion: "reduce", colorScheme: "dark" });
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.getByRole("button", { name: "First" }).click();
    await page.getByRole("button", { name: "Step forward" }).click();
    await page.getByRole("heading", { name: "Memory" }).click();
    await page.keyboard.press("Shift+ArrowRight");
    await page.keyboard.press("Shift+ArrowRight");
    await expect(page.locator(".op-micro")).toHaveText("Micro-step 2 of 4: round down to the alignment (one mask)");
    const detail = page.locator("#detail-grid");
    await expect(detail).toContainText("cost 20 wasm instructions · 2 conditional branches (fast path)");
    await expect(detail).toContainText("global allocator (dlmalloc, wasm32): 84 instructions");
    await expect(detail).toContainText("layout typed u64: size and alignment known at compile time, as in bump.alloc(value) for a u64");
    await expect(detail).toContainText("placed 8 bytes at 0x10100 (chunk 0, offset 240)");
    await expect(detail).toContainText("padding 7 bytes of padding before the block");
    await expect(detail).toContainText("let new_ptr = new_ptr & !(align - W::ONE); // step: round_down");
    await expect(detail).toHaveScreenshot("micro-step-dark.png", { maxDiffPixels: 0, animations: "disabled" });
  });
});

test.describe("a phone, 390 × 844", () => {
  test.use({ viewport: { width: 390, height: 844 } });

  /** The memory map's top from the top of the page (not of the scrolled viewport). */
  const mapTop = (page: Page) =>
    page.locator("#memory-map svg.memory-map").evaluate((e) => Math.round(e.getBoundingClientRect().top + window.scrollY));

  test("the memory map starts on the first screen, on first load and in a lesson", async ({ page }) => {
    const first = await mapTop(page);
    expect(first).toBeGreaterThan(0);
    expect(first).toBeLessThan(844);
    // The editor follows the map on a phone.
    const editorTop = await page.getByRole("region", { name: "Program editor" }).evaluate((e) => e.getBoundingClientRect().top + window.scrollY);
    expect(editorTop).toBeGreaterThan(first);

    await page.getByRole("button", { name: "Programs" }).click();
    await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
    await expect(page.locator("section.narration").getByRole("heading", { name: "Why bumping down needs fewer instructions" })).toBeVisible();
    await expect(page.locator("#memory-map svg.memory-map")).toBeVisible();
    const inLesson = await mapTop(page);
    expect(inLesson).toBeLessThan(844);
  });

  test("a narration longer than its box fades at the foot until it is scrolled to its end", async ({ page }) => {
    const paragraph = `#> ${"A bump allocator hands out memory by moving one pointer, and this sentence is long. ".repeat(3)}`;
    await page.getByRole("textbox", { name: "Program" }).fill([paragraph, "#>", paragraph, "#>", paragraph, "a = alloc 8", "b = alloc 16", ""].join("\n"));
    await expect(counter(page)).toHaveText("op 2 / 2");
    await page.locator("body").click({ position: { x: 2, y: 2 } });
    await page.keyboard.press("Home");
    await page.keyboard.press("ArrowRight");
    const box = page.locator(".narration-mount");
    await expect(box).toContainText("A bump allocator hands out memory");
    const fade = () => box.evaluate((m) => getComputedStyle(m, "::after").opacity);
    expect(await box.evaluate((m) => m.scrollHeight - m.clientHeight)).toBeGreaterThan(100);
    await expect.poll(fade).toBe("1");
    await box.evaluate((m) => (m.scrollTop = m.scrollHeight));
    await expect.poll(fade).toBe("0");
    // A narration that fits its box has no fade.
    await page.getByRole("textbox", { name: "Program" }).fill("#> Short.\na = alloc 8\n");
    await expect(counter(page)).toHaveText(/ \/ 1$/);
    await page.locator("body").click({ position: { x: 2, y: 2 } });
    await page.keyboard.press("End");
    await expect(box).toContainText("Short.");
    expect(await box.evaluate((m) => m.scrollHeight - m.clientHeight)).toBe(0);
    await expect.poll(fade).toBe("0");
  });

  test("every chunk row's title clears its fill: five-digit capacities shorten the title to the chunk alone", async ({ page }) => {
    await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
    await page.getByRole("textbox", { name: "Program" }).fill("repeat 2500 {\n  a = alloc 8\n  c = alloc u64\n}\n");
    await expect(counter(page)).toHaveText("op 5000 / 5000", { timeout: 20_000 });
    const rows = await page.locator("#memory-map g.chunk-row").evaluateAll((gs) =>
      gs.map((g) => {
        const title = g.querySelector<SVGTextElement>("text.row-title");
        const fill = g.querySelector<SVGTextElement>("text.row-fill");
        const t = title?.getBoundingClientRect();
        const f = fill?.getBoundingClientRect();
        return { title: title?.textContent ?? "", fill: fill?.textContent ?? "", gap: t && f ? Math.round(f.left - t.right) : NaN };
      }),
    );
    expect(rows.length).toBeGreaterThanOrEqual(6);
    for (const r of rows) expect(r.gap, `"${r.title}" beside "${r.fill}"`).toBeGreaterThanOrEqual(4);
    // A row whose capacity has five digits has room for its name alone; the fill gives the capacity.
    const wide = rows.find((r) => /\/ \d{5} B used$/.test(r.fill));
    expect(wide?.title).toMatch(/^chunk \d+$/);
  });
});

test.describe("a touch screen, 390 × 844", () => {
  test.use({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });

  /** Visible text that names keys to press: arrows, Shift+, Ctrl+, Home/End keycaps. */
  const keyHints = (page: Page) =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>("body *")]
        .filter((e) => e.checkVisibility() && [...e.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && /[←→]|Shift\\+|Ctrl\\+|press Enter/.test(n.textContent ?? "")))
        .map((e) => e.textContent?.trim() ?? "")
        .concat([...document.querySelectorAll("kbd")].filter((k) => k.checkVisibility()).map((k) => `kbd ${k.textContent}`)),
    );

  test("no keyboard hints are shown, on first load and in a lesson", async ({ page }) => {
    // The hints exist for a keyboard: they are in the page, only not shown.
    await expect(page.locator(".step-keys")).toHaveCount(1);
    await expect(page.locator(".step-keys")).toBeHidden();
    expect(await keyHints(page)).toEqual([]);
    await page.getByRole("button", { name: "Programs" }).tap();
    await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).tap();
    await expect(page.locator("section.narration").getByRole("heading", { name: "Why bumping down needs fewer instructions" })).toBeVisible();
    await page.getByRole("button", { name: "Step forward" }).tap();
    expect(await keyHints(page)).toEqual([]);
  });
});
