//! The pmr-monotonic preset against libstdc++'s real
//! std::pmr::monotonic_buffer_resource (GCC 12's <memory_resource> and
//! libstdc++.so), built by g++ into a harness (tests/native/pmr_monotonic.cpp)
//! for this machine (64-bit) and with `g++ -m32` (Debian's g++-multilib:
//! the 32-bit libstdc++, four-byte pointers standing in for wasm32's) whose
//! upstream resource records every buffer: cases with the numbers observed
//! there, the edges of every rule, the emulated checkpoints, and random
//! programs compared op by op on both. Both sides take their buffers from
//! the simulated heap's algorithm, so every address agrees, at every
//! alignment.
//!
//! The resource has no checkpoints: the playground's emulation gives the
//! buffers made since back upstream and puts the current position, the
//! bytes left and the next buffer's size back, which leaves the resource
//! exactly as it was at the checkpoint. So a program with restores is
//! compared with libstdc++ running the ops each restore leaves in effect
//! (`arena_diff::compare_undone`).

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::Mutex;

use arena_diff::{
    base_seed, compare_undone, largest_request, last_true, model_or_stop, parse_steps, program,
    program_text, repeated, run_model, seed_of, Coverage, Mix, Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::pmr_monotonic as model;
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::PmrMonotonic;

/// The harness for `target`, built once per test binary and shared.
fn harness(target: Target) -> &'static Mutex<Harness> {
    static HARNESSES: native::PerTarget = native::PerTarget::new();
    HARNESSES.get(target, || {
        let mut flags = vec!["-std=c++17".to_string()];
        flags.extend(native::cxx_target_flags(target));
        let name = match target {
            Target::W64 => "pmr_monotonic",
            Target::Wasm32 => "pmr_monotonic-m32",
        };
        let bin = native::build_cxx(name, "pmr_monotonic.cpp", &flags, &[]);
        Harness::spawn(name, &bin)
    })
}

fn real(
    target: Target,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness(target).lock().unwrap_or_else(|e| e.into_inner());
    let raw = h.run(capacity, steps)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on libstdc++ on `target`, asserts they
/// agree op by op (through the emulation's definition when it has
/// checkpoints), and returns the model's trace.
fn both_on(target: Target, src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, target, capacity, &steps).unwrap();
    let what = format!("pmr-monotonic on {target:?}");
    compare_undone(&what, 0, capacity, &steps, &model, |s| {
        real(target, capacity, s)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    t
}

/// [`both_on`] on both targets; the 64-bit trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    both_on(Target::Wasm32, src, capacity);
    both_on(Target::W64, src, capacity)
}

fn sizes(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.size).collect()
}

#[test]
fn the_first_buffer_holds_1024_bytes_and_its_record() {
    let t = both("a = alloc 8 align 8\nb = alloc 8\n", None);
    let c = &t.chunks[0];
    // 1024 + the 16-byte record, rounded up to 64; the record at the end.
    assert_eq!(
        (c.size, c.capacity, c.header, c.footer),
        (1088, 1072, 0, 16)
    );
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!((t.ops[0].offset, t.ops[1].offset), (Some(0), Some(8)));
    // A 32-bit libstdc++: 128 four-byte pointers and an 8-byte record.
    let t = both_on(Target::Wasm32, "a = alloc 8\n", None);
    assert_eq!((t.chunks[0].size, t.chunks[0].capacity), (576, 568));
}

#[test]
fn buffers_grow_by_half() {
    // One, one, two, three 1000-byte blocks, then a fifth buffer.
    let t = both(&repeated("1000", 8), None);
    // 1024, 1536, 2304, 3456, 5184 bytes, each + 16 rounded up to 64.
    assert_eq!(sizes(&t), [1088, 1600, 2368, 3520, 5248]);
    // A first request larger than 1024 sizes the first buffer.
    let t = both(&repeated("1500", 2), None);
    assert_eq!(sizes(&t), [1536, 1600]);
    // A request larger than the next size gets its own size, and the
    // growth goes on from the next size, not from it.
    let t = both(
        "a = alloc 8\nb = alloc 10000 align 64\nc = alloc 2000\n",
        None,
    );
    assert_eq!(sizes(&t), [1088, 10048, 2368]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Oversized);
    assert_eq!(t.chunks[1].base % 64, 0);
    // The initial size is the Capacity knob.
    let t = both("a = alloc 1\nb = alloc 200\nc = alloc 300\n", Some(96));
    assert_eq!(sizes(&t), [128, 256, 320]);
}

