import { type Page } from "@playwright/test";
import { expect, test } from "./playground";

// Multi-chunk allocators on the memory map. Expected numbers were checked
// against the wasm engine (traceProgram in Node), 64-bit target:
//   bumpalo `repeat 30 { x = alloc 64 }`: chunks of 448, 960 and 1984 usable
//   bytes, each with a 48-byte footer; 7 blocks fill the first, 15 the second.
const THREE_CHUNKS = "repeat 30 { x = alloc 64 }";

const rows = (page: Page) => page.locator("svg.memory-map g.chunk-row[data-chunk-id]");
const row = (page: Page, id: number) => page.locator(`svg.memory-map g.chunk-row[data-chunk-id="${id}"]`);
const counter = (page: Page) => page.locator(".step-counter");
const allocator = (page: Page) => page.getByRole("combobox", { name: "Allocator" });
const program = (page: Page) => page.getByRole("textbox", { name: "Program" });

/** Runs `source` on `preset` and shows its last op (`ops` of them: waits for that trace). */
async function run(page: Page, preset: string, source: string, ops: number): Promise<void> {
  await allocator(page).selectOption(preset);
  await program(page).fill(source);
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText(`op ${ops} / ${ops}`);
}


test("the chooser groups the presets", async ({ page }) => {
  const groups = allocator(page).locator("optgroup");
  await expect(groups).toHaveCount(2);
  await expect(groups.nth(0)).toHaveAttribute("label", "Seed algorithms (one fixed chunk)");
  await expect(groups.nth(1)).toHaveAttribute("label", "Libraries");
  await expect(groups.nth(1).locator("option")).toHaveText([
    /^bumpalo/,
    /^bump-scope-up/,
    /^bump-scope-down/,
    /^bumper-alloc-buffer/,
    /^bumper-slab/,
    /^cpp-arena/,
    /^blink-alloc/,
    /^llvm-bump-ptr/,
    /^pmr-monotonic/,
    /^zig-arena/,
    /^zig-fixed-buffer/,
  ]);
  await expect(page.getByRole("combobox", { name: "Capacity" })).toHaveValue("");
});

test("bumpalo: three chunks of 448, 960 and 1984 bytes, each with a 48-byte footer", async ({ page }) => {
  await run(page, "bumpalo", THREE_CHUNKS, 30);
  await expect(rows(page)).toHaveCount(3);
  for (const [i, capacity] of [448, 960, 1984].entries()) {
    await expect(rows(page).nth(i)).toHaveAttribute("data-capacity", String(capacity));
    await expect(rows(page).nth(i)).toHaveAttribute("data-chunk-id", String(i));
    await expect(rows(page).nth(i).locator('[data-meta="footer"] .meta-label')).toHaveText("footer 48 B");
  }
  // Accessible names say what each chunk is and how full it is.
  await expect(page.getByRole("group", { name: /^chunk 1:/ })).toHaveAccessibleName(
    "chunk 1: 960 bytes usable, 48 bytes footer, 960 used",
  );
  // Blocks carry their chunk; the newest chunk is current and holds the pointer.
  await expect(row(page, 0).locator("g[data-block]")).toHaveCount(7);
  await expect(row(page, 1).locator("g[data-block]")).toHaveCount(15);
  await expect(row(page, 2).locator('g[data-block][data-chunk="2"]')).toHaveCount(8);
  await expect(row(page, 2)).toHaveClass(/is-current/);
  await expect(row(page, 0)).not.toHaveClass(/is-current/);
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-chunk", "2");
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-direction", "down");
  await expect(row(page, 2).locator(".row-fill")).toHaveText("512 / 1984 B used");
  await expect(row(page, 1).locator(".row-title")).toContainText("new: current chunk full");
  await expect(page.locator('[data-stat="chunks"]')).toHaveText("3");
  await expect(page.locator('[data-stat="metadata"]')).toHaveText("144 B");

  // Back to the op that made chunk 2: stepping back before it removes the row.
  const made = 7 + 15;
  await page.getByRole("button", { name: "First" }).click();
  for (let i = 0; i < made + 1; i++) await page.getByRole("button", { name: "Step forward" }).click();
  await expect(rows(page)).toHaveCount(3);
  await expect(page.locator(".op-details")).toContainText("new chunk");
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 1)).toHaveClass(/is-current/);
});

