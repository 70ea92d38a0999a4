//! Every class of bad input a stranger can type gets one clear error at its
//! position, naming what is allowed: never a panic, a hang or a trace that
//! grows without bound. One row per class, with the exact message.

use bumplab_core::engine::MAX_FULL_TRACE_OPS;
use bumplab_core::{run, Options, PresetId, Run, Target};

const ALLOWED: &str =
    "names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment";

/// Every preset on both targets.
fn everywhere() -> impl Iterator<Item = (PresetId, Target)> {
    PresetId::ALL
        .into_iter()
        .flat_map(|p| Target::ALL.into_iter().map(move |t| (p, t)))
}

fn outcome(src: &str, preset: PresetId, target: Target) -> Result<usize, String> {
    let opts = Options {
        target,
        ..Options::default()
    };
    run(src, preset, &opts).map(|t| t.ops.len()).map_err(|e| {
        // Every error the program has, one a line.
        let more = e.more.iter().map(|m| format!("\n{m}"));
        std::iter::once(e.to_string()).chain(more).collect()
    })
}

/// Errors that do not depend on the allocator or the target: the same
/// message, at the same place, on every preset and both targets.
#[test]
fn each_class_of_bad_program_has_one_exact_error_everywhere() {
    let unexpected = |c: &str| format!("unexpected character {c}: {ALLOWED}");
    let deep = format!("{}{}", "repeat 1 {\n".repeat(9), "}\n".repeat(9));
    let long_name = format!("free {}", "n".repeat(65));
    let rows: Vec<(&str, &str, String)> = vec![
        // Alignment.
        ("align 0", "a = alloc 8 align 0", "1:19: alignment 0 is not allowed: use a power of two from 1 to 4096".into()),
        ("align 3", "a = alloc 8 align 3", "1:19: alignment 3 is not allowed: use a power of two from 1 to 4096".into()),
        ("align not a power of two", "a = alloc 8 align 24", "1:19: alignment 24 is not allowed: use a power of two from 1 to 4096".into()),
        ("align above the largest", "a = alloc 8 align 8192", "1:19: alignment 8192 is not allowed: use a power of two from 1 to 4096".into()),
        ("align far above the largest", "a = alloc 8 align 0x8000000000000000", "1:19: alignment 9223372036854775808 is not allowed: use a power of two from 1 to 4096".into()),
        ("align missing", "a = alloc 8 align", "1:18: expected an alignment, found the end of the line".into()),
        ("align negative", "a = alloc 8 align -8", "1:19: '-8' is negative: sizes and counts are whole numbers of 0 or more".into()),
        // Sizes.
        ("size past 64 bits", "a = alloc 18446744073709551616", "1:11: '18446744073709551616' is too large (the largest is 0xffffffffffffffff)".into()),
        ("hex size past 64 bits", "a = alloc 0x10000000000000000", "1:11: '0x10000000000000000' is too large (the largest is 0xffffffffffffffff)".into()),
        ("array size overflow", "a = alloc [u128; 0x1000000000000000]", "1:1: an array of 1152921504606846976 elements overflows a 64-bit size".into()),
        ("size negative", "a = alloc -1", "1:11: '-1' is negative: sizes and counts are whole numbers of 0 or more".into()),
        ("size not a number", "a = alloc 12kb", "1:11: '12kb' is not a number (use decimal like 24 or hex like 0x18)".into()),
        ("size a word", "a = alloc lots", "1:11: unknown type 'lots': use a size in bytes or one of u8 u16 u32 u64 u128 usize".into()),
        ("size bad hex", "a = alloc 0x", "1:11: '0x' is not a number (use decimal like 24 or hex like 0x18)".into()),
        ("size missing", "a = alloc", "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line".into()),
        ("size missing at the end of the program", "a = alloc\n\n", "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line".into()),
        ("realloc size missing", "a = alloc 8\nb = realloc a", "2:14: expected the new size in bytes, found the end of the line".into()),
        ("realloc size a type", "a = alloc 8\nb = realloc a u64", "2:15: expected the new size in bytes, found 'u64'".into()),
        ("a lone minus", "a = alloc 8 - 2", format!("1:13: {}", unexpected("'-'"))),
        // Blocks and checkpoints over time.
        // A block's name is the error's column: the name is what is wrong.
        ("unknown block", "free zz", "1:6: unknown block 'zz': no line allocates it".into()),
        ("unknown block to realloc", "b = realloc zz 8", "1:13: unknown block 'zz': no line allocates it".into()),
        ("unknown block, indented", "repeat 2 {\n  a = alloc 8\n    free zz\n}", "3:10: unknown block 'zz': no line allocates it".into()),
        ("a block allocated only later", "free a\na = alloc 8", "1:6: unknown block 'a': it is first allocated later, at 2:1".into()),
        ("a block allocated only in repeat 0", "repeat 0 {\n  a = alloc 8\n}\nfree a", "4:6: unknown block 'a': the line that allocates it, 2:3, is inside `repeat 0` at 1:1, which runs its body zero times".into()),
        ("repeat 0 nested in a repeat that runs", "repeat 2 {\n  repeat 0 {\n    a = alloc 8\n  }\n}\nb = realloc a 16", "6:13: unknown block 'a': the line that allocates it, 3:5, is inside `repeat 0` at 2:3, which runs its body zero times".into()),
        ("use after free", "a = alloc 8\nfree a\nb = realloc a 16", "3:13: cannot realloc 'a': it was already freed at 2:1".into()),
        ("double free", "a = alloc 8\nfree a\nfree a", "3:6: cannot free 'a': it was already freed at 2:1".into()),
        ("realloc of a freed block, later", "a = alloc 8\nb = alloc 8\nfree a\nc = alloc 8\na2 = realloc a 4", "5:14: cannot realloc 'a': it was already freed at 3:1".into()),
        ("free of a replaced name", "a = alloc 8\nb = realloc a 16\nfree a", "3:6: cannot free 'a': it was reallocated at 2:1 (use the name the realloc gave it)".into()),
        ("use after reset", "a = alloc 8\nreset\nfree a", "3:6: cannot free 'a': it was reclaimed by a reset or restore at 2:1".into()),
        ("restore of an unknown checkpoint", "restore s", "1:1: unknown checkpoint 's': save it first with `checkpoint s`".into()),
        ("restore of one an earlier restore dropped", "checkpoint s\ncheckpoint t\nrestore s\nrestore t", "4:1: cannot restore 't': restoring 's' at 3:1 dropped it (save it again with `checkpoint t`)".into()),
        ("restore of one a reset dropped", "checkpoint s\nreset\nrestore s", "3:1: cannot restore 's': the reset at 2:1 dropped it (save it again with `checkpoint s`)".into()),
        ("restore of one saved again, then dropped", "checkpoint t\ncheckpoint s\ncheckpoint t\nrestore s\nrestore t", "5:1: cannot restore 't': restoring 's' at 4:1 dropped it (save it again with `checkpoint t`)".into()),
        // Braces.
        ("'{' never closed", "repeat 2 {\n  a = alloc 8", "1:10: this '{' is never closed: add a '}'".into()),
        ("inner '{' never closed", "repeat 2 {\n  repeat 3 {\n    a = alloc 8\n}", "1:10: this '{' is never closed: add a '}'".into()),
        ("'}' without a repeat", "a = alloc 8\n}", "2:1: '}' without a matching 'repeat N {'".into()),
        ("one '}' too many", "repeat 2 {\n  a = alloc 8\n}\n}", "4:1: '}' without a matching 'repeat N {'".into()),
        ("'{' without a repeat", "{\n}", "1:1: expected a statement (alloc, realloc, free, checkpoint, restore, reset, repeat), found '{'".into()),
        ("repeat without '{'", "repeat 2\n  a = alloc 8", "1:9: expected '{' after the repeat count, found the end of the line".into()),
        ("repeat nested too deep", &deep, "9:1: repeat blocks nest at most 8 deep".into()),
        // Repeat counts.
        ("repeat count past 64 bits", "repeat 99999999999999999999 {\n  a = alloc 8\n}", "1:8: '99999999999999999999' is too large (the largest is 0xffffffffffffffff)".into()),
        ("repeat count past the op limit", "repeat 18446744073709551615 {\n  a = alloc 8\n}", "1:1: the program would execute over 18 quintillion ops; the limit is 100,000, the most a full JSON trace holds: lower a repeat count".into()),
        ("nested repeats past the op limit", "a = alloc 1\nrepeat 1000 {\n  repeat 1000 {\n    b = alloc 1\n  }\n}", "2:1: the program would execute 1,000,001 ops; the limit is 100,000, the most a full JSON trace holds: lower a repeat count".into()),
        ("repeat count negative", "repeat -1 {\n}", "1:8: '-1' is negative: sizes and counts are whole numbers of 0 or more".into()),
        // Markup and stray characters: names are identifiers.
        ("HTML as a block name", "<script> = alloc 8", format!("1:1: {}", unexpected("'<'"))),
        ("HTML inside a block name", "a<b>c = alloc 8", format!("1:2: {}", unexpected("'<'"))),
        ("HTML as a size", "a = alloc <img src=x onerror=alert(1)>", format!("1:11: {}", unexpected("'<'"))),
        ("an ampersand entity", "a = alloc 8 &amp;", format!("1:13: {}", unexpected("'&'"))),
        ("a NUL byte", "a = alloc 8\u{0}", format!("1:12: {}", unexpected("U+0000"))),
        ("an escape character", "a = alloc \u{1b}[31m8", format!("1:11: {}", unexpected("U+001B"))),
        ("a zero-width space", "a\u{200b} = alloc 8", format!("1:2: {}", unexpected("U+200B"))),
        ("a non-ASCII letter", "é = alloc 8", format!("1:1: {}", unexpected("'é'"))),
        ("columns count characters, not bytes", "a = alloc 8 # é\nb = alloc 8 ü", format!("2:13: {}", unexpected("'ü'"))),
        ("a name too long", &long_name, "1:6: this name is 65 characters long: names are at most 64".into()),
        ("a keyword as a name", "free alloc", "1:6: 'alloc' is a keyword and cannot be used as the name of a block to free".into()),
        ("a statement without a name", "alloc 8", "1:1: 'alloc' needs a name: write `a = alloc …`".into()),
        ("an unknown operation", "a = calloc 8", "1:5: unknown operation 'calloc': use alloc or realloc".into()),
    ];
    for (class, src, want) in &rows {
        for (preset, target) in everywhere() {
            assert_eq!(
                outcome(src, preset, target),
                Err(want.clone()),
                "{class}: {src:?} on {} {}",
                preset.name(),
                target.name()
            );
        }
    }
}

