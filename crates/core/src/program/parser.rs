//! The parser: recursive descent over the tokens, which are lexed a line at
//! a time as it reads on, and statements appended to a [`Program`] as they
//! are read. A statement is one line (a `repeat`'s body aside), so after an
//! error the parser skips the rest of the line and reports the lines after
//! it too.

use super::lexer::{lex_line, Tok, Token};
use super::names::Name;
use super::packed::Program;
use super::{Pos, Prim, ProgramError, SizeExpr, Stmt, StmtKind, MAX_REPEAT_DEPTH};

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

/// Tokens lexed and not yet forgotten, before the parser drops them.
const KEEP_TOKENS: usize = 4096;

pub(super) struct Parser<'a> {
    lines: super::SourceLines<'a>,
    line_no: u32,
    /// Tokens `base..base + toks.len()`: from the first token of the
    /// statement being read (a parse error goes back to it) on.
    toks: Vec<Token<'a>>,
    base: usize,
    /// The next token to read.
    i: usize,
    /// Where the text ends: the last token's position, once every line is lexed.
    end: Pos,
    pub(super) program: Program,
    /// Errors found so far; the parser reads on past each one.
    pub(super) errors: Vec<ProgramError>,
    pub(super) lex_errors: Vec<ProgramError>,
}

impl<'a> Parser<'a> {
    pub(super) fn new(src: &'a str) -> Self {
        let lines = src.bytes().filter(|&b| b == b'\n' || b == b'\r').count() + 1;
        Parser {
            lines: super::source_lines(src),
            line_no: 0,
            toks: Vec::new(),
            base: 0,
            i: 0,
            end: Pos { line: 1, column: 1 },
            program: Program::with_capacity(lines),
            errors: Vec::new(),
            lex_errors: Vec::new(),
        }
    }

    /// Whether token `i` exists, lexing lines until it does.
    #[inline]
    fn fill(&mut self, i: usize) -> bool {
        self.base + self.toks.len() > i || self.lex_until(i)
    }

    /// Lexes lines until token `i` exists; false at the end of the text.
    /// Apart from [`Parser::fill`], so that reading a token lexed already
    /// stays a comparison and an index.
    #[inline(never)]
    fn lex_until(&mut self, i: usize) -> bool {
        while self.base + self.toks.len() <= i {
            let Some(line) = self.lines.next() else {
                return false;
            };
            self.line_no += 1;
            lex_line(line, self.line_no, &mut self.toks, &mut self.lex_errors);
            if let Some(last) = self.toks.last() {
                self.end = last.pos;
            }
        }
        true
    }

    /// Drops the tokens before the next one: called where a statement
    /// starts, since nothing reads back past that.
    fn forget_read(&mut self) {
        let read = self.i - self.base;
        if read >= KEEP_TOKENS {
            self.toks.drain(..read);
            self.base = self.i;
        }
    }

