//! The real crates behind one interface, for the generic measurement roots.

use std::alloc::Layout;
use std::ptr::NonNull;

use bump_scope::alloc::Global;
use bump_scope::settings::{BumpAllocatorSettings, True};

use super::replay::ChunkTable;
use super::{BUMPALO, BUMP_SCOPE};

/// A real bump allocator, as far as the replay needs it. The methods are
/// `#[inline(always)]` forwarders, so a root's body is the crate's code.
pub(super) trait RealBump {
    type Checkpoint: Copy;
    const CRATE: &'static str;
    /// Whether a realloc from size 0 is a fresh allocation (bumpalo's
    /// `realloc`); otherwise it grows like any other block.
    const ALLOC_FROM_ZERO: bool;
    /// Whether `new` (larger or not) is reached with `grow`; the rest shrink.
    fn grows(old: Layout, new: Layout) -> bool;
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `old`, and `new`
    /// is no smaller.
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `old`, and `new`
    /// is no larger.
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `layout`.
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout);
    fn reset(&mut self);
    /// `None`: the crate has no checkpoints.
    fn checkpoint(&self) -> Option<Self::Checkpoint>;
    /// # Safety
    /// `cp` came from this allocator, with no reset and no restore to an
    /// earlier checkpoint since.
    unsafe fn restore(&self, cp: Self::Checkpoint);
    /// The chunks owned now, as `(first usable byte, end of usable bytes)`;
    /// `known` are the chunks seen so far, for crates that tell only the
    /// current chunk's start.
    fn chunks(&self, known: &ChunkTable) -> Vec<(usize, usize)>;
}

pub(super) struct Bumpalo<const M: usize>(pub(super) bumpalo::Bump<M>);

