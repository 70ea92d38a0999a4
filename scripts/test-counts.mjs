// Test counts read from each runner's own summary lines, and the rule a
// layer's counts must meet (scripts/test-all.mjs).

export function cargoCount(out) {
  const counts = { passed: 0, failed: 0, skipped: 0, binaries: new Map() };
  // cargo runs each package's unit tests ("Running unittests src/lib.rs
  // (target/debug/deps/<crate>-<hash>)") before its test files, so the last
  // unit-test binary names the crate of the test files that follow.
  let crate = "";
  let binary = "";
  for (const line of out.split("\n")) {
    const running = /^\s*Running (unittests )?(\S+) \((?:.*[/\\])?([A-Za-z0-9_]+)-[0-9a-f]+(?:\.exe|\.wasm)?\)/.exec(line);
    if (running) {
      if (running[1]) crate = running[3] ?? "";
      binary = running[1] ? "" : `${crate} ${running[2]}`;
      continue;
    }
    if (/^\s*Doc-tests /.test(line)) binary = "";
    // A differential test that compares on the 32-bit target says so in its
    // name: counted on its own too, so the 32-bit runs cannot drop out unseen.
    const one = /^test (\S+) \.\.\. ok$/.exec(line.trim());
    if (one && binary && one[1]?.includes("wasm32")) {
      const key = `${binary} (wasm32)`;
      counts.binaries.set(key, (counts.binaries.get(key) ?? 0) + 1);
    }
    const m = /test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(line);
    if (!m) continue;
    const [passed, failed, ignored] = [Number(m[1]), Number(m[2]), Number(m[3])];
    counts.passed += passed;
    counts.failed += failed;
    counts.skipped += ignored;
    if (binary) counts.binaries.set(binary, (counts.binaries.get(binary) ?? 0) + passed);
  }
  return counts;
}

export function vitestCount(out) {
  // "Tests  2 failed | 537 passed | 1 skipped (540)"
  const line = out.split("\n").find((l) => /^\s*Tests\s+/.test(l)) ?? "";
  const n = (what) => Number(new RegExp(`(\\d+) ${what}`).exec(line)?.[1] ?? 0);
  return { passed: n("passed"), failed: n("failed"), skipped: n("skipped") + n("todo") };
}

export function playwrightCount(out) {
  return {
    passed: Number(/^\s*(\d+) passed/m.exec(out)?.[1] ?? 0),
    failed: Number(/^\s*(\d+) failed/m.exec(out)?.[1] ?? 0),
    skipped: Number(/^\s*(\d+) skipped/m.exec(out)?.[1] ?? 0),
    // Passed only on its retry (CI retries once): counted as passed by
    // Playwright, and named in the summary so a flaky test is never hidden.
    flaky: Number(/^\s*(\d+) flaky/m.exec(out)?.[1] ?? 0),
  };
}

/**
 * What is wrong with a layer's counts: fewer tests than its minimum, more
 * skipped than it allows, a required cargo test binary that ran fewer than
 * its own minimum (or did not run at all).
 */
export function countProblems(layer, counts) {
  const problems = [];
  // A flaky test passed on its retry: Playwright counts it apart from "passed", and it ran.
  const ran = counts.passed + (counts.flaky ?? 0);
  if (ran < (layer.min ?? 1)) {
    problems.push(`${layer.name} ran ${ran} tests, fewer than its minimum of ${layer.min ?? 1}`);
  }
  if (counts.skipped > (layer.skips ?? 0)) {
    problems.push(`${layer.name} skipped or ignored ${counts.skipped} tests (allowed: ${layer.skips ?? 0})`);
  }
  for (const [binary, min] of Object.entries(layer.binaries ?? {})) {
    const ran = counts.binaries?.get(binary);
    if (ran === undefined) problems.push(`${binary} did not run`);
    else if (ran < min) problems.push(`${binary} ran ${ran} tests, fewer than its minimum of ${min}`);
  }
  return problems;
}
