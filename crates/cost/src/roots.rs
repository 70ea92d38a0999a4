//! The measured roots: each runs ONE operation of one model with `NoProbe`.
//!
//! `bumplab-meter` instruments every function reachable from a function
//! named `bumplab_measure_*`; these are those functions for the models. This
//! file is compiled into the shipped module (through measure.rs) and, with
//! `#[path]`, into the meter's preset fixture, so the cross-check against
//! wasmtime measures exactly these roots.

use bumplab_core::heap::Heap;
use bumplab_core::model::{Allocated, Layout, Model};
use bumplab_core::probe::NoProbe;
use bumplab_core::word::Word;

#[inline(never)]
pub(crate) fn bumplab_measure_alloc<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    layout: Layout<W>,
) -> Allocated<W> {
    m.alloc(heap, layout, &mut NoProbe)
}

#[inline(never)]
pub(crate) fn bumplab_measure_realloc<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    old: Layout<W>,
    new_size: W,
) -> Allocated<W> {
    m.realloc(heap, addr, old, new_size, &mut NoProbe)
}

#[inline(never)]
pub(crate) fn bumplab_measure_free<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    layout: Layout<W>,
) {
    m.free(heap, addr, layout, &mut NoProbe)
}

#[inline(never)]
pub(crate) fn bumplab_measure_reset<W: Word, M: Model<W>>(m: &mut M, heap: &mut Heap<W>) {
    m.reset(heap, &mut NoProbe)
}

#[inline(never)]
pub(crate) fn bumplab_measure_checkpoint<W: Word, M: Model<W>>(m: &M) -> M::Checkpoint {
    m.checkpoint()
}

#[inline(never)]
pub(crate) fn bumplab_measure_restore<W: Word, M: Model<W>>(
    m: &mut M,
    heap: &mut Heap<W>,
    cp: &M::Checkpoint,
) {
    m.restore(heap, cp, &mut NoProbe)
}
