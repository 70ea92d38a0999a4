//! The real thing: a Rust bump-allocator-like cdylib (fixtures/bump), built by
//! rustc for wasm32-unknown-unknown, instrumented, and checked against
//! wasmtime's fuel on the original module for 1000 calls, call by call,
//! including the split into fast and slow parts.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{
    bodies, function_imports, function_names, instrument, with_export, Fuel, Metered, Rng,
};
use wasmtime::Val;

/// Builds the fixture with the same cargo that runs this test.
fn build_fixture() -> Vec<u8> {
    let manifest_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let target_dir = manifest_dir.join("../../target/meter-fixture");
    let status = Command::new(env!("CARGO"))
        .args([
            "build",
            "--release",
            "--quiet",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .arg("--manifest-path")
        .arg(manifest_dir.join("fixtures/bump/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // Flags meant for the host build must not leak into the wasm build.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .status()
        .expect("cannot run cargo");
    assert!(
        status.success(),
        "building the fixture failed (is the wasm32-unknown-unknown target installed?)"
    );
    let wasm: PathBuf =
        target_dir.join("wasm32-unknown-unknown/release/bumplab_meter_fixture_bump.wasm");
    std::fs::read(&wasm).unwrap()
}

/// Optionally the same module after binaryen's wasm-opt -O -g (what the page's
/// build does), if the project's npm install provides it.
fn wasm_opt(wasm: &[u8]) -> Option<Vec<u8>> {
    let tool = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../node_modules/.bin/wasm-opt");
    if !tool.exists() {
        // Under `npm test` (scripts/test-all.mjs) the npm install has run, so
        // a missing tool is a broken setup, not a reason to pass quietly.
        assert!(
            std::env::var_os("BUMPLAB_NPM_TEST").is_none(),
            "{} not found: the wasm-opt variant cannot run",
            tool.display()
        );
        eprintln!(
            "note: {} not found, skipping the wasm-opt variant",
            tool.display()
        );
        return None;
    }
    let dir = std::env::temp_dir().join(format!("bumplab-meter-opt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.wasm"), dir.join("out.wasm"));
    std::fs::write(&input, wasm).unwrap();
    let status = Command::new(tool)
        .args(["-O", "-g", "--enable-bulk-memory", "--enable-sign-ext"])
        .arg("--enable-nontrapping-float-to-int")
        .arg("--enable-mutable-globals")
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .status()
        .unwrap();
    assert!(status.success(), "wasm-opt failed");
    let out = std::fs::read(&output).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    Some(out)
}

fn slow_function(wasm: &[u8]) -> u32 {
    let slow: Vec<u32> = function_names(wasm)
        .into_iter()
        .filter(|(_, name)| name.contains("alloc_slow"))
        .map(|(index, _)| index)
        .collect();
    assert_eq!(slow.len(), 1, "expected one alloc_slow in the fixture");
    slow[0]
}

/// 1000 calls with varied sizes and aligns on both roots, each compared with
/// wasmtime fuel: results, total instructions and branches, and the slow part
/// against the fuel of `alloc_slow(size, align)` called alone on a third copy
/// of the original whose state is kept in step.
fn cross_check(wasm: &[u8]) -> (usize, usize) {
    let out = instrument(wasm);
    let slow = slow_function(wasm);

    // Reachability: the roots and alloc_slow, nothing else.
    let names = function_names(wasm);
    let name_of = |f: u32| names.iter().find(|(i, _)| *i == f).unwrap().1.clone();
    let mut instrumented: Vec<String> = out
        .report
        .instrumented
        .iter()
        .map(|&f| name_of(f))
        .collect();
    instrumented.sort();
    assert_eq!(instrumented.len(), 3, "{instrumented:?}");
    assert!(instrumented.contains(&"bumplab_measure_alloc_down".to_string()));
    assert!(instrumented.contains(&"bumplab_measure_alloc_up".to_string()));
    assert_eq!(out.report.slow.len(), 1);

    // Every body the meter did not instrument is byte-for-byte the same.
    let imports = function_imports(wasm);
    let (before, after) = (bodies(wasm), bodies(&out.wasm));
    assert_eq!(before.len(), after.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        let func = imports + i as u32;
        if out.report.instrumented.contains(&func) {
            assert_ne!(b, a, "{} not instrumented", name_of(func));
        } else {
            assert_eq!(b, a, "{} changed", name_of(func));
        }
    }

    let probe_wasm = with_export(wasm, slow, "probe_alloc_slow");
    let mut fuel = Fuel::new(wasm);
    let mut probe = Fuel::new(&probe_wasm);
    let mut meter = Metered::new(&out.wasm);

    let mut rng = Rng::new(0x5eed);
    let mut down_ptr = 0i64;
    let (mut fast_calls, mut slow_calls) = (0, 0);
    for call in 0..1000 {
        let size = match rng.below(10) {
            0 => rng.below(20_000) as i32, // larger than a chunk: slow path, may fail
            1..=3 => rng.below(600) as i32,
            _ => rng.below(48) as i32,
        };
        let align = 1i32 << rng.below(7);
        let (root, args) = if rng.below(2) == 0 {
            if rng.below(8) == 0 {
                down_ptr = rng.below(1 << 17) as i64; // arbitrary pointer
            }
            let args = vec![Val::I32(down_ptr as i32), Val::I32(size), Val::I32(align)];
            ("bumplab_measure_alloc_down", args)
        } else {
            (
                "bumplab_measure_alloc_up",
                vec![Val::I32(size), Val::I32(align)],
            )
        };

        let (expected, total) = fuel.call(root, &args);
        let (results, counts) = meter.call(root, &args);
        let what = format!("call {call}: {root}({args:?})");
        assert_eq!(results, expected, "{what}: results");
        assert_eq!(
            (counts.instructions, counts.branches),
            (total.instructions, total.branches),
            "{what}: meter vs fuel"
        );

        // Keep the probe in step: it runs alloc_slow alone when the root took
        // the slow path (the roots change no state besides alloc_slow's), the
        // root itself otherwise.
        if counts.slow_instructions > 0 {
            slow_calls += 1;
            let (slow_results, slow_fuel) =
                probe.call("probe_alloc_slow", &[Val::I32(size), Val::I32(align)]);
            assert_eq!(
                slow_results, expected,
                "{what}: alloc_slow alone returned otherwise"
            );
            assert_eq!(
                (counts.slow_instructions, counts.slow_branches),
                (slow_fuel.instructions, slow_fuel.branches),
                "{what}: slow part vs fuel of alloc_slow alone"
            );
            assert!(counts.slow_instructions < counts.instructions);
        } else {
            fast_calls += 1;
            assert_eq!(counts.slow_branches, 0, "{what}");
            let (probe_results, _) = probe.call(root, &args);
            assert_eq!(probe_results, expected, "{what}: probe out of step");
        }
        if root == "bumplab_measure_alloc_down" && expected[0] != 0 {
            down_ptr = expected[0];
        }
    }

    // Same memory behaviour: identical memory after the run, and the
    // uninstrumented export agrees.
    let memory = fuel.memory().unwrap();
    assert_eq!(Some(&memory), meter.memory().as_ref(), "memory differs");
    let len = [Val::I32(memory.len().min(1 << 16) as i32)];
    let (expected, _) = fuel.call("checksum", &len);
    let before = meter.counts();
    assert_eq!(meter.call_plain("checksum", &len), expected);
    assert_eq!(
        meter.counts(),
        before,
        "an uninstrumented function moved the counters"
    );
    (fast_calls, slow_calls)
}

#[test]
fn rust_fixture_matches_wasmtime_fuel_call_by_call() {
    let wasm = build_fixture();
    let (fast, slow) = cross_check(&wasm);
    eprintln!("rustc output: 1000 calls, {fast} fast, {slow} slow, all equal to wasmtime fuel");
    assert!(
        fast >= 300 && slow >= 100,
        "too few of one path: {fast} fast, {slow} slow"
    );

    if let Some(optimised) = wasm_opt(&wasm) {
        let (fast, slow) = cross_check(&optimised);
        eprintln!("after wasm-opt -O -g: {fast} fast, {slow} slow, all equal to wasmtime fuel");
    }
}
