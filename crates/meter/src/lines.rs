//! Source lines of the compiled code: for each operator of the final module
//! (the meter's input), the Rust file and line it was compiled from.
//!
//! The final module has no DWARF: wasm-bindgen drops it, and the shipped
//! module must not carry it. The lines come instead from cargo's own output
//! of the SAME build (`target/wasm32-unknown-unknown/release/<crate>.wasm`,
//! built with line tables: `RUSTFLAGS="-Cdebuginfo=line-tables-only
//! -Cstrip=none"`, which adds debug sections without changing a byte of the
//! code, where the profile's `debug` setting would change every crate's
//! `-C metadata` and so the symbols and the layout). wasm-bindgen rewrites
//! the module around the Rust code (it renumbers functions and locals and adds
//! its glue) but does not change what a Rust function does, so a function of
//! the final module is matched to the cargo output's function of the same name
//! (name section; of two same-named functions, wasm-bindgen names the second
//! `name[1]`), and its operators to that function's operators one by one.
//! The match is trusted only when both functions have the same operator
//! sequence (opcodes and the immediates wasm-bindgen has no reason to touch:
//! constants, branch depths, memory offsets); a function that differs gets no
//! lines and is listed in [`LinesReport::differing`].
//!
//! An operator's line is the line-table row covering its first byte (DWARF
//! addresses in wasm are offsets from the start of the code section's
//! contents): the innermost source location, so an operator of a function
//! inlined into its caller is attributed to the inlined function's line.
//! Except for the standard library's: the `i32.and` of `ptr & !(align - 1)`
//! is, innermost, `<u32 as BitAnd>::bitand` in library/core; it is
//! attributed instead to the innermost inlined call outside the standard
//! library (the line with the `&`), which is the line a reader of the
//! allocators looks for. Only when every frame is the standard library's
//! does an operator keep its library/ line.
//!
//! File paths are normalised so they name the same file on every machine:
//! repository-relative under the repository (`crates/core/src/...`), from the
//! crate folder for crates from the cargo registry
//! (`bumpalo-3.20.4/src/lib.rs`; the standard library's own dependencies,
//! vendored into its build, likewise), from `library/` for the Rust standard
//! library (`library/core/src/...`). Any other path is left unknown.

use std::collections::{BTreeMap, HashMap};
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use addr2line::gimli;
use wasmparser::{Operator, Parser, Payload};

use crate::Error;

/// Where one operator came from: `files[file]`, 1-based `line`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SourceLine {
    pub file: u32,
    pub line: u32,
}

/// The source line of every operator of the final module's matched functions.
#[derive(Clone, Debug, Default)]
pub struct LineTable {
    /// Normalised file paths, each once; [`SourceLine::file`] indexes it.
    pub files: Vec<String>,
    /// Function index in the final module -> one entry per operator (in
    /// wasmparser's order, structural operators included): its line, or `None`
    /// when the line table has none (compiler-made code, line 0) or its file
    /// is not one whose path can be normalised.
    functions: BTreeMap<u32, Vec<Option<SourceLine>>>,
    /// Function index in the final module -> the function's name in the
    /// debug information: its path with the generic arguments the symbol
    /// name lacks (`bumplab_cost::roots::bumplab_measure_alloc<u32, ...>`).
    dwarf_names: BTreeMap<u32, String>,
    /// What was matched, for the build log.
    pub report: LinesReport,
}

/// How the final module's functions were matched to the debug build's.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinesReport {
    /// Functions defined in the final module.
    pub defined: usize,
    /// Functions matched by name with identical operators: they have lines.
    pub matched: usize,
    /// Functions of the final module (their names) whose name the debug build
    /// has, but none of whose same-named functions has the same operators:
    /// they have no lines.
    pub differing: Vec<String>,
    /// Functions of the final module with no name, or with a name no function
    /// of the debug build has (wasm-bindgen's glue).
    pub unmatched: usize,
    /// Paths in the line table that are neither in the repository, nor in the
    /// cargo registry, nor in the standard library: their lines are unknown.
    pub unknown_paths: Vec<String>,
}

