// Links made by v1 must open the same way for as long as Bump Lab exists:
// each entry of tests/share-corpus/v1.json is a link as v1 wrote it, the
// state it decodes to and the digest of the layout it shows.
//
// `node scripts/share-corpus.mjs` adds the entries of CASES the file lacks
// (it runs this file with BUMPLAB_WRITE_CORPUS=1); existing entries are
// history and are never rewritten.

import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DEFAULT_PROGRAM } from "../model/generators";
import { stateDigests } from "../test/digest";
import { decodeShare, encodeShare, type SharedState } from "./link";

interface CorpusEntry {
  name: string;
  link: string;
  state: SharedState;
  digests: string[];
}

const FILE = new URL("../../../tests/share-corpus/v1.json", import.meta.url);
const WRITE = process.env["BUMPLAB_WRITE_CORPUS"] === "1";

const LONG_PROGRAM = [
  "# A long program: its link is compressed.",
  ...Array.from({ length: 60 }, (_, i) => `b${i} = alloc ${(i * 7) % 40 + 1} align ${2 ** (i % 4)}`),
  ...Array.from({ length: 20 }, (_, i) => `free b${i * 3}`),
  "checkpoint c",
  "x = alloc [u64; 8]",
  "restore c",
  "repeat 3 {",
  "  r = alloc u32",
  "}",
  "reset",
  "y = alloc u128",
].join("\n");

const base = (over: Partial<SharedState>): SharedState => ({
  source: DEFAULT_PROGRAM,
  allocator: "fitzgen-down",
  target: "64",
  capacity: null,
  minAlign: null,
  step: 0,
  compare: null,
  ...over,
});

/**
 * `link`: the link as v1 wrote it, when that is not what it writes now (a
 * link from before a setting existed, which must keep opening as it did).
 */
const CASES: { name: string; state: SharedState; link?: string }[] = [
  { name: "default program, fitzgen-down, last step", state: base({ step: 6 }) },
  { name: "hinckley-up on wasm32 with a 256-byte chunk", state: base({ allocator: "hinckley-up", target: "wasm32", capacity: 256, step: 3 }) },
  { name: "bumpalo, minimum alignment 8", state: base({ allocator: "bumpalo", minAlign: 8, capacity: 1024, step: 4, views: ["map", "code"] }) },
  { name: "bump-scope-up, realloc and characters that need escaping", state: base({ allocator: "bump-scope-up", source: "# 1 + 1 = 2 & 50% \"ü\" <tag>\na = alloc 24 # a & b\nb = alloc [u32; 5]\na = realloc a 48\nfree b", step: 2 }) },
  { name: "cpp-arena, long program (compressed)", state: base({ allocator: "cpp-arena", source: LONG_PROGRAM, step: 40 }) },
  {
    name: "compare: up against down",
    state: base({
      step: 5,
      compare: [
        { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
        { allocator: "fitzgen-down", target: "64", minAlign: null, capacity: null },
      ],
    }),
  },
  {
    name: "compare: four columns, mixed settings, long program (compressed)",
    state: base({
      allocator: "bumpalo",
      source: LONG_PROGRAM,
      step: 12,
      compare: [
        { allocator: "bumpalo", target: "wasm32", minAlign: 16, capacity: null },
        { allocator: "bump-scope-down", target: "64", minAlign: 1, capacity: null },
        { allocator: "down-min-align", target: "64", minAlign: 8, capacity: 4096 },
        { allocator: "bumper-slab", target: "wasm32", minAlign: null, capacity: null },
      ],
    }),
  },
  { name: "a lesson at its third step", state: base({ allocator: "up-min-align", step: 3, lesson: "padding-and-alignment", views: ["map", "stats"] }) },
  {
    // Written before zig-arena took a child allocator: it ran over the heap
    // that never resizes in place, and must open so.
    name: "zig-arena before its child allocator setting (no h)",
    state: base({ allocator: "zig-arena", source: "repeat 12 {\n  x = alloc 100\n}\nreset\ny = alloc 100", step: 13, child: "heap" }),
    link: "v1?a=zig-arena&t=64&s=13&p=repeat+12+%7B%0A++x+=+alloc+100%0A%7D%0Areset%0Ay+=+alloc+100&end",
  },
  {
    name: "zig-arena over page_allocator on wasm32, against the heap that never resizes",
    state: base({
      allocator: "zig-arena",
      target: "wasm32",
      source: "repeat 12 {\n  x = alloc 100\n}\nreset\ny = alloc 100",
      step: 13,
      child: "page",
      compare: [
        { allocator: "zig-arena", target: "wasm32", minAlign: null, capacity: null, child: "page" },
        { allocator: "zig-arena", target: "wasm32", minAlign: null, capacity: null, child: "heap" },
      ],
    }),
  },
];

function readCorpus(): CorpusEntry[] {
  try {
    return JSON.parse(readFileSync(FILE, "utf8")) as CorpusEntry[];
  } catch (error) {
    if (WRITE) return [];
    throw error;
  }
}

describe("share-link corpus (v1)", () => {
  if (WRITE) {
    it("adds the missing entries", async () => {
      const corpus = readCorpus();
      for (const c of CASES) {
        if (corpus.some((e) => e.name === c.name)) continue;
        const link = c.link ?? (await encodeShare(c.state));
        const decoded = await decodeShare(link);
        if (!decoded.ok) throw new Error(decoded.error);
        expect(decoded.state, c.name).toEqual(c.state);
        corpus.push({ name: c.name, link, state: decoded.state, digests: await stateDigests(decoded.state) });
      }
      writeFileSync(FILE, `${JSON.stringify(corpus, null, 2)}\n`);
    });
    return;
  }

  const corpus = readCorpus();

  it("holds short and compressed links, compare and a lesson", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(8);
    expect(corpus.some((e) => e.link.startsWith("v1?"))).toBe(true);
    expect(corpus.some((e) => e.link.startsWith("v1z"))).toBe(true);
    expect(corpus.some((e) => e.state.compare !== null)).toBe(true);
    expect(corpus.some((e) => typeof e.state.lesson === "string")).toBe(true);
    expect(new Set(corpus.map((e) => e.state.allocator)).size).toBeGreaterThanOrEqual(5);
  });

  it("decodes every recorded link the same when its \"&\"s arrive HTML-escaped, as copied from a page's source", async () => {
    for (const entry of corpus) {
      const escaped = entry.link.replaceAll("&", "&amp;");
      const decoded = await decodeShare(`https://you.github.io/bump-lab/embed.html?views=code&amp;theme=dark#${escaped}`);
      expect(decoded, entry.name).toEqual({ ok: true, state: entry.state });
    }
  });

  for (const entry of corpus) {
    it(`decodes "${entry.name}" to the recorded state and layout`, async () => {
      const decoded = await decodeShare(entry.link);
      if (!decoded.ok) throw new Error(decoded.error);
      expect(decoded.state).toEqual(entry.state);
      const digests = await stateDigests(decoded.state);
      expect(digests).toEqual(entry.digests);
      for (const d of digests) expect(d, "every recorded configuration traces").toMatch(/^[0-9a-f]{64}$/);
    });
  }
});
