//! A parsed program as the run keeps it: its statements in pre-order (a
//! `repeat` followed by its body), six `u32` words each, and its names
//! interned. A recording of a million lines is a million statements, so
//! what one costs is what the program costs: 24 bytes, however long its
//! names. The few statements whose numbers or positions do not fit the
//! short form (a size past 4 GiB, an alignment that is not a power of two,
//! a name written past column 65,535) keep their full form in a side table.
//!
//! A program also travels as plain words ([`Program::to_words`]), so a
//! worker can parse a long text and hand the page's module the result.

use super::names::{Name, Names};
use super::{Pos, Prim, SizeExpr, Stmt, StmtKind};

const TAG_ALLOC: u32 = 0;
const TAG_REALLOC: u32 = 1;
const TAG_FREE: u32 = 2;
const TAG_RESET: u32 = 3;
const TAG_CHECKPOINT: u32 = 4;
const TAG_RESTORE: u32 = 5;
const TAG_REPEAT: u32 = 6;
/// The statement is `extras[w3]`.
const TAG_EXTRA: u32 = 7;
const TAG_MASK: u32 = 0b111;

// Alloc, in word 0: the size's form, its type, and the alignment's log2.
const FORM_SHIFT: u32 = 3;
const PRIM_SHIFT: u32 = 5;
const HAS_ALIGN: u32 = 1 << 8;
const ALIGN_SHIFT: u32 = 9;
// Realloc, in word 0: the column of the block it resizes.
const BLOCK_COLUMN_SHIFT: u32 = 16;

/// One statement in its short form: `[tag and flags, line, column, a, b, c]`.
type Rec = [u32; 6];

/// The statements of a program and its names; see the module's documentation.
#[derive(Clone, Debug, Default)]
pub struct Program {
    /// The records, six words each, from `at` on: a program read from words
    /// keeps the buffer it came in rather than copy a million records.
    words: Vec<u32>,
    at: usize,
    extras: Vec<Stmt>,
    names: Names,
}

impl PartialEq for Program {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len()
            && (0..self.len()).all(|i| self.get(i) == other.get(i))
            && self.names == other.names
    }
}

impl Eq for Program {}

/// Where [`Program::truncate`] goes back to.
#[derive(Clone, Copy, Debug)]
pub struct Mark {
    words: usize,
    extras: usize,
}

fn prim_code(p: Prim) -> u32 {
    match p {
        Prim::U8 => 0,
        Prim::U16 => 1,
        Prim::U32 => 2,
        Prim::U64 => 3,
        Prim::U128 => 4,
        Prim::Usize => 5,
    }
}

fn prim_of(code: u32) -> Option<Prim> {
    Some(match code {
        0 => Prim::U8,
        1 => Prim::U16,
        2 => Prim::U32,
        3 => Prim::U64,
        4 => Prim::U128,
        5 => Prim::Usize,
        _ => return None,
    })
}

