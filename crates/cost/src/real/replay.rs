//! A trace replayed on a real crate: its chunks numbered in creation order,
//! each op's placement recorded and compared with the model's.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ptr::NonNull;

use bumplab_core::trace::{Mismatch, OpKind, RealOp, Shape, Trace};
use serde_json::json;

use super::crates::{
    bumplab_measure_real_alloc, bumplab_measure_real_alloc_array, bumplab_measure_real_alloc_typed,
    bumplab_measure_real_checkpoint, bumplab_measure_real_free, bumplab_measure_real_free_array,
    bumplab_measure_real_free_typed, bumplab_measure_real_grow, bumplab_measure_real_grow_array,
    bumplab_measure_real_reset, bumplab_measure_real_restore, bumplab_measure_real_shrink,
    bumplab_measure_real_shrink_array, RealBump,
};
use super::{counted_real, layout, ADDRESS_FREE_ALIGN};
use crate::roots::by_prim_size;

/// The real chunks seen so far: `(start, end, creation index)`. A chunk
/// that disappears (freed) is forgotten, so a later chunk at the same
/// address gets a new index, as the model numbers chunks.
#[derive(Default)]
pub(super) struct ChunkTable {
    live: Vec<(usize, usize, u32)>,
    next: u32,
}

impl ChunkTable {
    pub(super) fn start_of(&self, end: usize) -> Option<usize> {
        self.live.iter().find(|c| c.1 == end).map(|c| c.0)
    }

    fn sync(&mut self, now: &[(usize, usize)]) {
        self.live.retain(|c| now.contains(&(c.0, c.1)));
        for &(start, end) in now {
            if !self.live.iter().any(|c| (c.0, c.1) == (start, end)) {
                self.live.push((start, end, self.next));
                self.next += 1;
            }
        }
    }

    /// The chunk holding `size` bytes at `addr`: index, capacity, offset.
    fn place(&self, addr: usize, size: usize) -> Option<(u32, u64, u64)> {
        self.live
            .iter()
            .find(|c| c.0 <= addr && addr.saturating_add(size) <= c.1)
            .map(|&(start, end, id)| (id, (end - start) as u64, (addr - start) as u64))
    }
}

// ---------------------------------------------------------------------------
// The replay.

/// What the replay found, beyond the serialised rows.
pub(super) struct Replayed {
    pub(super) ops: Vec<RealOp>,
    /// Each op's block address, for the alignment check above 16.
    addrs: Vec<Option<usize>>,
    /// Ops from this index on are not compared (bumpalo's emulated restore).
    compare_until: usize,
}

