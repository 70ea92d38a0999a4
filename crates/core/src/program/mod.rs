//! The program language: a tiny line-based language of allocation operations.
//!
//! ```text
//! # comment
//! a = alloc 24 align 8        # size in bytes (decimal or 0x hex); align defaults to 1
//! b = alloc u64               # u8 u16 u32 u64 u128 usize: size and alignment of the type
//! c = alloc [u32; 17]         # arrays of those types
//! a = realloc a 64            # grow or shrink block a to 64 bytes
//! free b
//! checkpoint s
//! restore s
//! reset
//! repeat 1000 {               # the body runs N times; repeats may nest
//!   x = alloc 16 align 8
//! }
//! ```
//!
//! Every error carries the 1-based line and column where it was found.

use serde::Serialize;

mod lexer;
mod names;
mod packed;
mod parser;

pub use names::{Name, Names};
pub use packed::Program;
use parser::Parser;

/// Largest program text accepted, so a paste or a dropped file cannot
/// exhaust the page's memory. A recording of a real program writes about 16
/// to 21 bytes an op (a `free` line is short, an `alloc` with its alignment
/// longer; `repeat` folds loops), so a recording of [`MAX_EXECUTED_OPS`]
/// ops fits; the run's own memory, not the text's, is what bounds the op
/// count.
///
/// [`MAX_EXECUTED_OPS`]: crate::engine::MAX_EXECUTED_OPS
pub const MAX_SOURCE_BYTES: usize = 32_000_000;
/// Deepest nesting of `repeat` blocks.
pub const MAX_REPEAT_DEPTH: usize = 8;
/// Longest block or checkpoint name: every op that names it carries a copy,
/// so a long name repeated many times must not add up to gigabytes.
pub const MAX_NAME_CHARS: usize = 64;

/// A position in the program text (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Pos {
    pub line: u32,
    pub column: u32,
}

/// Most errors one parse reports: the first and this many less one in
/// [`ProgramError::more`], then a count of the rest.
pub const MAX_ERRORS: usize = 100;

/// An error with the position it refers to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ProgramError {
    pub line: u32,
    pub column: u32,
    pub message: String,
    /// The program's other errors, on later lines, when the parser found
    /// more than one (at most one per line). Running stops at its first
    /// error, so an error from a run has none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<ProgramError>,
}

impl ProgramError {
    pub fn at(pos: Pos, message: impl Into<String>) -> Self {
        ProgramError {
            line: pos.line,
            column: pos.column,
            message: message.into(),
            more: Vec::new(),
        }
    }
}

impl core::fmt::Display for ProgramError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{}:{}: {}", self.line, self.column, self.message)
    }
}

/// A primitive type usable as a size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Prim {
    U8,
    U16,
    U32,
    U64,
    U128,
    Usize,
}

impl Prim {
    fn parse(s: &str) -> Option<Prim> {
        Some(match s {
            "u8" => Prim::U8,
            "u16" => Prim::U16,
            "u32" => Prim::U32,
            "u64" => Prim::U64,
            "u128" => Prim::U128,
            "usize" => Prim::Usize,
            _ => return None,
        })
    }

    /// The type's name as a program writes it.
    pub fn name(self) -> &'static str {
        match self {
            Prim::U8 => "u8",
            Prim::U16 => "u16",
            Prim::U32 => "u32",
            Prim::U64 => "u64",
            Prim::U128 => "u128",
            Prim::Usize => "usize",
        }
    }

    /// Size (= alignment) in bytes for a target with `usize_bytes`-byte words.
    pub fn size(self, usize_bytes: u64) -> u64 {
        match self {
            Prim::U8 => 1,
            Prim::U16 => 2,
            Prim::U32 => 4,
            Prim::U64 => 8,
            Prim::U128 => 16,
            Prim::Usize => usize_bytes,
        }
    }
}

/// How a block's size is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizeExpr {
    Bytes(u64),
    Type(Prim),
    Array(Prim, u64),
}

/// One statement. A `repeat` does not hold its body: in a [`Program`] the
/// body is the `len` statements after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StmtKind {
    Alloc {
        name: Name,
        size: SizeExpr,
        /// Explicit `align N`, with the position of N.
        align: Option<(u64, Pos)>,
    },
    Realloc {
        name: Name,
        block: Name,
        /// Where `block` is written, for errors about it.
        block_pos: Pos,
        size: u64,
    },
    Free {
        block: Name,
        /// Where `block` is written, for errors about it.
        block_pos: Pos,
    },
    Checkpoint {
        name: Name,
    },
    Restore {
        name: Name,
    },
    Reset,
    Repeat {
        count: u64,
        /// Statements in the body, nested repeats' bodies included.
        len: u32,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub pos: Pos,
    pub kind: StmtKind,
}

