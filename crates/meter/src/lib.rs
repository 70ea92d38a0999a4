//! `bumplab_meter`: rewrites the final wasm module (after wasm-bindgen and
//! wasm-opt) so it counts, exactly, the wasm instructions and conditional
//! branches it executes, for the page to read per allocator operation.
//!
//! The rewritten module exports four mutable `i64` globals, all starting at 0:
//!
//! * [`INSTRUCTIONS`] — executed instructions, by the cost table [`op_cost`]
//!   (in words: [`COST_MODEL`]);
//! * [`BRANCHES`] — executed conditional branches;
//! * [`SLOW_INSTRUCTIONS`], [`SLOW_BRANCHES`] — the part of the two above
//!   executed while a *slow function* was active (see [`slow`](crate::slow)).
//!
//! Only the *roots* (functions exported under a name starting with
//! [`Options::roots_prefix`]) and the functions they can reach are rewritten;
//! every other byte of the module is copied unchanged (see
//! [`module`](crate::module)). Counting itself is in
//! [`counting`](crate::counting), reachability in
//! [`callgraph`](crate::callgraph).
//!
//! Why not walrus (the IR wasm-bindgen uses): walrus re-emits the whole module
//! — it sorts functions by size and renumbers locals — so the code the meter
//! must not touch would change bytes. wasmparser/wasm-encoder (what walrus is
//! built on) read rustc 1.95 output and let the meter splice bytes instead.

mod callgraph;
mod counting;
mod lines;
mod listing;
mod module;
pub mod rebuild;
mod slow;
mod specials;

use std::collections::{BTreeSet, HashMap};
use std::fmt;

use wasm_encoder::{BlockType, Encode, ValType};
use wasmparser::{Validator, WasmFeatures};

pub use counting::{op_cost, Cost};
pub use lines::{line_table, normalise_path, LineTable, LinesReport, SourceLine};
pub use listing::{display_name, listing};

use specials::Specials;

use module::{
    ModuleInfo, CODE_SECTION, DATA_COUNT_SECTION, DATA_SECTION, EXPORT_SECTION, GLOBAL_SECTION,
    TYPE_SECTION,
};

/// The cost model in words, for the UI to display next to the counts.
/// [`op_cost`] is the same table in code; the cross-check test holds wasmtime's
/// fuel to it.
pub const COST_MODEL: &str = "Instructions: 1 per executed wasm instruction; the \
structural markers block, loop, else, end and nop count 0, everything else counts 1, \
including drop, return, unreachable, select, call (the callee's instructions count as \
they run) and memory.copy/memory.fill whatever their length. This is wasmtime's fuel \
table with drop, return and unreachable raised from 0 to 1, without its per-byte \
surcharges and its extra 1 per function entry. Branches: 1 per executed conditional \
branch instruction (if, br_if, br_table, br_on_*), taken or not; select is not a branch \
(it jumps nowhere, like cmov; callgrind's Bc also counts only conditional jumps). Slow: \
the part executed while a function whose name contains the slow substring is active, \
its callees included.";

/// Export name of the executed-instruction counter.
pub const INSTRUCTIONS: &str = "bumplab_meter_instructions";
/// Export name of the executed-conditional-branch counter.
pub const BRANCHES: &str = "bumplab_meter_branches";
/// Export name of the slow part of [`INSTRUCTIONS`].
pub const SLOW_INSTRUCTIONS: &str = "bumplab_meter_slow_instructions";
/// Export name of the slow part of [`BRANCHES`].
pub const SLOW_BRANCHES: &str = "bumplab_meter_slow_branches";

/// The default name of the recorder's switch ([`Options::recorder`]).
pub const RECORDER: &str = "bumplab_meter_record";
/// The default name of the recorder's append ([`Options::appender`]).
pub const APPENDER: &str = "bumplab_meter_append";
/// The default name of the plan's copier ([`Options::plan`]).
pub const PLAN: &str = "bumplab_meter_plan";