/// Programs that are valid, however odd: empty ones, markup in comments,
/// repeats that execute nothing (which must not spin through their count).
#[test]
fn odd_but_valid_programs_run_cleanly() {
    let rows: &[(&str, &str, usize)] = &[
        ("the empty program", "", 0),
        ("only blank lines", "\n\n   \n\t\n", 0),
        ("only a comment", "# nothing yet", 0),
        ("Windows line ends", "a = alloc 8\r\nfree a\r\n", 2),
        ("a byte order mark", "\u{feff}a = alloc 8", 1),
        (
            "HTML in comments",
            "# <script>alert(1)</script>\na = alloc 8 # <b>bold</b> &amp;",
            1,
        ),
        (
            "an empty repeat with the largest count",
            "repeat 18446744073709551615 {\n}",
            0,
        ),
        (
            "empty repeats nested",
            "repeat 18446744073709551615 {\n  repeat 18446744073709551615 {\n  }\n}",
            0,
        ),
        (
            "a repeat whose body runs nothing",
            "repeat 18446744073709551615 {\n  repeat 0 {\n    a = alloc 8\n  }\n}",
            0,
        ),
        ("repeat 0", "repeat 0 {\n  free nothing\n}", 0),
    ];
    for (class, src, ops) in rows {
        for (preset, target) in everywhere() {
            assert_eq!(
                outcome(src, preset, target),
                Ok(*ops),
                "{class}: {src:?} on {} {}",
                preset.name(),
                target.name()
            );
        }
    }
}

