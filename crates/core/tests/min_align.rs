//! Bump up and bump down with a minimum alignment (seed 000, "Alignment"):
//! placements, the alignment work that disappears at or below MIN_ALIGN,
//! and the size rounding that keeps the pointer aligned.

mod seed_presets_support;

use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::trace::{EventKind, Op};
use bumplab_core::{run, Options, PresetId, Target, Trace};
use proptest::prelude::*;
use seed_presets_support::{act, build_and_run, check_invariants};

const UP: PresetId = PresetId::UpMinAlign;
const DOWN: PresetId = PresetId::DownMinAlign;
const ALL_MIN_ALIGNS: [u64; 13] = [8, 1, 2, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096];

fn trace_with(src: &str, preset: PresetId, min_align: u64, target: Target) -> Trace {
    let opts = Options {
        target,
        capacity: None,
        min_align: Some(min_align),
        child: None,
    };
    run(src, preset, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn trace(src: &str, preset: PresetId, min_align: u64) -> Trace {
    trace_with(src, preset, min_align, Target::W64)
}

fn offsets(t: &Trace) -> Vec<u64> {
    t.ops.iter().map(|o| o.offset.unwrap()).collect()
}

/// Step ids of the op's recorded micro-steps, in order.
fn step_ids(op: &Op) -> Vec<String> {
    op.events
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.id.clone()))
        .collect()
}

/// The seed's four benchmark types: u8, u64, u128 and a byte slice.
const SEED_TYPES: &str =
    "a = alloc u8\nb = alloc u64\nc = alloc u8\nd = alloc u128\ne = alloc [u8; 5]\nf = alloc u64\n";

#[test]
fn presets_are_registered_with_word_alignment_first() {
    for p in [UP, DOWN] {
        assert_eq!(p.min_aligns(), &ALL_MIN_ALIGNS);
        assert_eq!(PresetId::parse(p.name()), Some(p));
    }
    assert_eq!(UP.name(), "up-min-align");
    assert_eq!(DOWN.name(), "down-min-align");
    // Without a setting the engine uses 8, the seed's word alignment.
    let t = run("a = alloc u8\nb = alloc u8\n", UP, &Options::default()).unwrap();
    assert_eq!(offsets(&t), vec![0, 8]);
    let e = run(
        "a = alloc 1\n",
        UP,
        &Options {
            min_align: Some(3),
            ..Options::default()
        },
    )
    .unwrap_err();
    assert!(
        e.message.contains("minimum alignment 3 is not allowed"),
        "{e}"
    );
}

#[test]
fn bump_up_places_the_seed_types() {
    // MIN_ALIGN 8: every size rounds up to 8; only u128 needs padding
    // (ptr 24 -> 32); the 5-byte slice ends at 53 but the pointer goes to 56.
    let t = trace(SEED_TYPES, UP, 8);
    assert_eq!(offsets(&t), vec![0, 8, 16, 32, 48, 56]);
    assert_eq!(t.ops[5].bump_ptr, Some(t.chunks[0].start + 64));
    // The gap before d: 7 bytes rounding c, then 8 of alignment padding.
    assert_eq!(t.ops[3].padding, Some(15));
    // MIN_ALIGN 16: everything takes 16 bytes and nothing needs padding.
    let t = trace(SEED_TYPES, UP, 16);
    assert_eq!(offsets(&t), vec![0, 16, 32, 48, 64, 80]);
    assert_eq!(t.ops[5].bump_ptr, Some(t.chunks[0].start + 96));
}

#[test]
fn bump_down_places_the_seed_types() {
    // The chunk holds 256 bytes; offsets are from its start.
    // MIN_ALIGN 8: 248, 240, 232, then u128: 232-16 = 216 rounded down to 208.
    let t = trace(SEED_TYPES, DOWN, 8);
    assert_eq!(offsets(&t), vec![248, 240, 232, 208, 200, 192]);
    // MIN_ALIGN 16: 16 bytes each, no rounding down needed.
    let t = trace(SEED_TYPES, DOWN, 16);
    assert_eq!(offsets(&t), vec![240, 224, 208, 192, 176, 160]);
    assert_eq!(t.ops[5].bump_ptr, Some(t.chunks[0].start + 160));
}

