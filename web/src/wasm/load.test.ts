// How a failed wasm load is put in words: each cause a page's author can fix
// gets its own reason and its own fix (the browser journeys in
// tests/e2e/failures.spec.ts cause them for real).
import { describe, expect, it } from "vitest";
import { describeFailure, EngineLoadError, preloadMatch } from "./load";

const PAGE = "https://blog.example/post.html";
const SAME = "https://blog.example/bump-lab/bump-lab-trace_bg-Ab12.wasm";
const CDN = "https://cdn.example/bump-lab/bump-lab-trace_bg-Ab12.wasm";

describe("describeFailure", () => {
  it("blames the CSP's script-src when a violation reports wasm-eval, whatever the error says", () => {
    const e = describeFailure(new WebAssembly.CompileError("WebAssembly.instantiate(): Refused to compile"), CDN, [{ blockedURI: "wasm-eval", effectiveDirective: "script-src" }], PAGE);
    expect(e.reason).toBe("csp");
    expect(e.message).toBe("this page's Content-Security-Policy does not allow WebAssembly to run");
    expect(e.fix).toContain("'wasm-unsafe-eval'");
  });

  it("names the directive and the origin when the CSP refused the fetch itself", () => {
    const e = describeFailure(new TypeError("Failed to fetch"), CDN, [{ blockedURI: CDN, effectiveDirective: "connect-src" }], PAGE);
    expect(e.reason).toBe("csp");
    expect(e.message).toBe("this page's Content-Security-Policy (connect-src) does not allow fetching bump-lab-trace_bg-Ab12.wasm");
    expect(e.fix).toBe("add https://cdn.example to the page's Content-Security-Policy connect-src");
  });

  it("ignores violations about other resources", () => {
    const e = describeFailure(new TypeError("Failed to fetch"), SAME, [{ blockedURI: "https://ads.example/x.js", effectiveDirective: "script-src-elem" }], PAGE);
    expect(e.reason).toBe("network");
  });

  it("calls a CompileError or LinkError an old browser or a file from another build, with the error's own words", () => {
    for (const error of [new WebAssembly.CompileError("expected magic word"), new WebAssembly.LinkError("import __wbg_x missing")]) {
      const e = describeFailure(error, SAME, [], PAGE);
      expect(e.reason).toBe("compile");
      expect(e.message).toBe(`this browser could not compile the engine, bump-lab-trace_bg-Ab12.wasm (${error.name}: ${error.message})`);
      expect(e.fix).toMatch(/^use a browser from 2021 or later/);
    }
  });

  it("keeps an EngineLoadError as it is (an HTTP status is found before anything compiles)", () => {
    const http = new EngineLoadError("http", SAME, "the server answered 404 Not Found for bump-lab-trace_bg-Ab12.wasm", "deploy it");
    expect(describeFailure(http, SAME, [{ blockedURI: "wasm-eval", effectiveDirective: "script-src" }], PAGE)).toBe(http);
  });

  it("suspects a missing CORS header when a fetch from another origin fails, the network when one from the page's own does", () => {
    const cors = describeFailure(new TypeError("Failed to fetch"), CDN, [], PAGE);
    expect(cors.reason).toBe("network");
    expect(cors.message).toBe(
      "the browser could not fetch bump-lab-trace_bg-Ab12.wasm from https://cdn.example: that server sends no CORS header (Access-Control-Allow-Origin), or it cannot be reached",
    );
    expect(cors.fix).toBe(`serve https://cdn.example's files with the header "Access-Control-Allow-Origin: *" (GitHub Pages does), or serve them from this page's own origin`);
    const same = describeFailure(new TypeError("Failed to fetch"), SAME, [], PAGE);
    expect(same.reason).toBe("network");
    expect(same.message).toBe("the browser could not fetch bump-lab-trace_bg-Ab12.wasm: the network failed (Failed to fetch)");
  });
});

describe("preloadMatch", () => {
  it("asks for the pages' preload (no-cors, credentials included) on the page's origin, fetch()'s defaults elsewhere", () => {
    expect(preloadMatch(SAME, PAGE)).toEqual({ mode: "no-cors", credentials: "include" });
    expect(preloadMatch("./pkg-trace/trace_bg.wasm", PAGE)).toEqual({ mode: "no-cors", credentials: "include" });
    // On a CDN the wasm needs CORS to be read at all.
    expect(preloadMatch(CDN, PAGE)).toBeUndefined();
    // No page (Node): nothing was preloaded.
    expect(preloadMatch(SAME, undefined)).toBeUndefined();
  });
});
