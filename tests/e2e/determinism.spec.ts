import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "@playwright/test";
import { decodeShare, encodeShare, type SharedState } from "../../web/src/share/link";
import { DEFAULT_PROGRAM } from "../../web/src/model/generators";
import { expect, test } from "./playground";

// The same share link gives a byte-identical trace file from the page's
// "Export trace (JSON)" and from the CLI (`bumplab trace`) given the program,
// preset, target, capacity and minimum alignment the link carries: both write
// the canonical form of traceJson in web/src/share/export.ts.

const CLI = fileURLToPath(new URL("../../web/cli/bumplab.mjs", import.meta.url));

const LINKS: { name: string; state: SharedState }[] = [
  {
    name: "bumpalo on wasm32, with the real crate's rows",
    state: { source: DEFAULT_PROGRAM, allocator: "bumpalo", target: "wasm32", capacity: null, minAlign: null, step: 4, compare: null },
  },
  {
    name: "up-min-align with a capacity and a minimum alignment, no compare columns",
    state: {
      source: "a = alloc 1\nb = alloc 100 align 32\nc = alloc 200\nd = realloc a 40\nfree b\ne = alloc 300",
      allocator: "up-min-align",
      target: "64",
      capacity: 512,
      minAlign: 16,
      step: 3,
      compare: null,
    },
  },
  {
    name: "bump-scope-down on wasm32 at minimum alignment 8, with a checkpoint and a restore",
    state: {
      source: "a = alloc 3\ncheckpoint s\nrepeat 4 {\n  x = alloc 24 align 8\n}\nrestore s\nb = alloc [u32; 5]",
      allocator: "bump-scope-down",
      target: "wasm32",
      capacity: null,
      minAlign: 8,
      step: 2,
      compare: null,
    },
  },
  {
    name: "hinckley-up on 64-bit, the default program",
    state: { source: DEFAULT_PROGRAM, allocator: "hinckley-up", target: "64", capacity: null, minAlign: null, step: 6, compare: null },
  },
];

/** What the page saves when "Export trace (JSON)" is clicked, as bytes. */
async function exportedTrace(page: Page): Promise<Buffer> {
  await page.locator("details.share-menu > summary").click();
  const downloading = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export trace (JSON)" }).click();
  const file = await downloading;
  const path = await file.path();
  return readFileSync(path);
}

/** `bumplab trace` for the state a link decodes to, as bytes on standard output. */
function cliTrace(s: SharedState): Buffer {
  const args = [CLI, "trace", "--allocator", s.allocator, "--target", s.target];
  if (s.capacity !== null) args.push("--capacity", String(s.capacity));
  if (s.minAlign !== null) args.push("--min-align", String(s.minAlign));
  args.push("-");
  const run = spawnSync(process.execPath, args, { input: s.source, timeout: 30_000 });
  if (run.error) throw run.error;
  expect(run.stderr.toString(), "the CLI's stderr").toBe("");
  expect(run.status).toBe(0);
  return run.stdout;
}

/** Where two byte strings first differ, with some text around it, for the failure message. */
function firstDifference(a: Buffer, b: Buffer): string {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const around = (x: Buffer): string => x.subarray(Math.max(0, i - 80), i + 80).toString("utf8");
  return `byte ${i} (page ${a.length} bytes, CLI ${b.length} bytes)\npage: …${around(a)}…\nCLI:  …${around(b)}…`;
}

/** The page's trace file and the CLI's for a link. */
async function bothTraces(page: Page, state: SharedState): Promise<{ fromPage: Buffer; fromCli: Buffer }> {
  const hash = await encodeShare(state);
  // What the CLI is given is what the link says, decoded as the page decodes it.
  const decoded = await decodeShare(hash);
  if (!decoded.ok) throw new Error(decoded.error);
  await page.goto("about:blank");
  await page.goto(`/#${hash}`);
  await expect(page.locator(".step-counter").first()).toContainText(`op ${state.step} /`);
  await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
  const fromPage = await exportedTrace(page);
  return { fromPage, fromCli: cliTrace(decoded.state) };
}

for (const { name, state } of LINKS) {
  test(`one link, one trace file: ${name}`, async ({ page }) => {
    const { fromPage, fromCli } = await bothTraces(page, state);
    const trace = JSON.parse(fromCli.toString("utf8")) as { allocator: string; target: string; real?: unknown; ops: unknown[] };
    expect(trace.allocator).toBe(state.allocator);
    expect(trace.target).toBe(state.target);
    if (state.target === "wasm32" && state.allocator.startsWith("bump")) expect(trace.real, "the real crate's rows").toBeDefined();
    // Every byte: the model's ops, the real crate's rows, and the baseline
    // (dlmalloc on a heap of its own that starts fresh every run).
    expect(fromPage.equals(fromCli), firstDifference(fromPage, fromCli)).toBe(true);
  });
}
