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

/// Largest program text accepted, so a paste or a dropped file cannot
/// exhaust the page's memory. A recording of a real program writes 15 to 25
/// bytes an op (a `free` line is short, an `alloc` with its alignment
/// longer; `repeat` folds loops), so a recording of a million ops, the
/// recorders' default limit, fits; one of all [`MAX_EXECUTED_OPS`] may
/// not. The run's own memory, not the text's, is what bounds the op count.
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

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StmtKind {
    Alloc {
        name: String,
        size: SizeExpr,
        /// Explicit `align N`, with the position of N.
        align: Option<(u64, Pos)>,
    },
    Realloc {
        name: String,
        block: String,
        /// Where `block` is written, for errors about it.
        block_pos: Pos,
        size: u64,
    },
    Free {
        block: String,
        /// Where `block` is written, for errors about it.
        block_pos: Pos,
    },
    Checkpoint {
        name: String,
    },
    Restore {
        name: String,
    },
    Reset,
    Repeat {
        count: u64,
        body: Vec<Stmt>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stmt {
    pub pos: Pos,
    pub kind: StmtKind,
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Tok {
    Ident(String),
    Num(u64),
    Eq,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Newline,
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    pos: Pos,
}

/// The lines of `src`, each ended by `\n`, `\r\n` or a lone `\r`: a file
/// saved with any of the three line endings reads the same, and its lines are
/// numbered as a browser's text box numbers them (it turns each into `\n`).
pub fn source_lines(src: &str) -> impl Iterator<Item = &str> {
    // As `str::lines`: no line in an empty text, none after a final line end.
    let mut rest = Some(src).filter(|s| !s.is_empty());
    core::iter::from_fn(move || {
        let text = rest?;
        match text.find(['\n', '\r']) {
            Some(i) => {
                let skip = if text[i..].starts_with("\r\n") { 2 } else { 1 };
                rest = Some(&text[i + skip..]).filter(|r| !r.is_empty());
                Some(&text[..i])
            }
            None => {
                rest = None;
                Some(text)
            }
        }
    })
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
                grouped(token.chars().count() as u64)
            )
        }
    }
}

/// The tokens of `src`, and an error for each bad character, number or
/// name. A bad number or name still yields a token, and a bad character is
/// skipped, so the parser reads the line on and reports the lines after it.
fn lex(src: &str) -> (Vec<Token>, Vec<ProgramError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (li, line) in source_lines(src).enumerate() {
        let line_no = li as u32 + 1;
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            let pos = Pos {
                line: line_no,
                column: i as u32 + 1,
            };
            if c == '#' {
                break;
            }
            if c.is_whitespace() {
                i += 1;
                continue;
            }
            let single = match c {
                '=' => Some(Tok::Eq),
                '{' => Some(Tok::LBrace),
                '}' => Some(Tok::RBrace),
                '[' => Some(Tok::LBracket),
                ']' => Some(Tok::RBracket),
                ';' => Some(Tok::Semi),
                _ => None,
            };
            if let Some(tok) = single {
                out.push(Token { tok, pos });
                i += 1;
                continue;
            }
            let minus_number = c == '-' && chars.get(i + 1).is_some_and(char::is_ascii_digit);
            if c.is_ascii_alphanumeric() || c == '_' || minus_number {
                let begin = i;
                while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_')
                    || (i == begin && chars[i] == '-')
                {
                    i += 1;
                }
                let word: String = chars[begin..i].iter().collect();
                let tok = if c.is_ascii_digit() || c == '-' {
                    Tok::Num(parse_number(&word, pos).unwrap_or_else(|e| {
                        errors.push(e);
                        0
                    }))
                } else {
                    if word.len() > MAX_NAME_CHARS {
                        errors.push(ProgramError::at(
                            pos,
                            format!(
                                "this name is {} characters long: names are at most {MAX_NAME_CHARS}",
                                word.len()
                            ),
                        ));
                    }
                    Tok::Ident(word)
                };
                out.push(Token { tok, pos });
                continue;
            }
            errors.push(ProgramError::at(pos, unexpected(c)));
            i += 1;
        }
        out.push(Token {
            tok: Tok::Newline,
            pos: Pos {
                line: line_no,
                column: chars.len() as u32 + 1,
            },
        });
    }
    (out, errors)
}

