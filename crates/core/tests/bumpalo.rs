//! The bumpalo preset against bumpalo 3.20.4 itself: deterministic cases
//! with the numbers bumpalo is known for, each also run on the real crate,
//! the edges of every rule (`bumpalo_diff::edge_programs`, which the wasm32
//! suite in crates/cost/tests/wasm32_fidelity.rs runs too), the emulated
//! checkpoints, and random programs compared op by op.
//!
//! bumpalo has no checkpoints: the playground's emulation puts the arena
//! back exactly as it was at the checkpoint, so programs with restores are
//! compared with the crate running the ops each restore leaves in effect
//! (`bumpalo_diff::compare_undone`).

#[path = "common/bumpalo_diff.rs"]
mod bumpalo_diff;
#[path = "common/coverage.rs"]
mod coverage;
#[path = "common/placed_chunks.rs"]
mod placed_chunks;

use bumpalo_diff::{
    assert_same, compare_undone, lower, parse_steps, run_model, run_real_around, GenOp, Obs, Place,
    Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::bumpalo::{self as model, Bumpalo};
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};
use coverage::Coverage;
use proptest::prelude::*;

/// bumpalo takes its chunks from the global allocator: this one lets the
/// random programs put them where the model's are (common/placed_chunks.rs).
#[global_allocator]
static GLOBAL: placed_chunks::PlacedChunks = placed_chunks::PlacedChunks;

fn trace_on(src: &str, target: Target, min_align: u64) -> Trace {
    let opts = Options {
        target,
        capacity: None,
        min_align: Some(min_align),
        child: None,
    };
    run(src, PresetId::Bumpalo, &opts).unwrap_or_else(|e| panic!("{e}"))
}

/// Runs `src` (harness lines) on the model and the real crate, asserts
/// they agree op by op, and returns the model's trace.
fn both(src: &str, min_align: u64) -> Trace {
    assert_same(&parse_steps(src), min_align, None)
}

/// [`both`] with a capacity, for programs that may have checkpoints: each
/// real chunk placed where the model's is, so every alignment compares.
fn both_placed(src: &str, min_align: u64, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(&steps, bumpalo_diff::native_target(), min_align, capacity);
    compare_undone(&steps, &t, &model, |effect, bases| {
        placed_chunks::start_placing(bases);
        let real = run_real_around(effect, min_align, capacity, &|call| {
            placed_chunks::placing(call)
        });
        assert_eq!(
            placed_chunks::placed_now(),
            0,
            "the Bump freed every chunk it got"
        );
        real
    })
    .unwrap_or_else(|e| panic!("MIN_ALIGN {min_align}, capacity {capacity:?}: {e}"));
    for o in &model {
        if let Some(Place::Unexpected(why)) = &o.place {
            panic!("{why}");
        }
    }
    t
}

fn capacities(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.capacity).collect()
}

fn repeated(line: &str, n: usize) -> String {
    (0..n).map(|i| format!("x{i} = {line}\n")).collect()
}

fn has_event(t: &Trace, op: usize, kind: EventKind) -> bool {
    t.ops[op].events.iter().any(|e| e.kind == kind)
}

fn step_ids(t: &Trace, op: usize) -> Vec<String> {
    t.ops[op]
        .events
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.id.clone()))
        .collect()
}

#[test]
fn footer_and_default_chunk_follow_the_word_size() {
    // Six words padded to 16: 48 bytes with 8-byte words, 32 with 4-byte ones.
    assert_eq!(Bumpalo::<u64, 1>::FOOTER_SIZE, 48);
    assert_eq!(Bumpalo::<u32, 1>::FOOTER_SIZE, 32);
    assert_eq!(Bumpalo::<u64, 1>::OVERHEAD, 64);
    assert_eq!(Bumpalo::<u32, 1>::OVERHEAD, 48);
    assert_eq!(Bumpalo::<u64, 16>::DEFAULT_CHUNK_SIZE_WITHOUT_FOOTER, 448);
    assert_eq!(Bumpalo::<u32, 16>::DEFAULT_CHUNK_SIZE_WITHOUT_FOOTER, 464);
    assert_eq!(model::default_chunk_capacity(8), 448);
}

