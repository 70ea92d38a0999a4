// Every file under web/ is at most 600 lines and under crates/ at most 800
// (scripts/file-sizes.mjs says what is left out and why).

import { describe, expect, it } from "vitest";
import { lineCount, oversized, sourceFiles } from "./file-sizes.mjs";

describe("file sizes", () => {
  it("reads the repository's files", () => {
    const files = sourceFiles();
    expect(files).toContain("web/src/app.ts");
    expect(files).toContain("crates/core/src/lib.rs");
    expect(files.length).toBeGreaterThanOrEqual(300);
  });

  it("has no file over its folder's limit", () => {
    expect(oversized().map(({ path, lines, limit }) => `${path}: ${lines} > ${limit}`)).toEqual([]);
  });

  it("counts lines, finds a file one over, and leaves out the data it names", () => {
    expect(lineCount(Buffer.from("a\nb\n"))).toBe(2);
    expect(lineCount(Buffer.from("a\nb"))).toBe(2);
    expect(lineCount(Buffer.from(""))).toBe(0);
    expect(lineCount(Buffer.from([0x89, 0x50, 0x00, 0x0a]))).toBeNull();
    const text = (n) => Buffer.from("x\n".repeat(n));
    const files = {
      "web/src/a.ts": text(600),
      "web/src/b.css": text(601),
      "crates/core/src/c.rs": text(801),
      "crates/core/src/d.rs": text(800),
      "web/package-lock.json": text(5000),
      "web/public/examples/recorded/e.txt": text(5000),
      "crates/record/tests/fixtures/f.json": text(5000),
      "scripts/g.mjs": text(5000),
    };
    const over = oversized(Object.keys(files), (path) => files[path]);
    expect(over).toEqual([
      { path: "web/src/b.css", lines: 601, limit: 600 },
      { path: "crates/core/src/c.rs", lines: 801, limit: 800 },
    ]);
  });
});
