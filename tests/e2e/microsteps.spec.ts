import { type Locator, type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Micro-steps drawn on the map. Addresses checked against the engine in
// web/src/model/microMap.test.ts: fitzgen-down, one 256-byte chunk at
// 0x10010..0x10110; `a = alloc u8` takes 0x1010f; `b = alloc u64` subtracts
// 8 (0x10107), rounds down to 0x10100 (7 bytes of padding, 0x10108..0x1010e),
// checks the start, then bumps.
const START = 0x10010;
const CAPACITY = 256;
const hex = (n: number) => `0x${n.toString(16)}`;

const counter = (page: Page) => page.locator(".step-counter");
const block = (page: Page, name: string) => page.locator(`svg.memory-map g.chunk-row g[data-block="${name}"]`);
const ghost = (page: Page) => page.locator("svg.memory-map g.chunk-row g.ptr-ghost");
const bumpPtr = (page: Page) => page.locator("svg.memory-map g.bump-pointer");
const pendingPad = (page: Page) => page.locator("svg.memory-map g.chunk-row rect.pending-pad");
const microSteps = (page: Page) => page.getByRole("list", { name: "Micro-steps of the algorithm" }).locator("li");
// The map eases the pointer and blocks to their places: positions are polled until drawn.
const num = async (l: Locator, attr: string): Promise<number> => Number(await l.getAttribute(attr));

async function load(page: Page, source: string, allocator: string): Promise<void> {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption(allocator);
  await page.getByRole("textbox", { name: "Program" }).fill(source);
  await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
  await page.getByRole("button", { name: "First" }).click();
  await expect(counter(page)).toHaveText(/^op 0 \//);
}

/** The x the map's axis gives `address` in the first row: the usable bytes' rectangle spans start..start + capacity. */
async function axisX(page: Page, address: number): Promise<number> {
  const free = page.locator("svg.memory-map g.chunk-row").first().locator("rect.chunk-free");
  const x0 = await num(free, "x");
  const w = await num(free, "width");
  return x0 + ((address - START) / CAPACITY) * w;
}

test("micro-step 1 of a bump-down alloc draws the pointer at ptr − size", async ({ page }) => {
  await load(page, "a = alloc u8\nb = alloc u64", "fitzgen-down");
  await page.keyboard.press("ArrowRight");
  await expect(counter(page)).toHaveText("op 1 / 2");
  await expect(ghost(page)).toBeHidden();

  // Into b's first micro-step: the code has subtracted the size and nothing else.
  await page.keyboard.press("Shift+ArrowRight");
  await expect(counter(page)).toHaveText("op 2 / 2");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 1 of 4: subtract the size from the bump pointer");
  await expect(ghost(page)).toBeVisible();
  await expect(ghost(page)).toHaveAttribute("data-address", String(0x10107));
  await expect(ghost(page)).toHaveAccessibleName("new_ptr holds 0x10107: not yet the bump pointer");
  await expect(ghost(page).locator("text")).toHaveText("new_ptr 0x10107");
  {
    const want = await axisX(page, 0x10107);
    await expect.poll(() => num(ghost(page).locator("line"), "x1")).toBeCloseTo(want, 1);
  }
  // The bump pointer has not moved, b is not placed, no padding yet.
  await expect(bumpPtr(page)).toHaveAttribute("data-address", String(0x1010f));
  {
    const want = await axisX(page, 0x1010f);
    await expect.poll(() => num(bumpPtr(page).locator("line.ptr-line"), "x1")).toBeCloseTo(want, 1);
  }
  await expect(block(page, "b")).toHaveCount(0);
  await expect(block(page, "a")).toHaveCount(1);
  await expect(pendingPad(page)).toBeHidden();
  // The step list shows what ran and hides what has not.
  await expect(microSteps(page)).toHaveCount(4);
  await expect(microSteps(page).nth(0).locator(".values")).toBeVisible();
  await expect(microSteps(page).nth(0).locator(".values")).toContainText("new_ptr 0x10107");
  for (const i of [1, 2, 3]) {
    await expect(microSteps(page).nth(i).locator(".values")).toBeHidden();
    await expect(microSteps(page).nth(i).locator(".step-pending")).toHaveText("not run yet");
  }
  // Nor does anything else say where b lands before it does.
  await expect(page.locator(".op-details")).not.toContainText("0x10100", { useInnerText: true });
  await expect(page.locator(".op-details [data-kind=placed]")).toBeHidden();
  await expect(page.locator("#stepper")).not.toContainText("0x10100", { useInnerText: true });
  // The counters follow the map: a's 1 byte in use, no padding yet.
  await expect(page.locator('dd[data-stat="used"]')).toHaveText("1 B");
  await expect(page.locator('dd[data-stat="padding"]')).toHaveText("0 B");

  // Micro-step 2: the mask rounds down; the padding is decided, the block still not placed.
  await page.keyboard.press("Shift+ArrowRight");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 2 of 4: round down to the alignment (one mask)");
  await expect(ghost(page)).toHaveAttribute("data-address", String(0x10100));
  {
    const want = await axisX(page, 0x10100);
    await expect.poll(() => num(ghost(page).locator("line"), "x1")).toBeCloseTo(want, 1);
  }
  await expect(pendingPad(page)).toBeVisible();
  await expect(pendingPad(page)).toHaveAttribute("data-padding-start", String(0x10108));
  await expect(pendingPad(page)).toHaveAttribute("data-bytes", "7");
  {
    const want = await axisX(page, 0x10108);
    await expect.poll(() => num(pendingPad(page), "x")).toBeCloseTo(want, 1);
  }
  {
    const want = (await axisX(page, 0x1010f)) - (await axisX(page, 0x10108));
    await expect.poll(() => num(pendingPad(page), "width")).toBeCloseTo(want, 1);
  }
  await expect(block(page, "b")).toHaveCount(0);
  await expect(microSteps(page).nth(1).locator(".values")).toContainText("new_ptr 0x10100");
  await expect(microSteps(page).nth(2).locator(".values")).toBeHidden();

  // Micro-step 4, the bump: the op's end. b is placed, the pointer moved, the ghost gone.
  await page.keyboard.press("Shift+ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 4 of 4: move the bump pointer down to the block");
  await expect(ghost(page)).toBeHidden();
  await expect(pendingPad(page)).toBeHidden();
  await expect(block(page, "b")).toHaveAttribute("data-address", String(0x10100));
  await expect(block(page, "b")).toHaveAttribute("data-padding", "7");
  await expect(bumpPtr(page)).toHaveAttribute("data-address", String(0x10100));
  for (const i of [0, 1, 2, 3]) await expect(microSteps(page).nth(i).locator(".values")).toBeVisible();
  await expect(page.locator(".op-details [data-kind=placed]")).toHaveText("placed 8 bytes at 0x10100 (chunk 0, offset 240)");
  await expect(page.locator('dd[data-stat="used"]')).toHaveText("16 B");
  await expect(page.locator('dd[data-stat="padding"]')).toHaveText("7 B");

  // Back a micro-step: b is unplaced again.
  await page.keyboard.press("Shift+ArrowLeft");
  await expect(block(page, "b")).toHaveCount(0);
  await expect(bumpPtr(page)).toHaveAttribute("data-address", String(0x1010f));
  await expect(ghost(page)).toHaveAttribute("data-address", String(0x10100));
});

test("a failed capacity check draws the ghost pinned below the chunk", async ({ page }) => {
  await load(page, "a = alloc u8\nc = alloc [u8; 300]", "fitzgen-down");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  const below = 0x1010f - 300;
  await expect(ghost(page)).toHaveAttribute("data-address", String(below));
  await expect(ghost(page)).toHaveAttribute("data-outside", "below");
  await expect(ghost(page)).toHaveAccessibleName(`new_ptr holds ${hex(below)}, below the chunk: not yet the bump pointer`);
  {
    const want = await axisX(page, START);
    await expect.poll(() => num(ghost(page).locator("line"), "x1")).toBeCloseTo(want, 1);
  }
});

test("a 1-byte block has a visible box", async ({ page }) => {
  // Bumper's buffer is 1 MiB: at 1× one byte is a thousandth of a pixel.
  await load(page, "a = alloc u8\nb = alloc u64", "bumper-alloc-buffer");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(page.locator("svg.memory-map")).toHaveAttribute("data-zoom", "1");
  const body = block(page, "a").locator("rect.body");
  {
    const want = 3;
    await expect.poll(() => num(body, "width")).toBeGreaterThanOrEqual(want);
  }
  const box = await body.boundingBox();
  expect(box?.width ?? 0).toBeGreaterThanOrEqual(3);
  // Its name still gives its true extent.
  await expect(block(page, "a")).toHaveAccessibleName(/^a: 1 byte at 0x10010/);
});

test("a narration's !highlight is marked apart from the current op's border", async ({ page }) => {
  await load(page, ["a = alloc u8", "#> `b` goes below `a`.", "#> !highlight a", "b = alloc u64"].join("\n"), "fitzgen-down");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(block(page, "a")).toHaveClass(/is-highlight/);
  await expect(block(page, "a")).not.toHaveClass(/is-current/);
  await expect(block(page, "b")).toHaveClass(/is-current/);
  await expect(block(page, "b")).not.toHaveClass(/is-highlight/);
  const style = (l: Locator) =>
    l.evaluate((el) => {
      const s = getComputedStyle(el);
      return { display: s.display, stroke: s.stroke, dash: s.strokeDasharray };
    });
  const ring = await style(block(page, "a").locator("rect.hl"));
  const border = await style(block(page, "b").locator("rect.body"));
  expect(ring.display).not.toBe("none");
  expect((await style(block(page, "b").locator("rect.hl"))).display).toBe("none");
  expect(ring.stroke).not.toBe(border.stroke);
  expect(ring.dash).not.toBe(border.dash);
});

test("the map's top does not move when the narration's length changes", async ({ page }) => {
  await page.getByRole("button", { name: "Programs" }).click();
  await page.getByRole("menuitem", { name: "Why bumping down needs fewer instructions" }).click();
  const body = page.locator(".narration-body");
  const map = page.locator("svg.memory-map");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(body).toContainText("very last byte, 0x1010f");
  // In the page's coordinates: a click on a step button may scroll the window.
  const top = () => map.evaluate((el) => el.getBoundingClientRect().top + window.scrollY);
  const first = { text: (await body.textContent()) ?? "", y: await top() };
  // Step 3's narration is one line, step 1's five.
  await page.getByRole("button", { name: "Step forward" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(body).toContainText("0x10100 − 16 = 0x100f0");
  const third = { text: (await body.textContent()) ?? "", y: await top() };
  expect(third.text.length).toBeLessThan(first.text.length / 2);
  expect(first.y).toBeDefined();
  expect(third.y).toBe(first.y);
});

test("bumping up, each micro-step before the bump moves something on the map: padding, then b's place, then the room checked", async ({ page }) => {
  // hinckley-up, a 256-byte chunk 0x10010..0x10110 (web/src/model/microMap.test.ts):
  // a takes 0x10010; b needs 7 bytes of padding, padding + size = 15, and the
  // check compares that against the 255 bytes from the pointer to the end.
  await page.getByRole("combobox", { name: "Capacity" }).selectOption("256");
  await load(page, "a = alloc u8\nb = alloc u64", "hinckley-up");
  const place = page.locator("svg.memory-map g.chunk-row g.pending-block");
  const room = page.locator("svg.memory-map g.chunk-row g.room-check");
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("Shift+ArrowRight");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 1 of 4: padding needed to reach the alignment");
  await expect(pendingPad(page)).toHaveAttribute("data-padding-start", String(0x10011));
  await expect(place).toBeHidden();
  await expect(room).toBeHidden();

  await page.keyboard.press("Shift+ArrowRight");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 2 of 4: padding plus size (cannot overflow: the Layout bound)");
  await expect(place).toBeVisible();
  await expect(place).toHaveAttribute("data-address", String(0x10018));
  await expect(place).toHaveAccessibleName("b will take 8 bytes at 0x10018: decided, not placed yet");
  {
    const want = await axisX(page, 0x10018);
    await expect.poll(() => num(place.locator("rect"), "x")).toBeCloseTo(want, 1);
  }
  await expect(block(page, "b")).toHaveCount(0);
  await expect(room).toBeHidden();

  await page.keyboard.press("Shift+ArrowRight");
  await expect(page.locator(".op-micro")).toHaveText("Micro-step 3 of 4: fits in the room left before the end");
  await expect(room).toBeVisible();
  await expect(room).toHaveAttribute("data-lo", String(0x10011));
  await expect(room).toHaveAttribute("data-hi", String(0x10110));
  await expect(room).toHaveAttribute("data-fits", "true");
  await expect(room.locator("text")).toHaveText("255 B from ptr to the chunk's end: fits");
  await expect(block(page, "b")).toHaveCount(0);

  await page.keyboard.press("Shift+ArrowRight");
  await expect(block(page, "b")).toHaveAttribute("data-address", String(0x10018));
  await expect(place).toBeHidden();
  await expect(room).toBeHidden();
});
