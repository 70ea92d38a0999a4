//! The general-purpose baseline: the trace's allocation sizes through
//! dlmalloc, the allocator std uses on wasm32.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ptr::NonNull;

use bumplab_core::trace::{Baseline, BaselineOp, Cost, OpKind, Shape, Trace};

use crate::roots::by_prim_size;

use super::{counted, layout, mib, requested_total, REAL_LIMIT};
use crate::fresh_heap::{with_fresh_dlmalloc, Dlmalloc, Pages};

/// What the baseline runs on: dlmalloc, the allocator std uses on wasm32,
/// on a heap of its own that starts fresh every run (see `fresh_heap`).
pub const GLOBAL: &str = if cfg!(target_arch = "wasm32") {
    "Rust's global allocator (dlmalloc, wasm32)"
} else {
    "dlmalloc (the wasm32 global allocator, run natively)"
};

/// # Safety
/// `layout.size()` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_alloc(dl: &mut Dlmalloc<Pages>, layout: Layout) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.malloc(layout.size(), layout.align()) }
}

/// `alloc T` through the global allocator: `Layout::new::<T>()`, a constant
/// (`Box::new` of a `T`).
///
/// # Safety
/// `SIZE` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_alloc_typed<const SIZE: u64>(dl: &mut Dlmalloc<Pages>) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.malloc(SIZE as usize, SIZE as usize) }
}

/// `alloc [T; n]`: the element's alignment `ALIGN` is a constant.
///
/// # Safety
/// `size` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_alloc_array<const ALIGN: u64>(
    dl: &mut Dlmalloc<Pages>,
    size: usize,
) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.malloc(size, ALIGN as usize) }
}

/// Resizing a block whose alignment `ALIGN` is a constant (a `Vec<T>`).
///
/// # Safety
/// `ptr` is a live block of `dl` of `old_size` bytes aligned to `ALIGN`, and
/// `new_size` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_realloc_array<const ALIGN: u64>(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
    old_size: usize,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.realloc(ptr, old_size, ALIGN as usize, new_size) }
}

/// # Safety
/// `ptr` is a live block of `dl` with `T`'s layout (`SIZE` bytes aligned to `SIZE`).
#[inline(never)]
unsafe fn bumplab_measure_global_free_typed<const SIZE: u64>(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
) {
    // SAFETY: the caller's contract.
    unsafe { dl.free(ptr, SIZE as usize, SIZE as usize) }
}

/// # Safety
/// `ptr` is a live block of `dl` of `size` bytes aligned to `ALIGN`.
#[inline(never)]
unsafe fn bumplab_measure_global_free_array<const ALIGN: u64>(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
    size: usize,
) {
    // SAFETY: the caller's contract.
    unsafe { dl.free(ptr, size, ALIGN as usize) }
}

/// Allocates `l` with what a caller of `shape` knows of it at compile time.
///
/// # Safety
/// `l.size()` is not 0, and `shape` describes `l`.
unsafe fn alloc_shaped(
    dl: &mut Dlmalloc<Pages>,
    l: Layout,
    shape: Shape,
    word: u64,
    metered: bool,
) -> (*mut u8, Option<Cost>) {
    // SAFETY: the caller's contract.
    unsafe {
        match (shape.known_size(word), shape.known_align(word)) {
            (Some(s), _) => {
                by_prim_size!(s, S => counted(metered, || bumplab_measure_global_alloc_typed::<S>(dl)))
            }
            (None, Some(a)) => {
                by_prim_size!(a, A => counted(metered, || bumplab_measure_global_alloc_array::<A>(dl, l.size())))
            }
            (None, None) => counted(metered, || bumplab_measure_global_alloc(dl, l)),
        }
    }
}

/// Frees `ptr`, a block of layout `l`, with what a caller of `shape` knows.
///
/// # Safety
/// `ptr` is a live block of `dl` with `l`, which `shape` describes.
unsafe fn free_shaped(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
    l: Layout,
    shape: Shape,
    word: u64,
    metered: bool,
) -> Option<Cost> {
    // SAFETY: the caller's contract.
    unsafe {
        match (shape.known_size(word), shape.known_align(word)) {
            (Some(s), _) => by_prim_size!(s, S => counted(metered, || bumplab_measure_global_free_typed::<S>(dl, ptr))).1,
            (None, Some(a)) => by_prim_size!(a, A => counted(metered, || bumplab_measure_global_free_array::<A>(dl, ptr, l.size()))).1,
            (None, None) => counted(metered, || bumplab_measure_global_free(dl, ptr, l)).1,
        }
    }
}

/// # Safety
/// `ptr` is a live block of `dl` with `layout`, and `new_size` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_realloc(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
    layout: Layout,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.realloc(ptr, layout.size(), layout.align(), new_size) }
}

/// # Safety
/// `ptr` is a live block of `dl` with `layout`.
#[inline(never)]
unsafe fn bumplab_measure_global_free(dl: &mut Dlmalloc<Pages>, ptr: *mut u8, layout: Layout) {
    // SAFETY: the caller's contract.
    unsafe { dl.free(ptr, layout.size(), layout.align()) }
}

/// Frees every block of `blocks`, in order: a reset or restore.
///
/// # Safety
/// Each is a live block of `dl` with its layout.
#[inline(never)]
unsafe fn bumplab_measure_global_free_all(
    dl: &mut Dlmalloc<Pages>,
    blocks: &[(NonNull<u8>, Layout)],
) {
    for &(ptr, layout) in blocks {
        // SAFETY: the caller's contract.
        unsafe { dl.free(ptr.as_ptr(), layout.size(), layout.align()) }
    }
}

