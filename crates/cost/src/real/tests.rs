//! Natively the real crates are 64-bit, so 64-bit traces are compared.

use super::*;
use bumplab_core::{run, Options};

fn real(src: &str, preset: PresetId, target: Target, min_align: u64) -> (Trace, RealRun) {
    let opts = Options {
        target,
        capacity: None,
        min_align: Some(min_align),
        child: None,
    };
    let t = run(src, preset, &opts).unwrap();
    let r = real_run(&t, preset, min_align, None, false).unwrap();
    (t, r)
}

const BUMPALO: &str = "a = alloc 100 align 8\nb = alloc 100 align 8\nb2 = realloc b 150\n\
    free b2\nc = alloc 300 align 8\nd = alloc 500 align 8\nd2 = realloc d 700\n\
    e = alloc 600 align 16\nf = alloc 8 align 8\nfree f\nz = alloc 0\n";

#[test]
fn bumpalo_matches_on_64_bit() {
    for m in [1, 2, 4, 8, 16] {
        let (t, r) = real(BUMPALO, PresetId::Bumpalo, Target::W64, m);
        assert_eq!(r.mismatches, Some(vec![]), "MIN_ALIGN {m}");
        let ops = r.ops.unwrap();
        assert_eq!(ops.len(), t.ops.len());
        let caps: Vec<_> = ops.iter().map(|o| o.chunk_capacity).collect();
        let (a, b, c) = (Some(448), Some(960), Some(1984));
        let want = [a, a, a, None, a, b, b, c, c, None, None];
        assert_eq!(caps, want, "MIN_ALIGN {m}");
        assert!(ops.iter().all(|o| o.cost.is_none()), "not metered");
        assert_eq!(ops[2].moved, Some(true));
        assert_eq!(ops[6].moved, Some(true));
    }
}

#[test]
fn bump_scope_matches_with_checkpoints_on_64_bit() {
    // Sizes are multiples of 16, so the last block stays last at every
    // MIN_ALIGN (bump-scope rounds the bump position, not the block).
    let src = "a = alloc 96 align 8\ncheckpoint s\nb = alloc 304 align 8\n\
        c = alloc 592 align 8\nc2 = realloc c 800\nrestore s\nd = alloc 900 align 8\n\
        e = alloc 1500 align 4\nfree e\nreset\nf = alloc 16 align 16\n";
    for p in [PresetId::BumpScopeUp, PresetId::BumpScopeDown] {
        for m in [1, 2, 4, 8, 16] {
            let (_, r) = real(src, p, Target::W64, m);
            assert_eq!(r.mismatches, Some(vec![]), "{p:?} MIN_ALIGN {m}");
            let ops = r.ops.unwrap();
            let caps: Vec<_> = ops.iter().filter_map(|o| o.chunk_capacity).collect();
            assert_eq!(caps, [464, 464, 976, 976, 976, 2000, 2000], "{p:?} {m}");
        }
    }
}

#[test]
fn a_model_bug_shows_as_a_mismatch() {
    let (mut t, _) = real(BUMPALO, PresetId::Bumpalo, Target::W64, 1);
    t.ops[0].offset = Some(1);
    t.ops[5].chunk = Some(0);
    let r = real_run(&t, PresetId::Bumpalo, 1, None, false).unwrap();
    let got: Vec<_> = r
        .mismatches
        .unwrap()
        .into_iter()
        .map(|m| (m.op, m.field))
        .collect();
    assert_eq!(
        got,
        [(0, "offset"), (5, "chunk"), (5, "chunk_capacity")],
        "capacity follows the model's chunk"
    );
}

#[test]
fn offsets_after_a_block_aligned_above_16_are_not_compared() {
    let src = "a = alloc 8 align 64\nb = alloc 8 align 8\nreset\nc = alloc 8 align 8\n";
    for p in [
        PresetId::Bumpalo,
        PresetId::BumpScopeUp,
        PresetId::BumpScopeDown,
    ] {
        let (mut t, r) = real(src, p, Target::W64, 1);
        assert_eq!(r.mismatches, Some(vec![]), "{p:?}");
        // b's offset inherits a's padding: not compared; after the
        // reset offsets count again.
        for i in [1, 3] {
            t.ops[i].offset = t.ops[i].offset.map(|o| o + 8);
        }
        let r = real_run(&t, p, 1, None, false).unwrap();
        let got: Vec<_> = r
            .mismatches
            .unwrap()
            .iter()
            .map(|m| (m.op, m.field))
            .collect();
        assert_eq!(got, [(3, "offset")], "{p:?}");
    }
}

#[test]
fn bumpalo_skips_checkpoints_and_stops_comparing_after_a_restore() {
    let src = "a = alloc 8\ncheckpoint s\nb = alloc 400\nc = alloc 400\nrestore s\n\
        d = alloc 400\n";
    let (_, r) = real(src, PresetId::Bumpalo, Target::W64, 1);
    let ops = r.ops.unwrap();
    assert!(ops[1].note.as_deref().unwrap().contains("no checkpoints"));
    assert!(ops[4].note.as_deref().unwrap().contains("not compared"));
    // The model freed chunk 1 and made a new one; the real crate kept it.
    assert_eq!(r.mismatches, Some(vec![]));
    assert_eq!((ops[5].chunk, ops[5].chunk_capacity), (Some(1), Some(960)));
}

#[test]
fn other_targets_and_huge_programs_are_refused() {
    let (_, r) = real("a = alloc 8\n", PresetId::Bumpalo, Target::Wasm32, 1);
    assert!(r.unavailable.unwrap().contains("simulates wasm32"));
    assert!(r.ops.is_none());
    let (_, r) = real(
        "a = alloc 0x10000000\n",
        PresetId::BumpScopeUp,
        Target::W64,
        1,
    );
    assert!(r.unavailable.unwrap().contains("limited to 64.0 MiB"));
    let t = run("a = alloc 8\n", PresetId::HinckleyUp, &Options::default()).unwrap();
    assert!(real_run(&t, PresetId::HinckleyUp, 1, None, false).is_none());
}

#[test]
fn the_baseline_frees_what_a_restore_reclaims() {
    let src = "a = alloc 8\ncheckpoint s\nb = alloc 16\nb2 = realloc b 64\nz = alloc 0\n\
        restore s\nfree a\nreset\n";
    let t = run(src, PresetId::BumpScopeUp, &Options::default()).unwrap();
    let b = baseline(&t, false);
    assert_eq!(b.ops.len(), t.ops.len());
    assert!(b.unavailable.is_none());
    let t = run(
        "a = alloc 0x10000000\n",
        PresetId::Bumpalo,
        &Options::default(),
    )
    .unwrap();
    assert!(baseline(&t, false).unavailable.is_some());
}
