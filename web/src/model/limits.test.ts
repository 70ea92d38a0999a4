import { describe, expect, it } from "vitest";
import { loadTraceModuleSync } from "../wasm/node";
import { encodeShare, MAX_SOURCE_CHARS } from "../share/link";
import { recording } from "../test/recording";
import { MAX_RUN_OPS, MAX_SOURCE_BYTES, megabytes, sourceTooLarge, utf8Bytes } from "./limits";

/** The engine's error for `source` before it runs anything, or undefined when it would run. */
function engineRefusal(source: string): string | undefined {
  const run = loadTraceModuleSync().startRun({ source, allocator: "bumpalo", target: "64", capacity: null, minAlign: null });
  try {
    const error = run.error();
    return error === undefined ? undefined : (JSON.parse(error) as { message: string }).message;
  } finally {
    run.free();
  }
}

describe("the program limits", () => {
  it("say a program's size and the limit in megabytes", () => {
    expect(sourceTooLarge(MAX_SOURCE_BYTES)).toBeNull();
    expect(sourceTooLarge(52_345_678)).toBe("the program is 52.3 MB; the limit is 32 MB");
    expect(sourceTooLarge(2_000_000_000)).toBe("the program is 2000 MB; the limit is 32 MB");
    // One decimal would read "32 MB" twice: the exact counts say which is larger.
    expect(sourceTooLarge(MAX_SOURCE_BYTES + 1)).toBe("the program is 32,000,001 bytes; the limit is 32,000,000 bytes");
    expect(megabytes(20_369_660)).toBe("20.4 MB");
    expect(megabytes(149_999)).toBe("0.1 MB");
    expect(megabytes(150_000)).toBe("0.2 MB");
  });

  it("count a text's bytes as a file of it holds them", () => {
    for (const text of ["a = alloc 8\n", "# é ü\n", "# 字\n", "# 🦀 crab\n", "\uD800 lone", "lone \uDC00", "\uDBFF\uDFFF"]) {
      expect(utf8Bytes(text), text).toBe(new TextEncoder().encode(text).length);
    }
  });

  it("are the engine's: a text one byte over is refused in the same words, one at the limit runs", () => {
    const over = "#".repeat(MAX_SOURCE_BYTES + 1);
    expect(engineRefusal(over)).toBe(sourceTooLarge(over.length));
    expect(engineRefusal("#".repeat(MAX_SOURCE_BYTES))).toBeUndefined();
    const bigger = "#".repeat(MAX_SOURCE_BYTES + 1_234_567);
    expect(engineRefusal(bigger)).toBe("the program is 33.2 MB; the limit is 32 MB");
  }, 60_000);

  it("let a program of the op limit run, and refuse one op more before running it", () => {
    const atLimit = `repeat ${MAX_RUN_OPS / 2} {\n  a = alloc 8\n  free a\n}\n`;
    expect(engineRefusal(atLimit)).toBeUndefined();
    expect(engineRefusal(`${atLimit}b = alloc 1\n`)).toBe("the program would execute 1,500,001 ops; the limit is 1,500,000: lower a repeat count");
    // A recording of the op limit, in the recorder's own shape, fits in the text limit.
    const sample = recording(20_000);
    expect((utf8Bytes(sample.text) / sample.ops) * MAX_RUN_OPS).toBeLessThan(MAX_SOURCE_BYTES);
  });
});

describe("a share link", () => {
  const state = (source: string) => ({ source, allocator: "bumpalo", target: "64" as const, capacity: null, minAlign: null, step: 0, compare: null });

  it("carries a program up to its own limit, and says why a recording is too long for one", async () => {
    await expect(encodeShare(state(`# ${"x".repeat(MAX_SOURCE_CHARS - 3)}\n`))).resolves.toMatch(/^v1/);
    const rec = recording(10_000);
    await expect(encodeShare(state(rec.text))).rejects.toThrow(
      `this program is ${rec.text.length.toLocaleString("en-US")} characters, too long for a link (a link carries up to 100,000): share its file instead`,
    );
  });
});
