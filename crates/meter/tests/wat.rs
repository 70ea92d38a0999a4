//! Hand-written modules covering each control-flow shape, checked call by call
//! against wasmtime's fuel (see tests/common for the independent counter).

mod common;

use common::{bodies, instrument, Counts, Fuel, Metered};
use wasmtime::Val;

/// Runs each call on the original module (fuel) and on the instrumented one
/// (meter), requiring equal results and equal instruction and branch counts.
/// Returns the meter's counts per call.
fn check(wat: &str, calls: &[(&str, Vec<Val>)]) -> Vec<Counts> {
    let wasm = wat::parse_str(wat).unwrap();
    let metered = instrument(&wasm);
    let mut fuel = Fuel::new(&wasm);
    let mut meter = Metered::new(&metered.wasm);
    let mut all = Vec::new();
    for (name, args) in calls {
        let (expected_results, fuel_counts) = fuel.call(name, args);
        let (results, counts) = meter.call(name, args);
        assert_eq!(
            results, expected_results,
            "{name}({args:?}): results differ"
        );
        assert_eq!(
            (counts.instructions, counts.branches),
            (fuel_counts.instructions, fuel_counts.branches),
            "{name}({args:?}): meter (instructions, branches) vs wasmtime fuel"
        );
        assert!(counts.instructions > 0, "{name}: nothing counted");
        all.push(counts);
    }
    assert_eq!(fuel.memory(), meter.memory(), "memory differs");
    all
}

fn i32s(args: &[i32]) -> Vec<Val> {
    args.iter().map(|&a| Val::I32(a)).collect()
}

const CONTROL_FLOW: &str = r#"
(module
  (memory (export "memory") 1)
  (func $triple (param i32) (result i32)
    local.get 0 i32.const 3 i32.mul)
  ;; loop with a br_if exit and a call inside the segment
  (func (export "bumplab_measure_loop") (param $n i32) (result i32) (local $i i32) (local $acc i32)
    (block $done
      (loop $top
        local.get $i local.get $n i32.ge_u br_if $done
        local.get $acc local.get $i call $triple i32.add local.set $acc
        local.get $i i32.const 1 i32.add local.set $i
        br $top))
    local.get $acc)
  ;; br_table over nested blocks, returns from inside, dead code after return
  (func (export "bumplab_measure_switch") (param i32) (result i32)
    (block $d (block $c (block $b (block $a
      local.get 0 br_table $a $b $c $d)
      i32.const 10 return)
      i32.const 20 return i32.const 99 drop)
      nop i32.const 30 return)
    i32.const 40)
  ;; if/else with results, if without else, select (not a branch), memory
  (func (export "bumplab_measure_ifelse") (param i32 i32) (result i32)
    local.get 0
    if (result i32)
      local.get 1 i32.const 1 i32.add
    else
      local.get 1 i32.const 2 i32.sub
    end
    local.set 1
    local.get 0 i32.const 5 i32.gt_s
    if
      local.get 1 i32.const 100 i32.add local.set 1
      i32.const 64 local.get 1 i32.store
    end
    i32.const 1 i32.const 2 local.get 0 select
    local.get 1 i32.add
    drop
    i32.const 0 i32.const 1 i32.const 16 memory.fill
    i32.const 64 i32.load)
  ;; early exits: br_if to an outer block, return inside if, br_if to the
  ;; function's own label, unreachable in a branch never taken
  (func (export "bumplab_measure_early") (param i32) (result i32)
    (block (block
      local.get 0 i32.eqz br_if 1
      local.get 0 i32.const 1 i32.eq if i32.const 11 return end
      local.get 0 i32.const 2 i32.eq br_if 0
      local.get 0 i32.const 1000 i32.gt_u if unreachable end
      i32.const 5 local.get 0 i32.const 3 i32.eq br_if 2 drop))
    local.get 0 i32.const 1 i32.shl)
  ;; not reachable from a root: left alone
  (func (export "not_measured") (param i32) (result i32) (local i32)
    (loop
      local.get 1 local.get 0 i32.add local.set 1
      local.get 0 i32.const 1 i32.sub local.tee 0
      br_if 0)
    local.get 1)
)
"#;