#[test]
fn the_next_size_grows_in_float() {
    // Observed on libstdc++ 12: an initial size of 2^28 + 16 is followed by
    // 402653184, not 402653208: 2^28 + 16 is not a float.
    let t = run(
        "a = alloc 1\n",
        PRESET,
        &Options {
            capacity: Some((1 << 28) + 16),
            ..Options::default()
        },
    )
    .unwrap();
    let grow = t.ops[0]
        .events
        .iter()
        .flat_map(|e| &e.steps)
        .find(|s| s.id == "grow")
        .expect("a grow step");
    let grown = grow
        .values
        .iter()
        .find(|v| v.name == "grown")
        .unwrap()
        .value;
    assert_eq!(grown, 402_653_184);
}

#[test]
fn a_request_that_does_not_fit_abandons_the_rest_of_the_buffer() {
    let t = both("a = alloc 1000\nb = alloc 100\nc = alloc 50\n", None);
    // 72 bytes were left in the first buffer; b needed 100: a new buffer,
    // and c goes after b, not into those 72 bytes.
    assert_eq!((t.ops[1].chunk, t.ops[1].offset), (Some(1), Some(0)));
    assert_eq!((t.ops[2].chunk, t.ops[2].offset), (Some(1), Some(100)));
    assert!(t.ops[1]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("abandoned")));
    assert_eq!(t.ops[2].stats.unused, 72 + 1600 - 16 - 150);
}

/// What op `i` of `t` says, of events of `kind`.
fn said(t: &Trace, i: usize, kind: EventKind) -> Vec<&str> {
    t.ops[i]
        .events
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.text.as_str())
        .collect()
}

#[test]
fn only_a_request_above_the_next_size_is_oversized_and_only_leftover_bytes_are_abandoned() {
    // a fills the first buffer's 1072 bytes exactly: b's new buffer
    // abandons nothing. b asks exactly the next size, 1536: an ordinary
    // new buffer (1536 + 16 rounded up to 64). c asks one byte more than
    // the next size, 2304: a buffer sized for it, and 48 bytes abandoned.
    let t = both("a = alloc 1072\nb = alloc 1536\nc = alloc 2305\n", None);
    assert_eq!(sizes(&t), [1088, 1600, 2368]);
    let reasons: Vec<_> = t.chunks.iter().map(|c| c.reason).collect();
    assert_eq!(
        reasons,
        [
            ChunkReason::First,
            ChunkReason::Full,
            ChunkReason::Oversized
        ]
    );
    let abandoned = |i: usize| {
        said(&t, i, EventKind::Note)
            .iter()
            .any(|n| n.contains("abandoned"))
    };
    assert!(!abandoned(1));
    assert!(abandoned(2));
    assert_eq!(t.ops[2].stats.unused, 1584 - 1536 + 2352 - 2305);
}

#[test]
fn a_restore_says_the_saved_buffer_is_current_again_only_when_a_newer_one_went() {
    // c0: nothing made since but a block in the same buffer. c1: a new
    // buffer since, which the restore gives back.
    let t = both(
        "a = alloc 8\ncheckpoint c0\nb = alloc 8\nrestore c0\ncheckpoint c1\nc = alloc 2000\nrestore c1\nd = alloc 8\n",
        None,
    );
    assert_eq!(sizes(&t), [1088, 2048]);
    assert_eq!(t.chunks[1].freed_by, Some(6));
    assert_eq!(said(&t, 3, EventKind::ChunkReused), Vec::<&str>::new());
    assert_eq!(
        said(&t, 6, EventKind::ChunkReused),
        ["chunk 0, kept from before, is current again"]
    );
    assert_eq!((t.ops[7].chunk, t.ops[7].offset), (Some(0), Some(8)));
}

#[test]
fn a_zero_sized_request_takes_a_byte() {
    let t = both("a = alloc 0\nb = alloc 0\nc = alloc 1\n", None);
    assert_eq!(
        (t.ops[0].offset, t.ops[1].offset, t.ops[2].offset),
        (Some(0), Some(1), Some(2))
    );
}