#[test]
fn no_alignment_step_at_or_below_min_align() {
    for (preset, align_step) in [(UP, "align_offset"), (DOWN, "round_down")] {
        for (min_align, ty, expect_align_step) in [
            (8, "u8", false),
            (8, "u64", false),
            (8, "u128", true),
            (16, "u128", false),
            (1, "u64", true),
            (4096, "u64", false),
        ] {
            let opts = Options {
                capacity: Some(1 << 16),
                min_align: Some(min_align),
                ..Options::default()
            };
            let t = run(&format!("a = alloc u8\nb = alloc {ty}\n"), preset, &opts).unwrap();
            let ids = step_ids(&t.ops[1]);
            assert_eq!(
                ids.iter().any(|s| s == align_step),
                expect_align_step,
                "{preset:?} MIN_ALIGN {min_align} {ty}: {ids:?}"
            );
            assert_eq!(ids.last().map(String::as_str), Some("bump"));
        }
    }
    // The seed's reduced u64 case: one compare and one add going up.
    let t = trace("a = alloc u64\n", UP, 8);
    assert_eq!(
        step_ids(&t.ops[0]),
        vec!["total_size", "check_room:pass", "end_offset", "bump"]
    );
    // Going down keeps the wrap guard: two compares.
    let t = trace("a = alloc u64\n", DOWN, 8);
    assert_eq!(
        step_ids(&t.ops[0]),
        vec![
            "check_wrap:pass",
            "round_size",
            "sub_size",
            "check_start:pass",
            "bump"
        ]
    );
}

#[test]
fn size_rounding_keeps_the_pointer_aligned() {
    let src = "a = alloc 1\nb = alloc 3\nc = alloc 13 align 2\nd = alloc 0\ne = alloc 7 align 32\nf = alloc 1\n";
    for preset in [UP, DOWN] {
        for min_align in ALL_MIN_ALIGNS {
            let opts = Options {
                target: Target::W64,
                capacity: Some(1 << 16),
                min_align: Some(min_align),
                child: None,
            };
            let t = run(src, preset, &opts).unwrap();
            for op in &t.ops {
                assert!(!op.failed);
                let ptr = op.bump_ptr.unwrap();
                assert_eq!(ptr % min_align, 0, "{preset:?} {min_align}: {ptr:#x}");
                let addr = op.address.unwrap();
                assert_eq!(addr % min_align.max(op.align.unwrap()), 0);
            }
            // Each block takes its size rounded up to MIN_ALIGN (e gets at least 32).
            let used = t.ops[5].stats.used;
            let r = |n: u64| n.div_ceil(min_align) * min_align;
            let at_least = r(1) + r(3) + r(13) + r(0) + r(7) + r(1);
            assert!(
                used >= at_least,
                "{preset:?} {min_align}: {used} < {at_least}"
            );
            if min_align >= 32 {
                assert_eq!(used, at_least, "{preset:?} {min_align}");
            }
        }
    }
}

