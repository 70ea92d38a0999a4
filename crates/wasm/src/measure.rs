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
use bumplab_core::model::{AllocError, Layout, Model, ModelOptions};
use bumplab_core::presets::{self, PresetId, PresetVisitor};
use bumplab_core::probe::NoProbe;
use bumplab_core::word::{Target, Word};

/// Result of an allocating op as JavaScript sees it: the address, or a
/// negative code for the error.
fn address<W: Word>(r: Result<W, AllocError>) -> f64 {
    match r {
        Ok(a) => a.to_u64() as f64,
        Err(AllocError::Full) => -1.0,
        Err(AllocError::HeapExhausted) => -2.0,
        Err(AllocError::BadAlloc) => -3.0,
    }
}

#[inline(never)]
fn bumplab_measure_alloc<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    layout: Layout<W>,
) -> Result<W, AllocError> {
    m.alloc(heap, layout, &mut NoProbe)
}

#[inline(never)]
fn bumplab_measure_realloc<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    old: Layout<W>,
    new_size: W,
) -> Result<W, AllocError> {
    m.realloc(heap, addr, old, new_size, &mut NoProbe)
}

#[inline(never)]
fn bumplab_measure_free<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    layout: Layout<W>,
) {
    m.free(heap, addr, layout, &mut NoProbe)
}

#[inline(never)]
fn bumplab_measure_reset<W: Word, M: Model<W>>(m: &mut M, heap: &mut Heap<W>) {
    m.reset(heap, &mut NoProbe)
}

#[inline(never)]
fn bumplab_measure_checkpoint<W: Word, M: Model<W>>(m: &M) -> M::Checkpoint {
    m.checkpoint()
}

#[inline(never)]
fn bumplab_measure_restore<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    cp: &M::Checkpoint,
) {
    m.restore(heap, cp, &mut NoProbe)
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
