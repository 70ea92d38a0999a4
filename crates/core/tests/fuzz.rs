//! Fuzzing the program language and the engine: whatever a stranger types,
//! `run` (what the wasm module's `traceProgram` calls) returns a trace or
//! one error inside the text, and never panics or hangs.
//!
//! Three deterministic generators: arbitrary text, programs written from
//! the grammar, and valid programs mutated (tokens swapped, deleted or
//! duplicated, numbers made huge, braces added, bodies nested deep).
//! Every input is parsed; one that parses runs on every preset and both
//! targets, one that does not on a preset picked by the case number.
//!
//! `BUMPLAB_FUZZ_CASES` sets how many inputs of each generator to try (the
//! default keeps a debug `cargo test` quick), `BUMPLAB_FUZZ_SEED` where the
//! generators start. A long run:
//!
//! ```text
//! BUMPLAB_FUZZ_CASES=400000 cargo test --release -p bumplab-core --test fuzz -- --nocapture
//! ```

use std::panic::{catch_unwind, AssertUnwindSafe};

use bumplab_core::program::{op_count, parse, Program};
use bumplab_core::trace::Trace;
use bumplab_core::{run, Options, PresetId, ProgramError, Target};

/// Inputs of each generator a plain `cargo test` tries.
const DEFAULT_CASES: u64 = 400;
/// Least share (percent) of the grammar generator's inputs that must parse.
const GRAMMAR_MIN_PARSED: u64 = 70;
/// Least share (percent) of the mutated inputs that must parse: most
/// mutations break the syntax on purpose, some must still reach the engine
/// (measured: 9% to 12% over seeds 0-4).
const MUTATIONS_MIN_PARSED: u64 = 6;

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// splitmix64: small, deterministic, good enough to pick grammar branches.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }
}

// ---------------------------------------------------------------- generators

/// Text from an alphabet weighted towards the language's own characters,
/// with some arbitrary code points and raw bytes made lossy.
fn arbitrary_text(rng: &mut Rng) -> String {
    const PIECES: &[&str] = &[
        "a",
        "b",
        "x",
        "0",
        "1",
        "8",
        "9",
        "f",
        "_",
        "-",
        "=",
        "{",
        "}",
        "[",
        "]",
        ";",
        "#",
        " ",
        " ",
        "\n",
        "\n",
        "\t",
        "\r",
        "\r\n",
        "0x",
        "u8",
        "u64",
        "usize",
        "alloc",
        "realloc",
        "free",
        "align",
        "repeat",
        "reset",
        "checkpoint",
        "restore",
        "<",
        ">",
        "&",
        "\"",
        "'",
        "\u{0}",
        "\u{feff}",
        "é",
        "\u{200b}",
        "😀",
        "\u{1b}",
    ];
    let mut s = String::new();
    let len = rng.below(64);
    if rng.chance(10) {
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        return String::from_utf8_lossy(&bytes).into_owned();
    }
    for _ in 0..len {
        if rng.chance(5) {
            if let Some(c) = char::from_u32(rng.next() as u32 % 0x11_0000) {
                s.push(c);
            }
        } else {
            s.push_str(rng.pick(PIECES));
        }
    }
    s
}

const NAMES: &[&str] = &["a", "b", "c", "d", "s", "t", "x1", "_y"];

fn number(rng: &mut Rng) -> String {
    const NUMBERS: &[&str] = &[
        "0",
        "1",
        "2",
        "3",
        "7",
        "8",
        "16",
        "24",
        "100",
        "4096",
        "8192",
        "0x10",
        "1_000",
        "0x7fffffff",
        "0x80000000",
        "0xffffffff",
        "0x100000000",
        "0x7ffffffffffff000",
        "0x7fffffffffffffff",
        "0xffffffffffffffff",
        "18446744073709551615",
        "99999999999999999999",
        "-1",
        "0x",
    ];
    if rng.chance(20) {
        (rng.next() >> rng.below(64)).to_string()
    } else {
        rng.pick(NUMBERS).to_string()
    }
}

fn size(rng: &mut Rng) -> String {
    const TYPES: &[&str] = &["u8", "u16", "u32", "u64", "u128", "usize"];
    match rng.below(10) {
        0 => rng.pick(TYPES).to_string(),
        1 => format!("[{}; {}]", rng.pick(TYPES), number(rng)),
        2..=5 => rng.below(200).to_string(),
        _ => number(rng),
    }
}

