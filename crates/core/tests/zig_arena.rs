//! The zig-arena preset against Zig's real std.heap.ArenaAllocator (the
//! standard library of PyPI's ziglang 0.17.1), built by that Zig into a
//! harness (tests/native/zig_heaps.zig) whose child allocator is the
//! simulated heap's algorithm: cases with the numbers the source gives, and
//! random programs compared op by op. Both sides get the same buffers at
//! the same addresses, so every address agrees, at every alignment.

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::{Mutex, OnceLock};

use arena_diff::{
    base_seed, compare, larger_than_every_chunk, parse_steps, program, repeated, run_model,
    seed_of, Coverage, Mix, Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::zig_arena::{self as model, ZigArena};
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::ZigArena;

/// The harness, built once per test binary and shared by the tests.
fn harness() -> &'static Mutex<Harness> {
    static H: OnceLock<Mutex<Harness>> = OnceLock::new();
    H.get_or_init(|| {
        let bin = native::build_zig("zig_heaps", "zig_heaps.zig");
        Mutex::new(Harness::spawn("zig_heaps", &bin).with_mode("arena"))
    })
}

fn real(capacity: Option<u64>, steps: &[Step]) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness().lock().unwrap_or_else(|e| e.into_inner());
    let mut raw = h.run(capacity, steps)?;
    native::zig_dangling_as_shown(&mut raw, steps)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on Zig's arena, asserts they agree op by op,
/// and returns the model's trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, Target::W64, capacity, &steps).unwrap();
    let real = real(capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    compare("zig-arena", 0, capacity, &steps, &model, &real).unwrap_or_else(|e| panic!("{e}"));
    t
}

fn sizes(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.size).collect()
}

#[test]
fn each_buffer_opens_with_its_node() {
    assert_eq!(ZigArena::<u64>::NODE_SIZE, 24);
    assert_eq!(ZigArena::<u32>::NODE_SIZE, 12);
    let t = both("a = alloc 8\nb = alloc 100 align 16\n", None);
    // 1.5 x (0 + 24 + 1 + 8 + 16) = 73.5, rounded up to even: 74.
    let c = &t.chunks[0];
    assert_eq!((c.size, c.header, c.capacity), (74, 24, 50));
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!(t.ops[0].offset, Some(0));
    // b does not fit the 42 bytes left: 1.5 x (50 + 24 + 16 + 100 + 16) = 309 -> 310.
    assert_eq!(sizes(&t), [74, 310]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Full);
    assert_eq!(t.ops[1].address.unwrap() % 16, 0);
    // The arena first asked its child to grow the buffer in place.
    assert!(t.ops[1]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("grow this buffer in place")));
}

#[test]
fn buffers_grow_from_the_last_one() {
    let t = both(&repeated("100", 12), None);
    // big = the last buffer's usable bytes + 24 + 1 + 100 + 16; the size is
    // big + big / 2 rounded up to even: 141 -> 212 (188 usable, one block);
    // 329 -> 494 (470, four blocks); 611 -> 916 (892, the other eight).
    assert_eq!(sizes(&t), [212, 494, 916]);
}

#[test]
fn only_the_last_allocation_resizes_or_frees() {
    let t = both(
        "a = alloc 16\nb = alloc 16\nc = realloc a 8\nd = realloc b 24\nfree d\ne = alloc 4\nf = realloc c 40\n",
        None,
    );
    // a is not last: shrinking is accepted in place, nothing comes back.
    assert_eq!(t.ops[2].moved, Some(false));
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    // b is last: it grows in place, and its bytes come back when freed.
    assert_eq!(t.ops[3].moved, Some(false));
    assert_eq!(t.ops[4].bump_ptr, Some(t.chunks[0].start + 16));
    assert_eq!(t.ops[5].offset, Some(16));
    // Growing a block that is not last: a new block, a copy.
    assert_eq!(t.ops[6].moved, Some(true));
}

