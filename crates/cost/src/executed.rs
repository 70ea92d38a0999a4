//! `executedOps`: which wasm instructions one op executed, in order, in each
//! measured column (the model, the real crate, the baseline).
//!
//! The trace is run as `traceProgram` runs it, with the recorder (see
//! `recorder`) armed for that op; each column's recorded entries are then
//! rebuilt into executed operators with the plan the meter embedded (see
//! `bumplab_meter::rebuild`, compiled in here from the meter's source). The
//! list has one entry per counted instruction, so its length is the op's
//! instruction count and its branches are the op's branch count.

use std::cell::OnceCell;

use serde_json::{json, Value};

use crate::recorder::{self, Column};

#[path = "../../meter/src/rebuild.rs"]
#[allow(dead_code)]
mod rebuild;

use rebuild::{Executed, Plan};

thread_local! {
    static PLAN: OnceCell<Result<Plan, String>> = const { OnceCell::new() };
}

/// The plan the meter embedded, decoded once.
fn with_plan<T>(f: impl FnOnce(&Plan) -> T) -> Result<T, String> {
    PLAN.with(|cell| {
        let plan = cell.get_or_init(|| {
            let len = crate::meter::bumplab_meter_plan(core::ptr::null_mut(), 0);
            let mut bytes = vec![0u8; len as usize];
            if len > 0 {
                crate::meter::bumplab_meter_plan(bytes.as_mut_ptr(), len);
            }
            Plan::decode(&bytes)
        });
        plan.as_ref().map(f).map_err(Clone::clone)
    })
}

fn error(message: String) -> String {
    json!({ "error": { "line": 1, "column": 1, "message": message } }).to_string()
}

/// See the module docs; the JSON is `{"op", "columns": [{"column", "cost",
/// "executed": [[function, op index, depth, taken], ...], "truncated"}]}`,
/// or `traceProgram`'s `{"error": ...}`.
pub fn executed_ops(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
    op: u32,
) -> String {
    recorder::arm(op as usize);
    let trace = crate::full_trace(source, allocator, target, capacity, min_align, child);
    recorder::disarm();
    let trace = match trace {
        Ok(trace) => trace,
        Err(e) => return json!({ "error": e }).to_string(),
    };
    let i = op as usize;
    let Some(model) = trace.ops.get(i) else {
        return error(format!(
            "op {op} does not exist: the program has {} ops",
            trace.ops.len()
        ));
    };
    let real = trace
        .real
        .as_ref()
        .and_then(|r| r.ops.as_ref())
        .and_then(|ops| ops.get(i))
        .and_then(|o| o.cost);
    let baseline = trace
        .baseline
        .as_ref()
        .and_then(|b| b.ops.get(i))
        .and_then(|o| o.cost);
    let mut columns = Vec::new();
    for (column, name, cost) in [
        (Column::Model, "model", model.cost),
        (Column::Real, "real", real),
        (Column::Baseline, "baseline", baseline),
    ] {
        let Some(cost) = cost else { continue };
        // An op that ran no instrumented code (a free the model ignores)
        // recorded nothing, which is its list: empty.
        let (entries, truncated) = recorder::take(column).unwrap_or_default();
        let executed = match with_plan(|plan| {
            plan.sites(&entries)
                .and_then(|entries| rebuild::rebuild(plan, &entries, truncated))
        }) {
            Ok(Ok(executed)) => executed,
            Ok(Err(why)) | Err(why) => {
                return error(format!("the {name} column's instructions: {why}"))
            }
        };
        let rows: Vec<Value> = executed
            .iter()
            .map(
                |&Executed {
                     func,
                     op,
                     depth,
                     taken,
                 }| json!([func, op, depth, taken]),
            )
            .collect();
        columns.push(json!({
            "column": name,
            "cost": [cost.wasm_instructions, cost.wasm_branches, cost.slow_instructions, cost.slow_branches],
            "executed": rows,
            "truncated": truncated,
        }));
    }
    json!({ "op": op, "columns": columns }).to_string()
}
