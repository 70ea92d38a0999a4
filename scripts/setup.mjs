// Installs whatever is missing, and nothing that is already there:
// npm packages, the wasm32 targets (wasm32-unknown-unknown for the page's
// modules, wasm32-wasip1 for the differential tests that run the real Rust
// allocators on wasm32 under Node's node:wasi), wasm-pack and the pinned
// wasm-bindgen CLI, (with --with-browser) Debian's Chromium, Firefox ESR and
// WebKitGTK for the browser tests, and (with --with-native-tools) what the
// differential tests against the C++ and Zig allocators build with: Debian's
// g++, its g++-multilib (the 32-bit builds that stand in for wasm32) and
// LLVM development package (and LLVM 14's tools, whose llvm-dwarfdump checks
// the listing's lines), and the Zig toolchain from PyPI's ziglang wheel,
// kept under ~/.cache/bump-lab/,
// (with --with-site-generators) Debian's hugo and jekyll, and (with
// --with-actionlint) actionlint, built with Go under ~/.cache/bump-lab/.
// A second run only checks versions and takes a few seconds.
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { hashTree, log, output, root, run } from "./lib.mjs";
import { ACTIONLINT, CHROMIUM, FIREFOX, MDBOOK, MINIBROWSER, WASM_BINDGEN, WASM_PACK, WEBKIT_DRIVER, ZIGLANG } from "./versions.mjs";

const withBrowser = process.argv.includes("--with-browser");
const withNativeTools = process.argv.includes("--with-native-tools");
const withSiteGenerators = process.argv.includes("--with-site-generators");
const withActionlint = process.argv.includes("--with-actionlint");
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

