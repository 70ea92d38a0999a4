// Builds the two wasm modules the page and the CLI load, each named once:
// the crate crates/<name>, the folder web/pkg-<name>, the files <name>*.
//
// - trace, web/pkg-trace/trace*: crates/trace (the resumable columnar run
//   the map, stepper, embed and <bump-lab> load first), in three builds
//   (below). Never metered, so each is built for what its page needs:
//   the embed's and <bump-lab>'s two (one per preset family) for size,
//   opt-level "z" for every crate in them (CARGO_PROFILE_RELEASE_OPT_LEVEL:
//   with LTO the dependencies' level counts, a package override for the
//   cdylib alone saves almost nothing), then wasm-opt -Oz; the app's and the
//   CLI's one (every preset) for speed, opt-level 3 then wasm-opt -O3, which
//   runs a million ops about 1.5x as fast for 1.6x the gzip bytes. wasm-opt
//   is npm's binaryen (Debian's is too old for Rust 1.95's output: the module
//   it writes fails to load).
// - cost, web/pkg-cost/cost*: crates/cost, loaded only when costs are
//   shown: cargo (release, wasm32, LTO) -> wasm-bindgen (via wasm-pack) ->
//   bumplab-meter, which adds the executed-instruction counters LAST, so the
//   counted code is the code that ships. No wasm-opt: its inliner ignores
//   #[inline(never)], folding the measured entry points and the models' cold
//   slow paths (bumpalo's among them) into their callers, so what was counted
//   would no longer be the code the sources describe.
//
// Each module is skipped when none of its inputs changed since its last
// build (a stamp in its output folder); --force rebuilds both, --only trace|cost
// builds one. A module is built in web/.pkg-build/ and moved into place only
// once it loads, so a failed build never leaves a half-made module (an
// unmetered one, say) where the page and tests look. Any failure stops
// the build and says which step.
import { spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { gzipSync } from "node:zlib";
import { hashTree, log, output, root, run } from "./lib.mjs";
import { splitListing } from "./split-listing.mjs";
import { BINARYEN } from "./versions.mjs";

const force = process.argv.includes("--force");
const onlyAt = process.argv.indexOf("--only");
const only = onlyAt >= 0 ? process.argv[onlyAt + 1] : null;
if (only !== null && only !== "trace" && only !== "cost") {
  console.error("[bump-lab] --only takes trace or cost");
  process.exit(2);
}

const SHARED = ["Cargo.toml", "Cargo.lock", "crates/core", "scripts/build-wasm.mjs", "scripts/versions.mjs"];
const skipTarget = (p) => p.includes("/target");

/** wasm-opt from npm's binaryen (node_modules/.bin), checked to be the pinned version. */
function wasmOpt() {
  const bin = join(root, "node_modules", ".bin", "wasm-opt");
  const version = existsSync(bin) ? output(bin, ["--version"]) : null;
  if (!version || !version.includes(`version ${BINARYEN}`)) {
    fail(
      "trace",
      `wasm-opt ${BINARYEN} from npm's binaryen is needed (${version ? `found "${version}"` : `${bin} is missing`}): ` +
        "run `node scripts/setup.mjs` (npm ci installs binaryen, a devDependency)",
    );
  }
  return { bin, version };
}

function fail(module, message) {
  console.error(`[bump-lab] the ${module} wasm module did not build: ${message}`);
  process.exit(1);
}

function sizes(file) {
  const bytes = readFileSync(file);
  const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
  return `${kb(bytes.length)} raw, ${kb(gzipSync(bytes, { level: 9 }).length)} gzip -9`;
}

/**
 * Unless the stamp in `dir` says `inputs` were built already: `fn(tmp)`
 * builds into a scratch folder, which then replaces `dir`.
 */
async function buildIfChanged(name, dir, inputs, fn) {
  const stamp = join(dir, ".stamp");
  if (!force && existsSync(stamp) && readFileSync(stamp, "utf8") === inputs) {
    log(`${name} wasm is up to date`);
    return;
  }
  const scratch = join(root, "web", ".pkg-build");
  const tmp = join(scratch, name);
  rmSync(tmp, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  await fn(tmp);
  writeFileSync(join(tmp, ".stamp"), inputs);
  rmSync(dir, { recursive: true, force: true });
  renameSync(tmp, dir);
  rmSync(scratch, { recursive: true, force: true });
}

/** wasm-pack build of `crate` into `outDir` as `outName`, with the pinned CLI and no downloads; `cargoArgs` go to cargo. */
function wasmPack(module, crate, outDir, outName, env = {}, cargoArgs = []) {
  run(
    "wasm-pack",
    [
      "build",
      crate,
      "--release",
      "--target",
      "web",
      "--out-dir",
      outDir,
      "--out-name",
      outName,
      "--no-pack",
      // Never let wasm-pack download anything: setup.mjs installed the pinned CLI.
      "--mode",
      "no-install",
      ...(cargoArgs.length ? ["--", ...cargoArgs] : []),
    ],
    { env: { ...process.env, ...env }, hint: `the ${module} wasm module (${crate}): wasm-pack failed; its output is above` },
  );
}

// --- Trace ---------------------------------------------------------------------
// The trace module in three builds of the same crates/trace. For the embed
// and <bump-lab>, whose download is their first map's, one per preset family
// (bumplab_core::presets::Family), built for size: web/pkg-trace runs the
// core presets and is fetched first; web/pkg-trace-more runs the other
// arenas and is fetched only when one of them is shown. For the app and the
// CLI, which trace programs of a million ops, web/pkg-trace-fast runs every
// preset, built for speed.
const TRACE_BUILDS = [
  { name: "trace", dir: "pkg-trace", features: "core-presets", optLevel: "z", wasmOpt: "-Oz" },
  { name: "trace (more arenas)", dir: "pkg-trace-more", features: "more-arenas", optLevel: "z", wasmOpt: "-Oz" },
  // The CLI's build also carries the `bumplab` code fence's parser (crates/fence) for the Markdown plugins.
  { name: "trace (fast, every preset)", dir: "pkg-trace-fast", features: "core-presets,more-arenas,fence", optLevel: "3", wasmOpt: "-O3" },
];

async function buildTrace() {
  const opt = wasmOpt();
  for (const build of TRACE_BUILDS) {
    const dir = join(root, "web", build.dir);
    const inputs = hashTree([...SHARED, "crates/trace", "crates/fence"], skipTarget) + `\n${opt.version}\n${build.features}\n${build.optLevel} ${build.wasmOpt}`;
    await buildIfChanged(build.dir, dir, inputs, async (tmp) => {
      wasmPack(build.name, "crates/trace", tmp, "trace", { CARGO_PROFILE_RELEASE_OPT_LEVEL: build.optLevel }, ["--no-default-features", "--features", build.features]);
      addReinstantiate(build.name, join(tmp, "trace.js"), join(tmp, "trace.d.ts"));
      const wasm = join(tmp, "trace_bg.wasm");
      const before = sizes(wasm);
      // The module's target_features section tells wasm-opt which features it uses.
      run(opt.bin, [build.wasmOpt, "--strip-debug", "--strip-producers", wasm, "-o", wasm], {
        hint: `the ${build.name} wasm module: wasm-opt ${build.wasmOpt} failed on ${wasm}`,
      });
      await loads(build.name, tmp, "trace");
      log(`${build.name} wasm built: web/${build.dir}/trace_bg.wasm: ${sizes(wasm)} (before wasm-opt: ${before})`);
    });
  }
}

/**
 * Adds `reinstantiate()` to wasm-bindgen's glue: a fresh instance of the
 * module it loaded, in place of one a trap left in an unknown state (the
 * glue keeps its instance in a variable of its own, and initialises only
 * once). The page's adapter (web/src/wasm/traceModule.ts) calls it after a
 * trap, having dropped every object of the old instance.
 */
export function addReinstantiate(module, glueFile, typesFile) {
  const glue = readFileSync(glueFile, "utf8");
  for (const needed of ["let wasmModule, wasmInstance, wasm;", "function __wbg_get_imports()", "function __wbg_finalize_init(instance, module)"]) {
    if (!glue.includes(needed)) fail(module, `wasm-bindgen's glue no longer has \`${needed}\`: update addReinstantiate in scripts/build-wasm.mjs`);
  }
  const added = `
/** Bump Lab: a fresh instance of the module, replacing one a trap left unusable (scripts/build-wasm.mjs). */
export function reinstantiate() {
    if (wasmModule === undefined) throw new Error("the module was never instantiated");
    const instance = new WebAssembly.Instance(wasmModule, __wbg_get_imports());
    __wbg_finalize_init(instance, wasmModule);
}
`;
  writeFileSync(glueFile, glue + added);
  writeFileSync(typesFile, `${readFileSync(typesFile, "utf8")}\n/** A fresh instance of the module, replacing one a trap left unusable. */\nexport function reinstantiate(): void;\n`);
}

/**
 * Instantiates the module with its own glue, in a child process (a fresh
 * module registry), so a module a wasm-opt broke fails here, not in the page.
 */
async function loads(module, dir, name) {
  const glue = pathToFileURL(join(dir, `${name}.js`)).href;
  const wasm = join(dir, `${name}_bg.wasm`);
  const script = `
    import { readFileSync } from "node:fs";
    const m = await import(${JSON.stringify(glue)});
    m.initSync({ module: readFileSync(${JSON.stringify(wasm)}) });
    if (typeof m.listAllocators === "function" && !Array.isArray(JSON.parse(m.listAllocators()))) throw new Error("listAllocators is not a list");
  `;
  const r = spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", cwd: root });
  if (r.status !== 0) fail(module, `${wasm} does not load: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" | ")}`);
}

// --- Cost ----------------------------------------------------------------------
async function buildCost() {
  const dir = join(root, "web", "pkg-cost");
  const inputs = hashTree([...SHARED, "crates/cost", "crates/meter"], skipTarget);
  await buildIfChanged("pkg-cost", dir, inputs, async (tmp) => {
    // DWARF line tables, for the source line of each instruction in the
    // listing (crates/meter/src/lines.rs reads them from cargo's own output
    // of this very build, kept as cost_bg.debug.wasm; the page never loads
    // it). Asked for through RUSTFLAGS, not the profile: cargo hashes the
    // profile's debug setting into every crate's -C metadata, which renames
    // the symbols and reorders the functions and data, while with RUSTFLAGS
    // wasm-bindgen's output is the same byte for byte as without line tables
    // (-Cstrip=none: a release profile without debug info strips it at link).
    // wasm-bindgen drops the DWARF, so the shipped module carries none.
    const rustflags = [process.env.RUSTFLAGS, "-Cdebuginfo=line-tables-only", "-Cstrip=none"].filter(Boolean).join(" ");
    wasmPack("cost", "crates/cost", tmp, "cost", { RUSTFLAGS: rustflags });
    copyFileSync(join(root, "target", "wasm32-unknown-unknown", "release", "bumplab_cost.wasm"), join(tmp, "cost_bg.debug.wasm"));
    const wasm = join(tmp, "cost_bg.wasm");
    // The meter's input, kept beside its output: crates/meter/tests/shipped.rs
    // counts the same calls on it with wasmtime's fuel. The page never loads it.
    copyFileSync(wasm, join(tmp, "cost_bg.unmetered.wasm"));
    run("cargo", ["build", "--release", "--quiet", "-p", "bumplab-meter"], { hint: "the cost wasm module: bumplab-meter did not build" });
    // listing.json: the text and source line of every instrumented
    // operator, which the Instructions view and `bumplab trace --executed`
    // fetch only when they show executed instructions (executedOps names
    // them by function and op index).
    const listing = join(tmp, "listing.json");
    run(join(root, "target", "release", "bumplab-meter"), [wasm, "-o", wasm, "--listing", listing, "--debug-wasm", join(tmp, "cost_bg.debug.wasm")], {
      hint: "the cost wasm module: bumplab-meter could not instrument it",
    });
    await loads("cost", tmp, "cost");
    log(`cost wasm built (metered): web/pkg-cost/cost_bg.wasm: ${sizes(wasm)}; web/pkg-cost/listing.json: ${sizes(listing)}`);
  });
}

if (only !== "cost") await buildTrace();
if (only !== "trace") {
  await buildCost();
  // The pages and the CLI read the listing split a file per function; split
  // again whenever the meter wrote a new listing.json (or the split changed).
  const pkg = join(root, "web", "pkg-cost");
  const stamp = join(pkg, "listing", ".stamp");
  const want = hashTree(["web/pkg-cost/listing.json", "scripts/split-listing.mjs"]);
  if (!existsSync(stamp) || readFileSync(stamp, "utf8") !== want) {
    const n = splitListing(JSON.parse(readFileSync(join(pkg, "listing.json"), "utf8")), join(pkg, "listing"));
    writeFileSync(stamp, want);
    log(`listing split: web/pkg-cost/listing/, ${n} functions`);
  }
}
