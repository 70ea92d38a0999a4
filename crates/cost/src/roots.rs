//! The measured roots: each runs ONE operation of one model with `NoProbe`.
//!
//! `bumplab-meter` instruments every function reachable from a function
//! named `bumplab_measure_*`; these are those functions for the models. This
//! file is compiled into the shipped module (through measure.rs) and, with
//! `#[path]`, into the meter's preset fixture, so the cross-check against
//! wasmtime measures exactly these roots.
//!
//! A request comes in the three shapes of [`Shape`]: a root per shape, and
//! for the shapes with a compile-time layout one instantiation per constant
//! (`SIZE`, `ALIGN`: the powers of two a primitive type has). The layout is
//! built inside the root from its const parameters, so the model's inlined
//! fast path is compiled knowing it, as `bump.alloc(1u64)` is in a Rust
//! program: alignment tests decided by constants fold away, and what is
//! counted is what such a caller runs.
//!
//! [`Shape`]: bumplab_core::trace::Shape

/// Evaluates `$e` with the constant `$n` equal to `$v`, one of the sizes
/// (= alignments) a primitive type has: how a root's const parameter is
/// chosen for a shape known at run time only to the replay.
macro_rules! by_prim_size {
    ($v:expr, $n:ident => $e:expr) => {
        match $v {
            1 => {
                const $n: u64 = 1;
                $e
            }
            2 => {
                const $n: u64 = 2;
                $e
            }
            4 => {
                const $n: u64 = 4;
                $e
            }
            8 => {
                const $n: u64 = 8;
                $e
            }
            16 => {
                const $n: u64 = 16;
                $e
            }
            other => unreachable!("{other} bytes is no primitive type's size"),
        }
    };
}
pub(crate) use by_prim_size;

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

/// `alloc T`: size and alignment both `SIZE` (a primitive type's).
#[inline(never)]
pub(crate) fn bumplab_measure_alloc_typed<W: Word, M: Model<W>, const SIZE: u64>(
    m: &mut M,
    heap: &mut Heap<W>,
) -> Allocated<W> {
    let layout = Layout {
        size: W::truncate(SIZE),
        align: W::truncate(SIZE),
    };
    m.alloc(heap, layout, &mut NoProbe)
}

/// `alloc [T; n]`: the alignment `ALIGN` is the element's, the size comes at
/// run time.
#[inline(never)]
pub(crate) fn bumplab_measure_alloc_array<W: Word, M: Model<W>, const ALIGN: u64>(
    m: &mut M,
    heap: &mut Heap<W>,
    size: W,
) -> Allocated<W> {
    let layout = Layout {
        size,
        align: W::truncate(ALIGN),
    };
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

/// Resizing a typed or array block: its alignment `ALIGN` is known, both
/// sizes come at run time (a `Vec<T>` growing).
#[inline(never)]
pub(crate) fn bumplab_measure_realloc_array<W: Word, M: Model<W>, const ALIGN: u64>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    old_size: W,
    new_size: W,
) -> Allocated<W> {
    let old = Layout {
        size: old_size,
        align: W::truncate(ALIGN),
    };
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

/// Freeing a typed block: its whole layout is the type's (a `Box<T>`
/// dropped).
#[inline(never)]
pub(crate) fn bumplab_measure_free_typed<W: Word, M: Model<W>, const SIZE: u64>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
) {
    let layout = Layout {
        size: W::truncate(SIZE),
        align: W::truncate(SIZE),
    };
    m.free(heap, addr, layout, &mut NoProbe)
}

/// Freeing an array block, or a typed block since resized: the alignment
/// is known, the size comes at run time.
#[inline(never)]
pub(crate) fn bumplab_measure_free_array<W: Word, M: Model<W>, const ALIGN: u64>(
    m: &mut M,
    heap: &mut Heap<W>,
    addr: W,
    size: W,
) {
    let layout = Layout {
        size,
        align: W::truncate(ALIGN),
    };
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