impl<const M: usize> RealBump for Bumpalo<M> {
    type Checkpoint = ();
    const CRATE: &'static str = BUMPALO;
    const ALLOC_FROM_ZERO: bool = true;
    fn grows(old: Layout, new: Layout) -> bool {
        new.size() > old.size()
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        allocator_api2::alloc::Allocator::allocate(&&self.0, layout)
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::grow(&&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::shrink(&&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::deallocate(&&self.0, ptr, layout) }
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset()
    }
    fn checkpoint(&self) -> Option<()> {
        None
    }
    unsafe fn restore(&self, _: ()) {}
    fn chunks(&self, known: &ChunkTable) -> Vec<(usize, usize)> {
        // SAFETY: only addresses are read; nothing allocates meanwhile.
        let raw: Vec<(usize, usize)> = unsafe { self.0.iter_allocated_chunks_raw() }
            .map(|(ptr, len)| (ptr as usize, ptr as usize + len))
            .collect();
        // Newest (current) first: its usable bytes start `chunk_capacity()`
        // below the bump pointer. Every chunk is current right after the op
        // that made it, so the others are known by then.
        raw.iter()
            .enumerate()
            .filter_map(|(i, &(ptr, end))| {
                if i == 0 {
                    Some((ptr - self.0.chunk_capacity(), end))
                } else {
                    known.start_of(end).map(|start| (start, end))
                }
            })
            .collect()
    }
}

pub(super) struct BumpScope<S: BumpAllocatorSettings>(pub(super) bump_scope::Bump<Global, S>);

impl<S: BumpAllocatorSettings<GuaranteedAllocated = True>> RealBump for BumpScope<S> {
    type Checkpoint = bump_scope::Checkpoint;
    const CRATE: &'static str = BUMP_SCOPE;
    const ALLOC_FROM_ZERO: bool = false;
    fn grows(old: Layout, new: Layout) -> bool {
        new.size() > old.size()
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        bump_scope::alloc::Allocator::allocate(&self.0, layout)
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::grow(&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::shrink(&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::deallocate(&self.0, ptr, layout) }
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset()
    }
    #[inline(always)]
    fn checkpoint(&self) -> Option<bump_scope::Checkpoint> {
        Some(self.0.checkpoint())
    }
    #[inline(always)]
    unsafe fn restore(&self, cp: bump_scope::Checkpoint) {
        // SAFETY: the caller's contract is `reset_to`'s.
        unsafe { self.0.reset_to(cp) }
    }
    fn chunks(&self, _: &ChunkTable) -> Vec<(usize, usize)> {
        self.0
            .stats()
            .small_to_big()
            .map(|c| {
                (
                    c.content_start().as_ptr() as usize,
                    c.content_end().as_ptr() as usize,
                )
            })
            .collect()
    }
}

// The measured roots: one op each, generic over the crate (and through it
// MIN_ALIGN and direction), so each instantiation is the crate's code for
// exactly that configuration.

#[inline(never)]
pub(super) fn bumplab_measure_real_alloc<R: RealBump>(
    r: &R,
    layout: Layout,
) -> Option<NonNull<u8>> {
    r.allocate(layout)
}

/// A primitive type's layout: `SIZE` bytes aligned to `SIZE`, a constant.
pub(super) const fn typed_layout<const SIZE: u64>() -> Layout {
    match Layout::from_size_align(SIZE as usize, SIZE as usize) {
        Ok(l) => l,
        Err(_) => panic!("a primitive type's size is a power of two"),
    }
}

/// `alloc T`: the layout is `T`'s, a constant, as in
/// `alloc_layout(Layout::new::<T>())` (the model's roots take the same).
#[inline(never)]
pub(super) fn bumplab_measure_real_alloc_typed<R: RealBump, const SIZE: u64>(
    r: &R,
) -> Option<NonNull<u8>> {
    r.allocate(const { typed_layout::<SIZE>() })
}

/// `alloc [T; n]`: the element's alignment `ALIGN` is a constant.
///
/// # Safety
/// `size` rounded up to `ALIGN` does not exceed `isize::MAX` (the engine
/// checked the layout).
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_alloc_array<R: RealBump, const ALIGN: u64>(
    r: &R,
    size: usize,
) -> Option<NonNull<u8>> {
    // SAFETY: a power of two, and the caller's contract for the size.
    r.allocate(unsafe { Layout::from_size_align_unchecked(size, ALIGN as usize) })
}

/// # Safety
/// As [`RealBump::grow`], with the block aligned to `ALIGN`.
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_grow_array<R: RealBump, const ALIGN: u64>(
    r: &R,
    ptr: NonNull<u8>,
    old_size: usize,
    new_size: usize,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe {
        let old = Layout::from_size_align_unchecked(old_size, ALIGN as usize);
        let new = Layout::from_size_align_unchecked(new_size, ALIGN as usize);
        r.grow(ptr, old, new)
    }
}

/// # Safety
/// As [`RealBump::shrink`], with the block aligned to `ALIGN`.
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_shrink_array<R: RealBump, const ALIGN: u64>(
    r: &R,
    ptr: NonNull<u8>,
    old_size: usize,
    new_size: usize,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe {
        let old = Layout::from_size_align_unchecked(old_size, ALIGN as usize);
        let new = Layout::from_size_align_unchecked(new_size, ALIGN as usize);
        r.shrink(ptr, old, new)
    }
}

/// # Safety
/// As [`RealBump::grow`].
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_grow<R: RealBump>(
    r: &R,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe { r.grow(ptr, old, new) }
}

/// # Safety
/// As [`RealBump::shrink`].
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_shrink<R: RealBump>(
    r: &R,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe { r.shrink(ptr, old, new) }
}

/// # Safety
/// As [`RealBump::deallocate`].
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_free<R: RealBump>(
    r: &R,
    ptr: NonNull<u8>,
    layout: Layout,
) {
    // SAFETY: the caller's contract.
    unsafe { r.deallocate(ptr, layout) }
}

/// # Safety
/// As [`RealBump::deallocate`], with the block of `SIZE`'s typed layout.
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_free_typed<R: RealBump, const SIZE: u64>(
    r: &R,
    ptr: NonNull<u8>,
) {
    // SAFETY: the caller's contract.
    unsafe { r.deallocate(ptr, const { typed_layout::<SIZE>() }) }
}

/// # Safety
/// As [`RealBump::deallocate`], with the block aligned to `ALIGN`.
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_free_array<R: RealBump, const ALIGN: u64>(
    r: &R,
    ptr: NonNull<u8>,
    size: usize,
) {
    // SAFETY: the caller's contract.
    unsafe { r.deallocate(ptr, Layout::from_size_align_unchecked(size, ALIGN as usize)) }
}

#[inline(never)]
pub(super) fn bumplab_measure_real_reset<R: RealBump>(r: &mut R) {
    r.reset()
}

#[inline(never)]
pub(super) fn bumplab_measure_real_checkpoint<R: RealBump>(r: &R) -> Option<R::Checkpoint> {
    r.checkpoint()
}

/// # Safety
/// As [`RealBump::restore`].
#[inline(never)]
pub(super) unsafe fn bumplab_measure_real_restore<R: RealBump>(r: &R, cp: R::Checkpoint) {
    // SAFETY: the caller's contract.
    unsafe { r.restore(cp) }
}