impl fmt::Display for LinesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "lines for {} of {} defined functions ({} differ from the debug build, {} have no \
             same-named function in it)",
            self.matched,
            self.defined,
            self.differing.len(),
            self.unmatched
        )?;
        if !self.unknown_paths.is_empty() {
            write!(f, "; paths left unknown: {}", self.unknown_paths.join(", "))?;
        }
        Ok(())
    }
}

impl LineTable {
    /// The lines of function `func`'s operators (final-module index), if it
    /// was matched.
    pub fn function(&self, func: u32) -> Option<&[Option<SourceLine>]> {
        self.functions.get(&func).map(Vec::as_slice)
    }

    /// The file and line of operator `op` of function `func`.
    pub fn line(&self, func: u32, op: usize) -> Option<(&str, u32)> {
        let at = (*self.functions.get(&func)?.get(op)?)?;
        Some((self.files[at.file as usize].as_str(), at.line))
    }

    /// Function `func`'s name in the debug information, with its generic
    /// arguments, if it was matched and the debug information names it.
    pub fn dwarf_name(&self, func: u32) -> Option<&str> {
        self.dwarf_names.get(&func).map(String::as_str)
    }

    /// The matched functions' indices, in order.
    pub fn functions(&self) -> impl Iterator<Item = u32> + '_ {
        self.functions.keys().copied()
    }
}

/// One function body: its name-section name (if any) and its operators with
/// their byte offsets in the module file.
struct Func<'a> {
    name: Option<String>,
    /// File offset of the body (its size excluded).
    start: usize,
    ops: Vec<(usize, Operator<'a>)>,
}

/// What [`line_table`] needs from a module.
struct Parsed<'a> {
    func_imports: u32,
    bodies: Vec<Func<'a>>,
    /// File offset of the code section's contents: DWARF addresses count from it.
    code_start: usize,
    /// Custom sections named `.debug_*`, by name.
    debug: HashMap<&'a str, &'a [u8]>,
}

fn parse(wasm: &[u8]) -> Result<Parsed<'_>, Error> {
    let mut parsed = Parsed {
        func_imports: 0,
        bodies: Vec::new(),
        code_start: 0,
        debug: HashMap::new(),
    };
    let mut names: HashMap<u32, String> = HashMap::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload? {
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if matches!(import?.ty, wasmparser::TypeRef::Func(_)) {
                        parsed.func_imports += 1;
                    }
                }
            }
            Payload::CodeSectionStart { range, size, .. } => {
                // `range` covers the contents (after the section's id and size).
                let _ = size;
                parsed.code_start = range.start;
            }
            Payload::CodeSectionEntry(body) => {
                let mut reader = body.get_operators_reader()?;
                let mut ops = Vec::new();
                while !reader.eof() {
                    let at = reader.original_position();
                    ops.push((at, reader.read()?));
                }
                parsed.bodies.push(Func {
                    name: None,
                    start: body.range().start,
                    ops,
                });
            }
            Payload::CustomSection(section) => {
                if let wasmparser::KnownCustom::Name(reader) = section.as_known() {
                    for name in reader {
                        if let wasmparser::Name::Function(map) = name? {
                            for naming in map {
                                let naming = naming?;
                                names.insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                } else if section.name().starts_with(".debug_") {
                    parsed.debug.insert(section.name(), section.data());
                }
            }
            _ => {}
        }
    }
    for (i, body) in parsed.bodies.iter_mut().enumerate() {
        body.name = names.remove(&(parsed.func_imports + i as u32));
    }
    Ok(parsed)
}

/// A function's name as both modules can agree on it: wasm-bindgen (through
/// wasm-pack) demangles the final module's names, cargo's output keeps the
/// mangled symbols; demangling a demangled name leaves it as it is.
fn name_key(name: &str) -> String {
    rustc_demangle::demangle(name).to_string()
}

