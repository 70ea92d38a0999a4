import { defineConfig, devices } from "@playwright/test";

// Chromium comes from Debian (/usr/bin/chromium): never `playwright install`.
export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: "list",
  timeout: 30_000,
  expect: { timeout: 5_000 },
  use: {
    ...devices["Desktop Chrome"],
    baseURL: "http://127.0.0.1:4179",
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
    command: "node_modules/.bin/vite build && node_modules/.bin/vite preview --port 4179 --strictPort --host 127.0.0.1",
    url: "http://127.0.0.1:4179",
    reuseExistingServer: !process.env["CI"],
    timeout: 120_000,
    stdout: "ignore",
    stderr: "pipe",
  },
});
