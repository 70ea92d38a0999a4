//! The bump-scope presets against bump-scope 2.4.1 itself.
//!
//! The real crate runs natively (64-bit) through its own `Allocator` impl
//! (`allocate`, `grow`, `shrink`, `deallocate`) and `checkpoint`,
//! `reset_to`, `reset`; its chunk list is read with `stats()`. The model runs
//! the same program through `bumplab_core::run`. Offsets are measured from
//! each chunk's first usable byte, so they do not depend on where malloc put
//! the chunk as long as alignments stay at or below 16 (chunks are
//! 16-aligned both in the real heap and in the simulated one); the random
//! programs, which ask for alignments up to a page, give the real crate its
//! chunks from the simulated heap's algorithm, at the model's addresses.

#[path = "common/bump_scope_diff.rs"]
mod bump_scope_diff;
#[path = "common/coverage.rs"]
mod coverage;
#[path = "common/sim_heap.rs"]
mod sim_heap;

use std::alloc::Layout;

use bump_scope::settings::BumpSettings;
use bump_scope_diff::{compare_on_sim_heap, preset, run_real_dyn, trace_seen, AOp, Real};
use bumplab_core::events::ModelEvent;
use bumplab_core::models::bump_scope::{header_size, malloc_overhead};
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, Target, Trace};
use coverage::Coverage;
use proptest::prelude::*;

fn trace_with(src: &str, up: bool, target: Target, min_align: u64) -> Trace {
    let opts = Options {
        target,
        capacity: None,
        min_align: Some(min_align),
        child: None,
    };
    run(src, preset(up), &opts).unwrap_or_else(|e| panic!("{e}\n--- program ---\n{src}"))
}

fn trace(src: &str, up: bool) -> Trace {
    trace_with(src, up, Target::W64, 1)
}

// ---------------------------------------------------------------------------
// Random programs (the harness is in common/bump_scope_diff.rs).

fn size_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![
        6 => 0usize..=64,
        3 => 65usize..=600,
        1 => 601usize..=5000,
    ]
}

fn pick_strategy() -> impl Strategy<Value = usize> {
    prop_oneof![3 => Just(0usize), 1 => 0usize..64]
}

/// Alignments up to a page: the real chunks come from the simulated heap's
/// algorithm, so even where a chunk's address decides the padding (above
/// 16) the real crate and the model place every block alike.
fn align_strategy() -> impl Strategy<Value = usize> {
    prop::sample::select(vec![1usize, 1, 2, 4, 8, 8, 16, 32, 64, 4096])
}

fn op_strategy() -> impl Strategy<Value = AOp> {
    prop_oneof![
        10 => (size_strategy(), align_strategy()).prop_map(|(size, align)| AOp::Alloc { size, align }),
        5 => (pick_strategy(), size_strategy()).prop_map(|(pick, size)| AOp::Realloc { pick, size }),
        3 => pick_strategy().prop_map(|pick| AOp::Free { pick }),
        1 => Just(AOp::Reset),
        2 => (0u8..3).prop_map(AOp::Checkpoint),
        3 => (0u8..3).prop_map(AOp::Restore),
    ]
}

/// `Bump::with_capacity_in`'s size (at align 1), or `None` for `new_in`:
/// below, at and above the default chunk (multiples of 16: the capacities
/// the model takes).
fn capacity_strategy() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        2 => Just(None),
        1 => prop::sample::select(vec![16u64, 448, 464, 1008, 4096, 20000]).prop_map(Some),
    ]
}

/// Random programs compared per direction (each with a random MIN_ALIGN).
const CASES: u32 = 256;

