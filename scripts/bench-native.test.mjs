// The callgrind parser of scripts/bench-native.mjs: `node --test scripts/bench-native.test.mjs`.
// (Not part of `npm test`: the benchmark it serves is not either.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseCallgrind } from "./bench-native.mjs";

// Shaped as callgrind 3.19 writes it with --branch-sim=yes --collect-atstart=no:
// compressed names, call lines whose next line is the callee's inclusive cost,
// relative positions, and trailing zero events left out.
const OUT = `# callgrind format
version: 1
creator: callgrind-3.19.0
positions: line
events: Ir Bc Bcm Bi Bim
summary: 41 5 1

ob=(6) /work/main/target/release/bumplab-bench
fl=(140) ???
fn=(1042) bumplab_bench::cases::grow_same_align::bumpalo::run
cfn=(1044) bumplab_bench__grow_same_align__bumpalo
calls=1 0
0 41 5 1

fn=(1044)
0 27 3 1
+2 4
cob=(3) /usr/lib/x86_64-linux-gnu/libc.so.6
cfi=(7) ???
cfn=(900) __memcpy_avx_unaligned_erms
calls=1 0
* 10 2

ob=(3)
fl=(7)
fn=(900)
0 10 2

totals: 41 5 1
`;

test("totals and per-function self costs", () => {
  const r = parseCallgrind(OUT);
  assert.deepEqual(r.events, ["Ir", "Bc", "Bcm", "Bi", "Bim"]);
  assert.deepEqual(r.total, { Ir: 41, Bc: 5, Bcm: 1, Bi: 0, Bim: 0 });
  // The caller's call lines are inclusive costs: not added to the caller.
  assert.equal(r.fns["bumplab_bench::cases::grow_same_align::bumpalo::run"], undefined);
  assert.deepEqual(r.fns.bumplab_bench__grow_same_align__bumpalo, { Ir: 31, Bc: 3, Bcm: 1, Bi: 0, Bim: 0 });
  assert.deepEqual(r.fns.__memcpy_avx_unaligned_erms, { Ir: 10, Bc: 2, Bcm: 0, Bi: 0, Bim: 0 });
});

test("summary stands in when there is no totals line", () => {
  const r = parseCallgrind(OUT.replace(/^totals:.*$/m, ""));
  assert.equal(r.total.Ir, 41);
  assert.equal(r.total.Bc, 5);
});

test("refuses what is not callgrind output", () => {
  assert.throws(() => parseCallgrind("hello\n"), /events/);
});
