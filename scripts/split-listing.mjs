// Splits the cost module's listing (web/pkg-cost/listing.json, written by
// bumplab-meter: every instrumented function's wasm text with the Rust file
// and line of each operator) into web/pkg-cost/listing/, one file per
// function, so that the Instructions view and `bumplab trace --executed`
// read only the functions an op executed:
//
//   index.json  {"format": 2, "files": [...], "functions": [index, ...]}
//   <index>.json  one function, its operators in columns:
//     {"name", "offset" (the first operator's), "deltas" (each next
//      operator's offset minus the one before), "text" (the operators' wasm
//      text, one a line), "cost" and "branch" (a digit an operator),
//      "lines" (runs of [file, line, count]: consecutive operators of one
//      Rust line are one run)}
//
// The files are as many as the module has instrumented functions, whatever
// that number is; each is a few kB gzipped (the largest, the engine's
// dispatcher, about 30). web/src/wasm/listing.ts reads them back.
//
//   node scripts/split-listing.mjs [LISTING_JSON] [OUT_DIR]
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./lib.mjs";

/** One function of a format-1 listing in the columns of format 2. */
export function splitFunction(f) {
  const ops = f.ops;
  const runs = [];
  for (const [, text, , , file, line] of ops) {
    if (text.includes("\n")) throw new Error(`${f.name}: an operator's text has a line break: ${JSON.stringify(text)}`);
    const last = runs.at(-1);
    if (last && last[0] === file && last[1] === line) last[2]++;
    else runs.push([file, line, 1]);
  }
  return {
    name: f.name,
    offset: ops[0]?.[0] ?? 0,
    deltas: ops.slice(1).map((op, i) => op[0] - (ops[i]?.[0] ?? 0)),
    text: ops.map((op) => op[1]).join("\n"),
    cost: ops.map((op) => String(op[2])).join(""),
    branch: ops.map((op) => String(op[3])).join(""),
    lines: runs.flat(),
  };
}

export function splitListing(listing, out) {
  if (listing.format !== 1) throw new Error(`the listing has format ${listing.format}; this script splits format 1`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const indexes = Object.keys(listing.functions).map(Number).sort((a, b) => a - b);
  for (const i of indexes) {
    const f = listing.functions[String(i)];
    for (const op of f.ops) if (op[2] > 9 || op[3] > 1) throw new Error(`${f.name}: an operator's cost or branch flag is not one digit: ${JSON.stringify(op)}`);
    writeFileSync(join(out, `${i}.json`), JSON.stringify(splitFunction(f)));
  }
  writeFileSync(join(out, "index.json"), JSON.stringify({ format: 2, files: listing.files, functions: indexes }));
  return indexes.length;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const file = process.argv[2] ?? join(root, "web", "pkg-cost", "listing.json");
  const out = process.argv[3] ?? join(root, "web", "pkg-cost", "listing");
  const n = splitListing(JSON.parse(readFileSync(file, "utf8")), out);
  console.log(`[bump-lab] ${file} -> ${out}/: ${n} functions`);
}
