//! The recorder and the rebuild on hand-written modules: for each control-flow
//! shape, the executed operators listed in order, with call depth and branch
//! outcome, and as many as the counters counted.

mod common;

use bumplab_meter::rebuild::{rebuild, Plan};
use common::{instrument, Metered};
use wasmtime::Val;

/// The placeholders the meter fills in, as the cost module has them, and a
/// memory for the recording.
const PLACEHOLDERS: &str = r#"
  (memory (export "memory") 1)
  (func $bumplab_meter_record (export "record") (param i32 i32))
  (func $bumplab_meter_append (param i32))
  (func $bumplab_meter_plan (export "plan") (param i32 i32) (result i32) i32.const 0)
  (func $bumplab_meter_read (export "read") (param i32) (result i64) i64.const 0)
"#;

const RECORD_AT: i32 = 4096;
const PLAN_AT: i32 = 32768;

/// Operator names of every function body of `wasm`, as wasmparser spells
/// them (`LocalGet`, `BrIf`, ...).
fn op_names(wasm: &[u8]) -> Vec<Vec<String>> {
    common::bodies(wasm)
        .iter()
        .map(|body| {
            let body = wasmparser::FunctionBody::new(wasmparser::BinaryReader::new(body, 0));
            let mut reader = body.get_operators_reader().unwrap();
            let mut names = Vec::new();
            while !reader.eof() {
                let op = format!("{:?}", reader.read().unwrap());
                let end = op.find([' ', '{']).unwrap_or(op.len());
                names.push(op[..end].to_string());
            }
            names
        })
        .collect()
}

/// One executed operator: function index, name, depth, taken.
type Row = (u32, String, u32, i32);

/// Calls `root(args)` on the metered `body` with recording on and returns
/// the rebuilt list, after checking it against the counters.
fn executed(body: &str, root: &str, args: &[i32]) -> Vec<Row> {
    let wasm = wat::parse_str(format!("(module {PLACEHOLDERS} {body})")).unwrap();
    let names = op_names(&wasm);
    let metered = instrument(&wasm);
    let mut m = Metered::new(&metered.wasm);
    let i32s = |v: &[i32]| v.iter().map(|&x| Val::I32(x)).collect::<Vec<_>>();
    m.call_plain("record", &i32s(&[RECORD_AT, 4096]));
    let (_, counts) = m.call(root, &i32s(args));
    let end = m.call_plain("read", &i32s(&[4]))[0] as usize;
    m.call_plain("record", &i32s(&[0, 0]));
    let len = m.call_plain("plan", &i32s(&[0, 0]))[0] as i32;
    assert_eq!(
        m.call_plain("plan", &i32s(&[PLAN_AT, len]))[0],
        i64::from(len)
    );
    let memory = m.memory().unwrap();
    let plan = Plan::decode(&memory[PLAN_AT as usize..(PLAN_AT + len) as usize]).unwrap();
    let sites: Vec<u32> = memory[RECORD_AT as usize..end]
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let list = rebuild(&plan, &plan.sites(&sites).unwrap(), false).unwrap();
    let rows: Vec<Row> = list
        .iter()
        .map(|e| {
            let name = names[e.func as usize][e.op as usize].clone();
            (e.func, name, e.depth, e.taken)
        })
        .collect();
    assert_eq!(rows.len() as u64, counts.instructions, "{root}: {rows:?}");
    let branches = rows.iter().filter(|r| r.3 != -1).count() as u64;
    assert_eq!(branches, counts.branches, "{root}: {rows:?}");
    // Only conditional branches carry an outcome.
    for e in &list {
        let is_branch =
            ["If", "BrIf", "BrTable"].contains(&names[e.func as usize][e.op as usize].as_str());
        assert_eq!(e.taken != -1, is_branch, "{root}: {e:?}");
    }
    rows
}

