//! Turns a log of [`Call`]s into a Bump Lab program.
//!
//! Every recorder ends here, so a C program and a Rust program that make the
//! same calls get the same text. What it decides:
//!
//! * **Which block a call means.** A free or realloc names an address; the
//!   block is the last one allocated there and not gone yet. A free of an
//!   address no recorded call returned (a block allocated before recording
//!   began) is left out and counted in the header, as is a realloc of one
//!   (recorded as an alloc of the new size). A free of null never reaches
//!   the log.
//! * **Names.** `b<size>_<n>`: the block's size in bytes and the lowest
//!   number no live block of that size holds. Live blocks never share a name;
//!   a name comes back once its block is freed, reallocated or reset, which
//!   is also what makes a loop's text repeat so [`crate::fold`] can fold it.
//! * **Alignment.** What the caller asked for. A `malloc`-family call asks
//!   for none (logged as 0): it gets what `malloc` must guarantee for that
//!   size, the largest power of two that is at most the size and at most
//!   [`Options::malloc_align`] (16 on x86-64 Linux): no object of a
//!   fundamental type that fits in 24 bytes needs more than 16, none that fits
//!   in 4 needs more than 4. A `realloc` asks for none either: its block
//!   gets what `malloc` guarantees for the new size, or keeps its own if that
//!   is more. The language takes alignments up to 4096; a larger one is
//!   written as 4096 and counted.

use std::collections::{BTreeSet, HashMap};

use crate::fold;
use crate::recorder::{Call, DEFAULT_MAX_OPS, PLAYGROUND_MAX_OPS};

/// The largest alignment the program language takes.
pub const MAX_ALIGN: u64 = 4096;
/// The largest program text the playground reads (bumplab-core's
/// `MAX_SOURCE_BYTES`).
pub const PLAYGROUND_MAX_BYTES: usize = 32_000_000;

/// What the header says and how calls without an alignment are read.
#[derive(Clone, Debug)]
pub struct Options {
    /// What ran: a command line, or a sentence.
    pub command: String,
    /// Which recorder logged the calls, as the header's "through ..." says
    /// it ("the LD_PRELOAD shim").
    pub recorder: String,
    /// More header lines (the process a shim log came from).
    pub notes: Vec<String>,
    /// Ops written at most; the rest of the log is left out and the header
    /// says so.
    pub max_ops: u64,
    /// The recorder itself stopped at its op limit.
    pub hit_limit: bool,
    /// The alignment `malloc` guarantees (x86-64 Linux: 16), the most a call
    /// logged without one gets.
    pub malloc_align: u64,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            command: String::new(),
            recorder: "a recorder".to_string(),
            notes: Vec::new(),
            max_ops: DEFAULT_MAX_OPS,
            hit_limit: false,
            malloc_align: 16,
        }
    }
}

/// A written program and what went into it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Program {
    /// The program, header comment first.
    pub text: String,
    /// Ops the program runs, repeats expanded: `allocs + reallocs + frees + resets`.
    pub ops: u64,
    pub allocs: u64,
    pub reallocs: u64,
    pub frees: u64,
    pub resets: u64,
    /// Frees of addresses no recorded call returned: left out.
    pub unknown_frees: u64,
    /// Reallocs of such addresses: written as allocs of the new size.
    pub unknown_reallocs: u64,
    /// Reallocs that failed (the block stayed where it was): left out.
    pub failed_reallocs: u64,
    /// Allocs returned at an address a live block still held: the recorder
    /// missed that block's free, so it stays live in the program.
    pub missed_frees: u64,
    /// Alignments above [`MAX_ALIGN`], written as [`MAX_ALIGN`].
    pub clamped_aligns: u64,
    /// The op limit cut the recording or the program short.
    pub cut_at_limit: bool,
}

