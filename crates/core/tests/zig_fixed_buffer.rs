//! The zig-fixed-buffer preset against Zig's real std.heap.FixedBufferAllocator
//! (the standard library of PyPI's ziglang 0.17.1), built by that Zig into a
//! harness (tests/native/zig_heaps.zig) for this machine (64-bit) and for
//! wasm32-wasi (run under Node's node:wasi), that takes the buffer from the
//! simulated heap's algorithm: cases with the numbers the source gives, the
//! edges of every rule, and random programs compared op by op on both
//! targets, checkpoints (saving and storing back `end_index`) included.

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::Mutex;

use arena_diff::{
    base_seed, compare, largest_request, last_true, parse_steps, program, run_model, runnable,
    seed_of, Coverage, Mix, Step,
};
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::zig_fixed_buffer as model;
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::ZigFixedBuffer;

/// The harness for `target`, built once per test binary and shared.
fn harness(target: Target) -> &'static Mutex<Harness> {
    static HARNESSES: native::PerTarget = native::PerTarget::new();
    HARNESSES.get(target, || {
        let bin = native::build_zig("zig_heaps", "zig_heaps.zig", target);
        Harness::spawn_for("zig_heaps", &bin, target).with_mode("fba")
    })
}

fn real(
    target: Target,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness(target).lock().unwrap_or_else(|e| e.into_inner());
    let mut raw = h.run(capacity, steps)?;
    native::zig_dangling_as_shown(&mut raw, steps, target)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on Zig's allocator on `target`, asserts they
/// agree op by op, and returns the model's trace.
fn both_on(target: Target, src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, target, capacity, &steps).unwrap();
    let real = real(target, capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    compare(
        &format!("zig-fixed-buffer on {target:?}"),
        0,
        capacity,
        &steps,
        &model,
        &real,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    t
}

/// [`both_on`] on both targets; the 64-bit trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    both_on(Target::Wasm32, src, capacity);
    both_on(Target::W64, src, capacity)
}

#[test]
fn one_buffer_bumped_until_it_is_full() {
    let t = both(
        "a = alloc 1\nb = alloc 8 align 8\nc = alloc 40\nd = alloc 8\ne = alloc 0\n",
        Some(64),
    );
    let c = &t.chunks[0];
    assert_eq!((c.size, c.capacity, c.header, c.footer), (64, 64, 0, 0));
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.created_by, None);
    // 1, then 8 aligned to 8 (7 bytes of padding), then 40: 56 used.
    assert_eq!(
        (t.ops[0].offset, t.ops[1].offset, t.ops[2].offset),
        (Some(0), Some(8), Some(16))
    );
    // 56 + 8 = 64 fits exactly; nothing more does.
    assert_eq!(t.ops[3].offset, Some(56));
    // A zero-sized request never reaches the allocator, so it never fails
    // (Zig's pointer, maxInt(usize), is shown at the alignment).
    assert_eq!((t.ops[4].address, t.ops[4].failed), (Some(1), false));
    let t = both("a = alloc 60\nb = alloc 8\n", Some(64));
    assert!(t.ops[1].failed);
    assert!(t.ops[1]
        .events
        .iter()
        .any(|e| e.kind == EventKind::OutOfMemory));
    // The default buffer is 4096 bytes.
    let t = both("a = alloc 4096\nb = alloc 1\n", None);
    assert_eq!(t.chunks[0].capacity, 4096);
    assert!(t.ops[1].failed);
}

#[test]
fn only_the_last_allocation_resizes_or_frees() {
    let t = both(
        "a = alloc 16\nb = alloc 16\nc = realloc a 8\nd = realloc b 32\nfree d\ne = realloc c 64\n",
        Some(256),
    );
    assert_eq!(t.ops[2].moved, Some(false));
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!(t.ops[3].moved, Some(false));
    assert_eq!(t.ops[4].bump_ptr, Some(t.chunks[0].start + 16));
    // c (at 0) is not last: grown by a copy to the end, then freed (a no-op).
    assert_eq!((t.ops[5].moved, t.ops[5].offset), (Some(true), Some(16)));
}

#[test]
fn saving_and_storing_back_end_index_scopes_the_buffer() {
    let t = both(
        "a = alloc 16\ncheckpoint c0\nb = alloc 100\nc = alloc 100\nrestore c0\nd = alloc 8\nreset\ne = alloc 8\n",
        Some(256),
    );
    assert_eq!(t.ops[4].bump_ptr, t.ops[0].bump_ptr);
    assert_eq!(t.ops[5].offset, Some(16));
    assert_eq!(t.ops[7].offset, Some(0));
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::ZigFixedBuffer);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
}