fn align(rng: &mut Rng) -> String {
    const ALIGNS: &[&str] = &[
        "1", "2", "4", "8", "16", "64", "4096", "0", "3", "24", "8192",
    ];
    rng.pick(ALIGNS).to_string()
}

/// A program written from the grammar (mostly valid, sometimes not: names
/// used after they end, huge sizes, bad alignments).
fn grammar_program(rng: &mut Rng, depth: usize, out: &mut String) {
    let indent = "  ".repeat(depth);
    for _ in 0..rng.below(8) + 1 {
        let line = match rng.below(14) {
            0..=4 => {
                let mut l = format!("{} = alloc {}", rng.pick(NAMES), size(rng));
                if rng.chance(50) {
                    l += &format!(" align {}", align(rng));
                }
                l
            }
            5 | 6 => format!(
                "{} = realloc {} {}",
                rng.pick(NAMES),
                rng.pick(NAMES),
                if rng.chance(70) {
                    rng.below(300).to_string()
                } else {
                    number(rng)
                }
            ),
            7 | 8 => format!("free {}", rng.pick(NAMES)),
            9 => format!("checkpoint {}", rng.pick(NAMES)),
            10 => format!("restore {}", rng.pick(NAMES)),
            11 => "reset".to_string(),
            _ if depth < 10 => {
                // Small counts keep the op count low; the large ones are
                // refused up front, or are pruned when the body runs nothing.
                let count = match rng.below(10) {
                    0 => "0".to_string(),
                    1 => "18446744073709551615".to_string(),
                    2 => "1000000".to_string(),
                    _ if depth < 4 => (rng.below(3) + 1).to_string(),
                    _ => "1".to_string(),
                };
                let mut body = String::new();
                if !rng.chance(15) {
                    grammar_program(rng, depth + 1, &mut body);
                }
                format!("repeat {count} {{\n{body}{indent}}}")
            }
            _ => "# deep enough".to_string(),
        };
        out.push_str(&indent);
        out.push_str(&line);
        if rng.chance(10) {
            out.push_str(" # <b>a comment</b>");
        }
        out.push('\n');
    }
}

/// Valid programs to mutate: the documented examples and typical shapes.
const SEEDS: &[&str] = &[
    "a = alloc 24 align 8\nb = alloc u64\nc = alloc [u32; 17]\na = realloc a 64\nfree b\ncheckpoint s\nrestore s\nreset\n",
    "repeat 10 {\n  x = alloc 16 align 8\n}\n",
    "a = alloc 400\nb = alloc 100\nc = alloc 8 align 8\n",
    "checkpoint s\nrepeat 3 {\n  a = alloc 600 align 64\n  b = realloc a 1200\n  free b\n}\nrestore s\n",
    "a = alloc 0\nb = alloc 0 align 4096\nfree a\nc = realloc b 8\n",
    "repeat 2 {\n  repeat 3 {\n    a = alloc 1\n  }\n  checkpoint t\n}\nrestore t\n",
];

/// Splits into words and single characters, keeping the spacing.
fn tokens(src: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in src.chars() {
        let word = c.is_ascii_alphanumeric() || c == '_';
        match out.last_mut() {
            Some(last) if word && last.chars().all(|l| l.is_ascii_alphanumeric() || l == '_') => {
                last.push(c)
            }
            _ => out.push(c.to_string()),
        }
    }
    out
}

fn mutate(rng: &mut Rng, src: &str) -> String {
    let mut toks = tokens(src);
    for _ in 0..rng.below(4) + 1 {
        if toks.is_empty() {
            toks.push(String::new());
        }
        let i = rng.below(toks.len());
        let j = rng.below(toks.len());
        match rng.below(9) {
            0 => {
                toks.remove(i);
            }
            1 => toks.swap(i, j),
            2 => {
                let t = toks[j].clone();
                toks.insert(i, t);
            }
            3 => toks[i] = number(rng),
            4 => toks.insert(
                i,
                rng.pick(&["{", "}", "[", "]", "=", "\n", "#"]).to_string(),
            ),
            5 => toks[i] = rng.pick(NAMES).to_string(),
            6 => {
                let k = (i + rng.below(8)).min(toks.len());
                toks.drain(i..k);
            }
            7 => toks.insert(i, arbitrary_text(rng)),
            _ => {
                // Deep nesting around the whole program (past the limit, sometimes).
                let depth = rng.below(11);
                let count = rng.pick(&["1", "2", "0", "18446744073709551615"]);
                toks.insert(0, format!("repeat {count} {{\n").repeat(depth));
                toks.push("\n}".repeat(depth));
            }
        }
    }
    toks.concat()
}

