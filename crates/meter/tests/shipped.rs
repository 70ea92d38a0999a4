//! The module the page ships, counted twice: by its own meter and by
//! wasmtime's fuel, op by op.
//!
//! `scripts/build-wasm.mjs` keeps the metered module's input beside it
//! (`web/pkg-cost/cost_bg.unmetered.wasm`: wasm-bindgen's output, the very
//! bytes the meter rewrote). This test runs a fixed program per preset and
//! target through the module's own `traceProgram` export, as the page and the
//! CLI do:
//!
//! * on the METERED module (no fuel): the JSON trace with every op's cost,
//!   the real crate's rows and the baseline rows, as the page shows them;
//! * on the UNMETERED module under three fuel tables (instructions,
//!   branches, function entries; see tests/common), with host calls around
//!   every call of a measured root (a function named `bumplab_measure_*`)
//!   and of a slow function, inserted by re-encoding the module. The host
//!   reads the fuel consumed at each of them, so each root call's fuel is
//!   known exactly, whatever the code around it.
//!
//! Each op's reported total and slow part must equal fuel's count of the
//! root call that measured it: so nothing but the root is inside the
//! counted window (issue: playground glue counted with the allocator), the
//! slow split is right, and the real-crate and baseline rows are the
//! crates' own code. The marks' own instructions are subtracted exactly:
//! each is one `call` (plus, before a root, an `i32.const` outside the
//! window), and fuel charges a call before control leaves the caller.
//!
//! The unmetered module's counter reader (`bumplab_meter_read`) answers
//! "metered" and zero counters, so it takes the same paths as the metered
//! one. Both runs must give the same trace apart from the costs.

mod common;

use std::collections::{BTreeSet, HashMap};
use std::path::PathBuf;

use common::{branch_engine, entry_engine, instruction_engine, plain_engine, FUEL};
use serde_json::Value;
use wasm_encoder::reencode::Reencode;
use wasm_encoder::{EntityType, Instruction, ValType};
use wasmparser::Operator;
use wasmtime::{Caller, Engine, Linker, Module, Store, Val};

/// Where build-wasm.mjs puts the metered module and its input.
fn pkg() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../web/pkg-cost")
}

/// The two modules, or why they cannot be had. Under `npm test`
/// (`BUMPLAB_NPM_TEST` set by scripts/test-all.mjs, after build-wasm.mjs)
/// a missing module is a failure, never a silent pass.
fn modules() -> Option<(Vec<u8>, Vec<u8>)> {
    let metered = pkg().join("cost_bg.wasm");
    let unmetered = pkg().join("cost_bg.unmetered.wasm");
    match (std::fs::read(&metered), std::fs::read(&unmetered)) {
        (Ok(m), Ok(u)) => Some((m, u)),
        _ if std::env::var_os("BUMPLAB_NPM_TEST").is_some() => panic!(
            "{} and {} are missing: `node scripts/build-wasm.mjs` builds them",
            metered.display(),
            unmetered.display()
        ),
        _ => {
            eprintln!(
                "SKIPPED: {} is not built (run `node scripts/build-wasm.mjs`)",
                metered.display()
            );
            None
        }
    }
}

// ---------------------------------------------------------------------------
// The marked module.

/// Module and names of the host functions the marked module imports.
const HOST: &str = "bumplab_fuel";
const ROOT_ENTER: &str = "root_enter";
const ROOT_EXIT: &str = "root_exit";
const SLOW_ENTER: &str = "slow_enter";
const SLOW_EXIT: &str = "slow_exit";
const ADDED_IMPORTS: u32 = 4;

/// Function names and which functions the meter treats as roots, slow
/// functions and the counter reader, by the meter's own default rules.
struct Roles {
    names: HashMap<u32, String>,
    roots: BTreeSet<u32>,
    slow: BTreeSet<u32>,
    reader: u32,
    func_imports: u32,
}

