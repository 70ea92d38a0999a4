import { describe, expect, it } from "vitest";
import { sourceShown, sourceTexts } from "./sourceTexts";

const flush = () => new Promise((r) => setTimeout(r, 0));

describe("sourceTexts", () => {
  it("fetches a text once, says it is loading meanwhile, and renders again when it arrives", async () => {
    const loads: string[] = [];
    let renders = 0;
    const lookup = sourceTexts({
      sourcePath: (name) => `crates/core/src/algorithms/${name.replace("-", "_")}.rs`,
      load: async (path) => {
        loads.push(path);
        return `// ${path}\nfn bump() {}`;
      },
      onLoaded: () => void renders++,
    });
    const first = lookup("bump-down");
    expect(first).toEqual({ state: "loading", path: "crates/core/src/algorithms/bump_down.rs" });
    expect(sourceShown(first)).toBe("// loading crates/core/src/algorithms/bump_down.rs…");
    expect(lookup("bump-down").state).toBe("loading");
    await flush();
    expect(renders).toBe(1);
    expect(lookup("bump-down")).toEqual({ state: "ready", path: "crates/core/src/algorithms/bump_down.rs", text: "// crates/core/src/algorithms/bump_down.rs\nfn bump() {}" });
    expect(loads).toEqual(["crates/core/src/algorithms/bump_down.rs"]);
  });

  it("uses an embedded text at once, and says when a file cannot be had", async () => {
    const lookup = sourceTexts({
      sourceText: (name) => (name === "fixed" ? "fixed text" : undefined),
      sourcePath: (name) => `src/${name}.rs`,
      load: async (path) => (path === "src/gone.rs" ? undefined : Promise.reject(new Error("offline"))),
      onLoaded: () => undefined,
    });
    expect(lookup("fixed")).toEqual({ state: "ready", path: "src/fixed.rs", text: "fixed text" });
    lookup("gone");
    lookup("offline");
    await flush();
    expect(sourceShown(lookup("gone"))).toBe("// the source of src/gone.rs is unavailable");
    expect(lookup("offline").state).toBe("missing");
  });
});