    #[inline]
    fn peek(&mut self) -> Option<Token<'a>> {
        self.fill(self.i).then(|| self.toks[self.i - self.base])
    }

    fn next(&mut self) -> Option<Token<'a>> {
        let t = self.peek();
        self.i += 1;
        t
    }

    fn here(&mut self) -> Pos {
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

    fn intern(&mut self, s: &str) -> Name {
        self.program.names_mut().intern(s)
    }

    fn name(&mut self, what: &str) -> Result<(Name, Pos), ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(Token {
                tok: Tok::Ident(s),
                pos,
            }) => {
                if KEYWORDS.contains(&s) {
                    Err(ProgramError::at(
                        pos,
                        format!("'{s}' is a keyword and cannot be used as {what}"),
                    ))
                } else {
                    Ok((self.intern(s), pos))
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

    fn expect(&mut self, tok: Tok<'a>, what: &str) -> Result<Pos, ProgramError> {
        self.expect_with(tok, || what.to_string())
    }

    /// [`Parser::expect`] with a message built only if it is needed: most
    /// lines are assignments, and a message per line would cost more than
    /// reading it.
    fn expect_with(
        &mut self,
        tok: Tok<'a>,
        what: impl FnOnce() -> String,
    ) -> Result<Pos, ProgramError> {
        let pos = self.here();
        match self.next() {
            Some(t) if t.tok == tok => Ok(t.pos),
            Some(t) => Err(ProgramError::at(
                t.pos,
                format!("expected {}, found {}", what(), describe(&t.tok)),
            )),
            None => Err(ProgramError::at(
                pos,
                format!("expected {}, found the end of the program", what()),
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
            }) => Prim::parse(s).map(SizeExpr::Type).ok_or_else(|| {
                ProgramError::at(
                    pos,
                    format!(
                        "unknown type {}: use a size in bytes or one of u8 u16 u32 u64 u128 usize",
                        super::quoted(s)
                    ),
                )
            }),
            Some(Token {
                tok: Tok::LBracket, ..
            }) => {
                let tpos = self.here();
                let ty = match self.next() {
                    Some(Token {
                        tok: Tok::Ident(s), ..
                    }) if !KEYWORDS.contains(&s) => s,
                    Some(Token {
                        tok: Tok::Ident(s),
                        pos,
                    }) => {
                        return Err(ProgramError::at(
                            pos,
                            format!("'{s}' is a keyword and cannot be used as an element type"),
                        ))
                    }
                    Some(t) => {
                        return Err(ProgramError::at(
                            t.pos,
                            format!("expected an element type, found {}", describe(&t.tok)),
                        ))
                    }
                    None => {
                        return Err(ProgramError::at(
                            tpos,
                            "expected an element type, found the end of the program",
                        ))
                    }
                };
                let prim = Prim::parse(ty).ok_or_else(|| {
                    ProgramError::at(
                        tpos,
                        format!(
                            "unknown type {}: use one of u8 u16 u32 u64 u128 usize",
                            super::quoted(ty)
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

    /// Appends the statements up to the end of the program or, inside a
    /// repeat, to its `}`. A statement with an error is left out and the
    /// rest of its line skipped (see [`Parser::recover`]).
    pub(super) fn block(&mut self, depth: usize) {
        loop {
            self.skip_newlines();
            match self.peek() {
                None => return,
                Some(Token {
                    tok: Tok::RBrace,
                    pos,
                }) => {
                    if depth > 0 {
                        return;
                    }
                    self.errors
                        .push(ProgramError::at(pos, "'}' without a matching 'repeat N {'"));
                    self.i += 1;
                }
                Some(_) => {
                    self.forget_read();
                    let from = self.i;
                    if let Err(e) = self.stmt(depth) {
                        self.errors.push(e);
                        self.recover(from, depth);
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
            match self.peek().map(|t| t.tok) {
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
                let mark = self.program.mark();
                self.block(depth + 1);
                self.program.truncate(mark);
            } else {
                // Too deep to parse (that is the error): skip to the `}`.
                let mut inner = 0usize;
                loop {
                    match self.peek().map(|t| t.tok) {
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

    /// Reads one statement and appends it (a repeat with its body); on an
    /// error in the statement itself, appends nothing.
    fn stmt(&mut self, depth: usize) -> Result<(), ProgramError> {
        let start = self.here();
        let Some(Token {
            tok: Tok::Ident(word),
            pos,
        }) = self.next()
        else {
            let t = self.toks[self.i - 1 - self.base];
            return Err(ProgramError::at(
                t.pos,
                format!("expected a statement (alloc, realloc, free, checkpoint, restore, reset, repeat), found {}", describe(&t.tok)),
            ));
        };
        let kind = match word {
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
            "repeat" => return self.repeat(start, pos, depth),
            "alloc" | "realloc" | "align" => {
                return Err(ProgramError::at(
                    pos,
                    format!("'{word}' needs a name: write `a = {word} …`"),
                ))
            }
            _ => {
                self.expect_with(Tok::Eq, || {
                    let example = if word.chars().count() > super::MAX_QUOTED_CHARS {
                        "a"
                    } else {
                        word
                    };
                    format!(
                        "'=' after {} (as in `{example} = alloc 8`) or a statement",
                        super::quoted(word)
                    )
                })?;
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
                match op {
                    "alloc" => {
                        let size = self.size_expr()?;
                        let align = if matches!(
                            self.peek(),
                            Some(Token {
                                tok: Tok::Ident("align"),
                                ..
                            })
                        ) {
                            self.i += 1;
                            Some(self.number("an alignment")?)
                        } else {
                            None
                        };
                        let name = self.intern(word);
                        StmtKind::Alloc { name, size, align }
                    }
                    "realloc" => {
                        let (block, block_pos) = self.name("the block to reallocate")?;
                        let (size, _) = self.number("the new size in bytes")?;
                        let name = self.intern(word);
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
                            format!(
                                "unknown operation {}: use alloc or realloc",
                                super::quoted(op)
                            ),
                        ))
                    }
                }
            }
        };
        self.end_of_stmt()?;
        self.program.push(Stmt { pos: start, kind });
        Ok(())
    }

    /// `repeat N { … }` from its count on (`at` is where the statement
    /// starts, `pos` the keyword's position).
    fn repeat(&mut self, at: Pos, pos: Pos, depth: usize) -> Result<(), ProgramError> {
        if depth + 1 > MAX_REPEAT_DEPTH {
            return Err(ProgramError::at(
                pos,
                format!("repeat blocks nest at most {MAX_REPEAT_DEPTH} deep"),
            ));
        }
        let (count, _) = self.number("a repeat count")?;
        let open = self.expect(Tok::LBrace, "'{' after the repeat count")?;
        let head = self.program.push(Stmt {
            pos: at,
            kind: StmtKind::Repeat { count, len: 0 },
        });
        self.block(depth + 1);
        let len = (self.program.len() - head - 1) as u32;
        if len > 0 {
            self.program.set_repeat_len(head, len);
        }
        // From here on the error is not in the header: the body is parsed
        // already and must not be read again.
        if self.peek().is_none() {
            self.errors.push(ProgramError::at(
                open,
                "this '{' is never closed: add a '}'",
            ));
            return Ok(());
        }
        // The block ends only at the end or at its '}'.
        self.i += 1;
        if let Err(e) = self.end_of_stmt() {
            self.errors.push(e);
            let from = self.i;
            self.recover(from, depth);
        }
        Ok(())
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(s) => super::quoted(s),
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
