//! The Rust recorder on a real program: examples/json_arena.rs parsing this
//! repository's package-lock.json and package.json in a bumpalo arena. The
//! recording must hold exactly the allocations the parsed trees' shapes
//! imply, and replay on every preset with the op count its header states.

mod common;
#[path = "../examples/json_arena.rs"]
mod json_arena;

use std::path::Path;

use bumplab_core::presets::PresetId;
use bumplab_core::run::{Run, META_KIND};
use common::{header_ops, replays_everywhere};

#[test]
fn parsing_real_json_is_recorded_call_for_call() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files = [root.join("package-lock.json"), root.join("package.json")];
    let json_arena::Recording {
        program: p,
        counts: c,
        chunk_bytes,
    } = json_arena::record_files(&files, "json_arena package-lock.json package.json").unwrap();
    // One allocation per string and key (its copy) and per non-empty array
    // or object (its vector); one realloc per time a vector grew; the trees
    // are never freed, the arena is reset after each file.
    assert_eq!(p.allocs, c.strings + c.keys + c.nonempty);
    assert_eq!(p.reallocs, c.grows);
    assert_eq!((p.frees, p.resets), (0, 2));
    assert_eq!(p.ops, p.allocs + p.reallocs + p.resets);
    assert!(c.grows > 0 && c.keys > 1000, "{c:?}");
    assert_eq!(header_ops(&p.text), p.ops);
    replays_everywhere(&p.text, p.ops);

    // The bumpalo model holds the chunks bumpalo held, byte for byte, when
    // each reset comes.
    let mut run = Run::new(&p.text, PresetId::Bumpalo, &Default::default()).unwrap();
    while !run.advance(u32::MAX).unwrap() {}
    let meta = &run.columns().meta;
    // Kind 3 is reset (bumplab_core::run::op_kind_code).
    let resets: Vec<u32> = (0..meta.len() as u32)
        .filter(|&i| meta[i as usize] & META_KIND == 3)
        .collect();
    let chunks = run.chunks();
    let held: Vec<u64> = resets
        .iter()
        .map(|&r| {
            chunks
                .iter()
                .filter(|c| c.created_by.is_none_or(|b| b < r) && c.freed_by.is_none_or(|f| f >= r))
                .map(|c| c.size)
                .sum()
        })
        .collect();
    assert_eq!(held, chunk_bytes);
}