#[test]
fn control_flow_matches_fuel() {
    let mut calls = Vec::new();
    for n in [0, 1, 2, 7, 30] {
        calls.push(("bumplab_measure_loop", i32s(&[n])));
    }
    for k in -1..6 {
        calls.push(("bumplab_measure_switch", i32s(&[k])));
    }
    for (a, b) in [(0, 5), (1, 5), (6, -3), (-7, 2)] {
        calls.push(("bumplab_measure_ifelse", i32s(&[a, b])));
    }
    for k in 0..6 {
        calls.push(("bumplab_measure_early", i32s(&[k])));
    }
    let counts = check(CONTROL_FLOW, &calls);
    // Hand-counted anchors, so the test also pins the cost model itself:
    // loop(0): block 0, loop 0, [get get ge_u br_if]=4 (1 branch), end 0, end 0, get 1.
    assert_eq!((counts[0].instructions, counts[0].branches), (5, 1));
    // switch(0): get, br_table (1 branch), const, return.
    assert_eq!((counts[5 + 1].instructions, counts[5 + 1].branches), (4, 1));
    // No slow functions here.
    assert!(counts.iter().all(|c| c.slow_instructions == 0));
}

#[test]
fn unreachable_functions_are_byte_for_byte_unchanged() {
    let wasm = wat::parse_str(CONTROL_FLOW).unwrap();
    let out = instrument(&wasm);
    let (before, after) = (bodies(&wasm), bodies(&out.wasm));
    assert_eq!(before.len(), after.len());
    // Functions: 0 triple, 1 loop, 2 switch, 3 ifelse, 4 early, 5 not_measured.
    assert_eq!(out.report.instrumented, vec![0, 1, 2, 3, 4]);
    assert_eq!(before[5], after[5]);
    for i in 0..5 {
        assert_ne!(before[i], after[i], "function {i} was not instrumented");
    }
    // And it still runs without moving the counters.
    let mut meter = Metered::new(&out.wasm);
    assert_eq!(meter.call_plain("not_measured", &i32s(&[4])), vec![10]);
    assert_eq!(meter.counts(), Counts::default());
}

const SLOW: &str = r#"
(module
  (func $work (param i32) (result i32) (local i32)
    (block (loop
      local.get 0 i32.eqz br_if 1
      local.get 1 local.get 0 i32.add local.set 1
      local.get 0 i32.const 1 i32.sub local.set 0
      br 0))
    local.get 1)
  ;; a slow function: early return, a call, br_if from a nested block
  (func $alloc_slow (export "alloc_slow") (param i32) (result i32)
    local.get 0 i32.const 100 i32.gt_u if i32.const -1 return end
    (block (result i32)
      local.get 0 call $work
      local.get 0 i32.const 50 i32.gt_u br_if 0
      i32.const 7 i32.add))
  (func (export "bumplab_measure_alloc") (param i32) (result i32)
    local.get 0 i32.const 10 i32.lt_u
    if (result i32) local.get 0 i32.const 1 i32.add
    else local.get 0 call $alloc_slow end
    i32.const 2 i32.mul)
  ;; recursive slow function: the window opens once, at the outermost entry
  (func $grow_slow (export "grow_slow") (param i32) (result i32)
    local.get 0 i32.eqz if i32.const 0 return end
    local.get 0 i32.const 1 i32.sub call $grow_slow local.get 0 i32.add)
  (func (export "bumplab_measure_rec") (param i32) (result i32)
    local.get 0 call $grow_slow local.get 0 call $grow_slow i32.add)
  ;; multi-value slow function (the wrapper block needs a type index), with a
  ;; br_if to the function's own label from inside a block
  (func $pair_slow (export "pair_slow") (param i32) (result i32 i64)
    (block
      local.get 0 i32.const 5 i32.lt_u br_if 0
      i32.const 1 i64.const 2
      local.get 0 i32.const 7 i32.eq br_if 1
      drop drop
      i32.const 3 i64.const 4 return)
    local.get 0 i64.const 9)
  (func (export "bumplab_measure_pair") (param i32) (result i32)
    local.get 0 call $pair_slow i32.wrap_i64 i32.add)
  ;; a slow function that leaves by a tail call
  (func $tail_slow (export "tail_slow") (param i32) (result i32)
    local.get 0 i32.const 3 i32.add return_call $work)
  (func (export "bumplab_measure_tail") (param i32) (result i32)
    local.get 0 call $tail_slow i32.const 1 i32.add)
)
"#;

