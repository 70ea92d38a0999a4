//! The program language's tokens, one line at a time. Names are slices of
//! the program text, so lexing a line allocates nothing unless it holds an
//! error.

use super::{Pos, ProgramError, MAX_NAME_CHARS};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Tok<'a> {
    Ident(&'a str),
    Num(u64),
    Eq,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    Semi,
    Newline,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Token<'a> {
    pub(super) tok: Tok<'a>,
    pub(super) pos: Pos,
}

/// Appends the tokens of `line` (line `line_no`), ending with its
/// [`Tok::Newline`], and an error for each bad character, number or name. A
/// bad number or name still yields a token, and a bad character is skipped,
/// so the parser reads the line on and reports the lines after it. Columns
/// count characters, not bytes.
pub(super) fn lex_line<'a>(
    line: &'a str,
    line_no: u32,
    out: &mut Vec<Token<'a>>,
    errors: &mut Vec<ProgramError>,
) {
    let bytes = line.as_bytes();
    // Byte offset and character column of the next character.
    let (mut b, mut column) = (0usize, 1u32);
    while b < bytes.len() {
        let pos = Pos {
            line: line_no,
            column,
        };
        let c = line[b..].chars().next().expect("b is a character boundary");
        if c == '#' {
            column += line[b..].chars().count() as u32;
            break;
        }
        if c.is_whitespace() {
            b += c.len_utf8();
            column += 1;
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
            b += 1;
            column += 1;
            continue;
        }
        let word_byte = |k: usize| {
            bytes
                .get(k)
                .is_some_and(|&x| x.is_ascii_alphanumeric() || x == b'_')
        };
        let minus_number = c == '-' && bytes.get(b + 1).is_some_and(u8::is_ascii_digit);
        if c.is_ascii_alphanumeric() || c == '_' || minus_number {
            let begin = b;
            if minus_number {
                b += 1;
            }
            while word_byte(b) {
                b += 1;
            }
            // Word characters are ASCII: one column each.
            column += (b - begin) as u32;
            let word = &line[begin..b];
            let tok = if c.is_ascii_digit() || c == '-' {
                Tok::Num(parse_number(word, pos).unwrap_or_else(|e| {
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
        b += c.len_utf8();
        column += 1;
    }
    out.push(Token {
        tok: Tok::Newline,
        pos: Pos {
            line: line_no,
            column,
        },
    });
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

/// Why a number's digits are not a `u64`, as `u64::from_str_radix` would
/// say first, reading from the left.
enum NumberError {
    NotANumber,
    TooLarge,
}

/// `digits` (with `_` separators) in base `radix`.
fn digits_value(digits: &str, radix: u32) -> Result<u64, NumberError> {
    let mut n = 0u64;
    let mut any = false;
    for c in digits.chars().filter(|&c| c != '_') {
        let d = c.to_digit(radix).ok_or(NumberError::NotANumber)?;
        n = n
            .checked_mul(u64::from(radix))
            .and_then(|n| n.checked_add(u64::from(d)))
            .ok_or(NumberError::TooLarge)?;
        any = true;
    }
    if any {
        Ok(n)
    } else {
        Err(NumberError::NotANumber)
    }
}

pub(super) fn parse_number(word: &str, pos: Pos) -> Result<u64, ProgramError> {
    if word.starts_with('-') {
        return Err(ProgramError::at(
            pos,
            format!(
                "{} is negative: sizes and counts are whole numbers of 0 or more",
                super::quoted(word)
            ),
        ));
    }
    let parsed = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
        Some(hex) => digits_value(hex, 16),
        None => digits_value(word, 10),
    };
    parsed.map_err(|e| {
        let why = match e {
            NumberError::TooLarge => "is too large (the largest is 0xffffffffffffffff)",
            NumberError::NotANumber => "is not a number (use decimal like 24 or hex like 0x18)",
        };
        ProgramError::at(pos, format!("{} {why}", super::quoted(word)))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the lexer read before: `u64::from_str_radix` on the digits with
    /// their separators removed.
    fn std_value(word: &str) -> Result<u64, &'static str> {
        let parsed = match word.strip_prefix("0x").or_else(|| word.strip_prefix("0X")) {
            Some(hex) => u64::from_str_radix(&hex.replace('_', ""), 16),
            None => word.replace('_', "").parse::<u64>(),
        };
        parsed.map_err(|e| match e.kind() {
            core::num::IntErrorKind::PosOverflow => "large",
            _ => "nan",
        })
    }

    #[test]
    fn numbers_read_as_the_standard_library_reads_them() {
        let at = Pos { line: 1, column: 1 };
        for word in [
            "0",
            "24",
            "1_000",
            "0x18",
            "0X1f",
            "0x",
            "0x_",
            "8_",
            "0xffffffffffffffff",
            "0x1_0000_0000_0000_0000",
            "18446744073709551615",
            "18446744073709551616",
            "99999999999999999999x",
            "9x",
            "0x0x5",
            "0xg",
            "12ab",
            "0b101",
            "00",
            "0_0",
        ] {
            let ours = parse_number(word, at).map_err(|e| {
                if e.message.contains("too large") {
                    "large"
                } else {
                    "nan"
                }
            });
            assert_eq!(ours, std_value(word), "{word}");
        }
    }

    #[test]
    fn columns_count_characters_and_comments_end_the_line() {
        let (mut toks, mut errors) = (Vec::new(), Vec::new());
        lex_line("é a = alloc 8 # note", 3, &mut toks, &mut errors);
        let cols: Vec<u32> = toks.iter().map(|t| t.pos.column).collect();
        assert_eq!(cols, [3, 5, 7, 13, 21]);
        assert_eq!(toks[1].tok, Tok::Eq);
        assert_eq!(toks.last().map(|t| t.tok), Some(Tok::Newline));
        assert_eq!(errors.len(), 1);
        assert_eq!((errors[0].line, errors[0].column), (3, 1));
    }
}