/// Frees the listed blocks of `live` (those of them still there), newest
/// first, as one counted op.
fn free_many(
    dl: &mut Dlmalloc<Pages>,
    live: &mut HashMap<u32, (NonNull<u8>, Layout)>,
    which: impl Iterator<Item = u32>,
    metered: bool,
) -> Option<Cost> {
    let mut ids: Vec<u32> = which.filter(|id| live.contains_key(id)).collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.dedup();
    let blocks: Vec<(NonNull<u8>, Layout)> = ids.iter().filter_map(|id| live.remove(id)).collect();
    // SAFETY: each came from the global allocator with its layout and was
    // removed from `live`, so it is freed once.
    let ((), cost) = counted(metered, || unsafe {
        bumplab_measure_global_free_all(dl, &blocks)
    });
    cost
}

/// The trace's allocation sizes through the global allocator (`std::alloc`,
/// dlmalloc on wasm32), each call counted like a real op:
///
/// * alloc, realloc, free: the same `Layout`s. A zero-size request never
///   reaches a global allocator (Rust hands out a dangling pointer), so it
///   has no cost; a realloc from or to size 0 is an alloc or a free.
/// * reset and restore: every block the op reclaims (a reset: every live
///   block) is freed, newest first, counted as one op; a checkpoint costs
///   nothing here, so it has no cost.
pub fn baseline(trace: &Trace, metered: bool) -> Baseline {
    let mut b = Baseline {
        allocator: GLOBAL.to_string(),
        unavailable: None,
        ops: vec![BaselineOp::default(); trace.ops.len()],
    };
    let requested = requested_total(trace);
    if requested > REAL_LIMIT {
        b.unavailable = Some(format!(
            "the program asks for {} in total; real runs are limited to {}",
            mib(requested),
            mib(REAL_LIMIT)
        ));
        return b;
    }
    // dlmalloc's own overhead (headers, alignment, its top chunk) on top of
    // what is asked, with room to spare; blocks are not freed at the end:
    // the whole heap is dropped.
    let bytes = (2 * requested + (4 << 20) + 64 * trace.ops.len() as u64).min(2 * REAL_LIMIT);
    let word = trace.target.usize_bytes();
    let ran = with_fresh_dlmalloc(bytes as usize, |dl| {
        let mut live: HashMap<u32, (NonNull<u8>, Layout)> = HashMap::new();
        for (i, op) in trace.ops.iter().enumerate() {
            crate::recorder::at(crate::recorder::Column::Baseline, i);
            let shape = op.shape.unwrap_or(Shape::Layout);
            let cost = match op.kind {
                _ if op.failed => None,
                OpKind::Alloc => {
                    let Some(l) = layout(op.size.unwrap_or(0), op.align.unwrap_or(1)) else {
                        continue;
                    };
                    if l.size() == 0 {
                        continue;
                    }
                    // SAFETY: the size is not 0, and the op's shape is its layout's.
                    let (p, cost) = unsafe { alloc_shaped(dl, l, shape, word, metered) };
                    let Some(p) = NonNull::new(p) else {
                        b.unavailable =
                            Some(format!("op {i}: the global allocator is out of memory"));
                        break;
                    };
                    live.insert(i as u32, (p, l));
                    cost
                }
                OpKind::Realloc => {
                    let old = op.target_op.and_then(|t| live.remove(&t));
                    let align = op.align.unwrap_or(1);
                    let Some(new) = layout(op.size.unwrap_or(0), align) else {
                        continue;
                    };
                    let (p, cost) = match old {
                        // SAFETY: a live block with its layout, freed once;
                        // the block's shape is the resize's.
                        Some((ptr, l)) if new.size() == 0 => (core::ptr::null_mut(), unsafe {
                            free_shaped(dl, ptr.as_ptr(), l, shape, word, metered)
                        }),
                        // SAFETY: a live block with its layout; the size is not 0.
                        Some((ptr, l)) => match shape.known_align(word) {
                            Some(a) => by_prim_size!(a, A => counted(metered, || unsafe {
                                bumplab_measure_global_realloc_array::<A>(dl, ptr.as_ptr(), l.size(), new.size())
                            })),
                            None => counted(metered, || unsafe {
                                bumplab_measure_global_realloc(dl, ptr.as_ptr(), l, new.size())
                            }),
                        },
                        None if new.size() == 0 => continue,
                        // SAFETY: the size is not 0.
                        None => unsafe { alloc_shaped(dl, new, shape, word, metered) },
                    };
                    if new.size() > 0 {
                        let Some(p) = NonNull::new(p) else {
                            b.unavailable =
                                Some(format!("op {i}: the global allocator is out of memory"));
                            break;
                        };
                        live.insert(i as u32, (p, new));
                    }
                    cost
                }
                OpKind::Free => match op.target_op.and_then(|t| live.remove(&t)) {
                    // SAFETY: a live block with its layout, freed once.
                    Some((ptr, l)) => unsafe {
                        free_shaped(dl, ptr.as_ptr(), l, shape, word, metered)
                    },
                    None => None,
                },
                OpKind::Reset => {
                    let all: Vec<u32> = live.keys().copied().collect();
                    free_many(dl, &mut live, all.into_iter(), metered)
                }
                OpKind::Restore => free_many(dl, &mut live, op.reclaimed.iter().copied(), metered),
                OpKind::Checkpoint => None,
            };
            b.ops[i].cost = cost;
        }
    });
    if ran.is_none() {
        b.unavailable = Some(format!("no room for a {} heap to run it on", mib(bytes)));
    }
    if b.unavailable.is_some() {
        b.ops.iter_mut().for_each(|o| o.cost = None);
    }
    b
}