#[test]
fn the_first_chunk_waits_for_the_first_allocation() {
    let t = trace_on("reset\n", Target::W64, 1);
    assert!(t.chunks.is_empty());
    assert_eq!(t.ops[0].bump_ptr, None);
    assert_eq!(t.ops[0].stats.chunks, 0);

    let t = both("a = alloc 1\nb = alloc 8 align 8\n", 1);
    let c = &t.chunks[0];
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!(c.created_by, Some(0));
    assert_eq!((c.capacity, c.footer, c.header, c.size), (448, 48, 0, 496));
    // 496 bytes plus malloc's 16: the 512 bumpalo aims at.
    assert_eq!(c.start, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(t.ops[0].offset, Some(447));
    // 447 - 8 = 439, rounded down to 8: 432, seven bytes of padding.
    assert_eq!(t.ops[1].offset, Some(432));
    assert_eq!(t.ops[1].padding, Some(7));
    assert_eq!(t.ops[1].bump_ptr, Some(c.start + 432));
}

#[test]
fn chunks_double_on_64_bit() {
    let src = repeated("alloc 400", 150);
    let t = both(&src, 1);
    assert_eq!(capacities(&t), [448, 960, 1984, 4032, 8128, 16320, 32704]);
    let reasons: Vec<_> = t.chunks.iter().map(|c| c.reason).collect();
    assert_eq!(reasons[0], ChunkReason::First);
    assert!(reasons[1..].iter().all(|&r| r == ChunkReason::Full));
    // Capacity + footer + malloc's 16 is a power of two below a page, a
    // whole number of pages from there.
    for c in &t.chunks {
        let total = c.size + MALLOC_HEADER;
        assert!(total.is_power_of_two() || total % 4096 == 0, "{total}");
    }
    // Nothing is ever freed by allocating.
    assert_eq!(t.ops.last().unwrap().stats.chunks, 7);
}

#[test]
fn chunks_double_on_wasm32() {
    let t = trace_on(&repeated("alloc 400 align 1", 38), Target::Wasm32, 1);
    assert_eq!(capacities(&t), [464, 976, 2000, 4048, 8144]);
    assert!(t.chunks.iter().all(|c| c.footer == 32));
    assert_eq!(t.chunks[0].size, 496);
    let t = trace_on(&repeated("alloc 4000 align 1", 8), Target::Wasm32, 1);
    // 4000 is oversized for the 464 first chunk: rounded to a page.
    assert_eq!(capacities(&t)[..3], [4048, 8144, 16336]);
}

#[test]
fn an_oversized_request_gets_a_page_rounded_chunk_that_becomes_current() {
    let t = both(
        "a = alloc 8\nb = alloc 10000\nc = alloc 8\nd = alloc 2300\n",
        1,
    );
    assert_eq!(capacities(&t), [448, 12224, 24512]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Oversized);
    assert_eq!(t.chunks[1].requested, 10000);
    assert_eq!(t.ops[1].offset, Some(12224 - 10000));
    // c goes to the big chunk, not back to the first one.
    assert_eq!(t.ops[2].chunk, Some(1));
    assert_eq!(t.ops[2].offset, Some(12224 - 10000 - 8));
    // 2216 bytes are left; d needs a chunk doubled from the oversized one.
    assert_eq!(t.chunks[2].reason, ChunkReason::Full);
    let t = trace_on("a = alloc 10000\n", Target::Wasm32, 1);
    assert_eq!(capacities(&t), [12240]);
}

#[test]
fn a_large_alignment_sizes_and_aligns_the_chunk() {
    // Align 4096 never fits the 448-byte chunk: the new chunk is aligned
    // to 4096 and sized for 4096 bytes, then rounded to pages.
    let t = both("a = alloc 8\nb = alloc 100 align 4096\n", 1);
    assert_eq!(capacities(&t), [448, 8128]);
    assert_eq!(t.chunks[1].start % 4096, 0);
    assert_eq!(t.chunks[1].reason, ChunkReason::Oversized);
    // The footer rounded down to 4096 leaves exactly 4096 bytes below it.
    assert_eq!(t.ops[1].offset, Some(0));
}

#[test]
fn growing_the_last_block_moves_it_down_by_the_difference() {
    let t = both("a = alloc 16 align 8\nb = realloc a 40\n", 1);
    let (a, b) = (t.ops[0].address.unwrap(), t.ops[1].address.unwrap());
    assert_eq!(a - b, 24);
    assert_eq!(t.ops[1].moved, Some(true));
    assert_eq!(t.ops[1].stats.copied, 16);
    assert!(step_ids(&t, 1).contains(&"copy_within".to_string()));
    // The difference is rounded up to the alignment: 9 - 5 = 4 -> 8.
    let t = both("a = alloc 5 align 8\nb = realloc a 9\n", 1);
    assert_eq!(t.ops[0].offset.unwrap() - t.ops[1].offset.unwrap(), 8);
    // Not the last block: a new block below, the old one stays behind.
    let t = both("a = alloc 16\nb = alloc 8\nc = realloc a 32\n", 1);
    assert_eq!(t.ops[2].offset, Some(448 - 16 - 8 - 32));
    assert!(has_event(&t, 2, EventKind::Leaked));
    assert_eq!(t.ops[2].stats.leaked, 16);
    // The last block without room below it: a new chunk, copied there.
    let t = both("a = alloc 400\nb = realloc a 460\n", 1);
    assert_eq!(t.ops[1].chunk, Some(1));
    assert_eq!(t.ops[1].stats.chunks, 2);
}

#[test]
fn shrinking_moves_only_the_last_block_and_only_if_half_comes_back() {
    // 100 -> 50: 50 bytes back, at least half of 100 (rounded up): moves up.
    let t = both("a = alloc 100\nb = realloc a 50\n", 1);
    assert_eq!(t.ops[1].offset, Some(t.ops[0].offset.unwrap() + 50));
    assert_eq!(t.ops[1].moved, Some(true));
    assert_eq!(t.ops[1].stats.copied, 50);
    // 100 -> 51: 49 back, less than 50: stays.
    let t = both("a = alloc 100\nb = realloc a 51\n", 1);
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!(t.ops[1].bump_ptr, t.ops[0].bump_ptr);
    // 5 -> 3: 2 back, less than 3 (the rounding up that avoids an overlap).
    let t = both("a = alloc 5\nb = realloc a 3\n", 1);
    assert_eq!(t.ops[1].moved, Some(false));
    // 5 -> 2: 3 back, moves.
    let t = both("a = alloc 5\nb = realloc a 2\n", 1);
    assert_eq!(t.ops[1].moved, Some(true));
    // The bytes back are rounded down to the alignment: 64 -> 20 gives
    // 44 -> 32 >= 32, moves by 32; 64 -> 40 gives 24 -> 16 < 32, stays.
    let t = both("a = alloc 64 align 16\nb = realloc a 20\n", 1);
    assert_eq!(t.ops[1].offset, Some(t.ops[0].offset.unwrap() + 32));
    let t = both("a = alloc 64 align 16\nb = realloc a 40\n", 1);
    assert_eq!(t.ops[1].moved, Some(false));
    // Not the last block: stays whatever the size.
    let t = both("a = alloc 100\nx = alloc 1\nb = realloc a 10\n", 1);
    assert_eq!(t.ops[2].moved, Some(false));
    // ... and MIN_ALIGN rounds the bytes back too: 12 -> 5 gives 7 -> 4 < 6.
    let t = both("a = alloc 12\nb = realloc a 5\n", 4);
    assert_eq!(t.ops[1].moved, Some(false));
}

#[test]
fn free_reclaims_only_the_last_block() {
    // b is last: the pointer goes back to b's end, not over b's padding.
    let t = both("a = alloc 1\nb = alloc 8 align 8\nfree b\nfree a\n", 1);
    let start = t.chunks[0].start;
    assert_eq!(t.ops[2].bump_ptr, Some(start + 440));
    assert_eq!(t.ops[2].reclaimed, vec![1]);
    // a is at 447 but the pointer is at 440: a is not "last" any more.
    assert_eq!(t.ops[3].bump_ptr, Some(start + 440));
    assert!(t.ops[3].reclaimed.is_empty());
    // Not the last block: nothing moves.
    let t = both("a = alloc 8\nb = alloc 8\nfree a\n", 1);
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    // With MIN_ALIGN 4 the end of a 5-byte block is rounded up to 8.
    let t = both("a = alloc 5\nfree a\n", 4);
    assert_eq!(t.ops[0].offset, Some(440));
    assert_eq!(t.ops[1].bump_ptr, Some(t.chunks[0].start + 448));
}

#[test]
fn reset_keeps_only_the_current_chunk() {
    let src = format!("{}reset\ny = alloc 8\n", repeated("alloc 400", 20));
    let t = both(&src, 1);
    assert_eq!(capacities(&t), [448, 960, 1984, 4032, 8128]);
    let reset = &t.ops[20];
    let freed: Vec<_> = t.chunks.iter().filter_map(|c| c.freed_by).collect();
    assert_eq!(freed, [20, 20, 20, 20]);
    assert_eq!(t.chunks[4].freed_by, None);
    assert_eq!(reset.stats.chunks, 1);
    assert_eq!(reset.reclaimed.len(), 20);
    assert_eq!(reset.bump_ptr, Some(t.chunks[4].start + 8128));
    assert_eq!((t.ops[21].chunk, t.ops[21].offset), (Some(4), Some(8120)));
    // A reset before any chunk is a no-op.
    assert_eq!(trace_on("reset\n", Target::W64, 1).ops[0].bump_ptr, None);
}

#[test]
fn min_align_skips_runtime_alignment_and_rounds_sizes() {
    let t = both(
        "a = alloc 1\nb = alloc 2 align 2\nc = alloc 16 align 16\nd = alloc 8 align 8\n",
        8,
    );
    let offsets: Vec<_> = t.ops.iter().map(|o| o.offset.unwrap()).collect();
    // 1 -> 8 bytes; 2 -> 8; align 16 rounds the pointer: 432 -> 416; 8 fits as is.
    assert_eq!(offsets, [440, 432, 416, 408]);
    assert!(step_ids(&t, 0).contains(&"round_size_min".to_string()));
    assert!(step_ids(&t, 2).contains(&"round_ptr".to_string()));
    assert!(step_ids(&t, 3).contains(&"round_size_eq".to_string()));
    // Every MIN_ALIGN gives the same program a bump pointer aligned to it.
    for m in [1, 2, 4, 8, 16] {
        let t = both("a = alloc 3\nb = alloc 5 align 2\nc = alloc 7\n", m);
        assert!(t.ops.iter().all(|o| o.bump_ptr.unwrap() % m == 0), "{m}");
    }
}

#[test]
fn a_chosen_capacity_makes_the_first_chunk_eagerly() {
    for (cap, expect) in [(16, 448), (1008, 1984), (4992, 8128)] {
        let steps = parse_steps("a = alloc 8\n");
        let t = assert_same(&steps, 1, Some(cap));
        assert_eq!(t.chunks[0].capacity, expect);
        assert_eq!(t.chunks[0].created_by, None);
        assert_eq!(t.chunks[0].requested, cap);
    }
}

#[test]
fn zero_size_requests_get_a_dangling_pointer() {
    // Not even the first chunk is made: the alignment is the address.
    let t = trace_on("a = alloc 0\n", Target::W64, 1);
    assert!(!t.ops[0].failed);
    assert_eq!((t.ops[0].address, t.ops[0].chunk), (Some(1), None));
    assert!(t.chunks.is_empty());
    assert_eq!(t.ops[0].bump_ptr, None);
    let t = both(
        "a = alloc 0\nb = alloc 0 align 8\nc = alloc 8\nd = realloc b 16\nfree a\n",
        1,
    );
    assert_eq!(t.ops[1].address, Some(8));
    assert_eq!(t.ops[2].offset, Some(440));
    // From size 0 a realloc is a plain allocation (16 bytes aligned to 8).
    assert_eq!((t.ops[3].offset, t.ops[3].moved), (Some(424), Some(true)));
    assert_eq!(t.ops[4].bump_ptr, t.ops[3].bump_ptr);
    // MIN_ALIGN raises the dangling address too.
    let t = both("a = alloc 0 align 2\n", 4);
    assert_eq!(t.ops[0].address, Some(4));
    // Shrinking to 0 is a real shrink: the last block moves up by all of it.
    let t = both(
        "a = alloc 8\nb = alloc 16 align 8\nc = realloc b 0\nd = realloc c 4\n",
        1,
    );
    assert_eq!(t.ops[2].offset, Some(440));
    assert_eq!(t.ops[2].chunk, Some(0));
    assert_eq!(t.ops[2].bump_ptr, t.ops[0].bump_ptr);
    assert_eq!(t.ops[3].offset, Some(432));
}

#[test]
fn checkpoints_are_an_emulation_and_say_so() {
    assert!(PresetId::Bumpalo
        .description()
        .contains("bumpalo has no checkpoints"));
    let src = format!(
        "a = alloc 8\ncheckpoint c0\n{}restore c0\nb = alloc 8\n",
        repeated("alloc 100", 20)
    );
    let t = both_placed(&src, 1, None);
    let restore = &t.ops[22];
    assert!(has_event(&t, 22, EventKind::Note));
    assert!(has_event(&t, 22, EventKind::ChunkReused));
    assert_eq!(restore.stats.chunks, 1);
    assert_eq!(restore.reclaimed.len(), 20);
    assert_eq!(restore.bump_ptr, t.ops[0].bump_ptr);
    assert_eq!((t.ops[23].chunk, t.ops[23].offset), (Some(0), Some(432)));
    // The next chunk doubles from the saved chunk again.
    let t = both_placed(&format!("{src}{}", repeated("alloc 300", 2)), 1, None);
    assert_eq!(t.chunks.last().unwrap().capacity, 960);
    // A checkpoint before the first chunk: restore gives every chunk back.
    let t = both_placed(
        "checkpoint c0\na = alloc 8\nrestore c0\nb = alloc 8\n",
        1,
        None,
    );
    assert_eq!(t.ops[2].bump_ptr, None);
    assert_eq!(t.ops[2].stats.chunks, 0);
    assert_eq!(t.chunks[1].reason, ChunkReason::First);
}

#[test]
fn restore_puts_the_bump_pointer_back_exactly_even_over_bytes_freed_since() {
    // b is the last block when the checkpoint is saved; freeing it after
    // gives its 16 bytes back, c takes 8 of them; the restore puts the bump
    // pointer where it was at the checkpoint: below b, as if neither the
    // free nor c had happened. b's bytes are in use again: c, which lies in
    // them, is not reclaimed (a restore reclaims the blocks past the bump
    // pointer), the rest by no block.
    let t = both_placed(
        "a = alloc 8\nb = alloc 16 align 8\ncheckpoint c0\nfree b\nc = alloc 8\nrestore c0\nd = alloc 8\n",
        1,
        None,
    );
    assert_eq!(t.ops[3].bump_ptr, t.ops[0].bump_ptr);
    assert_eq!(t.ops[5].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!(t.ops[6].offset, Some(t.ops[1].offset.unwrap() - 8));
    assert!(t.ops[5].reclaimed.is_empty());
}

#[test]
fn a_request_of_exactly_twice_the_chunk_is_a_full_chunk_and_one_byte_more_is_oversized() {
    // 440 bytes are left of the first 448; the next chunk is twice 448 =
    // 896 at least. A request of 896 bytes (rounded to the chunk's 16: 896)
    // gets that doubled chunk: the chunk was full, the request did not
    // size it. 897 rounds to 912, past the doubling: it sizes the chunk,
    // which comes out as large (912 + 64 is below 1024 too).
    let t = both("a = alloc 8\nb = alloc 896\n", 1);
    assert_eq!(capacities(&t), [448, 960]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Full);
    let t = both("a = alloc 8\nb = alloc 897\n", 1);
    assert_eq!(capacities(&t), [448, 960]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Oversized);
    assert_eq!(t.chunks[1].requested, 897);
}

#[test]
fn a_chunk_of_exactly_a_page_is_rounded_to_pages_not_to_a_power_of_two() {
    // bumpalo rounds a size BELOW a page to a power of two and a page or
    // more to whole pages. At exactly 4096 both give 8192 - 64 = 8128, so
    // only the step taken (the line the code view lights) tells them
    // apart; 4080 is below a page and takes the power of two to the same
    // capacity.
    let t = both("a = alloc 4096\n", 1);
    assert_eq!(capacities(&t), [8128]);
    let steps = step_ids(&t, 0);
    assert!(steps.contains(&"round_page".to_string()), "{steps:?}");
    assert!(!steps.contains(&"round_pow2".to_string()), "{steps:?}");
    let t = both("a = alloc 4080\n", 1);
    assert_eq!(capacities(&t), [8128]);
    let steps = step_ids(&t, 0);
    assert!(steps.contains(&"round_pow2".to_string()), "{steps:?}");
    assert!(!steps.contains(&"round_page".to_string()), "{steps:?}");
}

#[test]
fn a_wasm32_chunk_whose_layout_passes_isize_max_at_its_alignment_is_halved() {
    // bumpalo makes each chunk's Layout with Layout::from_size_align, which
    // refuses a size that, rounded up to the alignment, passes isize::MAX;
    // the slow path then tries half the size. After a first chunk of
    // 1 GiB - 48 bytes (1 GiB - 16 with its footer, 32 bytes on wasm32),
    // the next is twice that: 2 GiB - 16 bytes with the footer, a Layout
    // that is fine at the chunk's own alignment of 16 (2^31 - 16 is at most
    // 2^31 - 1) but not at 32, where it rounds to 2^31. So a request
    // aligned to 16 gets the doubled chunk and one aligned to 32 the halved
    // one. Model only: the crate built for wasm32 cannot hold 3 GiB of
    // chunks under node:wasi.
    let first = "a = alloc 1073737728 align 1\n";
    let t = trace_on(
        &format!("{first}b = alloc 4096 align 16\n"),
        Target::Wasm32,
        1,
    );
    assert_eq!(capacities(&t), [0x3FFF_FFD0, 0x7FFF_FFD0]);
    assert_eq!(t.chunks[1].size, 0x7FFF_FFF0);
    let t = trace_on(
        &format!("{first}b = alloc 4096 align 32\n"),
        Target::Wasm32,
        1,
    );
    assert_eq!(capacities(&t), [0x3FFF_FFD0, 0x3FFF_FFD0]);
    assert_eq!(t.chunks[1].start % 32, 0);
    assert!(!t.ops[1].failed);
}

#[test]
fn edges_match_the_real_crate() {
    for min_align in [1u64, 2, 4, 8, 16] {
        for (steps, capacity) in
            bumpalo_diff::edge_programs(bumpalo_diff::native_target(), min_align)
        {
            both_placed(&bumpalo_diff::program_text(&steps), min_align, capacity);
        }
    }
}

#[test]
fn the_largest_request_the_target_allows() {
    // isize::MAX less the alignment: bumpalo's new chunk for it overflows
    // its size arithmetic or finds no memory, and `allocate` fails; the
    // model stops there with no room for the chunk.
    for (align, min_align) in [(1u64, 1u64), (8, 16), (4096, 1)] {
        let big = (i64::MAX as u64) & !(align - 1);
        let src = format!("a = alloc 8\nb = alloc {big} align {align}\nc = alloc 8\n");
        let steps = parse_steps(&src);
        let opts = Options {
            target: bumpalo_diff::native_target(),
            capacity: None,
            min_align: Some(min_align),
            child: None,
        };
        let err = run(
            &bumpalo_diff::program_text(&steps),
            PresetId::Bumpalo,
            &opts,
        )
        .unwrap_err();
        assert_eq!(err.line, 2, "{err}");
        assert!(err.message.contains("no room"), "{err}");
        let real = bumpalo_diff::run_real(&steps, min_align, None);
        assert_eq!(real.len(), 2, "align {align}");
        assert_eq!(
            real[1].place,
            Some(Place::Unexpected("allocate failed".into()))
        );
        both(&bumpalo_diff::program_text(&steps[..1]), min_align);
    }
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::Bumpalo);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
    // The slow path is its own cold function, as in bumpalo.
    assert!(text.contains("#[cold]\n    #[inline(never)]\n    fn alloc_layout_slow"));
}

/// Sizes with a bias to small ones.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![
        6 => 0..=64u64,
        3 => 65..=600u64,
        1 => 601..=5000u64,
    ]
}

