// The browser's loaders: each wasm module instantiated once. The trace
// module's core build is what the embed and <bump-lab> need first (its glue
// is a static import; its .wasm is fetched by the first `loadTraceModule()`);
// its build for the other arenas and the cost module are dynamic imports, so
// Vite puts their glue in chunks of their own and nothing of them is fetched
// until a page shows such an arena or reads costs. (The app's build for
// speed has a loader of its own, appLoad.ts, so that no other page ships
// it.) Vite emits each .wasm as a hashed asset and rewrites each
// `new URL("…_bg.wasm", import.meta.url)`, the glue's and the ones here (the
// same file, so the same asset).
//
// The .wasm is fetched here rather than by the glue so that a failure says
// which of the things a page's author can fix went wrong (EngineLoadError).

import initTrace, * as traceGlue from "../../pkg-trace/trace.js";
import type { CostModule } from "./costModule";
import { adaptTraceModule, type TraceModule } from "./traceModule";

/** What stopped a wasm module from loading, as far as a page can tell. */
export type EngineFailure =
  /** The server answered with an error status (a file not deployed, a wrong path). */
  | "http"
  /** fetch() itself failed: no CORS header on another origin, or no network. */
  | "network"
  /** The page's Content-Security-Policy refused the fetch or the compilation. */
  | "csp"
  /** The bytes did not compile or link: an old browser, or not this build's file. */
  | "compile"
  /** No WebAssembly at all in this browser. */
  | "unsupported";

/** A wasm module that could not be loaded: `message` says why, `fix` what the page's author can do. */
export class EngineLoadError extends Error {
  override readonly name = "EngineLoadError";
  constructor(
    readonly reason: EngineFailure,
    readonly url: string,
    message: string,
    readonly fix: string,
  ) {
    super(message);
  }
}

/** Lines already logged: a page with ten elements that all fail the same way says how to fix it once. */
const logged = new Set<string>();

/** One console line per distinct failure, saying what to change on the server or the page. */
export function logEngineFailure(error: EngineLoadError): void {
  const line = `[bump-lab] ${error.message}. To fix it: ${error.fix}.`.replace(/\s*\n\s*/g, " ");
  if (logged.has(line)) return;
  logged.add(line);
  console.error(line);
}

