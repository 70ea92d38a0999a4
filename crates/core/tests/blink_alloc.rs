//! The blink-alloc preset against blink-alloc 0.4.0 itself: cases with the
//! numbers its source gives, each also run on the real crate, the edges of
//! every rule, the emulated checkpoints, and random programs compared op by
//! op. The crate runs where this test does: natively for 64-bit, and for
//! wasm32 the same file built for wasm32-wasip1 and run under Node's
//! node:wasi (`cargo test --target wasm32-wasip1 -p bumplab-core --test
//! blink_alloc`; .cargo/config.toml names the runner), the real code on the
//! real 32-bit target. The numbers below are written for either word size
//! (`H`, the chunk header, is 32 bytes on 64-bit, 16 on wasm32).
//!
//! blink-alloc has no checkpoints: the playground's emulation frees the
//! chunks made since and puts the saved chunk back as the current one with
//! its cursor, which leaves the arena exactly as it was at the checkpoint
//! (older chunks keep the cumulative size they were made with). So a
//! program with restores is compared with the crate running the ops each
//! restore leaves in effect (`arena_diff::compare_undone`).

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/blink_diff.rs"]
mod blink_diff;
#[path = "common/sim_heap.rs"]
mod sim_heap;

use arena_diff::{
    base_seed, compare_undone, larger_than_every_chunk, largest_request, last_true, model_or_stop,
    native_target, parse_steps, program, program_text, repeated, run_model, seed_of, Coverage,
    Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::blink_alloc::{self as model, BlinkAlloc};
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};

const PRESET: PresetId = PresetId::BlinkAlloc;
/// The chunk header on the target this runs on.
const H: u64 = blink_diff::HEADER;
/// The word on the target this runs on.
const WORD: u64 = H / 4;
/// blink-alloc's `CHUNK_START_SIZE`: the first chunk's size before the header.
const CHUNK_START: u64 = 256;

/// Runs `src` on the model and on the real crate, asserts they agree op by
/// op (through the emulation's definition when it has checkpoints), and
/// returns the model's trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let target = native_target();
    let (t, model) = run_model(PRESET, target, capacity, &steps).unwrap();
    let what = format!("blink-alloc on {target:?}");
    compare_undone(&what, 0, capacity, &steps, &model, |s| {
        blink_diff::run_real_partly(s, capacity).map_err(|(_, e)| e)
    })
    .unwrap_or_else(|e| panic!("{e}"));
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
    assert_eq!(H, 4 * std::mem::size_of::<usize>() as u64);
    let t = both("a = alloc 8\nb = alloc 8 align 8\n", None);
    let c = &t.chunks[0];
    // 256 + the header (288 or 272), rounded up to a power of two.
    assert_eq!(
        (c.size, c.header, c.footer, c.capacity),
        (512, H, 0, 512 - H)
    );
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.start, c.base + H);
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
    // First: 256 + H -> 512. Each next: max(256, the capacities before the
    // current chunk) + 400 + H, rounded up (64-bit: 0 -> 688 -> 1024;
    // 480 -> 912 -> 1024; 1472 -> 1904 -> 2048; 2464 -> 2896 -> 4096). One,
    // two, two, five and ten 400-byte blocks fit.
    assert_eq!(
        capacities(&t),
        [512 - H, 1024 - H, 1024 - H, 2048 - H, 4096 - H]
    );
    assert!(t.chunks[1..].iter().all(|c| c.reason == ChunkReason::Full));
    // A chosen starting size sets the first chunk and the floor after it.
    let t = both(&repeated("400", 3), Some(1024));
    assert_eq!(capacities(&t), [2048 - H]);
}

#[test]
fn an_oversized_request_gets_a_chunk_sized_for_it_that_becomes_current() {
    let t = both(
        "a = alloc 8\nb = alloc 20000\nc = alloc 8\nd = alloc 13000\n",
        None,
    );
    // 256 + 20000 + H: 16 KiB or more, so rounded up to 32 KiB. The next
    // chunk counts the first one only (512 - H before the current one):
    // 512 + 13000, under 16 KiB, so 16384.
    assert_eq!(capacities(&t), [512 - H, 32768 - H, 16384 - H]);
    assert_eq!(t.ops[1].offset, Some(0));
    assert_eq!((t.ops[2].chunk, t.ops[2].offset), (Some(1), Some(20000)));
    // The rest of the big chunk (12728 bytes on 64-bit) is left behind.
    assert_eq!((t.ops[3].chunk, t.ops[3].offset), (Some(2), Some(0)));
}