/// The source lines of `final_wasm`'s functions, from the DWARF of
/// `debug_wasm` (cargo's output of the same build, before wasm-bindgen).
/// `repo_root` is the repository the crates were built in: paths under it
/// become repository-relative. Fails when `debug_wasm` has no line table.
pub fn line_table(
    debug_wasm: &[u8],
    final_wasm: &[u8],
    repo_root: &Path,
) -> Result<LineTable, Error> {
    let debug = parse(debug_wasm)?;
    if !debug.debug.contains_key(".debug_line") || !debug.debug.contains_key(".debug_info") {
        return Err(Error::new(
            "the debug build has no DWARF line table (.debug_info and .debug_line): build the \
             crate with line tables (RUSTFLAGS=\"-Cdebuginfo=line-tables-only -Cstrip=none\") \
             and pass cargo's own output, not wasm-bindgen's",
        ));
    }
    let fin = parse(final_wasm)?;

    let malformed =
        |e: gimli::Error| Error::new(format!("the debug build's DWARF is malformed: {e}"));
    let dwarf = Arc::new(load_dwarf(&debug.debug).map_err(malformed)?);
    let subprograms = subprogram_names(&dwarf).map_err(malformed)?;
    let context = addr2line::Context::from_arc_dwarf(dwarf).map_err(malformed)?;

    // The debug build's functions by name, in index order. A name can occur
    // more than once: the standard library's precompiled functions come once
    // per codegen unit that uses them; wasm-bindgen tells the copies apart
    // with a `[k]` suffix.
    let mut by_name: HashMap<String, Vec<usize>> = HashMap::new();
    for (i, func) in debug.bodies.iter().enumerate() {
        if let Some(name) = &func.name {
            by_name.entry(name_key(name)).or_default().push(i);
        }
    }
    let mut taken = vec![false; debug.bodies.len()];

    let mut table = LineTable {
        report: LinesReport {
            defined: fin.bodies.len(),
            ..LinesReport::default()
        },
        ..LineTable::default()
    };
    let mut files = Files {
        repo_root,
        index: HashMap::new(),
        list: Vec::new(),
        unknown: BTreeMap::new(),
    };
    for (i, func) in fin.bodies.iter().enumerate() {
        let index = fin.func_imports + i as u32;
        let Some(name) = &func.name else {
            table.report.unmatched += 1;
            continue;
        };
        let (base, copy) = split_copy(name);
        let Some(candidates) = by_name.get(&name_key(base)) else {
            table.report.unmatched += 1;
            continue;
        };
        // The k-th copy of that name if its operators are the same, else any
        // other copy not yet matched whose operators are.
        let same = |&d: &usize| !taken[d] && same_operators(&debug.bodies[d].ops, &func.ops);
        let Some(d) = candidates
            .get(copy)
            .filter(|d| same(d))
            .or_else(|| candidates.iter().find(|d| same(d)))
            .copied()
        else {
            table.report.differing.push(name.clone());
            continue;
        };
        taken[d] = true;
        let source = &debug.bodies[d];
        table.report.matched += 1;
        // The subprogram's low pc is where the body starts, or its size
        // (at most 5 bytes) before: LLVM versions differ.
        let body = (source.start - debug.code_start) as u64;
        let first_op = source
            .ops
            .first()
            .map_or(body, |&(at, _)| (at - debug.code_start) as u64);
        if let Some((_, name)) = subprograms
            .range(body.saturating_sub(5)..=first_op)
            .next_back()
        {
            table.dwarf_names.insert(index, name.clone());
        }

        // The line-table rows over the function's bytes, in address order.
        let (Some(first), Some(last)) = (source.ops.first(), source.ops.last()) else {
            table.functions.insert(index, Vec::new());
            continue;
        };
        let low = (first.0 - debug.code_start) as u64;
        let high = (last.0 - debug.code_start) as u64 + 1;
        let mut rows: Vec<(u64, u64, Option<SourceLine>)> = Vec::new();
        let iter = context
            .find_location_range(low, high)
            .map_err(|e| Error::new(format!("the debug build's line table is malformed: {e}")))?;
        for (address, length, location) in iter {
            let at = match (location.file, location.line) {
                (Some(path), Some(line)) => files.line(path, line),
                _ => None,
            };
            rows.push((address, address + length, at));
        }
        rows.sort_by_key(|r| r.0);
        let lines = source
            .ops
            .iter()
            .map(|&(offset, _)| {
                let address = (offset - debug.code_start) as u64;
                let row = rows.partition_point(|r| r.0 <= address).checked_sub(1);
                let innermost = row
                    .map(|row| rows[row])
                    .and_then(|(start, end, at)| (start <= address && address < end).then_some(at))
                    .flatten();
                match innermost {
                    Some(at) if !files.is_std(at) => Ok(Some(at)),
                    _ => files
                        .caller_line(&context, address)
                        .map(|at| at.or(innermost)),
                }
            })
            .collect::<Result<_, Error>>()?;
        table.functions.insert(index, lines);
    }
    table.files = files.list;
    table.report.unknown_paths = files.unknown.into_keys().collect();
    Ok(table)
}