impl Roles {
    fn of(wasm: &[u8]) -> Roles {
        let options = bumplab_meter::Options::default();
        let names: HashMap<u32, String> = common::function_names(wasm).into_iter().collect();
        let slow_patterns: Vec<String> = options
            .slow_substring
            .as_deref()
            .unwrap_or_default()
            .split('|')
            .map(String::from)
            .collect();
        let mut roots = BTreeSet::new();
        let mut slow = BTreeSet::new();
        let mut reader = None;
        for (&f, name) in &names {
            if name.contains(options.roots_prefix.as_str()) {
                roots.insert(f);
            }
            if slow_patterns.iter().any(|p| name.contains(p.as_str())) {
                slow.insert(f);
            }
            if Some(name.as_str()) == options.reader.as_deref() {
                reader = Some(f);
            }
        }
        assert!(
            roots.len() > 100,
            "only {} roots in the module",
            roots.len()
        );
        Roles {
            names,
            roots,
            slow,
            reader: reader.expect("the module has the counter reader"),
            func_imports: common::function_imports(wasm),
        }
    }
}

/// Re-encodes the unmetered module with the marks and a reader that says
/// "metered, all counters 0".
struct Marker<'r> {
    roles: &'r Roles,
    /// Type indices of `[i32] -> []` and `[] -> []`, appended to the types.
    enter_type: u32,
    plain_type: u32,
    /// The original index of the function whose body is encoded next.
    next_body: u32,
}

impl Marker<'_> {
    /// The new index of an added import (they follow the original ones).
    fn host(&self, which: u32) -> u32 {
        self.roles.func_imports + which
    }
}

impl Reencode for Marker<'_> {
    type Error = std::convert::Infallible;

    fn function_index(
        &mut self,
        func: u32,
    ) -> Result<u32, wasm_encoder::reencode::Error<Self::Error>> {
        Ok(if func < self.roles.func_imports {
            func
        } else {
            func + ADDED_IMPORTS
        })
    }

    fn parse_type_section(
        &mut self,
        types: &mut wasm_encoder::TypeSection,
        section: wasmparser::TypeSectionReader<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        wasm_encoder::reencode::utils::parse_type_section(self, types, section)?;
        self.enter_type = types.len();
        types.ty().function([ValType::I32], []);
        self.plain_type = types.len();
        types.ty().function([], []);
        Ok(())
    }

    fn parse_import_section(
        &mut self,
        imports: &mut wasm_encoder::ImportSection,
        section: wasmparser::ImportSectionReader<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        wasm_encoder::reencode::utils::parse_import_section(self, imports, section)?;
        imports.import(HOST, ROOT_ENTER, EntityType::Function(self.enter_type));
        for name in [ROOT_EXIT, SLOW_ENTER, SLOW_EXIT] {
            imports.import(HOST, name, EntityType::Function(self.plain_type));
        }
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        func: wasmparser::FunctionBody<'_>,
    ) -> Result<(), wasm_encoder::reencode::Error<Self::Error>> {
        let original = self.roles.func_imports + self.next_body;
        self.next_body += 1;
        let mut f = self.new_function_with_parsed_locals(&func)?;
        if original == self.roles.reader {
            // (which) -> i64: 1 for "is this module metered" (u32::MAX), else 0.
            f.instruction(&Instruction::LocalGet(0));
            f.instruction(&Instruction::I32Const(-1));
            f.instruction(&Instruction::I32Eq);
            f.instruction(&Instruction::I64ExtendI32U);
            f.instruction(&Instruction::End);
            code.function(&f);
            return Ok(());
        }
        let mut reader = func.get_operators_reader()?;
        while !reader.eof() {
            let op = reader.read()?;
            let callee = match op {
                Operator::Call { function_index } => Some(function_index),
                Operator::ReturnCall { function_index } => {
                    assert!(
                        !self.roles.roots.contains(&function_index)
                            && !self.roles.slow.contains(&function_index),
                        "a tail call to a root or slow function cannot be marked"
                    );
                    None
                }
                _ => None,
            };
            let encoded = self.instruction(op)?;
            match callee {
                Some(c) if self.roles.roots.contains(&c) => {
                    f.instruction(&Instruction::I32Const(c as i32));
                    f.instruction(&Instruction::Call(self.host(0)));
                    f.instruction(&encoded);
                    f.instruction(&Instruction::Call(self.host(1)));
                }
                Some(c) if self.roles.slow.contains(&c) => {
                    f.instruction(&Instruction::Call(self.host(2)));
                    f.instruction(&encoded);
                    f.instruction(&Instruction::Call(self.host(3)));
                }
                _ => {
                    f.instruction(&encoded);
                }
            }
        }
        code.function(&f);
        Ok(())
    }
}

