//! The C++ parser arena (seed 004): lazily made pools with embedded
//! headers, the growth formula, and the two quirks of its new-pool check.

mod seed_presets_support;

use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::trace::{EventKind, Op};
use bumplab_core::{run, Options, PresetId, Target, Trace};
use proptest::prelude::*;
use seed_presets_support::{act, build_and_run, check_invariants};

const ARENA: PresetId = PresetId::CppArena;

fn trace_on(src: &str, capacity: Option<u64>, target: Target) -> Trace {
    let opts = Options {
        target,
        capacity,
        min_align: None,
        child: None,
    };
    run(src, ARENA, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn trace(src: &str, capacity: Option<u64>) -> Trace {
    trace_on(src, capacity, Target::W64)
}

fn header(target: Target) -> u64 {
    3 * target.usize_bytes()
}

fn has_note(op: &Op, words: &str) -> bool {
    op.events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains(words))
}

/// max(cap * 2, (n / cap) * 2 * cap), the document's formula.
fn next_pool(cap: u64, n: u64) -> u64 {
    (cap * 2).max((n / cap) * 2 * cap)
}

#[test]
fn the_first_pool_is_made_by_the_first_allocation() {
    for target in [Target::W64, Target::Wasm32] {
        let h = header(target);
        let t = trace_on("checkpoint s\na = alloc u64\n", None, target);
        assert_eq!(t.ops[0].bump_ptr, None, "no pool before the first allocate");
        assert_eq!(t.ops[0].stats.chunks, 0);
        let c = &t.chunks[0];
        // cap = the initial 1024, so the first pool already has 2048.
        assert_eq!(c.capacity, next_pool(1024, 8));
        assert_eq!(c.capacity, 2048);
        assert_eq!((c.header, c.footer), (h, 0));
        assert_eq!(c.size, 2048 + h);
        assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
        assert_eq!(c.start, c.base + h);
        assert_eq!(c.reason, ChunkReason::First);
        assert_eq!(c.created_by, Some(1));
        // The header leaves the data 8 (64-bit) or 12 (wasm32) bytes past a
        // 16-byte boundary: a u64 needs no padding on 64-bit, 4 bytes on wasm32.
        let pad = if target == Target::W64 { 0 } else { 4 };
        assert_eq!(t.ops[1].padding, Some(pad));
        assert_eq!(t.ops[1].stats.metadata, h);
    }
}

#[test]
fn pools_grow_by_the_formula() {
    let t = trace(
        "repeat 6 {\n  x = alloc 1500\n}\nbig = alloc 20000\ny = alloc 40000\n",
        None,
    );
    let caps: Vec<u64> = t.chunks.iter().map(|c| c.capacity).collect();
    // 2048 (rem 548); 548 <= 1500: 4096 (rem 2596, then 1096); 1096 <= 1500:
    // 8192 (rem 6692, 5192, 3692); 3692 <= 20000: (20000 / 8192) * 2 * 8192;
    // 12768 <= 40000: max(65536, (40000 / 32768) * 2 * 32768).
    assert_eq!(caps, vec![2048, 4096, 8192, 32768, 65536]);
    let mut cap = 1024;
    let needs = [1500, 1500, 1500, 20000, 40000];
    for (c, n) in t.chunks.iter().zip(needs) {
        assert_eq!(c.capacity, next_pool(cap, n));
        assert_eq!(c.requested, n);
        cap = c.capacity;
    }
    let reasons: Vec<ChunkReason> = t.chunks.iter().map(|c| c.reason).collect();
    use ChunkReason::*;
    assert_eq!(reasons, vec![First, Full, Full, Oversized, Full]);
    let pool_of: Vec<u32> = t.ops.iter().map(|o| o.chunk.unwrap()).collect();
    assert_eq!(pool_of, vec![0, 1, 1, 2, 2, 2, 3, 4]);
    // A larger initial capacity: the first pool is twice it; a first
    // request of several capacities scales it.
    let t = trace("a = alloc 5000\n", None);
    assert_eq!(t.chunks[0].capacity, 8192);
    let t = trace("a = alloc 8\n", Some(64));
    assert_eq!(t.chunks[0].capacity, 128);
}

#[test]
fn header_bytes_are_metadata() {
    for target in [Target::W64, Target::Wasm32] {
        let t = trace_on("repeat 6 {\n  x = alloc 1500\n}\n", None, target);
        let last = t.ops.last().unwrap();
        assert_eq!(last.stats.chunks, 3);
        assert_eq!(last.stats.metadata, 3 * header(target));
        let cap: u64 = t.chunks.iter().map(|c| c.capacity).sum();
        assert_eq!(last.stats.used + last.stats.unused, cap);
    }
}

#[test]
fn an_exact_fit_still_makes_a_new_pool() {
    // Initial capacity 64: the first pool has 128; 100 leave 28.
    let t = trace("a = alloc 100\nb = alloc 28\nc = alloc 10\n", Some(64));
    let b = &t.ops[1];
    assert_eq!(
        b.chunk,
        Some(1),
        "remaining <= n: a new pool for an exact fit"
    );
    assert_eq!(t.chunks[1].capacity, next_pool(128, 28));
    assert_eq!(t.chunks[1].capacity, 256);
    assert!(has_note(b, "exact fit"));
    assert!(b
        .events
        .iter()
        .any(|e| e.kind == EventKind::NoRoom
            && e.steps.iter().any(|s| s.id == "check_remaining:fail")));
    // The 28 bytes of the first pool stay unused; later blocks go to the new pool.
    assert_eq!(t.ops[2].chunk, Some(1));
    assert_eq!(t.ops[2].stats.unused, 28 + (256 - 38));
    // One byte less fits where it is.
    let t = trace("a = alloc 100\nb = alloc 27\n", Some(64));
    assert_eq!((t.ops[1].chunk, t.ops[1].offset), (Some(0), Some(100)));
    assert!(!has_note(&t.ops[1], "exact fit"));
}

#[test]
fn a_misaligned_request_that_passes_the_check_throws_bad_alloc() {
    for target in [Target::W64, Target::Wasm32] {
        // Pool data starts at base + header: after a 1-byte block the next
        // 16-aligned address is 16 - ((header + 1) % 16) bytes away.
        let pad = 16 - ((header(target) + 1) % 16);
        // 127 bytes remain; n = 127 - pad + 1 passes `127 <= n` but
        // padding + n = 128 does not fit.
        let n = 127 - pad + 1;
        let t = trace_on(
            &format!(
                "a = alloc 1\nb = alloc {n} align 16\nc = alloc {} align 16\nd = alloc 8\n",
                n - 1
            ),
            Some(64),
            target,
        );
        let b = &t.ops[1];
        assert!(b.failed, "{target:?}");
        assert!(has_note(b, "std::bad_alloc"));
        assert!(b
            .events
            .iter()
            .any(|e| e.kind == EventKind::OutOfMemory && e.text.contains("bad_alloc")));
        assert!(b
            .events
            .iter()
            .any(|e| e.steps.iter().any(|s| s.id == "align_fit:fail")));
        assert_eq!(b.stats.chunks, 1, "bad_alloc instead of a new pool");
        // Nothing changed: one byte less fits exactly, padding included.
        let c = &t.ops[2];
        assert_eq!(
            (c.chunk, c.offset, c.padding),
            (Some(0), Some(1 + pad), Some(pad))
        );
        assert_eq!(c.stats.unused, 0);
        // Remaining is 0 now, so even 8 bytes make a new pool.
        assert_eq!(t.ops[3].chunk, Some(1));
    }
}

#[test]
fn deallocate_is_a_no_op_and_realloc_copies() {
    let t = trace(
        "a = alloc 16\nfree a\nb = alloc 8\nc = realloc b 32\n",
        None,
    );
    assert!(has_note(&t.ops[1], "no-op"));
    assert_eq!(t.ops[1].stats.used, 16);
    assert_eq!(t.ops[2].offset, Some(16));
    let r = &t.ops[3];
    assert!(has_note(r, "no realloc"));
    assert_eq!((r.moved, r.offset), (Some(true), Some(24)));
    assert_eq!(r.stats.copied, 8);
}

#[test]
fn reset_and_restore_are_emulated_and_noted() {
    let t = trace(
        "a = alloc 100\ncheckpoint s\nb = alloc 100\nc = alloc 10\nrestore s\nd = alloc 20\nreset\ne = alloc 8\n",
        Some(64),
    );
    // b: 28 <= 100, a new 256-byte pool.
    assert_eq!(t.ops[2].chunk, Some(1));
    let restore = &t.ops[4];
    assert!(has_note(restore, "no checkpoints"));
    assert_eq!(t.chunks[1].freed_by, Some(4));
    assert_eq!(restore.reclaimed, vec![3, 2]);
    assert_eq!(restore.bump_ptr, Some(t.chunks[0].start + 100));
    assert!(restore
        .events
        .iter()
        .any(|e| e.kind == EventKind::ChunkReused));
    assert_eq!((t.ops[5].chunk, t.ops[5].offset), (Some(0), Some(100)));
    let reset = &t.ops[6];
    assert!(has_note(reset, "no reset"));
    assert_eq!(t.chunks[0].freed_by, Some(6));
    assert_eq!((reset.bump_ptr, reset.stats.chunks), (None, 0));
    // The resource starts over: a first pool again, at the same address.
    let c = &t.chunks[2];
    assert_eq!(
        (c.reason, c.capacity, c.base),
        (ChunkReason::First, 128, t.chunks[0].base)
    );
    assert_eq!(t.ops[7].address, Some(c.start));
}

#[test]
fn a_restore_says_a_pool_is_current_again_only_when_a_newer_one_went() {
    // No pool made since the checkpoint: the last pool never stopped being
    // current, and nothing says it is current again.
    let t = trace(
        "a = alloc 100\ncheckpoint s\nb = alloc 100\nrestore s\nc = alloc 8\n",
        None,
    );
    assert_eq!(t.chunks.len(), 1);
    let restore = &t.ops[3];
    assert_eq!(restore.reclaimed, vec![2]);
    assert_eq!(restore.bump_ptr, Some(t.chunks[0].start + 100));
    assert!(!restore
        .events
        .iter()
        .any(|e| e.kind == EventKind::ChunkReused));
    assert_eq!((t.ops[4].chunk, t.ops[4].offset), (Some(0), Some(100)));
    // One made since (3000 > the 1948 left): it is freed and the first pool
    // is said to be current again.
    let t = trace(
        "a = alloc 100\ncheckpoint s\nb = alloc 3000\nrestore s\n",
        None,
    );
    assert_eq!(t.chunks[1].freed_by, Some(3));
    let reused: Vec<_> = t.ops[3]
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ChunkReused)
        .map(|e| e.text.as_str())
        .collect();
    assert_eq!(reused, ["chunk 0, kept from before, is current again"]);
}

