// Pinned tool versions. WASM_BINDGEN must equal the `wasm-bindgen = "=X"`
// pin in Cargo.toml: the CLI and the crate have to agree exactly.
export const WASM_BINDGEN = "0.2.130";
export const WASM_PACK = "0.15.1";
export const CHROMIUM = "/usr/bin/chromium";
// wasm-opt for the lean module: npm's binaryen (a devDependency pinned to
// this major in package.json); Debian's 108 breaks Rust 1.95's output.
export const BINARYEN = "132";
