import { readFileSync } from "node:fs";
import type { JSHandle, Page } from "@playwright/test";
import { DEFAULT_PROGRAM } from "../../web/src/model/generators";
import { expect, test } from "./playground";

// Hostile and heavy input on the page, as an attacker or a heavy user gives
// it: share links that cannot open, a trace file whose numbers do not fit,
// files with old line endings, two files dropped at once, a megabyte token.
// Each case is one that broke; the test holds what the page does now.

const program = (page: Page) => page.getByRole("textbox", { name: "Program" });
const counter = (page: Page) => page.locator(".step-counter").first();
const notice = (page: Page) => page.locator("#notice > span");
const status = (page: Page) => page.locator("#program-import-status");
const shareStatus = (page: Page) => page.locator(".share-status");
const hashOf = (page: Page): string => new URL(page.url()).hash.slice(1);

/** Long enough for the link to have been rewritten if it were going to be (the hash follows the state 400 ms after a change). */
const SETTLE_MS = 1_500;

test("a share link that cannot open stays in the address bar, and the notice copies it", async ({ page, context }) => {
  await context.grantPermissions(["clipboard-read", "clipboard-write"]);
  const link = "v2?a=bumpalo&p=a+=+alloc+8&end";
  // A fresh page opened at the link, as from a chat message.
  await page.goto("about:blank");
  await page.goto(`/#${link}`);
  await expect(notice(page)).toHaveText(
    "Cannot open this link: this link was made by a newer Bump Lab (v2); this one reads v1 links: open it in the latest Bump Lab. Showing the default program instead.",
  );
  await expect(program(page)).toHaveValue(DEFAULT_PROGRAM);
  await expect(counter(page)).toHaveText("op 6 / 6");
  await page.waitForTimeout(SETTLE_MS);
  expect(hashOf(page), "the link is still in the address bar").toBe(link);
  await page.locator("#notice").getByRole("button", { name: "Copy link" }).click();
  await expect(page.locator("#notice .notice-copied")).toHaveText("Copied.");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(page.url());
  // Stepping keeps it; changing the program is the reader's own edit, and the hash follows from then on.
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(counter(page)).toHaveText("op 5 / 6");
  await page.waitForTimeout(SETTLE_MS);
  expect(hashOf(page)).toBe(link);
  await program(page).fill("a = alloc 8");
  await expect(counter(page)).toHaveText("op 1 / 1");
  await expect.poll(() => hashOf(page)).toMatch(/^v1\?a=fitzgen-down&t=64&s=1&p=a\+=\+alloc\+8&end$/);
});

test("a share link pasted into an open page that cannot open stays in the address bar too", async ({ page }) => {
  await expect(counter(page)).toHaveText("op 6 / 6");
  const link = "v1?a=nosuch&p=a+=+alloc+8&end";
  await page.evaluate((hash) => (window.location.hash = hash), link);
  await expect(notice(page)).toHaveText("This share link names an allocator this version does not have (nosuch). The program in view is unchanged.");
  await expect(page.locator("#notice").getByRole("button", { name: "Copy link" })).toBeVisible();
  await page.getByRole("button", { name: "Step back" }).click();
  await page.waitForTimeout(SETTLE_MS);
  expect(hashOf(page)).toBe(link);
});

test("a link that lost its v1? prefix gets a notice saying how to repair it, instead of being ignored", async ({ page }) => {
  const link = "a=bumpalo&p=a+=+alloc+8&end";
  await page.goto("about:blank");
  await page.goto(`/#${link}`);
  await expect(notice(page)).toHaveText(
    'Cannot open this link: the link has lost its version: it should start with "v1?", as in "#v1?a=bumpalo&…&end" (add "v1?" after the "#" to open it). Showing the default program instead.',
  );
  await page.waitForTimeout(SETTLE_MS);
  expect(hashOf(page)).toBe(link);
  // Repaired as the notice says, it opens.
  await page.evaluate((hash) => (window.location.hash = hash), `v1?${link}`);
  await expect(program(page)).toHaveValue("a = alloc 8");
  await expect(counter(page)).toHaveText("op 0 / 1");
  await expect(page.locator("#notice")).toBeHidden();
});

// ---- Trace files ----------------------------------------------------------------

