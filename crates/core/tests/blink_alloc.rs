//! The blink-alloc preset against blink-alloc 0.4.0 itself: cases with the
//! numbers its source gives, each also run on the real crate, and random
//! programs compared op by op (the same harness runs on wasm32 in
//! crates/cost/tests/wasm32_fidelity.rs).

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/blink_diff.rs"]
mod blink_diff;
#[path = "common/sim_heap.rs"]
mod sim_heap;

use arena_diff::{
    base_seed, compare, larger_than_every_chunk, native_target, parse_steps, program, repeated,
    run_model, seed_of, Coverage,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::blink_alloc::{self as model, BlinkAlloc};
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};

const PRESET: PresetId = PresetId::BlinkAlloc;

/// Runs `src` on the model and on the real crate, asserts they agree op by
/// op, and returns the model's trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, native_target(), capacity, &steps).unwrap();
    let real = blink_diff::run_real(&steps, capacity);
    compare("blink-alloc", 0, capacity, &steps, &model, &real).unwrap_or_else(|e| panic!("{e}"));
    t
}

fn trace_on(src: &str, target: Target) -> Trace {
    let opts = Options {
        target,
        ..Options::default()
    };
    run(src, PRESET, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn capacities(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.capacity).collect()
}

#[test]
fn the_header_is_four_words_at_each_chunk_start() {
    assert_eq!(BlinkAlloc::<u64>::HEADER_SIZE, 32);
    assert_eq!(BlinkAlloc::<u32>::HEADER_SIZE, 16);
    assert_eq!(blink_diff::HEADER, 32);
    let t = both("a = alloc 8\nb = alloc 8 align 8\n", None);
    let c = &t.chunks[0];
    // 256 + the 32-byte header = 288, rounded up to a power of two.
    assert_eq!((c.size, c.header, c.footer, c.capacity), (512, 32, 0, 480));
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.start, c.base + 32);
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!(c.created_by, Some(0));
    assert_eq!((t.ops[0].offset, t.ops[1].offset), (Some(0), Some(8)));
    // wasm32: 256 + 16 = 272, also 512 once rounded; 496 usable.
    let t = trace_on("a = alloc 8\n", Target::Wasm32);
    assert_eq!((t.chunks[0].size, t.chunks[0].capacity), (512, 496));
}

#[test]
fn no_chunk_until_the_first_allocation_even_a_zero_sized_one() {
    let t = trace_on("reset\n", Target::W64);
    assert!(t.chunks.is_empty());
    assert_eq!(t.ops[0].bump_ptr, None);
    let t = both("a = alloc 0\nb = alloc 0 align 64\nc = alloc 1\n", None);
    // A zero-sized request is a real request: it makes the first chunk and
    // rounds the cursor up to its alignment.
    assert_eq!(t.chunks.len(), 1);
    assert_eq!(t.ops[0].chunk, Some(0));
    assert_eq!(t.ops[0].offset, Some(0));
    let start = t.chunks[0].start;
    assert_eq!(t.ops[1].address.unwrap() % 64, 0);
    assert_eq!(t.ops[2].address, t.ops[1].address);
    assert_eq!(t.ops[2].bump_ptr, Some(t.ops[1].address.unwrap() + 1));
    assert!(t.ops[1].address.unwrap() > start);
}

#[test]
fn chunks_grow_with_what_came_before_the_current_one() {
    let t = both(&repeated("400", 16), None);
    // First: 256 + 32 -> 512 (480 usable). Each next: max(256, the
    // capacities before the current chunk) + 400 + 32, rounded up:
    // 0 -> 688 -> 1024; 480 -> 912 -> 1024; 1472 -> 1904 -> 2048;
    // 2464 -> 2896 -> 4096. One, two, two, five and ten 400-byte blocks fit.
    assert_eq!(capacities(&t), [480, 992, 992, 2016, 4064]);
    assert!(t.chunks[1..].iter().all(|c| c.reason == ChunkReason::Full));
    // A chosen starting size sets the first chunk and the floor after it.
    let t = both(&repeated("400", 3), Some(1024));
    assert_eq!(capacities(&t), [2016]);
}

#[test]
fn an_oversized_request_gets_a_chunk_sized_for_it_that_becomes_current() {
    let t = both(
        "a = alloc 8\nb = alloc 20000\nc = alloc 8\nd = alloc 13000\n",
        None,
    );
    // 256 + 20000 + 32 = 20288: 16 KiB or more, so rounded up to 32 KiB.
    // The next chunk counts the first one only (480 before the current
    // one): 480 + 13000 + 32 = 13512, under 16 KiB, so 16384.
    assert_eq!(capacities(&t), [480, 32768 - 32, 16384 - 32]);
    assert_eq!(t.ops[1].offset, Some(0));
    assert_eq!((t.ops[2].chunk, t.ops[2].offset), (Some(1), Some(20000)));
    // 32736 - 20008 = 12728 bytes are left behind in the big chunk.
    assert_eq!((t.ops[3].chunk, t.ops[3].offset), (Some(2), Some(0)));
}

