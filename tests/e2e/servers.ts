// Servers on origins of their own, for the journeys that embed the app in
// another site (Playwright's in tests/e2e and the other browsers' in
// tests/browsers): a blog that embeds it, and a "CDN" that re-serves the
// app's build under a path prefix choosing what goes wrong.

import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface Served {
  /** http://127.0.0.1:<port> */
  origin: string;
  close(): Promise<void>;
}

/** An HTTP server on a free port of 127.0.0.1; a handler that throws answers 500. */
export async function serve(handle: (req: IncomingMessage, res: ServerResponse) => void | Promise<void>): Promise<Served> {
  const server = createServer((req, res) => {
    Promise.resolve(handle(req, res)).catch((e: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** How the CDN serves a file, by the first segment of its path. */
export type CdnMode = "cors" | "missing-wasm" | "js-cors-only" | "garbage-wasm" | "nocors";
export const CDN_MODES: readonly CdnMode[] = ["cors", "missing-wasm", "js-cors-only", "garbage-wasm", "nocors"];

const TYPES: Record<string, string> = { js: "text/javascript", wasm: "application/wasm", html: "text/html; charset=utf-8", css: "text/css", svg: "image/svg+xml" };

/**
 * The CDN's handler: /<mode>/<path> is the app's <path> (fetched from
 * `app`), with a CORS header on all of it ("cors"), on all but the wasm
 * ("js-cors-only") or on nothing ("nocors"); "missing-wasm" answers 404 for
 * the wasm and "garbage-wasm" bytes that are not WebAssembly.
 */
export function cdn(app: string) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const m = /^\/(cors|missing-wasm|js-cors-only|garbage-wasm|nocors)(\/[^?#]*)/.exec(req.url ?? "");
    if (!m?.[1] || !m[2]) {
      res.writeHead(404).end();
      return;
    }
    const mode = m[1] as CdnMode;
    const path = m[2];
    const ext = /\.(\w+)$/.exec(path)?.[1] ?? "";
    const wasm = ext === "wasm";
    const cors = mode === "cors" || mode === "missing-wasm" || mode === "garbage-wasm" || (mode === "js-cors-only" && !wasm);
    const headers: Record<string, string> = { "content-type": TYPES[ext] ?? "application/octet-stream" };
    if (cors) headers["access-control-allow-origin"] = "*";
    if (wasm && mode === "missing-wasm") {
      res.writeHead(404, headers).end("not here");
      return;
    }
    if (wasm && mode === "garbage-wasm") {
      res.writeHead(200, headers).end("this is not a WebAssembly module");
      return;
    }
    const upstream = await fetch(`${app}${path}`);
    res.writeHead(upstream.status, headers).end(Buffer.from(await upstream.arrayBuffer()));
  };
}

/** A one-page blog post around `body` (HTML), as the blog server answers it. */
export function post(body: string, head = ""): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A post</title>${head}</head><body><h1>Where do the bytes go?</h1>\n${body}\n<p>After the figure.</p></body></html>`;
}
