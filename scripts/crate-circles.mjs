// Import circles between the modules of each Rust crate under crates/: a
// module that uses another which (through others) uses it back. A child
// using its parent's items is not counted (the parent declares the child and
// owns what it shares); everything else is: siblings, cousins, a parent
// using its child that uses a sibling that uses the parent's other child…
//
// Usage: node scripts/crate-circles.mjs  (prints each circle; exit 1 if any)

import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, sep } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");

/** Every .rs file under `dir`. */
function rustFiles(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return rustFiles(path);
    return name.endsWith(".rs") ? [path] : [];
  });
}

/** A file's module path from the crate's src: lib.rs and main.rs are the root, a/mod.rs and a.rs are `a`. */
function modulePath(src, file) {
  const parts = relative(src, file).split(sep);
  const last = parts.pop().replace(/\.rs$/, "");
  if (!(parts.length === 0 && (last === "lib" || last === "main")) && last !== "mod") parts.push(last);
  return parts.join("::");
}

/** The code of a file without comments, string literals and its inline test module. */
function codeOf(text) {
  const tests = text.search(/#\[cfg\(test\)\]\s*mod\s+\w+\s*\{/);
  const body = tests >= 0 ? text.slice(0, tests) : text;
  return body
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/\/\/.*$/gm, "")
    .replace(/r#*"[\s\S]*?"#*/g, '""')
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
}

/** `a::{b, c::{d, e}}` as its paths: a::b, a::c::d, a::c::e. */
function expand(tree) {
  const t = tree.replace(/\s+/g, "");
  const brace = t.indexOf("{");
  if (brace < 0) return [t.replace(/::self$/, "")];
  const prefix = t.slice(0, brace);
  const inner = t.slice(brace + 1, t.lastIndexOf("}"));
  const items = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i <= inner.length; i++) {
    const c = inner[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if ((c === "," && depth === 0) || i === inner.length) {
      if (i > start) items.push(inner.slice(start, i));
      start = i + 1;
    }
  }
  return items.flatMap((item) => expand(item)).map((p) => (p === "self" ? prefix.replace(/::$/, "") : prefix + p));
}

/** Every path a module's code names from `crate`, `super` or `self`, or from a child module of its own. */
function pathsOf(code, children) {
  const paths = [];
  for (const m of code.matchAll(/\buse\s+([^;]+);/g)) paths.push(...expand(m[1]));
  for (const m of code.matchAll(/\b(?:crate|super|self)(?:::\w+)+/g)) paths.push(m[0]);
  return paths.filter((p) => /^(crate|super|self)::/.test(p) || children.has(p.split("::")[0]));
}

/** `path` as named from module `from`, resolved to the deepest module it reaches (null: outside the crate). */
function resolvePath(path, from, modules) {
  let segs = path.split("::");
  let base = from === "" ? [] : from.split("::");
  if (segs[0] === "crate") {
    base = [];
    segs = segs.slice(1);
  } else {
    while (segs[0] === "super" || segs[0] === "self") {
      if (segs.shift() === "super") base = base.slice(0, -1);
    }
  }
  let best = null;
  for (let n = 0; n <= segs.length; n++) {
    const candidate = [...base, ...segs.slice(0, n)].join("::");
    if (modules.has(candidate)) best = candidate;
  }
  return best;
}

const isAncestor = (a, b) => a === "" || b.startsWith(`${a}::`);

/** The circles among one crate's modules, each as its modules in order, the first repeated at the end. */
export function crateCircles(src) {
  const files = new Map(rustFiles(src).map((f) => [modulePath(src, f), f]));
  const modules = new Set(files.keys());
  const edges = new Map();
  for (const [mod, file] of files) {
    const children = new Set([...modules].filter((m) => m.startsWith(mod === "" ? "" : `${mod}::`) && m !== mod && !m.slice(mod ? mod.length + 2 : 0).includes("::")).map((m) => m.split("::").pop()));
    const to = new Set();
    for (const path of pathsOf(codeOf(readFileSync(file, "utf8")), children)) {
      const target = resolvePath(path, mod, modules);
      if (target !== null && target !== mod && !isAncestor(target, mod)) to.add(target);
    }
    edges.set(mod, [...to].sort());
  }
  const circles = [];
  const state = new Map();
  const stack = [];
  const visit = (m) => {
    state.set(m, "open");
    stack.push(m);
    for (const next of edges.get(m) ?? []) {
      const s = state.get(next);
      if (s === "open") circles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (s === undefined) visit(next);
    }
    stack.pop();
    state.set(m, "done");
  };
  for (const m of [...modules].sort()) if (!state.has(m)) visit(m);
  return circles;
}

/** Every crate's circles, as "crate: a -> b -> a". */
export function allCircles(crates = join(ROOT, "crates")) {
  return readdirSync(crates)
    .filter((name) => existsSync(join(crates, name, "src")))
    .flatMap((name) => crateCircles(join(crates, name, "src")).map((c) => `${name}: ${c.map((m) => m || "(root)").join(" -> ")}`));
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const circles = allCircles();
  for (const c of circles) console.log(c);
  if (circles.length > 0) process.exit(1);
  console.log("no module circles in crates/");
}
