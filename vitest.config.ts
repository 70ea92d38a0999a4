import { defineConfig } from "vitest/config";

// Unit tests only: the Playwright specs in tests/e2e run with `playwright test`.
export default defineConfig({
  test: {
    include: ["web/src/**/*.test.ts", "web/cli/*.test.mjs", "scripts/bench.test.mjs", "scripts/split-listing.test.mjs", "scripts/test-counts.test.mjs", "scripts/callgrind-listing.test.mjs", "scripts/dwarf-lines.test.mjs", "scripts/crate-circles.test.mjs", "scripts/file-sizes.test.mjs"],
    environment: "node",
  },
});
