// `npm run mutants`: mutation testing of the allocator models and the seed
// algorithms with cargo-mutants, a long check kept OUT of `npm test` (1 to
// 10 minutes a file on a busy 2-core machine; zig_arena.rs 37, as its suite
// runs Zig's arena natively and under node:wasi for every mutant).
//
// Each file is mutated and tested against ITS OWN suite alone (the
// `--test` binaries in FILES below, passed to both cargo-mutants' build and
// test phases), so a suite is the proof for its model: a mutant another
// suite would catch still counts as missed here.
//
//   node scripts/mutants.mjs                 every file, in FILES' order
//   node scripts/mutants.mjs blink_alloc …   only these (FILES' keys)
//   --iterate   test again only what the last run of each file did not
//               catch (cargo-mutants --iterate: quick, after adding a test);
//               the counts merge with that run's
//   --dir D     mutate the tree at D (e.g. a commit exported with git
//               archive) instead of this one; the results land here
//   --before    also record the counts as the file's "before" figures
//   --collect   run nothing: read the results cargo-mutants last left under
//               target/mutants/<file>/ (a run made by hand, or interrupted
//               after it wrote them)
//
// It installs cargo-mutants (crates.io, --locked, the version below) when
// missing, runs one mutant at a time (`-j 1`, niced), writes each file's
// counts to docs/mutants/summary.json and docs/mutants/SUMMARY.md (files not
// run keep their last entry), and exits non-zero when a mutant survives that
// docs/mutants/equivalent.json does not list with its reason, or when that
// list names a mutant that is no longer generated or that a test now kills.
//
// The random programs of the differential suites and the proptest cases
// are fixed (BUMPLAB_SEED, CI=true) so a run's counts can be reproduced;
// set BUMPLAB_SEED to try other programs. cargo-mutants' raw output stays
// under target/mutants/ (not committed); the builds share one target dir
// there, so only the first file pays for the dependencies.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { log, output, root, run } from "./lib.mjs";
import { CARGO_MUTANTS } from "./versions.mjs";

/** Each mutated file and the suites (crates/core/tests/<name>.rs) that are its proof. */
export const FILES = {
  blink_alloc: { file: "crates/core/src/models/blink_alloc.rs", suites: ["blink_alloc"] },
  llvm_bump_ptr: { file: "crates/core/src/models/llvm_bump_ptr.rs", suites: ["llvm_bump_ptr"] },
  pmr_monotonic: { file: "crates/core/src/models/pmr_monotonic.rs", suites: ["pmr_monotonic"] },
  zig_arena: { file: "crates/core/src/models/zig_arena.rs", suites: ["zig_arena"] },
  // page_allocator, the arena's default child: only the arena uses it.
  zig_page: { file: "crates/core/src/models/zig_page.rs", suites: ["zig_arena"] },
  zig_fixed_buffer: { file: "crates/core/src/models/zig_fixed_buffer.rs", suites: ["zig_fixed_buffer"] },
  bumpalo: { file: "crates/core/src/models/bumpalo.rs", suites: ["bumpalo"] },
  bump_scope: { file: "crates/core/src/models/bump_scope.rs", suites: ["bump_scope"] },
  bumper: { file: "crates/core/src/models/bumper.rs", suites: ["bumper"] },
  cpp_arena: { file: "crates/core/src/models/cpp_arena.rs", suites: ["cpp_arena"] },
  // The seed presets' one fixed chunk: allocation and realloc.
  fixed: { file: "crates/core/src/models/fixed.rs", suites: ["fixed_chunk", "fixed_realloc"] },
  // The seed algorithms run only inside the seed presets, whose suites are
  // these three (placements, realloc, and MIN_ALIGN's rounding).
  "algorithms/mod": { file: "crates/core/src/algorithms/mod.rs", suites: ["fixed_chunk", "fixed_realloc", "min_align"] },
  "algorithms/bump_up": { file: "crates/core/src/algorithms/bump_up.rs", suites: ["fixed_chunk", "fixed_realloc"] },
  "algorithms/bump_up_naive": {
    file: "crates/core/src/algorithms/bump_up_naive.rs",
    suites: ["fixed_chunk", "fixed_realloc"],
  },
  "algorithms/bump_down": { file: "crates/core/src/algorithms/bump_down.rs", suites: ["fixed_chunk", "fixed_realloc"] },
  "algorithms/min_align_up": {
    file: "crates/core/src/algorithms/min_align_up.rs",
    suites: ["min_align", "fixed_realloc"],
  },
  "algorithms/min_align_down": {
    file: "crates/core/src/algorithms/min_align_down.rs",
    suites: ["min_align", "fixed_realloc"],
  },
};