/// The ways a preset can answer a request too large for it.
#[derive(Debug, PartialEq)]
enum Answer {
    /// The op runs and fails: a fixed buffer that does not grow is full.
    Fails,
    /// The op runs and succeeds (the simulated heap has room: no host memory
    /// is taken for it).
    Fits,
    /// An error at the op: "no Layout" or "the heap has no room".
    Error(String),
}

fn answer(src: &str, preset: PresetId, target: Target) -> Answer {
    let opts = Options {
        target,
        ..Options::default()
    };
    match run(src, preset, &opts) {
        Ok(t) if t.ops.last().is_some_and(|o| o.failed) => Answer::Fails,
        Ok(_) => Answer::Fits,
        Err(e) => Answer::Error(e.to_string()),
    }
}

/// Sizes and alignments beyond the simulated address space: a clear error
/// or an out-of-memory op on every preset and both targets, never an
/// overflow, and never host memory proportional to the request.
#[test]
fn sizes_beyond_the_address_space_fail_cleanly_on_every_preset() {
    const FIXED: [PresetId; 7] = [
        PresetId::FitzgenDown,
        PresetId::HinckleyUpNaive,
        PresetId::HinckleyUp,
        PresetId::UpMinAlign,
        PresetId::DownMinAlign,
        PresetId::BumperAllocBuffer,
        PresetId::ZigFixedBuffer,
    ];
    let no_room = |line: u32| {
        Answer::Error(format!("{line}:1: the simulated base allocator has no room for the chunk this needs (its heap is 0x100000000 bytes)"))
    };
    let no_layout = |line: u32, size: &str, align: u64, limit: &str| {
        Answer::Error(format!("{line}:1: size {size} with align {align} exceeds isize::MAX ({limit}) on this target: no Layout can describe it"))
    };
    // (program, the line of the op, its size as the message shows it, its alignment)
    let rows: &[(&str, u32, &str, u64)] = &[
        (
            "a = alloc 0xffffffffffff align 4096",
            1,
            "0xffffffffffff",
            4096,
        ),
        (
            "a = alloc 0x7ffffffffffff000 align 4096",
            1,
            "0x7ffffffffffff000",
            4096,
        ),
        ("a = alloc 0x100000000", 1, "0x100000000", 1),
        ("a = alloc [u64; 0x100000000]", 1, "0x800000000", 8),
        (
            "a = alloc 8\nb = realloc a 0x7fffffffffffffff",
            2,
            "0x7fffffffffffffff",
            1,
        ),
        (
            "a = alloc 8 align 16\nb = realloc a 0x100000000",
            2,
            "0x100000000",
            16,
        ),
    ];
    for &(src, line, size, align) in rows {
        for preset in PresetId::ALL {
            let wasm32 = answer(src, preset, Target::Wasm32);
            assert_eq!(
                wasm32,
                no_layout(line, size, align, "0x7fffffff"),
                "{src:?} on {} wasm32",
                preset.name()
            );
            let want = if FIXED.contains(&preset) {
                Answer::Fails
            } else if preset == PresetId::BlinkAlloc && size.starts_with("0x7fffffffffff") {
                // The chunk blink-alloc sizes for it is past isize::MAX, and
                // the crate builds its Layout unchecked (tests/blink_alloc.rs
                // runs the real crate there).
                Answer::Error(format!(
                    "{line}:1: {}",
                    "the chunk this needs is larger than isize::MAX: blink-alloc 0.4.0 builds its Layout without a check (Layout::from_size_align_unchecked), undefined behaviour that a debug build stops with a panic"
                ))
            } else if preset == PresetId::ZigArena && size == "0x7fffffffffffffff" {
                // Zig's ArenaAllocator computes the size to grow its buffer
                // to (node + the end_index its first attempt overshot + the
                // request) before it asks anyone for memory: past
                // maxInt(usize), a panic (tests/zig_arena.rs checks it
                // against the real arena).
                Answer::Error(format!(
                    "2:1: {}",
                    "integer overflow in the allocator's own size arithmetic: Zig's ArenaAllocator panics on this request in a safety-checked build (the grown or new buffer's size does not fit a usize)"
                ))
            } else {
                no_room(line)
            };
            assert_eq!(
                answer(src, preset, Target::W64),
                want,
                "{src:?} on {} 64",
                preset.name()
            );
        }
    }
    // Past isize::MAX no Layout exists on either target.
    for preset in PresetId::ALL {
        for (src, line) in [
            ("a = alloc 0xffffffffffffffff", 1),
            ("a = alloc 8\nb = realloc a 0xffffffffffffffff", 2),
        ] {
            assert_eq!(
                answer(src, preset, Target::W64),
                no_layout(line, "0xffffffffffffffff", 1, "0x7fffffffffffffff"),
                "{src:?} on {}",
                preset.name()
            );
        }
        // Rounding the size up to the alignment is what crosses the limit.
        assert_eq!(
            answer(
                "a = alloc 0x7ffffffffffff001 align 4096",
                preset,
                Target::W64
            ),
            no_layout(1, "0x7ffffffffffff001", 4096, "0x7fffffffffffffff"),
            "{}",
            preset.name()
        );
        assert_eq!(
            answer("a = alloc 0x7ffff001 align 4096", preset, Target::Wasm32),
            no_layout(1, "0x7ffff001", 4096, "0x7fffffff"),
            "{}",
            preset.name()
        );
    }
}

