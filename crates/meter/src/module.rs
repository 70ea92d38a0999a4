//! Reading the input module and splicing the output module.
//!
//! The meter never re-encodes the module as a whole: every section it does not
//! need to change is copied byte for byte, and in the code section only the
//! bodies of instrumented functions are replaced. This keeps the page's other
//! code exactly as wasm-bindgen/wasm-opt left it (same function order, same
//! local numbering, same padding), which a whole-module IR round trip (walrus
//! sorts functions by size and renumbers locals when it emits) cannot promise.

use std::collections::HashMap;
use std::ops::Range;

use wasm_encoder::Encode;
use wasmparser::{
    BinaryReader, ElementItems, ExternalKind, FuncType, FunctionBody, KnownCustom, Name, Operator,
    Parser, Payload, TypeRef,
};

use crate::Error;

/// Section ids of the sections the meter edits.
pub(crate) const TYPE_SECTION: u8 = 1;
pub(crate) const GLOBAL_SECTION: u8 = 6;
pub(crate) const EXPORT_SECTION: u8 = 7;
pub(crate) const CODE_SECTION: u8 = 10;
pub(crate) const DATA_SECTION: u8 = 11;
pub(crate) const DATA_COUNT_SECTION: u8 = 12;

/// One section of the input: its id, the whole section (id byte, size and
/// contents) and just the contents.
#[derive(Debug, Clone)]
pub(crate) struct Section {
    pub id: u8,
    pub whole: Range<usize>,
    pub contents: Range<usize>,
}

/// One defined function's body in the code section.
pub(crate) struct Body<'a> {
    /// The body as wasmparser sees it (locals + operators, no size prefix).
    pub body: FunctionBody<'a>,
    /// The entry as stored in the input, size prefix included, for copying.
    pub whole: Range<usize>,
}

/// What the meter needs to know about the input module.
pub(crate) struct ModuleInfo<'a> {
    pub wasm: &'a [u8],
    pub sections: Vec<Section>,
    /// The type index space; `None` for non-function (GC) types.
    pub types: Vec<Option<FuncType>>,
    /// Number of imported functions: defined function `i` has index `func_imports + i`.
    pub func_imports: u32,
    /// Type index of every function in the function index space (imports first).
    pub func_types: Vec<u32>,
    /// Number of globals (imported + defined): the first new global gets this index.
    pub global_count: u32,
    /// Exported functions: (export name, function index).
    pub func_exports: Vec<(String, u32)>,
    /// Every export name, to refuse instrumenting twice.
    pub export_names: Vec<String>,
    /// Functions that an indirect call could reach: every function listed in an
    /// element segment or named by `ref.func` in a constant expression.
    pub table_funcs: Vec<u32>,
    /// Function names from the `name` section (`None` if there is no such
    /// subsection at all).
    pub func_names: Option<HashMap<u32, String>>,
    /// Bodies of the defined functions, in order.
    pub bodies: Vec<Body<'a>>,
    /// Bytes of the code section contents before the first body (the count).
    pub code_prefix: Range<usize>,
    /// Whether memory 0 exists and has 32-bit addresses (the recorder
    /// stores into it).
    pub memory32: bool,
    /// Number of data segments.
    pub data_segments: u32,
}

impl<'a> ModuleInfo<'a> {
    pub fn parse(wasm: &'a [u8]) -> Result<Self, Error> {
        let mut info = ModuleInfo {
            wasm,
            sections: Vec::new(),
            types: Vec::new(),
            func_imports: 0,
            func_types: Vec::new(),
            global_count: 0,
            func_exports: Vec::new(),
            export_names: Vec::new(),
            table_funcs: Vec::new(),
            func_names: None,
            bodies: Vec::new(),
            code_prefix: 0..0,
            memory32: false,
            data_segments: 0,
        };
        let mut memories = 0;
        // Sections are contiguous: each one starts where the previous ended.
        let mut next_section_start = 8;
        let mut next_body_start = 0;
        for payload in Parser::new(0).parse_all(wasm) {
            let payload = payload?;
            if let Some((id, contents)) = payload.as_section() {
                info.sections.push(Section {
                    id,
                    whole: next_section_start..contents.end,
                    contents: contents.clone(),
                });
                next_section_start = contents.end;
            }
            match payload {
                Payload::Version { encoding, .. } if encoding != wasmparser::Encoding::Module => {
                    return Err(Error::new("input is a component, not a core wasm module"));
                }
                Payload::TypeSection(reader) => {
                    for group in reader {
                        for sub in group?.into_types() {
                            info.types.push(match &sub.composite_type.inner {
                                wasmparser::CompositeInnerType::Func(f) => Some(f.clone()),
                                _ => None,
                            });
                        }
                    }
                }
                Payload::ImportSection(reader) => {
                    for import in reader.into_imports() {
                        match import?.ty {
                            TypeRef::Func(ty) | TypeRef::FuncExact(ty) => {
                                info.func_imports += 1;
                                info.func_types.push(ty);
                            }
                            TypeRef::Global(_) => info.global_count += 1,
                            TypeRef::Memory(m) => {
                                if memories == 0 {
                                    info.memory32 = !m.memory64;
                                }
                                memories += 1;
                            }
                            _ => {}
                        }
                    }
                }
                Payload::FunctionSection(reader) => {
                    for ty in reader {
                        info.func_types.push(ty?);
                    }
                }
                Payload::MemorySection(reader) => {
                    for m in reader {
                        let m = m?;
                        if memories == 0 {
                            info.memory32 = !m.memory64;
                        }
                        memories += 1;
                    }
                }
                Payload::DataSection(reader) => info.data_segments = reader.count(),
                Payload::GlobalSection(reader) => {
                    for global in reader {
                        collect_ref_funcs(global?.init_expr.get_operators_reader(), &mut info)?;
                        info.global_count += 1;
                    }
                }
                Payload::ExportSection(reader) => {
                    for export in reader {
                        let export = export?;
                        info.export_names.push(export.name.to_string());
                        if export.kind == ExternalKind::Func {
                            info.func_exports
                                .push((export.name.to_string(), export.index));
                        }
                    }
                }
                Payload::ElementSection(reader) => {
                    for element in reader {
                        match element?.items {
                            ElementItems::Functions(funcs) => {
                                for f in funcs {
                                    info.table_funcs.push(f?);
                                }
                            }
                            ElementItems::Expressions(_, exprs) => {
                                for expr in exprs {
                                    collect_ref_funcs(expr?.get_operators_reader(), &mut info)?;
                                }
                            }
                        }
                    }
                }
                Payload::CodeSectionStart { range, .. } => {
                    let mut reader = BinaryReader::new(&wasm[range.clone()], range.start);
                    reader.read_var_u32()?;
                    next_body_start = reader.original_position();
                    info.code_prefix = range.start..next_body_start;
                }
                Payload::CodeSectionEntry(body) => {
                    let end = body.range().end;
                    info.bodies.push(Body {
                        body,
                        whole: next_body_start..end,
                    });
                    next_body_start = end;
                }
                Payload::CustomSection(custom) => {
                    if let KnownCustom::Name(reader) = custom.as_known() {
                        read_function_names(reader, &mut info);
                    }
                }
                _ => {}
            }
        }
        Ok(info)
    }

