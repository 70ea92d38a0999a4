// No source file is longer than a reader can hold: at most 600 lines under
// web/ and 800 under crates/. Checked over the files git tracks or would
// track (new files not yet added count too), leaving out data that is not
// read as code, each kind with its reason:
//   - lockfiles (package-lock.json, Cargo.lock): written by npm and cargo;
//   - recorded programs (web/public/examples/recorded/): one op per line, written by bumplab-record;
//   - test fixtures (crates/*/tests/fixtures/): inputs kept as the tools wrote them;
//   - binary files (a NUL byte in the first 8 kB): not lines at all.
// Run by vitest (file-sizes.test.mjs); `node scripts/file-sizes.mjs` lists the files over.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");

/** The most lines a file may have, by the top folder it is in. */
export const LIMITS = { web: 600, crates: 800 };

/** Paths left out, each with why (see above). */
export const EXCLUDED = [
  { test: (path) => /(^|\/)(package-lock\.json|Cargo\.lock)$/.test(path), why: "a lockfile" },
  { test: (path) => path.startsWith("web/public/examples/recorded/"), why: "a recorded program" },
  { test: (path) => /^crates\/[^/]+\/tests\/fixtures\//.test(path), why: "a test fixture" },
];

/** Lines in a text (a last line without a newline counts), or null for a binary file. */
export function lineCount(buffer) {
  if (buffer.subarray(0, 8192).includes(0)) return null;
  let n = 0;
  for (const byte of buffer) if (byte === 0x0a) n++;
  return buffer.length > 0 && buffer[buffer.length - 1] !== 0x0a ? n + 1 : n;
}

/** The files under `folders` git tracks or would track, relative to the repository. */
export function sourceFiles(folders = Object.keys(LIMITS)) {
  const out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...folders], { cwd: root, encoding: "utf8" });
  return [...new Set(out.split("\0").filter((p) => p !== ""))].sort();
}

/** Each file over its folder's limit, as { path, lines, limit }. */
export function oversized(paths = sourceFiles(), read = (path) => readFileSync(join(root, path))) {
  const over = [];
  for (const path of paths) {
    const limit = LIMITS[path.split("/")[0]];
    if (limit === undefined || EXCLUDED.some((e) => e.test(path))) continue;
    let buffer;
    try {
      buffer = read(path);
    } catch {
      // Deleted in the working tree, not yet in the index: nothing to read.
      continue;
    }
    const lines = lineCount(buffer);
    if (lines !== null && lines > limit) over.push({ path, lines, limit });
  }
  return over;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const over = oversized();
  for (const { path, lines, limit } of over) console.log(`${path}: ${lines} lines, over ${limit}`);
  process.exit(over.length > 0 ? 1 : 0);
}
