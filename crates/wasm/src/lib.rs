//! The wasm face of bumplab-core: small, boring conversions only.
//!
//! Results cross the boundary as the documented JSON trace format, so the
//! page, the CLI and an exported file all read the very same thing.

use bumplab_core::{presets, PresetId, ProgramError, Target};
use wasm_bindgen::prelude::*;

/// Runs `source` on `allocator` and returns the trace JSON. `capacity` and
/// `min_align` left out mean the preset's defaults., or a JSON error
/// `{"error": {"line", "column", "message"}}` for bad input. Never throws for
/// bad input: the page keeps its last good trace and shows the message.
#[wasm_bindgen(js_name = traceProgram)]
pub fn trace_program(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
) -> String {
    match run(source, allocator, target, capacity, min_align) {
        Ok(json) => json,
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

fn run(
    source: &str,
    allocator: &str,
    target: &str,
    capacity: Option<u32>,
    min_align: Option<u32>,
) -> Result<String, ProgramError> {
    let at_start = |message: String| ProgramError {
        line: 1,
        column: 1,
        message,
    };
    let preset = PresetId::parse(allocator).ok_or_else(|| {
        let names: Vec<_> = PresetId::ALL.iter().map(|p| p.name()).collect();
        at_start(format!(
            "unknown allocator '{allocator}': use one of {}",
            names.join(", ")
        ))
    })?;
    let target = Target::parse(target)
        .ok_or_else(|| at_start(format!("unknown target '{target}': use 64 or wasm32")))?;
    let opts = bumplab_core::Options {
        target,
        capacity: capacity.map(u64::from),
        min_align: min_align.map(u64::from),
    };
    let trace = bumplab_core::run(source, preset, &opts)?;
    Ok(serde_json::to_string(&trace).expect("a trace always serialises"))
}

/// The allocators, as JSON `[{name, direction, algorithm, description}]`.
#[wasm_bindgen(js_name = listAllocators)]
pub fn list_allocators() -> String {
    serde_json::to_string(&presets::list()).expect("the list always serialises")
}

/// The text of source file `name` (a trace's `source`, or a step's `file`):
/// the code that was compiled, stepped and measured.
#[wasm_bindgen(js_name = sourceText)]
pub fn source_text(name: &str) -> Option<String> {
    bumplab_core::source::Source::parse(name).map(|s| s.text().to_string())
}
