//! Finds, at build time, the line each `// step: <marker>` comment marks in
//! the algorithm and model files, as `steps::line_of` would at run time.
//!
//! Recording a micro-step needs its line; looking it up in the file's text
//! at run time kept every source file's text in each module that traces
//! (about 29 kB of the trace module's gzip). With the lines computed here,
//! only `catalogue::text` refers to the texts, so a module that never serves
//! them (the trace module: the page fetches them lazily) leaves them out.
//! A test checks this table against a run-time scan of the texts.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::Path;

/// Each `Source` variant and its file, relative to `src/` (as `Source::path`
/// and the `include_str!`s in `catalogue.rs` name them).
const FILES: [(&str, &str); 15] = [
    ("BumpDown", "algorithms/bump_down.rs"),
    ("BumpUpNaive", "algorithms/bump_up_naive.rs"),
    ("BumpUp", "algorithms/bump_up.rs"),
    ("Fixed", "models/fixed.rs"),
    ("MinAlignUp", "algorithms/min_align_up.rs"),
    ("MinAlignDown", "algorithms/min_align_down.rs"),
    ("Bumper", "models/bumper.rs"),
    ("CppArena", "models/cpp_arena.rs"),
    ("BumpScope", "models/bump_scope.rs"),
    ("Bumpalo", "models/bumpalo.rs"),
    ("BlinkAlloc", "models/blink_alloc.rs"),
    ("ZigFixedBuffer", "models/zig_fixed_buffer.rs"),
    ("ZigArena", "models/zig_arena.rs"),
    ("PmrMonotonic", "models/pmr_monotonic.rs"),
    ("LlvmBumpPtr", "models/llvm_bump_ptr.rs"),
];

const NEEDLE: &str = "// step: ";

fn main() {
    let mut out = String::from(
        "/// The 1-based line of the step marked `// step: <marker>` in `source`\n\
         /// (0 if there is none), found by `build.rs`.\n\
         pub(crate) fn marker_line(source: Source, marker: &str) -> u32 {\n    match (source, marker) {\n",
    );
    for (variant, file) in FILES {
        let path = Path::new("src").join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let text = fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let lines: Vec<&str> = text.lines().collect();
        let mut seen = Vec::new();
        for (i, l) in lines.iter().enumerate() {
            let l = l.trim_end();
            let Some(at) = l.rfind(NEEDLE) else { continue };
            let marker = &l[at + NEEDLE.len()..];
            // The first line that ends with a marker is the one `line_of` finds.
            if marker.is_empty() || seen.contains(&marker) {
                continue;
            }
            seen.push(marker);
            // Same rule as `line_of`: a marker on a line of its own marks the line above.
            let own_line = l.trim_start().starts_with("//");
            let line = if own_line && i > 0 { i - 1 } else { i };
            writeln!(
                out,
                "        (Source::{variant}, {marker:?}) => {},",
                line + 1
            )
            .unwrap();
        }
    }
    out.push_str("        _ => 0,\n    }\n}\n");
    let dest = Path::new(&env::var("OUT_DIR").unwrap()).join("step_lines.rs");
    fs::write(dest, out).unwrap();
    println!("cargo:rerun-if-changed=build.rs");
}