/// What to instrument.
#[derive(Clone, Debug)]
pub struct Options {
    /// The roots: exported functions whose export name starts with this, and
    /// functions whose name-section name contains it (generic Rust functions
    /// cannot be exported, but keep their identifier in the mangled name).
    pub roots_prefix: String,
    /// Instrumented functions whose name (name section) contains this are slow
    /// functions; `a|b` names several substrings. `None`: no slow split (the
    /// slow counters stay 0, and the module needs no name section).
    pub slow_substring: Option<String>,
    /// A function `(i32) -> i64` with this exact name (name section) gets its
    /// body replaced by a reader of the counters: 0 instructions, 1
    /// branches, 2 slow instructions, 3 slow branches, anything else 1 ("this
    /// module is metered"). It lets the program under measurement read the
    /// counters around a call itself. `None`, or no such function: no reader.
    pub reader: Option<String>,
    /// A function `(ptr: i32, len_bytes: i32) -> ()` with this exact name
    /// gets its body replaced by the recorder's switch: from then on each
    /// site (see [`rebuild`]) an instrumented function passes appends its
    /// number (a little-endian `u32`) at `ptr`, while there is room in the
    /// `len_bytes` from `ptr`; `(0, 0)` switches it off. The reader's index 4
    /// gives the record pointer. Recording needs the module's memory 0
    /// (32-bit) and the [`Options::appender`]; without them nothing is
    /// recorded.
    pub recorder: Option<String>,
    /// A function `(site: i32) -> ()` with this exact name gets its body
    /// replaced by the recorder's append, which every site calls while
    /// recording is on.
    pub appender: Option<String>,
    /// A function `(dst: i32, capacity: i32) -> i32` with this exact name
    /// gets its body replaced by a copy of the instrumented functions' plan
    /// ([`rebuild::encode`]) to `dst` when it fits in `capacity` bytes; it
    /// returns the plan's length either way.
    pub plan: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            roots_prefix: "bumplab_measure_".to_string(),
            // Our models name their cold paths `*_slow`, as bumpalo does
            // (`alloc_layout_slow`); bump-scope's is `alloc_in_another_chunk`.
            slow_substring: Some("slow|in_another_chunk".to_string()),
            reader: Some("bumplab_meter_read".to_string()),
            recorder: Some(RECORDER.to_string()),
            appender: Some(APPENDER.to_string()),
            plan: Some(PLAN.to_string()),
        }
    }
}

/// The rewritten module and what was done.
#[derive(Clone, Debug)]
pub struct Instrumented {
    pub wasm: Vec<u8>,
    pub report: Report,
}

/// What was instrumented, for the build log.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Export names of the roots.
    pub roots: Vec<String>,
    /// Function indices of every instrumented function (roots included).
    pub instrumented: Vec<u32>,
    /// Names of the slow functions among them.
    pub slow: Vec<String>,
    /// Number of functions defined in the module.
    pub defined: usize,
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} roots, {} of {} defined functions instrumented, {} slow functions",
            self.roots.len(),
            self.instrumented.len(),
            self.defined,
            self.slow.len()
        )?;
        // Generic functions come once per instantiation: list each name once,
        // without the symbol hash.
        let mut names: Vec<&str> = self
            .slow
            .iter()
            .map(|n| n.rsplit_once("::h").map_or(n.as_str(), |(name, _)| name))
            .collect();
        names.sort_unstable();
        names.dedup();
        if !names.is_empty() {
            write!(f, " ({})", names.join(", "))?;
        }
        Ok(())
    }
}

/// Why a module could not be instrumented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(String);