/// A growing preset asked, again and again, for more than its heap holds
/// stops at the first request that cannot fit, with the heap error.
#[test]
fn a_growing_preset_runs_out_of_heap_at_the_op_that_overflows_it() {
    let src = "repeat 8 {\n  a = alloc 0x40000000\n}";
    for preset in [
        PresetId::BumperSlab,
        PresetId::CppArena,
        PresetId::BumpScopeUp,
        PresetId::BumpScopeDown,
        PresetId::Bumpalo,
    ] {
        for target in Target::ALL {
            let e = outcome(src, preset, target).unwrap_err();
            assert!(
                e.starts_with(
                    "2:3: the simulated base allocator has no room for the chunk this needs"
                ),
                "{} {}: {e}",
                preset.name(),
                target.name()
            );
        }
    }
}

/// A preset made to give every block a chunk of its own stops with an error
/// once the live chunks make each op too slow, instead of hanging.
#[test]
fn too_many_live_chunks_stop_the_run_instead_of_hanging_it() {
    let opts = Options {
        capacity: Some(16),
        ..Options::default()
    };
    let src = "repeat 5000 {\n  a = alloc 64\n}";
    let e = run(src, PresetId::BumperSlab, &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "2:3: 1145 chunks are live at once, too many to simulate this many ops: lower a repeat count, or raise the capacity so fewer chunks hold the blocks");
    // With the default 1 MiB slabs the same blocks share one chunk.
    let t = run(src, PresetId::BumperSlab, &Options::default()).unwrap();
    assert_eq!(t.chunks.len(), 1);
}

