// Builds the wasm module the page and the CLI load: cargo (release, wasm32,
// LTO) -> wasm-bindgen (via wasm-pack) -> bumplab-meter, which adds the
// executed-instruction counters LAST, so the counted code is the code that
// ships. No wasm-opt: its inliner ignores #[inline(never)], folding the
// measured entry points and the models' cold slow paths (bumpalo's among
// them) into their callers, so what was counted would no longer be the code
// the sources describe. Skipped when no input changed since the last build.
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
run("cargo", ["build", "--release", "--quiet", "-p", "bumplab-meter"]);
run(join(root, "target", "release", "bumplab-meter"), [wasm, "-o", wasm]);
writeFileSync(stamp, inputs);
log(`wasm built: ${wasm}`);
