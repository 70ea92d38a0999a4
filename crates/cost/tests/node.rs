//! Runs under `wasm-pack test --node`: the binding as the page and CLI see it,
//! compiled for wasm32.

use bumplab_cost::{list_allocators, source_text, trace_program};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

fn json(s: &str) -> Value {
    serde_json::from_str(s).expect("the binding returns JSON")
}

#[wasm_bindgen_test]
fn trace_returns_placements_for_both_directions() {
    let src = "a = alloc 1\nb = alloc u64\n";
    let down = json(&trace_program(
        src,
        "fitzgen-down",
        "64",
        Some(256),
        None,
        None,
    ));
    let up = json(&trace_program(
        src,
        "hinckley-up",
        "64",
        Some(256),
        None,
        None,
    ));
    let offsets = |t: &Value| -> Vec<u64> {
        t["ops"]
            .as_array()
            .unwrap()
            .iter()
            .map(|o| o["offset"].as_u64().unwrap())
            .collect()
    };
    assert_eq!(offsets(&down), vec![255, 240]);
    assert_eq!(offsets(&up), vec![0, 8]);
    assert_eq!(down["version"], 1);
    assert_eq!(down["chunks"][0]["capacity"], 256);
}

#[wasm_bindgen_test]
fn usize_follows_the_target() {
    let t = json(&trace_program(
        "a = alloc usize\n",
        "hinckley-up",
        "wasm32",
        Some(256),
        None,
        None,
    ));
    assert_eq!(t["target"], "wasm32");
    assert_eq!(t["ops"][0]["size"], 4);
    let t = json(&trace_program(
        "a = alloc usize\n",
        "hinckley-up",
        "64",
        Some(256),
        None,
        None,
    ));
    assert_eq!(t["ops"][0]["size"], 8);
}

#[wasm_bindgen_test]
fn bad_input_is_an_error_value_not_a_trap() {
    let e = json(&trace_program(
        "a = alloc 8 align 3\n",
        "fitzgen-down",
        "64",
        Some(256),
        None,
        None,
    ));
    assert_eq!(e["error"]["line"], 1);
    assert_eq!(e["error"]["column"], 19);
    let e = json(&trace_program(
        "a = alloc 8\n",
        "no-such",
        "64",
        Some(256),
        None,
        None,
    ));
    assert!(e["error"]["message"]
        .as_str()
        .unwrap()
        .starts_with("unknown allocator 'no-such'"));
    let e = json(&trace_program(
        "a = alloc 8\n",
        "hinckley-up",
        "64",
        Some(100),
        None,
        None,
    ));
    assert!(e["error"]["message"]
        .as_str()
        .unwrap()
        .contains("multiple of 16"));
}

#[wasm_bindgen_test]
fn lists_allocators_and_their_sources() {
    let list = json(&list_allocators());
    let names: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    // The seed presets first, then the others; every name once.
    assert_eq!(
        names[..3],
        ["fitzgen-down", "hinckley-up-naive", "hinckley-up"]
    );
    for name in [
        "bumpalo",
        "bump-scope-up",
        "bump-scope-down",
        "bumper-slab",
        "cpp-arena",
        "blink-alloc",
        "llvm-bump-ptr",
        "pmr-monotonic",
        "zig-arena",
        "zig-fixed-buffer",
    ] {
        assert_eq!(names.iter().filter(|n| *n == name).count(), 1, "{name}");
    }
    let src = source_text("bump-down").expect("bump-down has a source");
    assert!(src.contains("checked_sub"));
    assert!(source_text("nope").is_none());
}

/// The cost replay runs every op again on a fresh model and must land each
/// block where the trace did: checkpoints, restores, reallocs and failures
/// included, on every preset. (Unmetered here, so the costs are zeros; the
/// counts themselves are checked against wasmtime's fuel in crates/meter.)
#[wasm_bindgen_test]
fn the_cost_replay_lands_every_block_where_the_trace_did() {
    use bumplab_core::{engine, PresetId};
    let src = "a = alloc 1\nb = alloc u64\ncheckpoint s\nc = alloc 24 align 16\nc = realloc c 40\nfree b\nrestore s\nd = alloc 600\nreset\ne = alloc 8\n";
    for preset in PresetId::ALL {
        for target in ["wasm32", "64"] {
            let (preset_id, opts) =
                engine::request(preset.name(), target, None, None, None).unwrap();
            let trace = match bumplab_core::run(src, preset_id, &opts) {
                Ok(t) => t,
                // A preset may refuse the program (no checkpoints, too small): nothing to replay.
                Err(_) => continue,
            };
            let min_align = engine::resolve_min_align(preset_id, opts.min_align).unwrap();
            let costs =
                bumplab_cost::measure::replay_costs(&trace, preset_id, min_align, opts.capacity)
                    .unwrap_or_else(|e| panic!("{} on {target}: {e:?}", preset.name()));
            assert_eq!(
                costs.len(),
                trace.ops.len(),
                "{} on {target}",
                preset.name()
            );
        }
    }
}

/// `trace_costs` (what the page's cost worker calls) returns the full trace's
/// per-op costs, real run and baseline. Unmetered here, the costs are null on
/// both sides, so this checks the rows and the real and baseline runs; the
/// same comparison with real counts runs on the metered module in
/// web/src/engine/costs.test.ts, and crates/meter/tests/shipped.rs holds the
/// counts to wasmtime's fuel.
#[wasm_bindgen_test]
fn trace_costs_is_the_full_traces_costs_real_run_and_baseline() {
    let src = "a = alloc 8\nb = alloc 24 align 16\nb = realloc b 64\nfree a\nreset\n";
    for alloc in ["bumpalo", "bump-scope-up", "fitzgen-down"] {
        let full = json(&trace_program(src, alloc, "wasm32", None, None, None));
        let costs = json(&bumplab_cost::trace_costs(
            src, alloc, "wasm32", None, None, None,
        ));
        let ops = full["ops"].as_array().unwrap();
        assert_eq!(costs["ops"], ops.len(), "{alloc}");
        let per_op = costs["costs"].as_array().unwrap();
        assert_eq!(per_op.len(), ops.len(), "{alloc}");
        for (op, c) in ops.iter().zip(per_op) {
            let want = match &op["cost"] {
                Value::Null => Value::Null,
                cost => serde_json::json!([
                    cost["wasm_instructions"],
                    cost["wasm_branches"],
                    cost["slow_instructions"],
                    cost["slow_branches"]
                ]),
            };
            assert_eq!(*c, want, "{alloc}");
        }
        assert_eq!(costs["real"], full["real"], "{alloc}");
        assert_eq!(costs["baseline"], full["baseline"], "{alloc}");
        assert!(
            costs.get("real").is_some() == (alloc != "fitzgen-down"),
            "{alloc}: the real crate runs for bumpalo and bump-scope only"
        );
    }
    let e = json(&bumplab_cost::trace_costs(
        "free x\n", "bumpalo", "64", None, None, None,
    ));
    assert_eq!(e["error"]["line"], 1);
}