#[test]
fn restoring_a_checkpoint_from_before_the_first_pool_frees_every_pool() {
    let t = trace(
        "checkpoint s\na = alloc 3000\nrestore s\nb = alloc 1\n",
        None,
    );
    assert_eq!(t.chunks[0].freed_by, Some(2));
    assert_eq!(t.ops[2].bump_ptr, None);
    assert_eq!(t.chunks[1].reason, ChunkReason::First);
    assert_eq!(t.chunks[1].capacity, 2048);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// 64 random programs of up to 40 ops (initial capacity 64, sizes up to
    /// 300, alignments up to 64, so pools grow, fit exactly and throw).
    #[test]
    fn random_programs_keep_the_invariants(
        acts in prop::collection::vec(act(300, 6), 1..40),
        wasm in any::<bool>(),
    ) {
        let target = if wasm { Target::Wasm32 } else { Target::W64 };
        let opts = Options { target, capacity: Some(64), min_align: None, child: None };
        let (src, t) = build_and_run(&acts, ARENA, &opts);
        if let Err(e) = check_invariants(&t, true, 1) {
            return Err(TestCaseError::fail(format!("{e}\n{src}")));
        }
        for op in &t.ops {
            prop_assert_eq!(op.stats.metadata, op.stats.chunks as u64 * header(target));
        }
    }
}