/// Just the names and outcomes, for short assertions.
fn shape(rows: &[Row]) -> Vec<(&str, u32, i32)> {
    rows.iter().map(|r| (r.1.as_str(), r.2, r.3)).collect()
}

const S: i32 = -1;

#[test]
fn straight_line() {
    let rows = executed(
        r#"(func (export "bumplab_measure_add") (param i32 i32) (result i32)
             local.get 0 local.get 1 i32.add)"#,
        "bumplab_measure_add",
        &[2, 3],
    );
    assert_eq!(
        shape(&rows),
        vec![("LocalGet", 0, S), ("LocalGet", 0, S), ("I32Add", 0, S)]
    );
}

const BR_IF: &str = r#"(func (export "bumplab_measure_br_if") (param i32) (result i32)
    (block local.get 0 br_if 0 i32.const 1 drop)
    i32.const 2)"#;

#[test]
fn br_if_taken() {
    assert_eq!(
        shape(&executed(BR_IF, "bumplab_measure_br_if", &[1])),
        vec![("LocalGet", 0, S), ("BrIf", 0, 1), ("I32Const", 0, S)]
    );
}

#[test]
fn br_if_not_taken() {
    assert_eq!(
        shape(&executed(BR_IF, "bumplab_measure_br_if", &[0])),
        vec![
            ("LocalGet", 0, S),
            ("BrIf", 0, 0),
            ("I32Const", 0, S),
            ("Drop", 0, S),
            ("I32Const", 0, S)
        ]
    );
}

const IF_ELSE: &str = r#"(func (export "bumplab_measure_if") (param i32) (result i32) (local i32)
    local.get 0
    if (result i32) i32.const 10 else i32.const 20 i32.const 1 i32.add end
    local.set 1
    local.get 0
    if i32.const 5 local.set 1 end
    local.get 1)"#;

#[test]
fn if_else_both_arms_and_if_without_else() {
    assert_eq!(
        shape(&executed(IF_ELSE, "bumplab_measure_if", &[1])),
        vec![
            ("LocalGet", 0, S),
            ("If", 0, 0),
            ("I32Const", 0, S),
            ("LocalSet", 0, S),
            ("LocalGet", 0, S),
            ("If", 0, 0),
            ("I32Const", 0, S),
            ("LocalSet", 0, S),
            ("LocalGet", 0, S)
        ]
    );
    // Condition 0: the first `if` jumps to its else arm, the second past its end.
    assert_eq!(
        shape(&executed(IF_ELSE, "bumplab_measure_if", &[0])),
        vec![
            ("LocalGet", 0, S),
            ("If", 0, 1),
            ("I32Const", 0, S),
            ("I32Const", 0, S),
            ("I32Add", 0, S),
            ("LocalSet", 0, S),
            ("LocalGet", 0, S),
            ("If", 0, 1),
            ("LocalGet", 0, S)
        ]
    );
}

#[test]
fn loop_runs_its_body_each_time_round() {
    let rows = executed(
        r#"(func (export "bumplab_measure_loop") (param $n i32)
             (loop $top
               local.get $n i32.const 1 i32.sub local.tee $n
               br_if $top))"#,
        "bumplab_measure_loop",
        &[3],
    );
    let body = |taken| {
        vec![
            ("LocalGet", 0, S),
            ("I32Const", 0, S),
            ("I32Sub", 0, S),
            ("LocalTee", 0, S),
            ("BrIf", 0, taken),
        ]
    };
    assert_eq!(shape(&rows), [body(1), body(1), body(0)].concat());
}

const SWITCH: &str = r#"(func (export "bumplab_measure_switch") (param i32) (result i32)
    (block $d (block $c (block $b (block $a
      local.get 0 br_table $a $b $c $d)
      i32.const 10 return)
      i32.const 20 return)
      i32.const 30 return)
    i32.const 40)"#;