#[test]
fn an_alignment_above_a_word_adds_itself_to_the_chunk() {
    let t = both("a = alloc 8 align 64\nb = alloc 300 align 4096\n", None);
    // 256 + 64 + 32 = 352 -> 512; the first usable byte, base + 32, is
    // rounded up to 64.
    assert_eq!(t.chunks[0].size, 512);
    assert_eq!(t.ops[0].address.unwrap() % 64, 0);
    // max(256, 0) + 300 + 4096 + 32 = 4684 -> 8192.
    assert_eq!(t.chunks[1].size, 8192);
    assert_eq!(t.ops[1].address.unwrap() % 4096, 0);
}

#[test]
fn growing_the_last_block_is_in_place_and_shrinking_never_moves() {
    let t = both(
        "a = alloc 16\nb = realloc a 100\nc = realloc b 10\nd = alloc 8\ne = realloc c 50\n",
        None,
    );
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!(t.ops[1].bump_ptr, Some(t.chunks[0].start + 100));
    // Shrinking keeps the block and every byte of it.
    assert_eq!(t.ops[2].moved, Some(false));
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    // Not the last block any more: a copy, in the same chunk.
    assert_eq!(t.ops[4].moved, Some(true));
    assert_eq!((t.ops[4].chunk, t.ops[4].offset), (Some(0), Some(108)));
    assert!(t.ops[4].events.iter().any(|e| e.kind == EventKind::Copied));
    // The last block without room: a new chunk.
    let t = both(
        "a = alloc 400\nb = realloc a 470\nc = realloc b 481\n",
        None,
    );
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!((t.ops[2].moved, t.ops[2].chunk), (Some(true), Some(1)));
}

#[test]
fn deallocate_gives_nothing_back() {
    let t = both(
        "a = alloc 8\nb = alloc 24\nfree b\nfree a\nc = alloc 8\n",
        None,
    );
    // The cursor is compared with the freed block's start; it is at its end.
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    assert!(t.ops[2].reclaimed.is_empty());
    assert_eq!(t.ops[4].offset, Some(32));
    assert!(t.ops[2]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("block's start")));
}

#[test]
fn reset_keeps_the_newest_chunk_and_forgets_the_total() {
    let src = format!("{}reset\n{}", repeated("400", 9), repeated("600", 8));
    let t = both(&src, None);
    let reset = 9;
    assert_eq!(capacities(&t)[..4], [480, 992, 992, 2016]);
    let freed: Vec<_> = t.chunks.iter().filter_map(|c| c.freed_by).collect();
    assert_eq!(freed, [reset, reset, reset]);
    // The newest chunk (2016 usable) stays, empty.
    assert_eq!(t.chunks[3].freed_by, None);
    assert_eq!(t.ops[reset as usize].bump_ptr, Some(t.chunks[3].start));
    // Three 600-byte blocks fit it; the fourth needs a chunk sized from a
    // total of 0 again: max(256, 0) + 600 + 32 = 888 -> 1024.
    assert_eq!(t.chunks[4].capacity, 992);
    assert_eq!(t.chunks[4].created_by, Some(reset + 4));
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::BlinkAlloc);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
    // The slow path is its own cold function, returning one word.
    assert!(text.contains(
        "#[cold]\n    #[inline(never)]\n    fn alloc_slow<P: Probe<W>>(\n        &mut self,\n        heap: &mut Heap<W>,\n        layout: Layout<W>,\n        p: &mut P,\n    ) -> Allocated<W>"
    ));
}

/// Random programs compared per run.
const PROGRAMS: u64 = 320;

#[test]
fn random_programs_match_the_real_crate() {
    let base = base_seed();
    let mut cov = Coverage::default();
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &blink_diff::MIX);
        let (t, model) = run_model(PRESET, native_target(), capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real = blink_diff::run_real(&steps, capacity);
        if let Err(e) = compare("blink-alloc", seed, capacity, &steps, &model, &real) {
            panic!("{e}");
        }
        // blink-alloc's chunks have no oversized reason: a request larger than
        // every chunk before it is what gets a chunk sized for itself.
        cov.record_with(&t, larger_than_every_chunk);
    }
    println!("{}", cov.summary("blink-alloc 0.4.0 (64-bit)"));
    cov.require(
        "blink-alloc",
        &[
            ("a new chunk", cov.new_chunks),
            ("an oversized request", cov.oversized),
            ("a moved realloc", cov.realloc_moved),
            ("an in-place realloc", cov.realloc_in_place),
            ("a shrink", cov.shrinks),
            ("a free", cov.frees),
            ("a reset", cov.resets),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen capacity", cov.capacities),
        ],
    );
    assert!(cov.programs >= 256);
}
