// Installs whatever is missing, and nothing that is already there:
// npm packages, the wasm32 target, wasm-pack and the pinned wasm-bindgen CLI,
// and (with --with-browser) Debian's Chromium for the browser tests.
// A second run only checks versions and takes a few seconds.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hashTree, log, output, root, run } from "./lib.mjs";
import { CHROMIUM, WASM_BINDGEN, WASM_PACK } from "./versions.mjs";

const withBrowser = process.argv.includes("--with-browser");
const stamps = join(root, ".stamps");
mkdirSync(stamps, { recursive: true });

function checkPins() {
  const cargo = readFileSync(join(root, "Cargo.toml"), "utf8");
  if (!cargo.includes(`wasm-bindgen = "=${WASM_BINDGEN}"`)) {
    console.error(`[bump-lab] Cargo.toml must pin wasm-bindgen = "=${WASM_BINDGEN}" (scripts/versions.mjs)`);
    process.exit(1);
  }
}

function npmPackages() {
  const want = hashTree(["package.json", "package-lock.json"]);
  const stamp = join(stamps, "npm");
  if (existsSync(join(root, "node_modules")) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) return;
  run("npm", ["ci", "--no-audit", "--no-fund"]);
  writeFileSync(stamp, want);
}

function rustTarget() {
  const installed = output("rustup", ["target", "list", "--installed"]) ?? "";
  if (!installed.split("\n").includes("wasm32-unknown-unknown")) {
    run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
  }
}

function cargoTool(bin, crate, version, minutes) {
  const have = output(bin, ["--version"]);
  if (have?.split(" ")[1] === version) return;
  log(`installing ${crate} ${version} from source (${minutes} on 2 cores, once)`);
  // No --locked: the published lockfiles pin crate versions this
  // registry does not serve; cargo resolves to ones it does.
  run("cargo", ["install", crate, "--version", version, "--force"]);
}

function chromium() {
  if (existsSync(CHROMIUM)) return;
  log("installing Debian's Chromium for the browser tests (once)");
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  const apt = (args) =>
    process.getuid?.() === 0 ? run("apt-get", args, { env }) : run("sudo", ["-E", "apt-get", ...args], { env });
  apt(["update", "-q"]);
  apt(["install", "-y", "-q", "--no-install-recommends", "chromium", "fonts-dejavu-core"]);
}

checkPins();
npmPackages();
rustTarget();
cargoTool("wasm-bindgen", "wasm-bindgen-cli", WASM_BINDGEN, "about 5-10 minutes");
cargoTool("wasm-pack", "wasm-pack", WASM_PACK, "about 4 minutes");
if (withBrowser) chromium();
log("setup complete");