impl Program {
    /// One line: how many ops of each kind, and the text's size.
    pub fn summary(&self) -> String {
        let cut = if self.cut_at_limit {
            ", cut at the op limit"
        } else {
            ""
        };
        format!(
            "{} ops ({} alloc, {} realloc, {} free, {} reset){cut}, {} bytes of program",
            self.ops,
            self.allocs,
            self.reallocs,
            self.frees,
            self.resets,
            self.text.len()
        )
    }

    /// What stops the playground from opening the program, if anything: its
    /// text past the 32 MB the playground reads, or its ops past the
    /// 1,500,000 it runs (an op limit raised past that lets both happen).
    pub fn too_large(&self) -> Option<String> {
        if self.text.len() > PLAYGROUND_MAX_BYTES {
            Some(format!(
                "the program is {} bytes, and the playground reads at most {PLAYGROUND_MAX_BYTES}: record fewer ops",
                self.text.len()
            ))
        } else if self.ops > PLAYGROUND_MAX_OPS {
            Some(format!(
                "the program runs {} ops, and the playground runs at most {PLAYGROUND_MAX_OPS}: record fewer ops",
                self.ops
            ))
        } else {
            None
        }
    }
}

/// Hands out `b<size>_<n>` names: the lowest `n` no live block of that size
/// holds.
#[derive(Default)]
struct Names {
    free: HashMap<u64, BTreeSet<u32>>,
    next: HashMap<u64, u32>,
}

impl Names {
    fn take(&mut self, size: u64) -> u32 {
        if let Some(n) = self.free.get_mut(&size).and_then(|f| f.pop_first()) {
            return n;
        }
        let next = self.next.entry(size).or_insert(1);
        *next += 1;
        *next - 1
    }

    fn give_back(&mut self, size: u64, n: u32) {
        self.free.entry(size).or_default().insert(n);
    }
}

#[derive(Clone, Copy)]
struct Block {
    size: u64,
    align: u64,
    n: u32,
}

fn name(b: &Block) -> String {
    format!("b{}_{}", b.size, b.n)
}

struct Writer<'o> {
    opts: &'o Options,
    names: Names,
    /// Live blocks by address; the last is the one a free means. (More than
    /// one only when an alloc returned a live address: zero-size blocks, or
    /// a free the recorder did not see.)
    live: HashMap<u64, Vec<Block>>,
    stmts: Vec<String>,
    program: Program,
    /// Calls logged without an alignment were seen.
    malloc_aligned: bool,
}

