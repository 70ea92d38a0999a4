// Source checks: the page builds DOM from text nodes and attributes only, runs
// no code made from strings, and every "message" listener checks the shape of
// what it receives before acting on it. Comments may name the forbidden APIs
// (dom.ts says it never uses innerHTML); code may not.

import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SRC = join(ROOT, "web/src");
const CLI = join(ROOT, "web/cli");

function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") out.push(...filesUnder(path, keep));
    } else if (keep(entry.name)) {
      out.push(path);
    }
  }
  return out.sort();
}

/**
 * The code of a JS/TS file with comments blanked out (string and template
 * literals kept, so a forbidden call built inside a string still shows).
 * Good enough for this code base: no regex literal here contains a quote
 * followed by a comment opener.
 */
function stripComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const c = text[i];
    const next = text[i + 1];
    if (c === "/" && next === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (c === "/" && next === "*") {
      const end = text.indexOf("*/", i + 2);
      const stop = end < 0 ? text.length : end + 2;
      // Keep the line breaks so line numbers still match.
      out += text.slice(i, stop).replace(/[^\n]/g, " ");
      i = stop;
    } else if (c === '"' || c === "'" || c === "`") {
      let j = i + 1;
      while (j < text.length && text[j] !== c) j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

const SOURCES = [
  ...filesUnder(SRC, (n) => n.endsWith(".ts") && !n.endsWith(".test.ts") && !n.endsWith(".d.ts")),
  ...filesUnder(CLI, (n) => /\.(mjs|cjs|js|ts)$/.test(n)),
];

const FORBIDDEN: readonly { name: string; pattern: RegExp }[] = [
  { name: "innerHTML", pattern: /\binnerHTML\b/ },
  { name: "outerHTML", pattern: /\bouterHTML\b/ },
  { name: "insertAdjacentHTML", pattern: /\binsertAdjacentHTML\b/ },
  { name: "document.write", pattern: /\bdocument\s*\.\s*write(ln)?\b/ },
  { name: "eval(", pattern: /(^|[^\w$.])eval\s*\(/ },
  { name: "new Function", pattern: /\bnew\s+Function\s*\(/ },
  { name: "createContextualFragment", pattern: /\bcreateContextualFragment\b/ },
  { name: "string setTimeout", pattern: /\bset(Timeout|Interval)\s*\(\s*["'`]/ },
];

/** "path:line: what" for each forbidden use in the code (not the comments). */
function offences(path: string): string[] {
  const lines = stripComments(readFileSync(path, "utf8")).split("\n");
  const found: string[] = [];
  lines.forEach((line, i) => {
    for (const { name, pattern } of FORBIDDEN) if (pattern.test(line)) found.push(`${relative(ROOT, path)}:${i + 1}: ${name}`);
  });
  return found;
}

describe("the comment stripper the checks rely on", () => {
  it("drops line and block comments and keeps strings and line numbers", () => {
    const code = 'a(); // x.innerHTML = 1\n/* eval(\n new Function() */ b("// not a comment");';
    const stripped = stripComments(code);
    expect(stripped).not.toContain("innerHTML");
    expect(stripped).not.toContain("eval");
    expect(stripped).toContain('b("// not a comment")');
    expect(stripped.split("\n")).toHaveLength(3);
  });

  it("finds a forbidden call that is code, and names its file and line", () => {
    const lines = stripComments("ok();\nel.innerHTML = text; // fine?\n").split("\n");
    expect(lines.findIndex((l) => /\binnerHTML\b/.test(l))).toBe(1);
  });
});

describe("web/src and web/cli", () => {
  it("are the files this check reads", () => {
    const names = SOURCES.map((p) => relative(ROOT, p));
    // A wrong root would make every check below pass on nothing.
    expect(names).toContain("web/src/app.ts");
    expect(names).toContain("web/src/views/dom.ts");
    expect(names).toContain("web/src/embed.ts");
    expect(names).toContain("web/cli/bumplab.mjs");
    expect(names.length).toBeGreaterThan(40);
  });

  it("never parse HTML from strings or run code made from strings", () => {
    expect(SOURCES.flatMap(offences)).toEqual([]);
  });

  it("the one comment that names innerHTML is a comment, so it does not count", () => {
    const dom = join(SRC, "views/dom.ts");
    expect(readFileSync(dom, "utf8")).toContain("innerHTML");
    expect(offences(dom)).toEqual([]);
  });
});

describe('every addEventListener("message") site', () => {
  /** Files whose code (not comments) listens for postMessage. */
  const LISTENS = /addEventListener\(\s*["']message["']/;
  const sites = SOURCES.filter((p) => LISTENS.test(stripComments(readFileSync(p, "utf8")))).map((p) => relative(ROOT, p));

  it("are the ones known here (a new one must be added with its check)", () => {
    expect(sites).toEqual([
      "web/src/embed.ts",
      "web/src/share/measureEmbed.ts",
      "web/src/wasm/costWorker.ts",
      "web/src/wasm/costWorkerClient.ts",
      "web/src/wasm/parseWorker.ts",
      "web/src/wasm/parseWorkerClient.ts",
    ]);
  });

  /**
   * What each listener must do before acting: check who sent the message
   * and parse its data through a type guard that refuses anything else.
   */
  const CHECKS: Record<string, readonly RegExp[]> = {
    "web/src/embed.ts": [/event\.source\s*!==\s*window\.parent/, /parseHostMessage\(\s*event\.data\s*\)/],
    // A dedicated worker hears only the page that made it; the page listens on that Worker object only.
    "web/src/wasm/costWorker.ts": [/parseCostJob\(\s*e\.data\s*\)/, /if \(!job\) return/],
    "web/src/wasm/costWorkerClient.ts": [/w\.addEventListener\(\s*"message"/, /parseCostReply\(\s*e\.data\s*\)/, /if \(!reply\) return/],
    "web/src/wasm/parseWorker.ts": [/parseParseJob\(\s*e\.data\s*\)/, /if \(!job\) return/],
    "web/src/wasm/parseWorkerClient.ts": [/w\.addEventListener\(\s*"message"/, /parseParseReply\(\s*e\.data\s*\)/, /if \(!reply \|\| !pending/],
    // The share panel hears its own measuring frame only, and only a height.
    "web/src/share/measureEmbed.ts": [/event\.source\s*===\s*frame\.contentWindow\s*&&\s*isResizeMessage\(\s*event\.data\s*\)/],
  };

  it.each(sites)("%s checks the sender and the message's shape", (site) => {
    const code = stripComments(readFileSync(join(ROOT, site), "utf8"));
    const checks = CHECKS[site];
    expect(checks, `no shape check is known for ${site}`).toBeDefined();
    for (const check of checks ?? []) expect(code).toMatch(check);
  });

  it("the cost worker's guards refuse every shape but their one message", async () => {
    const { parseCostJob, parseCostReply } = await import("./wasm/costMessages");
    const { MAX_SOURCE_BYTES } = await import("./model/limits");
    const config = { source: "a = alloc 8", allocator: "bumpalo", target: "64", capacity: null, minAlign: null };
    const badJobs: unknown[] = [
      null,
      "job",
      [{ id: 1, config }],
      { id: -1, config },
      { id: 1.5, config },
      { id: 1 },
      { id: 1, config: { ...config, target: "x86" } },
      { id: 1, config: { ...config, source: 42 } },
      { id: 1, config: { ...config, source: "x".repeat(MAX_SOURCE_BYTES + 1) } },
      { id: 1, config: { ...config, capacity: -16 } },
      { id: 1, config: { ...config, capacity: undefined } },
      { id: 1, config: { ...config, allocator: "<script>".repeat(20) } },
      { id: 1, config: { ...config, child: 42 } },
      { id: 1, config: { ...config, child: "x".repeat(33) } },
      JSON.parse(`{"__proto__": {"id": 1, "config": ${JSON.stringify(config)}}}`),
    ];
    for (const data of badJobs) expect(parseCostJob(data), JSON.stringify(data)?.slice(0, 60)).toBeNull();
    expect(parseCostJob({ id: 3, config: { ...config, capacity: 256 } })).toEqual({ id: 3, config: { ...config, capacity: 256 } });
    expect(parseCostJob({ id: 4, config: { ...config, allocator: "zig-arena", child: "heap" } })).toEqual({ id: 4, config: { ...config, allocator: "zig-arena", child: "heap" } });
    const badReplies: unknown[] = [null, { id: 1 }, { id: "1", json: "{}" }, { id: 1, json: {} }, { id: 1, json: "{}", trapped: "yes" }];
    for (const data of badReplies) expect(parseCostReply(data), JSON.stringify(data)).toBeNull();
    expect(parseCostReply({ id: 2, json: "{}", trapped: true })).toEqual({ id: 2, json: "{}", trapped: true });
  });

  it("the guard they use refuses every shape but the one message", async () => {
    const { parseHostMessage } = await import("./share/theme");
    const bad: unknown[] = [
      null,
      undefined,
      "bumplab:theme dark",
      42,
      [{ type: "bumplab:theme", theme: "dark" }],
      { type: "bumplab:theme" },
      { type: "bumplab:theme", theme: "<script>" },
      { type: "bumplab:theme", theme: "x".repeat(1_000_000) },
      { type: "bumplab:theme", theme: ["dark"] },
      { type: "bumplab:resize", height: 10 },
      JSON.parse('{"__proto__": {"type": "bumplab:theme", "theme": "dark"}}'),
    ];
    for (const data of bad) expect(parseHostMessage(data), JSON.stringify(data)?.slice(0, 60)).toBeNull();
    expect(parseHostMessage({ type: "bumplab:theme", theme: "dark" })).toEqual({ type: "bumplab:theme", theme: "dark" });
  });

  it("the measured height's guard takes a finite, non-negative height and nothing else", async () => {
    const { isResizeMessage, resizeMessage } = await import("./share/theme");
    const bad: unknown[] = [
      null,
      "bumplab:resize 300",
      { type: "bumplab:resize" },
      { type: "bumplab:resize", height: "300" },
      { type: "bumplab:resize", height: Number.NaN },
      { type: "bumplab:resize", height: Number.POSITIVE_INFINITY },
      { type: "bumplab:resize", height: -1 },
      { type: "bumplab:theme", theme: "dark" },
      JSON.parse('{"__proto__": {"type": "bumplab:resize", "height": 300}}'),
    ];
    for (const data of bad) expect(isResizeMessage(data), JSON.stringify(data)?.slice(0, 60)).toBe(false);
    expect(isResizeMessage(resizeMessage(351.2))).toBe(true);
  });
});
