//! The Allocator wrapper on the real arenas: what it records, and that the
//! recording replays on the models of those arenas into as many chunks as
//! the real arena made.

mod common;

use allocator_api2::alloc::{Allocator, Layout};
use allocator_api2::vec::Vec;
use bumpalo::Bump;
use bumplab_core::presets::PresetId;
use bumplab_record::{Recorded, Recorder};
use common::{header_ops, replay, replays_everywhere};

fn body(text: &str) -> std::vec::Vec<&str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
}

#[test]
fn a_growing_vec_is_one_alloc_then_reallocs_then_a_free() {
    let recorder = Recorder::new();
    let bump = Recorded::new(Bump::new(), &recorder);
    let mut v: Vec<u64, _> = Vec::new_in(&bump);
    // Capacity 4, then doubled three times to 32.
    for i in 0..20u64 {
        v.push(i);
    }
    drop(v);
    let p = recorder.program("a growing vec");
    assert_eq!(
        body(&p.text),
        [
            "b32_1 = alloc 32 align 8",
            "b64_1 = realloc b32_1 64",
            "b128_1 = realloc b64_1 128",
            "b256_1 = realloc b128_1 256",
            "free b256_1",
        ]
    );
    assert_eq!((p.ops, p.allocs, p.reallocs, p.frees), (5, 1, 3, 1));
    assert_eq!(header_ops(&p.text), 5);
}

/// A deterministic mix of sizes 1..=300 and alignments 1..=16, a third of
/// the blocks freed soon after: a few thousand ops over many chunks.
fn churn<A: Allocator>(a: &A) {
    let mut held = std::vec::Vec::new();
    let mut x = 12345u32;
    for i in 0..3000u32 {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        let size = 1 + (x >> 8) as usize % 300;
        let align = 1 << ((x >> 20) % 5);
        let layout = Layout::from_size_align(size, align).unwrap();
        let p = a.allocate(layout).unwrap();
        if i % 3 == 0 {
            // SAFETY: `p` came from `a` with `layout` and is freed once.
            unsafe { a.deallocate(p.cast(), layout) };
        } else {
            held.push((p, layout));
        }
    }
    // Leak the rest: the arena takes them back when it goes.
    drop(held);
}

#[test]
fn bumpalo_recording_replays_into_the_chunks_bumpalo_made() {
    let recorder = Recorder::new();
    let bump = Recorded::new(Bump::new(), &recorder);
    churn(&bump);
    let mut real = bump.into_inner();
    let real_chunks = real.iter_allocated_chunks().count();
    let p = recorder.program("churn on bumpalo");
    // 3000 allocs and a free of every third.
    assert_eq!((p.ops, p.allocs, p.frees), (4000, 3000, 1000));
    assert_eq!(header_ops(&p.text), 4000);
    let r = replay(&p.text, PresetId::Bumpalo).unwrap();
    assert_eq!(r.ops, 4000);
    assert_eq!(
        r.chunks, real_chunks,
        "chunks: the model made {}, bumpalo {real_chunks}",
        r.chunks
    );
    // About 300 kB of held blocks, in chunks that keep doubling.
    assert_eq!(real_chunks, 10);
    replays_everywhere(&p.text, 4000);
}

#[test]
fn bump_scope_recording_replays_into_the_chunks_bump_scope_made() {
    let recorder = Recorder::new();
    let bump = Recorded::new(
        bump_scope::Bump::<bump_scope::alloc::Global>::new(),
        &recorder,
    );
    churn(&bump);
    let real_chunks = bump.arena().stats().count();
    let p = recorder.program("churn on bump-scope");
    assert_eq!(p.ops, 4000);
    let r = replay(&p.text, PresetId::BumpScopeUp).unwrap();
    assert_eq!(r.ops, 4000);
    assert_eq!(
        r.chunks, real_chunks,
        "chunks: the model made {}, bump-scope {real_chunks}",
        r.chunks
    );
    assert_eq!(real_chunks, 10);
}

#[test]
fn reset_with_records_a_reset_and_names_start_over() {
    let recorder = Recorder::new();
    let mut bump = Recorded::new(Bump::new(), &recorder);
    bump.alloc(1u64);
    bump.alloc_str("twelve bytes");
    bump.reset_with(|b| b.reset());
    bump.alloc(2u64);
    let p = recorder.program("reset");
    assert_eq!(
        body(&p.text),
        [
            "b8_1 = alloc 8 align 8",
            "b12_1 = alloc 12",
            "reset",
            "b8_1 = alloc 8 align 8"
        ]
    );
    replays_everywhere(&p.text, 4);
}

#[test]
fn the_op_limit_stops_recording_and_the_header_says_so() {
    let recorder = Recorder::with_max_ops(10);
    let bump = Recorded::new(Bump::new(), &recorder);
    for i in 0..25u32 {
        bump.alloc(i);
    }
    assert_eq!(recorder.len(), 10);
    let p = recorder.program("over the limit");
    assert_eq!((p.ops, p.cut_at_limit), (10, true));
    assert!(
        p.text
            .contains("# Cut at the op limit: these are the first 10 ops of the run.\n"),
        "{}",
        p.text
    );
}