/// The trace of the most ops a program may run stays within a size a page
/// can hold: under 2 KiB of JSON per op, so under 200 MB at the op limit
/// (measured on a twentieth of it, to keep the test quick).
#[test]
fn the_largest_trace_is_bounded() {
    let n = MAX_FULL_TRACE_OPS / 40;
    let src = format!("repeat {n} {{\n  a = alloc 24 align 8\n  b = realloc a 48\n}}");
    // bump-scope's ops record the most micro-steps.
    let t = run(&src, PresetId::BumpScopeUp, &Options::default()).unwrap();
    assert_eq!(t.ops.len() as u64, 2 * n);
    let bytes = serde_json::to_string(&t).unwrap().len() as u64;
    assert!(
        bytes < 2048 * 2 * n,
        "{bytes} bytes of JSON for {} ops",
        2 * n
    );
}

/// The columnar run goes ten times further than the full JSON trace, and
/// past its own cap says so in the same words, at the same statement.
#[test]
fn the_columnar_run_has_its_own_op_limit() {
    let err = |src: &str| {
        Run::new(src, PresetId::BumpScopeUp, &Options::default())
            .err()
            .map(|e| e.to_string())
    };
    assert_eq!(
        err("repeat 18446744073709551615 {\n  a = alloc 8\n}"),
        Some("1:1: the program would execute over 18 quintillion ops; the limit is 1,500,000: lower a repeat count".into())
    );
    assert_eq!(
        err("a = alloc 1\nrepeat 1500 {\n  repeat 1001 {\n    b = alloc 1\n  }\n}"),
        Some("2:1: the program would execute 1,501,501 ops; the limit is 1,500,000: lower a repeat count".into())
    );
    // A recording longer than the limit has no repeat to lower.
    let long = "a = alloc 1\nfree a\n".repeat(750_001);
    assert_eq!(
        err(&long),
        Some("1500001:1: the program would execute 1,500,002 ops; the limit is 1,500,000: record fewer ops (bumplab-record --max-ops)".into())
    );
    // The limit exactly is allowed (nothing runs until `advance`).
    assert_eq!(
        err("repeat 1500 {\n  repeat 1000 {\n    b = alloc 1\n  }\n}"),
        None
    );
}

