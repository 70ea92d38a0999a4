//! The meter against wasmtime fuel on the real models: every preset of
//! bumplab-core on both words (and, for presets with a minimum alignment, the
//! default and other values), each op of a deterministic program compared
//! call by call.
//!
//! The fixture (fixtures/presets, its own cargo workspace, the root's release
//! profile, built here for wasm32-unknown-unknown) compiles the generic roots
//! from crates/cost/src/roots.rs itself (`#[path]`), the file the shipped
//! module compiles, and builds instances through `presets::visit` as
//! measure.rs does.
//!
//! Method. Fuel can only be read around a whole call from the host, so the
//! call must be the measured code and nothing else. Measuring the page's
//! dispatch path (`dyn Measured` -> generic root) would leave the dispatcher's
//! instructions in the fuel, and subtracting a "no-op root" variant's fuel
//! assumes LTO compiled the dispatcher identically in both. Instead, the
//! fixture stamps out, per tested instantiation, non-generic exports
//! `bumplab_measure_<op>__<preset>__<word>__<min_align>(state, ...)` whose
//! body is only the call of the generic root `bumplab_measure_<op>::<W, M>`
//! on the instance at `state` (plus argument/result conversion). Their names
//! make them roots for the meter, so the meter counts exactly the functions
//! the call executes: the export, the generic root and everything they call.
//! Wasmtime calls the same export directly on the ORIGINAL module with the
//! meter's cost table (tests/common: per-entry fuel subtracted), so both
//! sides count the same execution with no assumption about other code. The
//! state pointer comes from `bumplab_fixture_new` (+ a `state` export that
//! checks the instance's type with `Any::downcast_mut`); those are not roots
//! and are not compared (they may share callees with the roots).
//! The four wasmtime instances (three fuel tables, one metered) run the same
//! calls in the same order, so their states stay in step; results must agree.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use common::{instrument, Fuel, Metered};
use wasmtime::Val;

/// `PresetId::ALL` in order (name with `_` for `-`) and the minimum
/// alignments the fixture stamps out for each (`[0]`: no such setting; else
/// the default first). Checked against the fixture's own `PresetId` data.
const PRESETS: [(&str, &[u64]); 16] = [
    ("fitzgen_down", &[0]),
    ("hinckley_up_naive", &[0]),
    ("hinckley_up", &[0]),
    ("up_min_align", &[8, 1, 64]),
    ("down_min_align", &[8, 1, 64]),
    ("bumper_alloc_buffer", &[0]),
    ("bumper_slab", &[0]),
    ("cpp_arena", &[0]),
    ("bump_scope_up", &[1, 16]),
    ("bump_scope_down", &[1, 16]),
    ("bumpalo", &[1, 16]),
    ("blink_alloc", &[0]),
    ("llvm_bump_ptr", &[0]),
    ("pmr_monotonic", &[0]),
    ("zig_arena", &[0]),
    ("zig_fixed_buffer", &[0]),
];
/// `Target::ALL` in order.
const WORDS: [&str; 2] = ["u64", "u32"];
const OPS: [&str; 6] = ["alloc", "realloc", "free", "reset", "checkpoint", "restore"];

