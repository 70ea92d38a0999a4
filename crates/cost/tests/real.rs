//! The live real-crate rows of a trace (`real`, src/real.rs) as the page gets
//! them from `traceProgram`, under `wasm-pack test --node`: this module is
//! wasm32 but not metered, so placements and mismatches are there and costs
//! are not (web/src/engine/real.test.ts checks the cost module's costs).

use bumplab_cost::trace_program;
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

fn trace(src: &str, allocator: &str, target: &str, min_align: u32) -> Value {
    let t: Value = serde_json::from_str(&trace_program(
        src,
        allocator,
        target,
        None,
        Some(min_align),
        None,
    ))
    .unwrap();
    assert!(t.get("error").is_none(), "{t}");
    t
}

/// Each op's real chunk capacity (`None` for ops that place nothing), after
/// checking the run compared clean and measured nothing.
fn clean_capacities(t: &Value, what: &str) -> Vec<Option<u64>> {
    let real = &t["real"];
    assert!(real.get("unavailable").is_none(), "{what}: {real}");
    assert_eq!(real["mismatches"], serde_json::json!([]), "{what}");
    let ops = real["ops"].as_array().unwrap();
    assert_eq!(ops.len(), t["ops"].as_array().unwrap().len(), "{what}");
    assert!(
        ops.iter().all(|o| o.get("cost").is_none()),
        "{what}: unmetered"
    );
    assert!(t.get("baseline").is_none(), "{what}: unmetered");
    ops.iter().map(|o| o["chunk_capacity"].as_u64()).collect()
}

#[wasm_bindgen_test]
fn bumpalo_three_chunks_with_reallocs_and_frees_match_the_real_crate() {
    let src = "a = alloc 100 align 8\nb = alloc 100 align 8\nb2 = realloc b 150\nfree b2\n\
        c = alloc 300 align 8\nd = alloc 500 align 8\nd2 = realloc d 700\n\
        e = alloc 600 align 16\nf = alloc 8 align 8\nfree f\ng = realloc e 100\n";
    for m in [1, 2, 4, 8, 16] {
        let t = trace(src, "bumpalo", "wasm32", m);
        assert_eq!(t["real"]["crate"], "bumpalo 3.20.4");
        let (a, b, c) = (Some(464), Some(976), Some(2000));
        assert_eq!(
            clean_capacities(&t, &format!("MIN_ALIGN {m}")),
            [a, a, a, None, a, b, b, c, c, None, c],
            "MIN_ALIGN {m}"
        );
        let real = &t["real"]["ops"];
        assert_eq!(real[0]["chunk"], 0);
        assert_eq!(real[5]["chunk"], 1);
        assert_eq!(real[7]["chunk"], 2);
        // Growing the last block moves it down; so does this shrink (half
        // comes back).
        assert_eq!(real[2]["moved"], true);
        assert_eq!(real[10]["moved"], t["ops"][10]["moved"]);
    }
}

#[wasm_bindgen_test]
fn bump_scope_with_a_checkpoint_matches_the_real_crate_both_ways() {
    let src = "a = alloc 96 align 8\ncheckpoint s\nb = alloc 304 align 8\n\
        c = alloc 592 align 8\nc2 = realloc c 800\nrestore s\nd = alloc 900 align 8\n\
        e = alloc 1500 align 4\nfree e\ncheckpoint t\nx = alloc 8\nrestore t\nreset\n\
        f = alloc 16 align 16\n";
    for dir in ["up", "down"] {
        for m in [1, 2, 4, 8, 16] {
            let what = format!("{dir}, MIN_ALIGN {m}");
            let t = trace(src, &format!("bump-scope-{dir}"), "wasm32", m);
            assert_eq!(t["real"]["crate"], "bump-scope 2.4.1");
            let caps: Vec<u64> = clean_capacities(&t, &what).into_iter().flatten().collect();
            // After the restore, d reuses the kept 992-byte chunk.
            assert_eq!(caps, [480, 480, 992, 992, 992, 2016, 2016, 2016], "{what}");
            let real = &t["real"]["ops"];
            assert_eq!(real[6]["chunk"], 1, "{what}");
            assert_eq!(real[7]["chunk"], 2, "{what}");
        }
    }
}

#[wasm_bindgen_test]
fn a_64_bit_trace_has_no_real_rows() {
    let t = trace("a = alloc 8\n", "bumpalo", "64", 1);
    let why = t["real"]["unavailable"].as_str().unwrap();
    assert!(why.contains("wasm32") && why.contains("64-bit"), "{why}");
    assert!(t["real"].get("ops").is_none());
    // Presets that model no crate get no `real` at all.
    let t = trace("a = alloc 8\n", "up-min-align", "wasm32", 8);
    assert!(t.get("real").is_none());
}

#[wasm_bindgen_test]
fn a_huge_program_is_refused_not_run() {
    for p in ["bumpalo", "bump-scope-up", "bump-scope-down"] {
        let t = trace("a = alloc 0x10000000\nb = alloc 8\n", p, "wasm32", 1);
        let why = t["real"]["unavailable"].as_str().unwrap_or_default();
        assert!(why.contains("limited to 64.0 MiB"), "{p}: {}", t["real"]);
    }
}
