//! The independent counter: wasmtime 48's fuel, run on the ORIGINAL module,
//! next to the meter's counters, run on the instrumented module.
//!
//! Wasmtime charges each executed operator the fuel its per-operator cost table
//! (`wasmtime::OperatorCost`) gives it. Two engines are configured from the
//! meter's cost model, written out independently here (not derived from
//! `bumplab_meter::op_cost`):
//! * instructions: every operator 1, except nop, block, loop, else, end 0;
//! * branches: if, br_if, br_table, br_on_* 1, every other operator 0.
//!
//! Wasmtime's length-dependent surcharges (memory.copy/fill per byte, ...) are
//! set to 0: the meter counts `memory.copy` as one instruction.
//!
//! Wasmtime also charges 1 fuel on every function entry, whatever the table
//! (wasmtime-cranelift's `fuel_consumed` starts at 1). A third engine whose
//! table is all zeros measures exactly those entries, and they are subtracted.
#![allow(dead_code)]

use std::sync::OnceLock;

use wasmtime::{Config, Engine, Instance, Module, OperatorCost, Store, Val};

pub const FUEL: u64 = 1 << 50;

/// Operators that are structure, not work: 0 instructions.
pub const FREE: &[&str] = &["Nop", "Block", "Loop", "Else", "End"];
/// Conditional branch operators: 1 branch each.
pub const CONDITIONAL: &[&str] = &[
    "If",
    "BrIf",
    "BrTable",
    "BrOnNull",
    "BrOnNonNull",
    "BrOnCast",
    "BrOnCastFail",
];

/// A wasmtime cost table with cost `cost(name)` for each operator (named as in
/// wasmparser's `Operator` enum) and no length-dependent surcharges. The table
/// has one public `u8` field per operator; going through serde's data model
/// sets every field without listing hundreds of them.
pub fn cost_table(cost: impl Fn(&str) -> u8) -> OperatorCost {
    let mut table = serde_json::to_value(OperatorCost::new()).unwrap();
    let fields = table.as_object_mut().unwrap();
    let mut named = 0;
    for (name, value) in fields.iter_mut() {
        if name == "variable" {
            for per_unit in value.as_object_mut().unwrap().values_mut() {
                *per_unit = 0.into();
            }
        } else {
            assert!(value.is_u64(), "unexpected OperatorCost field {name}");
            *value = cost(name).into();
            named += 1;
        }
    }
    // Guard against a renamed operator silently keeping its default cost.
    for op in FREE.iter().chain(CONDITIONAL) {
        assert!(fields.contains_key(*op), "wasmtime has no operator {op}");
    }
    assert!(named > 400, "only {named} operators in wasmtime's table");
    serde_json::from_value(table).unwrap()
}

pub fn fuel_engine(table: OperatorCost) -> Engine {
    let mut config = Config::new();
    config.consume_fuel(true).operator_cost(table);
    config.wasm_tail_call(true).wasm_multi_value(true);
    Engine::new(&config).unwrap()
}

pub fn instruction_engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| fuel_engine(cost_table(|op| u8::from(!FREE.contains(&op)))))
}

pub fn branch_engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| fuel_engine(cost_table(|op| u8::from(CONDITIONAL.contains(&op)))))
}

pub fn entry_engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| fuel_engine(cost_table(|_| 0)))
}

pub fn plain_engine() -> &'static Engine {
    static E: OnceLock<Engine> = OnceLock::new();
    E.get_or_init(|| {
        let mut config = Config::new();
        config.wasm_tail_call(true).wasm_multi_value(true);
        Engine::new(&config).unwrap()
    })
}

/// The four counters (or, for wasmtime, the matching fuel amounts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub instructions: u64,
    pub branches: u64,
    pub slow_instructions: u64,
    pub slow_branches: u64,
}

impl std::ops::Sub for Counts {
    type Output = Counts;
    fn sub(self, o: Counts) -> Counts {
        Counts {
            instructions: self.instructions - o.instructions,
            branches: self.branches - o.branches,
            slow_instructions: self.slow_instructions - o.slow_instructions,
            slow_branches: self.slow_branches - o.slow_branches,
        }
    }
}

struct Running {
    store: Store<()>,
    instance: Instance,
}

impl Running {
    fn new(engine: &Engine, wasm: &[u8], fuel: bool) -> Running {
        let module = Module::new(engine, wasm).unwrap();
        let mut store = Store::new(engine, ());
        if fuel {
            store.set_fuel(FUEL).unwrap();
        }
        let instance = Instance::new(&mut store, &module, &[]).unwrap();
        Running { store, instance }
    }

    fn call(&mut self, name: &str, args: &[Val]) -> Vec<i64> {
        let func = self
            .instance
            .get_func(&mut self.store, name)
            .unwrap_or_else(|| panic!("no export {name}"));
        let ty = func.ty(&self.store);
        let mut results: Vec<Val> = ty.results().map(|_| Val::I32(0)).collect();
        func.call(&mut self.store, args, &mut results)
            .unwrap_or_else(|e| panic!("{name}({args:?}) failed: {e:?}"));
        results.iter().map(val_i64).collect()
    }

    fn fuel_used(&mut self, name: &str, args: &[Val]) -> (Vec<i64>, u64) {
        let before = self.store.get_fuel().unwrap();
        let results = self.call(name, args);
        (results, before - self.store.get_fuel().unwrap())
    }

    fn global(&mut self, name: &str) -> u64 {
        let global = self.instance.get_global(&mut self.store, name).unwrap();
        global.get(&mut self.store).i64().unwrap() as u64
    }

    fn memory(&mut self) -> Option<Vec<u8>> {
        let memory = self.instance.get_memory(&mut self.store, "memory")?;
        Some(memory.data(&self.store).to_vec())
    }
}

