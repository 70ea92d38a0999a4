//! The zig-arena preset against Zig's real std.heap.ArenaAllocator (the
//! standard library of PyPI's ziglang 0.17.1), built by that Zig into a
//! harness (tests/native/zig_heaps.zig) for this machine (64-bit) and for
//! wasm32-wasi (run under Node's node:wasi), over both child allocators the
//! preset offers: `std.heap.page_allocator` (the default), the real one on
//! each target, and the simulated heap's algorithm, which never resizes in
//! place. Cases with the numbers the source gives, the edges of every rule,
//! the emulated checkpoints (done on the real arena's fields as the model
//! documents them), and random programs compared op by op on each target
//! and child.
//!
//! Over the simulated heap both sides get the same buffers at the same
//! addresses, so every address agrees. Over page_allocator the system
//! chooses where mappings go: chunks are compared by id, size (what the
//! child reserved) and capacity, blocks by chunk and offset.

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;
#[path = "common/zig_arena_diff.rs"]
mod zig_arena_diff;

use arena_diff::{
    base_seed, compare, larger_than_every_chunk, largest_request, last_true, parse_steps, program,
    program_text, repeated, seed_of, Coverage, Mix,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::model::Child;
use bumplab_core::models::zig_arena::{self as model, ZigArena};
use bumplab_core::models::zig_page::PAGE_SIZE;
use bumplab_core::source::Source;
use bumplab_core::trace::OpKind;
use bumplab_core::Target;
use zig_arena_diff::{
    both, both_on, harness, has_note, model_run, offsets, real, sizes, step_values, word, CHILDREN,
    PRESET, TARGETS,
};

// ---------------------------------------------------------------------------
// The simulated heap as the child: a buffer that fills is followed by a new one.

#[test]
fn each_buffer_opens_with_its_node() {
    assert_eq!(ZigArena::<u64>::NODE_SIZE, 24);
    assert_eq!(ZigArena::<u32>::NODE_SIZE, 12);
    let t = both(Child::Heap, "a = alloc 8\nb = alloc 100 align 16\n", None);
    // 1.5 x (0 + 24 + 1 + 8 + 16) = 73.5, rounded up to even: 74.
    let c = &t.chunks[0];
    assert_eq!((c.size, c.header, c.capacity), (74, 24, 50));
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!(t.ops[0].offset, Some(0));
    // b does not fit the 42 bytes left: 1.5 x (50 + 24 + 16 + 100 + 16) = 309 -> 310.
    assert_eq!(sizes(&t), [74, 310]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Full);
    assert_eq!(t.ops[1].address.unwrap() % 16, 0);
    // The arena first asked its child to grow the buffer in place.
    assert!(has_note(&t, 1, "never resizes in place"));
}

#[test]
fn buffers_grow_from_the_last_one() {
    let t = both(Child::Heap, &repeated("100", 12), None);
    // big = the last buffer's usable bytes + 24 + 1 + 100 + 16; the size is
    // big + big / 2 rounded up to even: 141 -> 212 (188 usable, one block);
    // 329 -> 494 (470, four blocks); 611 -> 916 (892, the other eight).
    assert_eq!(sizes(&t), [212, 494, 916]);
}

#[test]
fn only_the_last_allocation_resizes_or_frees() {
    for child in CHILDREN {
        let t = both(
            child,
            "a = alloc 16\nb = alloc 16\nc = realloc a 8\nd = realloc b 24\nfree d\ne = alloc 4\nf = realloc c 40\n",
            None,
        );
        // a is not last: shrinking is accepted in place, nothing comes back.
        assert_eq!(t.ops[2].moved, Some(false));
        assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
        // b is last: it grows in place, and its bytes come back when freed.
        assert_eq!(t.ops[3].moved, Some(false));
        assert_eq!(t.ops[4].bump_ptr, Some(t.chunks[0].start + 16));
        assert_eq!(t.ops[5].offset, Some(16));
        // Growing a block that is not last: a new block, a copy.
        assert_eq!(t.ops[6].moved, Some(true));
    }
}

#[test]
fn reset_keeps_one_buffer_as_large_as_all_of_them() {
    let t = both(
        Child::Heap,
        &format!("{}reset\n{}", repeated("100", 12), repeated("100", 12)),
        None,
    );
    // 188 + 470 + 892 usable bytes, plus the node: one buffer of 1574.
    let kept = t.chunks.last().unwrap();
    assert_eq!(kept.size, 24 + 188 + 470 + 892);
    assert_eq!(kept.created_by, Some(12));
    assert_eq!(kept.reason, ChunkReason::First);
    assert_eq!(t.ops[12].stats.chunks, 1);
    // The same work fits it now: no new buffer after the reset.
    assert_eq!(t.chunks.len(), 4);
    assert!(t.ops[13..].iter().all(|o| o.chunk == Some(kept.id)));
    // With a limit (the Capacity knob) the buffer is at most that.
    let t = both(
        Child::Heap,
        &format!("{}reset\n", repeated("100", 12)),
        Some(992),
    );
    assert_eq!(t.chunks.last().unwrap().size, 24 + 992);
}

// ---------------------------------------------------------------------------
// page_allocator as the child: buffers grow in place inside what it reserved.

#[test]
fn page_allocator_reserves_whole_pages_and_the_first_buffer_grows_inside_its_page() {
    let t = both(Child::Page, &repeated("100", 21), None);
    // The arena asked for 212 bytes, page_allocator mapped a page: a chunk
    // of 4096 bytes whose node says 212.
    let c = &t.chunks[0];
    assert_eq!(
        (c.size, c.header, c.capacity),
        (PAGE_SIZE, 24, PAGE_SIZE - 24)
    );
    assert_eq!(c.base % PAGE_SIZE, 0);
    assert_eq!(
        step_values(&t, 0, "child_alloc"),
        [vec![("size", 212), ("base", c.base)]]
    );
    // Each later request passes the node's size and is granted in place
    // inside the page; the block goes after end_index, which the attempt
    // that did not fit had already moved on by 100: a 100-byte gap before
    // each block.
    assert_eq!(
        step_values(&t, 1, "child_resize:granted"),
        [vec![("aligned_index", 200), ("wanted", 324)]]
    );
    assert!(has_note(&t, 1, "grows this buffer in place"));
    let in_page: Vec<Option<u64>> = (0..20).map(|i| Some(200 * i)).collect();
    assert_eq!(offsets(&t)[..20], in_page);
    assert!(t.ops[1..20]
        .iter()
        .all(|o| o.padding == Some(100) && o.chunk == Some(0)));
    // The 21st would need 24 + 4000 + 100 = 4124 bytes, past the page: a new
    // buffer of 1.5 x (3900 + 24 + 1 + 100 + 16) = 6061.5 -> 6062, two pages.
    assert!(has_note(&t, 20, "needs more than page_allocator reserved"));
    assert_eq!(sizes(&t), [PAGE_SIZE, 2 * PAGE_SIZE]);
    assert_eq!(step_values(&t, 20, "child_alloc")[0][0], ("size", 6062));
    assert_eq!((t.ops[20].chunk, t.ops[20].offset), (Some(1), Some(0)));
    // Mapped just below the first, as page_allocator's hint asks.
    assert_eq!(t.chunks[1].base + 2 * PAGE_SIZE, t.chunks[0].base);
}

#[test]
fn page_allocator_on_wasm32_grows_a_buffer_within_its_size_class() {
    let t = both_on(Target::Wasm32, Child::Page, &repeated("100", 4), None);
    // 1.5 x (12 + 1 + 100 + 16) = 193.5 -> 194 bytes asked: with the 4-byte
    // free-list word, the 256-byte class: 252 bytes the buffer may grow to.
    let c = &t.chunks[0];
    assert_eq!((c.size, c.header, c.capacity), (252, 12, 240));
    // The second block would need 12 + 200 + 100 = 312: the 512 class, not
    // a resize. A new buffer: 1.5 x (182 + 12 + 1 + 100 + 16) = 466.5 -> 466,
    // the 512 class (508 reserved), in a big page of its own.
    assert_eq!(sizes(&t), [252, 508]);
    assert_eq!(t.chunks[1].base - t.chunks[0].base, 65536);
    assert!(has_note(&t, 1, "size class on wasm32"));
}

#[test]
fn a_zero_sized_request_never_reaches_the_arena() {
    let src = "a = alloc 0 align 8\nb = alloc 8\nc = realloc a 16\nd = realloc c 0\n";
    for child in CHILDREN {
        let t = both(child, src, None);
        // Shown at its alignment; Zig's own pointer is checked below.
        assert_eq!((t.ops[0].address, t.ops[0].chunk), (Some(8), None));
        assert!(has_note(&t, 0, "maxInt(usize)"));
        assert_eq!(t.ops[1].offset, Some(0));
        // From zero size a realloc allocates; to zero size it frees.
        assert_eq!(t.ops[2].moved, Some(true));
        assert_eq!(t.ops[3].address, Some(8));
        assert_eq!(t.ops[3].bump_ptr, t.ops[1].bump_ptr);
    }
    // What Zig itself hands out: maxInt(usize) rounded down to 8.
    let steps = parse_steps(src);
    for (target, want) in [
        (Target::W64, u64::MAX - 7),
        (Target::Wasm32, u64::from(u32::MAX - 7)),
    ] {
        let mut h = harness(target).lock().unwrap();
        h.set_mode("arena");
        let raw = h.run(None, &steps).unwrap();
        assert_eq!((raw[0].address, raw[3].address), (Some(want), Some(want)));
    }
    assert_eq!(model::zig_dangling(8u64), u64::MAX - 7);
    assert_eq!(model::zig_dangling(4u32), u32::MAX - 3);
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::ZigArena);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
}

