//! Realloc on the seed presets (one fixed chunk), as Hinckley's discussion
//! of reallocation describes it: bumping up, the last block is resized in
//! place; bumping down, it is bumped again from its own end and its bytes
//! move over the old ones; any other block is allocated anew and copied.

use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::trace::{Op, OpKind};
use bumplab_core::{run, Options, PresetId, Trace};

/// The chunk's first byte; every seed preset's chunk has 256 bytes.
const START: u64 = HEAP_BASE + MALLOC_HEADER;
const END: u64 = START + 256;

const UP: [PresetId; 3] = [
    PresetId::HinckleyUp,
    PresetId::HinckleyUpNaive,
    PresetId::UpMinAlign,
];
const DOWN: [PresetId; 2] = [PresetId::FitzgenDown, PresetId::DownMinAlign];

fn trace(src: &str, preset: PresetId) -> Trace {
    run(src, preset, &Options::default()).unwrap_or_else(|e| panic!("{preset:?}: {e}"))
}

/// The ids of the micro-steps the op recorded, in order.
fn steps(op: &Op) -> Vec<&str> {
    op.events
        .iter()
        .flat_map(|e| e.steps.iter().map(|s| s.id.as_str()))
        .collect()
}

#[test]
fn bumping_up_the_last_block_grows_in_place_and_copies_nothing() {
    for preset in UP {
        let t = trace("a = alloc 16 align 8\na = realloc a 32\n", preset);
        let r = &t.ops[1];
        assert_eq!(r.kind, OpKind::Realloc);
        assert_eq!(r.address, Some(START), "{preset:?}");
        assert_eq!(r.moved, Some(false), "{preset:?}");
        assert_eq!(r.stats.copied, 0, "{preset:?}");
        assert_eq!(r.stats.leaked, 0, "{preset:?}");
        assert_eq!(r.stats.used, 32, "{preset:?}");
        assert_eq!(r.bump_ptr, Some(START + 32), "{preset:?}");
        // The replaced block's bytes now belong to the grown one.
        assert_eq!(r.reclaimed, vec![0], "{preset:?}");
        let s = steps(r);
        // Only the room check and the pointer move: no alignment work, no copy.
        assert_eq!(
            s,
            ["is_last:yes", "room:pass", "resize_in_place"],
            "{preset:?}"
        );
    }
}

#[test]
fn bumping_up_the_last_block_shrinks_in_place_and_gives_the_bytes_back() {
    for preset in [PresetId::HinckleyUp, PresetId::HinckleyUpNaive] {
        let t = trace(
            "a = alloc 32 align 8\na = realloc a 8\nb = alloc 8\n",
            preset,
        );
        assert_eq!(t.ops[1].address, Some(START));
        assert_eq!(t.ops[1].moved, Some(false));
        assert_eq!(t.ops[1].bump_ptr, Some(START + 8), "{preset:?}");
        assert_eq!(t.ops[1].stats.copied, 0);
        // The next block goes where the shrunk one now ends.
        assert_eq!(t.ops[2].address, Some(START + 8), "{preset:?}");
    }
}

#[test]
fn bumping_down_the_last_block_moves_down_over_its_old_bytes() {
    for preset in DOWN {
        let t = trace(
            "a = alloc 16 align 8\na = realloc a 32\nb = alloc 8\n",
            preset,
        );
        assert_eq!(t.ops[0].address, Some(END - 16));
        let r = &t.ops[1];
        // Bumped again from the block's end: the 32 bytes end where the 16 did.
        assert_eq!(r.address, Some(END - 32), "{preset:?}");
        assert_eq!(r.moved, Some(true), "{preset:?}");
        assert_eq!(r.stats.copied, 16, "{preset:?}");
        // The old space is the new block's upper half: nothing left behind.
        assert_eq!(r.stats.leaked, 0, "{preset:?}");
        assert_eq!(r.stats.used, 32, "{preset:?}");
        assert_eq!(r.reclaimed, vec![0], "{preset:?}");
        assert_eq!(r.bump_ptr, Some(END - 32), "{preset:?}");
        let s = steps(r);
        assert_eq!(s[..2], ["is_last:yes", "rewind"], "{preset:?}: {s:?}");
        assert_eq!(s.last(), Some(&"copy_within"), "{preset:?}: {s:?}");
        assert_eq!(t.ops[2].address, Some(END - 40), "{preset:?}");
    }
}

#[test]
fn bumping_down_the_last_block_shrinks_by_moving_up() {
    let t = trace(
        "a = alloc 32 align 8\na = realloc a 8\nb = alloc 8\n",
        PresetId::FitzgenDown,
    );
    let r = &t.ops[1];
    assert_eq!(r.address, Some(END - 8));
    assert_eq!(r.moved, Some(true));
    assert_eq!(r.stats.copied, 8);
    assert_eq!(r.stats.used, 8);
    assert_eq!(r.stats.leaked, 0);
    assert_eq!(r.bump_ptr, Some(END - 8));
    assert_eq!(t.ops[2].address, Some(END - 16));
}

