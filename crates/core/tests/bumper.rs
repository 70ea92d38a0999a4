//! Bumper.jl's AllocBuffer and SlabBuffer (seed 001): no alignment, the
//! full-buffer error, slabs and custom slabs, and the slab-boundary pitfall.

mod seed_presets_support;

use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::trace::{EventKind, Op};
use bumplab_core::{run, Options, PresetId, Target, Trace};
use proptest::prelude::*;
use seed_presets_support::{act, build_and_run, check_invariants};

const BUF: PresetId = PresetId::BumperAllocBuffer;
const SLAB: PresetId = PresetId::BumperSlab;

fn trace_on(src: &str, preset: PresetId, capacity: Option<u64>, target: Target) -> Trace {
    let opts = Options {
        target,
        capacity,
        min_align: None,
        child: None,
    };
    run(src, preset, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn trace(src: &str, preset: PresetId, capacity: u64) -> Trace {
    trace_on(src, preset, Some(capacity), Target::W64)
}

fn has_note(op: &Op, words: &str) -> bool {
    op.events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains(words))
}

fn has_event(op: &Op, kind: EventKind) -> bool {
    op.events.iter().any(|e| e.kind == kind)
}

#[test]
fn defaults_are_one_mebibyte_without_metadata() {
    for preset in [BUF, SLAB] {
        let t = trace_on("a = alloc 8\n", preset, None, Target::W64);
        let c = &t.chunks[0];
        assert_eq!(
            (c.capacity, c.size, c.header, c.footer),
            (1_048_576, 1_048_576, 0, 0)
        );
        assert_eq!(c.reason, ChunkReason::First);
        assert_eq!(c.created_by, None, "made by the constructor");
        assert_eq!(c.start, HEAP_BASE + MALLOC_HEADER);
        assert_eq!(t.ops[0].stats.metadata, 0);
    }
}

#[test]
fn blocks_follow_each_other_without_alignment() {
    for preset in [BUF, SLAB] {
        let t = trace(
            "a = alloc 3\nb = alloc u64\nc = alloc u128\nd = alloc 1\n",
            preset,
            256,
        );
        let offs: Vec<_> = t.ops.iter().map(|o| o.offset.unwrap()).collect();
        assert_eq!(offs, vec![0, 3, 11, 27], "{preset:?}");
        assert!(t.ops.iter().all(|o| o.padding == Some(0)));
        // The u64 at offset 3 and the u128 at 11 are misaligned: noted.
        assert!(!has_note(&t.ops[0], "does not align"));
        assert!(has_note(&t.ops[1], "does not align"));
        assert!(has_note(&t.ops[2], "does not align"));
        assert!(
            !has_note(&t.ops[3], "does not align"),
            "align 1 is always met"
        );
        assert_eq!(t.ops[3].bump_ptr, Some(t.chunks[0].start + 28));
    }
}

#[test]
fn alloc_buffer_full_errors_and_stays_overfilled() {
    let t = trace(
        "a = alloc 200\ncheckpoint s\nb = alloc 100\nc = alloc 8\nrestore s\nd = alloc 56\ne = alloc 1\nreset\nf = alloc 8\n",
        BUF,
        256,
    );
    let start = t.chunks[0].start;
    assert!(!t.ops[0].failed);
    // 200 + 100 > 256: Bumper throws.
    assert!(t.ops[2].failed);
    assert!(has_event(&t.ops[2], EventKind::OutOfMemory));
    assert!(has_event(&t.ops[2], EventKind::NoRoom));
    assert!(has_note(&t.ops[2], "stays past the end"));
    // The offset moved to 300 before the check: even 8 bytes fail now.
    assert!(t.ops[3].failed);
    // What is in use stops at the buffer's end.
    assert_eq!(t.ops[3].stats.used, 256);
    assert_eq!(t.ops[3].bump_ptr, Some(start + 256));
    // Restoring the checkpoint puts the offset back to 200: 56 bytes fill it exactly.
    assert_eq!(t.ops[5].offset, Some(200));
    assert!(t.ops[6].failed);
    // reset_buffer! sets the offset to 0.
    assert_eq!(t.ops[8].offset, Some(0));
    assert_eq!(t.ops[8].address, Some(start));
    assert_eq!(t.chunks.len(), 1, "an AllocBuffer never grows");
}

#[test]
fn huge_failed_requests_never_wrap_the_offset_around() {
    // Two failed requests of isize::MAX take a 32-bit offset to 0xfffffffe;
    // 10 more would wrap it to 8 and hand out bytes before the buffer. The
    // buffer keeps failing instead.
    let t = trace_on(
        "a = alloc 0x7fffffff\nb = alloc 0x7fffffff\nc = alloc 10\nd = alloc 1\nreset\ne = alloc 1\n",
        BUF,
        Some(256),
        Target::Wasm32,
    );
    assert!(t.ops[..4].iter().all(|o| o.failed));
    assert_eq!(t.ops[5].offset, Some(0));
}

#[test]
fn free_reclaims_nothing_and_realloc_copies() {
    for preset in [BUF, SLAB] {
        let t = trace(
            "a = alloc 16\nb = alloc 8\nfree b\nc = realloc a 32\n",
            preset,
            256,
        );
        assert!(has_note(&t.ops[2], "no free"));
        assert_eq!(
            t.ops[2].stats.used, 24,
            "{preset:?}: the freed bytes stay in use"
        );
        let r = &t.ops[3];
        assert!(has_note(r, "no realloc"));
        assert_eq!(r.moved, Some(true));
        assert_eq!(r.offset, Some(24));
        assert!(r
            .events
            .iter()
            .any(|e| e.kind == EventKind::Copied && e.text.starts_with("16 bytes")));
        assert_eq!(r.stats.copied, 16);
    }
}

#[test]
fn slab_buffer_adds_slabs_and_custom_slabs() {
    // Slabs of 256 bytes; half a slab is 128.
    let t = trace(
        "a = alloc 200\nb = alloc 60\nc = alloc 128\nd = alloc 128\ne = alloc 8\nf = alloc 300\ng = alloc 127\n",
        SLAB,
        256,
    );
    let ch = |i: usize| &t.chunks[i];
    let at = |i: usize| (t.ops[i].chunk.unwrap(), t.ops[i].offset.unwrap());
    assert_eq!(at(0), (0, 0));
    // 200 + 60 > 256 and 60 < 128: a fresh slab.
    assert_eq!(at(1), (1, 0));
    assert_eq!(
        (ch(1).reason, ch(1).capacity, ch(1).requested),
        (ChunkReason::Slab, 256, 60)
    );
    // 60 + 128 fits: a half-slab request stays in the slab when it fits.
    assert_eq!(at(2), (1, 60));
    // 188 + 128 > 256 and 128 >= 128: a custom slab of exactly 128 bytes.
    assert_eq!(at(3), (2, 0));
    assert_eq!(
        (ch(2).reason, ch(2).capacity),
        (ChunkReason::CustomSlab, 128)
    );
    // The current slab stays current after a custom slab.
    assert_eq!(at(4), (1, 188));
    assert_eq!(t.ops[4].bump_ptr, Some(ch(1).start + 196));
    // Larger than a slab: a custom slab too.
    assert_eq!(at(5), (3, 0));
    assert_eq!(
        (ch(3).reason, ch(3).capacity),
        (ChunkReason::CustomSlab, 300)
    );
    // 196 + 127 > 256 and 127 < 128: another slab.
    assert_eq!(at(6), (4, 0));
    assert_eq!(ch(4).reason, ChunkReason::Slab);
    assert_eq!(t.ops[6].stats.chunks, 5);
    // Slab 0 stopped at 200 and slab 1 at 196: those bytes count as used.
    assert_eq!(t.ops[6].stats.used, 200 + 196 + 128 + 300 + 127);
}

#[test]
fn a_request_that_exactly_fills_the_slab_stays_in_it() {
    // 200 + 56 == 256: `current + size > slab_end` is false, the block
    // ends on the slab's last byte. One byte more takes a fresh slab.
    let t = trace("a = alloc 200\nb = alloc 56\nc = alloc 1\n", SLAB, 256);
    let at = |i: usize| (t.ops[i].chunk.unwrap(), t.ops[i].offset.unwrap());
    assert_eq!((at(1), at(2)), ((0, 200), (1, 0)));
    assert_eq!(t.ops[1].bump_ptr, Some(t.chunks[0].start + 256));
    let t = trace("a = alloc 200\nb = alloc 57\n", SLAB, 256);
    assert_eq!(t.ops[1].chunk, Some(1));
}

#[test]
fn a_wasm32_end_past_4_gib_is_past_the_slab_not_wrapped() {
    // wasm32, 256-byte slabs: a custom slab of 2 GiB - 64 KiB first, so the
    // slab c opens lies above 2^31 (at 0x80000130); from c's end, the
    // largest request ends past 2^32. Julia's unchecked add would wrap to
    // a small address, below the slab's end, and hand out bytes no slab
    // owns; the model counts the end as past the slab, so the request gets
    // a custom slab of its own, for which the 4 GiB heap has no room.
    let big = (1u64 << 31) - (1 << 16);
    let largest = (1u64 << 31) - 1;
    let prefix = format!("a = alloc {big}\nb = alloc 200\nc = alloc 100\n");
    let t = trace_on(&prefix, SLAB, Some(256), Target::Wasm32);
    assert_eq!(t.chunks[2].start, 0x8000_0130);
    assert_eq!(t.ops[2].bump_ptr, Some(0x8000_0130 + 100));
    let opts = Options {
        target: Target::Wasm32,
        capacity: Some(256),
        min_align: None,
        child: None,
    };
    let e = run(&format!("{prefix}d = alloc {largest}\n"), SLAB, &opts).unwrap_err();
    assert_eq!((e.line, e.column), (4, 1));
    assert!(e.message.contains("no room"), "{}", e.message);
}

#[test]
fn a_restore_past_a_custom_slab_alone_frees_it_and_no_slab_is_current_again() {
    // b: 300 >= 128, a custom slab; c: 200 + 20 fits the first slab. No
    // slab was made since the checkpoint, only the custom slab: the restore
    // frees it, and the first slab never stopped being current.
    let t = trace(
        "a = alloc 200\ncheckpoint s\nb = alloc 300\nc = alloc 20\nrestore s\nd = alloc 8\n",
        SLAB,
        256,
    );
    assert_eq!(t.ops[2].chunk, Some(1));
    assert_eq!(t.chunks[1].reason, ChunkReason::CustomSlab);
    assert_eq!((t.ops[3].chunk, t.ops[3].offset), (Some(0), Some(200)));
    assert_eq!(t.chunks[1].freed_by, Some(4));
    let reused = |t: &Trace, i: usize| -> Vec<String> {
        t.ops[i]
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ChunkReused)
            .map(|e| e.text.clone())
            .collect()
    };
    assert_eq!(reused(&t, 4), Vec::<String>::new());
    assert_eq!(t.ops[4].bump_ptr, Some(t.chunks[0].start + 200));
    assert_eq!((t.ops[5].chunk, t.ops[5].offset), (Some(0), Some(200)));
    // A slab made since (200 + 100 > 256, 100 < 128): freed, and the first
    // slab is current again.
    let t = trace(
        "a = alloc 200\ncheckpoint s\nb = alloc 100\nrestore s\n",
        SLAB,
        256,
    );
    assert_eq!(t.chunks[1].freed_by, Some(3));
    assert_eq!(
        reused(&t, 3),
        ["chunk 0, kept from before, is current again"]
    );
}