/// What the lexer says about a character no token starts with. Invisible
/// characters are named by code point, so the message shows what to delete.
fn unexpected(c: char) -> String {
    let shown = if c.is_control() || c.is_whitespace() || c == '\u{feff}' || c == '\u{200b}' {
        format!("U+{:04X}", c as u32)
    } else {
        format!("'{c}'")
    };
    format!(
        "unexpected character {shown}: names are letters, digits and _, numbers are decimal or 0x hex, and # starts a comment"
    )
}

fn parse_number(word: &str, pos: Pos) -> Result<u64, ProgramError> {
    if word.starts_with('-') {
        return Err(ProgramError::at(
            pos,
            format!(
                "{} is negative: sizes and counts are whole numbers of 0 or more",
                quoted(word)
            ),
        ));
    }
    let parsed = if let Some(hex) = word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        u64::from_str_radix(&hex.replace('_', ""), 16)
    } else {
        word.replace('_', "").parse::<u64>()
    };
    parsed.map_err(|e| {
        let why = match e.kind() {
            core::num::IntErrorKind::PosOverflow => {
                "is too large (the largest is 0xffffffffffffffff)"
            }
            _ => "is not a number (use decimal like 24 or hex like 0x18)",
        };
        ProgramError::at(pos, format!("{} {why}", quoted(word)))
    })
}

const KEYWORDS: &[&str] = &[
    "alloc",
    "realloc",
    "free",
    "checkpoint",
    "restore",
    "reset",
    "repeat",
    "align",
];

struct Parser {
    toks: Vec<Token>,
    i: usize,
    end: Pos,
    /// Errors found so far; the parser reads on past each one.
    errors: Vec<ProgramError>,
}

impl Parser {
    fn peek(&self) -> Option<&Token> {
        self.toks.get(self.i)
    }

    fn next(&mut self) -> Option<Token> {
        let t = self.toks.get(self.i).cloned();
        self.i += 1;
        t
    }

    fn here(&self) -> Pos {
        self.peek().map_or(self.end, |t| t.pos)
    }

    fn skip_newlines(&mut self) {
        while matches!(
            self.peek(),
            Some(Token {
                tok: Tok::Newline,
                ..
            })
        ) {
            self.i += 1;
        }
    }

