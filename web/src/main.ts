import "./styles.css";
import { startApp } from "./app";
import { findMounts } from "./mounts";
import { loadAppTraceModule } from "./wasm/appLoad";
import { applyTheme, storedTheme } from "./views/theme";

// The stored theme first, so the page does not flash the system's while the engine loads.
applyTheme(storedTheme());

try {
  // The program editor (CodeMirror) is a chunk of its own, fetched beside the
  // engine: the embed and <bump-lab> never load it.
  const [module, editor] = await Promise.all([loadAppTraceModule(), import("./views/editor")]);
  startApp(module, findMounts(), editor);
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const box = document.getElementById("fatal");
  if (box) {
    box.hidden = false;
    box.textContent = `Bump Lab could not start: ${message}`;
  }
  throw error;
}