pub(super) fn replay<R: RealBump>(
    mut bump: R,
    trace: &Trace,
    metered: bool,
) -> Result<Replayed, String> {
    let word = trace.target.usize_bytes();
    let mut table = ChunkTable::default();
    table.sync(&bump.chunks(&table));
    // Live blocks by the index of the op that placed them.
    let mut live: HashMap<u32, (NonNull<u8>, Layout)> = HashMap::new();
    let mut saved: Vec<(String, R::Checkpoint)> = Vec::new();
    let mut out = Replayed {
        ops: Vec::with_capacity(trace.ops.len()),
        addrs: Vec::with_capacity(trace.ops.len()),
        compare_until: trace.ops.len(),
    };
    for (i, op) in trace.ops.iter().enumerate() {
        crate::recorder::at(crate::recorder::Column::Real, i);
        let mut row = RealOp::default();
        let mut placed: Option<(NonNull<u8>, Layout)> = None;
        let missing = |what: &str| format!("op {i}: the real run holds no block to {what}");
        let refused = || format!("op {i}: the real crate could not allocate");
        let shape = op.shape.unwrap_or(Shape::Layout);
        match op.kind {
            _ if op.failed => {
                row.note = Some("failed in the model; not run on the real crate".into());
            }
            OpKind::Alloc => {
                let l = layout(op.size.unwrap_or(0), op.align.unwrap_or(1))
                    .ok_or_else(|| format!("op {i}: no such layout here"))?;
                let (p, cost) = match (shape.known_size(word), shape.known_align(word)) {
                    (Some(s), _) => by_prim_size!(s, S => counted_real(metered, || {
                        bumplab_measure_real_alloc_typed::<R, S>(&bump)
                    })),
                    // SAFETY: the engine checked the layout.
                    (None, Some(a)) => by_prim_size!(a, A => counted_real(metered, || unsafe {
                        bumplab_measure_real_alloc_array::<R, A>(&bump, l.size())
                    })),
                    (None, None) => counted_real(metered, || bumplab_measure_real_alloc(&bump, l)),
                };
                row.cost = cost;
                placed = Some((p.ok_or_else(refused)?, l));
            }
            OpKind::Realloc => {
                let (ptr, old) = op
                    .target_op
                    .and_then(|t| live.remove(&t))
                    .ok_or_else(|| missing("realloc"))?;
                let new = layout(op.size.unwrap_or(0), old.align() as u64)
                    .ok_or_else(|| format!("op {i}: no such layout here"))?;
                let (p, cost) = counted_real(metered, || {
                    let (from, to) = (old.size(), new.size());
                    if R::ALLOC_FROM_ZERO && from == 0 {
                        match shape.known_align(word) {
                            // SAFETY: the engine checked the layout.
                            Some(a) => by_prim_size!(a, A => unsafe {
                                bumplab_measure_real_alloc_array::<R, A>(&bump, to)
                            }),
                            None => bumplab_measure_real_alloc(&bump, new),
                        }
                    } else if R::grows(old, new) {
                        // SAFETY: a live block of `bump` with layout `old`.
                        match shape.known_align(word) {
                            Some(a) => by_prim_size!(a, A => unsafe {
                                bumplab_measure_real_grow_array::<R, A>(&bump, ptr, from, to)
                            }),
                            None => unsafe { bumplab_measure_real_grow(&bump, ptr, old, new) },
                        }
                    } else {
                        // SAFETY: as above.
                        match shape.known_align(word) {
                            Some(a) => by_prim_size!(a, A => unsafe {
                                bumplab_measure_real_shrink_array::<R, A>(&bump, ptr, from, to)
                            }),
                            None => unsafe { bumplab_measure_real_shrink(&bump, ptr, old, new) },
                        }
                    }
                });
                row.cost = cost;
                let p = p.ok_or_else(refused)?;
                row.moved = Some(p != ptr);
                placed = Some((p, new));
            }
            OpKind::Free => {
                let (ptr, l) = op
                    .target_op
                    .and_then(|t| live.remove(&t))
                    .ok_or_else(|| missing("free"))?;
                // SAFETY: a live block of `bump` with layout `l`, which its
                // shape describes.
                let ((), cost) = counted_real(metered, || unsafe {
                    match (shape.known_size(word), shape.known_align(word)) {
                        (Some(s), _) => by_prim_size!(s, S => {
                            bumplab_measure_real_free_typed::<R, S>(&bump, ptr)
                        }),
                        (None, Some(a)) => by_prim_size!(a, A => {
                            bumplab_measure_real_free_array::<R, A>(&bump, ptr, l.size())
                        }),
                        (None, None) => bumplab_measure_real_free(&bump, ptr, l),
                    }
                });
                row.cost = cost;
            }
            OpKind::Reset => {
                let ((), cost) = counted_real(metered, || bumplab_measure_real_reset(&mut bump));
                row.cost = cost;
                live.clear();
                saved.clear();
            }
            OpKind::Checkpoint => {
                let (cp, cost) = counted_real(metered, || bumplab_measure_real_checkpoint(&bump));
                match cp {
                    Some(cp) => {
                        row.cost = cost;
                        let name = op.block.clone().unwrap_or_default();
                        saved.retain(|(n, _)| *n != name);
                        saved.push((name, cp));
                    }
                    None => {
                        row.note = Some(format!(
                            "{} has no checkpoints: not run on the real crate",
                            R::CRATE
                        ))
                    }
                }
            }
            OpKind::Restore => {
                let name = op.block.as_deref().unwrap_or_default();
                match saved.iter().position(|(n, _)| n == name) {
                    Some(k) => {
                        let cp = saved[k].1;
                        // The engine's rule: later checkpoints are gone.
                        saved.truncate(k + 1);
                        // SAFETY: `cp` came from `bump`; a reset clears
                        // `saved` and a restore drops the later ones.
                        let ((), cost) = counted_real(metered, || unsafe {
                            bumplab_measure_real_restore(&bump, cp)
                        });
                        row.cost = cost;
                    }
                    None => {
                        row.note = Some(format!(
                            "{} has no checkpoints: not run on the real crate, which \
                             keeps every block and chunk the model's emulated restore \
                             gives back, so later placements are not compared",
                            R::CRATE
                        ));
                        out.compare_until = out.compare_until.min(i + 1);
                    }
                }
                // Blocks the restore reclaimed are never named again.
                for r in &op.reclaimed {
                    live.remove(r);
                }
            }
        }
        table.sync(&bump.chunks(&table));
        let mut addr = None;
        if let Some((p, l)) = placed {
            let a = p.as_ptr() as usize;
            addr = Some(a);
            if let Some((chunk, capacity, offset)) = table.place(a, l.size()) {
                row.chunk = Some(chunk);
                row.chunk_capacity = Some(capacity);
                row.offset = Some(offset);
            }
            live.insert(i as u32, (p, l));
        }
        out.ops.push(row);
        out.addrs.push(addr);
    }
    // Dropping `bump` gives every chunk back.
    drop(bump);
    Ok(out)
}

