// The import graph of the page's own modules (web/src, tests excluded): no
// file depends on itself through others, and the layers point one way, so
// each layer can be read, tested and bundled without the ones above it:
//
//   engine  <-  model  <-  state  <-  views, controller, share, app
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

/** Layers a file's layer must not import from. */
const FORBIDDEN: Record<string, readonly string[]> = {
  engine: ["model", "views", "state", "controller", "share"],
  model: ["views", "state", "controller"],
  state: ["views", "controller"],
};

const layerOf = (file: string): string => (file.includes("/") ? (file.split("/")[0] as string) : "app");

function layerViolations(graph: Graph): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const banned = FORBIDDEN[layerOf(file)] ?? [];
    for (const target of targets) if (banned.includes(layerOf(target))) out.push(`${file} -> ${target}`);
  }
  return out;
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
    expect(layerViolations(new Map([["model/x.ts", ["views/y.ts", "engine/z.ts"]]]))).toEqual(["model/x.ts -> views/y.ts"]);
    expect(layerViolations(graph)).toEqual([]);
  });
});
