import { describe, expect, it } from "vitest";
import type { CompareConfig } from "../model/compare";
import type { SweepSetup } from "../model/sweep";
import { base64url, CHILD_PRESETS, COMPRESS_FROM, decodeShare, encodeShare, MAX_INFLATED_BYTES, queryParams, shareQuery, type SharedState } from "./link";

const BASE: SharedState = {
  source: "a = alloc 1\nb = alloc u64",
  allocator: "bumpalo",
  target: "64",
  capacity: null,
  minAlign: null,
  step: 2,
  compare: null,
};

async function decodeOk(text: string): Promise<SharedState> {
  const r = await decodeShare(text);
  if (!r.ok) throw new Error(r.error);
  return r.state;
}

async function decodeError(text: string): Promise<string> {
  const r = await decodeShare(text);
  if (r.ok) throw new Error(`decoded ${JSON.stringify(r.state)}`);
  return r.error;
}

/**
 * What a decoded state looks like: `lesson: null` is not written; a preset
 * that takes a child allocator has its child written, its default too.
 */
function normalised(s: SharedState): SharedState {
  // Line endings come back as a text box keeps them: \r\n and a lone \r as \n.
  const out: SharedState = { ...s, source: s.source.replace(/\r\n?/g, "\n") };
  if (out.lesson === null || out.lesson === undefined) delete out.lesson;
  if (out.views === undefined) delete out.views;
  if (out.sweep === null || out.sweep === undefined) delete out.sweep;
  const withChild = <T extends { allocator: string; child?: string | null }>(c: T): T => {
    const out = { ...c };
    const preset = CHILD_PRESETS[c.allocator];
    if (preset) out.child = c.child ?? preset.default;
    else if (out.child === null || out.child === undefined) delete out.child;
    return out;
  };
  Object.assign(out, withChild(out));
  if (out.compare) out.compare = out.compare.map(withChild);
  return out;
}

// A small deterministic PRNG (mulberry32): the property tests are repeatable.
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NASTY = ["&", "=", "+", "%", "#", "?", "\n", "\r\n", "\r", " ", "\t", "é", "😀", "%20", "&end", "[u32; 5]", "/", ":", ",", "'", '"', "<", ">", "\\", "\0"];

function randomState(next: () => number): SharedState {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] as T;
  const int = (max: number): number => Math.floor(next() * (max + 1));
  const len = pick([0, 3, 40, 400, 3000]);
  let source = "";
  while (source.length < len) source += next() < 0.3 ? pick(NASTY) : pick(["a = alloc ", "free b", "reset", "x", "8", " align 16"]);
  const names = ["bumpalo", "fitzgen-down", "hinckley-up", "bump-scope-up", "up-min-align", "cpp-arena", "zig-arena"];
  const child = (allocator: string): { child?: string | null } =>
    allocator === "zig-arena" ? { child: pick([null, "page", "heap"]) } : {};
  const col = (): CompareConfig => {
    const allocator = pick(names);
    return {
      allocator,
      target: pick(["64", "wasm32"] as const),
      minAlign: next() < 0.5 ? null : 2 ** int(12),
      capacity: next() < 0.5 ? null : 16 * (1 + int(4096)),
      ...child(allocator),
    };
  };
  const allocator = pick(names);
  const s: SharedState = {
    source,
    allocator,
    ...child(allocator),
    target: pick(["64", "wasm32"] as const),
    capacity: next() < 0.5 ? null : 1 + int(1 << 30),
    minAlign: next() < 0.5 ? null : 2 ** int(12),
    step: int(5000),
    compare: next() < 0.6 ? null : Array.from({ length: 2 + int(2) }, col),
  };
  if (next() < 0.5) s.views = ["map", "code", "cost", "stats"].filter(() => next() < 0.5);
  if (next() < 0.5) s.lesson = next() < 0.3 ? null : pick(["intro", "padding-2", "why_down"]);
  const sweeps: SweepSetup[] = [
    { param: "minAlign", values: ["1", "2", "4", "8", "16"] },
    { param: "preset", values: ["bumpalo", "cpp-arena"] },
    { param: "target", values: ["wasm32", "64"] },
    { param: "capacity", values: Array.from({ length: 1 + int(63) }, (_, i) => String(64 + 16 * i)) },
    { param: "generatorSize", values: ["1-8", "0-65536"], generator: { ops: 1 + int(1999), minSize: 1, maxSize: 64, minAlign: 2, maxAlign: 4096, seed: int(4294967295) } },
  ];
  if (next() < 0.5) s.sweep = next() < 0.2 ? null : pick(sweeps);
  return s;
}