// ---------------------------------------------------------------- checks

/// The text's lines as the parser numbers them: LF, CRLF and a lone CR
/// each end one (as `str::lines`, no empty line after the last end).
fn parser_lines(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        match rest.find(['\n', '\r']) {
            Some(i) => {
                out.push(&rest[..i]);
                let end = if rest[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = &rest[i + end..];
            }
            None => {
                out.push(rest);
                rest = "";
            }
        }
    }
    out
}

/// The error points inside the text: a line of it, and a column within that
/// line or just past its end.
fn check_error(src: &str, e: &ProgramError) -> Result<(), String> {
    let text = src.strip_prefix('\u{feff}').unwrap_or(src);
    let lines = parser_lines(text);
    let line = e.line as usize;
    let width = match line {
        0 => return Err(format!("line 0 in {e}")),
        1 if lines.is_empty() => 0,
        _ => match lines.get(line - 1) {
            Some(l) => l.chars().count(),
            None => return Err(format!("line {line} of {} in {e}", lines.len())),
        },
    };
    if e.column == 0 || e.column as usize > width + 1 {
        return Err(format!(
            "column {} of a {width}-character line in {e}",
            e.column
        ));
    }
    if e.message.is_empty() {
        return Err("an empty message".into());
    }
    // The further errors: each on a later line than the one before it.
    let mut last = e.line;
    for m in &e.more {
        if m.line <= last || !m.more.is_empty() {
            return Err(format!("{m} listed after line {last}"));
        }
        last = m.line;
        check_error(src, m)?;
    }
    Ok(())
}

/// Ops a parsed program executes.
fn executed(program: &Program) -> u64 {
    op_count(program)
}

/// A trace is whole: one op per executed statement, each at a statement of
/// the program, naming only chunks and ops that exist, and it serialises.
fn check_trace(program: &Program, t: &Trace) -> Result<(), String> {
    let want = executed(program);
    if t.ops.len() as u64 != want {
        return Err(format!("{} ops in the trace, {want} executed", t.ops.len()));
    }
    let at: Vec<(u32, u32)> = program.iter().map(|s| (s.pos.line, s.pos.column)).collect();
    for (i, op) in t.ops.iter().enumerate() {
        let i = i as u32;
        if op.index != i {
            return Err(format!("op {i} has index {}", op.index));
        }
        if !at.contains(&(op.line, op.column)) {
            return Err(format!(
                "op {i} at {}:{}, no statement there",
                op.line, op.column
            ));
        }
        if op.chunk.is_some_and(|c| c as usize >= t.chunks.len()) {
            return Err(format!("op {i} names chunk {:?}", op.chunk));
        }
        if op.target_op.is_some_and(|o| o >= i) || op.reclaimed.iter().any(|&o| o >= i) {
            return Err(format!("op {i} names a later op"));
        }
        if let (Some(c), Some(off), Some(addr)) = (op.chunk, op.offset, op.address) {
            if t.chunks[c as usize].start + off != addr {
                return Err(format!("op {i}: start + offset != address"));
            }
        }
    }
    for (i, c) in t.chunks.iter().enumerate() {
        if c.id as usize != i {
            return Err(format!("chunk {i} has id {}", c.id));
        }
        let n = t.ops.len() as u32;
        if c.created_by.is_some_and(|o| o >= n) || c.freed_by.is_some_and(|o| o >= n) {
            return Err(format!("chunk {i} names an op past the end"));
        }
    }
    serde_json::to_string(t).map_err(|e| format!("does not serialise: {e}"))?;
    Ok(())
}

fn check_run(
    src: &str,
    preset: PresetId,
    target: Target,
    parsed: &Result<Program, ProgramError>,
) -> Result<(), String> {
    let opts = Options {
        target,
        ..Options::default()
    };
    match (run(src, preset, &opts), parsed) {
        (Ok(t), Ok(stmts)) => check_trace(stmts, &t),
        (Ok(_), Err(e)) => Err(format!("runs although parse says {e}")),
        (Err(e), Ok(_)) => check_error(src, &e),
        (Err(e), Err(p)) if &e == p => check_error(src, &e),
        (Err(e), Err(p)) => Err(format!("run says {e}, parse says {p}")),
    }
}

