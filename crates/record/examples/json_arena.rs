//! A JSON parser that builds each document's tree in a `bumpalo` arena, with
//! the arena recorded: a small real program for Bump Lab to replay.
//!
//!   cargo run -p bumplab-record --example json_arena -- --out program.txt FILE.json...
//!
//! Each file is parsed into a tree of `Value`s whose arrays and objects are
//! `allocator_api2` vectors in the arena and whose strings are copied into
//! it; the tree is then walked (to count its values), abandoned without
//! being dropped, and the arena reset for the next file: the way an arena is
//! meant to be used, one `reset` instead of a free per node.

use std::path::{Path, PathBuf};

use allocator_api2::vec::Vec;
use bumpalo::Bump;
use bumplab_record::{Program, Recorded, Recorder};

/// The recorded arena every tree lives in.
type Arena<'r> = Recorded<'r, Bump>;

/// A parsed JSON value. `A` is the arena (a shared reference to it).
// The scalars are kept as a real parser keeps them, though this program only
// counts them.
#[allow(dead_code)]
pub enum Value<'a, A: allocator_api2::alloc::Allocator> {
    Null,
    Bool(bool),
    Number(f64),
    Str(&'a str),
    Array(Vec<Value<'a, A>, A>),
    Object(Vec<(&'a str, Value<'a, A>), A>),
}

/// How many values of each kind the trees held, and what their shapes imply
/// the parser asked of the arena.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub scalars: u64,
    pub strings: u64,
    /// Object keys: strings too, each copied into the arena.
    pub keys: u64,
    pub arrays: u64,
    pub objects: u64,
    /// Arrays and objects with at least one item: each allocated its vector.
    pub nonempty: u64,
    /// Times a vector grew: from 4 items, doubling until all fit.
    pub grows: u64,
}

impl Counts {
    fn container(&mut self, len: usize) {
        if len > 0 {
            self.nonempty += 1;
        }
        let mut cap = 4;
        while cap < len {
            cap *= 2;
            self.grows += 1;
        }
    }
}

impl<A: allocator_api2::alloc::Allocator> Value<'_, A> {
    fn count(&self, c: &mut Counts) {
        match self {
            Value::Null | Value::Bool(_) | Value::Number(_) => c.scalars += 1,
            Value::Str(_) => c.strings += 1,
            Value::Array(items) => {
                c.arrays += 1;
                c.container(items.len());
                items.iter().for_each(|v| v.count(c));
            }
            Value::Object(fields) => {
                c.objects += 1;
                c.keys += fields.len() as u64;
                c.container(fields.len());
                fields.iter().for_each(|(_, v)| v.count(c));
            }
        }
    }
}

struct Parser<'a, 'r> {
    src: &'a [u8],
    pos: usize,
    arena: &'a Arena<'r>,
    /// Where escaped strings are decoded before their copy into the arena
    /// (on the global heap, reused, so not part of the recording).
    scratch: std::vec::Vec<u8>,
}

type Parsed<'a, 'r> = Value<'a, &'a Arena<'r>>;

impl<'a, 'r> Parser<'a, 'r> {
    fn error(&self, what: &str) -> String {
        format!("byte {}: {what}", self.pos)
    }

