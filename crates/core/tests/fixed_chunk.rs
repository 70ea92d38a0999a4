//! Bump up and bump down in one fixed chunk: observable
//! addresses, padding and errors with positions.

use bumplab_core::engine::MAX_FULL_TRACE_OPS;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::source::Source;
use bumplab_core::steps::line_of;
use bumplab_core::trace::OpKind;
use bumplab_core::{run, Options, PresetId, Target};

fn trace(src: &str, preset: PresetId) -> bumplab_core::Trace {
    run(src, preset, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn err(src: &str) -> String {
    let e = run(src, PresetId::FitzgenDown, &Options::default()).unwrap_err();
    format!("{e}")
}

const PROGRAM: &str = "a = alloc 1\nb = alloc u64\nc = alloc 24 align 16\n";

#[test]
fn bump_down_places_blocks_from_the_end() {
    let t = trace(PROGRAM, PresetId::FitzgenDown);
    // The base allocator keeps 16 bytes of its own before the chunk.
    let start = HEAP_BASE + MALLOC_HEADER;
    assert_eq!(t.chunks[0].start, start);
    let end = start + 256;
    let addrs: Vec<_> = t.ops.iter().map(|o| o.address.unwrap()).collect();
    // a: end-1; b: (end-1-8) rounded down to 8 = end-16; c: (end-16-24)=end-40 rounded to 16 = end-48.
    assert_eq!(addrs, vec![end - 1, end - 16, end - 48]);
    let pads: Vec<_> = t.ops.iter().map(|o| o.padding.unwrap()).collect();
    assert_eq!(pads, vec![0, 7, 8]);
    assert_eq!(t.ops[2].bump_ptr, Some(end - 48));
    assert_eq!(t.ops[2].stats.requested, 33);
    assert_eq!(t.ops[2].stats.used, 48);
    assert_eq!(t.ops[2].stats.padding, 15);
}

#[test]
fn bump_up_places_blocks_from_the_start() {
    for preset in [PresetId::HinckleyUp, PresetId::HinckleyUpNaive] {
        let t = trace(PROGRAM, preset);
        let addrs: Vec<_> = t.ops.iter().map(|o| o.offset.unwrap()).collect();
        // a at 0; b rounds 1 up to 8; c rounds 16 up to 16.
        assert_eq!(addrs, vec![0, 8, 16], "{preset:?}");
        assert_eq!(t.ops[2].bump_ptr, Some(HEAP_BASE + MALLOC_HEADER + 40));
        assert_eq!(t.ops[2].stats.padding, 7);
    }
}

#[test]
fn branch_profile_matches_the_reference() {
    // Bump down: 2 branches (checked_sub, compare to start); up naive: 3; up: 1.
    let branches = |preset| {
        let t = trace("a = alloc 8 align 8\n", preset);
        let steps = &t.ops[0].events[0].steps;
        steps
            .iter()
            .filter(|s| {
                s.id.ends_with(":pass")
                    || s.id == "checked_sub"
                    || s.id == "round_up"
                    || s.id == "add_size"
            })
            .count()
    };
    assert_eq!(branches(PresetId::FitzgenDown), 2);
    assert_eq!(branches(PresetId::HinckleyUpNaive), 3);
    assert_eq!(branches(PresetId::HinckleyUp), 1);
}

#[test]
fn full_chunk_fails_and_reset_reclaims() {
    let t = trace(
        "a = alloc 200\nb = alloc 100\nreset\nc = alloc 100\n",
        PresetId::HinckleyUp,
    );
    assert!(!t.ops[0].failed);
    assert!(t.ops[1].failed);
    assert_eq!(t.ops[2].kind, OpKind::Reset);
    assert_eq!(t.ops[2].reclaimed, vec![0]);
    assert_eq!(t.ops[3].offset, Some(0));
}

#[test]
fn wasm32_target_checks_layout_at_32_bits() {
    let opts = Options {
        target: Target::Wasm32,
        ..Options::default()
    };
    let e = run("a = alloc 0x80000000\n", PresetId::FitzgenDown, &opts).unwrap_err();
    assert_eq!((e.line, e.column), (1, 1));
    assert!(e.message.contains("isize::MAX"), "{e}");
    // The same request is a valid Layout on 64-bit and simply does not fit.
    let t = run(
        "a = alloc 0x80000000\n",
        PresetId::FitzgenDown,
        &Options::default(),
    )
    .unwrap();
    assert!(t.ops[0].failed);
}

#[test]
fn repeat_expands_and_is_capped() {
    let t = trace("repeat 3 {\n  x = alloc 8\n}\n", PresetId::HinckleyUp);
    assert_eq!(t.ops.len(), 3);
    assert_eq!(t.ops[2].offset, Some(16));
    let e = err(&format!(
        "repeat {} {{\n x = alloc 0\n}}\n",
        MAX_FULL_TRACE_OPS + 1
    ));
    assert!(
        e.starts_with("1:1: the program would execute 100,001 ops; the limit is 100,000"),
        "{e}"
    );
    let e = err("a = alloc 1\nrepeat 2000 {\n  repeat 2000 {\n    x = alloc 1\n  }\n}\n");
    assert!(
        e.starts_with("2:1: the program would execute 4,000,001 ops; the limit is 100,000"),
        "{e}"
    );
}

#[test]
fn errors_name_their_position() {
    assert_eq!(
        err("a = alloc 8 align 3\n"),
        "1:19: alignment 3 is not allowed: use a power of two from 1 to 4096"
    );
    assert_eq!(
        err("a = alloc 8 align 0\n"),
        "1:19: alignment 0 is not allowed: use a power of two from 1 to 4096"
    );
    assert_eq!(
        err("\nfree zz\n"),
        "2:6: unknown block 'zz': no line allocates it"
    );
    assert_eq!(
        err("a = alloc 8\nfree a\nfree a\n"),
        "3:6: cannot free 'a': it was already freed at 2:1"
    );
    assert_eq!(
        err("a = alloc -4\n"),
        "1:11: '-4' is negative: sizes and counts are whole numbers of 0 or more"
    );
    assert_eq!(
        err("a = alloc ten\n"),
        "1:11: unknown type 'ten': use a size in bytes or one of u8 u16 u32 u64 u128 usize"
    );
    assert_eq!(
        err("a = alloc\n"),
        "1:10: expected a size (bytes, a type like u64, or [u32; 17]), found the end of the line"
    );
    assert_eq!(
        err("repeat 2 {\n x = alloc 1\n"),
        "1:10: this '{' is never closed: add a '}'"
    );
    assert_eq!(err("}\n"), "1:1: '}' without a matching 'repeat N {'");
    assert_eq!(
        err("restore s\n"),
        "1:1: unknown checkpoint 's': save it first with `checkpoint s`"
    );
    assert_eq!(
        err("a = alloc 8 $\n"),
        "1:13: unexpected character '$': names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment"
    );
}

#[test]
fn checkpoint_restore_rewinds() {
    let t = trace(
        "a = alloc 8\ncheckpoint s\nb = alloc 8\nrestore s\nc = alloc 8\n",
        PresetId::HinckleyUp,
    );
    assert_eq!(t.ops[3].reclaimed, vec![2]);
    assert_eq!(t.ops[4].offset, Some(8));
    let e = err("checkpoint s\ncheckpoint t\nrestore s\nrestore t\n");
    assert_eq!(e, "4:1: cannot restore 't': restoring 's' at 3:1 dropped it (save it again with `checkpoint t`)");
    let e = err("checkpoint s\nreset\nrestore s\n");
    assert_eq!(
        e,
        "3:1: cannot restore 's': the reset at 2:1 dropped it (save it again with `checkpoint s`)"
    );
    let e = err("a = alloc 8\ncheckpoint s\nb = alloc 8\nrestore s\nfree b\n");
    assert_eq!(
        e,
        "5:6: cannot free 'b': it was reclaimed by a reset or restore at 4:1"
    );
}

#[test]
fn step_lines_point_at_the_code_that_runs() {
    let src = bumplab_core::catalogue::text(Source::BumpDown);
    let line = |m| {
        src.lines()
            .nth(line_of(src, m).unwrap() as usize - 1)
            .unwrap()
            .trim()
    };
    assert_eq!(
        line("checked_sub"),
        "let Some(new_ptr) = ptr.checked_sub(size) else {"
    );
    assert_eq!(
        line("round_down"),
        "let new_ptr = new_ptr & !(align - W::ONE); // step: round_down"
    );
    assert_eq!(line("check_start"), "if new_ptr < start {");
}

#[test]
fn every_step_has_exactly_one_source_line() {
    for source in Source::ALL {
        for s in bumplab_core::catalogue::steps(source) {
            assert_eq!(s.source, source, "{s:?} is declared in the wrong file");
            let marker = format!("// step: {}", s.marker);
            let n = bumplab_core::catalogue::text(source)
                .lines()
                .filter(|l| l.trim_end().ends_with(&marker))
                .count();
            assert_eq!(n, 1, "{source:?} {s:?}");
            let line = s.line();
            let code = bumplab_core::catalogue::text(source)
                .lines()
                .nth(line as usize - 1)
                .unwrap();
            assert!(
                !code.trim_start().starts_with("//"),
                "{s:?} points at a comment: {code}"
            );
        }
    }
}

#[test]
fn step_lines_found_at_build_time_match_a_scan_of_the_texts() {
    for source in Source::ALL {
        for s in bumplab_core::catalogue::steps(source) {
            assert_eq!(
                s.line(),
                line_of(bumplab_core::catalogue::text(source), s.marker).unwrap_or(0),
                "{source:?} {s:?}"
            );
        }
    }
}

#[test]
fn every_error_class_names_position_and_what_is_allowed() {
    let cases: &[(&str, &str)] = &[
        // Sizes and numbers.
        ("a = alloc 99999999999999999999\n", "1:11: '99999999999999999999' is too large (the largest is 0xffffffffffffffff)"),
        ("a = alloc 0xzz\n", "1:11: '0xzz' is not a number (use decimal like 24 or hex like 0x18)"),
        ("a = alloc [u64; 0x4000000000000000]\n", "1:1: an array of 4611686018427387904 elements overflows a 64-bit size"),
        ("a = alloc [u7; 3]\n", "1:12: unknown type 'u7': use one of u8 u16 u32 u64 u128 usize"),
        ("a = alloc [u8 3]\n", "1:15: expected ';' between the element type and the length, found the number 3"),
        ("a = alloc 0xffffffffffffffff\n", "1:1: size 0xffffffffffffffff with align 1 exceeds isize::MAX (0x7fffffffffffffff) on this target: no Layout can describe it"),
        // Alignment.
        ("a = alloc 8 align 8192\n", "1:19: alignment 8192 is not allowed: use a power of two from 1 to 4096"),
        ("a = alloc 8 align\n", "1:18: expected an alignment, found the end of the line"),
        // Statements.
        ("alloc 8\n", "1:1: 'alloc' needs a name: write `a = alloc …`"),
        ("a = malloc 8\n", "1:5: unknown operation 'malloc': use alloc or realloc"),
        ("free = alloc 8\n", "1:6: expected the name of a block to free, found '='"),
        ("a alloc 8\n", "1:3: expected '=' after 'a' (as in `a = alloc 8`) or a statement, found 'alloc'"),
        ("a = alloc 8 8\n", "1:13: expected the end of the line, found the number 8"),
        ("repeat {\n}\n", "1:8: expected a repeat count, found '{'"),
        ("repeat 2\n", "1:9: expected '{' after the repeat count, found the end of the line"),
        // Blocks over time.
        ("a = alloc 8\nb = realloc a 16\nfree a\n", "3:6: cannot free 'a': it was reallocated at 2:1 (use the name the realloc gave it)"),
        ("a = alloc 8\nfree a\nb = realloc a 16\n", "3:13: cannot realloc 'a': it was already freed at 2:1"),
        ("a = alloc 8\nreset\nfree a\n", "3:6: cannot free 'a': it was reclaimed by a reset or restore at 2:1"),
        ("b = realloc a 16\n", "1:13: unknown block 'a': no line allocates it"),
    ];
    for (src, want) in cases {
        assert_eq!(&err(src), want, "for {src:?}");
    }
    let nested = "repeat 2 {\n".repeat(9) + &"}\n".repeat(9);
    assert_eq!(err(&nested), "9:1: repeat blocks nest at most 8 deep");
    let huge = "# padding\n".repeat(5_000_001);
    assert_eq!(err(&huge), "1:1: the program is 50 MB; the limit is 32 MB");
}

#[test]
fn the_empty_program_is_a_valid_trace_with_no_ops() {
    for preset in PresetId::ALL {
        let t = trace("# nothing yet\n\n", preset);
        assert!(t.ops.is_empty(), "{preset:?}");
    }
}

#[test]
fn a_request_that_exactly_fills_the_chunk_fits_and_one_byte_more_does_not() {
    // 200 + 56 is the chunk's 256 bytes: `total > room` (or its mirror
    // bumping down) is false and the chunk is full; 57 does not fit.
    for preset in [
        PresetId::HinckleyUp,
        PresetId::HinckleyUpNaive,
        PresetId::FitzgenDown,
        PresetId::UpMinAlign,
        PresetId::DownMinAlign,
    ] {
        let t = trace("a = alloc 200\nb = alloc 56\n", preset);
        assert!(!t.ops[1].failed, "{preset:?}");
        assert_eq!(t.ops[1].stats.used, 256, "{preset:?}");
        let t = trace("a = alloc 200\nb = alloc 57\n", preset);
        assert!(t.ops[1].failed, "{preset:?}");
    }
}