/// The model's placement against the real one, op by op.
///
/// A block aligned to more than 16 gets padding that depends on where the
/// base allocator put its chunk, so only its alignment is compared, and the
/// offsets of the blocks placed after it in the same chunk are not compared
/// either (they inherit that padding) until a reset empties the chunks.
pub(super) fn compare(trace: &Trace, real: &Replayed) -> Vec<Mismatch> {
    let mut out = Vec::new();
    // Model chunks holding a block aligned above 16.
    let mut address_dependent: Vec<u32> = Vec::new();
    let ops = trace.ops.iter().zip(&real.ops).zip(&real.addrs);
    for (i, ((m, r), &addr)) in ops.enumerate().take(real.compare_until) {
        if m.kind == OpKind::Reset {
            address_dependent.clear();
        }
        if m.failed || !matches!(m.kind, OpKind::Alloc | OpKind::Realloc) {
            continue;
        }
        let mut differ = |field, model: serde_json::Value, real: serde_json::Value| {
            if model != real {
                out.push(Mismatch {
                    op: i as u32,
                    field,
                    model,
                    real,
                });
            }
        };
        let capacity = m
            .chunk
            .and_then(|c| trace.chunks.get(c as usize))
            .map(|c| c.capacity);
        differ("chunk", json!(m.chunk), json!(r.chunk));
        differ("chunk_capacity", json!(capacity), json!(r.chunk_capacity));
        let align = m.align.unwrap_or(1);
        if align > ADDRESS_FREE_ALIGN {
            if let Some(a) = addr {
                // In its chunk is `chunk` above; the offset is malloc's doing.
                differ("aligned", json!(true), json!(a as u64 % align == 0));
            }
            address_dependent.extend(m.chunk);
        } else if !m.chunk.is_some_and(|c| address_dependent.contains(&c)) {
            differ("offset", json!(m.offset), json!(r.offset));
        }
        if m.kind == OpKind::Realloc {
            differ("moved", json!(m.moved), json!(r.moved));
        }
    }
    out
}