/// `s` in six words, if every number and position of it fits them.
fn pack(s: &Stmt) -> Option<Rec> {
    let (line, column) = (s.pos.line, s.pos.column);
    let small = |n: u64| u32::try_from(n).ok();
    // A name's position is on its statement's line (a statement is one line).
    let same_line = |p: Pos| p.line == line;
    Some(match s.kind {
        StmtKind::Alloc { name, size, align } => {
            let (form, prim, n) = match size {
                SizeExpr::Bytes(n) => (0, 0, n),
                SizeExpr::Type(p) => (1, prim_code(p), 0),
                SizeExpr::Array(p, n) => (2, prim_code(p), n),
            };
            let mut w0 = TAG_ALLOC | form << FORM_SHIFT | prim << PRIM_SHIFT;
            let mut align_column = 0;
            if let Some((a, at)) = align {
                if !a.is_power_of_two() || a.trailing_zeros() > 31 || !same_line(at) {
                    return None;
                }
                w0 |= HAS_ALIGN | a.trailing_zeros() << ALIGN_SHIFT;
                align_column = at.column;
            }
            [w0, line, column, name.0, small(n)?, align_column]
        }
        StmtKind::Realloc {
            name,
            block,
            block_pos,
            size,
        } => {
            if !same_line(block_pos) || block_pos.column > 0xffff {
                return None;
            }
            let w0 = TAG_REALLOC | block_pos.column << BLOCK_COLUMN_SHIFT;
            [w0, line, column, name.0, small(size)?, block.0]
        }
        StmtKind::Free { block, block_pos } => {
            if !same_line(block_pos) {
                return None;
            }
            [TAG_FREE, line, column, block.0, block_pos.column, 0]
        }
        StmtKind::Reset => [TAG_RESET, line, column, 0, 0, 0],
        StmtKind::Checkpoint { name } => [TAG_CHECKPOINT, line, column, name.0, 0, 0],
        StmtKind::Restore { name } => [TAG_RESTORE, line, column, name.0, 0, 0],
        StmtKind::Repeat { count, len } => [
            TAG_REPEAT,
            line,
            column,
            len,
            count as u32,
            (count >> 32) as u32,
        ],
    })
}

/// The statement `r` packs; `None` for an extra (or a malformed record).
fn unpack(r: &Rec) -> Option<Stmt> {
    let [w0, line, column, a, b, c] = *r;
    let pos = Pos { line, column };
    let at = |column| Pos { line, column };
    let kind = match w0 & TAG_MASK {
        TAG_ALLOC => {
            let prim = prim_of(w0 >> PRIM_SHIFT & 0b111);
            let size = match w0 >> FORM_SHIFT & 0b11 {
                0 => SizeExpr::Bytes(u64::from(b)),
                1 => SizeExpr::Type(prim?),
                2 => SizeExpr::Array(prim?, u64::from(b)),
                _ => return None,
            };
            let align = (w0 & HAS_ALIGN != 0).then(|| (1u64 << (w0 >> ALIGN_SHIFT & 0x1f), at(c)));
            StmtKind::Alloc {
                name: Name(a),
                size,
                align,
            }
        }
        TAG_REALLOC => StmtKind::Realloc {
            name: Name(a),
            block: Name(c),
            block_pos: at(w0 >> BLOCK_COLUMN_SHIFT),
            size: u64::from(b),
        },
        TAG_FREE => StmtKind::Free {
            block: Name(a),
            block_pos: at(b),
        },
        TAG_RESET => StmtKind::Reset,
        TAG_CHECKPOINT => StmtKind::Checkpoint { name: Name(a) },
        TAG_RESTORE => StmtKind::Restore { name: Name(a) },
        TAG_REPEAT => StmtKind::Repeat {
            count: u64::from(b) | u64::from(c) << 32,
            len: a,
        },
        _ => return None,
    };
    Some(Stmt { pos, kind })
}

impl Program {
    /// Room for about `stmts` statements (a line count is a good guess).
    /// Room for about `stmts` statements (a line count is a good guess),
    /// after room for the header [`Program::into_words`] writes.
    pub fn with_capacity(stmts: usize) -> Self {
        let mut words = Vec::with_capacity(WORDS_HEADER + 6 * stmts);
        words.resize(WORDS_HEADER, 0);
        Program {
            words,
            at: WORDS_HEADER,
            ..Program::default()
        }
    }