/// Alignments up to a page: above 16 the real chunk's address decides the
/// padding, which `PlacedChunks` makes the model's (see its module).
fn align() -> impl Strategy<Value = u64> {
    prop::sample::select(vec![1u64, 1, 2, 4, 8, 8, 16, 32, 64, 4096])
}

fn gen_op() -> impl Strategy<Value = GenOp> {
    prop_oneof![
        10 => (size(), align()).prop_map(|(size, align)| GenOp::Alloc { size, align }),
        5 => (any::<usize>(), size()).prop_map(|(pick, size)| GenOp::Realloc { pick, size }),
        4 => prop::option::of(any::<usize>()).prop_map(|pick| GenOp::Free { pick }),
        1 => Just(GenOp::Reset),
        2 => (0..2u8).prop_map(GenOp::Checkpoint),
        2 => (0..2u8).prop_map(GenOp::Restore),
    ]
}

/// `Bump::with_capacity`'s argument, or `None` for `Bump::new`: below, at
/// and above the default chunk, and large enough for a few oversized
/// requests to fit (multiples of 16: the capacities the model takes).
fn capacity() -> impl Strategy<Value = Option<u64>> {
    prop_oneof![
        2 => Just(None),
        1 => prop::sample::select(vec![16u64, 448, 464, 1008, 4992, 20000]).prop_map(Some),
    ]
}