#[test]
fn slow_counters_equal_the_fuel_of_the_slow_call_alone() {
    let wasm = wat::parse_str(SLOW).unwrap();
    let out = instrument(&wasm);
    assert_eq!(
        out.report.slow,
        vec!["alloc_slow", "grow_slow", "pair_slow", "tail_slow"]
    );
    let mut fuel = Fuel::new(&wasm);
    let mut slow_fuel = Fuel::new(&wasm);
    let mut meter = Metered::new(&out.wasm);
    // (root, argument, the slow functions it calls with their arguments)
    type Case<'a> = (&'a str, i32, &'a [(&'a str, i32)]);
    let cases: &[Case] = &[
        ("bumplab_measure_alloc", 3, &[]),
        ("bumplab_measure_alloc", 20, &[("alloc_slow", 20)]),
        ("bumplab_measure_alloc", 60, &[("alloc_slow", 60)]),
        ("bumplab_measure_alloc", 200, &[("alloc_slow", 200)]),
        (
            "bumplab_measure_rec",
            0,
            &[("grow_slow", 0), ("grow_slow", 0)],
        ),
        (
            "bumplab_measure_rec",
            6,
            &[("grow_slow", 6), ("grow_slow", 6)],
        ),
        ("bumplab_measure_pair", 2, &[("pair_slow", 2)]),
        ("bumplab_measure_pair", 6, &[("pair_slow", 6)]),
        ("bumplab_measure_pair", 7, &[("pair_slow", 7)]),
        ("bumplab_measure_tail", 4, &[("tail_slow", 4)]),
    ];
    for &(root, arg, slow_calls) in cases {
        let (expected, total) = fuel.call(root, &i32s(&[arg]));
        let (results, counts) = meter.call(root, &i32s(&[arg]));
        assert_eq!(results, expected, "{root}({arg})");
        assert_eq!(
            (counts.instructions, counts.branches),
            (total.instructions, total.branches),
            "{root}({arg}) total"
        );
        let mut slow = Counts::default();
        for &(f, a) in slow_calls {
            let (_, c) = slow_fuel.call(f, &i32s(&[a]));
            slow.instructions += c.instructions;
            slow.branches += c.branches;
        }
        assert_eq!(
            (counts.slow_instructions, counts.slow_branches),
            (slow.instructions, slow.branches),
            "{root}({arg}) slow part vs fuel of the slow calls alone"
        );
        if !slow_calls.is_empty() {
            assert!(counts.slow_instructions > 0 && counts.slow_instructions < counts.instructions);
        }
    }
    // The slow functions called directly (roots of nothing) are still exact.
    for (f, arg) in [("alloc_slow", 30), ("pair_slow", 9), ("grow_slow", 3)] {
        let (expected, c) = fuel.call(f, &i32s(&[arg]));
        let (results, m) = meter.call(f, &i32s(&[arg]));
        assert_eq!(results, expected);
        assert_eq!((m.instructions, m.branches), (c.instructions, c.branches));
        assert_eq!(
            (m.slow_instructions, m.slow_branches),
            (c.instructions, c.branches)
        );
    }
}

#[test]
fn indirect_calls_make_table_functions_reachable() {
    let wat = r#"
    (module
      (type $t (func (param i32) (result i32)))
      (table 2 funcref)
      (elem (i32.const 0) $inc $dbl)
      (func $inc (type $t) local.get 0 i32.const 1 i32.add)
      (func $dbl (type $t) local.get 0 i32.const 2 i32.mul)
      (func $other (export "other") (param i32) (result i32) local.get 0)
      (func (export "bumplab_measure_dispatch") (param i32 i32) (result i32)
        local.get 1 local.get 0 call_indirect (type $t)))
    "#;
    let counts = check(
        wat,
        &[
            ("bumplab_measure_dispatch", i32s(&[0, 5])),
            ("bumplab_measure_dispatch", i32s(&[1, 5])),
        ],
    );
    assert_eq!(counts[0].instructions, 3 + 3);
    let out = instrument(&wat::parse_str(wat).unwrap());
    assert_eq!(out.report.instrumented, vec![0, 1, 3]);
}

/// An indirect call can only reach table functions of the type it names
/// (anything else traps), so a `(i32) -> i32` call does not make the
/// `(f64) -> f64` method in the same table reachable: code around a root
/// that happens to be address-taken stays uninstrumented and uncounted.
#[test]
fn indirect_calls_reach_only_table_functions_of_their_type() {
    let wat = r#"
    (module
      (type $t (func (param i32) (result i32)))
      (type $u (func (param f64) (result f64)))
      (type $t2 (func (param i32) (result i32)))
      (table 3 funcref)
      (elem (i32.const 0) $inc $half $twin)
      (func $inc (type $t) local.get 0 i32.const 1 i32.add)
      (func $half (type $u) local.get 0 f64.const 0.5 f64.mul)
      (func $twin (type $t2) local.get 0 i32.const 2 i32.mul)
      (func (export "bumplab_measure_dispatch") (param i32 i32) (result i32)
        local.get 1 local.get 0 call_indirect (type $t)))
    "#;
    let out = instrument(&wat::parse_str(wat).unwrap());
    // $inc (0) and $twin (2, the same signature under another type index)
    // and the root (3); not $half (1).
    assert_eq!(out.report.instrumented, vec![0, 2, 3]);
    let counts = check(
        wat,
        &[
            ("bumplab_measure_dispatch", i32s(&[0, 5])),
            ("bumplab_measure_dispatch", i32s(&[2, 5])),
        ],
    );
    assert_eq!(counts[0].instructions, 3 + 3);
    assert_eq!(counts[1].instructions, 3 + 3);
}