    /// Statements, repeats included.
    pub fn len(&self) -> usize {
        (self.words.len() - self.at) / 6
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn rec(&self, i: usize) -> Rec {
        let at = self.at + 6 * i;
        self.words[at..at + 6].try_into().expect("six words")
    }

    fn set_rec(&mut self, i: usize, r: Rec) {
        let at = self.at + 6 * i;
        self.words[at..at + 6].copy_from_slice(&r);
    }

    /// Statement `i` (in pre-order: a repeat's body follows it).
    pub fn get(&self, i: usize) -> Stmt {
        let r = self.rec(i);
        if r[0] & TAG_MASK == TAG_EXTRA {
            return self.extras[r[3] as usize];
        }
        unpack(&r).expect("records are packed by `push` or checked by `from_words`")
    }

    /// Every statement in order.
    pub fn iter(&self) -> impl Iterator<Item = Stmt> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Appends `s`; returns its index.
    pub fn push(&mut self, s: Stmt) -> usize {
        let rec = pack(&s).unwrap_or_else(|| {
            self.extras.push(s);
            [
                TAG_EXTRA,
                s.pos.line,
                s.pos.column,
                self.extras.len() as u32 - 1,
                0,
                0,
            ]
        });
        self.words.extend_from_slice(&rec);
        self.len() - 1
    }

    /// Sets the body length of the repeat at `i` (pushed before its body).
    pub fn set_repeat_len(&mut self, i: usize, len: u32) {
        let mut s = self.get(i);
        if let StmtKind::Repeat { len: l, .. } = &mut s.kind {
            *l = len;
        }
        self.replace(i, s);
    }

    fn replace(&mut self, i: usize, s: Stmt) {
        let r = self.rec(i);
        let extra = r[0] & TAG_MASK == TAG_EXTRA;
        match pack(&s) {
            Some(rec) if !extra => self.set_rec(i, rec),
            _ if extra => self.extras[r[3] as usize] = s,
            _ => {
                self.extras.push(s);
                let k = self.extras.len() as u32 - 1;
                self.set_rec(i, [TAG_EXTRA, s.pos.line, s.pos.column, k, 0, 0]);
            }
        }
    }

    /// Where the program ends now, for [`Program::truncate`].
    pub fn mark(&self) -> Mark {
        Mark {
            words: self.words.len(),
            extras: self.extras.len(),
        }
    }

    /// Drops the statements pushed since `mark`.
    pub fn truncate(&mut self, mark: Mark) {
        self.words.truncate(mark.words);
        self.extras.truncate(mark.extras);
    }

    pub fn names(&self) -> &Names {
        &self.names
    }

    pub fn names_mut(&mut self) -> &mut Names {
        &mut self.names
    }

    /// Drops spare room and the names' lookup table: the program is built.
    pub fn seal(&mut self) {
        // Shrinking copies: worth it only for room well past an eighth.
        if self.words.capacity() - self.words.len() > self.words.len() / 8 {
            self.words.shrink_to_fit();
        }
        self.extras.shrink_to_fit();
        self.names.seal();
    }

    /// Heap bytes held.
    pub fn bytes(&self) -> usize {
        self.words.capacity() * 4 + self.extras.capacity() * size_of::<Stmt>() + self.names.bytes()
    }

    /// Drops the repeats that execute no op (`repeat 99999999 { }`, or one
    /// whose body only holds such repeats), in place: running them would
    /// spin through their counts producing nothing.
    pub fn prune(&mut self) {
        let mut out = 0;
        let n = self.len();
        let mut i = 0;
        while i < n {
            i = self.prune_from(i, &mut out);
        }
        self.words.truncate(self.at + 6 * out);
    }

    /// Copies statement `i` (and a repeat's body, pruned) to `*out`, unless
    /// it is a repeat that runs nothing; returns the index after it.
    fn prune_from(&mut self, i: usize, out: &mut usize) -> usize {
        let s = self.get(i);
        let StmtKind::Repeat { count, len } = s.kind else {
            self.set_rec(*out, self.rec(i));
            *out += 1;
            return i + 1;
        };
        let at = *out;
        self.set_rec(at, self.rec(i));
        *out += 1;
        let end = i + 1 + len as usize;
        let mut j = i + 1;
        while j < end {
            j = self.prune_from(j, out);
        }
        let body = (*out - at - 1) as u32;
        if count == 0 || body == 0 {
            *out = at;
        } else if body != len {
            self.set_repeat_len(at, body);
        }
        end
    }

    /// The program as plain words, for [`Program::from_words`]: a header,
    /// the records, the extras (13 words each), the names' ends and their
    /// text (four bytes a word).
    pub fn to_words(&self) -> Vec<u32> {
        self.clone().into_words()
    }

    /// [`Program::to_words`] in the buffer the records are in already, when
    /// it has room for the header before them (a parsed program's has).
    pub fn into_words(self) -> Vec<u32> {
        let (text, ends) = self.names.parts();
        let header = [
            WORDS_MAGIC,
            self.len() as u32,
            self.extras.len() as u32,
            ends.len() as u32,
            text.len() as u32,
        ];
        let mut out = if self.at == WORDS_HEADER {
            let mut words = self.words;
            words[..WORDS_HEADER].copy_from_slice(&header);
            words
        } else {
            let mut out = Vec::with_capacity(WORDS_HEADER + 6 * self.len());
            out.extend_from_slice(&header);
            out.extend_from_slice(&self.words[self.at..]);
            out
        };
        out.reserve(13 * self.extras.len() + ends.len() + text.len() / 4 + 1);
        for s in &self.extras {
            out.extend_from_slice(&wide(s));
        }
        out.extend_from_slice(ends);
        for chunk in text.as_bytes().chunks(4) {
            let mut w = [0u8; 4];
            w[..chunk.len()].copy_from_slice(chunk);
            out.push(u32::from_le_bytes(w));
        }
        out
    }

    /// The program [`Program::to_words`] wrote, kept in the same buffer;
    /// `None` for words it could not have written (a bad tag, a name out of
    /// range, a repeat whose body runs past its enclosing one).
    pub fn from_words(mut words: Vec<u32>) -> Option<Program> {
        let header = words.get(..WORDS_HEADER)?;
        let [magic, n_recs, n_extras, n_names, text_len] = header.try_into().ok()?;
        if magic != WORDS_MAGIC {
            return None;
        }
        let (n_recs, n_extras, n_names, text_len) = (
            n_recs as usize,
            n_extras as usize,
            n_names as usize,
            text_len as usize,
        );
        let recs_end = WORDS_HEADER.checked_add(n_recs.checked_mul(6)?)?;
        let mut at = recs_end;
        let mut take = |n: usize| {
            let s = words.get(at..at.checked_add(n)?)?;
            at += n;
            Some(s)
        };
        let extras = take(n_extras.checked_mul(13)?)?
            .chunks_exact(13)
            .map(unwide)
            .collect::<Option<Vec<Stmt>>>()?;
        let ends = take(n_names)?.to_vec();
        let text_words = take(text_len.div_ceil(4))?;
        let bytes: Vec<u8> = text_words
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .take(text_len)
            .collect();
        let names = Names::from_parts(String::from_utf8(bytes).ok()?, ends)?;
        words.truncate(recs_end);
        let program = Program {
            words,
            at: WORDS_HEADER,
            extras,
            names,
        };
        program.well_formed().then_some(program)
    }

    /// Whether every record decodes, names a name the program has, and
    /// every repeat's body ends within the one around it.
    fn well_formed(&self) -> bool {
        let names = self.names.len() as u32;
        let ok_name = |n: Name| n.0 < names;
        let mut ends: Vec<usize> = vec![self.len()];
        for i in 0..self.len() {
            let r = &self.rec(i);
            while ends.last() == Some(&i) {
                ends.pop();
            }
            let s = if r[0] & TAG_MASK == TAG_EXTRA {
                match self.extras.get(r[3] as usize) {
                    Some(s) => *s,
                    None => return false,
                }
            } else {
                match unpack(r) {
                    Some(s) => s,
                    None => return false,
                }
            };
            let named = match s.kind {
                StmtKind::Alloc { name, .. }
                | StmtKind::Checkpoint { name }
                | StmtKind::Restore { name } => ok_name(name),
                StmtKind::Realloc { name, block, .. } => ok_name(name) && ok_name(block),
                StmtKind::Free { block, .. } => ok_name(block),
                StmtKind::Reset => true,
                StmtKind::Repeat { len, .. } => {
                    let end = i + 1 + len as usize;
                    if ends.last().is_some_and(|&e| end > e) || ends.len() > super::MAX_REPEAT_DEPTH
                    {
                        return false;
                    }
                    ends.push(end);
                    true
                }
            };
            if !named {
                return false;
            }
        }
        true
    }
}

const WORDS_MAGIC: u32 = 0x6d75_6231; // "1bum", and the format's version
const WORDS_HEADER: usize = 5;

/// A statement in 13 words, any numbers and positions: `[tag and flags,
/// line, column, name (a free's block, a repeat's length), a realloc's
/// block, the block's line and column, the number (size, array length or
/// count) low and high, the alignment low and high, its line and column]`.
fn wide(s: &Stmt) -> [u32; 13] {
    let mut w = [0u32; 13];
    w[1] = s.pos.line;
    w[2] = s.pos.column;
    let mut number = 0u64;
    match s.kind {
        StmtKind::Alloc { name, size, align } => {
            let (form, prim, n) = match size {
                SizeExpr::Bytes(n) => (0, 0, n),
                SizeExpr::Type(p) => (1, prim_code(p), 0),
                SizeExpr::Array(p, n) => (2, prim_code(p), n),
            };
            w[0] = TAG_ALLOC | form << FORM_SHIFT | prim << PRIM_SHIFT;
            w[3] = name.0;
            number = n;
            if let Some((a, at)) = align {
                w[0] |= HAS_ALIGN;
                w[9] = a as u32;
                w[10] = (a >> 32) as u32;
                w[11] = at.line;
                w[12] = at.column;
            }
        }
        StmtKind::Realloc {
            name,
            block,
            block_pos,
            size,
        } => {
            w[0] = TAG_REALLOC;
            (w[3], w[4], w[5], w[6]) = (name.0, block.0, block_pos.line, block_pos.column);
            number = size;
        }
        StmtKind::Free { block, block_pos } => {
            w[0] = TAG_FREE;
            (w[3], w[5], w[6]) = (block.0, block_pos.line, block_pos.column);
        }
        StmtKind::Reset => w[0] = TAG_RESET,
        StmtKind::Checkpoint { name } => (w[0], w[3]) = (TAG_CHECKPOINT, name.0),
        StmtKind::Restore { name } => (w[0], w[3]) = (TAG_RESTORE, name.0),
        StmtKind::Repeat { count, len } => {
            (w[0], w[3]) = (TAG_REPEAT, len);
            number = count;
        }
    }
    w[7] = number as u32;
    w[8] = (number >> 32) as u32;
    w
}

/// The statement [`wide`] wrote; `None` for words it could not have.
fn unwide(w: &[u32]) -> Option<Stmt> {
    let at = |line, column| Pos { line, column };
    let number = u64::from(w[7]) | u64::from(w[8]) << 32;
    let kind = match w[0] & TAG_MASK {
        TAG_ALLOC => {
            let prim = prim_of(w[0] >> PRIM_SHIFT & 0b111);
            let size = match w[0] >> FORM_SHIFT & 0b11 {
                0 => SizeExpr::Bytes(number),
                1 => SizeExpr::Type(prim?),
                2 => SizeExpr::Array(prim?, number),
                _ => return None,
            };
            let align = (w[0] & HAS_ALIGN != 0)
                .then(|| (u64::from(w[9]) | u64::from(w[10]) << 32, at(w[11], w[12])));
            StmtKind::Alloc {
                name: Name(w[3]),
                size,
                align,
            }
        }
        TAG_REALLOC => StmtKind::Realloc {
            name: Name(w[3]),
            block: Name(w[4]),
            block_pos: at(w[5], w[6]),
            size: number,
        },
        TAG_FREE => StmtKind::Free {
            block: Name(w[3]),
            block_pos: at(w[5], w[6]),
        },
        TAG_RESET => StmtKind::Reset,
        TAG_CHECKPOINT => StmtKind::Checkpoint { name: Name(w[3]) },
        TAG_RESTORE => StmtKind::Restore { name: Name(w[3]) },
        TAG_REPEAT => StmtKind::Repeat {
            count: number,
            len: w[3],
        },
        _ => return None,
    };
    Some(Stmt {
        pos: at(w[1], w[2]),
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::super::parse;
    use super::*;

    const EVERY_FORM: &str = "a = alloc 24 align 8\nb = alloc u64\nc = alloc [u32; 17]\n\
        a = realloc a 64\nfree b\ncheckpoint s\nrestore s\nreset\n\
        repeat 3 {\n  x = alloc 16\n  repeat 0 { y = alloc 1 }\n}\n\
        big = alloc 0x1_0000_0000 align 4096\nodd = alloc 8 align 3\n\
        huge = realloc big 0xffffffffffffffff\nrepeat 5000000000 { z = alloc 1 }\n";

    #[test]
    fn a_statement_packs_into_six_words_unless_a_number_or_position_does_not_fit() {
        let p = parse(EVERY_FORM).unwrap();
        // The 4 GiB size, the alignment 3 and the u64::MAX resize do not pack.
        assert_eq!(p.extras.len(), 3);
        assert_eq!(p.len(), 17);
        assert_eq!(p.words.len(), WORDS_HEADER + 6 * 17);
        let big = p.get(12);
        assert_eq!(
            big.kind,
            StmtKind::Alloc {
                name: Name(6),
                size: SizeExpr::Bytes(1 << 32),
                align: Some((
                    4096,
                    Pos {
                        line: 13,
                        column: 33
                    }
                ))
            }
        );
        assert_eq!(p.names().get(Name(6)), "big");
        let StmtKind::Repeat { count, len } = p.get(15).kind else {
            panic!("a repeat");
        };
        assert_eq!((count, len), (5_000_000_000, 1));
    }

    #[test]
    fn words_give_the_same_program_back_and_malformed_words_are_refused() {
        let p = parse(EVERY_FORM).unwrap();
        let words = p.to_words();
        assert_eq!(Program::from_words(words.clone()), Some(p.clone()));
        // Each kind of damage: a bad tag, a name past the table, a repeat
        // whose body runs past the program, words cut short, another magic.
        let mut bad_tag = words.clone();
        bad_tag[WORDS_HEADER] = (bad_tag[WORDS_HEADER] & !TAG_MASK) | TAG_EXTRA;
        bad_tag[WORDS_HEADER + 3] = 99;
        let mut bad_name = words.clone();
        bad_name[WORDS_HEADER + 3] = 1000;
        let mut bad_repeat = words.clone();
        let repeat = WORDS_HEADER + 6 * 8;
        assert_eq!(bad_repeat[repeat] & TAG_MASK, TAG_REPEAT);
        bad_repeat[repeat + 3] = 100;
        let short = words[..words.len() - 1].to_vec();
        let mut magic = words.clone();
        magic[0] ^= 1;
        for damaged in [bad_tag, bad_name, bad_repeat, short, magic] {
            assert_eq!(Program::from_words(damaged), None);
        }
    }

    #[test]
    fn pruning_drops_the_repeats_that_run_nothing_and_keeps_the_rest_in_order() {
        let mut p = parse("a = alloc 1\nrepeat 0 { b = alloc 2 }\nrepeat 2 {\n repeat 3 { }\n c = alloc 3\n}\nrepeat 9 { repeat 0 { d = alloc 4 } }\n").unwrap();
        p.prune();
        let kinds: Vec<String> = p
            .iter()
            .map(|s| match s.kind {
                StmtKind::Alloc { name, .. } => p.names().get(name).to_string(),
                StmtKind::Repeat { count, len } => format!("repeat {count}/{len}"),
                _ => "other".to_string(),
            })
            .collect();
        assert_eq!(kinds, ["a", "repeat 2/1", "c"]);
    }
}
