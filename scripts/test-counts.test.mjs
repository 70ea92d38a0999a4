import { describe, expect, it } from "vitest";
import { cargoCount, countProblems, playwrightCount, vitestCount } from "./test-counts.mjs";

const CARGO = `
   Compiling bumplab-core v0.1.0 (/work/main/crates/core)
     Running unittests src/lib.rs (target/debug/deps/bumplab_core-0123abcd4567ef89)
test result: ok. 12 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s
     Running tests/bumpalo.rs (target/debug/deps/bumpalo-89abcdef01234567)
test result: ok. 9 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 6.71s
     Running unittests src/lib.rs (target/debug/deps/bumplab_meter-fedcba9876543210)
test result: ok. 4 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
     Running tests/shipped.rs (target/debug/deps/shipped-0011223344556677)
test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 3.00s
   Doc-tests bumplab_core
test result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s
`;

describe("test counts", () => {
  it("reads cargo's result lines per test binary, under the crate that ran them", () => {
    const c = cargoCount(CARGO);
    expect([c.passed, c.failed, c.skipped]).toEqual([27, 1, 1]);
    expect([...c.binaries]).toEqual([
      ["bumplab_core tests/bumpalo.rs", 9],
      ["bumplab_meter tests/shipped.rs", 2],
    ]);
  });

  it("counts a binary's 32-bit comparisons on their own, and reads a wasm32-wasip1 test binary", () => {
    const out = [
      "     Running tests/llvm_bump_ptr.rs (target/debug/deps/llvm_bump_ptr-0123abcd4567ef89)",
      "test edges_match_llvm ... ok",
      "test edges_match_llvm_on_wasm32 ... ok",
      "test random_programs_match_llvm_on_wasm32 ... FAILED",
      "test result: FAILED. 2 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 1.00s",
      "     Running unittests src/lib.rs (target/wasm32-wasip1/debug/deps/bumplab_core-0123abcd4567ef89.wasm)",
      "test result: ok. 7 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.01s",
      "     Running tests/blink_alloc.rs (target/wasm32-wasip1/debug/deps/blink_alloc-89abcdef01234567.wasm)",
      "test result: ok. 14 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.80s",
    ].join("\n");
    const c = cargoCount(out);
    expect(c.binaries.get(" tests/llvm_bump_ptr.rs")).toBe(2);
    expect(c.binaries.get(" tests/llvm_bump_ptr.rs (wasm32)")).toBe(1);
    expect(c.binaries.get("bumplab_core tests/blink_alloc.rs")).toBe(14);
    expect(c.binaries.size).toBe(3);
  });

  it("fails a layer that ran too few tests, skipped some, or lost a required binary", () => {
    const c = cargoCount(CARGO);
    const layer = { name: "cargo test", min: 28, binaries: { "bumplab_core tests/bumpalo.rs": 10, "bumplab_core tests/zig_arena.rs": 1 } };
    expect(countProblems(layer, c)).toEqual([
      "cargo test ran 27 tests, fewer than its minimum of 28",
      "cargo test skipped or ignored 1 tests (allowed: 0)",
      "bumplab_core tests/bumpalo.rs ran 9 tests, fewer than its minimum of 10",
      "bumplab_core tests/zig_arena.rs did not run",
    ]);
    const fine = { name: "cargo test", min: 27, skips: 1, binaries: { "bumplab_core tests/bumpalo.rs": 9 } };
    expect(countProblems(fine, c)).toEqual([]);
  });

  it("reads vitest's and Playwright's summaries, skipped tests included", () => {
    expect(vitestCount(" Test Files  3 passed (3)\n      Tests  2 failed | 537 passed | 1 skipped (540)\n")).toEqual({
      passed: 537,
      failed: 2,
      skipped: 1,
    });
    expect(vitestCount("      Tests  539 passed (539)\n")).toEqual({ passed: 539, failed: 0, skipped: 0 });
    expect(playwrightCount("  1 skipped\n  1 flaky\n  130 passed (7.9m)\n")).toEqual({
      passed: 130,
      failed: 0,
      skipped: 1,
      flaky: 1,
    });
    // A test that passed on its retry ran: it counts toward the minimum (and is named flaky in the summary).
    expect(countProblems({ name: "webkit", min: 17 }, playwrightCount("  1 flaky\n  16 passed (1.3m)\n"))).toEqual([]);
    expect(countProblems({ name: "webkit", min: 17 }, playwrightCount("  16 passed (1.3m)\n"))).toEqual(["webkit ran 16 tests, fewer than its minimum of 17"]);
  });
});