/// Why a program text of `len` bytes is refused: its size and the limit in
/// megabytes (1,000,000 bytes, as a file manager shows a file's size), or in
/// bytes where one decimal would make the two read the same.
pub fn too_large(len: u64) -> String {
    let limit = MAX_SOURCE_BYTES as u64;
    let size = megabytes(len);
    if size == megabytes(limit) {
        format!(
            "the program is {}; the limit is {}",
            grouped_bytes(len),
            grouped_bytes(limit)
        )
    } else {
        format!("the program is {size}; the limit is {}", megabytes(limit))
    }
}

/// `32 MB`, `20.4 MB`, `0.5 MB`: one decimal unless it is zero.
fn megabytes(n: u64) -> String {
    // Tenths of a megabyte, rounded half up; n / 50_000 cannot overflow.
    let tenths = (n / 50_000).div_ceil(2);
    if tenths % 10 == 0 {
        format!("{} MB", tenths / 10)
    } else {
        format!("{}.{} MB", tenths / 10, tenths % 10)
    }
}

/// `32,000,001 bytes`.
fn grouped_bytes(n: u64) -> String {
    format!(
        "{} {}",
        crate::text::grouped(n),
        if n == 1 { "byte" } else { "bytes" }
    )
}

/// The lines of `src`, each ended by `\n`, `\r\n` or a lone `\r`: a file
/// saved with any of the three line endings reads the same, and its lines are
/// numbered as a browser's text box numbers them (it turns each into `\n`).
pub fn source_lines(src: &str) -> SourceLines<'_> {
    // As `str::lines`: no line in an empty text, none after a final line end.
    SourceLines {
        rest: Some(src).filter(|s| !s.is_empty()),
    }
}

/// The iterator of [`source_lines`].
#[derive(Clone, Debug)]
pub struct SourceLines<'a> {
    rest: Option<&'a str>,
}

impl<'a> Iterator for SourceLines<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        let text = self.rest?;
        match text.find(['\n', '\r']) {
            Some(i) => {
                let skip = if text[i..].starts_with("\r\n") { 2 } else { 1 };
                self.rest = Some(&text[i + skip..]).filter(|r| !r.is_empty());
                Some(&text[..i])
            }
            None => {
                self.rest = None;
                Some(text)
            }
        }
    }
}

/// Longest token an error message quotes whole: a longer one (a megabyte of
/// digits pasted by mistake) is quoted as its start and its length, so the
/// message stays a line a reader can read.
pub const MAX_QUOTED_CHARS: usize = 32;

/// `token` in quotes, or its first characters and its length if it is longer
/// than [`MAX_QUOTED_CHARS`].
pub fn quoted(token: &str) -> String {
    match token.char_indices().nth(MAX_QUOTED_CHARS) {
        None => format!("'{token}'"),
        Some(_) => {
            let cut = token.char_indices().nth(24).map_or(token.len(), |(i, _)| i);
            format!(
                "'{}…' ({} characters)",
                &token[..cut],
                crate::text::grouped(token.chars().count() as u64)
            )
        }
    }
}

/// Parses a program into statements.
pub fn parse(src: &str) -> Result<Program, ProgramError> {
    if src.len() > MAX_SOURCE_BYTES {
        return Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            too_large(src.len() as u64),
        ));
    }
    // A byte order mark some editors save is not part of the program.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let mut p = Parser::new(src);
    p.block(0);
    // One error per line: the lexer's first (a bad character makes the
    // parser's reading of the rest of its line a guess), else the first the
    // parser found there.
    let mut by_line = std::collections::BTreeMap::new();
    for e in p.lex_errors.into_iter().chain(p.errors) {
        by_line.entry(e.line).or_insert(e);
    }
    let mut errors: Vec<ProgramError> = by_line.into_values().collect();
    if errors.len() > MAX_ERRORS {
        // The last one listed stands for itself and the rest.
        let rest = errors.split_off(MAX_ERRORS - 1);
        let at = Pos {
            line: rest[0].line,
            column: rest[0].column,
        };
        let message = format!(
            "{} from this line on; the first: {}",
            crate::text::plural(rest.len() as u64, "more error"),
            rest[0].message
        );
        errors.push(ProgramError::at(at, message));
    }
    let mut errors = errors.into_iter();
    match errors.next() {
        None => {
            let mut program = p.program;
            program.seal();
            Ok(program)
        }
        Some(mut first) => {
            first.more = errors.collect();
            Err(first)
        }
    }
}