test("bumpalo before its first allocation: an honest empty state", async ({ page }) => {
  await run(page, "bumpalo", THREE_CHUNKS, 30);
  await page.getByRole("button", { name: "First" }).click();
  await expect(counter(page)).toHaveText("op 0 / 30");
  await expect(rows(page)).toHaveCount(0);
  await expect(page.locator(".map-empty")).toHaveText("no chunk yet: bumpalo allocates its first chunk lazily");
  await expect(page.locator(".map-empty")).toBeVisible();
  await expect(page.locator("svg.memory-map")).not.toHaveAttribute("data-chunk-start");
  await expect(page.locator('[data-stat="chunks"]')).toHaveText("0");
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(page.locator(".map-empty")).toBeHidden();
});

test("bump-scope-up: a header at the start, and a minimum alignment to choose", async ({ page }) => {
  const minAlign = page.getByRole("combobox", { name: "Minimum alignment" });
  await expect(minAlign).toBeHidden(); // fitzgen-down has no such setting
  await run(page, "bump-scope-up", "a = alloc 1\nb = alloc 1", 2);
  await expect(minAlign).toBeVisible();
  await expect(minAlign).toHaveValue("1");
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "464");
  await expect(row(page, 0).locator('[data-meta="header"] .meta-label')).toHaveText("header 32 B");
  const start = Number(await row(page, 0).getAttribute("data-start"));
  const block = (name: string) => page.locator(`svg.memory-map g[data-block="${name}"]`);
  await expect(block("a")).toHaveAttribute("data-address", String(start));
  await expect(block("b")).toHaveAttribute("data-address", String(start + 1));

  await minAlign.selectOption("8");
  await expect(minAlign).toHaveValue("8");
  // Sizes round up to 8: the second block lands 8 bytes on.
  await expect(block("b")).toHaveAttribute("data-address", String(start + 8));
  // The chunk exists from the start: step 0 shows it empty.
  await page.getByRole("button", { name: "First" }).click();
  await expect(rows(page)).toHaveCount(1);
  await expect(page.locator("g.bump-pointer")).toHaveAttribute("data-address", String(start));
});

test("bumper-slab: restoring frees the custom slab, and its row goes", async ({ page }) => {
  await run(page, "bumper-slab", "a = alloc 8\ncheckpoint s\nb = alloc 600000\nc = alloc 600000\nrestore s", 5);
  await expect(rows(page)).toHaveCount(1);
  await page.getByRole("button", { name: "Step back" }).click();
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 1).locator(".row-title")).toContainText("custom slab");
  await expect(row(page, 0)).toHaveClass(/is-current/);
});

test("many chunks: the map scrolls", async ({ page }) => {
  // 1000 blocks of 64 bytes: chunks of 448, 960, ... 32704 bytes.
  await run(page, "bumpalo", "repeat 1000 { x = alloc 64 }", 1000);
  await expect(rows(page)).toHaveCount(7);
  const overflow = await page.locator("#memory-map").evaluate((el) => el.scrollHeight > el.clientHeight);
  expect(overflow).toBe(true);
});

test("the code view follows the file of the op's micro-steps", async ({ page }) => {
  const path = page.locator(".code-path");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(path).toHaveText("crates/core/src/algorithms/bump_down.rs");
  // A reset runs the fixed chunk's code, in another file.
  await program(page).fill("a = alloc 8\nreset");
  await expect(counter(page)).toHaveText("op 2 / 2");
  await expect(path).toHaveText("crates/core/src/models/fixed.rs");
  await expect(page.locator("#code-view .code-line.is-current")).toBeVisible();

  await allocator(page).selectOption("bumpalo");
  await program(page).fill("a = alloc 8\nb = alloc 16");
  await page.getByRole("button", { name: "First" }).click();
  await page.getByRole("button", { name: "Step forward" }).click();
  await expect(path).toHaveText("crates/core/src/models/bumpalo.rs");
  await expect(page.locator("#code-view .code-line.is-current")).toBeVisible();
  await expect(page.locator(".op-details .badge").first()).toBeVisible();
});

