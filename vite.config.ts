import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

// The page lives in web/; the build lands in dist/ at the repository root.
// `base: "./"` keeps every asset URL relative so dist/ works from any sub-path.
export default defineConfig({
  root: fileURLToPath(new URL("./web", import.meta.url)),
  base: "./",
  build: {
    outDir: fileURLToPath(new URL("./dist", import.meta.url)),
    emptyOutDir: true,
    // Top-level await (the wasm is loaded once before the first render).
    target: "es2022",
  },
  server: { host: "127.0.0.1" },
  preview: { host: "127.0.0.1", port: 4179, strictPort: true },
});