#[test]
fn br_table_names_the_label_it_chose() {
    for (arg, label, value_op) in [(0, 0, "I32Const"), (1, 1, "I32Const"), (2, 2, "I32Const")] {
        let rows = executed(SWITCH, "bumplab_measure_switch", &[arg]);
        assert_eq!(
            shape(&rows),
            vec![
                ("LocalGet", 0, S),
                ("BrTable", 0, label),
                (value_op, 0, S),
                ("Return", 0, S)
            ]
        );
    }
    // Out of range: the default, numbered after the listed labels.
    assert_eq!(
        shape(&executed(SWITCH, "bumplab_measure_switch", &[9])),
        vec![("LocalGet", 0, S), ("BrTable", 0, 3), ("I32Const", 0, S)]
    );
}

#[test]
fn nested_calls_go_deeper_and_the_caller_goes_on_after_each() {
    let rows = executed(
        r#"(type $t (func (param i32) (result i32)))
           (table 1 funcref) (elem (i32.const 0) $inc)
           (func $inc (param i32) (result i32) local.get 0 i32.const 1 i32.add)
           (func $twice (param i32) (result i32) local.get 0 call $inc call $inc)
           (func (export "bumplab_measure_calls") (param i32) (result i32)
             local.get 0 call $twice
             i32.const 0 call_indirect (type $t)
             i32.const 100 i32.add)"#,
        "bumplab_measure_calls",
        &[1],
    );
    let inc = |depth| {
        vec![
            ("LocalGet", depth, S),
            ("I32Const", depth, S),
            ("I32Add", depth, S),
        ]
    };
    assert_eq!(
        shape(&rows),
        [
            vec![("LocalGet", 0, S), ("Call", 0, S)],
            vec![("LocalGet", 1, S), ("Call", 1, S)],
            inc(2),
            vec![("Call", 1, S)],
            inc(2),
            vec![("I32Const", 0, S), ("CallIndirect", 0, S)],
            inc(1),
            vec![("I32Const", 0, S), ("I32Add", 0, S)],
        ]
        .concat()
    );
}

#[test]
fn return_from_inside_a_block_and_branch_out_of_the_function() {
    let rows = executed(
        r#"(func $early (param i32) (result i32)
             (block (block
               local.get 0 br_if 0
               i32.const 7 return))
             i32.const 8)
           (func $leave (param i32) (result i32)
             i32.const 5 local.get 0 br_if 0 drop i32.const 6)
           (func (export "bumplab_measure_return") (param i32) (result i32)
             local.get 0 call $early
             local.get 0 call $leave
             i32.add)"#,
        "bumplab_measure_return",
        &[0],
    );
    assert_eq!(
        shape(&rows),
        vec![
            ("LocalGet", 0, S),
            ("Call", 0, S),
            ("LocalGet", 1, S),
            ("BrIf", 1, 0),
            ("I32Const", 1, S),
            ("Return", 1, S),
            ("LocalGet", 0, S),
            ("Call", 0, S),
            ("I32Const", 1, S),
            ("LocalGet", 1, S),
            ("BrIf", 1, 0),
            ("Drop", 1, S),
            ("I32Const", 1, S),
            ("I32Add", 0, S)
        ]
    );
    // Taken: `br_if 0` in $leave leaves the function with 5.
    let rows = executed(
        r#"(func $leave (param i32) (result i32)
             i32.const 5 local.get 0 br_if 0 drop i32.const 6)
           (func (export "bumplab_measure_leave") (param i32) (result i32)
             local.get 0 call $leave i32.const 1 i32.add)"#,
        "bumplab_measure_leave",
        &[1],
    );
    assert_eq!(
        shape(&rows),
        vec![
            ("LocalGet", 0, S),
            ("Call", 0, S),
            ("I32Const", 1, S),
            ("LocalGet", 1, S),
            ("BrIf", 1, 1),
            ("I32Const", 0, S),
            ("I32Add", 0, S)
        ]
    );
}

