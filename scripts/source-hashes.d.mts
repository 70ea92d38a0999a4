// Types for source-hashes.mjs, which the x86-64 table's test imports.
export interface Sources {
  /** Repository path -> the first 16 hex digits of its SHA-256. */
  files: Record<string, string>;
  /** "name version" of each registry crate the measured crate depends on. */
  crates: string[];
}
export function depInfoPaths(text: string): string[];
export function fileHash(path: string): string;
export function lockedVersions(cargoLock: string, names: readonly string[]): string[];
export function registryDependencies(cargoToml: string): string[];
export function sourcesOf(depInfoText: string, root: string, crateDir: string): Sources;
export function changedSince(recorded: Sources, root: string): string[];