#[test]
fn a_module_without_names_is_refused_unless_slow_is_off() {
    let wasm = wat::parse_str(
        r#"(module (func (export "bumplab_measure_one") (result i32) i32.const 1))"#,
    )
    .unwrap();
    let err = bumplab_meter::instrument(&wasm, &bumplab_meter::Options::default()).unwrap_err();
    assert!(err.to_string().contains("-g"), "{err}");
    let options = bumplab_meter::Options {
        slow_substring: None,
        ..Default::default()
    };
    let out = bumplab_meter::instrument(&wasm, &options).unwrap();
    let mut meter = Metered::new(&out.wasm);
    let (results, counts) = meter.call("bumplab_measure_one", &[]);
    assert_eq!((results, counts.instructions), (vec![1], 1));
}

#[test]
fn refuses_no_roots_and_double_instrumentation() {
    let wasm = wat::parse_str(r#"(module (func $f (export "f")))"#).unwrap();
    let err = bumplab_meter::instrument(&wasm, &Default::default()).unwrap_err();
    assert!(err.to_string().contains("bumplab_measure_"), "{err}");

    let wasm = wat::parse_str(SLOW).unwrap();
    let once = instrument(&wasm).wasm;
    let err = bumplab_meter::instrument(&once, &Default::default()).unwrap_err();
    assert!(err.to_string().contains("already instrumented"), "{err}");
}

#[test]
fn cli_writes_the_module_and_reports_counts() {
    let dir = std::env::temp_dir().join(format!("bumplab-meter-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("in.wasm"), dir.join("out.wasm"));
    std::fs::write(&input, wat::parse_str(SLOW).unwrap()).unwrap();
    let run = std::process::Command::new(env!("CARGO_BIN_EXE_bumplab-meter"))
        .arg(&input)
        .arg("-o")
        .arg(&output)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&run.stderr);
    assert!(run.status.success(), "{stderr}");
    assert!(
        stderr.contains("4 roots, 9 of 9 defined functions instrumented, 4 slow functions"),
        "{stderr}"
    );
    let written = std::fs::read(&output).unwrap();
    assert_eq!(written, instrument(&std::fs::read(&input).unwrap()).wasm);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cost_model_is_documented() {
    let text = bumplab_meter::COST_MODEL;
    for word in [
        "block, loop, else, end and nop",
        "select is not a branch",
        "br_if",
    ] {
        assert!(text.contains(word), "COST_MODEL lacks {word:?}: {text}");
    }
}

/// A module can read its own counters through the reader function, whose
/// body the meter replaces: what a program sees equals the exported globals.
#[test]
fn the_reader_returns_the_counters() {
    let wat = r#"
(module
  (func $bumplab_meter_read (param i32) (result i64) i64.const 0)
  (func $work (param i32) (result i32)
    local.get 0 i32.const 1 i32.add)
  (func (export "bumplab_measure_work") (param i32) (result i32)
    local.get 0 call $work)
  (func (export "read") (param i32) (result i64)
    local.get 0 call $bumplab_meter_read)
  ;; what a harness does: read, call the measured op, read again
  (func (export "measure_around") (param i32) (result i64)
    (local $before i64)
    i32.const 0 call $bumplab_meter_read local.set $before
    local.get 0 call $work drop
    i32.const 0 call $bumplab_meter_read local.get $before i64.sub))
"#;
    let wasm = wat::parse_str(wat).unwrap();
    let metered = instrument(&wasm);
    let mut meter = Metered::new(&metered.wasm);
    let (_, counts) = meter.call("bumplab_measure_work", &i32s(&[41]));
    // root: local.get, call; work: local.get, i32.const, i32.add (end counts 0)
    assert_eq!(counts.instructions, 5);
    for (index, expected) in [
        (0, counts.instructions),
        (1, counts.branches),
        (2, 0),
        (3, 0),
        (9, 1),
    ] {
        let got = meter.call_plain("read", &i32s(&[index]));
        assert_eq!(got, vec![expected as i64], "reader({index})");
    }
    // Only the instrumented callee counts between the two reads.
    let around = meter.call_plain("measure_around", &i32s(&[1]));
    assert_eq!(around, vec![3]);
}