    /// The function type of function `func` (in the function index space).
    pub fn func_type(&self, func: u32) -> Result<&FuncType, Error> {
        self.func_types
            .get(func as usize)
            .and_then(|&ty| self.types.get(ty as usize))
            .and_then(Option::as_ref)
            .ok_or_else(|| Error::new(format!("function {func} has no function type")))
    }

    /// The name of function `func` from the name section, if any.
    pub fn func_name(&self, func: u32) -> Option<&str> {
        self.func_names.as_ref()?.get(&func).map(String::as_str)
    }

    /// The raw bytes of a section.
    pub fn section_bytes(&self, section: &Section) -> &'a [u8] {
        &self.wasm[section.whole.clone()]
    }
}

fn collect_ref_funcs(
    mut ops: wasmparser::OperatorsReader<'_>,
    info: &mut ModuleInfo<'_>,
) -> Result<(), Error> {
    while !ops.eof() {
        if let Operator::RefFunc { function_index } = ops.read()? {
            info.table_funcs.push(function_index);
        }
    }
    Ok(())
}

/// Reads the function-name subsection. A malformed name section is ignored
/// (engines ignore it too) rather than failing the build; the caller reports
/// missing names if it needs them.
fn read_function_names(reader: wasmparser::NameSectionReader<'_>, info: &mut ModuleInfo<'_>) {
    for subsection in reader {
        let Ok(Name::Function(map)) = subsection else {
            continue;
        };
        let names = info.func_names.get_or_insert_with(HashMap::new);
        for naming in map.into_iter().flatten() {
            names.insert(naming.index, naming.name.to_string());
        }
    }
}

/// Builds a section from its id and contents.
pub(crate) fn encode_section(id: u8, contents: &[u8]) -> Vec<u8> {
    let mut out = vec![id];
    (contents.len() as u32).encode(&mut out);
    out.extend_from_slice(contents);
    out
}

/// Rebuilds a vector-shaped section (`count, entries...`) with extra entries
/// appended after the original ones, whose bytes are kept as they were.
pub(crate) fn append_entries(
    wasm: &[u8],
    section: Option<&Section>,
    extra_count: u32,
    extra: &[u8],
) -> Result<Vec<u8>, Error> {
    let mut contents = Vec::new();
    match section {
        Some(section) => {
            let range = section.contents.clone();
            let mut reader = BinaryReader::new(&wasm[range.clone()], range.start);
            let count = reader.read_var_u32()?;
            (count + extra_count).encode(&mut contents);
            contents.extend_from_slice(&wasm[reader.original_position()..range.end]);
        }
        None => extra_count.encode(&mut contents),
    }
    contents.extend_from_slice(extra);
    Ok(contents)
}

/// Where a section with id `id` goes in the module: wasm orders the known
/// sections; this is that order (custom sections, id 0, may go anywhere).
pub(crate) fn section_rank(id: u8) -> u8 {
    match id {
        1 => 1,   // type
        2 => 2,   // import
        3 => 3,   // function
        4 => 4,   // table
        5 => 5,   // memory
        13 => 6,  // tag
        6 => 7,   // global
        7 => 8,   // export
        8 => 9,   // start
        9 => 10,  // element
        12 => 11, // data count
        10 => 12, // code
        11 => 13, // data
        _ => 0,
    }
}
