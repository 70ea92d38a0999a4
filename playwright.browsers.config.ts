import { defineConfig } from "@playwright/test";
import chromium from "./playwright.config";
import type { Engine } from "./tests/browsers/session";

// The journeys of tests/browsers in Firefox and WebKit, one project each
// (scripts/test-all.mjs runs them as two layers, each with its counts), on
// the production build that playwright.config.ts serves. Playwright is only
// the runner here: tests/browsers/session.ts drives Firefox with
// puppeteer-core and WebKit with selenium-webdriver.
export default defineConfig<{ engine: Engine }>({
  testDir: "tests/browsers",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: chromium.retries ?? 0,
  reporter: "list",
  // Longer than Chromium's: MiniBrowser and Firefox start pages slower, and a journey walks several.
  timeout: 60_000,
  expect: { timeout: 10_000 },
  projects: [
    { name: "firefox", use: { engine: "firefox" } },
    { name: "webkit", use: { engine: "webkit" } },
  ],
  ...(chromium.webServer ? { webServer: chromium.webServer } : {}),
});
