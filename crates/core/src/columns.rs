//! The columnar record of a run: seven `u32` columns, one row per op. It is
//! what the page reads of a run, and it is the engine's table of blocks too:
//! a block is named by the op that placed it, and where it is, its size,
//! padding, alignment and when it died are that op's row
//! (`crate::engine`'s shadow tables keep only op numbers). The layout is
//! documented in `docs/trace-format.md` ("Columnar run").

use crate::trace::{Op, OpKind};

/// The value of `chunk`, `dead_at` and `gone_at` that means "none".
pub const NONE: u32 = u32::MAX;

/// `meta` bits 0-2: the op's kind, as [`op_kind_code`] numbers it.
pub const META_KIND: u32 = 0b111;
/// `meta` bit 3: the allocation did not fit.
pub const META_FAILED: u32 = 1 << 3;
/// `meta` bit 4: a realloc that moved the block.
pub const META_MOVED: u32 = 1 << 4;
/// `meta` bit 5: the op placed a block (it has an address).
pub const META_PLACED: u32 = 1 << 5;
/// `meta` bits 6-9: log2 of the op's alignment (0 when it has none).
pub const META_ALIGN_SHIFT: u32 = 6;
/// `meta` bits 10-31: the index of the op's statement in the run's program.
pub const META_STMT_SHIFT: u32 = 10;

/// The kind's number in `meta`: 0 alloc, 1 realloc, 2 free, 3 reset,
/// 4 checkpoint, 5 restore.
pub fn op_kind_code(kind: OpKind) -> u32 {
    match kind {
        OpKind::Alloc => 0,
        OpKind::Realloc => 1,
        OpKind::Free => 2,
        OpKind::Reset => 3,
        OpKind::Checkpoint => 4,
        OpKind::Restore => 5,
    }
}

/// One `u32` per op in each column; see the `META_*` constants and
/// `docs/trace-format.md` for what each holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Columns {
    pub meta: Vec<u32>,
    pub chunk: Vec<u32>,
    pub offset: Vec<u32>,
    pub size: Vec<u32>,
    pub padding: Vec<u32>,
    /// The op that freed or reallocated the block this op placed.
    pub dead_at: Vec<u32>,
    /// The op after which the block's bytes are no longer drawn: the one
    /// that reclaimed them, or the in-place realloc that took them over.
    pub gone_at: Vec<u32>,
}

impl Columns {
    /// The column called `name` (`meta`, `chunk`, `offset`, `size`,
    /// `padding`, `dead_at`, `gone_at`).
    pub fn by_name(&self, name: &str) -> Option<&[u32]> {
        Some(match name {
            "meta" => &self.meta,
            "chunk" => &self.chunk,
            "offset" => &self.offset,
            "size" => &self.size,
            "padding" => &self.padding,
            "dead_at" => &self.dead_at,
            "gone_at" => &self.gone_at,
            _ => return None,
        })
    }

    /// Room for `n` ops in every column: a run knows its op count before
    /// it starts, so the columns never move while they grow.
    pub(crate) fn with_capacity(n: usize) -> Self {
        let v = || Vec::with_capacity(n);
        Columns {
            meta: v(),
            chunk: v(),
            offset: v(),
            size: v(),
            padding: v(),
            dead_at: v(),
            gone_at: v(),
        }
    }

    pub fn len(&self) -> usize {
        self.meta.len()
    }

    pub fn is_empty(&self) -> bool {
        self.meta.is_empty()
    }

    /// Appends op `op`, run by statement `stmt`, and marks the blocks it
    /// ended in the rows of the ops that placed them.
    pub(crate) fn push(&mut self, stmt: u32, op: &Op) {
        let i = op.index;
        debug_assert_eq!(i as usize, self.len());
        let placed = matches!(op.kind, OpKind::Alloc | OpKind::Realloc)
            && !op.failed
            && op.address.is_some();
        let align = op.align.map_or(0, u64::trailing_zeros);
        let mut meta = op_kind_code(op.kind) | align << META_ALIGN_SHIFT | stmt << META_STMT_SHIFT;
        if op.failed {
            meta |= META_FAILED;
        }
        if op.moved == Some(true) {
            meta |= META_MOVED;
        }
        if placed {
            meta |= META_PLACED;
        }
        let small = |v: Option<u64>| v.map_or(0, |v| u32::try_from(v).unwrap_or(u32::MAX));
        self.meta.push(meta);
        self.chunk.push(match (placed, op.chunk) {
            (true, Some(c)) => c,
            _ => NONE,
        });
        self.offset.push(match (placed, op.chunk) {
            (false, _) => 0,
            (true, Some(_)) => small(op.offset),
            // A dangling zero-sized block: no chunk to measure from.
            (true, None) => small(op.address),
        });
        self.size.push(small(op.size));
        self.padding.push(small(op.padding));
        self.dead_at.push(NONE);
        self.gone_at.push(NONE);
        let gone = |b: u32, gone_at: &mut Vec<u32>| {
            let g = &mut gone_at[b as usize];
            if *g == NONE {
                *g = i;
            }
        };
        match (op.kind, op.target_op) {
            (OpKind::Free, Some(t)) => self.dead_at[t as usize] = i,
            (OpKind::Realloc, Some(t)) if !op.failed => {
                self.dead_at[t as usize] = i;
                // In place, the new block takes over the old one's bytes
                // (listed in `reclaimed` when it was in a chunk; a dangling
                // one is not, and goes too).
                if op.moved == Some(false) {
                    gone(t, &mut self.gone_at);
                }
            }
            _ => {}
        }
        for &b in &op.reclaimed {
            gone(b, &mut self.gone_at);
        }
    }

    /// Bytes the columns hold.
    pub fn bytes(&self) -> usize {
        7 * 4 * self.len()
    }
}