#[test]
fn reset_keeps_one_buffer_as_large_as_all_of_them() {
    let t = both(
        &format!("{}reset\n{}", repeated("100", 12), repeated("100", 12)),
        None,
    );
    // 188 + 470 + 892 usable bytes, plus the node: one buffer of 1574.
    let kept = t.chunks.last().unwrap();
    assert_eq!(kept.size, 24 + 188 + 470 + 892);
    assert_eq!(kept.created_by, Some(12));
    assert_eq!(kept.reason, ChunkReason::First);
    assert_eq!(t.ops[12].stats.chunks, 1);
    // The same work fits it now: no new buffer after the reset.
    assert_eq!(t.chunks.len(), 4);
    assert!(t.ops[13..].iter().all(|o| o.chunk == Some(kept.id)));
    // With a limit (the Capacity knob) the buffer is at most that.
    let t = both(&format!("{}reset\n", repeated("100", 12)), Some(992));
    assert_eq!(t.chunks.last().unwrap().size, 24 + 992);
}

#[test]
fn a_zero_sized_request_never_reaches_the_arena() {
    let src = "a = alloc 0 align 8\nb = alloc 8\nc = realloc a 16\nd = realloc c 0\n";
    let t = both(src, None);
    // Shown at its alignment; Zig's own pointer is checked below.
    assert_eq!((t.ops[0].address, t.ops[0].chunk), (Some(8), None));
    assert!(t.ops[0]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("maxInt(usize)")));
    assert_eq!(t.ops[1].offset, Some(0));
    // From zero size a realloc allocates; to zero size it frees.
    assert_eq!(t.ops[2].moved, Some(true));
    assert_eq!(t.ops[3].address, Some(8));
    assert_eq!(t.ops[3].bump_ptr, t.ops[1].bump_ptr);
    // What Zig itself hands out: maxInt(usize) rounded down to 8.
    let steps = parse_steps(src);
    let raw = harness().lock().unwrap().run(None, &steps).unwrap();
    assert_eq!(raw[0].address, Some(u64::MAX - 7));
    assert_eq!(raw[3].address, Some(u64::MAX - 7));
    assert_eq!(model::zig_dangling(8u64), u64::MAX - 7);
    assert_eq!(model::zig_dangling(4u32), u32::MAX - 3);
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::ZigArena);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
}

/// alloc, realloc, free and reset (no checkpoints in the arena); sizes up to
/// 40,000; alignments up to a page; reset's limit chosen at random in some.
const MIX: Mix = Mix {
    weights: [10, 5, 4, 1, 0, 0],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000), (1, 5001, 40000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        None,
        Some(16),
        Some(64),
        Some(1024),
        Some(4096),
        Some(100000),
    ],
};

/// Random programs compared per run.
const PROGRAMS: u64 = 320;

#[test]
fn random_programs_match_zig() {
    let base = base_seed();
    let mut cov = Coverage::default();
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &MIX);
        let (t, model) = run_model(PRESET, Target::W64, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real = real(capacity, &steps).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare("zig-arena", seed, capacity, &steps, &model, &real) {
            panic!("{e}");
        }
        // The arena's buffers have no oversized reason: a request larger than
        // every buffer before it is what gets a buffer sized for itself.
        cov.record_with(&t, larger_than_every_chunk);
        let merged = t
            .chunks
            .iter()
            .filter(|c| {
                c.created_by
                    .is_some_and(|o| t.ops[o as usize].kind == bumplab_core::trace::OpKind::Reset)
            })
            .count() as u64;
        *cov.extra.entry("buffers merged by reset").or_default() += merged;
    }
    println!("{}", cov.summary("Zig 0.17.1 ArenaAllocator (64-bit)"));
    cov.require(
        "zig-arena",
        &[
            ("a new buffer", cov.new_chunks),
            ("an oversized request", cov.oversized),
            ("a moved realloc", cov.realloc_moved),
            ("an in-place realloc", cov.realloc_in_place),
            ("a shrink", cov.shrinks),
            ("a free", cov.frees),
            ("a reset", cov.resets),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen reset limit", cov.capacities),
            ("buffer merged by reset", cov.get("buffers merged by reset")),
        ],
    );
    assert!(cov.programs >= 256);
}