#[test]
fn restore_frees_what_was_added_since_the_checkpoint() {
    let t = trace(
        "a = alloc 200\ncheckpoint s\nb = alloc 100\nc = alloc 300\nd = alloc 100\nrestore s\ne = alloc 50\n",
        SLAB,
        256,
    );
    // b: new slab 1; c: custom slab 2; d: 100 + 100 fits in slab 1.
    assert_eq!(t.ops[2].chunk, Some(1));
    assert_eq!(t.ops[3].chunk, Some(2));
    assert_eq!((t.ops[4].chunk, t.ops[4].offset), (Some(1), Some(100)));
    let restore = &t.ops[5];
    assert_eq!(t.chunks[1].freed_by, Some(5));
    assert_eq!(t.chunks[2].freed_by, Some(5));
    assert_eq!(t.chunks[0].freed_by, None);
    assert_eq!(restore.reclaimed.len(), 3);
    assert!(has_event(restore, EventKind::ChunkReused));
    assert_eq!(restore.bump_ptr, Some(t.chunks[0].start + 200));
    assert_eq!(restore.stats.chunks, 1);
    // 200 + 50 fits in the first slab again.
    assert_eq!((t.ops[6].chunk, t.ops[6].offset), (Some(0), Some(200)));
}

#[test]
fn the_slab_boundary_pitfall_makes_and_frees_a_slab_every_pass() {
    // As in the README: two blocks of N/2 - 1 leave the slab with 2 bytes,
    // then a scope allocates 10 bytes on every pass.
    for target in [Target::W64, Target::Wasm32] {
        let t = trace_on(
            "a = alloc 127\nb = alloc 127\nrepeat 3 {\n  checkpoint s\n  y = alloc 10\n  restore s\n}\n",
            SLAB,
            Some(256),
            target,
        );
        assert_eq!(t.ops.len(), 11);
        assert_eq!(t.chunks.len(), 4);
        let first = t.chunks[1].start;
        for pass in 0..3u32 {
            let (alloc, restore) = (3 + 3 * pass, 4 + 3 * pass);
            let c = &t.chunks[1 + pass as usize];
            assert_eq!(c.id, 1 + pass);
            assert_eq!(c.reason, ChunkReason::Slab);
            assert_eq!(c.capacity, 256);
            assert_eq!(c.created_by, Some(alloc));
            assert_eq!(c.freed_by, Some(restore));
            assert_eq!(c.start, first, "malloc hands the same bytes back");
            assert_eq!(t.ops[alloc as usize].chunk, Some(c.id));
            assert_eq!(t.ops[alloc as usize].address, Some(first));
            let r = &t.ops[restore as usize];
            assert_eq!(r.reclaimed, vec![alloc]);
            assert_eq!(r.bump_ptr, Some(t.chunks[0].start + 254));
            assert_eq!(r.stats.chunks, 1);
        }
    }
}

