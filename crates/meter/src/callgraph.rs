//! Which functions get instrumented: the roots and everything they can call.
//!
//! Only these are rewritten so that the rest of the page's code keeps its
//! exact bytes and speed, and so that code around a root (the replay that
//! calls it, the glue that converts its arguments) is never counted.
//!
//! Reachability follows direct `call`/`return_call`. An indirect call
//! (`call_indirect`, `call_ref` and their tail forms) names the function type
//! it calls, and wasm traps unless the callee has exactly that type, so it
//! can reach only the functions whose reference exists (in an element
//! segment, a global initialiser or a `ref.func`) AND whose type matches.
//! Following only those keeps the set sound without pulling in every
//! address-taken function: a panic path's `dyn Write` call, say, must not
//! make the page's own `dyn` methods "reachable" from an allocator.

use std::collections::BTreeSet;

use wasmparser::{FuncType, Operator};

use crate::module::ModuleInfo;
use crate::Error;

/// The defined functions (function indices, imports excluded: their code is
/// not in the module) reachable from `roots`.
pub(crate) fn reachable(info: &ModuleInfo<'_>, roots: &[u32]) -> Result<BTreeSet<u32>, Error> {
    let targets = indirect_targets(info)?;
    let mut seen = BTreeSet::new();
    // Signatures some reachable function calls indirectly; each one adds the
    // address-taken functions of that signature once.
    let mut called_types: Vec<&FuncType> = Vec::new();
    let mut stack: Vec<u32> = roots.to_vec();
    while let Some(func) = stack.pop() {
        let Some(body) = defined_body(info, func) else {
            continue; // an import
        };
        if !seen.insert(func) {
            continue;
        }
        let mut ops = body.body.get_operators_reader()?;
        while !ops.eof() {
            let type_index = match ops.read()? {
                Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                    stack.push(function_index);
                    continue;
                }
                Operator::CallIndirect { type_index, .. }
                | Operator::ReturnCallIndirect { type_index, .. } => type_index,
                Operator::CallRef { type_index } | Operator::ReturnCallRef { type_index } => {
                    type_index
                }
                _ => continue,
            };
            let Some(ty) = info.types.get(type_index as usize).and_then(Option::as_ref) else {
                return Err(Error::new(format!(
                    "function {func} calls indirectly through type {type_index}, which is not a function type"
                )));
            };
            if called_types.contains(&ty) {
                continue;
            }
            called_types.push(ty);
            for &target in &targets {
                if info.func_type(target)? == ty {
                    stack.push(target);
                }
            }
        }
    }
    Ok(seen)
}

fn defined_body<'m, 'a>(
    info: &'m ModuleInfo<'a>,
    func: u32,
) -> Option<&'m crate::module::Body<'a>> {
    let index = func.checked_sub(info.func_imports)?;
    info.bodies.get(index as usize)
}

/// Every function whose reference exists, so that an indirect call could
/// reach it: those in element segments or global initialisers (collected
/// while parsing) and those named by `ref.func` in any function body.
fn indirect_targets(info: &ModuleInfo<'_>) -> Result<BTreeSet<u32>, Error> {
    let mut targets: BTreeSet<u32> = info.table_funcs.iter().copied().collect();
    for body in &info.bodies {
        let mut ops = body.body.get_operators_reader()?;
        while !ops.eof() {
            if let Operator::RefFunc { function_index } = ops.read()? {
                targets.insert(function_index);
            }
        }
    }
    Ok(targets)
}
