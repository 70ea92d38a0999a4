// The `bumplab` code fence for Markdown plugins under Node: the one parser of
// its info string (crates/fence, compiled into the trace module's CLI build)
// and the HTML it writes, shared by the markdown-it plugin (markdown-it.mjs)
// and the remark plugin (remark.mjs). The mdBook preprocessor (crates/mdbook)
// calls the same Rust natively, so the three write the same HTML.
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
// Beside this file in the installed package; the repository's web/ build otherwise (bumplab.mjs does the same).
const packed = join(here, "pkg-trace-fast");
const folder = existsSync(packed) ? packed : join(here, "..", "pkg-trace-fast");

/** The module's wasm: beside its glue in the repository; in the package, the site's copy that engine.json names (scripts/pack.mjs). */
function wasmFile() {
  const beside = join(folder, "trace_bg.wasm");
  const manifest = join(here, "engine.json");
  if (existsSync(beside) || !existsSync(manifest)) return beside;
  return join(here, JSON.parse(readFileSync(manifest, "utf8"))["pkg-trace-fast/trace_bg.wasm"]);
}

let engine;
try {
  engine = await import(pathToFileURL(join(folder, "trace.js")).href);
  engine.initSync({ module: readFileSync(wasmFile()) });
} catch (e) {
  throw new Error(`bumplab: the fence parser's wasm module did not load from ${folder} (${e.message}); in the repository, run \`npm run build:wasm\``);
}
if (typeof engine.fenceHtml !== "function") throw new Error(`bumplab: ${folder} was built without the fence parser; run \`npm run build:wasm\``);

/** The fence's language word. */
export const LANGUAGE = "bumplab";

/** Whether an info string opens a Bump Lab fence (its first word is `bumplab`). */
export function isBumplab(info) {
  return typeof info === "string" && info.trim().split(/\s+/)[0] === LANGUAGE;
}

/** `base` with a trailing slash: the URL of the site (dist/) that serves bump-lab.js and index.html. */
export function siteBase(base = "/bump-lab/") {
  if (typeof base !== "string" || base === "") throw new Error("bumplab: the `base` option is the URL of Bump Lab's dist/ folder, e.g. \"/bump-lab/\"");
  return base.endsWith("/") ? base : `${base}/`;
}

/**
 * A fence as HTML: `{ html, element }`, or `{ html, error }` where `html`
 * says what is wrong above the program and `error` is
 * `{ kind: "info" | "program", line, column, message }` (a column of the
 * info string, or a line and column of the program).
 */
export function renderFence(info, body, { base = "/bump-lab/", script = false } = {}) {
  return JSON.parse(engine.fenceHtml(info, body, siteBase(base), script));
}

/**
 * `FILE:LINE:COLUMN: message` for an error in a fence whose opening line is
 * `fenceLine` (1-based) with its info string starting at `infoColumn`.
 */
export function errorLine(file, fenceLine, infoColumn, error) {
  const at = error.kind === "info" ? `${fenceLine}:${infoColumn + error.column - 1}` : `${fenceLine + error.line}:${error.column}`;
  return `${file}:${at}: ${error.message}`;
}