impl Writer<'_> {
    fn full(&mut self) -> bool {
        if self.program.ops >= self.opts.max_ops {
            self.program.cut_at_limit = true;
        }
        self.program.ops >= self.opts.max_ops
    }

    fn align(&mut self, asked: u64, size: u64) -> u64 {
        let a = if asked == 0 {
            self.malloc_aligned = true;
            // The largest power of two at most the size (1 for size 0).
            let fits = 1u64 << (63 - size.max(1).leading_zeros());
            fits.min(self.opts.malloc_align.max(1))
        } else {
            asked.checked_next_power_of_two().unwrap_or(u64::MAX)
        };
        if a > MAX_ALIGN {
            self.program.clamped_aligns += 1;
            return MAX_ALIGN;
        }
        a
    }

    fn take_live(&mut self, addr: u64) -> Option<Block> {
        let stack = self.live.get_mut(&addr)?;
        let b = stack.pop();
        if stack.is_empty() {
            self.live.remove(&addr);
        }
        b
    }

    fn place(&mut self, addr: u64, block: Block) {
        let stack = self.live.entry(addr).or_default();
        if stack.last().is_some_and(|b| b.size > 0) {
            self.program.missed_frees += 1;
        }
        stack.push(block);
    }

    fn alloc(&mut self, addr: u64, size: u64, asked: u64) {
        if self.full() {
            return;
        }
        let align = self.align(asked, size);
        self.alloc_aligned(addr, size, align);
    }

    fn alloc_aligned(&mut self, addr: u64, size: u64, align: u64) {
        if self.full() {
            return;
        }
        let b = Block {
            size,
            align,
            n: self.names.take(size),
        };
        self.stmts.push(if align == 1 {
            format!("{} = alloc {size}", name(&b))
        } else {
            format!("{} = alloc {size} align {align}", name(&b))
        });
        self.program.allocs += 1;
        self.program.ops += 1;
        self.place(addr, b);
    }

    fn free(&mut self, addr: u64) {
        if self.full() {
            return;
        }
        match self.take_live(addr) {
            Some(b) => self.free_block(b),
            None => self.program.unknown_frees += 1,
        }
    }

    fn free_block(&mut self, b: Block) {
        if self.full() {
            return;
        }
        self.stmts.push(format!("free {}", name(&b)));
        self.names.give_back(b.size, b.n);
        self.program.frees += 1;
        self.program.ops += 1;
    }

    fn realloc(&mut self, old: u64, new: u64, size: u64, align: u64) {
        if old == 0 {
            // realloc(NULL, n) is malloc(n).
            if new != 0 {
                self.alloc(new, size, align);
            }
            return;
        }
        if new == 0 {
            // C's realloc(p, 0) frees p; any other null result is a failure
            // that left p where it was.
            if size == 0 {
                self.free(old);
            } else {
                self.program.failed_reallocs += 1;
            }
            return;
        }
        if self.full() {
            return;
        }
        let Some(b) = self.take_live(old) else {
            self.program.unknown_reallocs += 1;
            self.alloc(new, size, align);
            return;
        };
        // C's realloc asks for no alignment: the new block gets what malloc
        // guarantees for its new size, which grows with it (malloc(4) need
        // only be 4-aligned, realloc(p, 100) must be 16-aligned), and never
        // less than the block had.
        let align = if align == 0 {
            self.align(0, size).max(b.align)
        } else {
            self.align(align, size)
        };
        if align != b.align {
            // The language's realloc keeps the block's alignment: a change of
            // alignment is a new block and the old one freed, in the order
            // the bytes are copied.
            self.alloc_aligned(new, size, align);
            self.free_block(b);
            return;
        }
        self.names.give_back(b.size, b.n);
        let moved = Block {
            size,
            align: b.align,
            n: self.names.take(size),
        };
        self.stmts
            .push(format!("{} = realloc {} {size}", name(&moved), name(&b)));
        self.program.reallocs += 1;
        self.program.ops += 1;
        self.place(new, moved);
    }

    fn reset(&mut self) {
        if self.full() {
            return;
        }
        self.stmts.push("reset".to_string());
        self.live.clear();
        self.names = Names::default();
        self.program.resets += 1;
        self.program.ops += 1;
    }

    fn header(&self) -> String {
        let p = &self.program;
        let mut h = vec![format!(
            "Recorded by bumplab-record {} through {}, from one run of:",
            env!("CARGO_PKG_VERSION"),
            self.opts.recorder
        )];
        // A command with line breaks must not end the comment.
        h.push(format!(
            "  {}",
            self.opts.command.replace(['\n', '\r'], " ")
        ));
        h.extend(self.opts.notes.iter().map(|n| n.replace(['\n', '\r'], " ")));
        h.push(format!(
            "{} ops (repeats expanded): {} alloc, {} realloc, {} free, {} reset.",
            p.ops, p.allocs, p.reallocs, p.frees, p.resets
        ));
        let left_out = [
            (
                p.unknown_frees,
                "frees of blocks allocated before recording began (left out)",
            ),
            (
                p.unknown_reallocs,
                "reallocs of such blocks (written as allocs)",
            ),
            (p.failed_reallocs, "failed reallocs (left out)"),
            (
                p.missed_frees,
                "allocs at an address a live block held: its free was not seen, so it stays live",
            ),
            (p.clamped_aligns, "alignments above 4096 (written as 4096)"),
        ];
        for (n, what) in left_out {
            if n > 0 {
                h.push(format!("Not as recorded: {n} {what}."));
            }
        }
        if p.cut_at_limit {
            h.push(format!(
                "Cut at the op limit: these are the first {} ops of the run.",
                p.ops
            ));
        }
        if self.malloc_aligned {
            h.push(format!(
                "malloc-family blocks get what malloc guarantees for their size: the largest power of two up to the size, at most {}.",
                self.opts.malloc_align
            ));
        }
        h.push("Names: b<size>_<n> is the n-th live block of that size; a name is reused once its block is gone.".to_string());
        let mut out: String = h.iter().map(|l| format!("# {l}\n")).collect();
        out.push('\n');
        out
    }
}