const docs = join(root, "docs", "mutants");
const summaryPath = join(docs, "summary.json");
const equivalentPath = join(docs, "equivalent.json");
const scratch = join(root, "target", "mutants");

/** The mutant's name without cargo-mutants' line:col (for messages). */
function where(name) {
  const m = /^([^:]+):(\d+):(\d+): (.*)$/.exec(name);
  return m ? { file: m[1], line: Number(m[2]), col: Number(m[3]), what: m[4] } : { file: "", line: 0, col: 0, what: name };
}

function ensureCargoMutants() {
  const have = output("cargo", ["mutants", "--version"]);
  if (have?.split(" ")[1] === CARGO_MUTANTS) return;
  log(`installing cargo-mutants ${CARGO_MUTANTS} from crates.io (about 8 minutes on 2 cores, once)`);
  run("cargo", ["install", "cargo-mutants", "--version", CARGO_MUTANTS, "--locked", "--force"]);
}

function readJson(path, fallback) {
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : fallback;
}

/** Runs cargo-mutants over one file with its suites; returns its outcomes. */
function mutate(key, { file, suites }) {
  const out = join(scratch, key.replace("/", "__"));
  mkdirSync(out, { recursive: true });
  const merged = join(out, "merged.json");
  if (iterate && !existsSync(merged)) {
    console.error(`[bump-lab] --iterate: ${file} has no earlier run under ${out}; run it in full first`);
    process.exit(1);
  }
  const args = [
    "mutants",
    ...(dir ? ["--dir", dir] : []),
    ...(iterate ? ["--iterate"] : []),
    "--package",
    "bumplab-core",
    "--file",
    file,
    "--jobs",
    "1",
    "--no-times",
    "--output",
    out,
    ...suites.map((s) => `--cargo-arg=--test=${s}`),
  ];
  if (!collect) runCargoMutants(args, file);
  const outcomes = readJson(join(out, "mutants.out", "outcomes.json"), null);
  return finish(out, merged, outcomes, file);
}

function runCargoMutants(args, file) {
  log(`$ nice -n 10 cargo ${args.join(" ")}`);
  const env = {
    ...process.env,
    // MUTANTS_TARGET_DIR: a second run beside a first one needs its own.
    CARGO_TARGET_DIR: process.env.MUTANTS_TARGET_DIR ?? join(scratch, "target"),
    BUMPLAB_SEED: process.env.BUMPLAB_SEED ?? "5eedb1a4",
    CI: "true",
  };
  const r = spawnSync("nice", ["-n", "10", "cargo", ...args], { stdio: "inherit", cwd: root, env });
  // 0: all caught; 2: some missed; 3: some timed out. Anything else (1, 4:
  // the unmutated baseline failed) means no usable result.
  if (r.status !== 0 && r.status !== 2 && r.status !== 3) {
    console.error(`[bump-lab] cargo mutants failed on ${file} (exit ${r.status ?? r.signal}); see target/mutants/`);
    process.exit(1);
  }
}

function finish(out, merged, outcomes) {
  if (!outcomes) {
    console.error(`[bump-lab] no outcomes.json under ${out}/mutants.out/`);
    process.exit(1);
  }
  // Every mutant's latest outcome: a full run's, with what --iterate tested
  // again replacing it (what it skipped was caught or unviable before, and
  // tests were only added since).
  const latest = new Map();
  if (iterate) for (const o of readJson(merged, [])) latest.set(o.name, o);
  for (const o of outcomes.outcomes) {
    const m = o.scenario?.Mutant;
    if (m) latest.set(m.name, { name: m.name, summary: o.summary });
  }
  const all = [...latest.values()];
  writeFileSync(merged, JSON.stringify(all));
  // The run's wall time, baseline and build included, as cargo-mutants records it.
  // (None yet for a run still going or cut short, read with --collect.)
  const seconds = outcomes.end_time
    ? Math.round((Date.parse(outcomes.end_time) - Date.parse(outcomes.start_time)) / 1000)
    : null;
  return { outcomes: all, seconds };
}

const equivalent = readJson(equivalentPath, []);
const summary = readJson(summaryPath, { cargoMutants: CARGO_MUTANTS, files: {} });
const argv = process.argv.slice(2);
const iterate = argv.includes("--iterate");
const collect = argv.includes("--collect");
const before = argv.includes("--before");
const dirAt = argv.indexOf("--dir");
const dir = dirAt >= 0 ? argv[dirAt + 1] : undefined;
if (dirAt >= 0 && !dir) {
  console.error("[bump-lab] --dir needs a path");
  process.exit(1);
}
const wanted = argv.filter((a, i) => !a.startsWith("--") && (dirAt < 0 || i !== dirAt + 1));
for (const k of wanted) {
  if (!(k in FILES)) {
    console.error(`[bump-lab] unknown file key ${k}; one of: ${Object.keys(FILES).join(", ")}`);
    process.exit(1);
  }
}
const keys = wanted.length > 0 ? wanted : Object.keys(FILES);