#[test]
fn reset_keeps_only_the_first_slab() {
    let t = trace(
        "a = alloc 200\nb = alloc 100\nc = alloc 400\nd = alloc 100\nreset\ne = alloc 8\n",
        SLAB,
        256,
    );
    assert_eq!(t.chunks.len(), 3);
    let reset = &t.ops[4];
    assert_eq!(t.chunks[1].freed_by, Some(4));
    assert_eq!(t.chunks[2].freed_by, Some(4));
    assert_eq!(t.chunks[0].freed_by, None);
    assert_eq!(reset.reclaimed.len(), 4);
    assert_eq!(reset.stats.chunks, 1);
    assert_eq!(reset.stats.used, 0);
    assert!(has_event(reset, EventKind::ChunkReused));
    assert_eq!(t.ops[5].address, Some(t.chunks[0].start));
}

fn check(
    preset: PresetId,
    acts: &[seed_presets_support::Act],
    wasm: bool,
) -> Result<(), TestCaseError> {
    let target = if wasm { Target::Wasm32 } else { Target::W64 };
    let opts = Options {
        target,
        capacity: Some(256),
        min_align: None,
        child: None,
    };
    let (src, t) = build_and_run(acts, preset, &opts);
    check_invariants(&t, false, 1)
        .map_err(|e| TestCaseError::fail(format!("{preset:?}: {e}\n{src}")))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// 64 random programs of up to 40 ops on each buffer (256-byte buffer
    /// and slabs, sizes up to 300 so custom slabs and overflows happen).
    #[test]
    fn random_programs_keep_the_invariants(
        acts in prop::collection::vec(act(300, 4), 1..40),
        wasm in any::<bool>(),
    ) {
        check(BUF, &acts, wasm)?;
        check(SLAB, &acts, wasm)?;
    }
}