describe("share links: encoding", () => {
  it("writes a short state as a readable query ending in &end", async () => {
    expect(await encodeShare(BASE)).toBe("v1?a=bumpalo&t=64&s=2&p=a+=+alloc+1%0Ab+=+alloc+u64&end");
    const full: SharedState = {
      ...BASE,
      capacity: 256,
      minAlign: 8,
      compare: [
        { allocator: "hinckley-up", target: "64", minAlign: null, capacity: null },
        { allocator: "bumpalo", target: "wasm32", minAlign: 4, capacity: 1024 },
      ],
      views: ["map", "code"],
      lesson: "intro",
    };
    expect(await encodeShare(full)).toBe(
      "v1?a=bumpalo&t=64&c=256&m=8&s=2&x=hinckley-up:64:-:-,bumpalo:wasm32:4:1024&v=map,code&l=intro&p=a+=+alloc+1%0Ab+=+alloc+u64&end",
    );
  });

  it("writes a sweep as its parameter and values, a random mix's settings after them", async () => {
    expect(await encodeShare({ ...BASE, sweep: { param: "minAlign", values: ["1", "2", "4", "8", "16"] } })).toBe(
      "v1?a=bumpalo&t=64&s=2&w=minAlign:1,2,4,8,16&p=a+=+alloc+1%0Ab+=+alloc+u64&end",
    );
    const generator = { ops: 40, minSize: 1, maxSize: 64, minAlign: 1, maxAlign: 16, seed: 7 };
    const link = await encodeShare({ ...BASE, sweep: { param: "generatorSize", values: ["1-8", "1-64"], generator } });
    expect(link).toBe("v1?a=bumpalo&t=64&s=2&w=generatorSize:1-8,1-64:40/1/64/1/16/7&p=a+=+alloc+1%0Ab+=+alloc+u64&end");
    expect((await decodeOk(link)).sweep).toEqual({ param: "generatorSize", values: ["1-8", "1-64"], generator });
    // No sweep, no key: links without one read as before.
    expect(await encodeShare({ ...BASE, sweep: null })).toBe(await encodeShare(BASE));
    expect(await decodeOk(await encodeShare(BASE))).not.toHaveProperty("sweep");
  });

  it("compresses a long program, and the result is shorter and marked v1z", async () => {
    const source = Array.from({ length: 200 }, (_, i) => `b${i} = alloc ${i % 64} align 8`).join("\n");
    const link = await encodeShare({ ...BASE, source });
    expect(link.startsWith("v1z")).toBe(true);
    expect(link.length).toBeLessThan(`v1?${shareQuery({ ...BASE, source })}`.length / 3);
    expect(link).toMatch(/^v1z[A-Za-z0-9_-]+$/);
    expect((await decodeOk(link)).source).toBe(source);
  });

  it("keeps short links below the compression threshold uncompressed", async () => {
    const link = await encodeShare({ ...BASE, source: "a".repeat(COMPRESS_FROM - 40) });
    expect(link.startsWith("v1?")).toBe(true);
  });

  it("replaces a lone surrogate by U+FFFD rather than failing", async () => {
    const state = await decodeOk(await encodeShare({ ...BASE, source: "a\uD800b" }));
    expect(state.source).toBe("a\uFFFDb");
  });
});