type Slice<'a> = gimli::EndianSlice<'a, gimli::LittleEndian>;

/// The table's files, each once, and the paths that could not be normalised.
struct Files<'r> {
    repo_root: &'r Path,
    index: HashMap<String, u32>,
    list: Vec<String>,
    unknown: BTreeMap<String, ()>,
}

impl Files<'_> {
    /// `path:line` as a table entry; `None` for line 0 (code the compiler
    /// made up) and for a path that cannot be normalised.
    fn line(&mut self, path: &str, line: u32) -> Option<SourceLine> {
        if line == 0 {
            return None;
        }
        let Some(normalised) = normalise_path(path, self.repo_root) else {
            self.unknown.insert(path.to_string(), ());
            return None;
        };
        let next = self.list.len() as u32;
        let file = match self.index.get(&normalised) {
            Some(&file) => file,
            None => {
                self.index.insert(normalised.clone(), next);
                self.list.push(normalised);
                next
            }
        };
        Some(SourceLine { file, line })
    }

    fn is_std(&self, at: SourceLine) -> bool {
        self.list[at.file as usize].starts_with("library/")
    }

    /// For an operator the line table puts in the standard library (the
    /// body of `u32::checked_sub` or `BitAnd::bitand`, inlined) or on no line
    /// at all: the line of the innermost inlined call outside the standard
    /// library (`let new_ptr = new_ptr & !(align - W::ONE);`), which is what
    /// a reader of the allocator's sources looks for. `None` when every
    /// frame is the standard library's or has no line.
    fn caller_line(
        &mut self,
        context: &addr2line::Context<Slice<'_>>,
        address: u64,
    ) -> Result<Option<SourceLine>, Error> {
        let malformed =
            |e: gimli::Error| Error::new(format!("the debug build's DWARF is malformed: {e}"));
        let mut frames = context
            .find_frames(address)
            .skip_all_loads()
            .map_err(malformed)?;
        while let Some(frame) = frames.next().map_err(malformed)? {
            let Some(location) = frame.location else {
                continue;
            };
            let (Some(path), Some(line)) = (location.file, location.line) else {
                continue;
            };
            if let Some(at) = self.line(path, line) {
                if !self.is_std(at) {
                    return Ok(Some(at));
                }
            }
        }
        Ok(None)
    }
}

fn load_dwarf<'a>(
    sections: &HashMap<&str, &'a [u8]>,
) -> Result<gimli::Dwarf<Slice<'a>>, gimli::Error> {
    gimli::Dwarf::load(|id| -> Result<_, gimli::Error> {
        let data = sections.get(id.name()).copied().unwrap_or(&[]);
        Ok(gimli::EndianSlice::new(data, gimli::LittleEndian))
    })
}