fn marked(unmetered: &[u8], roles: &Roles) -> Vec<u8> {
    let mut marker = Marker {
        roles,
        enter_type: 0,
        plain_type: 0,
        next_body: 0,
    };
    let mut module = wasm_encoder::Module::new();
    marker
        .parse_core_module(&mut module, wasmparser::Parser::new(0), unmetered)
        .expect("the unmetered module re-encodes");
    let out = module.finish();
    wasmparser::Validator::new_with_features(wasmparser::WasmFeatures::all())
        .validate_all(&out)
        .expect("the marked module is valid");
    out
}

// ---------------------------------------------------------------------------
// Running `traceProgram` in wasmtime.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mark {
    RootEnter(u32),
    RootExit,
    SlowEnter,
    SlowExit,
}

/// The marks seen, each with the fuel consumed by then.
type Marks = Vec<(Mark, u64)>;

fn consumed(caller: &Caller<'_, Marks>) -> u64 {
    FUEL - caller.get_fuel().unwrap_or(FUEL)
}

struct Wasm {
    store: Store<Marks>,
    instance: wasmtime::Instance,
}

impl Wasm {
    fn new(engine: &Engine, wasm: &[u8], fuel: bool) -> Wasm {
        let module = Module::new(engine, wasm).expect("the module compiles");
        let mut linker: Linker<Marks> = Linker::new(engine);
        linker
            .func_wrap(HOST, ROOT_ENTER, |mut c: Caller<'_, Marks>, f: i32| {
                let at = consumed(&c);
                c.data_mut().push((Mark::RootEnter(f as u32), at));
            })
            .unwrap();
        for (name, mark) in [
            (ROOT_EXIT, Mark::RootExit),
            (SLOW_ENTER, Mark::SlowEnter),
            (SLOW_EXIT, Mark::SlowExit),
        ] {
            linker
                .func_wrap(HOST, name, move |mut c: Caller<'_, Marks>| {
                    let at = consumed(&c);
                    c.data_mut().push((mark, at));
                })
                .unwrap();
        }
        // wasm-bindgen's own imports: only `() -> ()` hooks that set up the
        // externref table, which nothing here uses.
        for import in module.imports() {
            if import.module() == HOST {
                continue;
            }
            let ty = import.ty().func().cloned().expect("only function imports");
            assert!(
                ty.results().len() == 0,
                "unexpected import {}",
                import.name()
            );
            linker
                .func_new(import.module(), import.name(), ty, |_, _, _| Ok(()))
                .unwrap();
        }
        let mut store = Store::new(engine, Vec::new());
        if fuel {
            store.set_fuel(FUEL).unwrap();
        }
        let instance = linker.instantiate(&mut store, &module).unwrap();
        let mut w = Wasm { store, instance };
        if w.instance
            .get_func(&mut w.store, "__wbindgen_start")
            .is_some()
        {
            w.call("__wbindgen_start", &[]);
        }
        w
    }

    fn call(&mut self, name: &str, args: &[Val]) -> Vec<Val> {
        let func = self.instance.get_func(&mut self.store, name).unwrap();
        let mut results: Vec<Val> = func
            .ty(&self.store)
            .results()
            .map(|_| Val::I32(0))
            .collect();
        func.call(&mut self.store, args, &mut results)
            .unwrap_or_else(|e| panic!("{name} trapped: {e:?}"));
        results
    }

    fn string_in(&mut self, s: &str) -> (i32, i32) {
        let ptr = self.call(
            "__wbindgen_malloc",
            &[Val::I32(s.len() as i32), Val::I32(1)],
        )[0]
        .unwrap_i32();
        let memory = self.instance.get_memory(&mut self.store, "memory").unwrap();
        memory
            .write(&mut self.store, ptr as usize, s.as_bytes())
            .unwrap();
        (ptr, s.len() as i32)
    }

    /// `traceProgram(source, allocator, target)` with the preset's defaults,
    /// as the CLI calls it: the JSON trace, and the marks it passed.
    fn trace(&mut self, source: &str, allocator: &str, target: &str) -> (Value, Marks) {
        self.store.data_mut().clear();
        let (p0, l0) = self.string_in(source);
        let (p1, l1) = self.string_in(allocator);
        let (p2, l2) = self.string_in(target);
        // wasm-bindgen passes an absent `Option<u32>` as 2^53 - 1.
        let none = Val::F64((9007199254740991f64).to_bits());
        let args = [
            Val::I32(p0),
            Val::I32(l0),
            Val::I32(p1),
            Val::I32(l1),
            Val::I32(p2),
            Val::I32(l2),
            none,
            none,
            // An absent `Option<String>` (the child allocator): a null pointer.
            Val::I32(0),
            Val::I32(0),
        ];
        let out = self.call("traceProgram", &args);
        let (ptr, len) = (out[0].unwrap_i32() as usize, out[1].unwrap_i32() as usize);
        let memory = self.instance.get_memory(&mut self.store, "memory").unwrap();
        let text = String::from_utf8(memory.data(&self.store)[ptr..ptr + len].to_vec()).unwrap();
        self.call(
            "__wbindgen_free",
            &[Val::I32(ptr as i32), Val::I32(len as i32), Val::I32(1)],
        );
        let marks = std::mem::take(self.store.data_mut());
        (serde_json::from_str(&text).unwrap(), marks)
    }
}