test("notes are asides in the step panel", async ({ page }) => {
  await run(page, "bumper-alloc-buffer", "a = alloc 2000000", 1);
  await expect(page.locator(".op-details aside.event-note")).toBeVisible();
  await expect(page.locator(".op-details .event-out_of_memory .badge")).toHaveText("out of memory");
});

test("the arenas checked against blink-alloc, LLVM, libstdc++ and Zig: their chunks, metadata and code", async ({ page }) => {
  const path = page.locator(".code-path");
  // blink-alloc: a 4-word header at each chunk's start; 256 + 32 rounds to 512.
  await run(page, "blink-alloc", "a = alloc 8\nb = alloc 500", 2);
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "480");
  await expect(row(page, 0).locator('[data-meta="header"] .meta-label')).toHaveText("header 32 B");
  await expect(path).toHaveText("crates/core/src/models/blink_alloc.rs");
  // LLVM: no metadata in the slabs; a large request gets a custom slab of its own.
  await run(page, "llvm-bump-ptr", "a = alloc 100\nbig = alloc 10000\nb = alloc 100", 3);
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "4096");
  await expect(row(page, 1)).toHaveAttribute("data-capacity", "10000");
  await expect(row(page, 1).locator(".row-title")).toContainText("custom slab");
  await expect(row(page, 0).locator("[data-meta]")).toHaveCount(0);
  await expect(path).toHaveText("crates/core/src/models/llvm_bump_ptr.rs");
  // libstdc++: a 16-byte record at each buffer's end.
  await run(page, "pmr-monotonic", "a = alloc 1000\nb = alloc 100", 2);
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "1072");
  await expect(row(page, 0).locator('[data-meta="footer"] .meta-label')).toHaveText("footer 16 B");
  await expect(path).toHaveText("crates/core/src/models/pmr_monotonic.rs");
  // Zig's arena over std.heap.page_allocator, its default child: a 3-word
  // node at the buffer's start, a 4 KiB page reserved for it, and b grown
  // in place inside that page.
  const child = page.getByRole("combobox", { name: "Child", exact: true });
  await run(page, "zig-arena", "a = alloc 8\nb = alloc 100 align 16", 2);
  await expect(child).toBeVisible();
  await expect(child.locator("option")).toHaveText(["std.heap.page_allocator (default)", "a simulated heap that never resizes in place"]);
  await expect(child).toHaveValue("page");
  await expect(rows(page)).toHaveCount(1);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "4072");
  await expect(row(page, 0).locator('[data-meta="header"] .meta-label')).toHaveText("header 24 B");
  await expect(path).toHaveText("crates/core/src/models/zig_arena.rs");
  // Over the simulated heap, which never resizes in place: b needs a second buffer.
  await child.selectOption("heap");
  await page.getByRole("button", { name: "Last" }).click();
  await expect(counter(page)).toHaveText("op 2 / 2");
  await expect(rows(page)).toHaveCount(2);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "50");
  await expect(row(page, 1)).toHaveAttribute("data-capacity", "286");
  // Zig's fixed buffer: 4096 bytes, and a request past the end fails.
  await run(page, "zig-fixed-buffer", "a = alloc 4000\nb = alloc 200", 2);
  await expect(rows(page)).toHaveCount(1);
  await expect(row(page, 0)).toHaveAttribute("data-capacity", "4096");
  await expect(page.locator(".op-details .event-out_of_memory .badge")).toHaveText("out of memory");
  await expect(path).toHaveText("crates/core/src/models/zig_fixed_buffer.rs");
  // A preset without a child allocator shows no such setting.
  await expect(child).toBeHidden();
});