    fn name(&mut self, what: &str) -> Result<(String, Pos), ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(Token {
                tok: Tok::Ident(s),
                pos,
            }) => {
                if KEYWORDS.contains(&s.as_str()) {
                    Err(ProgramError::at(
                        pos,
                        format!("'{s}' is a keyword and cannot be used as {what}"),
                    ))
                } else {
                    Ok((s, pos))
                }
            }
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!("expected {what}, found {}", describe(&t.tok)),
            )),
            None => Err(ProgramError::at(
                pos,
                format!("expected {what}, found the end of the program"),
            )),
        }
    }

    fn number(&mut self, what: &str) -> Result<(u64, Pos), ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(Token {
                tok: Tok::Num(n),
                pos,
            }) => Ok((n, pos)),
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!("expected {what}, found {}", describe(&t.tok)),
            )),
            None => Err(ProgramError::at(
                pos,
                format!("expected {what}, found the end of the program"),
            )),
        }
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<Pos, ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(t) if t.tok == tok => Ok(t.pos),
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!("expected {what}, found {}", describe(&t.tok)),
            )),
            None => Err(ProgramError::at(
                pos,
                format!("expected {what}, found the end of the program"),
            )),
        }
    }

    fn end_of_stmt(&mut self) -> Result<(), ProgramError> {
        match self.peek() {
            None
            | Some(Token {
                tok: Tok::Newline | Tok::RBrace,
                ..
            }) => Ok(()),
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!("expected the end of the line, found {}", describe(&t.tok)),
            )),
        }
    }

    fn size_expr(&mut self) -> Result<SizeExpr, ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(Token {
                tok: Tok::Num(n), ..
            }) => Ok(SizeExpr::Bytes(n)),
            Some(Token {
                tok: Tok::Ident(s),
                pos,
            }) => Prim::parse(&s).map(SizeExpr::Type).ok_or_else(|| {
                ProgramError::at(
                    pos,
                    format!(
                        "unknown type {}: use a size in bytes or one of u8 u16 u32 u64 u128 usize",
                        quoted(&s)
                    ),
                )
            }),
            Some(Token {
                tok: Tok::LBracket, ..
            }) => {
                let (ty, tpos) = self.name("an element type")?;
                let prim = Prim::parse(&ty).ok_or_else(|| {
                    ProgramError::at(
                        tpos,
                        format!(
                            "unknown type {}: use one of u8 u16 u32 u64 u128 usize",
                            quoted(&ty)
                        ),
                    )
                })?;
                self.expect(Tok::Semi, "';' between the element type and the length")?;
                let (n, _) = self.number("an array length")?;
                self.expect(Tok::RBracket, "']'")?;
                Ok(SizeExpr::Array(prim, n))
            }
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!(
                    "expected a size (bytes, a type like u64, or [u32; 17]), found {}",
                    describe(&t.tok)
                ),
            )),
            None => Err(ProgramError::at(
                pos,
                "expected a size, found the end of the program",
            )),
        }
    }

    /// The statements up to the end of the program or, inside a repeat,
    /// to its `}`. A statement with an error is left out and the rest of its
    /// line skipped (see [`Parser::recover`]).
    fn block(&mut self, depth: usize) -> Vec<Stmt> {
        let mut out = Vec::new();
        loop {
            self.skip_newlines();
            match self.peek() {
                None => return out,
                Some(Token {
                    tok: Tok::RBrace,
                    pos,
                }) => {
                    if depth > 0 {
                        return out;
                    }
                    let pos = *pos;
                    self.errors
                        .push(ProgramError::at(pos, "'}' without a matching 'repeat N {'"));
                    self.i += 1;
                }
                Some(_) => {
                    let from = self.i;
                    match self.stmt(depth) {
                        Ok(s) => out.push(s),
                        Err(e) => {
                            self.errors.push(e);
                            self.recover(from, depth);
                        }
                    }
                }
            }
        }
    }

    /// After an error in the statement whose first token is `from`: skips
    /// the rest of its line (a statement is one line), stopping before a
    /// `}` that closes the enclosing repeat. When the line opens a `{` (a
    /// `repeat` with a bad count, say) the body is still parsed for its own
    /// errors, up to its `}`, so that `}` does not read as unmatched.
    fn recover(&mut self, from: usize, depth: usize) {
        self.i = from;
        let mut open = 0usize;
        loop {
            match self.peek().map(|t| &t.tok) {
                None => return,
                Some(Tok::Newline) => {
                    self.i += 1;
                    break;
                }
                Some(Tok::LBrace) => open += 1,
                Some(Tok::RBrace) if open == 0 => return,
                Some(Tok::RBrace) => open -= 1,
                Some(_) => {}
            }
            self.i += 1;
        }
        while open > 0 {
            if depth < MAX_REPEAT_DEPTH {
                // The body's statements, discarded: only their errors count.
                self.block(depth + 1);
            } else {
                // Too deep to parse (that is the error): skip to the `}`.
                let mut inner = 0usize;
                loop {
                    match self.peek().map(|t| &t.tok) {
                        None => return,
                        Some(Tok::LBrace) => inner += 1,
                        Some(Tok::RBrace) if inner == 0 => break,
                        Some(Tok::RBrace) => inner -= 1,
                        Some(_) => {}
                    }
                    self.i += 1;
                }
            }
            if self.peek().is_none() {
                return;
            }
            // At the body's `}`.
            self.i += 1;
            open -= 1;
        }
    }

    fn stmt(&mut self, depth: usize) -> Result<Stmt, ProgramError> {
        let start = self.here();
        let Some(Token {
            tok: Tok::Ident(word),
            pos,
        }) = self.next()
        else {
            let t = &self.toks[self.i - 1];
            return Err(ProgramError::at(
                t.pos,
                format!("expected a statement (alloc, realloc, free, checkpoint, restore, reset, repeat), found {}", describe(&t.tok)),
            ));
        };
        let kind = match word.as_str() {
            "free" => {
                let (block, block_pos) = self.name("the name of a block to free")?;
                StmtKind::Free { block, block_pos }
            }
            "checkpoint" => StmtKind::Checkpoint {
                name: self.name("a checkpoint name")?.0,
            },
            "restore" => StmtKind::Restore {
                name: self.name("a checkpoint name")?.0,
            },
            "reset" => StmtKind::Reset,
            "repeat" => {
                if depth + 1 > MAX_REPEAT_DEPTH {
                    return Err(ProgramError::at(
                        pos,
                        format!("repeat blocks nest at most {MAX_REPEAT_DEPTH} deep"),
                    ));
                }
                let (count, _) = self.number("a repeat count")?;
                let open = self.expect(Tok::LBrace, "'{' after the repeat count")?;
                let body = self.block(depth + 1);
                let stmt = Stmt {
                    pos: start,
                    kind: StmtKind::Repeat { count, body },
                };
                // From here on the error is not in the header: the body
                // is parsed already and must not be read again.
                if self.peek().is_none() {
                    self.errors.push(ProgramError::at(
                        open,
                        "this '{' is never closed: add a '}'",
                    ));
                    return Ok(stmt);
                }
                // The block ends only at the end or at its '}'.
                self.i += 1;
                if let Err(e) = self.end_of_stmt() {
                    self.errors.push(e);
                    let from = self.i;
                    self.recover(from, depth);
                }
                return Ok(stmt);
            }
            "alloc" | "realloc" | "align" => {
                return Err(ProgramError::at(
                    pos,
                    format!("'{word}' needs a name: write `a = {word} …`"),
                ))
            }
            _ => {
                self.expect(
                    Tok::Eq,
                    &format!(
                        "'=' after {} (as in `{} = alloc 8`) or a statement",
                        quoted(&word),
                        if word.chars().count() > MAX_QUOTED_CHARS {
                            "a"
                        } else {
                            &word
                        }
                    ),
                )?;
                let name = word;
                let (op, opos) = match self.next() {
                    Some(Token {
                        tok: Tok::Ident(s),
                        pos,
                    }) => (s, pos),
                    Some(t) => {
                        return Err(ProgramError::at(
                            t.pos,
                            format!("expected 'alloc' or 'realloc', found {}", describe(&t.tok)),
                        ))
                    }
                    None => {
                        return Err(ProgramError::at(
                            self.end,
                            "expected 'alloc' or 'realloc', found the end of the program",
                        ))
                    }
                };
                match op.as_str() {
                    "alloc" => {
                        let size = self.size_expr()?;
                        let align = if matches!(self.peek(), Some(Token { tok: Tok::Ident(s), .. }) if s == "align")
                        {
                            self.i += 1;
                            Some(self.number("an alignment")?)
                        } else {
                            None
                        };
                        StmtKind::Alloc { name, size, align }
                    }
                    "realloc" => {
                        let (block, block_pos) = self.name("the block to reallocate")?;
                        let (size, _) = self.number("the new size in bytes")?;
                        StmtKind::Realloc {
                            name,
                            block,
                            block_pos,
                            size,
                        }
                    }
                    _ => {
                        return Err(ProgramError::at(
                            opos,
                            format!("unknown operation {}: use alloc or realloc", quoted(&op)),
                        ))
                    }
                }
            }
        };
        self.end_of_stmt()?;
        Ok(Stmt { pos: start, kind })
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => quoted(s),
        Tok::Num(n) => format!("the number {n}"),
        Tok::Eq => "'='".into(),
        Tok::LBrace => "'{'".into(),
        Tok::RBrace => "'}'".into(),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::Semi => "';'".into(),
        Tok::Newline => "the end of the line".into(),
    }
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
    format!("{} {}", grouped(n), if n == 1 { "byte" } else { "bytes" })
}

