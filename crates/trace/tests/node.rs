//! Runs under `wasm-pack test --node crates/trace`: the columnar run as
//! the page sees it, compiled for wasm32.

use bumplab_trace::{list_allocators, parse_program, source_path, TraceRun};
use serde_json::Value;
use wasm_bindgen_test::wasm_bindgen_test;

fn json(s: &str) -> Value {
    serde_json::from_str(s).expect("the binding returns JSON")
}

const PROGRAM: &str = "repeat 600 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = realloc a 40\n}\nreset\n";

const COLUMNS: [&str; 7] = [
    "meta", "chunk", "offset", "size", "padding", "dead_at", "gone_at",
];

#[wasm_bindgen_test]
fn advancing_in_slices_fills_every_column_as_one_go_does() {
    let mut whole = TraceRun::new(PROGRAM, "bump-scope-up", "wasm32", None, None, None);
    assert_eq!(whole.total(), 2401.0);
    assert!(whole.advance(u32::MAX));
    let mut sliced = TraceRun::new(PROGRAM, "bump-scope-up", "wasm32", None, None, None);
    let mut calls = 0;
    while !sliced.advance(7) {
        calls += 1;
        assert_eq!(sliced.executed(), 7 * calls);
    }
    assert_eq!(sliced.executed(), 2401);
    assert_eq!(sliced.error(), None);
    for c in COLUMNS {
        assert_eq!(sliced.column(c).length(), 2401, "{c}");
        assert_eq!(sliced.column(c).to_vec(), whole.column(c).to_vec(), "{c}");
    }
    assert_eq!(sliced.column("nope").length(), 0);
    assert_eq!(sliced.chunks(), whole.chunks());
    // 9 numbers per sample: ops 0 and 2400 (and every stats_every-th between).
    let header = json(&sliced.header());
    assert_eq!(header["stats_every"], 1);
    assert_eq!(sliced.stats_samples().len(), 9 * 2401);
    assert_eq!(header["allocator"], "bump-scope-up");
    assert_eq!(header["target"], "wasm32");
    // The statements as columns: the repeat, its four, the reset.
    assert_eq!(sliced.stmt_lines().to_vec(), [1, 2, 3, 4, 5, 7]);
    assert_eq!(sliced.stmt_columns().to_vec(), [1, 3, 3, 3, 3, 1]);
    assert_eq!(sliced.names(), "a\nb\nc");
    // kind | (name + 1) << 3: alloc a, alloc b, free b, realloc c, reset.
    assert_eq!(
        sliced.stmt_kinds().to_vec(),
        [7, 1 << 3, 2 << 3, 2 | 2 << 3, 1 | 3 << 3, 3]
    );
    // b (op 1) is freed by op 2, and its bytes come back then (it was last).
    assert_eq!(sliced.column("dead_at").to_vec()[1], 2);
    assert_eq!(sliced.column("gone_at").to_vec()[1], 2);
}

#[wasm_bindgen_test]
fn a_detail_is_the_op_in_full_with_the_chunks_used() {
    let mut run = TraceRun::new(PROGRAM, "bumpalo", "wasm32", None, None, None);
    assert!(run.advance(100_000));
    for i in [0, 1023, 1024, 2400] {
        let d = json(&run.detail(i));
        assert_eq!(d["op"]["index"], i);
        assert!(d["op"]["events"].as_array().is_some());
        assert!(d["op"]["stats"]["used"].as_u64().is_some());
        let used: u64 = d["chunks_used"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["hi"].as_u64().unwrap() - c["lo"].as_u64().unwrap())
            .sum();
        assert_eq!(used, d["op"]["stats"]["used"].as_u64().unwrap());
    }
    assert_eq!(json(&run.detail(1))["op"]["block"], "b");
    assert_eq!(run.detail(2401), "null");
}