// ---------------------------------------------------------------------------
// From marks to counts.

/// One root call as fuel counted it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counted {
    root: u32,
    instructions: u64,
    branches: u64,
    slow_instructions: u64,
    slow_branches: u64,
}

/// The root calls in `marks` (three runs of the same calls under the
/// instruction, branch and entry tables), less what the marks cost.
fn root_calls(instr: &Marks, branch: &Marks, entry: &Marks) -> Vec<Counted> {
    assert_eq!(instr.len(), branch.len(), "the fuel runs diverged");
    assert_eq!(instr.len(), entry.len(), "the fuel runs diverged");
    let mut out = Vec::new();
    let mut open: Option<(u32, usize)> = None;
    // Depth of slow calls inside the open root; where the outermost began
    // and how many slow pairs had closed inside the root by then.
    let mut depth = 0u32;
    let mut slow_from = (0usize, 0u64);
    let mut slow = [0u64; 2];
    let mut pairs_inside = 0u64;
    // Fuel between marks a and b: (instructions, branches, entries).
    let between = |a: usize, b: usize| {
        (
            instr[b].1 - instr[a].1,
            branch[b].1 - branch[a].1,
            entry[b].1 - entry[a].1,
        )
    };
    for i in 0..instr.len() {
        assert_eq!(instr[i].0, branch[i].0, "the fuel runs diverged");
        assert_eq!(instr[i].0, entry[i].0, "the fuel runs diverged");
        match instr[i].0 {
            Mark::RootEnter(f) => {
                assert!(open.is_none(), "a root called inside a root");
                open = Some((f, i));
                slow = [0, 0];
                pairs_inside = 0;
            }
            Mark::SlowEnter => {
                if open.is_some() {
                    if depth == 0 {
                        slow_from = (i, pairs_inside);
                    }
                    depth += 1;
                }
            }
            Mark::SlowExit => {
                if open.is_some() {
                    depth -= 1;
                    pairs_inside += 1;
                    if depth == 0 {
                        let (ins, br, ent) = between(slow_from.0, i);
                        // The slow window holds `call S` (the caller's
                        // instruction, not slow) and `call slow_exit`, and
                        // two calls per pair nested in it.
                        let nested = pairs_inside - slow_from.1 - 1;
                        slow[0] += ins - ent - 2 - 2 * nested;
                        slow[1] += br - ent;
                    }
                }
            }
            Mark::RootExit => {
                let (root, from) = open.take().expect("a root exit without an enter");
                assert_eq!(depth, 0, "a slow call still open at a root's exit");
                let (ins, br, ent) = between(from, i);
                out.push(Counted {
                    root,
                    // `call R` and `call root_exit`, and two calls per slow pair.
                    instructions: ins - ent - 2 - 2 * pairs_inside,
                    branches: br - ent,
                    slow_instructions: slow[0],
                    slow_branches: slow[1],
                });
            }
        }
    }
    assert!(open.is_none(), "a root without an exit");
    out
}

