// Pinned tool versions. WASM_BINDGEN must equal the `wasm-bindgen = "=X"`
// pin in Cargo.toml: the CLI and the crate have to agree exactly.
export const WASM_BINDGEN = "0.2.130";
export const WASM_PACK = "0.15.1";
export const CHROMIUM = "/usr/bin/chromium";
// wasm-opt for the trace module: npm's binaryen (a devDependency pinned to
// this major in package.json); Debian's 108 breaks Rust 1.95's output.
export const BINARYEN = "132";
// The Zig toolchain the zig-arena and zig-fixed-buffer presets follow: PyPI's
// `ziglang` wheel (the compiler and its standard library), unpacked by
// setup.mjs under ~/.cache/bump-lab/ziglang-<version>; the Rust tests read
// this line to find it.
export const ZIGLANG = "0.17.1";
// actionlint checks .github/workflows/ in `npm test`: built from the Go module
// proxy by setup.mjs --with-actionlint into ~/.cache/bump-lab/actionlint-<version>/.
export const ACTIONLINT = "1.7.12";
// mdBook for the `bumplab` fence's site test (tests/e2e/fences.spec.ts):
// `cargo install mdbook` from crates.io by setup.mjs --with-site-generators,
// without its serve and watch features (the test only builds).
export const MDBOOK = "0.5.4";
// cargo-mutants for `npm run mutants` (scripts/mutants.mjs, outside `npm test`):
// `cargo install --locked` from crates.io by that script when missing.
export const CARGO_MUTANTS = "27.1.0";

// The browsers besides Chromium in `npm test` (tests/browsers/), Debian's,
// installed by setup.mjs --with-browser: Firefox ESR, driven over WebDriver
// BiDi, and WebKitGTK's WebDriver with its MiniBrowser (the WebKit engine
// Safari is built on), run in a virtual display by xvfb-run.
export const FIREFOX = "/usr/bin/firefox-esr";
export const WEBKIT_DRIVER = "/usr/bin/WebKitWebDriver";
export const MINIBROWSER = "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";
