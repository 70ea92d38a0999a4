import "./styles.css";
import { findMounts, startApp } from "./app";
import { loadAppTraceModule } from "./engine/appLoad";
import { applyTheme, storedTheme } from "./views/theme";

// The stored theme first, so the page does not flash the system's while the engine loads.
applyTheme(storedTheme());

try {
  startApp(await loadAppTraceModule(), findMounts());
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const box = document.getElementById("fatal");
  if (box) {
    box.hidden = false;
    box.textContent = `Bump Lab could not start: ${message}`;
  }
  throw error;
}
