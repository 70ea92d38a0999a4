// The import graph of the page's own modules (web/src, tests excluded): no
// file depends on itself through others, and the layers point one way, so
// each layer can be read, tested and bundled without the ones above it:
//
//   wasm  <-  model  <-  state  <-  controller  <-  views  <-  appView, shells
//
// share/ holds the share link's and trace file's formats and the figure
// export: pure functions on wasm and model that state, controller and
// views all use. The shells (app.ts, player.ts, main.ts, embed.ts,
// component.ts) are at the top, beside appView.ts: nothing imports them but
// each other. A render never starts a trace: no view reaches a module that
// runs the trace module; the controllers trace and dispatch into the store.
//
// Type-only imports count: they are dependencies a reader follows too.

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = dirname(fileURLToPath(import.meta.url));

/** Every non-test .ts file under `dir`, as absolute paths. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith(".ts") && !name.endsWith(".test.ts") && !name.endsWith(".d.ts") ? [path] : [];
  });
}

const PATTERNS = [
  // import … from "./x", export … from "./x" (across lines: a brace list may wrap)
  /(?:^|[\s;}])(?:import|export)\s+(?:type\s+)?[^;"'`]*?\bfrom\s*["']([^"']+)["']/g,
  // import "./x" for its effects
  /(?:^|[\s;}])import\s*["']([^"']+)["']/g,
  // import("./x"), also as `typeof import("./x")`
  /\bimport\s*\(\s*["']([^"']+)["']\s*\)/g,
  // new Worker(new URL("./x.ts", import.meta.url))
  /\bnew\s+URL\(\s*["']([^"']+)["']\s*,\s*import\.meta\.url\s*\)/g,
];

/** The relative specifiers a source text imports, comment lines left out. */
function importSpecifiers(text: string): string[] {
  const code = text
    .split("\n")
    .filter((line) => !/^\s*(\/\/|\/\*|\*)/.test(line))
    .join("\n");
  const found = new Set<string>();
  for (const pattern of PATTERNS) {
    for (const m of code.matchAll(pattern)) {
      const spec = m[1];
      if (spec?.startsWith(".")) found.add(spec);
    }
  }
  return [...found];
}

/** The .ts file a relative specifier names (x.ts, x/index.ts), or null (a .css, .json or wasm glue import). */
function resolveSpecifier(from: string, spec: string, files: ReadonlySet<string>): string | null {
  const base = resolve(dirname(from), spec.replace(/\?.*$/, ""));
  for (const candidate of [base, `${base}.ts`, join(base, "index.ts")]) if (files.has(candidate)) return candidate;
  return null;
}

type Graph = ReadonlyMap<string, readonly string[]>;

/** File (relative to web/src, with "/") to the files it imports. */
function importGraph(): { graph: Graph; unresolved: string[] } {
  const files = sourceFiles(ROOT);
  const set = new Set(files);
  const name = (path: string): string => relative(ROOT, path).split(sep).join("/");
  const graph = new Map<string, string[]>();
  const unresolved: string[] = [];
  for (const file of files) {
    const targets: string[] = [];
    for (const spec of importSpecifiers(readFileSync(file, "utf8"))) {
      const target = resolveSpecifier(file, spec, set);
      if (target) targets.push(name(target));
      else if (/\.ts$|\/[^./]+$|^\.\.?\/[^./]+$/.test(spec.replace(/\?.*$/, ""))) unresolved.push(`${name(file)}: ${spec}`);
    }
    graph.set(name(file), targets);
  }
  return { graph, unresolved };
}

/** Every cycle a depth-first search meets, each as a path that ends where it starts. */
function findCycles(graph: Graph): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, "open");
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const s = state.get(next);
      if (s === "open") cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(node, "done");
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** Layers a file's layer must not import from ("app": the top-level shells and appView.ts). */
const FORBIDDEN: Record<string, readonly string[]> = {
  wasm: ["model", "views", "state", "controller", "share", "app"],
  model: ["views", "state", "controller", "share", "app"],
  state: ["views", "controller", "share", "app"],
  // Controllers run effects and dispatch: what they draw is the views' to say.
  controller: ["views", "app"],
  share: ["views", "state", "controller", "app"],
  views: ["app"],
};

/** Imports across the layers above, each with why it is not a dependency on the layer's logic. */
const ALLOWED: Record<string, string> = {
  // The format of the share link the state reads and writes.
  "state/reducer.ts -> share/link.ts": "SharedState, the link's fields, is the type applyShared takes",
  "state/shareSync.ts -> share/link.ts": "the store syncs with the share link",
  // Element-making helpers, no view logic.
  "controller/present.ts -> views/dom.ts": "the Present toggle is made with the page's h() and setText()",
  // An exported figure's blocks must have the map's colours.
  "share/export.ts -> views/map/palette.ts": "the map's block colours, which an exported figure copies",
};

const layerOf = (file: string): string => (file.includes("/") ? (file.split("/")[0] as string) : "app");

function layerViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const banned = FORBIDDEN[layerOf(file)] ?? [];
    for (const target of targets) if (banned.includes(layerOf(target)) && !(`${file} -> ${target}` in ALLOWED)) out.push(`${file} -> ${target}`);
  }
  return out;
}

/** The modules that run the trace module: only controllers and shells may reach them. */
const TRACE_STARTERS = ["wasm/run.ts", "wasm/slices.ts", "controller/tracer.ts", "controller/compare.ts", "controller/sweep.ts"];

/** Every module `roots` reach through their imports, themselves included. */
function reached(graph: Graph, roots: readonly string[]): Set<string> {
  const seen = new Set<string>();
  const todo = [...roots];
  for (let next = todo.pop(); next !== undefined; next = todo.pop()) {
    if (seen.has(next)) continue;
    seen.add(next);
    todo.push(...(graph.get(next) ?? []));
  }
  return seen;
}

describe("the import graph", () => {
  const { graph, unresolved } = importGraph();

  it("is read whole: every module and its imports are found", () => {
    const edges = [...graph.values()].reduce((n, targets) => n + targets.length, 0);
    expect(graph.size, "modules").toBeGreaterThanOrEqual(80);
    expect(edges, "imports").toBeGreaterThanOrEqual(300);
    expect(graph.get("app.ts")?.length ?? 0).toBeGreaterThan(5);
    // A relative import of a module that is not there is a parse or resolve error here.
    expect(unresolved).toEqual([]);
  });

  it("parses static, re-export, side-effect and dynamic imports, not comments", () => {
    const text = [
      'import { a, type B } from "./a";',
      'import type {\n  C,\n  D,\n} from "../c";',
      'export { e } from "./e";',
      'export * from "./f";',
      'import "./g.css";',
      'const h = await import("./h");',
      'type I = typeof import("./i").i;',
      '// import { z } from "./commented";',
      'import { readFileSync } from "node:fs";',
    ].join("\n");
    expect(importSpecifiers(text).sort()).toEqual(["../c", "./a", "./e", "./f", "./g.css", "./h", "./i"]);
  });

  it("the cycle finder finds a cycle and its path", () => {
    const g = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts", "d.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", []],
    ]);
    expect(findCycles(g)).toEqual([["a.ts", "b.ts", "c.ts", "a.ts"]]);
    expect(findCycles(new Map([["a.ts", ["a.ts"]]]))).toEqual([["a.ts", "a.ts"]]);
    expect(findCycles(new Map([["a.ts", ["b.ts"]], ["b.ts", []]]))).toEqual([]);
  });

  it("has no cycles", () => {
    const cycles = findCycles(graph).map((c) => c.join(" -> "));
    expect(cycles, `import cycles:\n${cycles.join("\n")}`).toEqual([]);
  });

  it("keeps the layers pointing one way", () => {
    expect(layerViolations(new Map([["model/x.ts", ["views/y.ts", "wasm/z.ts"]]]))).toEqual(["model/x.ts -> views/y.ts"]);
    expect(layerViolations(new Map([["controller/x.ts", ["views/y.ts", "state/z.ts", "app.ts"]]]))).toEqual(["controller/x.ts -> views/y.ts", "controller/x.ts -> app.ts"]);
    expect(layerViolations(new Map([["share/x.ts", ["state/y.ts", "controller/z.ts", "model/w.ts"]]]))).toEqual(["share/x.ts -> state/y.ts", "share/x.ts -> controller/z.ts"]);
    expect(layerViolations(new Map([["views/x.ts", ["player.ts", "appView.ts", "share/y.ts"]]]))).toEqual(["views/x.ts -> player.ts", "views/x.ts -> appView.ts"]);
    expect(layerViolations(graph)).toEqual([]);
    // Each exception is still an import: one no longer made is struck off.
    for (const edge of Object.keys(ALLOWED)) {
      const [from, to] = edge.split(" -> ") as [string, string];
      expect(graph.get(from), edge).toContain(to);
    }
  });

  it("starts no trace from a render: the views and appView.ts reach no module that runs the trace module", () => {
    const renderers = [...graph.keys()].filter((file) => file === "appView.ts" || layerOf(file) === "views");
    expect(renderers.length, "views").toBeGreaterThanOrEqual(40);
    const reach = reached(graph, renderers);
    expect(TRACE_STARTERS.filter((file) => reach.has(file))).toEqual([]);
    // The starters are modules here, reached by the shells that run the controllers.
    const shells = reached(graph, ["app.ts", "player.ts"]);
    for (const file of TRACE_STARTERS) expect(shells.has(file), file).toBe(true);
    // The search finds a starter a view would reach through another module.
    expect(reached(new Map([["views/a.ts", ["model/b.ts"]], ["model/b.ts", ["wasm/run.ts"]]]), ["views/a.ts"]).has("wasm/run.ts")).toBe(true);
  });
});