pub fn val_i64(v: &Val) -> i64 {
    match v {
        Val::I32(x) => *x as i64,
        Val::I64(x) => *x,
        other => panic!("unexpected value {other:?}"),
    }
}

/// The original module under the three fuel tables.
pub struct Fuel {
    instructions: Running,
    branches: Running,
    entries: Running,
}

impl Fuel {
    pub fn new(wasm: &[u8]) -> Fuel {
        Fuel {
            instructions: Running::new(instruction_engine(), wasm, true),
            branches: Running::new(branch_engine(), wasm, true),
            entries: Running::new(entry_engine(), wasm, true),
        }
    }

    /// Calls `name` and returns its results and the fuel it consumed, less
    /// the per-entry fuel, as (instructions, branches) in `Counts` (slow
    /// fields 0).
    pub fn call(&mut self, name: &str, args: &[Val]) -> (Vec<i64>, Counts) {
        let (results, instructions) = self.instructions.fuel_used(name, args);
        let (results2, branches) = self.branches.fuel_used(name, args);
        let (results3, entries) = self.entries.fuel_used(name, args);
        assert_eq!(results, results2, "the fuel instances diverged");
        assert_eq!(results, results3, "the fuel instances diverged");
        assert!(entries >= 1, "a call enters at least one function");
        (
            results,
            Counts {
                instructions: instructions - entries,
                branches: branches - entries,
                ..Counts::default()
            },
        )
    }

    pub fn memory(&mut self) -> Option<Vec<u8>> {
        self.instructions.memory()
    }
}

/// The instrumented module; reads the meter's counters around each call.
pub struct Metered {
    running: Running,
}

impl Metered {
    pub fn new(wasm: &[u8]) -> Metered {
        Metered {
            running: Running::new(plain_engine(), wasm, false),
        }
    }

    pub fn counts(&mut self) -> Counts {
        Counts {
            instructions: self.running.global(bumplab_meter::INSTRUCTIONS),
            branches: self.running.global(bumplab_meter::BRANCHES),
            slow_instructions: self.running.global(bumplab_meter::SLOW_INSTRUCTIONS),
            slow_branches: self.running.global(bumplab_meter::SLOW_BRANCHES),
        }
    }

    /// Calls `name`; returns its results and the counter deltas.
    pub fn call(&mut self, name: &str, args: &[Val]) -> (Vec<i64>, Counts) {
        let before = self.counts();
        let results = self.running.call(name, args);
        (results, self.counts() - before)
    }

    /// Calls a function the meter did not instrument (counters must not move).
    pub fn call_plain(&mut self, name: &str, args: &[Val]) -> Vec<i64> {
        self.running.call(name, args)
    }

    pub fn memory(&mut self) -> Option<Vec<u8>> {
        self.running.memory()
    }
}

/// Instruments with the default options and returns the new module.
pub fn instrument(wasm: &[u8]) -> bumplab_meter::Instrumented {
    bumplab_meter::instrument(wasm, &bumplab_meter::Options::default()).unwrap()
}

/// The raw bytes of every defined function body (size prefix excluded), in order.
pub fn bodies(wasm: &[u8]) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::CodeSectionEntry(body) = payload.unwrap() {
            out.push(wasm[body.range()].to_vec());
        }
    }
    out
}

/// (function index, name) from the name section.
pub fn function_names(wasm: &[u8]) -> Vec<(u32, String)> {
    let mut out = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::CustomSection(c) = payload.unwrap() {
            if let wasmparser::KnownCustom::Name(names) = c.as_known() {
                for sub in names {
                    if let wasmparser::Name::Function(map) = sub.unwrap() {
                        for n in map {
                            let n = n.unwrap();
                            out.push((n.index, n.name.to_string()));
                        }
                    }
                }
            }
        }
    }
    out
}

/// Number of imported functions.
pub fn function_imports(wasm: &[u8]) -> u32 {
    let mut n = 0;
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        if let wasmparser::Payload::ImportSection(imports) = payload.unwrap() {
            for import in imports.into_imports() {
                if matches!(import.unwrap().ty, wasmparser::TypeRef::Func(_)) {
                    n += 1;
                }
            }
        }
    }
    n
}

/// `wasm` with function `func` also exported as `name` (nothing else changes,
/// so fuel is the same): lets the test call a non-exported slow function alone.
pub fn with_export(wasm: &[u8], func: u32, name: &str) -> Vec<u8> {
    use wasm_encoder::{ExportKind, ExportSection, Module, RawSection};
    let mut module = Module::new();
    for payload in wasmparser::Parser::new(0).parse_all(wasm) {
        let payload = payload.unwrap();
        if let wasmparser::Payload::ExportSection(reader) = &payload {
            let mut exports = ExportSection::new();
            for e in reader.clone() {
                let e = e.unwrap();
                let kind = match e.kind {
                    wasmparser::ExternalKind::Func => ExportKind::Func,
                    wasmparser::ExternalKind::Table => ExportKind::Table,
                    wasmparser::ExternalKind::Memory => ExportKind::Memory,
                    wasmparser::ExternalKind::Global => ExportKind::Global,
                    wasmparser::ExternalKind::Tag => ExportKind::Tag,
                    other => panic!("unexpected export kind {other:?}"),
                };
                exports.export(e.name, kind, e.index);
            }
            exports.export(name, ExportKind::Func, func);
            module.section(&exports);
        } else if let Some((id, range)) = payload.as_section() {
            module.section(&RawSection {
                id,
                data: &wasm[range],
            });
        }
    }
    module.finish()
}

/// Small deterministic generator (xorshift64*), so failures reproduce.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed | 1)
    }

    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}