// ---------------------------------------------------------------------------
// The emulated checkpoint, done on the real arena's fields by the harness.

#[test]
fn restore_frees_the_buffers_made_since_and_puts_end_index_back() {
    let src =
        "a = alloc 100\ncheckpoint c0\nb = alloc 5000\nc = alloc 10\nrestore c0\nd = alloc 50\n";
    for target in TARGETS {
        for child in CHILDREN {
            let t = both_on(target, child, src, None);
            let c0 = t.chunks[0].id;
            // b opened a second buffer, which the restore gives back.
            assert_eq!(t.ops[2].chunk, Some(1), "{target:?} {child:?}");
            assert_eq!(t.chunks[1].freed_by, Some(4));
            assert!(has_note(&t, 4, "playground's emulation"));
            // The saved buffer is first again, its end_index where it was.
            assert_eq!(t.ops[4].bump_ptr, t.ops[1].bump_ptr);
            assert_eq!(t.ops[4].stats.chunks, 1);
            assert_eq!((t.ops[5].chunk, t.ops[5].offset), (Some(c0), Some(100)));
        }
    }
}

#[test]
fn restore_keeps_a_buffer_page_allocator_grew_since() {
    // a fills the node's 212 bytes but for 88; b passes it and is granted
    // in place (after a 100-byte gap): the node now says 24 + 300 + 100.
    let src = "a = alloc 100\ncheckpoint c0\nb = alloc 100\nrestore c0\nc = alloc 150\n";
    let t = both_on(Target::W64, Child::Page, src, None);
    assert_eq!(t.ops[2].offset, Some(200));
    assert_eq!(t.ops[3].bump_ptr, t.ops[0].bump_ptr);
    // The buffer keeps its grown size (300 usable): c fits it without
    // asking again.
    assert_eq!(
        (t.ops[4].chunk, t.ops[4].offset, t.ops[4].padding),
        (Some(0), Some(100), Some(0))
    );
    assert!(step_values(&t, 4, "child_resize:granted").is_empty());
    // Over the simulated heap b made a new buffer, which the restore frees.
    let t = both_on(Target::W64, Child::Heap, src, None);
    assert_eq!(t.chunks.len(), 3);
    assert_eq!(t.chunks[1].freed_by, Some(3));
    assert_eq!(t.ops[4].chunk, Some(2));
}

