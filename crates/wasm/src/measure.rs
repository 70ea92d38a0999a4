//! Replaying ops on a model so the page can count what each one executes.
//!
//! Every `bumplab_measure_*` function runs ONE operation of one model with
//! `NoProbe`: the same source the engine steps with a recorder, with the
//! recording compiled away. They are generic and `#[inline(never)]`, so each
//! model gets its own copy, and they are the roots that `bumplab-meter`
//! instruments (with everything they call). What reaches them from
//! JavaScript, the wasm-bindgen wrappers and the `dyn Measured` dispatch, is
//! not reachable from a root, so it is never counted.

use bumplab_core::heap::Heap;
use bumplab_core::model::{AllocError, Allocated, Layout, Model, ModelOptions};
use bumplab_core::presets::{self, PresetId, PresetVisitor};
use bumplab_core::probe::NoProbe;
use bumplab_core::trace::Trace;
use bumplab_core::word::{Target, Word};

use crate::roots::*;

/// Result of an allocating op as JavaScript sees it: the address, or a
/// negative code for the error. Decoded outside the measured root.
fn address<W: Word>(r: Allocated<W>) -> f64 {
    match r.result() {
        Ok(a) => a.to_u64() as f64,
        Err(AllocError::Full) => -1.0,
        Err(AllocError::HeapExhausted) => -2.0,
        Err(AllocError::BadAlloc) => -3.0,
    }
}

/// One op at a time on one model instance; sizes and addresses as `f64`
/// (exact below 2^53, which the simulated heap never exceeds).
pub trait Measured {
    fn alloc(&mut self, size: f64, align: f64) -> f64;
    fn realloc(&mut self, addr: f64, old_size: f64, align: f64, new_size: f64) -> f64;
    fn free(&mut self, addr: f64, size: f64, align: f64);
    fn reset(&mut self);
    /// Saves a checkpoint and returns its number.
    fn checkpoint(&mut self) -> u32;
    /// Restores checkpoint `n` (as numbered by `checkpoint`).
    fn restore(&mut self, n: u32);
}

struct Instance<W: Word, M: Model<W>> {
    model: M,
    heap: Heap<W>,
    checkpoints: Vec<M::Checkpoint>,
}

impl<W: Word, M: Model<W>> Instance<W, M> {
    fn layout(size: f64, align: f64) -> Layout<W> {
        Layout {
            size: W::truncate(size as u64),
            align: W::truncate(align as u64),
        }
    }
}

impl<W: Word, M: Model<W>> Measured for Instance<W, M> {
    fn alloc(&mut self, size: f64, align: f64) -> f64 {
        address(bumplab_measure_alloc(
            &mut self.model,
            &mut self.heap,
            Self::layout(size, align),
        ))
    }
    fn realloc(&mut self, addr: f64, old_size: f64, align: f64, new_size: f64) -> f64 {
        let old = Self::layout(old_size, align);
        let (addr, new_size) = (W::truncate(addr as u64), W::truncate(new_size as u64));
        address(bumplab_measure_realloc(
            &mut self.model,
            &mut self.heap,
            addr,
            old,
            new_size,
        ))
    }
    fn free(&mut self, addr: f64, size: f64, align: f64) {
        let layout = Self::layout(size, align);
        bumplab_measure_free(
            &mut self.model,
            &mut self.heap,
            W::truncate(addr as u64),
            layout,
        )
    }
    fn reset(&mut self) {
        bumplab_measure_reset(&mut self.model, &mut self.heap)
    }
    fn checkpoint(&mut self) -> u32 {
        let cp = bumplab_measure_checkpoint::<W, M>(&self.model);
        self.checkpoints.push(cp);
        self.checkpoints.len() as u32 - 1
    }
    fn restore(&mut self, n: u32) {
        if let Some(cp) = self.checkpoints.get(n as usize).cloned() {
            bumplab_measure_restore(&mut self.model, &mut self.heap, &cp)
        }
    }
}

struct Build {
    target: Target,
    capacity: Option<u64>,
}

impl PresetVisitor for Build {
    type Out = Result<Box<dyn Measured>, AllocError>;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out {
        let mut heap = Heap::new(self.target);
        let opts = ModelOptions {
            capacity: self.capacity,
        };
        let model = M::new(&mut heap, &opts, &mut NoProbe)?;
        Ok(Box::new(Instance {
            model,
            heap,
            checkpoints: Vec::new(),
        }))
    }
}

/// A fresh instance of `preset`, as the engine builds it.
pub fn new_instance(
    preset: PresetId,
    target: Target,
    min_align: u64,
    capacity: Option<u64>,
) -> Result<Box<dyn Measured>, AllocError> {
    presets::visit(preset, target, min_align, Build { target, capacity })
}

/// Replays `trace`'s ops on a fresh instance of its preset and records what
/// each op executed. Every replayed block must land at the trace's address
/// (the simulated heap is deterministic); if one does not, no costs are
/// attached rather than costs of a different run.
pub fn attach_costs(trace: &mut Trace, preset: PresetId, min_align: u64, capacity: Option<u64>) {
    use bumplab_core::trace::OpKind;
    let requested = trace
        .ops
        .iter()
        .filter_map(|o| o.size)
        .fold(0u64, u64::saturating_add);
    crate::replay_alloc::begin_pass(crate::replay_alloc::pass_bytes(trace.ops.len(), requested));
    // The instance's lists start in the replay region, at the same place every
    // run, so growing them copies the same way (see `replay_alloc`).
    let made =
        crate::replay_alloc::measured(|| new_instance(preset, trace.target, min_align, capacity));
    let Ok(mut run) = made else {
        return;
    };
    let mut saved: Vec<(String, u32)> = Vec::new();
    let mut costs = Vec::with_capacity(trace.ops.len());
    for op in &trace.ops {
        let num = |v: Option<u64>| v.unwrap_or(0) as f64;
        let expected = if op.failed { None } else { op.address };
        let before = crate::meter::now();
        let landed = crate::replay_alloc::measured(|| match op.kind {
            OpKind::Alloc => Some(run.alloc(num(op.size), num(op.align))),
            OpKind::Realloc => {
                let old = op.target_op.and_then(|i| trace.ops.get(i as usize));
                let (addr, old_size) = old.map_or((0.0, 0.0), |o| (num(o.address), num(o.size)));
                Some(run.realloc(addr, old_size, num(op.align), num(op.size)))
            }
            OpKind::Free => {
                let align = op
                    .target_op
                    .and_then(|i| trace.ops.get(i as usize))
                    .and_then(|o| o.align);
                run.free(num(op.address), num(op.size), num(align));
                None
            }
            OpKind::Reset => {
                run.reset();
                None
            }
            OpKind::Checkpoint => {
                let n = run.checkpoint();
                let name = op.block.clone().unwrap_or_default();
                saved.retain(|(s, _)| *s != name);
                saved.push((name, n));
                None
            }
            OpKind::Restore => {
                let name = op.block.as_deref().unwrap_or_default();
                if let Some(&(_, n)) = saved.iter().find(|(s, _)| s == name) {
                    run.restore(n);
                }
                None
            }
        });
        let cost = crate::meter::since(before);
        if let Some(addr) = landed {
            let got = (addr >= 0.0).then_some(addr as u64);
            if got != expected {
                return;
            }
        }
        costs.push(cost);
    }
    for (op, cost) in trace.ops.iter_mut().zip(costs) {
        op.cost = Some(cost);
    }
}
