//! The wasm face of bumplab-core: small, boring conversions only.
//!
//! Results cross the boundary as the documented JSON trace format, so the
//! page, the CLI and an exported file all read the very same thing.

mod executed;
mod fresh_heap;
pub mod measure;
mod meter;
mod real;
mod recorder;
mod replay_alloc;
mod roots;

pub use meter::{
    bumplab_meter_append, bumplab_meter_plan, bumplab_meter_read, bumplab_meter_record,
};

use bumplab_core::trace::Shape;
use bumplab_core::{presets, ProgramError};
use wasm_bindgen::prelude::*;

/// Runs `source` on `allocator` and returns the trace JSON (`capacity` and
/// `min_align` left out mean the preset's defaults), or a JSON error
/// `{"error": {"line", "column", "message"}}` for bad input. Never throws for
/// bad input: the page keeps its last good trace and shows the message.
///
/// A bug that panics cannot be caught here: release builds abort on panic,
/// which in wasm is a trap (`unreachable`) the caller sees as a thrown
/// `WebAssembly.RuntimeError`. The panic's message is kept for
/// [`last_panic`], so the caller can say what went wrong.
#[wasm_bindgen(js_name = traceProgram)]
pub fn trace_program(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
) -> String {
    bumplab_core::panic_note::keep();
    match run(source, allocator, target, capacity, min_align, child) {
        Ok(json) => json,
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// The message of the panic that trapped the last call, once: what a
/// caller that caught the trap reports. After a trap the instance's state is
/// whatever the panic left: the caller should make a new instance.
#[wasm_bindgen(js_name = lastPanic)]
pub fn last_panic() -> Option<String> {
    bumplab_core::panic_note::take()
}

/// What the cost view needs of `source` on `allocator`, without the ops'
/// events and micro-steps (the trace module's run gives those on demand):
/// JSON `{"ops": N, "costs": [[instructions, branches, slow_instructions,
/// slow_branches] | null, ...], "shapes": ["u64" | "[u32]" | "layout" |
/// null, ...], "real"?: RealRun, "baseline"?: Baseline}`, or
/// the same `{"error": ...}` as [`trace_program`]. The run behind it is the
/// full trace's, so its costs are exactly the ones `traceProgram` attaches.
#[wasm_bindgen(js_name = traceCosts)]
pub fn trace_costs(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
) -> String {
    bumplab_core::panic_note::keep();
    match full_trace(source, allocator, target, capacity, min_align, child) {
        Ok(trace) => {
            let costs: Vec<Option<[u64; 4]>> = trace
                .ops
                .iter()
                .map(|op| {
                    op.cost.map(|c| {
                        [
                            c.wasm_instructions,
                            c.wasm_branches,
                            c.slow_instructions,
                            c.slow_branches,
                        ]
                    })
                })
                .collect();
            // Each op's shape (see `Shape`), short: `"u64"` for a type's
            // constant layout, `"[u32]"` for an array's known alignment,
            // `"layout"` for a run-time one, null for ops with no layout.
            let shapes: Vec<Option<String>> = trace
                .ops
                .iter()
                .map(|op| {
                    op.shape.map(|s| match s {
                        Shape::Typed(p) => p.name().to_string(),
                        Shape::Array(p) => format!("[{}]", p.name()),
                        Shape::Layout => "layout".to_string(),
                    })
                })
                .collect();
            let mut out =
                serde_json::json!({ "ops": trace.ops.len(), "costs": costs, "shapes": shapes });
            if let Some(real) = &trace.real {
                out["real"] = serde_json::to_value(real).expect("a real run always serialises");
            }
            if let Some(baseline) = &trace.baseline {
                out["baseline"] =
                    serde_json::to_value(baseline).expect("a baseline always serialises");
            }
            out.to_string()
        }
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

fn run(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
) -> Result<String, ProgramError> {
    let trace = full_trace(source, allocator, target, capacity, min_align, child)?;
    Ok(serde_json::to_string(&trace).expect("a trace always serialises"))
}

/// The full trace with everything this build can add: costs (metered
/// build), the real crate's run, the baseline. Never inlined: it holds a
/// replay per preset, which three exports would otherwise each copy.
#[inline(never)]
fn full_trace(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
) -> Result<bumplab_core::Trace, ProgramError> {
    let (preset, opts) = bumplab_core::engine::request(
        allocator,
        target,
        capacity.map(u64::from),
        min_align.map(u64::from),
        child.as_deref(),
    )?;
    let mut trace = bumplab_core::run(source, preset, &opts)?;
    let min_align = bumplab_core::engine::resolve_min_align(preset, opts.min_align)?;
    let metered = meter::metered();
    if metered {
        measure::attach_costs(&mut trace, preset, min_align, opts.capacity);
    }
    // The real crate's run needs no meter (its costs do): the placements and
    // mismatches are there in every wasm32 build, the tests' too.
    trace.real = real::real_run(&trace, preset, min_align, opts.capacity, metered);
    if metered {
        trace.baseline = Some(real::baseline(&trace, metered));
    }
    Ok(trace)
}

/// Which wasm instructions op `op` of `source` on `allocator` executed, in
/// order, in each column that has a cost for it: JSON `{"op", "columns":
/// [{"column": "model" | "real" | "baseline", "cost": [instructions,
/// branches, slow instructions, slow branches], "executed": [[function,
/// op index, depth, taken], ...], "truncated"}]}`, where a function and op
/// index name an operator of the unmetered module (listing.json has its
/// text), depth is the call depth below the measured root, and taken a
/// conditional branch's outcome (1 jumped, 0 went on; a `br_table`'s label
/// index; -1 for the rest). One entry per counted instruction, so a
/// column's list is as long as its instruction count. Bad input gives the
/// same `{"error": ...}` as [`trace_program`].
#[wasm_bindgen(js_name = executedOps)]
pub fn executed_ops(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
    child: Option<String>,
    op: u32,
) -> String {
    bumplab_core::panic_note::keep();
    executed::executed_ops(source, allocator, target, capacity, min_align, child, op)
}

/// The preset registry's rows, as JSON (`bumplab_core::presets::Row`).
#[wasm_bindgen(js_name = listAllocators)]
pub fn list_allocators() -> String {
    serde_json::to_string(&presets::list()).expect("the list always serialises")
}

/// The text of source file `name` (a trace's `source`, or a step's `file`):
/// the code that was compiled, stepped and measured.
#[wasm_bindgen(js_name = sourceText)]
pub fn source_text(name: &str) -> Option<String> {
    bumplab_core::source::Source::parse(name).map(|s| bumplab_core::catalogue::text(s).to_string())
}

/// The repository path of source file `name`, for the code view's title.
#[wasm_bindgen(js_name = sourcePath)]
pub fn source_path(name: &str) -> Option<String> {
    bumplab_core::source::Source::parse(name).map(|s| s.path().to_string())
}
