// Types for versions.mjs, which the browser tests import.
export const WASM_BINDGEN: string;
export const WASM_PACK: string;
export const CHROMIUM: string;
export const BINARYEN: string;
export const ZIGLANG: string;
export const ACTIONLINT: string;
export const FIREFOX: string;
export const WEBKIT_DRIVER: string;
export const MINIBROWSER: string;
export const CARGO_MUTANTS: string;