/// Where a program gives a block its name (`a = alloc …` or `a = realloc …`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Assigned {
    /// The first such statement that runs, or else the first one.
    pub at: Pos,
    /// The `repeat 0` around `at` when no statement naming the block runs:
    /// why a later use of the name finds no block.
    pub never_runs: Option<Pos>,
}

/// Where the program assigns each name (by name number; `None` for the
/// names no statement assigns): so a use of a name that holds no block can
/// say why not. Read before the program is pruned, since a `repeat 0` is
/// part of the answer.
pub fn assignments(program: &Program) -> Vec<Option<Assigned>> {
    let mut out = vec![None; program.names().len()];
    // The `repeat 0` statements around the statement at hand, innermost last,
    // with the index where each body ends.
    let mut zeros: Vec<(usize, Pos)> = Vec::new();
    let mut ends: Vec<usize> = Vec::new();
    for (i, s) in program.iter().enumerate() {
        while ends.last() == Some(&i) {
            ends.pop();
        }
        while zeros.last().is_some_and(|&(end, _)| end <= i) {
            zeros.pop();
        }
        let name = match s.kind {
            StmtKind::Repeat { count, len } => {
                let end = i + 1 + len as usize;
                ends.push(end);
                if count == 0 && zeros.is_empty() {
                    zeros.push((end, s.pos));
                }
                continue;
            }
            StmtKind::Alloc { name, .. } | StmtKind::Realloc { name, .. } => name,
            _ => continue,
        };
        let zero = zeros.first().map(|&(_, p)| p);
        let here = Assigned {
            at: s.pos,
            never_runs: zero,
        };
        let e: &mut Option<Assigned> = &mut out[name.index()];
        match e {
            None => *e = Some(here),
            Some(a) if a.never_runs.is_some() && zero.is_none() => *a = here,
            Some(_) => {}
        }
    }
    out
}

/// Ops the statements `range` of `program` execute, saturating: `range`
/// holds whole statements (a repeat with its body).
fn ops_in(program: &Program, range: core::ops::Range<usize>) -> u64 {
    let mut n = 0u64;
    let mut i = range.start;
    while i < range.end {
        match program.get(i).kind {
            StmtKind::Repeat { count, len } => {
                let end = i + 1 + len as usize;
                n = n.saturating_add(count.saturating_mul(ops_in(program, i + 1..end)));
                i = end;
            }
            _ => {
                n = n.saturating_add(1);
                i += 1;
            }
        }
    }
    n
}

/// Ops the program executes, saturating.
pub fn op_count(program: &Program) -> u64 {
    ops_in(program, 0..program.len())
}

/// Refuses, before running anything, a program that would execute more than
/// `cap` ops, naming the statement where the total crosses it; `what` says
/// what the cap is, after the count (", the most a full JSON trace holds").
pub(crate) fn check_op_count(program: &Program, cap: u64, what: &str) -> Result<(), ProgramError> {
    let all = op_count(program);
    if all <= cap {
        return Ok(());
    }
    let message = over_cap(all, cap, what, written_ops(program) <= cap);
    Err(first_over(program, 0..program.len(), cap, &message))
}

/// The error at the statement where the running total first passes `cap`
/// (inside a repeat whose body alone passes it: the line to change).
fn first_over(
    program: &Program,
    range: core::ops::Range<usize>,
    cap: u64,
    message: &str,
) -> ProgramError {
    let mut total = 0u64;
    let mut i = range.start;
    while i < range.end {
        let s = program.get(i);
        let end = match s.kind {
            StmtKind::Repeat { len, .. } => i + 1 + len as usize,
            _ => i + 1,
        };
        total = total.saturating_add(ops_in(program, i..end));
        if total > cap {
            if end > i + 1 && ops_in(program, i + 1..end) > cap {
                return first_over(program, i + 1..end, cap, message);
            }
            return ProgramError::at(s.pos, message.to_string());
        }
        i = end;
    }
    ProgramError::at(Pos { line: 1, column: 1 }, message.to_string())
}

/// Ops written out in the text, each repeat's body once: more than the cap
/// and no repeat count can bring the program under it.
fn written_ops(program: &Program) -> u64 {
    program
        .iter()
        .filter(|s| !matches!(s.kind, StmtKind::Repeat { .. }))
        .count() as u64
}

