import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { JSHandle, Page } from "@playwright/test";
import { recording } from "../../web/src/test/recording";
import { expect, test } from "./playground";

// A program opened from a file (dropped on the page, or chosen with "Open
// file…") or pasted, at the scale of a real program's recording: a million
// ops in the recorder's shape is about 20 MB of text. The generator keeps
// the bytes its live blocks asked for, which the Requested counter must show
// after the last op, computed without the engine.

const counter = (page: Page) => page.locator(".step-counter");
const program = (page: Page) => page.getByRole("textbox", { name: "Program" });
const status = (page: Page) => page.locator("#program-import-status");
const requested = (page: Page) => page.locator('[data-stat="requested"]');

let dir: string;
test.beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "bumplab-import-"));
});
test.afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A DataTransfer in the page holding `text` as a file named `name`, as a drag from the desktop carries. */
function fileTransfer(page: Page, text: string, name: string): Promise<JSHandle<DataTransfer>> {
  return page.evaluateHandle(
    ([body, file]) => {
      const transfer = new DataTransfer();
      transfer.items.add(new File([body], file, { type: "text/plain" }));
      return transfer;
    },
    [text, name] as const,
  );
}

// Generating, dropping and tracing a million ops takes tens of seconds on a busy 2-core machine.
test.setTimeout(240_000);

test("a recording of a million lines dropped on the page runs, steps, drags to the op where the hand stops, and takes a typed line", async ({ page }) => {
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  const rec = recording(1_000_000);
  const path = join(dir, "recording.txt");
  writeFileSync(path, rec.text);
  expect(rec.text.length).toBeGreaterThan(20_000_000);

  const transfer = await fileTransfer(page, rec.text, "recording.txt");
  // While a file is dragged over the page, a drop target says where it goes.
  await page.dispatchEvent("body", "dragenter", { dataTransfer: transfer });
  const target = page.locator(".drop-target");
  await expect(target).toBeVisible();
  await expect(target).toHaveText("Drop a program file to open it");
  await page.dispatchEvent("body", "drop", { dataTransfer: transfer });
  await expect(target).toBeHidden();

  await expect(counter(page)).toHaveText("op 1000000 / 1000000", { timeout: 180_000 });
  await expect(status(page)).toHaveText("Opened recording.txt (20.4 MB).");
  // The editor holds the whole recording, editable; it draws the lines in view.
  await expect(program(page)).toHaveProgram(rec.text, { timeout: 30_000 });
  await expect(program(page)).toContainText("# Recorded by bumplab-record 0.1.0");
  await expect(program(page)).toHaveAttribute("contenteditable", "true");
  // Costs are measured up to 100,000 ops: the page says so rather than leave them missing.
  await expect(page.locator("body")).toContainText("costs are measured for programs of up to 100,000 ops, and this one runs 1,000,000", { timeout: 60_000 });

  // Step to the start and back to the last op with the keys.
  await page.locator("body").click({ position: { x: 2, y: 2 } });
  await page.keyboard.press("Home");
  await expect(counter(page)).toHaveText("op 0 / 1000000");
  await expect(requested(page)).toHaveText("0 B");
  await page.keyboard.press("End");
  await expect(counter(page)).toHaveText("op 1000000 / 1000000", { timeout: 30_000 });
  await expect(requested(page)).toHaveText(`${rec.requested} B`);
  const lastLine = rec.text.trimEnd().split("\n").length;
  // The op in view's line is scrolled into view and marked, a million lines down.
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-current")).toHaveText(String(lastLine));
  await expect(page.locator(".cm-content .code-line.is-current")).toHaveAttribute("data-line", String(lastLine));

  // Dragged by hand along the scrubber and released: the counter, the editor's
  // marked line and the Requested counter agree on the op where the hand
  // stopped. One op a line, so op k is on line lastLine - (ops - k).
  const box = await page.locator("#step").boundingBox();
  if (!box) throw new Error("the scrubber is not on screen");
  const y = box.y + box.height / 2;
  const at = (fraction: number): number => box.x + 1 + (box.width - 2) * fraction;
  await page.mouse.move(at(0.2), y);
  await page.mouse.down();
  for (let i = 1; i <= 20; i++) await page.mouse.move(at(0.2 + (0.3 * i) / 20), y);
  await page.mouse.up();
  // The page draws one frame behind the hand: once it has caught up, the
  // slider and the counter agree on the op where the hand let go.
  let stopped = NaN;
  await expect
    .poll(
      async () => {
        const slider = Number(await page.locator("#step").inputValue());
        stopped = Number(/^op (\d+) \//.exec((await counter(page).textContent()) ?? "")?.[1]);
        return slider === stopped;
      },
      { timeout: 30_000 },
    )
    .toBe(true);
  expect(stopped).toBeGreaterThan(400_000);
  expect(stopped).toBeLessThan(600_000);
  const stoppedLine = String(lastLine - (1_000_000 - stopped));
  await expect(page.locator(".cm-lineNumbers .cm-gutterElement.is-current")).toHaveText(stoppedLine, { timeout: 30_000 });
  await expect(page.locator(".cm-content .code-line.is-current")).toHaveAttribute("data-line", stoppedLine);
  await expect(page.locator("#op-details .op-index")).toHaveText(`Op ${stopped}`);
  await page.keyboard.press("End");
  await expect(counter(page)).toHaveText("op 1000000 / 1000000", { timeout: 30_000 });

  // Typed at its end, a line runs once typing pauses, a million ops in.
  await program(page).click();
  await page.keyboard.press("ControlOrMeta+End");
  await page.keyboard.type("\nzz = alloc 8");
  await expect(counter(page)).toHaveText(/ \/ 1000001$/, { timeout: 60_000 });
});

test("a pasted program runs and edits the text, a long one too", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const short = "a = alloc 24 align 8\nb = alloc u64\nfree a\n";
  await page.evaluate((text) => navigator.clipboard.writeText(text), short);
  await program(page).click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.press("ControlOrMeta+V");
  await expect(program(page)).toHaveProgram(short);
  await expect(counter(page)).toHaveText("op 3 / 3");

  // Over a mebibyte: pasted into the editor as a short one is.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  const rec = recording(60_000, 7);
  expect(rec.text.length).toBeGreaterThan(1 << 20);
  await program(page).click();
  await page.keyboard.press("ControlOrMeta+A");
  const clipboard = await fileTransfer(page, rec.text, "unused.txt");
  await clipboard.evaluate((transfer, text) => transfer.setData("text/plain", text), rec.text);
  await program(page).evaluate((el, data) => {
    el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
  }, clipboard);
  await expect(counter(page)).toHaveText("op 60000 / 60000", { timeout: 60_000 });
  await expect(program(page)).toHaveProgram(rec.text);
  await expect(requested(page)).toHaveText(`${rec.requested} B`);
});

