//! What the events and errors say in words: counts of bytes agree with
//! their number, and a request no fixed chunk can ever hold says so with
//! both sizes instead of calling the chunk full.

use bumplab_core::trace::{EventKind, Op};
use bumplab_core::{run, Options, PresetId, Trace};

fn trace(src: &str, preset: PresetId, capacity: Option<u64>) -> Trace {
    let opts = Options {
        capacity,
        ..Options::default()
    };
    run(src, preset, &opts).unwrap_or_else(|e| panic!("{e}"))
}

fn said(op: &Op, kind: EventKind) -> Vec<&str> {
    op.events
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.text.as_str())
        .collect()
}

/// Presets with one chunk (or buffer) that never grows.
const FIXED: [PresetId; 3] = [
    PresetId::FitzgenDown,
    PresetId::HinckleyUp,
    PresetId::ZigFixedBuffer,
];

#[test]
fn a_request_larger_than_the_whole_fixed_chunk_is_too_large() {
    for preset in FIXED {
        let t = trace("a = alloc 100", preset, Some(64));
        let op = &t.ops[0];
        assert!(op.failed, "{preset:?}");
        assert_eq!(
            said(op, EventKind::OutOfMemory),
            ["too large: 100 bytes requested, but the whole chunk holds only 64 bytes, so it can never fit"],
            "{preset:?}"
        );
    }
}

#[test]
fn a_request_that_fits_an_empty_chunk_but_not_a_used_one_finds_it_full() {
    for preset in FIXED {
        let t = trace("a = alloc 40\nb = alloc 40", preset, Some(64));
        let op = &t.ops[1];
        assert!(op.failed, "{preset:?}");
        assert_eq!(
            said(op, EventKind::OutOfMemory),
            ["does not fit: this allocator's memory is full and it never grows"],
            "{preset:?}"
        );
    }
}

#[test]
fn an_arena_that_grows_makes_room_instead_of_calling_a_request_too_large() {
    for preset in [PresetId::Bumpalo, PresetId::BumpScopeUp, PresetId::ZigArena] {
        let t = trace("a = alloc 8\nb = alloc 100000", preset, Some(64));
        let op = &t.ops[1];
        assert!(!op.failed, "{preset:?}");
        assert!(said(op, EventKind::OutOfMemory).is_empty(), "{preset:?}");
        assert_eq!(said(op, EventKind::NewChunk).len(), 1, "{preset:?}");
    }
}

#[test]
fn one_byte_is_one_byte_in_every_sentence() {
    let texts = |src: &str, preset| -> Vec<String> {
        let t = trace(src, preset, None);
        t.ops
            .iter()
            .flat_map(|o| o.events.iter().map(|e| e.text.clone()))
            .collect()
    };
    let texts: Vec<String> = [
        (
            "a = alloc 1\nb = alloc 1 align 2\nc = realloc b 1\nfree c\nfree a",
            PresetId::HinckleyUp,
        ),
        (
            "a = alloc 2\nb = realloc a 1\nfree b",
            PresetId::BumpScopeUp,
        ),
        ("a = alloc 1\nb = realloc a 8", PresetId::Bumpalo),
        (
            "a = alloc 1\ncheckpoint s\nb = alloc 1\nrestore s\nreset",
            PresetId::HinckleyUp,
        ),
    ]
    .into_iter()
    .flat_map(|(src, preset)| texts(src, preset))
    .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    assert!(
        texts.contains(&"1 byte of padding before the block"),
        "{texts:?}"
    );
    assert!(
        texts.iter().any(|t| t.starts_with("1 byte at 0x")),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"stayed in place at its 1 byte"),
        "{texts:?}"
    );
    assert!(
        texts
            .contains(&"freed, not reclaimed: the bump pointer does not move back over its 1 byte"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"shrank in place from 2 to 1 byte"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"freed: it was the last block, so the bump pointer takes back its 1 byte"),
        "{texts:?}"
    );
    assert!(texts.contains(&"1 byte copied"), "{texts:?}");
    assert!(
        texts.contains(&"restored 's': 1 block reclaimed"),
        "{texts:?}"
    );
    assert!(
        texts.contains(&"reset: 1 block reclaimed; every checkpoint is dropped"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .all(|t| !t.contains(" 1 bytes") && !t.contains(" 1 blocks")),
        "{texts:?}"
    );
}

#[test]
fn a_new_chunk_states_its_bytes_in_agreement() {
    let t = trace("a = alloc 1", PresetId::Bumpalo, None);
    let chunk = said(&t.ops[0], EventKind::NewChunk);
    assert_eq!(chunk.len(), 1);
    assert!(chunk[0].ends_with("; 1 byte needed)"), "{chunk:?}");
}