/// Parses a program into statements.
pub fn parse(src: &str) -> Result<Vec<Stmt>, ProgramError> {
    if src.len() > MAX_SOURCE_BYTES {
        return Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            too_large(src.len() as u64),
        ));
    }
    // A byte order mark some editors save is not part of the program.
    let src = src.strip_prefix('\u{feff}').unwrap_or(src);
    let (toks, lex_errors) = lex(src);
    let end = toks.last().map_or(Pos { line: 1, column: 1 }, |t| t.pos);
    let mut p = Parser {
        toks,
        i: 0,
        end,
        errors: Vec::new(),
    };
    let stmts = p.block(0);
    // One error per line: the lexer's first (a bad character makes the
    // parser's reading of the rest of its line a guess), else the first the
    // parser found there.
    let mut by_line = std::collections::BTreeMap::new();
    for e in lex_errors.into_iter().chain(p.errors) {
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
        None => Ok(stmts),
        Some(mut first) => {
            first.more = errors.collect();
            Err(first)
        }
    }
}

/// Drops the repeats that execute no op (`repeat 99999999 { }`, or one
/// whose body only holds such repeats): running them would spin through
/// their counts producing nothing.
pub(crate) fn prune(stmts: Vec<Stmt>) -> Vec<Stmt> {
    stmts
        .into_iter()
        .filter_map(|s| match s.kind {
            StmtKind::Repeat { count, body } => {
                let body = prune(body);
                (count > 0 && !body.is_empty()).then_some(Stmt {
                    pos: s.pos,
                    kind: StmtKind::Repeat { count, body },
                })
            }
            _ => Some(s),
        })
        .collect()
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

/// Every block name the program assigns, with where: so a use of a name
/// that holds no block can say why not.
pub fn assignments(stmts: &[Stmt]) -> std::collections::HashMap<String, Assigned> {
    fn walk(
        stmts: &[Stmt],
        zero: Option<Pos>,
        out: &mut std::collections::HashMap<String, Assigned>,
    ) {
        for s in stmts {
            let name = match &s.kind {
                StmtKind::Repeat { count, body } => {
                    let zero = zero.or((*count == 0).then_some(s.pos));
                    walk(body, zero, out);
                    continue;
                }
                StmtKind::Alloc { name, .. } | StmtKind::Realloc { name, .. } => name,
                _ => continue,
            };
            let here = Assigned {
                at: s.pos,
                never_runs: zero,
            };
            let e = out.entry(name.clone()).or_insert(here);
            if e.never_runs.is_some() && zero.is_none() {
                *e = here;
            }
        }
    }
    let mut out = std::collections::HashMap::new();
    walk(stmts, None, &mut out);
    out
}

/// Ops a statement list executes, saturating.
pub(crate) fn op_count(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |n, s| {
        n.saturating_add(match &s.kind {
            StmtKind::Repeat { count, body } => count.saturating_mul(op_count(body)),
            _ => 1,
        })
    })
}