test("a long file opened runs before the editor takes it, and Undo brings back the program it replaced", async ({ page }) => {
  // An arena that grows: the recording outgrows the first program's one fixed chunk.
  await page.getByRole("combobox", { name: "Allocator" }).selectOption("bumpalo");
  const small = "x = alloc 16 align 8\ny = alloc 8\n";
  await program(page).click();
  await page.keyboard.press("ControlOrMeta+A");
  await page.keyboard.insertText(small);
  await expect(counter(page)).toHaveText("op 2 / 2");
  // Long enough that its parse starts in the worker before the editor builds its lines.
  const rec = recording(15_000, 3);
  expect(rec.text.length).toBeGreaterThan(200_000);
  const path = join(dir, "long.txt");
  writeFileSync(path, rec.text);
  await page.locator("#program-file").setInputFiles(path);
  await expect(counter(page)).toHaveText("op 15000 / 15000", { timeout: 60_000 });
  await expect(program(page)).toHaveProgram(rec.text);
  await expect(requested(page)).toHaveText(`${rec.requested} B`);

  // One edit: Undo brings back the two lines, and their run.
  await program(page).click();
  await page.keyboard.press("ControlOrMeta+z");
  await expect(program(page)).toHaveProgram(small);
  await expect(counter(page)).toHaveText("op 2 / 2", { timeout: 30_000 });
  await expect(requested(page)).toHaveText("24 B");
});

test("a file over the size limit is refused with its size and the limit, and the run on screen stays", async ({ page }) => {
  const small = "x = alloc 16 align 8\ny = alloc 8\n";
  const smallPath = join(dir, "small.txt");
  writeFileSync(smallPath, small);
  await page.locator("#program-file").setInputFiles(smallPath);
  await expect(status(page)).toHaveText("Opened small.txt.");
  await expect(program(page)).toHaveProgram(small);
  await expect(counter(page)).toHaveText("op 2 / 2");
  await expect(requested(page)).toHaveText("24 B");
  await expect(page.getByRole("button", { name: "Open file…" })).toBeVisible();

  const hugePath = join(dir, "huge.txt");
  writeFileSync(hugePath, Buffer.alloc(50_000_000, "#"));
  await page.locator("#program-file").setInputFiles(hugePath);
  await expect(status(page)).toHaveText("huge.txt was not opened: the program is 50 MB; the limit is 32 MB. The program on screen is unchanged.");
  await expect(program(page)).toHaveProgram(small);
  await expect(counter(page)).toHaveText("op 2 / 2");
  await expect(requested(page)).toHaveText("24 B");
  await expect(page.locator("svg.memory-map g[data-block]")).toHaveCount(2);
});
