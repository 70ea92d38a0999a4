import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin } from "vite";

/** The views' stylesheets are inlined into the module (component.ts): the extracted copies would be unused files. */
function dropExtractedCss(): Plugin {
  return {
    name: "bumplab-drop-extracted-css",
    generateBundle(_, bundle) {
      for (const name of Object.keys(bundle)) if (name.endsWith(".css")) delete bundle[name];
    },
  };
}

// The <bump-lab> element as one ES module, dist/bump-lab.js, its wasm in
// dist/assets/ (the same files the app fetches): a blog loads one script
// from wherever dist/ is deployed. Asset
// URLs are relative to the module (new URL(…, import.meta.url)), so it works
// from any base path; its CSS is inlined into the module (shadow DOM).
// vite.config.ts runs this build after the app's, into the same directory.
export default defineConfig({
  root: fileURLToPath(new URL("./web", import.meta.url)),
  base: "./",
  publicDir: false,
  logLevel: "warn",
  plugins: [dropExtractedCss()],
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: false,
    target: "es2022",
    // The wasm modules stay files beside bump-lab.js (see vite.config.ts).
    assetsInlineLimit: (file) => (file.endsWith(".wasm") ? false : undefined),
    rollupOptions: {
      input: { "bump-lab": fileURLToPath(new URL("./web/src/component.ts", import.meta.url)) },
      preserveEntrySignatures: "exports-only",
      output: {
        entryFileNames: "bump-lab.js",
        // The app's own names (vite.config.ts): each wasm module is one file in dist/assets/, fetched by both.
        assetFileNames: "assets/[name]-[hash][extname]",
        // One file: no shared chunks to fetch.
        codeSplitting: false,
      },
    },
  },
});