/// `[instructions, branches, slow_instructions, slow_branches]` of a JSON cost.
fn cost_of(v: &Value) -> Option<[u64; 4]> {
    let c = v.get("cost")?;
    let f = |k: &str| c[k].as_u64().expect("a cost field");
    Some([
        f("wasm_instructions"),
        f("wasm_branches"),
        f("slow_instructions"),
        f("slow_branches"),
    ])
}

fn without_costs(mut v: Value) -> Value {
    fn strip(v: &mut Value) {
        match v {
            Value::Object(m) => {
                m.remove("cost");
                m.values_mut().for_each(strip);
            }
            Value::Array(a) => a.iter_mut().for_each(strip),
            _ => {}
        }
    }
    strip(&mut v);
    v
}

/// Every op kind and path: fast and slow allocs, an oversized request, a
/// realloc of the last block (in place up, moved down) and of another block
/// (moved), a shrink, frees of the last and of another block, a zero-size
/// request, a checkpoint and a restore that gives chunks back, a reset; and
/// every shape of request (a type's constant layout, an array's constant
/// alignment, a run-time layout) for alloc, realloc and free.
const PROGRAM: &str = "\
a = alloc 1
b = alloc u64
c = alloc 24 align 16
c = realloc c 40
b = realloc b 24
c = realloc c 8
free c
free a
z = alloc 0
checkpoint s
d = alloc 200
e = alloc 600
f = alloc 3000
restore s
g = alloc 100
reset
t8 = alloc u8
t16 = alloc u16
t32 = alloc u32
t128 = alloc u128
tw = alloc usize
free tw
v = alloc [u16; 3]
v = realloc v 10
w = alloc [u64; 2]
free w
free v
free t128
reset
h = alloc 8
";

