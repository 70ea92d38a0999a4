// npm run record:large: a real program's recording at the scale of the
// playground's limits, made by the recorder (crates/record) and replayed by
// the command line on bumpalo and bump-scope.
//
// The program is GCC 12's cc1 optimising (-O2) a C file of `FUNCTIONS`
// structs and functions that this script writes: about 1.09 million calls
// to malloc, realloc and free, a 16.7 MB program. It is too large to ship
// (the shipped recordings stay under 1 MiB), so it is made here, once, into
// target/recordings/, and made again only when its inputs change. It is
// the same program every time: cc1 runs with PATH and HOME alone and with
// address-space layout randomisation off (`setarch -R`), which otherwise
// changes how many blocks cc1 asks for from one run to the next.
//
// `node scripts/bench.mjs --only recorded` opens it in the page.

import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { hashTree, log, output, root, run } from "./lib.mjs";

/** Structs and functions in the generated file: 100 gives 1,089,996 calls, under the 1,500,000 ops a run takes. */
export const FUNCTIONS = 100;
export const dir = join(root, "target", "recordings");
export const recordingPath = join(dir, "gcc-O2-generated.txt");
const sourceName = "generated.c";

/**
 * A C file of `n` structs, each with a recursive function walking it, and a
 * main that calls them all: enough loops, switches and calls for -O2's
 * passes to work on, the same text for the same `n`.
 */
export function generatedC(n) {
  const out = ["#include <stdio.h>", "#include <stdlib.h>", "#include <string.h>"];
  for (let i = 0; i < n; i++) {
    const doubles = (i % 7) + 1;
    out.push(
      `struct s${i} { int a; double b[${doubles}]; char name[${(i % 13) + 4}]; struct s${i} *next; };`,
      `static int f${i}(struct s${i} *p, int n) {`,
      "  int t = 0;",
      `  for (int k = 0; k < n; k++) { t += p->a * k + (int)p->b[k % ${doubles}]; if (t > ${i}) t -= n; }`,
      `  switch (n % 5) { case 0: t ^= ${i}; break; case 1: t += strlen(p->name); break; default: t -= 3; }`,
      `  return t + (p->next ? f${i}(p->next, n - 1) : 0);`,
      "}",
    );
  }
  out.push("int main(void){int t=0;");
  for (let i = 0; i < n; i++) out.push(` { struct s${i} x = {0}; t += f${i}(&x, ${i % 17}); }`);
  out.push(' printf("%d\\n", t); return 0; }', "");
  return out.join("\n");
}

/** What the recording depends on: the C text, the recorder's sources and the compiler's version. */
function inputsHash(source) {
  const h = createHash("sha256");
  h.update(source);
  h.update(hashTree(["crates/record/src", "crates/record/shim"]));
  h.update(output("gcc", ["--version"]) ?? "no gcc");
  return h.digest("hex").slice(0, 16);
}

/** Records the program unless target/recordings holds it for these inputs; returns its path. */
export function recordLarge() {
  mkdirSync(dir, { recursive: true });
  const source = generatedC(FUNCTIONS);
  const stamp = join(dir, "gcc-O2-generated.stamp");
  const want = inputsHash(source);
  if (existsSync(recordingPath) && existsSync(stamp) && readFileSync(stamp, "utf8") === want) {
    log(`recording up to date: ${recordingPath}`);
    return recordingPath;
  }
  writeFileSync(join(dir, sourceName), source);
  run("cargo", ["build", "--release", "-p", "bumplab-record"], { hint: "building the recorder" });
  const recorder = join(root, "target", "release", "bumplab-record");
  const command = ["setarch", "-R", "gcc", "-O2", "-c", sourceName, "-o", "/dev/null"];
  run(recorder, ["run", "--process", "cc1", "--max-ops", "1500000", "--out", recordingPath, "--", ...command], {
    cwd: dir,
    env: { PATH: "/usr/bin:/bin", HOME: process.env.HOME ?? "/root" },
    hint: "recording cc1 (needs gcc and setarch, util-linux)",
  });
  writeFileSync(stamp, want);
  return recordingPath;
}

/** The command line's summary of a run of `file` on `allocator` (its stats and chunks), and how long it took. */
export function replaySummary(file, allocator) {
  const started = performance.now();
  const json = output("node", [join(root, "web/cli/bumplab.mjs"), "trace", "--allocator", allocator, "--summary", file]);
  if (json === null) throw new Error(`bumplab trace --allocator ${allocator} failed on ${file}`);
  return { ms: performance.now() - started, ...JSON.parse(json) };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  const file = recordLarge();
  const text = readFileSync(file, "utf8");
  log(text.split("\n", 6).slice(1, 6).join("\n"));
  for (const allocator of ["bumpalo", "bump-scope-up"]) {
    const s = replaySummary(file, allocator);
    log(`${allocator}: ${JSON.stringify(s.stats)} (${s.ops} ops traced in ${Math.round(s.ms)} ms)`);
  }
}
