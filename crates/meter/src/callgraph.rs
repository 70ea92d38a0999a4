//! Which functions get instrumented: the roots and everything they can call.
//!
//! Only these are rewritten so that the rest of the page's code keeps its
//! exact bytes and speed. Reachability follows direct `call`/`return_call`.
//! An indirect call (`call_indirect`, `call_ref` and their tail forms) could
//! reach any function whose reference exists, so as soon as one reachable
//! function makes one, every function in any element segment or named by any
//! `ref.func` becomes reachable too (a sound over-approximation; Rust modules
//! put every address-taken function in the one table).

use std::collections::BTreeSet;

use wasmparser::Operator;

use crate::module::ModuleInfo;
use crate::Error;

/// The defined functions (function indices, imports excluded: their code is
/// not in the module) reachable from `roots`.
pub(crate) fn reachable(info: &ModuleInfo<'_>, roots: &[u32]) -> Result<BTreeSet<u32>, Error> {
    let mut seen = BTreeSet::new();
    let mut stack: Vec<u32> = roots.to_vec();
    let mut indirect_targets_added = false;
    while let Some(func) = stack.pop() {
        let Some(body) = defined_body(info, func) else {
            continue; // an import
        };
        if !seen.insert(func) {
            continue;
        }
        let mut ops = body.body.get_operators_reader()?;
        let mut makes_indirect_call = false;
        while !ops.eof() {
            match ops.read()? {
                Operator::Call { function_index } | Operator::ReturnCall { function_index } => {
                    stack.push(function_index)
                }
                Operator::CallIndirect { .. }
                | Operator::ReturnCallIndirect { .. }
                | Operator::CallRef { .. }
                | Operator::ReturnCallRef { .. } => makes_indirect_call = true,
                _ => {}
            }
        }
        if makes_indirect_call && !indirect_targets_added {
            indirect_targets_added = true;
            stack.extend(indirect_targets(info)?);
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

/// Every function an indirect call could reach: those in element segments or
/// global initialisers (collected while parsing) and those named by `ref.func`
/// in any function body.
fn indirect_targets(info: &ModuleInfo<'_>) -> Result<Vec<u32>, Error> {
    let mut targets = info.table_funcs.clone();
    for body in &info.bodies {
        let mut ops = body.body.get_operators_reader()?;
        while !ops.eof() {
            if let Operator::RefFunc { function_index } = ops.read()? {
                targets.push(function_index);
            }
        }
    }
    Ok(targets)
}