#[test]
fn recording_off_records_nothing_and_counts_the_same() {
    let wasm = wat::parse_str(format!("(module {PLACEHOLDERS} {BR_IF})")).unwrap();
    let mut m = Metered::new(&instrument(&wasm).wasm);
    let (_, off) = m.call("bumplab_measure_br_if", &[Val::I32(0)]);
    assert_eq!(m.call_plain("read", &[Val::I32(4)])[0], 0);
    m.call_plain("record", &[Val::I32(RECORD_AT), Val::I32(4096)]);
    let (_, on) = m.call("bumplab_measure_br_if", &[Val::I32(0)]);
    assert_eq!(on, off);
    assert_eq!(off.instructions, 5);
    // Full: the recorder stops at its end and writes nothing past it.
    m.call_plain("record", &[Val::I32(RECORD_AT), Val::I32(4)]);
    m.call("bumplab_measure_br_if", &[Val::I32(0)]);
    assert_eq!(
        m.call_plain("read", &[Val::I32(4)])[0],
        i64::from(RECORD_AT + 4)
    );
}

#[test]
fn the_listing_names_each_operator_with_its_offset_text_and_cost() {
    let wasm = wat::parse_str(format!(
        r#"(module {PLACEHOLDERS}
             (func $helper (param i32) (result i32) local.get 0)
             (func $bumplab_measure_list (export "bumplab_measure_list") (param i32) (result i32)
               (block local.get 0 br_if 0 nop)
               local.get 0 call $helper))"#
    ))
    .unwrap();
    let report = instrument(&wasm).report;
    let json: serde_json::Value =
        serde_json::from_str(&bumplab_meter::listing(&wasm, &report.instrumented, None).unwrap())
            .unwrap();
    assert_eq!(json["format"], 1);
    assert_eq!(json["files"], serde_json::json!([]));
    let functions = json["functions"].as_object().unwrap();
    // The root and the helper it calls; not the placeholders.
    assert_eq!(functions.len(), 2);
    let root = functions
        .values()
        .find(|f| f["name"] == "bumplab_measure_list")
        .unwrap();
    let ops = root["ops"].as_array().unwrap();
    let rows: Vec<(&str, u64, u64, i64, u64)> = ops
        .iter()
        .map(|o| {
            (
                o[1].as_str().unwrap(),
                o[2].as_u64().unwrap(),
                o[3].as_u64().unwrap(),
                o[4].as_i64().unwrap(),
                o[5].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        vec![
            ("block ;; label = @1", 0, 0, -1, 0),
            ("local.get 0", 1, 0, -1, 0),
            ("br_if 0 (;@1;)", 1, 1, -1, 0),
            ("nop", 0, 0, -1, 0),
            ("end", 0, 0, -1, 0),
            ("local.get 0", 1, 0, -1, 0),
            ("call $helper", 1, 0, -1, 0),
            ("end", 0, 0, -1, 0),
        ]
    );
    // Offsets are the operators' places in the module file, ascending.
    let offsets: Vec<u64> = ops.iter().map(|o| o[0].as_u64().unwrap()).collect();
    assert!(offsets.windows(2).all(|w| w[0] < w[1]), "{offsets:?}");
    assert_eq!(wasm[offsets[1] as usize], 0x20, "local.get's opcode");
    assert_eq!(wasm[offsets[2] as usize], 0x0d, "br_if's opcode");
}

#[test]
fn listing_names_are_demangled_without_their_hash() {
    assert_eq!(
        bumplab_meter::display_name("_ZN4core3ptr13drop_in_place17h0123456789abcdefE"),
        "core::ptr::drop_in_place"
    );
    assert_eq!(
        bumplab_meter::display_name("bumpalo::Bump<_>::alloc_layout_slow::h0123456789abcdef"),
        "bumpalo::Bump<_>::alloc_layout_slow"
    );
    assert_eq!(
        bumplab_meter::display_name("bumplab_measure_alloc"),
        "bumplab_measure_alloc"
    );
}