function fileName(url: string): string {
  return url.replace(/[?#].*$/, "").replace(/^.*\//, "");
}

/** The CSP violations reported while `load` runs (they arrive as events, a task after the failure they cause). */
async function watchingCsp<T>(load: () => Promise<T>, onFailure: (error: unknown, violations: SecurityPolicyViolationEvent[]) => Error): Promise<T> {
  const violations: SecurityPolicyViolationEvent[] = [];
  const listen = (e: SecurityPolicyViolationEvent): void => {
    violations.push(e);
  };
  const target = typeof document === "undefined" ? null : document;
  target?.addEventListener("securitypolicyviolation", listen);
  try {
    return await load();
  } catch (error) {
    // Chromium queues the violation's event after rejecting the fetch or the compile.
    await new Promise((resolve) => setTimeout(resolve, 50));
    throw onFailure(error, violations);
  } finally {
    target?.removeEventListener("securitypolicyviolation", listen);
  }
}

/** The reason in words for a failed fetch or instantiation of the wasm at `url`, from a page at `pageOrigin` (any URL on it). */
export function describeFailure(error: unknown, url: string, violations: readonly Pick<SecurityPolicyViolationEvent, "blockedURI" | "effectiveDirective">[], pageOrigin: string): EngineLoadError {
  if (error instanceof EngineLoadError) return error;
  const file = fileName(url);
  const origin = new URL(url, pageOrigin).origin;
  const csp = violations.find((v) => v.blockedURI === url || v.blockedURI === "wasm-eval" || v.blockedURI === "eval" || (v.blockedURI !== "" && url.startsWith(v.blockedURI)));
  if (csp) {
    const compiling = csp.effectiveDirective.startsWith("script-src") || csp.blockedURI === "wasm-eval" || csp.blockedURI === "eval";
    return compiling
      ? new EngineLoadError(
          "csp",
          url,
          "this page's Content-Security-Policy does not allow WebAssembly to run",
          `add 'wasm-unsafe-eval' to the page's Content-Security-Policy script-src (it allows compiling WebAssembly, not JavaScript eval)`,
        )
      : new EngineLoadError(
          "csp",
          url,
          `this page's Content-Security-Policy (${csp.effectiveDirective}) does not allow fetching ${file}`,
          `add ${origin} to the page's Content-Security-Policy ${csp.effectiveDirective}`,
        );
  }
  const name = error instanceof Error ? error.name : "";
  const detail = error instanceof Error ? error.message : String(error);
  if (name === "CompileError" || name === "LinkError") {
    return new EngineLoadError(
      "compile",
      url,
      `this browser could not compile the engine, ${file} (${name}: ${detail})`,
      `use a browser from 2021 or later (Chrome/Edge 91, Firefox 89, Safari 15); if the browser is recent, ${url} is not the .wasm file built with this bump-lab.js: deploy the whole build folder together`,
    );
  }
  if (error instanceof TypeError) {
    const crossOrigin = origin !== new URL(pageOrigin).origin;
    return crossOrigin
      ? new EngineLoadError(
          "network",
          url,
          `the browser could not fetch ${file} from ${origin}: that server sends no CORS header (Access-Control-Allow-Origin), or it cannot be reached`,
          `serve ${origin}'s files with the header "Access-Control-Allow-Origin: *" (GitHub Pages does), or serve them from this page's own origin`,
        )
      : new EngineLoadError("network", url, `the browser could not fetch ${file}: the network failed (${detail})`, `check that ${url} can be reached from this page, then reload`);
  }
  return new EngineLoadError("compile", url, `the engine did not start (${name || "error"}: ${detail})`, `check that ${url} is the .wasm file built with this page's scripts, then reload`);
}

/**
 * The fetch options of a wasm on the page's own origin: those of the
 * pages' `<link rel="preload" as="fetch">` (no crossorigin attribute), so
 * the fetch takes the preloaded response instead of downloading the file a
 * second time. A preload is used only by a request of the same mode and
 * credentials, and this pair is the one that all three engines match:
 * WebKit never hands a CORS-mode preload to fetch(), and Chromium matches
 * on the credentials mode. On the same origin "no-cors" reads the body as
 * "cors" does. A wasm from another origin (bump-lab.js on a CDN) keeps
 * fetch()'s defaults: it needs CORS, and no page preloads it.
 */
export function preloadMatch(href: string, page: string | undefined = typeof location === "undefined" ? undefined : location.href): RequestInit | undefined {
  if (page === undefined || new URL(href, page).origin !== new URL(page).origin) return undefined;
  return { mode: "no-cors", credentials: "include" };
}

/**
 * Fetches the wasm at `url` and hands the response to the glue's `init`,
 * turning every way that can fail into an EngineLoadError.
 */
export async function instantiate(init: (input: { module_or_path: Response }) => Promise<unknown>, url: URL): Promise<void> {
  const href = url.href;
  const pageUrl = typeof location === "undefined" ? href : location.href;
  if (typeof WebAssembly !== "object") {
    throw new EngineLoadError(
      "unsupported",
      href,
      "this browser has no WebAssembly, which Bump Lab's engine is written in",
      "open the page in a browser from 2021 or later (or one where WebAssembly is not turned off)",
    );
  }
  await watchingCsp(
    async () => {
      const response = await fetch(href, preloadMatch(href));
      if (!response.ok) {
        const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ""}`;
        throw new EngineLoadError(
          "http",
          href,
          `the server answered ${status} for ${fileName(href)}`,
          `deploy the whole build folder, ${fileName(href)} with it (the script fetches it from there), so that ${href} answers 200`,
        );
      }
      await init({ module_or_path: response });
    },
    (error, violations) => describeFailure(error, href, violations, pageUrl),
  );
}

/** Runs `load` once; a failure (offline for a moment, a new deploy) is not kept, so the next call tries again. */
export function once<T>(load: () => Promise<T>): () => Promise<T> {
  let loading: Promise<T> | undefined;
  return () =>
    (loading ??= load().catch((error: unknown) => {
      loading = undefined;
      throw error;
    }));
}

export const loadTraceModule: () => Promise<TraceModule> = once(async () => {
  await instantiate(initTrace, new URL("../../pkg-trace/trace_bg.wasm", import.meta.url));
  return adaptTraceModule([traceGlue], async () => {
    const more = await import("../../pkg-trace-more/trace.js");
    await instantiate(more.default, new URL("../../pkg-trace-more/trace_bg.wasm", import.meta.url));
    return more;
  });
});

export const loadCostModule: () => Promise<CostModule> = once(async () => {
  // The adapter with the glue: neither is part of a page's first map.
  const [glue, { adaptCostModule }] = await Promise.all([import("../../pkg-cost/cost.js"), import("./costModule")]);
  await instantiate(glue.default, new URL("../../pkg-cost/cost_bg.wasm", import.meta.url));
  return adaptCostModule(glue);
});

// The files the models' steps point into, each a chunk of its own (Vite's
// glob): the very files the modules were compiled from, at build time. The
// trace module does not embed them (they would be a sixth of its download).
// word.rs and model.rs too: the Instructions views name their lines (the
// checked subtract's overflow test is word.rs's `checked_sub`).
const SOURCE_FILES = import.meta.glob<string>(["../../../crates/core/src/{algorithms,models}/*.rs", "../../../crates/core/src/{word,model}.rs"], { query: "?raw", import: "default" });

/** The text of a source file by its repository path ("crates/core/src/algorithms/bump_down.rs"), or undefined. */
export function loadSourceText(path: string): Promise<string | undefined> {
  const load = SOURCE_FILES[`../../../${path}`];
  return load ? load() : Promise.resolve(undefined);
}
