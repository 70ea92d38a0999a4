// The code view's source texts. The trace module does not carry them (they
// would add a sixth to its download): each file is fetched on first view as a
// lazy chunk Vite builds from the very files the modules were compiled from
// (load.ts `loadSourceText`). A text given embedded (`sourceText`) is
// answered at once.

import type { SourceName } from "./types";

export interface SourceTextDeps {
  /** The embedded text, when the module has it. */
  sourceText?: ((name: SourceName) => string | undefined) | undefined;
  /** The repository path of a source (what `load` takes). */
  sourcePath(name: SourceName): string | undefined;
  /** Fetches a file's text by repository path. */
  load(path: string): Promise<string | undefined>;
  /** Called when a fetched text arrives (render again). */
  onLoaded(): void;
}

export type SourceLookup =
  | { state: "ready"; path: string; text: string }
  | { state: "loading"; path: string }
  | { state: "missing"; path: string };

/** A cached lookup: `ready` once known, `loading` while its fetch is under way. */
export function sourceTexts(deps: SourceTextDeps): (name: SourceName) => SourceLookup {
  const texts = new Map<string, string | undefined>();
  const pending = new Set<string>();
  return (name) => {
    const path = deps.sourcePath(name) ?? name;
    const embedded = deps.sourceText?.(name);
    if (embedded !== undefined) return { state: "ready", path, text: embedded };
    if (texts.has(path)) {
      const text = texts.get(path);
      return text === undefined ? { state: "missing", path } : { state: "ready", path, text };
    }
    if (!pending.has(path)) {
      pending.add(path);
      deps.load(path).then(
        (text) => {
          texts.set(path, text);
          pending.delete(path);
          deps.onLoaded();
        },
        () => {
          texts.set(path, undefined);
          pending.delete(path);
          deps.onLoaded();
        },
      );
    }
    return { state: "loading", path };
  };
}

/** What the code view shows for a lookup. */
export function sourceShown(lookup: SourceLookup): string {
  switch (lookup.state) {
    case "ready":
      return lookup.text;
    case "loading":
      return `// loading ${lookup.path}…`;
    case "missing":
      return `// the source of ${lookup.path} is unavailable`;
  }
}