/// Writes `calls` as a program under `opts`.
pub fn write(calls: &[Call], opts: &Options) -> Program {
    let mut w = Writer {
        opts,
        names: Names::default(),
        live: HashMap::new(),
        stmts: Vec::new(),
        program: Program::default(),
        malloc_aligned: false,
    };
    for &call in calls {
        match call {
            Call::Alloc { addr, size, align } => w.alloc(addr, size, align),
            Call::Realloc {
                old,
                new,
                size,
                align,
            } => w.realloc(old, new, size, align),
            Call::Free { addr } => w.free(addr),
            Call::Reset => w.reset(),
        }
    }
    w.program.cut_at_limit |= opts.hit_limit;
    let mut text = w.header();
    text.push_str(&fold::fold(&w.stmts));
    w.program.text = text;
    w.program
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(p: &Program) -> Vec<&str> {
        p.text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.is_empty())
            .collect()
    }

    fn write_default(calls: &[Call]) -> Program {
        write(calls, &Options::default())
    }

    #[test]
    fn names_come_back_once_their_block_is_gone() {
        let p = write_default(&[
            Call::Alloc {
                addr: 0x100,
                size: 24,
                align: 8,
            },
            Call::Alloc {
                addr: 0x200,
                size: 24,
                align: 8,
            },
            Call::Free { addr: 0x100 },
            Call::Alloc {
                addr: 0x300,
                size: 24,
                align: 8,
            },
            Call::Alloc {
                addr: 0x400,
                size: 8,
                align: 8,
            },
        ]);
        assert_eq!(
            body(&p),
            [
                "b24_1 = alloc 24 align 8",
                "b24_2 = alloc 24 align 8",
                "free b24_1",
                "b24_1 = alloc 24 align 8",
                "b8_1 = alloc 8 align 8"
            ]
        );
        assert_eq!((p.ops, p.allocs, p.frees), (5, 4, 1));
    }

    #[test]
    fn unknown_frees_are_left_out_and_counted() {
        let p = write_default(&[
            Call::Free { addr: 0x999 },
            Call::Alloc {
                addr: 0x100,
                size: 1,
                align: 1,
            },
            Call::Realloc {
                old: 0x888,
                new: 0x200,
                size: 40,
                align: 0,
            },
            Call::Free { addr: 0x100 },
            Call::Free { addr: 0x100 },
        ]);
        assert_eq!(
            body(&p),
            ["b1_1 = alloc 1", "b40_1 = alloc 40 align 16", "free b1_1"]
        );
        assert_eq!((p.ops, p.unknown_frees, p.unknown_reallocs), (3, 2, 1));
        assert!(p.text.contains(
            "# Not as recorded: 2 frees of blocks allocated before recording began (left out).\n"
        ));
        assert!(p
            .text
            .contains("# Not as recorded: 1 reallocs of such blocks (written as allocs).\n"));
    }

    #[test]
    fn malloc_alignment_is_what_malloc_guarantees_for_the_size() {
        let sizes = [0, 1, 2, 3, 4, 7, 8, 12, 16, 24, 100];
        let calls: Vec<Call> = sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| Call::Alloc {
                addr: 0x1000 + i as u64 * 0x100,
                size,
                align: 0,
            })
            .collect();
        let p = write_default(&calls);
        let aligns: Vec<&str> = body(&p)
            .iter()
            .map(|l| l.rsplit(' ').next().unwrap())
            .collect();
        // Sizes 0 and 1 need no alignment, so their lines end with the size.
        assert_eq!(
            aligns,
            ["0", "1", "2", "2", "4", "4", "8", "8", "16", "16", "16"]
        );
    }

    #[test]
    fn c_realloc_edge_cases() {
        let p = write_default(&[
            Call::Realloc {
                old: 0,
                new: 0x100,
                size: 16,
                align: 0,
            },
            Call::Realloc {
                old: 0x100,
                new: 0x100,
                size: 32,
                align: 0,
            },
            Call::Realloc {
                old: 0x100,
                new: 0,
                size: 64,
                align: 0,
            },
            Call::Realloc {
                old: 0x100,
                new: 0x500,
                size: 48,
                align: 0,
            },
            Call::Realloc {
                old: 0x500,
                new: 0,
                size: 0,
                align: 0,
            },
        ]);
        assert_eq!(
            body(&p),
            [
                "b16_1 = alloc 16 align 16",
                "b32_1 = realloc b16_1 32",
                "b48_1 = realloc b32_1 48",
                "free b48_1"
            ]
        );
        assert_eq!(
            (p.allocs, p.reallocs, p.frees, p.failed_reallocs),
            (1, 2, 1, 1)
        );
    }

    #[test]
    fn a_realloc_to_another_alignment_is_a_new_block() {
        let p = write_default(&[
            Call::Alloc {
                addr: 0x100,
                size: 8,
                align: 8,
            },
            Call::Realloc {
                old: 0x100,
                new: 0x200,
                size: 64,
                align: 64,
            },
        ]);
        assert_eq!(
            body(&p),
            [
                "b8_1 = alloc 8 align 8",
                "b64_1 = alloc 64 align 64",
                "free b8_1"
            ]
        );
    }

    #[test]
    fn reset_lets_every_name_go() {
        let p = write_default(&[
            Call::Alloc {
                addr: 0x100,
                size: 8,
                align: 8,
            },
            Call::Reset,
            Call::Alloc {
                addr: 0x100,
                size: 8,
                align: 8,
            },
            Call::Free { addr: 0x100 },
        ]);
        assert_eq!(
            body(&p),
            [
                "b8_1 = alloc 8 align 8",
                "reset",
                "b8_1 = alloc 8 align 8",
                "free b8_1"
            ]
        );
        assert_eq!(p.missed_frees, 0);
    }

    #[test]
    fn a_loop_of_alloc_and_free_folds() {
        let mut calls = Vec::new();
        for i in 0..100 {
            // ASLR and a real allocator give varying addresses: names must not care.
            calls.push(Call::Alloc {
                addr: 0x1000 + i * 64,
                size: 32,
                align: 8,
            });
            calls.push(Call::Free {
                addr: 0x1000 + i * 64,
            });
        }
        let p = write_default(&calls);
        assert_eq!(
            body(&p),
            [
                "repeat 100 {",
                "  b32_1 = alloc 32 align 8",
                "  free b32_1",
                "}"
            ]
        );
        assert_eq!(p.ops, 200);
    }

    #[test]
    fn the_op_limit_cuts_the_program_and_says_so() {
        let calls: Vec<Call> = (0..10)
            .map(|i| Call::Alloc {
                addr: 0x100 * (i + 1),
                size: 8,
                align: 8,
            })
            .collect();
        let p = write(
            &calls,
            &Options {
                max_ops: 4,
                ..Options::default()
            },
        );
        assert_eq!((p.ops, p.cut_at_limit), (4, true));
        assert!(p
            .text
            .contains("# Cut at the op limit: these are the first 4 ops of the run.\n"));
    }

    #[test]
    fn alignments_past_the_language_are_clamped_and_counted() {
        let p = write_default(&[Call::Alloc {
            addr: 0x200000,
            size: 8192,
            align: 1 << 21,
        }]);
        assert_eq!(body(&p), ["b8192_1 = alloc 8192 align 4096"]);
        assert_eq!(p.clamped_aligns, 1);
    }
}