ensureCargoMutants();
mkdirSync(docs, { recursive: true });
const problems = [];
for (const key of keys) {
  const spec = FILES[key];
  const { outcomes, seconds } = mutate(key, spec);
  const counts = { caught: 0, missed: 0, unviable: 0, timeout: 0 };
  const survivors = [];
  const equivalents = [];
  const generated = new Set();
  for (const m of outcomes) {
    generated.add(m.name);
    const listed = equivalent.find((e) => e.mutant === m.name);
    switch (m.summary) {
      case "CaughtMutant":
        counts.caught++;
        if (listed) problems.push(`${m.name}: listed as equivalent in docs/mutants/equivalent.json, but a test kills it`);
        break;
      case "MissedMutant":
        counts.missed++;
        if (listed) equivalents.push(m.name);
        else {
          survivors.push(m.name);
          problems.push(`${m.name}: SURVIVED ${spec.suites.join(" + ")} and is not listed as equivalent`);
        }
        break;
      case "Unviable":
        counts.unviable++;
        break;
      case "Timeout":
        counts.timeout++;
        break;
      default:
        problems.push(`${m.name}: unexpected outcome ${m.summary}`);
    }
  }
  for (const e of equivalent) {
    if (where(e.mutant).file === spec.file && !generated.has(e.mutant)) {
      problems.push(`${e.mutant}: listed as equivalent but no longer generated (the line moved?): re-check it`);
    }
  }
  // Read again: another run (of other files) may have written it since.
  summary.files = readJson(summaryPath, summary).files;
  const previous = summary.files[key];
  summary.files[key] = {
    file: spec.file,
    suites: spec.suites,
    ...counts,
    equivalent: equivalents.length,
    survived: survivors.length,
    // A full run's wall time; an --iterate run keeps the last full one's.
    seconds: iterate && previous ? previous.seconds : seconds,
    survivors,
    before: before ? { ...counts, seconds } : previous?.before,
  };
  log(
    `${spec.file}: ${counts.caught} caught, ${counts.missed} missed (${equivalents.length} equivalent), ` +
      `${counts.unviable} unviable, ${counts.timeout} timeout, in ${seconds}s`,
  );
  writeSummary();
}

function writeSummary() {
  summary.cargoMutants = CARGO_MUTANTS;
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  const rows = Object.keys(FILES)
    .filter((k) => summary.files[k])
    .map((k) => {
      const f = summary.files[k];
      const b = f.before;
      const then = b ? `${b.caught} / ${b.missed} / ${b.unviable} / ${b.timeout}` : "";
      return `| ${f.file.replace("crates/core/src/", "")} | ${f.suites.join(", ")} | ${then} | ${f.caught} | ${f.missed} | ${f.equivalent} | ${f.survived} | ${f.unviable} | ${f.timeout} | ${f.seconds} |`;
    });
  const notRun = Object.keys(FILES).filter((k) => !summary.files[k]);
  const lines = [
    "# Mutation testing: the latest run per file",
    "",
    `Written by \`npm run mutants\` (scripts/mutants.mjs, cargo-mutants ${CARGO_MUTANTS}); each file's mutants`,
    "tested against its own suites alone. Missed = survived every test of those suites; of those,",
    "equivalent = listed with the reason in equivalent.json (see REPORT.md), survived = not listed (a failure).",
    "Before = the suites as they were when mutation testing began. Seconds are the last full",
    "run's wall time on a shared 2-core machine (noisy).",
    "",
    "| file | suites | before: caught / missed / unviable / timeout | caught | missed | equivalent | survived | unviable | timeout | seconds |",
    "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
    "",
    notRun.length > 0 ? `Not run yet: ${notRun.map((k) => FILES[k].file).join(", ")}.` : "Every file has been run.",
    "",
  ];
  const unlisted = Object.keys(FILES).flatMap((k) => summary.files[k]?.survivors ?? []);
  if (unlisted.length > 0) lines.push("Survivors not listed as equivalent:", "", ...unlisted.map((s) => `- ${s}`), "");
  writeFileSync(join(docs, "SUMMARY.md"), lines.join("\n"));
}

if (problems.length > 0) {
  console.error(`[bump-lab] mutation testing found ${problems.length} problem(s):`);
  for (const p of problems) console.error(`  ${p}`);
  process.exit(1);
}
log(`mutation testing: no unexplained survivor in ${keys.length} file(s)`);