describe("share links: round trip", () => {
  it("decodes what it encodes, for 300 random states (short and compressed)", async () => {
    const next = rng(0x5eed);
    let compressed = 0;
    for (let i = 0; i < 300; i++) {
      const state = randomState(next);
      const link = await encodeShare(state);
      if (link.startsWith("v1z")) compressed++;
      expect(await decodeOk(link), link).toEqual(normalised(state));
      // Through a URL hash, as a browser percent-encodes it, and with its '#'.
      const url = new URL(`https://example.org/bump-lab/#${link}`);
      expect(await decodeOk(url.hash), link).toEqual(normalised(state));
      expect(await decodeOk(url.href), link).toEqual(normalised(state));
    }
    expect(compressed, "the property test exercises the compressed form").toBeGreaterThan(20);
  });

  it("reads a link whose \"&\"s arrive HTML-escaped (once or twice) as the same state, for 300 random states", async () => {
    const next = rng(0xa3b);
    let escaped = 0;
    for (let i = 0; i < 300; i++) {
      const state = randomState(next);
      const link = await encodeShare(state);
      if (link.includes("&")) escaped++;
      const once = link.replaceAll("&", "&amp;");
      expect(await decodeOk(once), once).toEqual(normalised(state));
      expect(await decodeOk(once.replaceAll("&", "&amp;")), once).toEqual(normalised(state));
      // Copied from a page's source: the embed's whole address, query and hash escaped.
      expect(await decodeOk(`https://example.org/bump-lab/embed.html?views=code&amp;controls=0#${once}`), once).toEqual(normalised(state));
    }
    expect(escaped, "most random states give short links, whose separators are escaped").toBeGreaterThan(100);
  });

  it("reads a hand-written link with the defaults filled in", async () => {
    expect(await decodeOk("v1?a=bumpalo&p=a%20=%20alloc%208&end")).toEqual({
      source: "a = alloc 8",
      allocator: "bumpalo",
      target: "64",
      capacity: null,
      minAlign: null,
      step: 0,
      compare: null,
    });
  });

  it("writes zig-arena's child allocator, its default too, and reads it back", async () => {
    const zig: SharedState = { ...BASE, allocator: "zig-arena", step: 0 };
    expect(shareQuery(zig)).toContain("&h=page&");
    expect(shareQuery({ ...zig, child: "heap" })).toContain("&h=heap&");
    expect(shareQuery(BASE)).not.toContain("&h=");
    expect((await decodeOk(await encodeShare(zig))).child).toBe("page");
    // A compare column's child is its fifth field.
    const compare: CompareConfig[] = [
      { allocator: "zig-arena", target: "64", minAlign: null, capacity: null },
      { allocator: "zig-arena", target: "wasm32", minAlign: null, capacity: 1024, child: "heap" },
      { allocator: "pmr-monotonic", target: "64", minAlign: null, capacity: null },
    ];
    const link = await encodeShare({ ...zig, compare });
    expect(link).toContain("x=zig-arena:64:-:-:page,zig-arena:wasm32:-:1024:heap,pmr-monotonic:64:-:-&");
    expect((await decodeOk(link)).compare?.map((c) => c.child ?? null)).toEqual(["page", "heap", null]);
  });

  it("opens a zig-arena link made before the child setting existed over the heap that never resizes, as it ran then", async () => {
    // v1 links written before page_allocator became zig-arena's default have no "h".
    const old = await decodeOk("v1?a=zig-arena&t=64&s=2&p=a+=+alloc+100&end");
    expect(old.child).toBe("heap");
    const cols = await decodeOk("v1?a=bumpalo&s=0&x=zig-arena:64:-:-,bumpalo:64:-:-&p=x&end");
    expect(cols.compare?.map((c) => c.child ?? null)).toEqual(["heap", null]);
    // Written again, it says so: the link stays on that child.
    expect(await encodeShare(old)).toContain("&h=heap&");
    // Other presets gain nothing.
    expect((await decodeOk("v1?a=bumpalo&p=x&end")).child).toBeUndefined();
  });

  it("ignores keys it does not know (a later v1 may add optional ones)", async () => {
    expect(await decodeOk("v1?a=bumpalo&zz=1&theme=dark&p=x&end")).toMatchObject({ allocator: "bumpalo", source: "x" });
  });
});

