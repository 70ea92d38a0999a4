// What a measurement was measured on: the repository's source files a
// binary was compiled from (cargo's dep-info file lists every one) with a
// hash of each, and the registry crates it linked, by name and version. The
// native x86-64 table stores this beside its counts, and a test recomputes
// the hashes from the tree: a change to any of those files without a new
// measurement fails, naming the files.
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { relative, sep } from "node:path";

/** The paths a cargo dep-info (`.d`) file lists for its first target. */
export function depInfoPaths(text) {
  const first = text.split("\n").find((l) => l.includes(": ")) ?? "";
  const deps = first.slice(first.indexOf(": ") + 2);
  // Spaces inside a path are escaped as "\ ".
  return deps
    .split(/(?<!\\) /)
    .map((p) => p.replaceAll("\\ ", " ").trim())
    .filter((p) => p !== "");
}

/** A file's SHA-256, first 16 hex digits: enough to tell an edit. */
export function fileHash(path) {
  return createHash("sha256").update(readFileSync(path)).digest("hex").slice(0, 16);
}

/**
 * The versions Cargo.lock pins for the registry crates `names`: the real
 * crates a measurement ran, as "name version" (a crate locked at two
 * versions, as allocator-api2 is, gives both).
 */
export function lockedVersions(cargoLock, names) {
  const out = [];
  for (const block of cargoLock.split("[[package]]")) {
    const name = /^name = "([^"]+)"$/m.exec(block)?.[1];
    const version = /^version = "([^"]+)"$/m.exec(block)?.[1];
    if (name && version && names.includes(name) && /^source = "registry/m.test(block)) out.push(`${name} ${version}`);
  }
  return out.sort();
}

/** The registry dependencies a crate's Cargo.toml names (a renamed one by its `package`). */
export function registryDependencies(cargoToml) {
  const section = /^\[dependencies\]\n([\s\S]*?)(?=^\[|$(?![\s\S]))/m.exec(cargoToml)?.[1] ?? "";
  return section
    .split("\n")
    .filter((l) => /^[A-Za-z0-9_-]+\s*=/.test(l) && !l.includes("path ="))
    .map((l) => /package\s*=\s*"([^"]+)"/.exec(l)?.[1] ?? l.split("=")[0].trim());
}

/**
 * The dep-info's sources: the repository's own files (relative to `root`,
 * build outputs under target/ left out, as they follow from the sources)
 * with their hashes; and the registry crates the crate at `crateDir` depends
 * on, at the versions Cargo.lock pins (dep-info lists workspace files only).
 */
export function sourcesOf(depInfoText, root, crateDir) {
  const files = {};
  for (const p of depInfoPaths(depInfoText)) {
    const rel = relative(root, p).split(sep).join("/");
    if (rel.startsWith("..") || rel.startsWith("target/")) continue;
    files[rel] = fileHash(p);
  }
  const names = registryDependencies(readFileSync(`${root}/${crateDir}/Cargo.toml`, "utf8"));
  return {
    files: Object.fromEntries(Object.entries(files).sort(([a], [b]) => a.localeCompare(b))),
    crates: lockedVersions(readFileSync(`${root}/Cargo.lock`, "utf8"), names),
  };
}

/** The files of `recorded` whose content in the tree at `root` is not what was measured. */
export function changedSince(recorded, root) {
  return Object.entries(recorded.files).flatMap(([rel, hash]) => {
    try {
      return fileHash(`${root}/${rel}`) === hash ? [] : [rel];
    } catch {
      return [`${rel} (gone)`];
    }
  });
}