/// The edges of each rule on both targets, each compared with the real
/// allocator: alignments of a word, 1 (the allocator has no minimum) and
/// 2, and a page; a request that exactly fills the buffer and one byte
/// more, after a first block and after padding; size 0; buffers whose end
/// is one byte short of the next alignment; the largest request the target
/// allows.
fn edges_match_zig_on(target: Target) {
    let w = match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    };
    let mut cases: Vec<(String, Option<u64>)> = vec![
        (format!("a = alloc 1\nb = alloc 8 align {w}\nc = alloc 3 align 1\nd = alloc 3 align 2\ne = alloc 1 align {w}\n"), Some(64)),
        ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 1 align 4096\n".into(), Some(8192)),
        ("a = alloc 0\nb = alloc 0 align 4096\nc = alloc 1\nd = realloc c 0\ne = alloc 0\n".into(), Some(16)),
        // Checkpoints at the buffer's start and end.
        ("checkpoint c0\na = alloc 64\ncheckpoint c1\nrestore c1\nrestore c0\nb = alloc 64\n".into(), Some(64)),
    ];
    // Exactly the rest of the buffer after a first block (and after
    // padding for an aligned one), and one byte more: found on the model.
    for (cap, first, align) in [(64, 1, 1), (256, 3, 8), (4096, 1, 4096), (4112, 5, 16)] {
        let fits = |n: u64| {
            let src = format!("a = alloc {first}\nb = alloc {n} align {align}\n");
            let (t, _) = run_model(PRESET, target, Some(cap), &parse_steps(&src)).unwrap();
            !t.ops[1].failed
        };
        let rest = last_true(0, cap, fits);
        for n in [rest, rest + 1] {
            cases.push((
                format!("a = alloc {first}\nb = alloc {n} align {align}\nc = alloc 0\n"),
                Some(cap),
            ));
            // The same by growing the last block in place.
            cases.push((
                format!("a = alloc {first}\nb = alloc 1 align {align}\nc = realloc b {n}\n"),
                Some(cap),
            ));
        }
    }
    // The largest request the target allows: never fits, and never
    // overflows FixedBufferAllocator's checked arithmetic.
    for align in [1, 16, 4096] {
        let big = largest_request(target, align);
        cases.push((
            format!("a = alloc 8\nb = alloc {big} align {align}\nc = alloc 8\n"),
            Some(64),
        ));
    }
    for (src, cap) in &cases {
        both_on(target, src, *cap);
    }
}

#[test]
fn edges_match_zig() {
    edges_match_zig_on(Target::W64);
}

#[test]
fn edges_match_zig_on_wasm32() {
    edges_match_zig_on(Target::Wasm32);
}

/// Every op the allocator has, checkpoints included; buffers small enough
/// to fill up (failed requests are part of what is compared).
const MIX: Mix = Mix {
    weights: [10, 5, 4, 1, 2, 2],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        Some(64),
        Some(256),
        Some(1024),
        Some(8192),
        Some(65536),
    ],
};

/// Random programs compared per target.
const PROGRAMS: u64 = 256;

fn random_programs(target: Target) {
    let base = base_seed();
    let mut cov = Coverage::default();
    let what = format!("zig-fixed-buffer on {target:?}");
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &MIX);
        let steps = runnable(PRESET, target, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let (t, model) = run_model(PRESET, target, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real = real(target, capacity, &steps).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare(&what, seed, capacity, &steps, &model, &real) {
            panic!("{e}");
        }
        cov.record(&t);
    }
    println!("{}", cov.summary(&what));
    cov.require(
        &what,
        &[
            ("a moved realloc", cov.realloc_moved),
            ("an in-place realloc", cov.realloc_in_place),
            ("a shrink", cov.shrinks),
            ("a free of the last block", cov.frees_of_last),
            ("a reset", cov.resets),
            ("a checkpoint", cov.checkpoints),
            ("a restore", cov.restores),
            (
                "a restore that gave bytes back",
                cov.restores_that_reclaimed,
            ),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen buffer size", cov.capacities),
            ("a full buffer (a failed request)", cov.failed),
        ],
    );
    cov.require_shares(
        &what,
        &[
            // A realloc moves only a block that is not the last one, into a
            // buffer that still has room: rarer in a fixed buffer (18 to 24%
            // of programs in runs so far).
            ("moved realloc", 12.0),
            ("in-place realloc", 30.0),
            ("free of the last block", 25.0),
            ("reset", 15.0),
            ("restore", 20.0),
            ("restore that gave bytes back", 10.0),
            ("failed request", 20.0),
        ],
    );
}

#[test]
fn random_programs_match_zig() {
    random_programs(Target::W64);
}

#[test]
fn random_programs_match_zig_on_wasm32() {
    random_programs(Target::Wasm32);
}