#[test]
fn a_restore_to_before_the_first_buffer_frees_every_buffer() {
    let src = "checkpoint c0\na = alloc 100\nb = alloc 9000\nrestore c0\nc = alloc 8\ncheckpoint c1\nrestore c1\n";
    for target in TARGETS {
        for child in CHILDREN {
            let t = both_on(target, child, src, None);
            assert_eq!(t.ops[3].stats.chunks, 0, "{target:?} {child:?}");
            assert_eq!(t.ops[3].bump_ptr, None);
            // A restore right after its checkpoint changes nothing.
            assert_eq!(t.ops[6].bump_ptr, t.ops[5].bump_ptr);
            assert_eq!(t.ops[6].stats.chunks, 1);
        }
    }
}

// ---------------------------------------------------------------------------
// The edges of every rule, each compared with the real arena.

/// The buffer sizes at which page_allocator's reservation changes: whole
/// pages on 64-bit; on wasm32 its size classes (a slot less the 4-byte
/// free-list word) and powers of two of 64 KiB pages (less 8 bytes).
fn reservation_boundaries(target: Target) -> Vec<u64> {
    match target {
        Target::W64 => vec![PAGE_SIZE, 2 * PAGE_SIZE, 16 * PAGE_SIZE],
        Target::Wasm32 => {
            let mut b: Vec<u64> = (6..=15).map(|k| (1u64 << k) - 4).collect();
            b.extend([65536 - 8, 2 * 65536 - 8]);
            b
        }
    }
}