#[wasm_bindgen_test]
fn a_program_parsed_apart_runs_as_the_text_does() {
    let mut parsed = parse_program(PROGRAM);
    assert_eq!(parsed.error(), None);
    assert_eq!(parsed.statements(), 6);
    let words = parsed.words();
    assert!(parsed.words().is_empty(), "taken once");
    let mut apart = TraceRun::from_program(words, "bumpalo", "wasm32", None, None, None);
    let mut whole = TraceRun::new(PROGRAM, "bumpalo", "wasm32", None, None, None);
    assert!(apart.advance(u32::MAX) && whole.advance(u32::MAX));
    for c in COLUMNS {
        assert_eq!(apart.column(c).to_vec(), whole.column(c).to_vec(), "{c}");
    }
    assert_eq!(apart.detail(1234), whole.detail(1234));
    assert_eq!(apart.names(), whole.names());
    // An error the parser finds comes back as the run's would.
    let bad = parse_program("a = alloc\nb = alloc 8 align\n");
    let e = json(&bad.error().unwrap());
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(1), Some(10))
    );
    assert_eq!(e["more"][0]["line"], 2);
    // Damaged words fail the run; they never trap.
    let mut damaged = TraceRun::from_program(vec![1, 2, 3], "bumpalo", "64", None, None, None);
    assert!(damaged.advance(1));
    assert!(damaged.error().unwrap().contains("came back damaged"));
}

#[wasm_bindgen_test]
fn bad_input_makes_a_failed_run_with_a_json_error() {
    let mut run = TraceRun::new(
        "a = alloc 8\nfree a\nfree a\n",
        "hinckley-up",
        "64",
        Some(256),
        None,
        None,
    );
    assert!(run.error().is_none());
    assert!(run.advance(10));
    let e = json(&run.error().unwrap());
    // At the block's name, `free a`'s column 6.
    assert_eq!(
        (e["line"].as_u64(), e["column"].as_u64()),
        (Some(3), Some(6))
    );
    assert!(e["message"].as_str().unwrap().contains("already freed"));
    assert_eq!(run.executed(), 2);
    assert_eq!(run.column("meta").length(), 2);

    for (src, allocator, target, says) in [
        ("a = alloc", "bumpalo", "64", "expected a size"),
        ("a = alloc 8", "nope", "64", "unknown allocator 'nope'"),
        ("a = alloc 8", "bumpalo", "x86", "unknown target 'x86'"),
        (
            "repeat 2000000 {\n a = alloc 1\n}",
            "bumpalo",
            "64",
            "the limit is 1,500,000",
        ),
    ] {
        let mut run = TraceRun::new(src, allocator, target, None, None, None);
        let e = json(&run.error().expect("failed from the start"));
        assert!(e["message"].as_str().unwrap().contains(says), "{e}");
        assert!(run.advance(1));
        assert_eq!(run.executed(), 0);
        assert_eq!(run.header(), "null");
        assert_eq!(run.chunks(), "[]");
        assert_eq!(run.detail(0), "null");
    }
}

#[wasm_bindgen_test]
fn the_lists_the_page_needs_are_there() {
    let list = json(&list_allocators());
    assert_eq!(list.as_array().unwrap().len(), 16);
    // The texts themselves are not in this module (the page fetches them).
    assert_eq!(
        source_path("bump-scope").as_deref(),
        Some("crates/core/src/models/bump_scope.rs")
    );
    assert_eq!(source_path("no-such-file"), None);
}

#[wasm_bindgen_test]
fn statement_tables_longer_than_a_piece_come_out_whole_and_in_order() {
    // 40,000 statements: two whole pieces of 16,384 and a part of one.
    let program: String = (1..=40_000)
        .map(|i| format!("b{i} = alloc {i}\n"))
        .collect();
    let mut run = TraceRun::new(&program, "bumpalo", "wasm32", None, None, None);
    assert!(run.advance(u32::MAX));
    assert_eq!(run.error(), None);
    let lines = run.stmt_lines().to_vec();
    assert_eq!(lines, (1..=40_000).collect::<Vec<u32>>());
    assert!(run.stmt_columns().to_vec().iter().all(|&c| c == 1));
    // alloc (0) and the name's number + 1 above the kind: b1 is name 0.
    let kinds = run.stmt_kinds().to_vec();
    assert_eq!(kinds.len(), 40_000);
    assert_eq!(
        (kinds[0], kinds[16_384], kinds[39_999]),
        (1 << 3, 16_385 << 3, 40_000 << 3)
    );
}