async function exportedTrace(page: Page): Promise<Record<string, unknown>> {
  await page.locator("details.share-menu > summary").click();
  await program(page).fill("a = alloc 8\nb = alloc u64");
  await expect(counter(page)).toHaveText("op 2 / 2");
  const download = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export trace (JSON)" }).click();
  return JSON.parse(readFileSync(await (await download).path(), "utf8")) as Record<string, unknown>;
}

async function importText(page: Page, text: string): Promise<void> {
  await page.getByRole("button", { name: "Import trace" }).focus();
  await page.locator("#share-import").setInputFiles({ name: "trace.json", mimeType: "application/json", buffer: Buffer.from(text) });
}

test("trace import: a capacity past 32 bits is refused by name, not run as 256 bytes; a text version is said to be text", async ({ page }) => {
  const good = await exportedTrace(page);
  await expect.poll(() => hashOf(page)).toBe("v1?a=fitzgen-down&t=64&s=2&p=a+=+alloc+8%0Ab+=+alloc+u64&end");
  const before = hashOf(page);
  const program = good["program"] as Record<string, unknown>;
  await importText(page, JSON.stringify({ ...good, program: { ...program, capacity: 4294967552 } }));
  await expect(shareStatus(page)).toHaveText("Not a Bump Lab trace: trace.program.capacity must be a whole number from 1 to 1073741824, not 4294967552.");
  await importText(page, JSON.stringify({ ...good, program: { ...program, min_align: 2 ** 52 } }));
  await expect(shareStatus(page)).toHaveText("Not a Bump Lab trace: trace.program.min_align must be a whole number from 1 to 4096, not 4503599627370496.");
  await importText(page, JSON.stringify({ ...good, version: "1" }));
  await expect(shareStatus(page)).toHaveText('Not a Bump Lab trace: it has version "1", which is text, not a number; this Bump Lab reads trace format version 1.');
  await expect(counter(page)).toHaveText("op 2 / 2");
  expect(hashOf(page)).toBe(before);
});

// ---- Files ----------------------------------------------------------------------

/** A DataTransfer in the page holding the files, as a drag from the desktop carries them. */
function fileTransfer(page: Page, files: [text: string, name: string][]): Promise<JSHandle<DataTransfer>> {
  return page.evaluateHandle((list) => {
    const transfer = new DataTransfer();
    for (const [body, name] of list) transfer.items.add(new File([body], name, { type: "text/plain" }));
    return transfer;
  }, files);
}

test("a file with CR-only line endings opens as it runs when pasted: the same program, no error", async ({ page }) => {
  const lines = ["a = alloc 8", "b = alloc u64", "free a", "c = alloc 24 align 8"];
  await page.locator("#program-file").setInputFiles({ name: "old-mac.txt", mimeType: "text/plain", buffer: Buffer.from(lines.join("\r") + "\r") });
  await expect(status(page)).toHaveText("Opened old-mac.txt.");
  await expect(program(page)).toHaveValue(lines.join("\n") + "\n");
  await expect(counter(page)).toHaveText("op 4 / 4");
  await expect(page.locator("#program-error")).toBeHidden();
});

test("dropping two files opens the first and keeps saying only one opens", async ({ page }) => {
  const transfer = await fileTransfer(page, [
    ["a = alloc 8\n", "a.txt"],
    ["b = alloc 16\n", "b.txt"],
  ]);
  await page.dispatchEvent("body", "dragenter", { dataTransfer: transfer });
  await page.dispatchEvent("body", "drop", { dataTransfer: transfer });
  await expect(program(page)).toHaveValue("a = alloc 8\n");
  await expect(counter(page)).toHaveText("op 1 / 1");
  await expect(status(page)).toHaveText("Opened a.txt. Only one program opens at a time: a.txt, the first of 2.");
});

test("a megabyte token is listed as an excerpt with its length, and the last good run stays", async ({ page }) => {
  await expect(counter(page)).toHaveText("op 6 / 6");
  const token = `1${"9".repeat(999_999)}`;
  await program(page).fill(`a = alloc 8\nb = alloc ${token}\n`);
  const error = page.locator("#program-error");
  await expect(error).toContainText("2:11");
  await expect(error).toContainText("'199999999999999999999999…' (1,000,000 characters) is too large (the largest is 0xffffffffffffffff)");
  // The list holds the excerpt, not the million characters it quoted.
  expect(((await error.textContent()) ?? "").length).toBeLessThan(400);
  await expect(counter(page)).toHaveText("op 6 / 6");
});
