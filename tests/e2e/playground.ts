// The fixture every playground spec runs under: it opens the page, waits for
// the first drawn map, and after the test checks what must hold on every
// journey: no request left the app's origin (the page is self-contained), and
// nothing threw or logged an error (a CSP violation is logged, not thrown).

import { expect as baseExpect, test as base, type Locator } from "@playwright/test";
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

type EditorDocument = { state: { doc: { toString(): string }; selection: { main: { head: number } } } };

/** The program editor's state (CodeMirror draws only the lines in view, so it is read from its document, not its DOM). */
function editorState(editor: Locator): Promise<{ text: string; caret: number }> {
  return editor.evaluate((el) => {
    const content = el.closest(".cm-editor")?.querySelector(".cm-content") ?? el;
    const view = (content as unknown as { cmTile?: { root?: { view?: EditorDocument } } }).cmTile?.root?.view;
    if (!view) throw new Error("not a program editor");
    return { text: view.state.doc.toString(), caret: view.state.selection.main.head };
  });
}

/** The program editor's whole text. */
export const programText = (editor: Locator): Promise<string> => editorState(editor).then((s) => s.text);

/** The offset of the program editor's caret in its text. */
export const programCaret = (editor: Locator): Promise<number> => editorState(editor).then((s) => s.caret);

export const expect = baseExpect.extend({
  /** The program editor holds exactly `expected` (a string), or text it matches (a RegExp). */
  async toHaveProgram(editor: Locator, expected: string | RegExp, options?: { timeout?: number }) {
    const matches = (text: string): boolean => (typeof expected === "string" ? text === expected : expected.test(text));
    let actual = "";
    try {
      await baseExpect.poll(async () => matches((actual = await programText(editor))), { timeout: options?.timeout ?? 5000 }).toBe(!this.isNot);
    } catch {
      // The message below says what the editor held.
    }
    const pass = matches(actual);
    const shown = actual.length > 400 ? `${actual.slice(0, 400)}…` : actual;
    return { pass, name: "toHaveProgram", expected, actual, message: () => `expected the program ${this.isNot ? "not " : ""}to be ${String(expected)}, it is ${JSON.stringify(shown)}` };
  },
});
