// The fixture every playground spec runs under: it opens the page, waits for
// the first drawn map, and after the test checks what must hold on every
// journey: no request left the app's origin (the page is self-contained), and
// nothing threw or logged an error (a CSP violation is logged, not thrown).

import { expect, test as base } from "@playwright/test";
import { ORIGIN } from "../../playwright.config";

export const test = base.extend<{ playground: void }>({
  playground: [
    async ({ page }, use) => {
      const requests: string[] = [];
      const errors: string[] = [];
      page.on("request", (r) => requests.push(r.url()));
      page.on("pageerror", (e) => errors.push(e.message));
      page.on("console", (m) => {
        if (m.type() === "error") errors.push(m.text());
      });
      await page.goto("/");
      await expect(page.locator("svg.memory-map g[data-block]").first()).toBeVisible();
      await use();
      const foreign = requests.filter((url) => !url.startsWith(`${ORIGIN}/`));
      expect(foreign, "requests to other origins").toEqual([]);
      expect(errors, "uncaught page errors and console errors").toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