#[test]
fn release_gives_every_buffer_back_and_starts_over() {
    let t = both(
        &format!(
            "{}reset\ny = alloc 8\nz = alloc 2000\n",
            repeated("1500", 4)
        ),
        None,
    );
    assert_eq!(t.ops[4].stats.chunks, 0);
    assert_eq!(t.ops[4].bump_ptr, None);
    // The sizes start over from 1024: then 1536, less than z's 2000.
    assert_eq!(sizes(&t)[4..], [1088, 2048]);
}

#[test]
fn deallocate_and_realloc_give_nothing_back() {
    let t = both(
        "a = alloc 64\nb = realloc a 128\nfree b\nc = alloc 8\n",
        None,
    );
    assert_eq!((t.ops[1].moved, t.ops[1].offset), (Some(true), Some(64)));
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!(t.ops[3].offset, Some(192));
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::PmrMonotonic);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
}

// ---------------------------------------------------------------------------
// The emulated checkpoint.

#[test]
fn restore_gives_the_buffers_made_since_back_and_the_sizes_start_where_they_were() {
    let t = both(
        "a = alloc 1000\ncheckpoint c0\nb = alloc 100\nc = alloc 2000\nrestore c0\nd = alloc 60\ne = alloc 100\n",
        None,
    );
    // b opened a second buffer (1600), c a third (2368).
    assert_eq!(sizes(&t)[..3], [1088, 1600, 2368]);
    assert!(t.chunks[1..3].iter().all(|c| c.freed_by == Some(4)));
    // Back in the first buffer: d takes 60 of the 72 bytes left, at 1000.
    assert_eq!(t.ops[4].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!((t.ops[5].chunk, t.ops[5].offset), (Some(0), Some(1000)));
    // And the next buffer is 1600 again, not the 3520 that came next.
    assert_eq!(t.chunks[3].size, 1600);
    assert_eq!(t.ops[6].chunk, Some(3));
    assert!(t.ops[4]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("playground's emulation")));
}

#[test]
fn a_restore_to_before_the_first_buffer_gives_every_buffer_back() {
    let t = both(
        "checkpoint c0\na = alloc 8\nb = alloc 9000\nrestore c0\nc = alloc 8\n",
        None,
    );
    assert_eq!(t.ops[3].stats.chunks, 0);
    assert_eq!(t.ops[3].bump_ptr, None);
    assert_eq!(t.chunks[2].size, 1088);
}

// ---------------------------------------------------------------------------
// The edges of every rule, each compared with libstdc++.

fn edges_match_libstdcxx_on(target: Target) {
    let w = match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    };
    let first_size = |n: u64, cap: Option<u64>| -> u64 {
        let (t, _) = run_model(
            PRESET,
            target,
            cap,
            &parse_steps(&format!("a = alloc {n}\n")),
        )
        .unwrap();
        t.chunks[0].size
    };
    let mut cases: Vec<(String, Option<u64>)> = vec![
        // The word, and 1 and 2 (the resource has no minimum alignment).
        (format!("a = alloc 1\nb = alloc 8 align {w}\nc = alloc 3 align 1\nd = alloc 3 align 2\ne = alloc 1 align {w}\n"), None),
        // A page's alignment in the current buffer and in a new one.
        ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 3000 align 4096\nd = alloc 1\n".into(), None),
        // Size 0 takes a byte, first and later.
        ("a = alloc 0\nb = alloc 0 align 4096\nc = alloc 1\nd = alloc 0 align 16\ne = realloc c 0\n".into(), None),
    ];
    // A request that exactly fills the buffer after a first block (and
    // after padding), and one byte more.
    for (cap, first, align) in [
        (None, 1, 1),
        (None, 3, 64),
        (Some(16), 1, 8),
        (Some(4096), 100, 4096),
    ] {
        let fits = |n: u64| {
            let src = format!("a = alloc {first}\nb = alloc {n} align {align}\n");
            let (t, _) = run_model(PRESET, target, cap, &parse_steps(&src)).unwrap();
            t.chunks.len() == 1
        };
        let rest = last_true(0, 1 << 20, fits);
        for n in [rest, rest + 1] {
            cases.push((
                format!("a = alloc {first}\nb = alloc {n} align {align}\nc = alloc 1\n"),
                cap,
            ));
        }
    }
    // The buffer's size at each 64-byte rounding step and at the
    // initial size: the largest first request that keeps it, and one
    // more; and the growth from there.
    for cap in [None, Some(16), Some(1008)] {
        let size = first_size(1, cap);
        for bound in [size, size + 64] {
            let n = last_true(1, 1 << 20, |n| first_size(n, cap) <= bound);
            for n in [n, n + 1] {
                cases.push((format!("a = alloc {n}\nb = alloc {n}\nc = alloc 1\n"), cap));
            }
        }
    }
    for (src, cap) in &cases {
        both_on(target, src, *cap);
    }
}