fn edges_match_zig_on(target: Target) {
    let w = word(target);
    for child in CHILDREN {
        let first_size = |n: u64| -> u64 {
            let (t, _) = model_run(
                target,
                child,
                None,
                &parse_steps(&format!("a = alloc {n}\n")),
            )
            .unwrap();
            t.chunks[0].size
        };
        let mut cases: Vec<(String, Option<u64>)> = vec![
            // The word, and 1 and 2: the arena aligns nothing for free
            // (no minimum alignment, as if MIN_ALIGN were 1).
            (format!("a = alloc 1\nb = alloc 8 align {w}\nc = alloc 3 align 1\nd = alloc 3 align 2\ne = alloc 1 align {w}\n"), None),
            // A page's alignment, in the current buffer and in a new one.
            ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 5000 align 4096\n".into(), None),
            // Size 0, from and to a block.
            ("a = alloc 0\nb = alloc 0 align 4096\nc = alloc 1\nd = alloc 0 align 16\ne = realloc c 0\nf = realloc d 8\n".into(), None),
            // reset's limit below, at and above what the buffers hold.
            (format!("{}reset\nz = alloc 8\n", repeated("100", 12)), Some(16)),
            (format!("{}reset\nz = alloc 8\n", repeated("100", 12)), Some(4096)),
        ];
        // A second request that exactly fills the first buffer (the
        // node's size over the simulated heap, what page_allocator
        // reserved over it), and one byte more.
        // Over page_allocator, also after a first buffer of 45,044 bytes
        // (for 30,000): on wasm32 that is one 64 KiB big page, which
        // page_allocator grows in place by counting big pages, not by its
        // size classes.
        let firsts: &[u64] = match child {
            Child::Page => &[8, 30000],
            Child::Heap => &[8],
        };
        for &first in firsts {
            let fits = |n: u64| {
                let src = format!("a = alloc {first}\nb = alloc {n}\n");
                let (t, _) = model_run(target, child, None, &parse_steps(&src)).unwrap();
                t.chunks.len() == 1
            };
            let fill = last_true(0, 1 << 20, fits);
            for n in [fill, fill + 1] {
                cases.push((
                    format!("a = alloc {first}\nb = alloc {n}\nc = alloc 1\n"),
                    None,
                ));
            }
        }
        // The first buffer's size at each boundary of the child's
        // reservation, and the growth from there.
        if child == Child::Page {
            for r in reservation_boundaries(target) {
                let n = last_true(1, 1 << 24, |n| first_size(n) <= r);
                for n in [n, n + 1] {
                    cases.push((
                        format!("a = alloc {n}\nb = alloc 100\nc = alloc {r}\n"),
                        None,
                    ));
                }
            }
        }
        // The size's rounding up to even: odd and even 1.5 x sums.
        for n in [8, 9] {
            cases.push((format!("a = alloc {n}\nb = alloc {n}\n"), None));
        }
        for (src, cap) in &cases {
            both_on(target, child, src, *cap);
        }
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

/// How a program that may stop ends on each side, compared: the same ops
/// up to where both stop, and both stop at the same op for the same reason
/// (the model says the base allocator has no room where the real arena's
/// request fails with OutOfMemory, and it says Zig's arithmetic overflows
/// where the real arena panics).
fn both_until_stop(target: Target, child: Child, src: &str) -> Option<usize> {
    let steps = parse_steps(src);
    let model = arena_diff::model_or_stop(PRESET, target, None, Some(child), &steps);
    let mut h = harness(target).lock().unwrap_or_else(|e| e.into_inner());
    h.set_mode(match child {
        Child::Page => "arena-page",
        Child::Heap => "arena",
    });
    let real = h.run_partly(None, &steps);
    drop(h);
    let what = format!("zig-arena over {child:?} on {target:?}: {src:?}");
    match (model, real) {
        (Ok(_), Ok(_)) => {
            both_on(target, child, src, None);
            None
        }
        (Err((k, why)), Ok(raw)) => {
            assert!(
                why.contains("no room"),
                "{what}: the model stopped at op {k}: {why}"
            );
            assert!(
                raw[k].failed,
                "{what}: the model had no room at op {k}, the real arena did not fail there"
            );
            let prefix = program_text(&steps[..k]);
            both_on(target, child, &prefix, None);
            Some(k)
        }
        (Err((k, why)), Err((ops, err))) => {
            assert!(
                why.contains("integer overflow"),
                "{what}: the model stopped at op {k}: {why}"
            );
            assert!(
                err.contains("panic: integer overflow"),
                "{what}: the real arena stopped: {err}"
            );
            assert_eq!(
                ops.len(),
                k,
                "{what}: the real arena panicked at op {}, the model at {k}",
                ops.len()
            );
            let prefix = program_text(&steps[..k]);
            both_on(target, child, &prefix, None);
            Some(k)
        }
        (Ok(_), Err((ops, err))) => {
            panic!("{what}: the real arena stopped at op {}: {err}", ops.len())
        }
    }
}

fn the_largest_requests_overflow_zigs_size_arithmetic_as_the_model_says_on(target: Target) {
    for child in CHILDREN {
        let largest = largest_request(target, 1);
        // After a first buffer, the grown size (node + the overshot
        // end_index + the request) passes maxInt(usize): a panic.
        let src = format!("a = alloc 8\nb = alloc {largest}\n");
        let t = arena_diff::model_or_stop(PRESET, target, None, Some(child), &parse_steps(&src));
        assert!(
            matches!(&t, Err((1, why)) if why.contains("integer overflow")),
            "{target:?} {child:?}: {t:?}"
        );
        assert_eq!(both_until_stop(target, child, &src), Some(1));
        // The largest second request Zig survives, found on the model,
        // and the one past it.
        let survives = |n: u64| {
            let src = format!("a = alloc 8\nb = alloc {n}\n");
            !matches!(arena_diff::model_or_stop(PRESET, target, None, Some(child), &parse_steps(&src)), Err((_, why)) if why.contains("overflow"))
        };
        // About the largest request (half the address space): past it, node + (8 + n) + n
        // (the grown size the arena computes) no longer fits a usize,
        // or page_allocator's rounding of it up to a page does not.
        let n = last_true(1, largest, survives);
        assert!(
            n > largest - PAGE_SIZE && n < largest,
            "{target:?} {child:?}: {n}"
        );
        both_until_stop(target, child, &format!("a = alloc 8\nb = alloc {n}\n"));
        assert_eq!(
            both_until_stop(
                target,
                child,
                &format!("a = alloc 8\nb = alloc {}\n", n + 1)
            ),
            Some(1)
        );
        // The largest first request: no node to grow, a buffer of 1.5 x.
        both_until_stop(
            target,
            child,
            &format!("a = alloc {largest}\nb = alloc 8\n"),
        );
    }
}

#[test]
fn an_index_that_wraps_in_a_buffer_past_2_gib_is_zigs_overflow_not_a_fit() {
    // wasm32 over the simulated heap: the first buffer, for the largest
    // request, is 1.5 x of it, over 3 GiB, and another GiB fits after it.
    // Then the largest request again: end_index + n passes maxInt(u32) and
    // wraps to below the buffer's length. Zig's safety-checked add panics
    // there; a wrapped index is no fit. (page_allocator on wasm32 has no
    // size class that large.)
    let largest = largest_request(Target::Wasm32, 1);
    let src = format!(
        "a = alloc {largest}\nb = alloc {}\nc = alloc {largest}\n",
        1u64 << 30
    );
    let t = arena_diff::model_or_stop(
        PRESET,
        Target::Wasm32,
        None,
        Some(Child::Heap),
        &parse_steps(&src),
    );
    assert!(
        matches!(&t, Err((2, why)) if why.contains("integer overflow")),
        "{:?}",
        t.map(|_| ())
    );
    assert_eq!(both_until_stop(Target::Wasm32, Child::Heap, &src), Some(2));
    // The buffer (compared with Zig's above): 1.5 x (node + 1 + n + 16),
    // rounded up to even, less the 12-byte node; a and b at its start.
    let prefix = parse_steps(&src)[..2].to_vec();
    let (t, _) = model_run(Target::Wasm32, Child::Heap, None, &prefix).unwrap();
    assert_eq!(t.chunks[0].capacity, (3 << 30) + 30);
    assert_eq!(offsets(&t), [Some(0), Some(largest)]);
}

#[test]
fn growing_a_big_page_buffer_near_4_gib_overflows_page_allocators_count_on_wasm32() {
    // On wasm32 page_allocator counts the big pages of a buffer of 64 KiB
    // or more (bigPagesNeeded) by adding a big page and 3 to its size
    // unchecked: asked to grow such a buffer to within 64 KiB + 7 bytes of
    // maxInt(u32), Zig panics there. A first request of 30,000 bytes makes
    // a buffer of one big page; the largest second request the model
    // survives still has its growth refused (then no room for a new
    // buffer: 1.5 x of 2 GiB), the one after it panics, on both sides.
    let (target, child) = (Target::Wasm32, Child::Page);
    let stop = |first: u64, n: u64| {
        let src = format!("a = alloc {first}\nb = alloc {n}\n");
        arena_diff::model_or_stop(PRESET, target, None, Some(child), &parse_steps(&src))
            .err()
            .map(|(k, why)| (k, why.contains("integer overflow")))
    };
    let largest = largest_request(target, 1);
    let n = last_true(1, largest, |n| stop(30000, n) != Some((1, true)));
    assert_eq!(stop(30000, n), Some((1, false)));
    assert_eq!(stop(30000, n + 1), Some((1, true)));
    // The arena grows to node + (30,000 + n) + n, rounded up to even; with
    // page_allocator's free-list word and a big page and 3, that passes
    // maxInt(u32) from n + 1 on.
    let wanted = |n: u64| (12 + 30000 + 2 * n + 1) & !1;
    assert!(wanted(n) + 4 + 65536 + 3 <= u64::from(u32::MAX), "{n}");
    assert!(wanted(n + 1) + 4 + 65536 + 3 > u64::from(u32::MAX), "{n}");
    assert_eq!(
        both_until_stop(target, child, &format!("a = alloc 30000\nb = alloc {n}\n")),
        Some(1)
    );
    assert_eq!(
        both_until_stop(
            target,
            child,
            &format!("a = alloc 30000\nb = alloc {}\n", n + 1)
        ),
        Some(1)
    );
    // After a small first buffer (a size class) no such count: the
    // arena's own sums overflow, about 32 KiB later.
    let small = last_true(1, largest, |n| stop(8, n) != Some((1, true)));
    assert!(small > n + 30000, "{small} {n}");
}

#[test]
fn the_largest_requests_overflow_zigs_size_arithmetic_as_the_model_says() {
    the_largest_requests_overflow_zigs_size_arithmetic_as_the_model_says_on(Target::W64);
}

#[test]
fn the_largest_requests_overflow_zigs_size_arithmetic_on_wasm32() {
    the_largest_requests_overflow_zigs_size_arithmetic_as_the_model_says_on(Target::Wasm32);
}

#[test]
fn page_allocator_on_64_bit_maps_at_most_4_gib_all_told() {
    // The model's mappings hold 4 GiB together, as its simulated heap does;
    // past that it says the child has no room (a real kernel would map
    // more: model only). The largest first request gets a buffer whose
    // pages are exactly those 4 GiB, ending where the first mapping ends;
    // one byte more needs another page and has no room.
    let first = |n: u64| {
        arena_diff::model_or_stop(
            PRESET,
            Target::W64,
            None,
            Some(Child::Page),
            &parse_steps(&format!("a = alloc {n}\n")),
        )
    };
    let n = last_true(1, 1 << 34, |n| first(n).is_ok());
    let (t, _) = first(n).unwrap();
    assert_eq!(t.chunks.len(), 1);
    assert_eq!(t.chunks[0].size, 1 << 32);
    assert_eq!(
        t.chunks[0].base + t.chunks[0].size,
        bumplab_core::models::zig_page::MMAP_TOP
    );
    assert!(
        matches!(first(n + 1), Err((0, why)) if why.contains("no room")),
        "{:?}",
        first(n + 1).map(|_| ())
    );
}

#[test]
fn a_buffer_freed_on_wasm32_is_handed_out_again_to_the_next_of_its_size_class() {
    // BrkAllocator keeps a freed slot on its size class's free list and
    // hands it out before cutting a new one. b's buffer (7,816 bytes: the
    // 8 KiB class) goes back at the restore, and c's buffer, as large, is
    // that slot again: c lands where b did, on Zig's arena as on the model.
    // (Their linear memories start at different places, so each side's
    // addresses are compared with its own.)
    let src = "a = alloc 100\ncheckpoint c0\nb = alloc 5000\nrestore c0\nc = alloc 5000\n";
    let t = both_on(Target::Wasm32, Child::Page, src, None);
    // The chunk is what page_allocator reserved: the slot less its word.
    assert_eq!(t.chunks[1].size, 8188);
    assert_eq!(t.chunks[1].freed_by, Some(3));
    assert_eq!(t.chunks[2].base, t.chunks[1].base);
    assert_eq!(t.ops[4].address, t.ops[2].address);
    let mut h = harness(Target::Wasm32)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    h.set_mode("arena-page");
    let raw = h.run(None, &parse_steps(src)).unwrap();
    assert!(raw[2].address.is_some());
    assert_eq!(raw[4].address, raw[2].address);
}

#[test]
fn page_allocator_on_wasm32_grows_memory_up_to_exactly_4_gib() {
    // The model's linear memory starts at 64 KiB and may grow to wasm32's
    // whole 4 GiB address space: big pages of 1, 2, 4 ... 2^14 (less the
    // free-list word) fill it up to 2 GiB, and 2^15 more end exactly at
    // 4 GiB. Then nothing more; nor does 2 GiB that would end past it.
    // Model only: the real program's memory starts after its stack and data.
    use bumplab_core::models::zig_page::{PageChild, BIGPAGE};
    let big = |pages: u64| (pages * BIGPAGE - 8) as u32;
    let mut c = PageChild::<u32>::new();
    for k in 0..15 {
        c.alloc(big(1 << k)).unwrap();
    }
    let last = c.alloc(big(1 << 15)).unwrap();
    assert_eq!(u64::from(last.base), 1 << 31);
    assert_eq!(c.alloc(big(1)), None);
    let mut c = PageChild::<u32>::new();
    c.alloc(big(1)).unwrap();
    let half = c.alloc(big(1 << 15)).unwrap();
    assert_eq!(u64::from(half.base), 2 * BIGPAGE);
    // It would end 128 KiB past 4 GiB.
    assert_eq!(c.alloc(big(1 << 15)), None);
}

/// alloc, realloc, free, reset, checkpoint and restore; sizes up to
/// 40,000; alignments up to a page; reset's limit chosen at random in some.
const MIX: Mix = Mix {
    weights: [10, 5, 4, 1, 2, 2],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000), (1, 5001, 40000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        None,
        Some(16),
        Some(64),
        Some(1024),
        Some(4096),
        Some(100000),
    ],
};

/// Random programs compared per target and child.
const PROGRAMS: u64 = 256;

fn random_programs(target: Target, child: Child) {
    let base = base_seed();
    let mut cov = Coverage::default();
    let what = format!("zig-arena over {child:?} on {target:?}");
    for k in 0..PROGRAMS {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, &MIX);
        let (t, model) = model_run(target, child, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real =
            real(target, child, capacity, &steps).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare(&what, seed, capacity, &steps, &model, &real) {
            panic!("{e}");
        }
        // The arena's buffers have no oversized reason: a request larger than
        // every buffer before it is what gets a buffer sized for itself.
        cov.record_with(&t, larger_than_every_chunk);
        let merged = t
            .chunks
            .iter()
            .filter(|c| {
                c.created_by
                    .is_some_and(|o| t.ops[o as usize].kind == OpKind::Reset)
            })
            .count() as u64;
        cov.add_to("buffers made by reset", merged);
        let grown = t
            .ops
            .iter()
            .filter(|o| {
                o.events
                    .iter()
                    .flat_map(|e| &e.steps)
                    .any(|s| s.id == "child_resize:granted")
            })
            .count() as u64;
        cov.add_to("buffers grown in place", grown);
    }
    println!("{}", cov.summary(&what));
    let mut needs = vec![
        ("a new buffer", cov.new_chunks),
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
        ("a chosen reset limit", cov.capacities),
        ("a buffer made by reset", cov.get("buffers made by reset")),
    ];
    if child == Child::Page {
        needs.push(("a buffer grown in place", cov.get("buffers grown in place")));
    }
    cov.require(&what, &needs);
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

#[test]
fn random_programs_match_zig_over_page_allocator() {
    random_programs(Target::W64, Child::Page);
}

#[test]
fn random_programs_match_zig_over_page_allocator_on_wasm32() {
    random_programs(Target::Wasm32, Child::Page);
}

#[test]
fn random_programs_match_zig_over_the_simulated_heap() {
    random_programs(Target::W64, Child::Heap);
}

#[test]
fn random_programs_match_zig_over_the_simulated_heap_on_wasm32() {
    random_programs(Target::Wasm32, Child::Heap);
}