impl Error {
    pub(crate) fn new(message: impl Into<String>) -> Self {
        Error(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<wasmparser::BinaryReaderError> for Error {
    fn from(e: wasmparser::BinaryReaderError) -> Self {
        Error(format!("malformed wasm: {e}"))
    }
}

/// Indices of the globals the meter adds, appended after the module's own
/// (so no existing global index changes).
#[derive(Clone, Copy, Debug)]
pub(crate) struct MeterGlobals {
    pub instructions: u32,
    pub branches: u32,
    pub slow_instructions: u32,
    pub slow_branches: u32,
    /// How many slow functions are active (i32).
    pub slow_depth: u32,
    /// The counters when the outermost slow function was entered.
    pub saved_instructions: u32,
    pub saved_branches: u32,
    /// Where the recorder writes its next entry, and the end of its room
    /// (both i32; equal when recording is off).
    pub record_ptr: u32,
    pub record_end: u32,
}

impl MeterGlobals {
    /// Number of globals added.
    const COUNT: u32 = 9;

    fn new(first: u32) -> Self {
        MeterGlobals {
            instructions: first,
            branches: first + 1,
            slow_instructions: first + 2,
            slow_branches: first + 3,
            slow_depth: first + 4,
            saved_instructions: first + 5,
            saved_branches: first + 6,
            record_ptr: first + 7,
            record_end: first + 8,
        }
    }

    /// Global-section entries for the added globals, in index order: all
    /// mutable, initial value 0.
    fn entries() -> Vec<u8> {
        let mut out = Vec::new();
        for ty in [ValType::I64, ValType::I64, ValType::I64, ValType::I64] {
            encode_zero_global(&mut out, ty);
        }
        encode_zero_global(&mut out, ValType::I32);
        encode_zero_global(&mut out, ValType::I64);
        encode_zero_global(&mut out, ValType::I64);
        encode_zero_global(&mut out, ValType::I32);
        encode_zero_global(&mut out, ValType::I32);
        out
    }

    /// Export-section entries for the four counters.
    fn exports(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for (name, index) in [
            (INSTRUCTIONS, self.instructions),
            (BRANCHES, self.branches),
            (SLOW_INSTRUCTIONS, self.slow_instructions),
            (SLOW_BRANCHES, self.slow_branches),
        ] {
            name.encode(&mut out);
            wasm_encoder::ExportKind::Global.encode(&mut out);
            index.encode(&mut out);
        }
        out
    }
}

fn encode_zero_global(out: &mut Vec<u8>, ty: ValType) {
    wasm_encoder::GlobalType {
        val_type: ty,
        mutable: true,
        shared: false,
    }
    .encode(out);
    let mut sink = wasm_encoder::InstructionSink::new(out);
    match ty {
        ValType::I32 => sink.i32_const(0),
        _ => sink.i64_const(0),
    };
    sink.end();
}

fn validate(wasm: &[u8], what: &str) -> Result<(), Error> {
    Validator::new_with_features(WasmFeatures::all())
        .validate_all(wasm)
        .map(|_| ())
        .map_err(|e| Error::new(format!("{what} is not a valid wasm module: {e}")))
}

/// Rewrites `wasm` so it counts what its roots execute. See the crate docs.
pub fn instrument(wasm: &[u8], options: &Options) -> Result<Instrumented, Error> {
    validate(wasm, "the input")?;
    let info = ModuleInfo::parse(wasm)?;
    refuse_instrumented(&info)?;
    let (roots, root_funcs) = find_roots(&info, options)?;
    let instrumented = callgraph::reachable(&info, &root_funcs)?;
    let slow_funcs = find_slow(&info, &instrumented, options)?;
    let globals = MeterGlobals::new(info.global_count);
    let (slow_wraps, new_types) = wrap_slow(&info, &slow_funcs, globals)?;
    let specials = Specials::find(&info, &instrumented, options)?;
    let (recordings, plan) = plan_recordings(&info, &instrumented, &specials)?;
    let code = rewrite_code(
        wasm,
        &info,
        &instrumented,
        &specials,
        &plan,
        |func, body| {
            counting::rewrite_body(
                wasm,
                body,
                &globals,
                slow_wraps.get(&func),
                recordings.get(&func),
            )
        },
    )?;
    let out = assemble(wasm, &info, &globals, &specials, &plan, &new_types, &code)?;
    validate(&out, "the instrumented module (a meter bug)")?;
    Ok(Instrumented {
        wasm: out,
        report: Report {
            roots,
            instrumented: instrumented.into_iter().collect(),
            slow: slow_funcs
                .iter()
                .map(|&f| info.func_name(f).unwrap_or("?").to_string())
                .collect(),
            defined: info.bodies.len(),
        },
    })
}

/// Instrumenting twice would count twice: a module exporting a counter already is refused.
fn refuse_instrumented(info: &ModuleInfo<'_>) -> Result<(), Error> {
    for name in [INSTRUCTIONS, BRANCHES, SLOW_INSTRUCTIONS, SLOW_BRANCHES] {
        if info.export_names.iter().any(|n| n == name) {
            return Err(Error::new(format!(
                "the module already exports `{name}`: it is already instrumented"
            )));
        }
    }
    Ok(())
}

/// The roots: functions exported under a name starting with the prefix,
/// then (sorted by index) those whose `name`-section name contains it.
fn find_roots(info: &ModuleInfo<'_>, options: &Options) -> Result<(Vec<String>, Vec<u32>), Error> {
    let mut roots = Vec::new();
    let mut root_funcs = Vec::new();
    for (name, func) in &info.func_exports {
        if name.starts_with(&options.roots_prefix) {
            roots.push(name.clone());
            root_funcs.push(*func);
        }
    }
    if let Some(names) = &info.func_names {
        let mut named: Vec<(&u32, &String)> = names
            .iter()
            .filter(|(f, n)| n.contains(options.roots_prefix.as_str()) && !root_funcs.contains(*f))
            .collect();
        named.sort();
        for (f, n) in named {
            roots.push(n.clone());
            root_funcs.push(*f);
        }
    }
    if roots.is_empty() {
        return Err(Error::new(format!(
            "no function is exported under a name starting with, or named with, `{}`: nothing to measure",
            options.roots_prefix
        )));
    }
    Ok((roots, root_funcs))
}

/// The instrumented functions whose names match a slow-function pattern.
fn find_slow(
    info: &ModuleInfo<'_>,
    instrumented: &BTreeSet<u32>,
    options: &Options,
) -> Result<Vec<u32>, Error> {
    let Some(substring) = &options.slow_substring else {
        return Ok(Vec::new());
    };
    if info.func_names.is_none() {
        return Err(Error::new(
            "the module has no function names (no `name` section), so slow functions \
             cannot be found by name: keep names in the final module (wasm-opt -g / \
             --debuginfo; with wasm-pack: wasm-opt = [\"-O\", \"-g\"]), or pass \
             --no-slow",
        ));
    }
    let patterns: Vec<&str> = substring.split('|').collect();
    if patterns.iter().any(|p| p.is_empty()) {
        return Err(Error::new(
            "an empty slow-function pattern would match every function",
        ));
    }
    Ok(instrumented
        .iter()
        .copied()
        .filter(|&f| {
            info.func_name(f)
                .is_some_and(|n| patterns.iter().any(|p| n.contains(p)))
        })
        .collect())
}

/// Types appended to the type section: their encoded entries and how many.
#[derive(Default)]
struct NewTypes {
    bytes: Vec<u8>,
    count: u32,
}

/// How each slow function's body is wrapped: the block its code runs in
/// takes the function's results, which for several results needs a type.
fn wrap_slow(
    info: &ModuleInfo<'_>,
    slow_funcs: &[u32],
    globals: MeterGlobals,
) -> Result<(HashMap<u32, slow::SlowWrap>, NewTypes), Error> {
    let mut new_types = NewTypes::default();
    let mut wraps = HashMap::new();
    for &func in slow_funcs {
        let results = info.func_type(func)?.results().to_vec();
        let block_type = match results.as_slice() {
            [] => BlockType::Empty,
            [one] => BlockType::Result(val_type(*one)?),
            many => {
                // A multi-value block needs a `[] -> results` type index: reuse
                // one if the module has it, else append one (after all existing
                // types, so no index changes).
                let existing = info.types.iter().position(|t| {
                    t.as_ref()
                        .is_some_and(|t| t.params().is_empty() && t.results() == many)
                });
                let index = match existing {
                    Some(i) => i as u32,
                    None => {
                        new_types.bytes.push(0x60);
                        0u32.encode(&mut new_types.bytes);
                        (many.len() as u32).encode(&mut new_types.bytes);
                        for &r in many {
                            val_type(r)?.encode(&mut new_types.bytes);
                        }
                        new_types.count += 1;
                        info.types.len() as u32 + new_types.count - 1
                    }
                };
                BlockType::FunctionType(index)
            }
        };
        wraps.insert(
            func,
            slow::SlowWrap {
                globals,
                block_type,
            },
        );
    }
    Ok((wraps, new_types))
}

/// Each instrumented function's sites get numbers from here on (see
/// `rebuild`), and the plan the rebuild needs, for the plan copier to
/// hand out (from a passive data segment appended after the module's own).
fn plan_recordings(
    info: &ModuleInfo<'_>,
    instrumented: &BTreeSet<u32>,
    specials: &Specials,
) -> Result<(HashMap<u32, counting::Recording>, Vec<u8>), Error> {
    let mut recordings = HashMap::new();
    let mut planned = Vec::new();
    if let Some(append) = specials.appender {
        let mut next_site = 0u32;
        for &func in instrumented {
            let body = &info.bodies[(func - info.func_imports) as usize];
            let (_, ops) = counting::read_ops(body)?;
            let kinds = counting::plan_kinds(&ops, instrumented)?;
            let sites = rebuild::sites_of(&kinds)
                .map_err(|e| Error::new(format!("function {func}: {e}")))?;
            let first_site = next_site;
            next_site += sites.len() as u32;
            recordings.insert(
                func,
                counting::Recording {
                    append,
                    first_site,
                    sites,
                },
            );
            if specials.plan_copier.is_some() {
                planned.push(rebuild::Planned { func, ops: kinds });
            }
        }
    }
    Ok((recordings, rebuild::encode(&planned)))
}

/// The code section: original count, then each body either copied, given
/// a special's body, or rewritten by `rewrite` to count.
fn rewrite_code(
    wasm: &[u8],
    info: &ModuleInfo<'_>,
    instrumented: &BTreeSet<u32>,
    specials: &Specials,
    plan: &[u8],
    rewrite: impl Fn(u32, &module::Body<'_>) -> Result<Vec<u8>, Error>,
) -> Result<Vec<u8>, Error> {
    let mut code = wasm[info.code_prefix.clone()].to_vec();
    for (i, body) in info.bodies.iter().enumerate() {
        let func = info.func_imports + i as u32;
        if let Some(special) = specials.body_of(func, plan.len() as u32, info.data_segments) {
            special.encode(&mut code);
        } else if instrumented.contains(&func) {
            let new_body =
                rewrite(func, body).map_err(|e| Error::new(format!("function {func}: {e}")))?;
            (new_body.len() as u32).encode(&mut code);
            code.extend_from_slice(&new_body);
        } else {
            code.extend_from_slice(&wasm[body.whole.clone()]);
        }
    }
    Ok(code)
}

/// The output module: the input's sections in order, the ones the meter
/// extends replaced, the ones the input lacks inserted where wasm's order
/// wants them.
fn assemble(
    wasm: &[u8],
    info: &ModuleInfo<'_>,
    globals: &MeterGlobals,
    specials: &Specials,
    plan: &[u8],
    new_types: &NewTypes,
    code: &[u8],
) -> Result<Vec<u8>, Error> {
    let find = |id: u8| info.sections.iter().find(|s| s.id == id);
    let global_section = module::append_entries(
        wasm,
        find(GLOBAL_SECTION),
        MeterGlobals::COUNT,
        &MeterGlobals::entries(),
    )?;
    let export_section = module::append_entries(wasm, find(EXPORT_SECTION), 4, &globals.exports())?;
    let data_section = specials
        .plan_copier
        .map(|_| {
            let mut segment = vec![1u8]; // passive
            (plan.len() as u32).encode(&mut segment);
            segment.extend_from_slice(plan);
            module::append_entries(wasm, find(DATA_SECTION), 1, &segment)
        })
        .transpose()?;
    let data_count_section = specials.plan_copier.map(|_| {
        let mut contents = Vec::new();
        (info.data_segments + 1).encode(&mut contents);
        contents
    });
    let type_section = (new_types.count > 0)
        .then(|| {
            module::append_entries(wasm, find(TYPE_SECTION), new_types.count, &new_types.bytes)
        })
        .transpose()?;

    let mut missing: Vec<(u8, &[u8])> = Vec::new();
    if find(GLOBAL_SECTION).is_none() {
        missing.push((GLOBAL_SECTION, &global_section));
    }
    if find(EXPORT_SECTION).is_none() {
        missing.push((EXPORT_SECTION, &export_section));
    }
    if let Some(contents) = &data_section {
        if find(DATA_SECTION).is_none() {
            missing.push((DATA_SECTION, contents));
        }
    }
    if let Some(contents) = &data_count_section {
        if find(DATA_COUNT_SECTION).is_none() {
            missing.push((DATA_COUNT_SECTION, contents));
        }
    }
    let mut out = wasm[..8].to_vec();
    let emit_missing_before = |out: &mut Vec<u8>, missing: &mut Vec<(u8, &[u8])>, rank: u8| {
        missing.retain(|&(id, contents)| {
            let place_now = module::section_rank(id) < rank;
            if place_now {
                out.extend(module::encode_section(id, contents));
            }
            !place_now
        });
    };
    for section in &info.sections {
        if section.id != 0 {
            emit_missing_before(&mut out, &mut missing, module::section_rank(section.id));
        }
        let replaced: Option<&[u8]> = match section.id {
            GLOBAL_SECTION => Some(&global_section),
            EXPORT_SECTION => Some(&export_section),
            TYPE_SECTION => type_section.as_deref(),
            DATA_SECTION => data_section.as_deref(),
            DATA_COUNT_SECTION => data_count_section.as_deref(),
            CODE_SECTION => Some(code),
            _ => None,
        };
        out.extend(match replaced {
            Some(contents) => module::encode_section(section.id, contents),
            None => info.section_bytes(section).to_vec(),
        });
    }
    emit_missing_before(&mut out, &mut missing, u8::MAX);
    Ok(out)
}

fn val_type(ty: wasmparser::ValType) -> Result<ValType, Error> {
    ValType::try_from(ty).map_err(|e| Error::new(format!("unsupported result type {ty}: {e:?}")))
}