#[test]
fn bumping_down_a_resize_that_keeps_the_footprint_stays_in_place() {
    // 13 and 10 bytes both round down to the same 8-aligned start below the end.
    let t = trace(
        "a = alloc 13 align 8\na = realloc a 10\n",
        PresetId::FitzgenDown,
    );
    assert_eq!(t.ops[0].address, Some(END - 16));
    assert_eq!(t.ops[1].address, Some(END - 16));
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!(t.ops[1].stats.copied, 0);
    assert_eq!(steps(&t.ops[1]).last(), Some(&"in_place"));
}

#[test]
fn any_other_block_is_allocated_anew_and_copied() {
    for preset in UP.into_iter().chain(DOWN) {
        let t = trace(
            "a = alloc 16 align 8\nb = alloc 8 align 8\na = realloc a 32\n",
            preset,
        );
        let r = &t.ops[2];
        assert_eq!(r.moved, Some(true), "{preset:?}");
        assert_eq!(r.stats.copied, 16, "{preset:?}");
        // The old 16 bytes stay behind, dead, until a reset.
        assert_eq!(r.stats.leaked, 16, "{preset:?}");
        assert!(r.reclaimed.is_empty(), "{preset:?}");
        let want = if DOWN.contains(&preset) {
            END - 56
        } else {
            START + 24
        };
        assert_eq!(r.address, Some(want), "{preset:?}");
        let s = steps(r);
        assert_eq!(s.first(), Some(&"is_last:no"), "{preset:?}: {s:?}");
        assert_eq!(s.last(), Some(&"copy"), "{preset:?}: {s:?}");
    }
}

#[test]
fn the_last_block_test_is_exact() {
    // Bumping up, padding after the block (here for a zero-sized block
    // aligned to 16) moved the pointer past its end: it is not the last.
    let t = trace(
        "a = alloc 10 align 8\nb = alloc 0 align 16\na = realloc a 12\n",
        PresetId::HinckleyUp,
    );
    assert_eq!(t.ops[1].bump_ptr, Some(START + 16));
    assert_eq!(t.ops[2].moved, Some(true));
    assert_eq!(t.ops[2].address, Some(START + 16));
    // Bumping down, the same: aligning the zero-sized block moved the
    // pointer below the block's start.
    let t = trace(
        "a = alloc 8 align 8\nb = alloc 0 align 16\na = realloc a 16\n",
        PresetId::FitzgenDown,
    );
    assert_eq!(t.ops[0].address, Some(END - 8));
    assert_eq!(t.ops[1].bump_ptr, Some(END - 16));
    assert_eq!(t.ops[2].address, Some(END - 32));
    assert_eq!(t.ops[2].stats.leaked, 8);
}

#[test]
fn minimum_alignment_rounds_the_resized_block_as_an_allocation_does() {
    // MIN_ALIGN 8 (the default): 5 bytes hold 8, 12 hold 16.
    let t = trace(
        "a = alloc 5\na = realloc a 12\nb = alloc 1\n",
        PresetId::UpMinAlign,
    );
    assert_eq!(t.ops[1].address, Some(START));
    assert_eq!(t.ops[1].moved, Some(false));
    assert_eq!(t.ops[1].bump_ptr, Some(START + 16));
    assert_eq!(t.ops[2].address, Some(START + 16));
    // Bumping down the block's end is its rounded end, the chunk's end here.
    let t = trace(
        "a = alloc 5\na = realloc a 12\nb = alloc 1\n",
        PresetId::DownMinAlign,
    );
    assert_eq!(t.ops[0].address, Some(END - 8));
    assert_eq!(t.ops[1].address, Some(END - 16));
    assert_eq!(t.ops[1].stats.copied, 5);
    assert_eq!(t.ops[1].stats.leaked, 0);
    assert_eq!(t.ops[2].address, Some(END - 24));
}

#[test]
fn no_room_for_the_new_size_fails_and_keeps_the_pointer() {
    for (preset, next) in [
        (PresetId::HinckleyUp, START + 200),
        (PresetId::FitzgenDown, END - 208),
    ] {
        let t = trace(
            "a = alloc 200 align 8\nb = realloc a 300\nc = alloc 8 align 8\n",
            preset,
        );
        assert!(t.ops[1].failed, "{preset:?}");
        let failed_at = if preset == PresetId::HinckleyUp {
            "room:fail"
        } else {
            "no_room"
        };
        assert_eq!(steps(&t.ops[1]).last(), Some(&failed_at), "{preset:?}");
        assert_eq!(t.ops[1].stats.copied, 0, "{preset:?}");
        // The pointer went back to where the 200-byte block left it.
        assert_eq!(t.ops[2].address, Some(next), "{preset:?}");
    }
}

#[test]
fn bumping_up_the_last_block_can_grow_to_exactly_the_chunks_end() {
    // The room from the block's start to the chunk's end is 256: a new size
    // of 256 fits (`new_size > room` is false) and fills the chunk; 257
    // does not.
    for preset in UP {
        let t = trace("a = alloc 8\nb = realloc a 256\n", preset);
        assert!(!t.ops[1].failed, "{preset:?}");
        assert_eq!(
            (t.ops[1].address, t.ops[1].moved, t.ops[1].bump_ptr),
            (Some(START), Some(false), Some(END)),
            "{preset:?}"
        );
        let t = trace("a = alloc 8\nb = realloc a 257\n", preset);
        assert!(t.ops[1].failed, "{preset:?}");
    }
}