describe("share links: hostile and broken input", () => {
  it("names a newer version", async () => {
    expect(await decodeError("v2?a=bumpalo&p=x&end")).toMatch(/made by a newer Bump Lab \(v2\)/);
    expect(await decodeError("#v37zAAAA")).toMatch(/newer Bump Lab \(v37\)/);
  });

  it("says a link is truncated", async () => {
    const link = await encodeShare(BASE);
    expect(await decodeError(link.slice(0, -4))).toMatch(/truncated/);
    expect(await decodeError(link.slice(0, 20))).toMatch(/truncated/);
    expect(await decodeError("v1")).toMatch(/truncated/);
    const long = await encodeShare({ ...BASE, source: Array.from({ length: 300 }, (_, i) => `x${i} = alloc ${i}`).join("\n") });
    expect(long.startsWith("v1z")).toBe(true);
    expect(await decodeError(long.slice(0, Math.floor(long.length / 2)))).toMatch(/truncated or damaged/);
  });

  it("says a link is truncated wherever it is cut, its \"&\"s plain or HTML-escaped", async () => {
    const link = await encodeShare({ ...BASE, compare: [BASE, BASE].map((b) => ({ allocator: b.allocator, target: b.target, minAlign: 8, capacity: 64 })) });
    expect(link).toBe("v1?a=bumpalo&t=64&s=2&x=bumpalo:64:8:64,bumpalo:64:8:64&p=a+=+alloc+1%0Ab+=+alloc+u64&end");
    for (const whole of [link, link.replaceAll("&", "&amp;"), link.replaceAll("&", "&amp;amp;")]) {
      expect((await decodeShare(whole)).ok, whole).toBe(true);
      // Every cut from "v1" on, including inside "&amp;" and inside "&end".
      for (let at = 2; at < whole.length; at++) {
        expect(await decodeError(whole.slice(0, at)), whole.slice(0, at)).toMatch(/the link is truncated/);
      }
    }
  });

  it("does not take \"&amp\" without its \";\", or an escaped \"&\" inside a value, for a separator", async () => {
    expect(await decodeError("v1?a=bumpalo&ampp=x&end")).toMatch(/no program/);
    expect(await decodeOk("v1?a=bumpalo&p=a+%26amp;+b&amp;end")).toMatchObject({ source: "a &amp; b" });
  });

  it("rejects what is not a Bump Lab link", async () => {
    for (const text of ["", "   ", "#", "hello", "v", "vx?a=b", "v0?a=bumpalo&p=x&end", "1?a=b"]) {
      expect(await decodeError(text), text).toMatch(/^Cannot open this link: /);
    }
  });

  it("validates every field's type and range", async () => {
    const cases: [string, RegExp][] = [
      ["v1?p=x&end", /no allocator/],
      ["v1?a=bumpalo&end", /no program/],
      ["v1?a=Bump%20Alloc&p=x&end", /"a" must be a preset name/],
      ["v1?a=bumpalo&t=32&p=x&end", /"t" must be 64 or wasm32/],
      ["v1?a=bumpalo&c=0&p=x&end", /"c" must be from 1/],
      ["v1?a=bumpalo&c=-16&p=x&end", /"c" must be a whole number/],
      ["v1?a=bumpalo&c=1e3&p=x&end", /"c" must be a whole number/],
      ["v1?a=bumpalo&c=9999999999&p=x&end", /"c" must be from 1 to 1073741824/],
      ["v1?a=bumpalo&m=3&p=x&end", /power of two/],
      ["v1?a=bumpalo&m=8192&p=x&end", /"m" must be from 1 to 4096/],
      ["v1?a=bumpalo&s=1.5&p=x&end", /"s" must be a whole number/],
      ["v1?a=bumpalo&s=99999999999&p=x&end", /"s" must be from 0/],
      ["v1?a=bumpalo&x=bumpalo:64:-:-&p=x&end", /2 to 4 columns, not 1/],
      ["v1?a=bumpalo&x=a:64:-:-,b:64:-:-,c:64:-:-,d:64:-:-,e:64:-:-&p=x&end", /not 5/],
      ["v1?a=bumpalo&x=a:64:-,b:64:-:-&p=x&end", /allocator:target:minAlign:capacity/],
      ["v1?a=bumpalo&x=a:64:-:-,b:128:-:-&p=x&end", /x\[2\] target/],
      ["v1?a=zig-arena&h=Page!&p=x&end", /"h" must be a child allocator's name/],
      ["v1?a=bumpalo&x=zig-arena:64:-:-:%20,b:64:-:-&p=x&end", /x\[1\] child/],
      ["v1?a=bumpalo&x=a:64:-:-:page:more,b:64:-:-&p=x&end", /allocator:target:minAlign:capacity\[:child\]/],
      ["v1?a=bumpalo&v=map,map&p=x&end", /twice/],
      ["v1?a=bumpalo&v=<script>&p=x&end", /not a view/],
      ["v1?a=bumpalo&l=../../etc&p=x&end", /"l" must be a preset name/],
      ["v1?a=bumpalo&a=hinckley-up&p=x&end", /"a" appears twice/],
      ["v1?a=bumpalo&w=minAlign&p=x&end", /"w" \(sweep\) must be param:value/],
      ["v1?a=bumpalo&w=colour:1,2&p=x&end", /names no parameter a sweep varies: "colour"/],
      ["v1?a=bumpalo&w=target:64,32&p=x&end", /not a target value: "32"/],
      ["v1?a=bumpalo&w=preset:<b>&p=x&end", /not a preset value/],
      [`v1?a=bumpalo&w=capacity:${Array.from({ length: 65 }, (_, i) => 16 * (i + 1)).join(",")}&p=x&end`, /at most 64 values, not 65/],
      ["v1?a=bumpalo&w=generatorSize:1-8:40/1/64&p=x&end", /ops\/minSize\/maxSize\/minAlign\/maxAlign\/seed/],
      ["v1?a=bumpalo&w=generatorSize:1-8:99999999/1/64/1/16/1&p=x&end", /random mix: Ops: enter a whole number from 1 to 2000/],
      ["v1?a=bumpalo&w=generatorAlign:1-8:40/1/64/3/16/1&p=x&end", /not a power of two/],
      ["v1?a=bumpalo&novalue&p=x&end", /not a key=value pair/],
      ["v1?a=bumpalo&p=%E0%A4%A&end", /broken percent-escape/],
      [`v1?a=bumpalo&p=${"x".repeat(100_001)}&end`, /longer than 100000 characters/],
    ];
    for (const [link, message] of cases) expect(await decodeError(link), link).toMatch(message);
  });

  it("rejects damaged compressed data and refuses a decompression bomb", async () => {
    expect(await decodeError("v1z")).toMatch(/not base64url/);
    expect(await decodeError("v1z!!!!")).toMatch(/not base64url/);
    expect(await decodeError("v1zA")).toMatch(/not base64url/);
    expect(await decodeError("v1z_____")).toMatch(/truncated or damaged/);
    // 4 MiB of zeros deflates to a few KiB: inflating stops at the limit.
    const zeros = new Blob([new Uint8Array(4 * MAX_INFLATED_BYTES)]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    const bomb = `v1z${base64url(new Uint8Array(await new Response(zeros).arrayBuffer()))}`;
    expect(bomb.length).toBeLessThan(20_000);
    expect(await decodeError(bomb)).toMatch(/inflates to more than/);
    // Valid deflate data whose text is not a v1 query.
    const junk = new Blob([new TextEncoder().encode("a=bumpalo&p=x")]).stream().pipeThrough(new CompressionStream("deflate-raw"));
    expect(await decodeError(`v1z${base64url(new Uint8Array(await new Response(junk).arrayBuffer()))}`)).toMatch(/truncated/);
  });

  it("never throws on random bytes, random text or mutated links", async () => {
    const next = rng(42);
    const link = await encodeShare({ ...BASE, compare: [BASE, BASE].map((b) => ({ allocator: b.allocator, target: b.target, minAlign: 8, capacity: 64 })) });
    const long = await encodeShare({ ...BASE, source: Array.from({ length: 300 }, (_, i) => `x${i} = alloc ${i}`).join("\n") });
    for (let i = 0; i < 400; i++) {
      const base = i % 2 ? link : long;
      const chars = [...base];
      const at = Math.floor(next() * chars.length);
      chars[at] = String.fromCharCode(Math.floor(next() * 0x3000));
      const mutated = next() < 0.5 ? chars.join("") : base.slice(0, at);
      const r = await decodeShare(mutated);
      expect(typeof r.ok).toBe("boolean");
      if (!r.ok) expect(r.error).toMatch(/^Cannot open this link: .+\.$/);
    }
    const notText = [null, 42, {}, ["v1"]] as unknown as string[];
    for (const x of notText) expect((await decodeShare(x)).ok).toBe(false);
  });
});

describe("embed parameters", () => {
  it("reads the query before the hash the same whether its \"&\"s are plain or HTML-escaped", () => {
    for (const search of ["?views=code,cost&controls=0&theme=dark&height=420", "?views=code,cost&amp;controls=0&amp;theme=dark&amp;amp;height=420"]) {
      const params = queryParams(search);
      expect([...params.entries()], search).toEqual([
        ["views", "code,cost"],
        ["controls", "0"],
        ["theme", "dark"],
        ["height", "420"],
      ]);
    }
    expect(queryParams("").get("views")).toBeNull();
    expect(queryParams("?theme=a%26amp%3Bb").get("theme")).toBe("a&amp;b");
  });
});