/// Builds the fixture with the same cargo that runs this test.
fn build_fixture() -> Vec<u8> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = manifest_dir.join("../../target/meter-fixture-presets");
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "--quiet",
            "--locked",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .arg("--manifest-path")
        .arg(manifest_dir.join("fixtures/presets/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // Flags meant for the host build must not leak into the wasm build.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("CARGO_TARGET_DIR")
        .output()
        .expect("cannot run cargo");
    assert!(
        out.status.success(),
        "building the presets fixture failed (is the wasm32-unknown-unknown target installed?):\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let wasm: PathBuf =
        target_dir.join("wasm32-unknown-unknown/release/bumplab_meter_fixture_presets.wasm");
    std::fs::read(&wasm).unwrap()
}

fn function_exports(wasm: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::ExportSection(reader) = payload.unwrap() {
            for e in reader {
                let e = e.unwrap();
                if e.kind == wasmparser::ExternalKind::Func {
                    out.push(e.name.to_string());
                }
            }
        }
    }
    out
}

/// Runs the same calls on the original module (fuel) and the instrumented one.
struct Checker {
    fuel: Fuel,
    meter: Metered,
    /// op -> (calls checked, calls with a slow part).
    per_op: BTreeMap<&'static str, (usize, usize)>,
    /// Result codes seen from allocating ops: -1 full, -2 heap exhausted.
    failures: BTreeMap<i64, usize>,
}

impl Checker {
    /// A fixture function that is not a root, run on every instance to keep
    /// them in step; only the results are compared (its counts may move: it
    /// can call functions the roots reach too, e.g. the heap's and malloc's).
    fn plain(&mut self, name: &str, args: &[Val]) -> i64 {
        let (expected, _) = self.fuel.call(name, args);
        let (results, _) = self.meter.call(name, args);
        assert_eq!(results, expected, "{name}({args:?}): results");
        expected[0]
    }

    /// `bumplab_measure_<op>__<tag>(state, args...)` on both sides, compared.
    fn op(&mut self, op: &'static str, tag: &str, state: i32, args: &[u64]) -> i64 {
        let name = format!("bumplab_measure_{op}__{tag}");
        let mut vals = vec![Val::I32(state)];
        vals.extend(args.iter().map(|&a| Val::I64(a as i64)));
        let (expected, fuel) = self.fuel.call(&name, &vals);
        let (results, counts) = self.meter.call(&name, &vals);
        let what = format!("{name}{args:?}");
        assert_eq!(results, expected, "{what}: results");
        assert_eq!(
            (counts.instructions, counts.branches),
            (fuel.instructions, fuel.branches),
            "{what}: meter vs wasmtime fuel"
        );
        // (A no-op op, e.g. free on a fixed chunk, may compile to nothing.)
        if matches!(op, "alloc" | "realloc") {
            assert!(counts.instructions > 0, "{what}: nothing counted");
        }
        assert!(
            counts.slow_instructions <= counts.instructions
                && counts.slow_branches <= counts.branches,
            "{what}: slow part larger than the whole: {counts:?}"
        );
        let entry = self.per_op.entry(op).or_default();
        entry.0 += 1;
        if counts.slow_instructions > 0 {
            entry.1 += 1;
        }
        let result = expected.first().copied().unwrap_or(0);
        if matches!(op, "alloc" | "realloc") && result < 0 {
            *self.failures.entry(result).or_default() += 1;
        }
        result
    }

    /// The program: every path of every model, deterministically.
    fn program(&mut self, tag: &str, s: i32) {
        let alloc = |c: &mut Checker, size: u64, align: u64| c.op("alloc", tag, s, &[size, align]);
        let realloc = |c: &mut Checker, addr: i64, old: u64, align: u64, new: u64| {
            (addr >= 0).then(|| c.op("realloc", tag, s, &[addr as u64, old, align, new]))
        };
        let free = |c: &mut Checker, addr: i64, size: u64, align: u64| {
            if addr >= 0 {
                c.op("free", tag, s, &[addr as u64, size, align]);
            }
        };

        // Fast allocs (bumpalo's first one makes its first chunk).
        let a = alloc(self, 8, 8);
        let b = alloc(self, 16, 8);
        let c = alloc(self, 24, 4);
        self.op("checkpoint", tag, s, &[]);
        let d = alloc(self, 40, 16);
        // Grow the last block (in place bumping up, moved bumping down), then a
        // non-last one (moved), shrink the last and a non-last one.
        realloc(self, d, 40, 16, 64);
        let b2 = realloc(self, b, 16, 8, 48).unwrap_or(-1);
        let b3 = realloc(self, b2, 48, 8, 16).unwrap_or(-1);
        realloc(self, c, 24, 4, 8);
        // Free the last block, then a non-last one.
        free(self, b3, 16, 8);
        free(self, a, 8, 8);
        // Fill small chunks (new chunks; full fixed chunks), then 1 MiB
        // buffers and slabs (new slab; full buffer).
        for i in 0..12 {
            alloc(self, 200, 8 << (i % 3));
        }
        for _ in 0..4 {
            alloc(self, 300 << 10, 16);
        }
        // Oversized: its own chunk, a custom slab, or full.
        alloc(self, 4 << 20, 64);
        alloc(self, 64, 4096);
        self.op("restore", tag, s, &[]);
        alloc(self, 32, 8);
        self.op("reset", tag, s, &[]);
        alloc(self, 8, 1);
        self.op("checkpoint", tag, s, &[]);
        // Until the simulated heap (4 GiB) is exhausted.
        for _ in 0..3 {
            alloc(self, 0x7000_0000, 16);
        }
        self.op("restore", tag, s, &[]);
        alloc(self, 16, 16);
        // Grow the last block past its chunk.
        let e = alloc(self, 100, 8);
        realloc(self, e, 100, 8, 3000);
        self.op("reset", tag, s, &[]);
        self.op("restore", tag, s, &[]);
    }
}

#[test]
fn every_preset_matches_wasmtime_fuel_call_by_call() {
    let started = Instant::now();
    let wasm = build_fixture();
    let built = started.elapsed();
    let out = instrument(&wasm);
    eprintln!("presets fixture: {}", out.report);
    assert!(!out.report.slow.is_empty(), "no slow function found");

    let mut checker = Checker {
        fuel: Fuel::new(&wasm),
        meter: Metered::new(&out.wasm),
        per_op: BTreeMap::new(),
        failures: BTreeMap::new(),
    };

    // The stamped list covers PresetId::ALL and each preset's min_aligns.
    assert_eq!(
        checker.plain("bumplab_fixture_presets", &[]),
        PRESETS.len() as i64,
        "PresetId::ALL changed: update PRESETS and the fixture's stamp! list"
    );
    for (i, (name, tested)) in PRESETS.iter().enumerate() {
        let n = checker.plain("bumplab_fixture_min_aligns", &[Val::I32(i as i32)]);
        let supported: Vec<u64> = (0..n)
            .map(|j| {
                let args = [Val::I32(i as i32), Val::I32(j as i32)];
                checker.plain("bumplab_fixture_min_align", &args) as u64
            })
            .collect();
        if supported.is_empty() {
            assert_eq!(*tested, [0], "{name}");
        } else {
            assert!(tested.len() >= 2, "{name}: test the default and another");
            assert_eq!(tested[0], supported[0], "{name}: the default first");
            assert!(tested.iter().all(|m| supported.contains(m)), "{name}");
        }
    }

    // Every measured export of the fixture is one this test calls.
    let mut expected_roots = Vec::new();
    for (name, min_aligns) in PRESETS {
        for word in WORDS {
            for min_align in min_aligns {
                for op in OPS {
                    expected_roots
                        .push(format!("bumplab_measure_{op}__{name}__{word}__{min_align}"));
                }
            }
        }
    }
    let mut exported: Vec<String> = function_exports(&wasm)
        .into_iter()
        .filter(|e| e.starts_with("bumplab_measure_"))
        .collect();
    exported.sort();
    expected_roots.sort();
    assert_eq!(exported, expected_roots, "stamped exports vs PRESETS");

    let mut instances = 0;
    for (preset, (name, min_aligns)) in PRESETS.iter().enumerate() {
        for (target, word) in WORDS.iter().enumerate() {
            for &min_align in *min_aligns {
                let tag = format!("{name}__{word}__{min_align}");
                let args = [preset, target, min_align as usize].map(|v| Val::I32(v as i32));
                let handle = checker.plain("bumplab_fixture_new", &args);
                assert_ne!(handle as u32, u32::MAX, "{tag}: construction failed");
                let state_fn = format!("bumplab_fixture_state__{tag}");
                let state = checker.plain(&state_fn, &[Val::I32(handle as i32)]);
                assert_ne!(
                    state, 0,
                    "{tag}: the stamped types are not what visit built"
                );
                let slow_before: usize = checker.per_op.values().map(|v| v.1).sum();
                checker.program(&tag, state as i32);
                let slow_after: usize = checker.per_op.values().map(|v| v.1).sum();
                // Models with chunks, slabs, pools or an out-of-memory path
                // must have taken their slow path at least once. Zig's
                // FixedBufferAllocator has none: a full buffer returns null
                // inline, as the seed algorithms' fixed chunk fails inline.
                if !["fitzgen", "hinckley", "min_align", "fixed_buffer"]
                    .iter()
                    .any(|fixed| name.contains(fixed))
                {
                    assert!(slow_after > slow_before, "{tag}: no slow path taken");
                }
                instances += 1;
            }
        }
    }

    let calls: usize = checker.per_op.values().map(|v| v.0).sum();
    let slow: usize = checker.per_op.values().map(|v| v.1).sum();
    eprintln!(
        "{instances} instances (preset, word, min_align), {calls} calls, {slow} with a slow part, \
         all equal to wasmtime fuel; per op (calls, slow): {:?}; failed allocs by code: {:?}; \
         fixture built in {built:.1?}, total {:.1?}",
        checker.per_op,
        checker.failures,
        started.elapsed()
    );
    for op in OPS {
        assert!(checker.per_op.get(op).is_some_and(|v| v.0 > 0), "no {op}");
    }
    assert!(slow >= 50, "too few slow calls: {slow}");
    for code in [-1, -2] {
        assert!(
            checker.failures.contains_key(&code),
            "no alloc failed with {code}"
        );
    }
}
