// Builds the wasm module the page and the CLI load: cargo (release, wasm32)
// -> wasm-bindgen (via wasm-pack) -> wasm-opt (npm's binaryen; Debian's is too
// old for this rustc). Skipped when no input changed since the last build.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashTree, log, root, run } from "./lib.mjs";

const pkg = join(root, "web", "pkg");
const stamp = join(pkg, ".stamp");
const inputs = hashTree(
  ["Cargo.toml", "Cargo.lock", "crates", "scripts/build-wasm.mjs", "scripts/versions.mjs"],
  (p) => p.includes("/target"),
);

if (existsSync(stamp) && readFileSync(stamp, "utf8") === inputs && !process.argv.includes("--force")) {
  log("wasm is up to date");
  process.exit(0);
}

run("wasm-pack", [
  "build",
  "crates/wasm",
  "--release",
  "--target",
  "web",
  "--out-dir",
  "../../web/pkg",
  "--out-name",
  "bumplab",
  "--no-pack",
  // Never let wasm-pack download anything: setup.mjs installed the pinned CLI.
  "--mode",
  "no-install",
]);
const wasm = join(pkg, "bumplab_bg.wasm");
run("wasm-opt", ["-O3", "--enable-bulk-memory", "--enable-nontrapping-float-to-int", "--enable-sign-ext", "--enable-mutable-globals", "--enable-reference-types", "--enable-multivalue", wasm, "-o", wasm]);
writeFileSync(stamp, inputs);
log(`wasm built: ${wasm}`);
