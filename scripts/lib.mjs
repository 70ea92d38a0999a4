// Shared helpers for the setup, build and test scripts. Node built-ins only:
// these run before `npm ci` on a fresh machine.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// Tools installed with `cargo install` land here; make sure later steps see
// them even when the shell's PATH was set before the install.
const cargoBin = join(process.env.CARGO_HOME ?? join(homedir(), ".cargo"), "bin");
process.env.PATH = [join(root, "node_modules", ".bin"), cargoBin, process.env.PATH].join(":");

export function log(message) {
  console.log(`\x1b[36m[bump-lab]\x1b[0m ${message}`);
}

/**
 * Runs a command with inherited output; exits the process if it fails, with
 * `hint` (what was being done) after the failed command line.
 */
export function run(cmd, args, { hint, ...options } = {}) {
  const shown = [cmd, ...args].join(" ");
  log(`$ ${shown}`);
  const started = Date.now();
  const r = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...options });
  if (r.error) {
    console.error(`[bump-lab] could not start ${cmd}: ${r.error.message}${hint ? `\n[bump-lab] ${hint}` : ""}`);
    process.exit(1);
  }
  if (r.status !== 0) {
    console.error(`[bump-lab] failed (exit ${r.status ?? r.signal}): ${shown}${hint ? `\n[bump-lab] ${hint}` : ""}`);
    process.exit(r.status ?? 1);
  }
  const s = ((Date.now() - started) / 1000).toFixed(1);
  if (Number(s) >= 5) log(`  done in ${s}s`);
}

/** Runs a command quietly and returns its trimmed stdout, or null if it fails. */
export function output(cmd, args, options = {}) {
  const r = spawnSync(cmd, args, { encoding: "utf8", cwd: root, ...options });
  if (r.error || r.status !== 0) return null;
  return r.stdout.trim();
}

/** A hash of every file under `paths` (files or folders), for "already built?" stamps. */
export function hashTree(paths, skip = () => false) {
  const h = createHash("sha256");
  const visit = (p) => {
    if (!existsSync(p) || skip(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(join(p, name));
    } else {
      h.update(relative(root, p));
      h.update("\0");
      h.update(readFileSync(p));
      h.update("\0");
    }
  };
  for (const p of paths) visit(join(root, p));
  return h.digest("hex");
}