#[test]
fn a_large_min_align_gets_an_aligned_chunk_with_whole_units() {
    // 256 bytes cannot hold a 4096-byte unit: the chunk grows to 4096,
    // aligned to 4096, and a note says so.
    for preset in [UP, DOWN] {
        for target in [Target::W64, Target::Wasm32] {
            let t = trace_with("a = alloc 1\nb = alloc 1\n", preset, 4096, target);
            let c = &t.chunks[0];
            assert_eq!((c.capacity, c.size, c.start % 4096), (4096, 4096, 0));
            assert_eq!(t.ops[0].address, Some(c.start));
            assert!(t.ops[1].failed, "a second 4096-byte unit does not fit");
        }
    }
    // Up to 16 the base allocator's alignment already suffices.
    let t = trace("a = alloc 1\n", UP, 16);
    assert_eq!(t.chunks[0].start, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(t.chunks[0].capacity, 256);
}

#[test]
fn full_chunk_fails_the_capacity_check() {
    for (preset, fail) in [(UP, "check_room:fail"), (DOWN, "check_start:fail")] {
        // 250 bytes round up to 256 and fill the chunk; then nothing fits.
        let t = trace("a = alloc 250\nb = alloc 1\nc = alloc 0\n", preset, 8);
        assert!(!t.ops[0].failed);
        assert!(t.ops[1].failed);
        assert!(step_ids(&t.ops[1]).iter().any(|s| s == fail));
        assert!(t.ops[1].events.iter().any(|e| e.kind == EventKind::NoRoom));
        assert!(!t.ops[2].failed, "a zero-size block still fits");
    }
}

#[test]
fn wasm32_places_the_same_offsets() {
    for preset in [UP, DOWN] {
        for m in [8, 16] {
            let a = trace_with(SEED_TYPES, preset, m, Target::W64);
            let b = trace_with(SEED_TYPES, preset, m, Target::Wasm32);
            assert_eq!(offsets(&a), offsets(&b), "{preset:?} {m}");
        }
    }
}

#[test]
fn reset_and_restore_keep_the_pointer_aligned() {
    for preset in [UP, DOWN] {
        let t = trace(
            "a = alloc 3\ncheckpoint s\nb = alloc 5\nrestore s\nc = alloc 1\nreset\nd = alloc 1\n",
            preset,
            16,
        );
        assert_eq!(t.ops[4].address, t.ops[2].address);
        assert_eq!(t.ops[6].address, t.ops[0].address);
        for op in &t.ops {
            assert_eq!(op.bump_ptr.unwrap() % 16, 0);
        }
    }
}

proptest! {
    // In CI the same cases every run; a developer's run draws new ones.
    #![proptest_config(ProptestConfig {
        cases: 48,
        rng_seed: if std::env::var_os("CI").is_some() {
            proptest::test_runner::RngSeed::Fixed(0x5eed_b00c)
        } else {
            proptest::test_runner::RngSeed::Random
        },
        ..ProptestConfig::default()
    })]

    /// 48 random programs of up to 40 ops per direction, on a random
    /// MIN_ALIGN and target.
    #[test]
    fn random_programs_keep_the_invariants(
        acts in prop::collection::vec(act(200, 8), 1..40),
        m in 0usize..ALL_MIN_ALIGNS.len(),
        wasm in any::<bool>(),
    ) {
        let min_align = ALL_MIN_ALIGNS[m];
        let target = if wasm { Target::Wasm32 } else { Target::W64 };
        for preset in [UP, DOWN] {
            let opts = Options { target, capacity: Some(2048), min_align: Some(min_align), child: None };
            let (src, t) = build_and_run(&acts, preset, &opts);
            if let Err(e) = check_invariants(&t, true, min_align) {
                return Err(TestCaseError::fail(format!("{preset:?} MIN_ALIGN {min_align}: {e}\n{src}")));
            }
            for op in &t.ops {
                prop_assert_eq!(op.bump_ptr.unwrap() % min_align, 0);
            }
        }
    }
}

#[test]
fn bumping_down_a_request_larger_than_the_pointer_fails_without_wrapping() {
    // 1 MiB is more than the bump pointer's address (64 KiB and a little):
    // `ptr < size` stops it before `ptr - size` could wrap to the top of
    // the address space, and the pointer stays at the chunk's end.
    for target in [Target::W64, Target::Wasm32] {
        let t = trace_with("a = alloc 1048576\nb = alloc 8\n", DOWN, 8, target);
        assert!(t.ops[0].failed, "{target:?}");
        assert_eq!(t.ops[1].offset, Some(248), "{target:?}");
    }
    // A request of exactly the pointer's address does not wrap: it passes
    // that guard and fails at the chunk's start (ptr - size is 0).
    let end = HEAP_BASE + MALLOC_HEADER + 256;
    let t = trace(&format!("a = alloc {end}\n"), DOWN, 8);
    assert!(t.ops[0].failed);
    let steps = step_ids(&t.ops[0]);
    assert!(
        steps.contains(&"check_wrap:pass".to_string())
            && steps.last().map(String::as_str) == Some("check_start:fail"),
        "{steps:?}"
    );
}