/// Random programs on the real crate (on the simulated heap) and on the
/// model, compared op by op; and the programs, together, reached every path
/// the comparison is for.
fn random_programs_match(up: bool) {
    let coverage = std::cell::RefCell::new(Coverage::default());
    let config = ProptestConfig {
        cases: CASES,
        ..ProptestConfig::default()
    };
    proptest!(config, |(
        min_align in prop::sample::select(vec![1u64, 2, 4, 8, 16]),
        capacity in capacity_strategy(),
        ops in prop::collection::vec(op_strategy(), 1..48),
    )| {
        let t = compare_on_sim_heap(up, min_align, capacity, &ops).map_err(TestCaseError::fail)?;
        coverage.borrow_mut().record(&t);
    });
    let cov = coverage.into_inner();
    let what = if up {
        "bump-scope up"
    } else {
        "bump-scope down"
    };
    println!("{}", cov.summary(&format!("{what} 2.4.1 (64-bit)")));
    cov.require(
        what,
        &[
            ("a new chunk", cov.new_chunks),
            ("an oversized chunk", cov.oversized),
            ("a moved realloc", cov.realloc_moved),
            ("an in-place realloc", cov.realloc_in_place),
            ("a shrink", cov.shrinks),
            ("a free of the last block", cov.frees_of_last),
            ("a reset", cov.resets),
            ("a checkpoint", cov.checkpoints),
            (
                "a restore that gave bytes back",
                cov.restores_that_reclaimed,
            ),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen capacity", cov.capacities),
        ],
    );
    cov.require_shares(
        what,
        &[
            ("new chunk", 40.0),
            ("oversized", 15.0),
            ("moved realloc", 30.0),
            ("in-place realloc", 30.0),
            ("free of the last block", 25.0),
            ("reset", 15.0),
            ("restore", 20.0),
            ("restore that gave bytes back", 10.0),
        ],
    );
}

#[test]
fn edges_match_the_real_crate() {
    let native = if cfg!(target_pointer_width = "64") {
        bumplab_core::Target::W64
    } else {
        bumplab_core::Target::Wasm32
    };
    for up in [true, false] {
        for min_align in [1u64, 2, 4, 8, 16] {
            for (ops, capacity) in bump_scope_diff::edge_programs(up, min_align, native) {
                compare_on_sim_heap(up, min_align, capacity, &ops)
                    .unwrap_or_else(|e| panic!("{e}"));
            }
        }
    }
}