/// Every concrete subprogram's low pc and its name qualified by the
/// namespaces around it (`crate::module::{impl#0}::name<generic arguments>`).
fn subprogram_names(
    dwarf: &gimli::Dwarf<Slice<'_>>,
) -> Result<BTreeMap<u64, String>, gimli::Error> {
    let mut out = BTreeMap::new();
    let mut units = dwarf.units();
    while let Some(header) = units.next()? {
        let unit = dwarf.unit(header)?;
        let name_of = |entry: &gimli::DebuggingInformationEntry<Slice<'_>>| -> Option<String> {
            let own = entry.attr_value(gimli::DW_AT_name).or_else(|| {
                // A definition may name itself only through its declaration.
                let origin = entry
                    .attr_value(gimli::DW_AT_specification)
                    .or_else(|| entry.attr_value(gimli::DW_AT_abstract_origin))?;
                match origin {
                    gimli::AttributeValue::UnitRef(offset) => {
                        unit.entry(offset).ok()?.attr_value(gimli::DW_AT_name)
                    }
                    _ => None,
                }
            })?;
            let name = dwarf.attr_string(&unit, own).ok()?;
            Some(name.to_string_lossy().into_owned())
        };
        // The namespaces (and types, for methods) enclosing the current entry.
        let mut scopes: Vec<(isize, String)> = Vec::new();
        let mut entries = unit.entries();
        while let Some(entry) = entries.next_dfs()? {
            let depth = entry.depth();
            while scopes.last().is_some_and(|(d, _)| *d >= depth) {
                scopes.pop();
            }
            match entry.tag() {
                gimli::DW_TAG_namespace
                | gimli::DW_TAG_structure_type
                | gimli::DW_TAG_enumeration_type
                | gimli::DW_TAG_union_type => {
                    if let Some(name) = name_of(entry) {
                        scopes.push((depth, name));
                    }
                }
                gimli::DW_TAG_subprogram => {
                    let low = match entry.attr_value(gimli::DW_AT_low_pc) {
                        Some(value) => dwarf.attr_address(&unit, value)?,
                        None => None,
                    };
                    if let (Some(low), Some(name)) = (low, name_of(entry)) {
                        let mut qualified: Vec<&str> =
                            scopes.iter().map(|(_, s)| s.as_str()).collect();
                        qualified.push(&name);
                        out.insert(low, qualified.join("::"));
                    }
                }
                _ => {}
            }
        }
    }
    Ok(out)
}

/// A final-module name without wasm-bindgen's `[k]` suffix, and k (0 when
/// there is none).
fn split_copy(name: &str) -> (&str, usize) {
    name.strip_suffix(']')
        .and_then(|n| n.rsplit_once('['))
        .and_then(|(base, k)| Some((base, k.parse().ok()?)))
        .unwrap_or((name, 0))
}

fn same_operators(a: &[(usize, Operator<'_>)], b: &[(usize, Operator<'_>)]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|((_, x), (_, y))| same_operator(x, y))
}

/// Whether two operators are the same instruction up to the indices
/// wasm-bindgen renumbers (functions, locals, globals, types, tables).
fn same_operator(a: &Operator<'_>, b: &Operator<'_>) -> bool {
    use Operator as O;
    if std::mem::discriminant(a) != std::mem::discriminant(b) {
        return false;
    }
    match (a, b) {
        (O::I32Const { value: x }, O::I32Const { value: y }) => x == y,
        (O::I64Const { value: x }, O::I64Const { value: y }) => x == y,
        (O::F32Const { value: x }, O::F32Const { value: y }) => x.bits() == y.bits(),
        (O::F64Const { value: x }, O::F64Const { value: y }) => x.bits() == y.bits(),
        (O::Br { relative_depth: x }, O::Br { relative_depth: y })
        | (O::BrIf { relative_depth: x }, O::BrIf { relative_depth: y }) => x == y,
        (O::BrTable { targets: x }, O::BrTable { targets: y }) => {
            x.default() == y.default()
                && x.targets().collect::<Result<Vec<_>, _>>().ok()
                    == y.targets().collect::<Result<Vec<_>, _>>().ok()
        }
        _ => match (memarg(a), memarg(b)) {
            (Some(x), Some(y)) => x.offset == y.offset && x.align == y.align,
            _ => true,
        },
    }
}

