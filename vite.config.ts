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

// The pages live in web/; the build lands in dist/ at the repository root.
// `base: "./"` keeps every asset URL relative so dist/ works from any sub-path.
export default defineConfig({
  root: fileURLToPath(new URL("./web", import.meta.url)),
  base: "./",
  plugins: [componentBuild(), docsPages()],
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
  // The app's cost worker (web/src/engine/costWorker.ts) imports the metered
  // module's glue: a module worker, built as ES like the pages.
  worker: { format: "es" },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1", port: 4179, strictPort: true },
});