function rustTargets() {
  const installed = (output("rustup", ["target", "list", "--installed"]) ?? "").split("\n");
  for (const target of ["wasm32-unknown-unknown", "wasm32-wasip1"]) {
    if (!installed.includes(target)) run("rustup", ["target", "add", target]);
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

function apt(args) {
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  if (process.getuid?.() === 0) run("apt-get", args, { env });
  else run("sudo", ["-E", "apt-get", ...args], { env });
}

// The browsers the tests drive, all Debian's (no browser build is
// downloaded): Chromium for Playwright; Firefox ESR and WebKitGTK's
// WebDriver with its MiniBrowser for tests/browsers/, which runs
// MiniBrowser in xvfb's virtual display (it has no headless mode).
function browsers() {
  const missing = [];
  if (!existsSync(CHROMIUM)) missing.push("chromium", "fonts-dejavu-core");
  if (!existsSync(FIREFOX)) missing.push("firefox-esr");
  if (!existsSync(WEBKIT_DRIVER) || !existsSync(MINIBROWSER)) missing.push("webkit2gtk-driver");
  if (!existsSync("/usr/bin/xvfb-run")) missing.push("xvfb", "xauth");
  if (missing.length === 0) return;
  log(`installing Debian's ${missing.join(", ")} for the browser tests (once)`);
  apt(["update", "-q"]);
  apt(["install", "-y", "-q", "--no-install-recommends", ...missing]);
}

// g++ builds the llvm-bump-ptr and pmr-monotonic harnesses against the
// installed headers; llvm-dev is LLVM's llvm/Support/Allocator.h and libLLVM
// (LLVM 14 on Debian bookworm; llvm-config finds them); g++-multilib builds
// them again with -m32, four-byte pointers standing in for wasm32's.
// llvm-14's llvm-dwarfdump-14 and llvm-cxxfilt-14 are the second reader of
// the cost module's DWARF line tables that the listing is checked against
// (scripts/dwarf-lines.mjs).
function debianToolchain() {
  const missing = [];
  if (!output("g++", ["--version"])) missing.push("g++");
  if (!multilibWorks()) missing.push("g++-multilib");
  if (!output("llvm-config", ["--version"])) missing.push("llvm-dev");
  if (!output("llvm-dwarfdump-14", ["--version"]) || !output("llvm-cxxfilt-14", ["--version"])) missing.push("llvm-14");
  if (!output("python3", ["-m", "pip", "--version"])) missing.push("python3-pip");
  // jq re-records the shipped jq recording (crates/record/tests/shipped.rs).
  if (!output("jq", ["--version"])) missing.push("jq");
  if (missing.length === 0) return;
  log(`installing Debian's ${missing.join(", ")} for the differential tests against the C++ and Zig allocators (once)`);
  apt(["update", "-q"]);
  apt(["install", "-y", "-q", "--no-install-recommends", ...missing]);
}

// The Zig compiler and its standard library (ArenaAllocator.zig,
// FixedBufferAllocator.zig) from PyPI's ziglang wheel, which is a zip:
// downloaded once with pip, unpacked under ~/.cache/bump-lab/ziglang-<version>
// (where crates/core/tests/common/native.rs looks for it).
function ziglang() {
  const dir = join(homedir(), ".cache", "bump-lab", `ziglang-${ZIGLANG}`);
  const zig = join(dir, "ziglang", "zig");
  if (output(zig, ["version"]) === ZIGLANG) return;
  log(`installing the Zig toolchain (PyPI's ziglang ${ZIGLANG}, about 100 MB) under ${dir} (once)`);
  const wheels = join(dir, "wheel");
  mkdirSync(wheels, { recursive: true });
  run("python3", ["-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--dest", wheels, `ziglang==${ZIGLANG}`]);
  const wheel = readdirSync(wheels).find((f) => f.startsWith(`ziglang-${ZIGLANG}-`) && f.endsWith(".whl"));
  if (!wheel) {
    console.error(`[bump-lab] pip did not leave a ziglang ${ZIGLANG} wheel in ${wheels}`);
    process.exit(1);
  }
  run("python3", ["-c", "import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])", join(wheels, wheel), dir]);
  chmodSync(zig, 0o755);
  // The unpacked toolchain is what is kept; the wheel is 100 MB more.
  rmSync(wheels, { recursive: true, force: true });
  const version = output(zig, ["version"]);
  if (version !== ZIGLANG) {
    console.error(`[bump-lab] ${zig} reports "${version}", expected ${ZIGLANG}`);
    process.exit(1);
  }
}

// Debian's Hugo and Jekyll build the tiny blogs in tests/sites/ that
// tests/e2e/sites.spec.ts embeds the share panel's snippets in. Debian's
// jekyll runs without bundler and brings its plugins as packages, so a site
// build fetches no gems.
function siteGenerators() {
  const missing = [];
  if (!output("hugo", ["version"])) missing.push("hugo");
  if (!output("jekyll", ["--version"])) missing.push("jekyll");
  if (missing.length === 0) return;
  log(`installing Debian's ${missing.join(" and ")} for the blog embed tests (once)`);
  apt(["update", "-q"]);
  apt(["install", "-y", "-q", "--no-install-recommends", ...missing]);
}

// The `bumplab` fence's three generators (tests/e2e/fences.spec.ts): mdBook
// from crates.io (cargo install, into ~/.cargo/bin like the wasm tools), and
// VitePress and Astro from npm, each pinned by its own lockfile in
// tests/sites/<name>/ and installed there, so the root's packages stay the
// app's own.
function fenceGenerators() {
  if (output("mdbook", ["--version"])?.trim() !== `mdbook v${MDBOOK}`) {
    log(`installing mdbook ${MDBOOK} from source (about 4 minutes on 2 cores, once)`);
    run("cargo", ["install", "mdbook", "--version", MDBOOK, "--no-default-features", "--locked", "--force"]);
  }
  for (const site of ["vitepress", "astro"]) {
    const dir = join(root, "tests", "sites", site);
    const want = hashTree([`tests/sites/${site}/package.json`, `tests/sites/${site}/package-lock.json`]);
    const stamp = join(stamps, `site-${site}`);
    if (existsSync(join(dir, "node_modules")) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) continue;
    run("npm", ["ci", "--no-audit", "--no-fund"], { cwd: dir });
    writeFileSync(stamp, want);
  }
}

// actionlint (the workflow checker for .github/workflows/), built from source
// through the Go module proxy into ~/.cache/bump-lab/actionlint-<version>/,
// where scripts/test-all.mjs runs it. Go is Debian's when none is installed;
// a Go older than actionlint needs fetches its newer toolchain from the
// same proxy (GOTOOLCHAIN=auto).
const actionlintBin = join(homedir(), ".cache", "bump-lab", `actionlint-${ACTIONLINT}`, "actionlint");
function actionlint() {
  if (output(actionlintBin, ["--version"])?.split("\n")[0] === `v${ACTIONLINT}`) return;
  let go = ["go", "/usr/local/go/bin/go"].find((bin) => output(bin, ["version"]));
  if (!go) {
    log("installing Debian's golang-go to build actionlint (once)");
    apt(["update", "-q"]);
    apt(["install", "-y", "-q", "--no-install-recommends", "golang-go"]);
    go = "go";
  }
  log(`building actionlint ${ACTIONLINT} from the Go module proxy (about 3 minutes, once)`);
  run(go, ["install", `github.com/rhysd/actionlint/cmd/actionlint@v${ACTIONLINT}`], {
    env: { ...process.env, GOBIN: dirname(actionlintBin), GOTOOLCHAIN: process.env.GOTOOLCHAIN ?? "auto" },
  });
}

/** Whether `g++ -m32` links a C++ program (Debian's g++-multilib is there). */
function multilibWorks() {
  const dir = join(stamps, "m32");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "probe.cpp"), "#include <memory_resource>\nint main() { std::pmr::monotonic_buffer_resource r; return r.allocate(1) == nullptr; }\n");
  return output("g++", ["-m32", "-std=c++17", join(dir, "probe.cpp"), "-o", join(dir, "probe")]) !== null;
}

checkPins();
npmPackages();
rustTargets();
cargoTool("wasm-bindgen", "wasm-bindgen-cli", WASM_BINDGEN, "about 5-10 minutes");
cargoTool("wasm-pack", "wasm-pack", WASM_PACK, "about 4 minutes");
if (withBrowser) browsers();
if (withNativeTools) {
  debianToolchain();
  ziglang();
  const gxx = output("g++", ["-dumpfullversion"]);
  const llvm = output("llvm-config", ["--version"]);
  log(`differential tests build with g++ ${gxx}, LLVM ${llvm} (llvm-config) and Zig ${ZIGLANG} (~/.cache/bump-lab/ziglang-${ZIGLANG})`);
  const dwarfdump = output("llvm-dwarfdump-14", ["--version"])?.match(/LLVM version (\S+)/)?.[1];
  log(`the listing's lines are checked with llvm-dwarfdump-14 (LLVM ${dwarfdump})`);
}
if (withSiteGenerators) {
  siteGenerators();
  fenceGenerators();
  const hugo = output("hugo", ["version"])?.split(" ").slice(0, 2).join(" ");
  log(`blog embed tests build with ${hugo} and ${output("jekyll", ["--version"])}; fence tests with ${output("mdbook", ["--version"])}, VitePress and Astro (tests/sites/)`);
}
if (withActionlint) actionlint();
log("setup complete");