#[test]
fn an_alignment_above_a_word_adds_itself_to_the_chunk() {
    let t = both("a = alloc 8 align 64\nb = alloc 300 align 4096\n", None);
    // 256 + 64 + H -> 512; the first usable byte, base + H, is rounded up
    // to 64.
    assert_eq!(t.chunks[0].size, 512);
    assert_eq!(t.ops[0].address.unwrap() % 64, 0);
    // max(256, 0) + 300 + 4096 + H -> 8192.
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
    let cap = 512 - H;
    let t = both(
        &format!(
            "a = alloc 400\nb = realloc a {}\nc = realloc b {}\n",
            cap - 10,
            cap + 1
        ),
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
    assert_eq!(capacities(&t)[..4], [512 - H, 1024 - H, 1024 - H, 2048 - H]);
    let freed: Vec<_> = t.chunks.iter().filter_map(|c| c.freed_by).collect();
    assert_eq!(freed, [reset, reset, reset]);
    // The newest chunk (2048 - H usable) stays, empty.
    assert_eq!(t.chunks[3].freed_by, None);
    assert_eq!(t.ops[reset as usize].bump_ptr, Some(t.chunks[3].start));
    // Three 600-byte blocks fit it; the fourth needs a chunk sized from a
    // total of 0 again: max(256, 0) + 600 + H -> 1024.
    assert_eq!(t.chunks[4].capacity, 1024 - H);
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

// ---------------------------------------------------------------------------
// The emulated checkpoint.

#[test]
fn restore_frees_the_chunks_made_since_and_puts_the_cursor_back() {
    let t = both(
        "a = alloc 100\ncheckpoint c0\nb = alloc 1000\nc = alloc 3000\nrestore c0\nd = alloc 8\ne = alloc 1000\n",
        None,
    );
    // b and c each opened a chunk, which the restore frees.
    assert_eq!(t.chunks[1].freed_by, Some(4));
    assert_eq!(t.chunks[2].freed_by, Some(4));
    assert_eq!(t.ops[4].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!((t.ops[5].chunk, t.ops[5].offset), (Some(0), Some(100)));
    // The next chunk is sized from the chunks kept, as b's was: the same size.
    assert_eq!(t.chunks[3].size, t.chunks[1].size);
    assert!(t.ops[4]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("playground's emulation")));
}

#[test]
fn a_restore_to_before_the_first_chunk_frees_every_chunk() {
    let t = both(
        "checkpoint c0\na = alloc 8\nb = alloc 9000\nrestore c0\nc = alloc 8\n",
        None,
    );
    assert_eq!(t.ops[3].stats.chunks, 0);
    assert_eq!(t.ops[3].bump_ptr, None);
    assert_eq!(t.chunks[2].size, 512);
}

// ---------------------------------------------------------------------------
// The edges of every rule, each compared with the real crate.

/// The size of the chunk the second request of `a = alloc 8; b = alloc n
/// align a` makes (or 0 if it makes none), on the model.
fn second_chunk(n: u64, align: u64, cap: Option<u64>) -> u64 {
    let src = format!("a = alloc 8\nb = alloc {n} align {align}\n");
    let (t, _) = run_model(PRESET, native_target(), cap, &parse_steps(&src)).unwrap();
    t.chunks.get(1).map_or(0, |c| c.size)
}

#[test]
fn edges_match_the_real_crate() {
    let mut cases: Vec<(String, Option<u64>)> = vec![
        // The word, and 1 and 2 (blink-alloc has no minimum alignment).
        (format!("a = alloc 1\nb = alloc 8 align {WORD}\nc = alloc 3 align 1\nd = alloc 3 align 2\ne = alloc 1 align {WORD}\n"), None),
        // A page's alignment, in the current chunk and in a new one.
        ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 5000 align 4096\nd = alloc 1\n".into(), None),
        // Size 0: a real request, the first chunk included.
        ("a = alloc 0 align 4096\nb = alloc 0\nc = alloc 1\nd = realloc c 0\ne = alloc 0 align 16\n".into(), None),
    ];
    // A request that exactly fills the chunk after a first block (and after
    // padding), and one byte more.
    for (cap, first, align) in [
        (None, 1, 1),
        (None, 3, 64),
        (Some(16), 1, WORD),
        (Some(4096), 100, 4096),
    ] {
        let fits = |n: u64| {
            let src = format!("a = alloc {first}\nb = alloc {n} align {align}\n");
            let (t, _) = run_model(PRESET, native_target(), cap, &parse_steps(&src)).unwrap();
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
    // The next chunk's size at each power of two below 16 KiB and at each
    // 16 KiB step above, for alignments of 1, the word, twice the word and a
    // page (the word is where the chunk stops counting the alignment in:
    // only an alignment above it adds itself): the largest request that
    // keeps the chunk at the boundary, and one more byte.
    for align in [1, WORD, 2 * WORD, 4096] {
        for bound in [1024, 2048, 16384, 32768, 49152] {
            let floor = second_chunk(1, align, None);
            if floor > bound {
                continue;
            }
            let n = last_true(1, 1 << 20, |n| second_chunk(n, align, None) <= bound);
            for n in [n, n + 1] {
                cases.push((
                    format!("a = alloc 8\nb = alloc {n} align {align}\nc = alloc 1\n"),
                    None,
                ));
            }
        }
    }
    for (src, cap) in &cases {
        both(src, *cap);
    }
}

/// The micro-steps op `i` of `t` recorded, by id.
fn step_ids(t: &Trace, i: usize) -> Vec<&str> {
    t.ops[i]
        .events
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.id.as_str()))
        .collect()
}

#[test]
fn a_chunk_of_exactly_16_kib_is_rounded_to_a_multiple_of_16_kib() {
    // The crate rounds `chunk_size < CHUNK_POWER_OF_TWO_THRESHOLD` up to a
    // power of two, anything else up to a multiple of 16 KiB. At exactly
    // 16 KiB (256 + n + H) both give 16384: the step the code view lights
    // is the one that tells them apart. One byte less is a power of two.
    let n = 16384 - CHUNK_START - H;
    for (n, taken, not) in [
        (n, "round_16k", "round_pow2"),
        (n - 1, "round_pow2", "round_16k"),
    ] {
        let t = both(&format!("a = alloc 8\nb = alloc {n}\n"), None);
        assert_eq!(t.chunks[1].size, 16384, "{n}");
        let steps = step_ids(&t, 1);
        assert!(
            steps.contains(&taken) && !steps.contains(&not),
            "{n}: {steps:?}"
        );
    }
}

/// How `steps` end on the model and on the crate, compared up to where
/// they stop: both run every op, or both stop at the same op (the model has
/// no room for the chunk where the crate's allocate fails).
fn both_until_stop(steps: &[Step]) -> Result<(), (usize, String)> {
    let target = native_target();
    let model = model_or_stop(PRESET, target, None, None, steps);
    if matches!(&model, Err((_, why)) if why.contains("isize::MAX")) {
        return model.map(|_| ());
    }
    let real = blink_diff::run_real_partly(steps, None);
    match (model, real) {
        (Ok(_), Ok(_)) => {
            both(&program_text(steps), None);
            Ok(())
        }
        (Err((k, why)), Err((ops, err))) => {
            assert!(why.contains("no room"), "{target:?}: {why}");
            assert_eq!(k, ops.len(), "{target:?}: {err}");
            both(&program_text(&steps[..k]), None);
            Err((k, why))
        }
        (m, r) => panic!(
            "{target:?}: model {:?}, real {:?}",
            m.map(|_| ()),
            r.map(|_| ())
        ),
    }
}

/// Set in the environment of the child process the largest-request test
/// starts to run the real crate on its program (see below).
const RUN_REAL_FROM_ENV: &str = "BUMPLAB_BLINK_PROGRAM";

#[test]
fn the_largest_request_the_target_allows() {
    if let Ok(src) = std::env::var(RUN_REAL_FROM_ENV) {
        // The child: the real crate on the program, which aborts.
        let _ = blink_diff::run_real_partly(&parse_steps(&src), None);
        return;
    }
    let target = native_target();
    for align in [1, WORD, 4096] {
        let big = largest_request(target, align);
        let src = |n: u64| format!("a = alloc 8\nb = alloc {n} align {align}\nc = alloc 8\n");
        // The largest request whose chunk still has a Layout (at most
        // isize::MAX), found on the model, runs the same on both.
        let valid = |n: u64| {
            !matches!(
                model_or_stop(PRESET, target, None, None, &parse_steps(&src(n))),
                Err((_, why)) if why.contains("isize::MAX")
            )
        };
        let n = last_true(1, big, valid);
        assert!(
            n < big && n > big - (1 << 16),
            "{target:?} align {align}: {n}"
        );
        let _ = both_until_stop(&parse_steps(&src(n)));
        // One more byte, and the largest request the target allows: the
        // crate makes a Layout past isize::MAX without a check. The model
        // stops there and says so.
        for m in [n + 1, big] {
            let stop = both_until_stop(&parse_steps(&src(m)));
            assert!(
                matches!(&stop, Err((1, why)) if why.contains("isize::MAX")),
                "{target:?}: {stop:?}"
            );
        }
        // Natively, the crate itself is run on the largest request in a
        // child process (this test, asked to by the environment): its debug
        // build's check of `from_size_align_unchecked` aborts it. A wasm32
        // test cannot start a process, so there the model's side is all
        // that runs.
        if cfg!(target_pointer_width = "64") {
            let out = std::process::Command::new(std::env::current_exe().unwrap())
                .args([
                    "--exact",
                    "the_largest_request_the_target_allows",
                    "--nocapture",
                    "--test-threads",
                    "1",
                ])
                .env(RUN_REAL_FROM_ENV, src(big))
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert!(
                !out.status.success(),
                "align {align}: the crate did not stop"
            );
            assert!(
                err.contains("unsafe precondition(s) violated: Layout::from_size_align_unchecked"),
                "align {align}: {err}"
            );
        }
    }
}

#[test]
fn a_chunk_within_16_kib_of_the_top_of_wasm32_is_aligned_to_its_word_then_stops() {
    // Within 16 KiB of the top of the address space, rounding a chunk's
    // size up to a multiple of 16 KiB overflows and the crate keeps the
    // size as it is; `alloc_chunk` then rounds it up to the header's word
    // (an overflow there is a clean AllocError) and makes its Layout
    // without a check, past isize::MAX: undefined behaviour, where the
    // model stops and says so. Only wasm32 gets there: the chunks before
    // must count about 2 GiB, and on 64-bit the heap holds 4 GiB of the 16
    // EiB. (Checked on the model alone: the crate built for wasm32 cannot
    // hold the 3 GiB of chunks this takes under node:wasi.)
    const GIB: u64 = 1 << 30;
    let before = format!("a = alloc {GIB}\nb = alloc {GIB}\nc = alloc 16369\n");
    let t = trace_on(&before, Target::Wasm32);
    // 2^30 + 16 (the header), rounded up to 16 KiB, twice; the third chunk
    // counts the first one (2^30 + 16368 usable) plus 16369 + 16: 2^30 +
    // 32753, rounded up to 2^30 + 32 KiB.
    let caps = capacities(&t);
    assert_eq!(caps, [GIB + 16368, GIB + 16368, GIB + 32768 - 16]);
    // The current chunk counts the two before it; a request of n makes a
    // chunk of those + n + the header: the last word of the address space,
    // 2^32 - 4, for this n.
    let n = (1 << 32) - 4 - 16 - (caps[0] + caps[1]);
    assert_eq!(n, (1 << 31) - 32756);
    let stop = |n: u64| {
        let src = format!("{before}d = alloc {n}\n");
        let opts = Options {
            target: Target::Wasm32,
            ..Options::default()
        };
        run(&src, PRESET, &opts).map(|_| ()).unwrap_err().message
    };
    assert!(stop(n).contains("isize::MAX"), "{}", stop(n));
}

/// Random programs compared per run.
const PROGRAMS: u64 = 320;

#[test]
fn random_programs_match_the_real_crate() {
    let base = base_seed();
    let mut cov = Coverage::default();
    let target = native_target();
    let what = format!("blink-alloc 0.4.0 on {target:?}");
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &blink_diff::MIX);
        let (t, model) = run_model(PRESET, target, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare_undone(&what, seed, capacity, &steps, &model, |s| {
            blink_diff::run_real_partly(s, capacity).map_err(|(_, e)| e)
        }) {
            panic!("{e}");
        }
        // blink-alloc's chunks have no oversized reason: a request larger than
        // every chunk before it is what gets a chunk sized for itself.
        cov.record_with(&t, larger_than_every_chunk);
    }
    println!("{}", cov.summary(&what));
    cov.require(
        &what,
        &[
            ("a new chunk", cov.new_chunks),
            ("an oversized request", cov.oversized),
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
        &what,
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