/// The parser reads on past an error: every line that has one is reported,
/// in line order, each at its own line and column (one a line), and the
/// lines around a bad one parse as if it were not there.
#[test]
fn every_line_with_an_error_is_reported() {
    let rows: &[(&str, &str, &[&str])] = &[
        (
            "three bad lines among good ones",
            "a = alloc x8\nb = alloc 8\nfree\nc = alloc 8 align 3x\nfree b",
            &[
                "1:11: unknown type 'x8': use a size in bytes or one of u8 u16 u32 u64 u128 usize",
                "3:5: expected the name of a block to free, found the end of the line",
                "4:19: '3x' is not a number (use decimal like 24 or hex like 0x18)",
            ],
        ),
        (
            "a repeat with a bad count still has its body read, and its '}' matched",
            "repeat x {\n  a = alloc\n}\nb = alloc 8 @",
            &[
                "1:8: expected a repeat count, found 'x'",
                "2:12: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line",
                "4:13: unexpected character '@': names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment",
            ],
        ),
        (
            "a bad statement before a '}' on its line leaves the '}' to close the repeat",
            "repeat 2 { a = alloc }\nfree",
            &[
                "1:22: expected a size (bytes, a type like u64, or [u32; 17]), found '}'",
                "2:5: expected the name of a block to free, found the end of the line",
            ],
        ),
        (
            "two errors on one line: the first character's",
            "a = alloc @ zz\nfree",
            &[
                "1:11: unexpected character '@': names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment",
                "2:5: expected the name of a block to free, found the end of the line",
            ],
        ),
        (
            "a '}' too many after a bad line",
            "a = alloc\n}\nb = alloc 8",
            &[
                "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line",
                "2:1: '}' without a matching 'repeat N {'",
            ],
        ),
    ];
    for (class, src, want) in rows {
        let got = outcome(src, PresetId::HinckleyUp, Target::W64).unwrap_err();
        assert_eq!(got, want.join("\n"), "{class}: {src:?}");
    }
}

/// A paste of many bad lines lists the first hundred errors; the hundredth
/// counts the rest and says what the first of them is.
#[test]
fn a_hundred_errors_at_most_the_last_counting_the_rest() {
    let src = "free\n".repeat(150);
    let e = run(&src, PresetId::HinckleyUp, &Options::default()).unwrap_err();
    assert_eq!(e.more.len(), 99);
    let lines: Vec<u32> = std::iter::once(e.line)
        .chain(e.more.iter().map(|m| m.line))
        .collect();
    assert_eq!(lines, (1..=100).collect::<Vec<u32>>());
    assert_eq!(
        e.more[98].to_string(),
        "100:5: 51 more errors from this line on; the first: expected the name of a block to free, found the end of the line"
    );
    assert_eq!(
        e.more[97].to_string(),
        "99:5: expected the name of a block to free, found the end of the line"
    );
}
