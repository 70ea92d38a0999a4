// The recorded programs (model/recorded.ts): each file replays in the CLI with
// the op count its header states, was recorded by the command listed, fits
// the playground, and its narration's facts are what the engine's trace of
// the file says. Then both recorders record a real program afresh (the
// Rust one through json_arena, the C shim on coreutils' sort) and the CLI
// replays each with the op count the recorder wrote. Needs the wasm engine
// built (`npm run build:wasm`) and cargo, as `npm test` has them.
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { config, jsonTrace } from "../test/runs";
import { narrationOf, RECORDED, recordedById, recordedFacts, type RecordedProgram } from "./recorded";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const cli = join(root, "web", "cli", "bumplab.mjs");
const tmp = mkdtempSync(join(tmpdir(), "bumplab-recorded-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const fileOf = (r: RecordedProgram): string => join(root, "web", "public", r.path);

/** The op count a program's header states ("# N ops (repeats expanded): ..."). */
function headerOps(text: string): number {
  const m = /^# (\d+) ops \(repeats expanded\)/m.exec(text);
  if (!m?.[1]) throw new Error(`no op count in the header:\n${text.slice(0, 600)}`);
  return Number(m[1]);
}

/** The ops `npx bumplab trace --allocator bump-scope-up FILE` prints. */
function cliOps(file: string): number {
  const r = spawnSync(process.execPath, [cli, "trace", "--allocator", "bump-scope-up", file], {
    encoding: "utf8",
    maxBuffer: 1 << 30,
    timeout: 120_000,
  });
  if (r.error) throw r.error;
  expect(r.stderr).toBe("");
  expect(r.status).toBe(0);
  return (JSON.parse(r.stdout) as { ops: unknown[] }).ops.length;
}

/** Runs cargo in the repository; its output when it fails. */
function cargo(args: string[]): string {
  const r = spawnSync("cargo", ["run", "-q", "-p", "bumplab-record", ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 600_000,
    env: { ...process.env, CARGO_BUILD_JOBS: process.env.CARGO_BUILD_JOBS ?? "1" },
  });
  if (r.error) throw r.error;
  if (r.status !== 0) throw new Error(`cargo ${args.join(" ")} failed:\n${r.stderr}`);
  return r.stderr;
}

describe("the recorded programs", () => {
  it("have unique ids, and files in web/public", () => {
    expect(new Set(RECORDED.map((r) => r.id)).size).toBe(RECORDED.length);
    expect(RECORDED.map((r) => r.id)).toEqual(["json-arena-package-lock", "jq-package-lock", "gcc-syntax-check"]);
    for (const r of RECORDED) expect(existsSync(fileOf(r)), r.path).toBe(true);
    expect(recordedById("jq-package-lock")?.allocator).toBe("bumpalo");
  });

  for (const r of RECORDED) {
    describe(r.id, () => {
      const text = readFileSync(fileOf(r), "utf8");

      it("was recorded by the command it lists", () => {
        // The header's second line is the command that ran.
        const ran = /^# Recorded by bumplab-record [\d.]+ through .*, from one run of:\n# {3}(.+)$/m.exec(text)?.[1];
        expect(ran).toBeDefined();
        expect(r.command).toContain(ran ?? "?");
        expect(r.command).toContain(`--out web/public/${r.path}`);
      });

      it("fits the playground: under 1 MiB of text and the 100,000 ops a full trace holds", () => {
        expect(Buffer.byteLength(text)).toBeLessThan(1 << 20);
        expect(headerOps(text)).toBeLessThanOrEqual(100_000);
      });

      it("replays in the CLI with the op count its header states", () => {
        expect(cliOps(fileOf(r))).toBe(headerOps(text));
      }, 180_000);

      it("narrates the facts of its trace, and opens where they hold", () => {
        const trace = jsonTrace(config(text, r.allocator));
        expect(recordedFacts(trace)).toEqual(r.facts);
        // The opening step shows what the words say: every chunk, at the peak
        // of their bytes; only resets come after it.
        const opening = trace.ops[r.opensAt - 1]?.stats;
        expect({ chunks: opening?.chunks, bytes: opening ? opening.used + opening.unused + opening.metadata : null }).toEqual({
          chunks: r.facts.chunks,
          bytes: r.facts.peakChunkBytes,
        });
        expect(trace.ops.slice(r.opensAt).map((o) => o.kind)).toEqual(Array<string>(r.facts.ops - r.opensAt).fill("reset"));
        expect(r.facts.ops).toBe(headerOps(text));
        const story = narrationOf(r);
        expect(story).toContain(r.facts.instructionsPerOp.toString());
        expect(story).toContain(r.facts.baselinePerOp.toString());
      }, 180_000);
    });
  }

  it("json_arena's chunks are what the real bumpalo held, as its header says", () => {
    const r = recordedById("json-arena-package-lock");
    if (!r) throw new Error("no json_arena example");
    const held = /bumpalo then held (\d+) bytes of chunks/.exec(readFileSync(fileOf(r), "utf8"))?.[1];
    expect(Number(held)).toBe(r.facts.peakChunkBytes);
  });

  it("gcc's is GCC 12's cc1, as its narration says", () => {
    const r = recordedById("gcc-syntax-check");
    if (!r) throw new Error("no gcc example");
    expect(readFileSync(fileOf(r), "utf8")).toMatch(/^# Process: \/usr\/lib\/gcc\/x86_64-linux-gnu\/12\/cc1 \(pid \d+\)\.$/m);
  });
});

describe("recording afresh", () => {
  it("the Rust recorder's program (json_arena on package.json) replays in the CLI with its op count", () => {
    const out = join(tmp, "json-arena.txt");
    const said = cargo(["--example", "json_arena", "--", "--out", out, "package.json"]);
    const text = readFileSync(out, "utf8");
    const ops = headerOps(text);
    expect(said).toContain(`; ${ops} ops (`);
    expect(cliOps(out)).toBe(ops);
  }, 600_000);

  it("the C shim's program (coreutils' sort on Cargo.lock) replays in the CLI with its op count", () => {
    const out = join(tmp, "sort.txt");
    const said = cargo(["--", "run", "--out", out, "--", "sort", "--parallel=1", "-o", "/dev/null", "Cargo.lock"]);
    const text = readFileSync(out, "utf8");
    const ops = headerOps(text);
    expect(said).toContain(`bumplab-record: ${ops} ops (`);
    expect(text).toContain("#   sort --parallel=1 -o /dev/null Cargo.lock\n");
    expect(cliOps(out)).toBe(ops);
  }, 600_000);
});