/// Runs one input everywhere it should run; returns the runs made.
fn try_input(src: &str, case: u64) -> Result<u64, String> {
    let parsed = catch_unwind(|| parse(src)).map_err(|_| "parse panicked".to_string())?;
    if let Err(e) = &parsed {
        check_error(src, e)?;
    }
    // A program that parses runs everywhere, unless it is long to run (the
    // op limit allows 100,000 ops): then, like one that does not parse, on
    // one preset and target.
    let everywhere = parsed.as_ref().is_ok_and(|p| executed(p) <= 2_000);
    let combos: Vec<(PresetId, Target)> = if everywhere {
        PresetId::ALL
            .into_iter()
            .flat_map(|p| Target::ALL.into_iter().map(move |t| (p, t)))
            .collect()
    } else {
        let all = PresetId::ALL.len() as u64;
        vec![(
            PresetId::ALL[(case % all) as usize],
            Target::ALL[(case / all % 2) as usize],
        )]
    };
    for &(preset, target) in &combos {
        catch_unwind(AssertUnwindSafe(|| check_run(src, preset, target, &parsed)))
            .map_err(|_| format!("panicked on {} {}", preset.name(), target.name()))?
            .map_err(|why| format!("on {} {}: {why}", preset.name(), target.name()))?;
    }
    Ok(combos.len() as u64)
}

/// Runs `cases` inputs from `generate` and requires that at least
/// `min_parsed_percent` of them parse: a generator whose inputs all fail to
/// parse would test only the error path, and pass while doing so.
fn fuzz(name: &str, min_parsed_percent: u64, generate: impl Fn(&mut Rng) -> String) {
    let cases = env_u64("BUMPLAB_FUZZ_CASES", DEFAULT_CASES);
    let seed = env_u64("BUMPLAB_FUZZ_SEED", 0);
    let mut rng = Rng(seed ^ (name.len() as u64 * 0x1234_5678));
    let (mut runs, mut parsed) = (0u64, 0u64);
    let mut failures = Vec::new();
    for case in 0..cases {
        let src = generate(&mut rng);
        match try_input(&src, case) {
            Ok(n) => {
                runs += n;
                parsed += u64::from(parse(&src).is_ok());
            }
            Err(why) => failures.push(format!("case {case}: {why}\n  input: {src:?}")),
        }
        if failures.len() >= 5 {
            break;
        }
    }
    println!("{name}: {cases} inputs, {parsed} parsed, {runs} runs, seed {seed}");
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    assert!(
        parsed * 100 >= min_parsed_percent * cases,
        "{name}: only {parsed} of {cases} inputs parsed, below the {min_parsed_percent}% this \
         generator must reach to exercise the engine and not only the parser's errors"
    );
}

#[test]
fn arbitrary_text_never_breaks_it() {
    // Arbitrary text is for the parser's error path: no share is required.
    fuzz("arbitrary text", 0, arbitrary_text);
}

#[test]
fn programs_from_the_grammar_never_break_it() {
    // Mostly valid by construction (measured: 81% to 83% over seeds 0-4).
    fuzz("grammar", GRAMMAR_MIN_PARSED, |rng| {
        let mut s = String::new();
        grammar_program(rng, 0, &mut s);
        s
    });
}

#[test]
fn mutated_programs_never_break_it() {
    fuzz("mutations", MUTATIONS_MIN_PARSED, |rng| {
        let base = if rng.chance(50) {
            rng.pick(SEEDS).to_string()
        } else {
            let mut s = String::new();
            grammar_program(rng, 0, &mut s);
            s
        };
        mutate(rng, &base)
    });
}

/// The checks themselves catch what they are for.
#[test]
fn the_checks_catch_bad_positions_and_counts() {
    let at = |line, column| ProgramError {
        line,
        column,
        message: "m".into(),
        more: Vec::new(),
    };
    assert!(check_error("ab\ncd", &at(2, 3)).is_ok());
    assert!(check_error("ab\ncd", &at(2, 4)).is_err());
    assert!(check_error("ab\ncd", &at(3, 1)).is_err());
    assert!(check_error("ab", &at(0, 1)).is_err());
    assert!(check_error("", &at(1, 1)).is_ok());
    let stmts = parse("repeat 3 {\n  a = alloc 8\n}\nfree a").unwrap();
    assert_eq!(executed(&stmts), 4);
    let t = run("a = alloc 8", PresetId::HinckleyUp, &Options::default()).unwrap();
    assert!(check_trace(&stmts, &t)
        .unwrap_err()
        .starts_with("1 ops in the trace, 4 executed"));
}
