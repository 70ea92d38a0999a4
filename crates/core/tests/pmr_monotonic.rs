//! The pmr-monotonic preset against libstdc++'s real
//! std::pmr::monotonic_buffer_resource (GCC 12's <memory_resource> and
//! libstdc++.so), built by g++ into a harness (tests/native/pmr_monotonic.cpp)
//! whose upstream resource records every buffer: cases with the numbers
//! observed there, and random programs compared op by op. Both sides take
//! their buffers from the simulated heap's algorithm, so every address
//! agrees, at every alignment.

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::{Mutex, OnceLock};

use arena_diff::{
    base_seed, compare, parse_steps, program, repeated, run_model, seed_of, Coverage, Mix, Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::pmr_monotonic as model;
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::PmrMonotonic;

/// The harness, built once per test binary and shared by the tests.
fn harness() -> &'static Mutex<Harness> {
    static H: OnceLock<Mutex<Harness>> = OnceLock::new();
    H.get_or_init(|| {
        let flags = vec!["-std=c++17".to_string()];
        let bin = native::build_cxx("pmr_monotonic", "pmr_monotonic.cpp", &flags, &[]);
        Mutex::new(Harness::spawn("pmr_monotonic", &bin))
    })
}

fn real(capacity: Option<u64>, steps: &[Step]) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness().lock().unwrap_or_else(|e| e.into_inner());
    let raw = h.run(capacity, steps)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on libstdc++, asserts they agree op by op,
/// and returns the model's trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, Target::W64, capacity, &steps).unwrap();
    let real = real(capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    compare("pmr-monotonic", 0, capacity, &steps, &model, &real).unwrap_or_else(|e| panic!("{e}"));
    t
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
    let opts = Options {
        target: Target::Wasm32,
        ..Options::default()
    };
    let t = run("a = alloc 8\n", PRESET, &opts).unwrap();
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

/// Programs of every kind the resource has: allocate (and a container's
/// realloc), deallocate, release; sizes past the next buffer size;
/// alignments up to a page; initial sizes chosen at random.
const MIX: Mix = Mix {
    weights: [10, 3, 3, 1, 0, 0],
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

/// Random programs compared per run.
const PROGRAMS: u64 = 320;

#[test]
fn random_programs_match_libstdcxx() {
    let base = base_seed();
    let mut cov = Coverage::default();
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &MIX);
        let (t, model) = run_model(PRESET, Target::W64, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real = real(capacity, &steps).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare("pmr-monotonic", seed, capacity, &steps, &model, &real) {
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
        *cov.extra.entry("abandoned tails").or_default() += abandoned;
    }
    println!(
        "{}",
        cov.summary("libstdc++ 12 monotonic_buffer_resource (64-bit)")
    );
    cov.require(
        "pmr-monotonic",
        &[
            ("a new buffer", cov.new_chunks),
            ("an oversized request", cov.oversized),
            ("a realloc (a move: no realloc in pmr)", cov.realloc_moved),
            ("a shrink", cov.shrinks),
            ("a free", cov.frees),
            ("a release", cov.resets),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen initial size", cov.capacities),
            ("an abandoned tail", cov.get("abandoned tails")),
        ],
    );
    assert!(cov.programs >= 256);
}