#[test]
fn every_cost_the_page_shows_is_the_roots_own_fuel() {
    let Some((metered, unmetered)) = modules() else {
        return;
    };
    let roles = Roles::of(&unmetered);
    let marked = marked(&unmetered, &roles);
    let mut page = Wasm::new(plain_engine(), &metered, false);
    let mut by_instr = Wasm::new(instruction_engine(), &marked, true);
    let mut by_branch = Wasm::new(branch_engine(), &marked, true);
    let mut by_entry = Wasm::new(entry_engine(), &marked, true);

    let allocators: Vec<String> = {
        let list = page.call("listAllocators", &[]);
        let (ptr, len) = (list[0].unwrap_i32() as usize, list[1].unwrap_i32() as usize);
        let memory = page.instance.get_memory(&mut page.store, "memory").unwrap();
        let text = String::from_utf8(memory.data(&page.store)[ptr..ptr + len].to_vec()).unwrap();
        let v: Value = serde_json::from_str(&text).unwrap();
        v.as_array()
            .unwrap()
            .iter()
            .map(|a| a["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert!(allocators.len() >= 11, "{allocators:?}");

    let mut compared = [0usize; 3];
    for allocator in &allocators {
        for target in ["wasm32", "64"] {
            let what = format!("{allocator} on {target}");
            let (shown, _) = page.trace(PROGRAM, allocator, target);
            assert!(shown.get("error").is_none(), "{what}: {shown}");
            let (plain, m1) = by_instr.trace(PROGRAM, allocator, target);
            let (_, m2) = by_branch.trace(PROGRAM, allocator, target);
            let (_, m3) = by_entry.trace(PROGRAM, allocator, target);
            assert_eq!(
                without_costs(shown.clone()),
                without_costs(plain),
                "{what}: the metered and unmetered modules traced differently"
            );
            let calls = root_calls(&m1, &m2, &m3);
            let name = |c: &Counted| roles.names[&c.root].as_str();
            let model: Vec<&Counted> = calls
                .iter()
                .filter(|c| {
                    !name(c).contains("bumplab_measure_real_")
                        && !name(c).contains("bumplab_measure_global_")
                })
                .collect();
            let real: Vec<&Counted> = calls
                .iter()
                .filter(|c| name(c).contains("bumplab_measure_real_"))
                .collect();
            let baseline: Vec<&Counted> = calls
                .iter()
                .filter(|c| name(c).contains("bumplab_measure_global_"))
                .collect();

            let rows = |v: &Value| -> Vec<[u64; 4]> {
                v.as_array()
                    .map(|a| a.iter().filter_map(cost_of).collect())
                    .unwrap_or_default()
            };
            let fuel_rows = |c: &[&Counted]| -> Vec<[u64; 4]> {
                c.iter()
                    .map(|c| {
                        [
                            c.instructions,
                            c.branches,
                            c.slow_instructions,
                            c.slow_branches,
                        ]
                    })
                    .collect()
            };
            let ops = shown["ops"].as_array().unwrap();
            let shown_model = rows(&shown["ops"]);
            assert_eq!(shown_model.len(), ops.len(), "{what}: every op has a cost");
            // One root call per op, in order, except where the compiler
            // dropped the call of a root that does nothing (a one-chunk
            // allocator's free): then no code ran and the op shows 0.
            let mut calls = model.iter().peekable();
            for (op, shown_cost) in ops.iter().zip(&shown_model) {
                let kind = op["kind"].as_str().unwrap();
                // The root of the op's shape: `bumplab_measure_alloc` for a
                // run-time layout, `bumplab_measure_alloc_typed` and
                // `bumplab_measure_alloc_array` for the shapes the compiler
                // knows more of (see crates/cost/src/roots.rs).
                let suffix = match op["shape"]["kind"].as_str() {
                    Some("typed") => "_typed",
                    Some("array") => "_array",
                    _ => "",
                };
                let root = format!("bumplab_measure_{kind}{suffix}:");
                match calls.peek() {
                    Some(c) if name(c).contains(&root) => {
                        let c = calls.next().unwrap();
                        let fuel = [
                            c.instructions,
                            c.branches,
                            c.slow_instructions,
                            c.slow_branches,
                        ];
                        assert_eq!(*shown_cost, fuel, "{what}: op {} ({kind})", op["index"]);
                    }
                    _ => assert_eq!(
                        *shown_cost, [0; 4],
                        "{what}: op {} ({kind}) shows a cost but its root never ran",
                        op["index"]
                    ),
                }
            }
            assert!(calls.next().is_none(), "{what}: more root calls than ops");
            assert_eq!(
                rows(&shown["real"]["ops"]),
                fuel_rows(&real),
                "{what}: real crate costs"
            );
            assert_eq!(
                rows(&shown["baseline"]["ops"]),
                fuel_rows(&baseline),
                "{what}: baseline costs"
            );
            compared[0] += model.len();
            compared[1] += real.len();
            compared[2] += baseline.len();
            // The program reaches the slow path of every preset that grows.
            let grows = shown["chunks"].as_array().unwrap().len() > 1;
            assert!(
                !grows || shown_model.iter().any(|c| c[2] > 0),
                "{what}: no op took the slow path"
            );
        }
    }
    eprintln!(
        "compared with fuel: {} model ops, {} real-crate ops, {} baseline ops",
        compared[0], compared[1], compared[2]
    );
    assert!(compared[1] > 0 && compared[2] > 0);
}
