// Packs the installable `bumplab` package: the command line and the
// Markdown plugins (web/cli), the glue of the wasm modules they run
// (web/pkg-*/*.js), and the built site in dist/ (the <bump-lab> element,
// bump-lab.js with its CSS inside it; the iframe embed; the app its "Open in
// Bump Lab" links open; the wasm modules and the cost module's split
// listing in dist/assets/). Each wasm module is in the package once: the
// command line runs the site's copy, which engine.json names.
//
//   node scripts/pack.mjs [--site DIR] [--out DIR]
//
// --site copies a site already built from these sources (`npm run build`
// writes dist/); without it the site is built here with Vite. The tarball
// (bumplab-<version>.tgz) is written to --out (default: target/npm/) and its
// path is the last line printed. Needs the wasm modules built
// (`npm run build:wasm`).
//
// The package is staged in target/npm/bumplab/ rather than packed from
// web/cli itself: web/cli/bumplab.mjs prefers engine folders beside itself,
// so copies left in web/cli would shadow the repository's fresh builds.
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { log, root, run } from "./lib.mjs";

function option(name) {
  const i = process.argv.indexOf(name);
  if (i < 0) return undefined;
  const value = process.argv[i + 1];
  if (!value || value.startsWith("--")) {
    console.error(`[bump-lab] ${name} needs a directory`);
    process.exit(2);
  }
  return resolve(value);
}

const site = option("--site");
const out = option("--out") ?? join(root, "target", "npm");
const cli = join(root, "web", "cli");
const stage = join(root, "target", "npm", "bumplab");

const manifest = JSON.parse(readFileSync(join(cli, "package.json"), "utf8"));
const rootManifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

// Every file the manifest lists must exist: `npm pack` would leave a missing one out silently.
for (const file of manifest.files) {
  const [folder] = file.split("/");
  if (folder?.startsWith("pkg-") && !existsSync(join(root, "web", file))) {
    console.error(`[bump-lab] web/${file} is missing: run \`npm run build:wasm\` first`);
    process.exit(1);
  }
}
if (site && !existsSync(join(site, "bump-lab.js"))) {
  console.error(`[bump-lab] ${site} has no bump-lab.js: not a site built by \`npm run build\``);
  process.exit(1);
}

rmSync(stage, { recursive: true, force: true });
mkdirSync(stage, { recursive: true });
for (const file of manifest.files) {
  if (file.startsWith("pkg-")) {
    mkdirSync(join(stage, file, ".."), { recursive: true });
    cpSync(join(root, "web", file), join(stage, file));
  } else if (file.endsWith(".mjs") || file.endsWith(".md")) {
    cpSync(join(cli, file), join(stage, file));
  }
}
if (site) {
  log(`copying the site built in ${site}`);
  cpSync(site, join(stage, "dist"), { recursive: true });
} else {
  run(join(root, "node_modules", ".bin", "vite"), ["build", "--outDir", join(stage, "dist"), "--emptyOutDir"]);
}

// engine.json: where the site holds the files the command line runs, found
// by content (the site's names carry hashes), so they are packed once.
const assets = join(stage, "dist", "assets");
const sameBytes = (a, b) => statSync(a).size === statSync(b).size && readFileSync(a).equals(readFileSync(b));
const engine = {};
for (const wasm of ["pkg-trace-fast/trace_bg.wasm", "pkg-cost/cost_bg.wasm"]) {
  const built = join(root, "web", wasm);
  const match = readdirSync(assets).find((f) => f.endsWith(".wasm") && sameBytes(join(assets, f), built));
  if (!match) {
    console.error(`[bump-lab] the site in ${site ?? "the build"} has no copy of web/${wasm}: build the site and the wasm from the same sources`);
    process.exit(1);
  }
  engine[wasm] = `dist/assets/${match}`;
}
const listing = readdirSync(assets).find((f) => /^listing-[0-9a-f]+$/.test(f) && existsSync(join(assets, f, "index.json")));
if (!listing || !sameBytes(join(assets, listing, "index.json"), join(root, "web", "pkg-cost", "listing", "index.json"))) {
  console.error("[bump-lab] the site has no copy of the cost module's split listing (web/pkg-cost/listing/)");
  process.exit(1);
}
engine["pkg-cost/listing"] = `dist/assets/${listing}`;
writeFileSync(join(stage, "engine.json"), `${JSON.stringify(engine, null, 2)}\n`);

// web/cli/package.json stays private, so that nobody publishes the folder
// without its engine and site; the staged copy is the one meant to be
// installed and published, with the repository's license and Node range.
const { private: _private, ...published } = manifest;
writeFileSync(
  join(stage, "package.json"),
  `${JSON.stringify({ ...published, license: rootManifest.license, engines: rootManifest.engines, exports: {
        "./bump-lab.js": "./dist/bump-lab.js",
        "./markdown-it": "./markdown-it.mjs",
        "./remark": "./remark.mjs",
        "./fence": "./fence.mjs",
        "./package.json": "./package.json",
      } }, null, 2)}\n`,
);

mkdirSync(out, { recursive: true });
const packed = spawnSync("npm", ["pack", "--json", "--pack-destination", out], { cwd: stage, encoding: "utf8" });
if (packed.status !== 0) {
  process.stderr.write(packed.stderr);
  console.error("[bump-lab] npm pack failed");
  process.exit(1);
}
const [info] = JSON.parse(packed.stdout);
const tarball = join(out, info.filename);
log(`${info.filename}: ${info.entryCount} files, ${(info.size / 1e6).toFixed(1)} MB packed, ${(info.unpackedSize / 1e6).toFixed(1)} MB unpacked`);
console.log(tarball);