#[test]
fn the_largest_request_the_target_allows() {
    // isize::MAX at the alignment: no chunk can hold it, and `allocate`
    // fails; the model stops at that request with no room for the chunk.
    for up in [true, false] {
        for (align, min_align) in [(1usize, 1u64), (8, 16), (4096, 1)] {
            let big = (isize::MAX as usize) & !(align - 1);
            let ops = [
                AOp::Alloc { size: 8, align: 1 },
                AOp::Alloc { size: big, align },
                AOp::Alloc { size: 8, align: 1 },
            ];
            let (src, real) = bump_scope_diff::run_real_on_sim_heap_dyn(up, min_align, None, &ops);
            assert_eq!(real.len(), 1, "the crate stops at the request");
            let opts = bumplab_core::Options {
                min_align: Some(min_align),
                ..bumplab_core::Options::default()
            };
            let err = bumplab_core::run(&src, bump_scope_diff::preset(up), &opts).unwrap_err();
            assert_eq!(err.line, 2, "{err}");
            assert!(err.message.contains("no room"), "{err}");
            compare_on_sim_heap(up, min_align, None, &ops[..1]).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

#[test]
fn up_matches_the_real_crate() {
    random_programs_match(true);
}

#[test]
fn down_matches_the_real_crate() {
    random_programs_match(false);
}

// ---------------------------------------------------------------------------
// Deterministic facts, each checked on the model and, natively, on the crate.

fn alloc(size: usize, align: usize) -> AOp {
    AOp::Alloc { size, align }
}

#[test]
fn header_and_overhead_follow_the_word() {
    assert_eq!(header_size::<u64>(), 32);
    assert_eq!(header_size::<u32>(), 16);
    assert_eq!(malloc_overhead::<u64>(), 16);
    assert_eq!(malloc_overhead::<u32>(), 8);
}

#[test]
fn first_chunk_is_made_by_new() {
    for up in [true, false] {
        // 64-bit: a 512-byte hint, less malloc's 16 bytes, is a 496-byte
        // chunk; the 32-byte header leaves 464.
        let t = trace("", up);
        assert_eq!(t.chunks.len(), 1);
        let c = &t.chunks[0];
        assert_eq!((c.size, c.capacity), (496, 464), "up={up}");
        assert_eq!(c.created_by, None);
        if up {
            assert_eq!((c.header, c.footer, c.start), (32, 0, c.base + 32));
        } else {
            assert_eq!((c.header, c.footer, c.start), (0, 32, c.base));
        }
        // wasm32: 512 - 8 = 504, rounded down to 16 = 496; a 16-byte header.
        let t = trace_with("", up, Target::Wasm32, 1);
        let c = &t.chunks[0];
        assert_eq!((c.size, c.capacity), (496, 480), "up={up}");
    }
    let real = Real::<BumpSettings<1, true>>::new();
    assert_eq!(real.stats().count(), 1);
    assert_eq!(real.stats().size(), 496);
    assert_eq!(real.stats().capacity(), 464);
    let real = Real::<BumpSettings<1, false>>::new();
    assert_eq!((real.stats().size(), real.stats().capacity()), (496, 464));
}

#[test]
fn a_chosen_capacity_is_bump_with_capacity() {
    // 4096 bytes at align 1: 16 + 32 + 4096 + 16 = 4160, two pages less 16.
    let opts = Options {
        target: Target::W64,
        capacity: Some(4096),
        min_align: None,
        child: None,
    };
    for up in [true, false] {
        let t = run("", preset(up), &opts).unwrap();
        assert_eq!((t.chunks[0].size, t.chunks[0].capacity), (8176, 8144));
    }
    let layout = Layout::from_size_align(4096, 1).unwrap();
    let real = Real::<BumpSettings<1, true>>::with_capacity(layout);
    assert_eq!(real.stats().capacity(), 8144);
    let real = Real::<BumpSettings<1, false>>::with_capacity(layout);
    assert_eq!(real.stats().capacity(), 8144);
}

#[test]
fn chunks_double_to_powers_of_two_then_pages() {
    for up in [true, false] {
        let ops: Vec<AOp> = (0..120).map(|_| alloc(200, 8)).collect();
        let (src, real) = run_real_dyn(up, 1, &ops);
        let real_caps = real.last().unwrap().capacities.clone();
        let t = trace(&src, up);
        let sizes: Vec<u64> = t.chunks.iter().map(|c| c.size).collect();
        assert_eq!(sizes, vec![496, 1008, 2032, 4080, 8176, 16368], "up={up}");
        let caps: Vec<u64> = t.chunks.iter().map(|c| c.capacity).collect();
        assert_eq!(caps, real_caps, "up={up}");
        assert_eq!(caps[..3], [464, 976, 2000]);
        // The op that opens the second chunk shows the failed check first.
        let op = t.ops.iter().find(|o| o.chunk == Some(1)).unwrap();
        let kinds: Vec<EventKind> = op.events.iter().map(|e| e.kind).collect();
        let no_room = kinds.iter().position(|&k| k == EventKind::NoRoom);
        let new_chunk = kinds.iter().position(|&k| k == EventKind::NewChunk);
        assert!(no_room.is_some() && no_room < new_chunk, "{kinds:?}");
    }
}

#[test]
fn an_oversized_request_gets_a_page_rounded_chunk_and_growth_continues_from_it() {
    for up in [true, false] {
        let ops = [alloc(10_000, 1), alloc(400, 1), alloc(12_000, 1)];
        let (src, real) = run_real_dyn(up, 1, &ops);
        let t = trace(&src, up);
        // 16 + 32 + 10000 + 16 = 10064 > 2 x 496: rounded to 3 pages,
        // less 16 = 12272 bytes, 12240 usable.
        assert_eq!(t.chunks[1].size, 12272);
        assert_eq!(t.chunks[1].capacity, 12240);
        assert_eq!(format!("{:?}", t.chunks[1].reason), "Oversized", "up={up}");
        // The next chunk doubles the oversized one: 24544 -> 24576 - 16.
        assert_eq!(t.chunks[2].size, 24560);
        assert_eq!(format!("{:?}", t.chunks[2].reason), "Full");
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
    }
}

#[test]
fn up_grows_and_shrinks_the_last_block_in_place() {
    let ops = [
        alloc(8, 8),
        AOp::Realloc { pick: 0, size: 100 },
        AOp::Realloc { pick: 0, size: 20 },
    ];
    let (src, real) = run_real_dyn(true, 1, &ops);
    let t = trace(&src, true);
    for (i, want) in real.iter().enumerate() {
        assert_eq!(&trace_seen(&t, i), want, "op {i}");
    }
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!(t.ops[1].offset, Some(0));
    assert_eq!(t.ops[1].stats.copied, 0);
    assert_eq!(real[1].current.1, 100);
    assert_eq!(t.ops[2].moved, Some(false));
    assert_eq!(real[2].current.1, 20);
    assert!(t.ops[2]
        .events
        .iter()
        .any(|e| e.kind == EventKind::ShrankInPlace));
}

#[test]
fn down_grows_the_last_block_by_moving_it_down_with_a_copy() {
    let ops = [
        alloc(8, 8),
        AOp::Realloc { pick: 0, size: 100 },
        AOp::Realloc { pick: 0, size: 20 },
    ];
    let (src, real) = run_real_dyn(false, 1, &ops);
    let t = trace(&src, false);
    for (i, want) in real.iter().enumerate() {
        assert_eq!(&trace_seen(&t, i), want, "op {i}");
    }
    // 464 - 8 = 456; grown by 92 to 364, rounded down to 8 = 360.
    assert_eq!(t.ops[0].offset, Some(456));
    assert_eq!(t.ops[1].moved, Some(true));
    assert_eq!(t.ops[1].offset, Some(360));
    assert_eq!(t.ops[1].stats.copied, 8);
    // Shrinking slides it back up to end where it ended: 460 - 20 = 440.
    assert_eq!(t.ops[2].moved, Some(true));
    assert_eq!(t.ops[2].offset, Some(440));
    assert_eq!(t.ops[2].stats.copied, 8 + 20);
    assert_eq!(real[2].current.1, 440);
}

#[test]
fn a_block_that_is_not_last_moves_to_grow_and_stays_to_shrink() {
    for up in [true, false] {
        let ops = [
            alloc(16, 8),
            alloc(16, 8),
            AOp::Realloc { pick: 1, size: 64 },
            AOp::Realloc { pick: 1, size: 4 },
        ];
        let (src, real) = run_real_dyn(up, 1, &ops);
        let t = trace(&src, up);
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
        assert_eq!(t.ops[2].moved, Some(true), "up={up}");
        assert_eq!(t.ops[2].stats.copied, 16);
        // The second block is not last any more: shrinking leaves it be.
        assert_eq!(t.ops[3].moved, Some(false), "up={up}");
        assert_eq!(real[3].current, real[2].current);
    }
}

#[test]
fn freeing_the_last_block_gives_its_bytes_back() {
    for up in [true, false] {
        let ops = [
            alloc(24, 8),
            alloc(40, 8),
            AOp::Free { pick: 0 },
            alloc(40, 8),
            AOp::Free { pick: 1 },
        ];
        let (src, real) = run_real_dyn(up, 1, &ops);
        let t = trace(&src, up);
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
        // The freed last block's place is handed out again.
        assert_eq!(t.ops[3].offset, t.ops[1].offset, "up={up}");
        assert_eq!(real[2].current, real[0].current);
        // Freeing a block that is not last changes nothing.
        assert_eq!(real[4].current, real[3].current);
        assert!(t.ops[4]
            .events
            .iter()
            .any(|e| e.kind == EventKind::NotReclaimed));
    }
}

#[test]
fn min_align_rounds_the_bump_pointer_and_hides_odd_sized_last_blocks() {
    // MIN_ALIGN 8: every bump leaves the pointer at a multiple of 8.
    for up in [true, false] {
        let ops = [alloc(3, 1), alloc(1, 1), AOp::Free { pick: 0 }];
        let (src, real) = run_real_dyn(up, 8, &ops);
        let t = trace_with(&src, up, Target::W64, 8);
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
        if up {
            assert_eq!((t.ops[0].offset, t.ops[1].offset), (Some(0), Some(8)));
            // The 1-byte block ends at 9 but the pointer was rounded to 16:
            // it no longer counts as the last block, so freeing it is a no-op.
            assert_eq!(real[2].current.1, 16);
        } else {
            // 464 - 3 = 461 -> 456; 456 - 1 = 455 -> 448.
            assert_eq!((t.ops[0].offset, t.ops[1].offset), (Some(456), Some(448)));
            // Bumping down the block's start is the pointer, so it is the
            // last block, but the pointer goes back to its end (449) rounded
            // down to 8: it stays at 448 and the byte is not given back.
            assert_eq!(real[2].current.1, 448);
        }
    }
}

#[test]
fn reset_keeps_the_last_chunk_even_when_an_earlier_one_is_current() {
    for up in [true, false] {
        let mut ops = vec![alloc(16, 1), AOp::Checkpoint(0)];
        ops.extend((0..12).map(|_| alloc(300, 1)));
        ops.push(AOp::Restore(0));
        ops.push(AOp::Reset);
        ops.push(alloc(16, 1));
        let (src, real) = run_real_dyn(up, 1, &ops);
        let t = trace(&src, up);
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
        let restore = &real[real.len() - 3];
        // After the restore the first chunk is current again, the rest kept.
        assert_eq!(restore.capacities, vec![464, 976, 2000, 4048]);
        assert_eq!(restore.current, (0, if up { 16 } else { 448 }));
        // reset frees all but the last (largest) chunk, not the current one.
        let reset = &real[real.len() - 2];
        assert_eq!(reset.capacities, vec![4048]);
        let r = &t.ops[t.ops.len() - 2];
        let freed = r
            .events
            .iter()
            .filter(|e| e.kind == EventKind::ChunkFreed)
            .count();
        assert_eq!(freed, 3);
        assert!(r.events.iter().any(|e| e.kind == EventKind::ChunkReused));
        assert_eq!(t.chunks[3].freed_by, None);
        assert!(t.chunks[..3].iter().all(|c| c.freed_by.is_some()));
    }
}

#[test]
fn chunks_made_after_a_checkpoint_are_kept_and_reused() {
    for up in [true, false] {
        let ops = [
            alloc(100, 1),
            AOp::Checkpoint(0),
            alloc(400, 1),
            alloc(900, 1),
            AOp::Restore(0),
            alloc(300, 1),
            alloc(500, 1),
            alloc(1500, 1),
        ];
        let (src, real) = run_real_dyn(up, 1, &ops);
        let t = trace(&src, up);
        for (i, want) in real.iter().enumerate() {
            assert_eq!(&trace_seen(&t, i), want, "op {i} up={up}");
        }
        // Three chunks before and after the restore: none is freed.
        assert_eq!(real[3].capacities, vec![464, 976, 2000]);
        assert_eq!(real[4].capacities, vec![464, 976, 2000]);
        assert_eq!(real[4].current.0, 0);
        assert!(t.chunks.iter().all(|c| c.freed_by.is_none()));
        // The restore reclaims the blocks in the kept chunks: they hold
        // nothing any more, whatever their stale bump pointers say.
        let mut reclaimed = t.ops[4].reclaimed.clone();
        reclaimed.sort();
        assert_eq!(reclaimed, vec![2, 3], "up={up}");
        // 300 still fits the first chunk; 500 moves into kept chunk 1
        // without a new chunk; 1500 skips past it into kept chunk 2.
        assert_eq!(real[5].block.unwrap().0, 0);
        assert_eq!(real[6].block.unwrap().0, 1);
        assert_eq!(real[7].block.unwrap().0, 2);
        for i in [6, 7] {
            let op = &t.ops[i];
            assert!(op.events.iter().any(|e| e.kind == EventKind::ChunkReused));
            assert!(!op.events.iter().any(|e| e.kind == EventKind::NewChunk));
        }
        assert_eq!(t.chunks.len(), 3);
        // The kept chunk was emptied before use: the block sits at its edge.
        let edge = if up { 0 } else { 976 - 500 };
        assert_eq!(t.ops[6].offset, Some(edge));
    }
}

/// Runs `ops` on the real crate and on the model (64-bit), asserts every
/// op agrees, and returns the model's trace.
fn both(up: bool, min_align: u64, ops: &[AOp]) -> Trace {
    let (src, real) = run_real_dyn(up, min_align, ops);
    let t = trace_with(&src, up, Target::W64, min_align);
    assert_eq!(t.ops.len(), real.len(), "up={up}");
    for (i, want) in real.iter().enumerate() {
        assert_eq!(
            &trace_seen(&t, i),
            want,
            "op {i} up={up} MIN_ALIGN {min_align}"
        );
    }
    t
}

/// The ids of the micro-steps op `op` took, in order.
fn step_ids(t: &Trace, op: usize) -> Vec<String> {
    t.ops[op]
        .events
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.id.clone()))
        .collect()
}

/// The value named `name` of the first step `id` that op `op` took.
fn step_value(t: &Trace, op: usize, id: &str, name: &str) -> u64 {
    let step = t.ops[op]
        .events
        .iter()
        .flat_map(|e| e.steps.iter())
        .find(|s| s.id == id)
        .unwrap_or_else(|| panic!("op {op} took no step {id}"));
    step.values
        .iter()
        .find(|v| v.name == name)
        .unwrap_or_else(|| panic!("step {id} has no value {name}"))
        .value
}

#[test]
fn a_request_whose_size_hint_is_exactly_twice_the_last_chunk_is_a_full_chunk() {
    // The first chunk is 496 bytes, so the next one's hint is at least 992.
    // 928 bytes need exactly 992 either way: up, malloc's 16 + the header's
    // 32 + 928 + 16; down, 16 + 928 rounded up to 16 (944) + 32 + 16. The
    // chunk is the doubled one, made because the first was full. 929 bytes
    // need 993 (up) or 1008 (down): the request sizes the chunk, which
    // still rounds to 1024 less malloc's 16.
    for up in [true, false] {
        let t = both(up, 1, &[alloc(928, 1)]);
        assert_eq!(step_value(&t, 0, "required_size", "required"), 992);
        assert_eq!(step_value(&t, 0, "grown_size", "grown"), 992);
        assert_eq!(t.chunks[1].size, 1008, "up={up}");
        assert_eq!(format!("{:?}", t.chunks[1].reason), "Full", "up={up}");
        let t = both(up, 1, &[alloc(929, 1)]);
        let required = if up { 993 } else { 1008 };
        assert_eq!(step_value(&t, 0, "required_size", "required"), required);
        assert_eq!(t.chunks[1].size, 1008, "up={up}");
        assert_eq!(format!("{:?}", t.chunks[1].reason), "Oversized", "up={up}");
    }
}

#[test]
fn bumping_down_the_size_hint_puts_the_header_at_the_next_16_after_the_content() {
    // ChunkSizeHint::for_capacity bumping down: malloc's two words (16),
    // then the content, then the header at the next multiple of 16, then
    // 16 more. The hint the code view shows for each size from 497 to 512:
    // 16 + size rounded up to 16, + 32 + 16. Bumping up the header comes
    // first, so nothing is rounded: 16 + 32 + size + 16.
    for size in 497..=512u64 {
        let t = both(false, 1, &[alloc(size as usize, 1)]);
        let at_header = (16 + size).div_ceil(16) * 16;
        assert_eq!(
            step_value(&t, 0, "required_size", "required"),
            at_header + 32 + 16,
            "size {size}"
        );
        let t = both(true, 1, &[alloc(size as usize, 1)]);
        assert_eq!(
            step_value(&t, 0, "required_size", "required"),
            16 + 32 + size + 16,
            "size {size}"
        );
    }
}

#[test]
fn bumping_up_rounds_the_bump_pointer_to_min_align_only_above_1() {
    // With MIN_ALIGN 1 the rounding compiles away: no step for it. With 2
    // the pointer after a 3-byte block is rounded from 3 to 4.
    let t = both(true, 1, &[alloc(3, 1), alloc(1, 1)]);
    assert!(
        !step_ids(&t, 0).contains(&"up_round_min_align".to_string()),
        "{:?}",
        step_ids(&t, 0)
    );
    assert_eq!(t.ops[1].offset, Some(3));
    let t = both(true, 2, &[alloc(3, 1), alloc(1, 1)]);
    assert!(
        step_ids(&t, 0).contains(&"up_round_min_align".to_string()),
        "{:?}",
        step_ids(&t, 0)
    );
    assert_eq!(step_value(&t, 0, "up_round_min_align", "new_pos") % 2, 0);
    assert_eq!(t.ops[1].offset, Some(4));
}

#[test]
fn a_restore_says_chunks_are_kept_only_when_some_were_made_since() {
    const KEPT: &str = "the chunks made since the checkpoint are kept";
    let says_kept = |t: &Trace, op: usize| {
        t.ops[op]
            .events
            .iter()
            .any(|e| e.kind == EventKind::Note && e.text.contains(KEPT))
    };
    for up in [true, false] {
        // 400 bytes do not fit the 364 left: a second chunk, kept.
        let t = both(
            up,
            1,
            &[
                alloc(100, 1),
                AOp::Checkpoint(0),
                alloc(400, 1),
                AOp::Restore(0),
            ],
        );
        assert_eq!(t.chunks.len(), 2);
        assert!(says_kept(&t, 3), "up={up}");
        // 8 bytes fit: no chunk made since, nothing to say.
        let t = both(
            up,
            1,
            &[
                alloc(100, 1),
                AOp::Checkpoint(0),
                alloc(8, 1),
                AOp::Restore(0),
            ],
        );
        assert_eq!(t.chunks.len(), 1);
        assert!(!says_kept(&t, 3), "up={up}");
    }
}

#[test]
fn the_model_emits_a_new_chunk_event_per_chunk() {
    // Checked on the recorded events directly, independent of the engine.
    use bumplab_core::heap::Heap;
    use bumplab_core::model::{Layout as L, Model, ModelOptions};
    use bumplab_core::models::bump_scope::BumpScope;
    use bumplab_core::probe::{Recorded, Recorder};
    let mut heap = Heap::<u64>::new(Target::W64);
    let mut rec = Recorder::default();
    let mut m =
        BumpScope::<u64, true, 1>::new(&mut heap, &ModelOptions::default(), &mut rec).unwrap();
    // 400 bytes each: one in the first chunk (464), two in the second
    // (976), and the fourth opens a third.
    for _ in 0..4 {
        m.alloc(
            &mut heap,
            L {
                size: 400,
                align: 1,
            },
            &mut rec,
        )
        .result()
        .unwrap();
    }
    let new_chunks: Vec<u64> = rec
        .log
        .iter()
        .filter_map(|r| match r {
            Recorded::Event(ModelEvent::NewChunk { chunk, .. }) => Some(chunk.capacity),
            _ => None,
        })
        .collect();
    assert_eq!(new_chunks, vec![464, 976, 2000]);
}