/// Random programs compared per run of this test.
const PROGRAMS: u32 = 384;

/// Same chunk (creation index and capacity), same offset, same moved or
/// in-place decision, same number of chunks and the same bump pointer in
/// the same current chunk, after every op; and the programs, together,
/// reached every path the comparison is for.
#[test]
fn random_programs_match_the_real_crate() {
    let coverage = std::cell::RefCell::new(Coverage::default());
    let config = ProptestConfig {
        cases: PROGRAMS,
        ..ProptestConfig::default()
    };
    proptest!(config, |(
        ops in prop::collection::vec(gen_op(), 1..=60),
        min_align in prop::sample::select(vec![1u64, 2, 4, 8, 16]),
        capacity in capacity(),
    )| {
        let steps: Vec<Step> = lower(&ops);
        let (t, model) = run_model(&steps, bumpalo_diff::native_target(), min_align, capacity);
        // Each real chunk where the model's is, modulo a page; restores
        // compared through the program each leaves in effect.
        let mut freed_all = true;
        let compared = compare_undone(&steps, &t, &model, |effect, bases| {
            placed_chunks::start_placing(bases);
            let real: Vec<Obs> =
                run_real_around(effect, min_align, capacity, &|call| placed_chunks::placing(call));
            freed_all &= placed_chunks::placed_now() == 0;
            real
        });
        prop_assert!(freed_all, "the Bump freed every chunk it got");
        if let Err(e) = compared {
            prop_assert!(false, "MIN_ALIGN {}, capacity {:?}: {}", min_align, capacity, e);
        }
        for m in &model {
            if let Some(Place::Unexpected(why)) = &m.place {
                prop_assert!(false, "{}", why);
            }
        }
        coverage.borrow_mut().record(&t);
    });
    let cov = coverage.into_inner();
    println!("{}", cov.summary("bumpalo 3.20.4 (64-bit)"));
    cov.require(
        "bumpalo",
        &[
            ("a new chunk", cov.new_chunks),
            ("an oversized chunk", cov.oversized),
            ("a moved realloc", cov.realloc_moved),
            ("an in-place realloc", cov.realloc_in_place),
            ("a shrink", cov.shrinks),
            ("a free of the last block", cov.frees_of_last),
            ("a reset", cov.resets),
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
        "bumpalo",
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