/// Refuses, before running anything, a program that would execute more than
/// `cap` ops, naming the statement where the total crosses it; `what` says
/// what the cap is, after the count (", the most a full JSON trace holds").
pub(crate) fn check_op_count(stmts: &[Stmt], cap: u64, what: &str) -> Result<(), ProgramError> {
    let all = op_count(stmts);
    if all <= cap {
        return Ok(());
    }
    Err(first_over(
        stmts,
        cap,
        &over_cap(all, cap, what, written_ops(stmts) <= cap),
    ))
}

/// The error at the statement where the running total first passes `cap`
/// (inside a repeat whose body alone passes it: the line to change).
fn first_over(stmts: &[Stmt], cap: u64, message: &str) -> ProgramError {
    let mut total = 0u64;
    for s in stmts {
        total = total.saturating_add(op_count(core::slice::from_ref(s)));
        if total > cap {
            if let StmtKind::Repeat { body, .. } = &s.kind {
                if op_count(body) > cap {
                    return first_over(body, cap, message);
                }
            }
            return ProgramError::at(s.pos, message.to_string());
        }
    }
    ProgramError::at(Pos { line: 1, column: 1 }, message.to_string())
}

/// Ops written out in the text, each repeat's body once: more than the cap
/// and no repeat count can bring the program under it.
fn written_ops(stmts: &[Stmt]) -> u64 {
    stmts.iter().fold(0u64, |n, s| {
        n.saturating_add(match &s.kind {
            StmtKind::Repeat { body, .. } => written_ops(body),
            _ => 1,
        })
    })
}

/// "the program would execute 1,600,000 ops; the limit is 1,500,000": the
/// count in full (repeats whose product passes a u64 say "over 18 quintillion"), and what to
/// change: a repeat count where lowering one can help, else the recording's
/// length.
fn over_cap(all: u64, cap: u64, what: &str, repeats: bool) -> String {
    let count = if all == u64::MAX {
        "over 18 quintillion".to_string()
    } else {
        grouped(all)
    };
    let fix = if repeats {
        "lower a repeat count"
    } else {
        "record fewer ops (bumplab-record --max-ops)"
    };
    format!(
        "the program would execute {count} ops; the limit is {}{what}: {fix}",
        grouped(cap)
    )
}

/// `1,600,000`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
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
        assert_eq!(grouped(1_234_567), "1,234,567");
        assert_eq!(grouped(999), "999");
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
        let want = parse(lf).unwrap();
        for text in [
            "a = alloc 8\r\nb = alloc u64\r\nfree a\r\n",
            "a = alloc 8\rb = alloc u64\rfree a\r",
            "a = alloc 8\rb = alloc u64\r\nfree a",
        ] {
            assert_eq!(parse(text).unwrap(), want, "{text:?}");
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
