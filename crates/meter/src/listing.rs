//! The listing: the text of every instrumented function's operators, for the
//! page's Instructions view and `bumplab trace --executed`, which name the
//! executed operators by (function index, op index) (see
//! [`rebuild`](crate::rebuild)).
//!
//! JSON `{"format": 1, "files": [...], "functions": {"<index>": {"name",
//! "ops": [[offset, text, cost, branch, file, line], ...]}}}`: one entry per
//! operator in wasmparser's order (structural ones included), its byte
//! offset in the module file, its text as wasmprinter prints it (a call with
//! the callee's demangled name), what it counts (instructions 0 or 1,
//! branches 0 or 1, by [`op_cost`](crate::op_cost)), and its source line
//! (`files[file]`, 1-based `line`; -1 and 0 when unknown).

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};
use wasmparser::Operator;

use crate::counting::{op_cost, read_ops};
use crate::lines::LineTable;
use crate::module::ModuleInfo;
use crate::Error;

/// A function's name as the listing shows it: demangled, without the
/// symbol hash (`::h` and 16 hex digits) or wasm-bindgen's `[k]` suffix.
pub fn display_name(name: &str) -> String {
    let demangled = format!("{:#}", rustc_demangle::demangle(name));
    let mut s = demangled.as_str();
    if let Some(open) = s.rfind('[') {
        if s.ends_with(']') && s[open + 1..s.len() - 1].bytes().all(|b| b.is_ascii_digit()) {
            s = &s[..open];
        }
    }
    if let Some((head, hash)) = s.rsplit_once("::h") {
        if hash.len() == 16 && hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            s = head;
        }
    }
    s.to_string()
}

/// The listing of `wasm`'s functions `functions` (indices), with the source
/// lines of `lines` where it has them.
pub fn listing(wasm: &[u8], functions: &[u32], lines: Option<&LineTable>) -> Result<String, Error> {
    let info = ModuleInfo::parse(wasm)?;
    // Each operator's text by its offset, from wasmprinter's own printing
    // of the module (one instruction a line when not folded).
    let mut storage = String::new();
    let texts: HashMap<usize, &str> = wasmprinter::Config::new()
        .offsets_and_lines(wasm, &mut storage)
        .map_err(|e| Error::new(format!("wasmprinter could not print the module: {e}")))?
        .filter_map(|(offset, line)| Some((offset?, line.trim())))
        .collect();
    let name_of = |f: u32| info.func_name(f).map(display_name);

    let mut out = BTreeMap::new();
    for &func in functions {
        let Some(body) = func
            .checked_sub(info.func_imports)
            .and_then(|i| info.bodies.get(i as usize))
        else {
            continue;
        };
        let (_, ops) = read_ops(body)?;
        let func_lines = lines.and_then(|l| l.function(func));
        let rows: Vec<Value> = ops
            .iter()
            .enumerate()
            .map(|(i, op)| {
                let offset = op.bytes.start;
                let text = match &op.op {
                    Operator::Call { function_index } => match name_of(*function_index) {
                        Some(name) => format!("call ${name}"),
                        None => format!("call {function_index}"),
                    },
                    Operator::End => "end".to_string(),
                    other => texts
                        .get(&offset)
                        .map(|t| t.to_string())
                        .unwrap_or_else(|| {
                            let debug = format!("{other:?}");
                            debug[..debug.find([' ', '{']).unwrap_or(debug.len())].to_string()
                        }),
                };
                let cost = op_cost(&op.op);
                let at = func_lines.and_then(|l| l.get(i).copied().flatten());
                json!([
                    offset,
                    text,
                    cost.instructions,
                    cost.branches,
                    at.map_or(-1, |a| i64::from(a.file)),
                    at.map_or(0, |a| a.line),
                ])
            })
            .collect();
        out.insert(
            func.to_string(),
            json!({
                "name": name_of(func).unwrap_or_else(|| format!("function {func}")),
                "ops": rows,
            }),
        );
    }
    let files = lines.map(|l| l.files.clone()).unwrap_or_default();
    Ok(json!({ "format": 1, "files": files, "functions": out }).to_string())
}
