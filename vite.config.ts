import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, defineConfig, type Plugin } from "vite";
import { docsPages } from "./scripts/vite-docs.mjs";

const COMPONENT_CONFIG = fileURLToPath(new URL("./vite.component.config.ts", import.meta.url));

/**
 * After the app's build, the <bump-lab> element's (vite.component.config.ts)
 * into the same output directory, so every `vite build` (npm run build, the
 * Playwright server) ships dist/bump-lab.js beside the pages.
 */
function componentBuild(): Plugin {
  let outDir = "";
  return {
    name: "bumplab-component",
    apply: "build",
    configResolved(config) {
      outDir = config.build.outDir;
    },
    async closeBundle() {
      await build({ configFile: COMPONENT_CONFIG, build: { outDir, emptyOutDir: false } });
    },
  };
}

const LISTING = fileURLToPath(new URL("./web/pkg-cost/listing/", import.meta.url));

/**
 * The cost module's split listing (web/pkg-cost/listing/, a file per
 * function: scripts/split-listing.mjs) copied into the build as
 * assets/listing-<hash>/, named by a hash of its files so a new module's
 * listing never meets an old one in a cache, and LISTING_DIR defined for
 * web/src/wasm/listing.ts: that folder relative to the module, or the
 * folder itself on the dev server. The files are as many as the module's
 * functions; the Instructions view fetches those an op ran.
 */
function listingFiles(): Plugin {
  let folder = "";
  const files = (): string[] => (existsSync(LISTING) ? readdirSync(LISTING).filter((f) => f.endsWith(".json")).sort() : []);
  return {
    name: "bumplab-listing",
    config(_, env) {
      if (env.command === "serve") return { define: { LISTING_DIR: JSON.stringify("../../pkg-cost/listing/") } };
      const hash = createHash("sha256");
      for (const f of files()) hash.update(f).update(readFileSync(join(LISTING, f)));
      folder = `listing-${hash.digest("hex").slice(0, 10)}`;
      // The chunks that fetch it are in assets/, beside the folder.
      return { define: { LISTING_DIR: JSON.stringify(`./${folder}/`) } };
    },
    generateBundle() {
      const names = files();
      if (!names.includes("index.json")) this.error(`${LISTING} has no index.json: run \`npm run build:wasm\` (it splits the cost module's listing)`);
      for (const f of names) this.emitFile({ type: "asset", fileName: `assets/${folder}/${f}`, source: readFileSync(join(LISTING, f)) });
    },
  };
}

// The pages live in web/; the build lands in dist/ at the repository root.
// `base: "./"` keeps every asset URL relative so dist/ works from any sub-path.
export default defineConfig({
  root: fileURLToPath(new URL("./web", import.meta.url)),
  base: "./",
  plugins: [componentBuild(), docsPages(), listingFiles()],
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    // Top-level await (the wasm is loaded once before the first render).
    target: "es2022",
    // Browsers without <link rel="modulepreload"> still load every chunk, a
    // little later: not worth the polyfill's bytes in every page.
    modulePreload: { polyfill: false },
    // A wasm module is always its own file: a data: URL would be fetched
    // against the pages' CSP (connect-src 'self') and fail.
    assetsInlineLimit: (file) => (file.endsWith(".wasm") ? false : undefined),
    rollupOptions: {
      // The app and the iframe embed (embed.html).
      input: {
        index: fileURLToPath(new URL("./web/index.html", import.meta.url)),
        embed: fileURLToPath(new URL("./web/embed.html", import.meta.url)),
      },
    },
  },
  // The app's cost worker (web/src/wasm/costWorker.ts) imports the metered
  // module's glue: a module worker, built as ES like the pages.
  worker: { format: "es" },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1", port: 4179, strictPort: true },
});