    fn skip_space(&mut self) {
        while self
            .src
            .get(self.pos)
            .is_some_and(|b| b.is_ascii_whitespace())
        {
            self.pos += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        self.skip_space();
        if self.src.get(self.pos) == Some(&b) {
            self.pos += 1;
            Ok(())
        } else {
            Err(self.error(&format!("expected '{}'", b as char)))
        }
    }

    fn literal(&mut self, word: &str, v: Parsed<'a, 'r>) -> Result<Parsed<'a, 'r>, String> {
        if self.src[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            Err(self.error("expected a value"))
        }
    }

    fn value(&mut self) -> Result<Parsed<'a, 'r>, String> {
        self.skip_space();
        match self.src.get(self.pos) {
            Some(b'{') => self.object(),
            Some(b'[') => self.array(),
            Some(b'"') => Ok(Value::Str(self.string()?)),
            Some(b't') => self.literal("true", Value::Bool(true)),
            Some(b'f') => self.literal("false", Value::Bool(false)),
            Some(b'n') => self.literal("null", Value::Null),
            Some(_) => self.number(),
            None => Err(self.error("unexpected end of input")),
        }
    }

    fn number(&mut self) -> Result<Parsed<'a, 'r>, String> {
        let start = self.pos;
        while self
            .src
            .get(self.pos)
            .is_some_and(|b| b"+-.eE0123456789".contains(b))
        {
            self.pos += 1;
        }
        let text = std::str::from_utf8(&self.src[start..self.pos])
            .map_err(|_| self.error("bad number"))?;
        text.parse()
            .map(Value::Number)
            .map_err(|_| self.error("bad number"))
    }

    /// A string, copied into the arena: one allocation of its decoded bytes.
    fn string(&mut self) -> Result<&'a str, String> {
        self.expect(b'"')?;
        let start = self.pos;
        let mut escaped = false;
        loop {
            match self.src.get(self.pos) {
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    self.pos += 2;
                }
                Some(_) => self.pos += 1,
                None => return Err(self.error("unterminated string")),
            }
        }
        let raw = &self.src[start..self.pos];
        self.pos += 1;
        if !escaped {
            let s = std::str::from_utf8(raw).map_err(|_| self.error("not UTF-8"))?;
            return Ok(self.arena.alloc_str(s));
        }
        self.scratch.clear();
        let mut i = 0;
        while i < raw.len() {
            let b = raw[i];
            i += 1;
            if b != b'\\' {
                self.scratch.push(b);
                continue;
            }
            let e = raw[i];
            i += 1;
            match e {
                b'n' => self.scratch.push(b'\n'),
                b't' => self.scratch.push(b'\t'),
                b'r' => self.scratch.push(b'\r'),
                b'b' => self.scratch.push(8),
                b'f' => self.scratch.push(12),
                b'u' => {
                    let hex = std::str::from_utf8(&raw[i..i + 4])
                        .map_err(|_| self.error("bad escape"))?;
                    let c = u32::from_str_radix(hex, 16)
                        .ok()
                        .and_then(char::from_u32)
                        .unwrap_or('\u{fffd}');
                    let mut utf8 = [0; 4];
                    self.scratch
                        .extend_from_slice(c.encode_utf8(&mut utf8).as_bytes());
                    i += 4;
                }
                other => self.scratch.push(other),
            }
        }
        let s = std::str::from_utf8(&self.scratch).map_err(|_| self.error("not UTF-8"))?;
        Ok(self.arena.alloc_str(s))
    }

    /// An array: a vector in the arena that grows as items are parsed, so it
    /// moves whenever an item's own allocations landed after it.
    fn array(&mut self) -> Result<Parsed<'a, 'r>, String> {
        self.expect(b'[')?;
        let mut items = Vec::new_in(self.arena);
        self.skip_space();
        if self.src.get(self.pos) == Some(&b']') {
            self.pos += 1;
            return Ok(Value::Array(items));
        }
        loop {
            items.push(self.value()?);
            self.skip_space();
            match self.src.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b']') => {
                    self.pos += 1;
                    return Ok(Value::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']'")),
            }
        }
    }

    fn object(&mut self) -> Result<Parsed<'a, 'r>, String> {
        self.expect(b'{')?;
        let mut fields = Vec::new_in(self.arena);
        self.skip_space();
        if self.src.get(self.pos) == Some(&b'}') {
            self.pos += 1;
            return Ok(Value::Object(fields));
        }
        loop {
            let key = self.string()?;
            self.expect(b':')?;
            let value = self.value()?;
            fields.push((key, value));
            self.skip_space();
            match self.src.get(self.pos) {
                Some(b',') => self.pos += 1,
                Some(b'}') => {
                    self.pos += 1;
                    return Ok(Value::Object(fields));
                }
                _ => return Err(self.error("expected ',' or '}'")),
            }
        }
    }
}

/// What one run recorded.
pub struct Recording {
    pub program: Program,
    pub counts: Counts,
    /// What bumpalo itself held in chunks, metadata included, just before
    /// each reset: what a replay on the bumpalo model must come to.
    pub chunk_bytes: std::vec::Vec<u64>,
}

/// Parses each file into the recorded arena, resetting it after each.
pub fn record_files(files: &[PathBuf], command: &str) -> Result<Recording, String> {
    let recorder = Recorder::new();
    let mut arena = Recorded::new(Bump::new(), &recorder);
    let mut counts = Counts::default();
    let mut chunk_bytes = std::vec::Vec::new();
    let mut notes = std::vec::Vec::new();
    for file in files {
        let text = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
        {
            let mut parser = Parser {
                src: &text,
                pos: 0,
                arena: &arena,
                scratch: std::vec::Vec::new(),
            };
            let tree = parser
                .value()
                .map_err(|e| format!("{}: {e}", file.display()))?;
            tree.count(&mut counts);
            // The arena takes every node back at once: dropping the tree
            // would free each vector on its own, to no use.
            std::mem::forget(tree);
        }
        let held = arena.arena().allocated_bytes_including_metadata() as u64;
        notes.push(format!(
            "Input: {} ({} bytes); bumpalo then held {held} bytes of chunks, metadata included.",
            file.display(),
            text.len()
        ));
        chunk_bytes.push(held);
        arena.reset_with(|bump| bump.reset());
    }
    let program = recorder.program_with(command, notes);
    Ok(Recording {
        program,
        counts,
        chunk_bytes,
    })
}

#[allow(dead_code)] // the tests include this file for `record_files` only
fn main() {
    let mut args: std::vec::Vec<String> = std::env::args().skip(1).collect();
    // The header says how to record the same program again.
    let command = format!(
        "cargo run -p bumplab-record --example json_arena -- {}",
        args.join(" ")
    );
    let mut out = None;
    if let Some(i) = args.iter().position(|a| a == "--out") {
        if i + 1 >= args.len() {
            eprintln!("json_arena: --out needs a file");
            std::process::exit(2);
        }
        out = Some(args.remove(i + 1));
        args.remove(i);
    }
    if args.is_empty() {
        eprintln!("usage: json_arena [--out PROGRAM] FILE.json...");
        std::process::exit(2);
    }
    let files: std::vec::Vec<PathBuf> = args.iter().map(PathBuf::from).collect();
    let Recording {
        program, counts, ..
    } = record_files(&files, &command).unwrap_or_else(|e| {
        eprintln!("json_arena: {e}");
        std::process::exit(1)
    });
    eprintln!(
        "json_arena: {} strings, {} keys, {} arrays, {} objects, {} other values; {}",
        counts.strings,
        counts.keys,
        counts.arrays,
        counts.objects,
        counts.scalars,
        program.summary()
    );
    match out {
        Some(path) => std::fs::write(Path::new(&path), &program.text).unwrap_or_else(|e| {
            eprintln!("json_arena: cannot write {path}: {e}");
            std::process::exit(1)
        }),
        None => print!("{}", program.text),
    }
}