/// The memory immediate of a plain load or store.
fn memarg(op: &Operator<'_>) -> Option<wasmparser::MemArg> {
    use Operator as O;
    match op {
        O::I32Load { memarg }
        | O::I64Load { memarg }
        | O::F32Load { memarg }
        | O::F64Load { memarg }
        | O::I32Load8S { memarg }
        | O::I32Load8U { memarg }
        | O::I32Load16S { memarg }
        | O::I32Load16U { memarg }
        | O::I64Load8S { memarg }
        | O::I64Load8U { memarg }
        | O::I64Load16S { memarg }
        | O::I64Load16U { memarg }
        | O::I64Load32S { memarg }
        | O::I64Load32U { memarg }
        | O::I32Store { memarg }
        | O::I64Store { memarg }
        | O::F32Store { memarg }
        | O::F64Store { memarg }
        | O::I32Store8 { memarg }
        | O::I32Store16 { memarg }
        | O::I64Store8 { memarg }
        | O::I64Store16 { memarg }
        | O::I64Store32 { memarg } => Some(*memarg),
        _ => None,
    }
}

/// `path` as the listing names it (see the module docs), or `None` when it is
/// in none of the three places (a file a build script generated, say). `.`
/// and `..` are resolved first
/// (`crates/cost/src/../../meter/src/rebuild.rs`, from a `#[path]`, is
/// `crates/meter/src/rebuild.rs`).
pub fn normalise_path(path: &str, repo_root: &Path) -> Option<String> {
    let path = resolve_dots(&path.replace('\\', "/"))?;
    let root = resolve_dots(&repo_root.to_string_lossy().replace('\\', "/"))?;
    if let Some(rest) = path
        .strip_prefix(root.trim_end_matches('/'))
        .and_then(|r| r.strip_prefix('/'))
    {
        // A build script's output (target/.../build/<crate>-<hash>/out/) is
        // no source a reader can open.
        return (!rest.starts_with("target/")).then(|| rest.to_string());
    }
    // ~/.cargo/registry/src/<index>-<hash>/<crate>-<version>/src/lib.rs
    if let Some((_, rest)) = path.split_once("/registry/src/") {
        let (_, in_crate) = rest.split_once('/')?;
        return Some(in_crate.to_string());
    }
    // The standard library's own dependencies, vendored into its build:
    // /rust/deps/hashbrown-0.16.1/src/map.rs
    if let Some(rest) = path.strip_prefix("/rust/deps/") {
        return Some(rest.to_string());
    }
    // /rustc/<commit>/library/core/src/..., or rust-src's .../lib/rustlib/src/rust/library/...
    if path.starts_with("/rustc/") || path.contains("/rustlib/src/rust/") {
        let at = path.find("/library/")?;
        return Some(path[at + 1..].to_string());
    }
    // Relative paths: rustc names the workspace's own files relative to the
    // workspace root when it did not record a compilation directory.
    if path.starts_with("crates/") {
        return Some(path);
    }
    None
}

/// `path` with its `.` and `..` components resolved, or `None` when a `..`
/// climbs above its start.
fn resolve_dots(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "." => {}
            ".." => match parts.last() {
                Some(&last) if !last.is_empty() => {
                    parts.pop();
                }
                _ => return None,
            },
            _ => parts.push(part),
        }
    }
    Some(parts.join("/"))
}