#[test]
fn edges_match_libstdcxx() {
    edges_match_libstdcxx_on(Target::W64);
}

#[test]
fn edges_match_libstdcxx_on_wasm32() {
    edges_match_libstdcxx_on(Target::Wasm32);
}

fn the_largest_request_the_target_allows_on(target: Target) {
    for align in [1, 4096] {
        let big = largest_request(target, align);
        let src = format!("a = alloc 8\nb = alloc {big} align {align}\nc = alloc 8\n");
        let steps = parse_steps(&src);
        let model = model_or_stop(PRESET, target, None, None, &steps);
        let real = harness(target)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .run_partly(None, &steps);
        match (model, real) {
            (Ok(_), Ok(_)) => {
                both_on(target, &src, None);
            }
            // No room upstream on the model; the upstream resource
            // refuses (the harness's says so and stops).
            (Err((k, why)), Err((ops, err))) => {
                assert!(why.contains("no room"), "{target:?}: {why}");
                assert!(err.contains("out of room"), "{target:?}: {err}");
                assert_eq!((k, ops.len()), (1, 1), "{target:?}");
                both_on(target, &program_text(&steps[..1]), None);
            }
            (m, r) => panic!(
                "{target:?} align {align}: model {:?}, real {:?}",
                m.map(|_| ()),
                r.map(|_| ())
            ),
        }
    }
}

#[test]
fn the_largest_request_the_target_allows() {
    the_largest_request_the_target_allows_on(Target::W64);
}

#[test]
fn the_largest_request_the_target_allows_on_wasm32() {
    the_largest_request_the_target_allows_on(Target::Wasm32);
}

/// Programs of every kind the resource has: allocate (and a container's
/// realloc), deallocate, release, and the emulated checkpoints; sizes past
/// the next buffer size;
/// alignments up to a page; initial sizes chosen at random.
const MIX: Mix = Mix {
    weights: [10, 3, 3, 1, 2, 2],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000), (1, 5001, 40000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        Some(16),
        Some(64),
        Some(256),
        Some(1024),
        Some(4096),
        Some(20000),
    ],
};

/// Random programs compared per run and target.
const PROGRAMS: u64 = 288;

fn random_programs(target: Target) {
    let base = base_seed();
    let mut cov = Coverage::default();
    let what = format!("pmr-monotonic on {target:?}");
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &MIX);
        let (t, model) = run_model(PRESET, target, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare_undone(&what, seed, capacity, &steps, &model, |s| {
            real(target, capacity, s)
        }) {
            panic!("{e}");
        }
        cov.record(&t);
        let abandoned = t
            .ops
            .iter()
            .filter(|o| {
                o.events
                    .iter()
                    .any(|e| e.kind == EventKind::Note && e.text.contains("abandoned"))
            })
            .count() as u64;
        cov.add_to("abandoned tails", abandoned);
    }
    println!("{}", cov.summary(&what));
    cov.require(
        &what,
        &[
            ("a new buffer", cov.new_chunks),
            ("an oversized request", cov.oversized),
            ("a realloc (a move: no realloc in pmr)", cov.realloc_moved),
            ("a shrink", cov.shrinks),
            ("a free of the last block", cov.frees_of_last),
            ("a release", cov.resets),
            (
                "a restore that gave bytes back",
                cov.restores_that_reclaimed,
            ),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen initial size", cov.capacities),
            ("an abandoned tail", cov.get("abandoned tails")),
        ],
    );
    cov.require_shares(
        &what,
        &[
            ("new chunk", 40.0),
            ("oversized", 15.0),
            ("moved realloc", 30.0),
            ("free of the last block", 25.0),
            ("reset", 15.0),
            ("restore", 20.0),
            ("restore that gave bytes back", 10.0),
        ],
    );
}

#[test]
fn random_programs_match_libstdcxx() {
    random_programs(Target::W64);
}

#[test]
fn random_programs_match_libstdcxx_on_wasm32() {
    random_programs(Target::Wasm32);
}
