import "./styles.css";
import { findMounts, startApp } from "./app";
import { loadEngine } from "./engine/browser";

try {
  startApp(await loadEngine(), findMounts());
} catch (error) {
  const message = error instanceof Error ? error.message : String(error);
  const box = document.getElementById("fatal");
  if (box) {
    box.hidden = false;
    box.textContent = `Bump Lab could not start: ${message}`;
  }
  throw error;
}