/// "the program would execute 1,600,000 ops; the limit is 1,500,000": the
/// count in full (repeats whose product passes a u64 say "over 18 quintillion"), and what to
/// change: a repeat count where lowering one can help, else the recording's
/// length.
fn over_cap(all: u64, cap: u64, what: &str, repeats: bool) -> String {
    let count = if all == u64::MAX {
        "over 18 quintillion".to_string()
    } else {
        crate::text::grouped(all)
    };
    let fix = if repeats {
        "lower a repeat count"
    } else {
        "record fewer ops (bumplab-record --max-ops)"
    };
    format!(
        "the program would execute {count} ops; the limit is {}{what}: {fix}",
        crate::text::grouped(cap)
    )
}

#[cfg(test)]
mod limit_tests {
    use super::*;

    #[test]
    fn a_program_over_the_size_limit_is_refused_with_both_sizes_in_megabytes() {
        assert_eq!(MAX_SOURCE_BYTES, 32_000_000);
        assert_eq!(
            too_large(52_345_678),
            "the program is 52.3 MB; the limit is 32 MB"
        );
        assert_eq!(
            too_large(1_000_000_000),
            "the program is 1000 MB; the limit is 32 MB"
        );
        // One decimal would read "32 MB" for both: the exact counts say which is larger.
        assert_eq!(
            too_large(32_000_001),
            "the program is 32,000,001 bytes; the limit is 32,000,000 bytes"
        );
        let src = "#".repeat(MAX_SOURCE_BYTES + 1);
        let e = parse(&src).unwrap_err();
        assert_eq!((e.line, e.column), (1, 1));
        assert_eq!(e.message, too_large(src.len() as u64));
        assert!(parse(&"#".repeat(MAX_SOURCE_BYTES)).is_ok());
    }

    #[test]
    fn megabytes_round_to_one_decimal_half_up() {
        assert_eq!(megabytes(20_369_660), "20.4 MB");
        assert_eq!(megabytes(149_999), "0.1 MB");
        assert_eq!(megabytes(150_000), "0.2 MB");
        assert_eq!(megabytes(31_950_000), "32 MB");
        assert_eq!(crate::text::grouped(1_234_567), "1,234,567");
        assert_eq!(crate::text::grouped(999), "999");
    }
}

#[cfg(test)]
mod hostile_input_tests {
    use super::*;

    fn messages(src: &str) -> Vec<String> {
        let e = parse(src).unwrap_err();
        core::iter::once(&e)
            .chain(&e.more)
            .map(|e| format!("{}:{}: {}", e.line, e.column, e.message))
            .collect()
    }

    #[test]
    fn lines_end_at_lf_crlf_or_a_lone_cr_alike() {
        let lf = "a = alloc 8\nb = alloc u64\nfree a\n";
        let want = format!("{:?}", parse(lf).unwrap());
        for text in [
            "a = alloc 8\r\nb = alloc u64\r\nfree a\r\n",
            "a = alloc 8\rb = alloc u64\rfree a\r",
            "a = alloc 8\rb = alloc u64\r\nfree a",
        ] {
            assert_eq!(format!("{:?}", parse(text).unwrap()), want, "{text:?}");
        }
        // An error is on the line a text box shows it on, every \r a line break.
        assert_eq!(
            messages("a = alloc 8\rb = alloc 8 align x\r\rc = alloc x1"),
            [
                "2:19: expected an alignment, found 'x'",
                "4:11: unknown type 'x1': use a size in bytes or one of u8 u16 u32 u64 u128 usize",
            ]
        );
        assert_eq!(
            source_lines("a\r\rb\r\n\nc").collect::<Vec<_>>(),
            ["a", "", "b", "", "c"]
        );
        assert_eq!(source_lines("a\n").collect::<Vec<_>>(), ["a"]);
        assert_eq!(source_lines("").count(), 0);
    }

    #[test]
    fn a_megabyte_token_is_quoted_as_its_start_and_its_length() {
        let digits = format!("1{}", "9".repeat(999_999));
        let letters = format!("9{}", "x".repeat(999_999));
        assert_eq!(
            messages(&format!("a = alloc {digits}\nb = alloc {letters}\nc = alloc -{digits}\n")),
            [
                "1:11: '199999999999999999999999…' (1,000,000 characters) is too large (the largest is 0xffffffffffffffff)",
                "2:11: '9xxxxxxxxxxxxxxxxxxxxxxx…' (1,000,000 characters) is not a number (use decimal like 24 or hex like 0x18)",
                "3:11: '-19999999999999999999999…' (1,000,001 characters) is negative: sizes and counts are whole numbers of 0 or more",
            ]
        );
        // 32 characters are quoted whole; multi-byte characters are cut on a character.
        assert_eq!(quoted(&"x".repeat(32)), format!("'{}'", "x".repeat(32)));
        assert_eq!(
            quoted(&"é".repeat(40)),
            format!("'{}…' (40 characters)", "é".repeat(24))
        );
    }
}
