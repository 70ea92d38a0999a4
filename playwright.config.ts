import { resolve } from "node:path";
import { defineConfig, devices } from "@playwright/test";

// Chromium comes from Debian (/usr/bin/chromium): never `playwright install`.
// scripts/test-all.mjs passes a free port in PW_PORT so a server already on
// the default port cannot make a run fail; tests read the origin from here.
export const PORT = Number(process.env["PW_PORT"] ?? 4179);
export const ORIGIN = `http://127.0.0.1:${PORT}`;
// Where the build under test goes: several runs at once (helpers, a bench)
// each pass their own PW_DIST so one build never empties another's.
const DIST = resolve(process.env["PW_DIST"] ?? "dist");

export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  // On CI one retry: the machines are shared 2-core VMs, so a journey can
  // lose a race with the load now and then; the run's summary lists every
  // test that passed only on its retry ("flaky"), so none goes unseen.
  retries: process.env["CI"] ? 1 : 0,
  reporter: "list",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    ...devices["Desktop Chrome"],
    baseURL: ORIGIN,
    viewport: { width: 1280, height: 800 },
    launchOptions: {
      executablePath: "/usr/bin/chromium",
      args: [
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--no-first-run",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    // The production build, served as a user would get it.
    command: `node_modules/.bin/vite build --outDir ${DIST} && node_modules/.bin/vite preview --outDir ${DIST} --port ${PORT} --strictPort --host 127.0.0.1`,
    url: ORIGIN,
    reuseExistingServer: !process.env["CI"],
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
