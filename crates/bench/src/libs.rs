//! The libraries (table columns) behind one duck-typed interface, so each
//! case is written once: the real crates (bumpalo, bump-scope, blink-alloc)
//! as bump-scope's own callgrind benches wrap them, and ours (a core model or a seed algorithm over the
//! fixed chunk) driven through the `Model` trait with `W = u64` and
//! `NoProbe`.
//!
//! Every method is `#[inline(always)]`: the entry functions in `cases.rs`
//! must contain the operation and nothing else.

use core::alloc::Layout;
use core::cell::UnsafeCell;
use core::ptr::NonNull;

use bumplab_core::heap::Heap;
use bumplab_core::model::{self, AllocError, Infallible, Model, ModelOptions};
use bumplab_core::probe::NoProbe;
use bumplab_core::word::Target;

/// What a case needs from a library.
pub trait Lib: Sized {
    /// What `new_in` builds on: nothing for the real crates (they use the
    /// global allocator), the simulated base allocator for ours.
    type Base;
    /// A block's address as the allocator API hands it back.
    type Ptr: Copy;

    /// Made in the setup, outside the measured function.
    fn base() -> Self::Base;
    /// The plain constructor (`warm_up`).
    fn new_in(base: Self::Base) -> Self;
    /// A first chunk of about `capacity` bytes (every case's setup but `warm_up`).
    fn with_capacity(capacity: usize) -> Self;
    /// The typed, infallible `alloc(value)`.
    fn alloc<T: 'static>(&self, value: T) -> impl Sized;
    /// The infallible `alloc_slice_copy(src)`.
    fn alloc_slice_copy<'a, T: Copy>(&'a self, src: &'a [T]) -> impl Sized + 'a;
    /// `Allocator::allocate`.
    fn allocate(&self, layout: Layout) -> impl Sized;
    /// `Allocator::allocate` for the setup: the block's address.
    fn allocate_ptr(&self, layout: Layout) -> Self::Ptr;
    /// `Allocator::grow`.
    ///
    /// # Safety
    /// `ptr` was allocated by `self` with `old`, as the `Allocator` contract says.
    unsafe fn grow(&self, ptr: Self::Ptr, old: Layout, new: Layout) -> impl Sized;
    /// `Allocator::shrink`.
    ///
    /// # Safety
    /// As for `grow`.
    unsafe fn shrink(&self, ptr: Self::Ptr, old: Layout, new: Layout) -> impl Sized;
    /// `Allocator::deallocate`.
    ///
    /// # Safety
    /// As for `grow`.
    unsafe fn deallocate(&self, ptr: Self::Ptr, layout: Layout);
    fn reset(&mut self);
}

// ---------------------------------------------------------------------------
// The real crates.

/// bumpalo 3.20.4 (`Bump<MIN_ALIGN>`), through its allocator-api2 0.2 impl.
pub struct Bumpalo<const MIN_ALIGN: usize>(bumpalo::Bump<MIN_ALIGN>);

impl<const MIN_ALIGN: usize> Lib for Bumpalo<MIN_ALIGN> {
    type Base = ();
    type Ptr = NonNull<u8>;

    fn base() {}
    #[inline(always)]
    fn new_in((): ()) -> Self {
        // As in bump-scope's benches: `with_min_align` is `new` with the
        // MIN_ALIGN parameter (and faster than `new`).
        Self(bumpalo::Bump::with_min_align())
    }
    #[inline(always)]
    fn with_capacity(capacity: usize) -> Self {
        Self(bumpalo::Bump::with_min_align_and_capacity(capacity))
    }
    #[inline(always)]
    fn alloc<T: 'static>(&self, value: T) -> impl Sized {
        self.0.alloc(value)
    }
    #[inline(always)]
    fn alloc_slice_copy<'a, T: Copy>(&'a self, src: &'a [T]) -> impl Sized + 'a {
        self.0.alloc_slice_copy(src)
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> impl Sized {
        allocator_api2::alloc::Allocator::allocate(&&self.0, layout)
    }
    fn allocate_ptr(&self, layout: Layout) -> NonNull<u8> {
        allocator_api2::alloc::Allocator::allocate(&&self.0, layout)
            .expect("setup allocation")
            .cast()
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        allocator_api2::alloc::Allocator::grow(&&self.0, ptr, old, new)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        allocator_api2::alloc::Allocator::shrink(&&self.0, ptr, old, new)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        allocator_api2::alloc::Allocator::deallocate(&&self.0, ptr, layout)
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset();
    }
}

/// bump-scope 2.4.1 (`Bump<Global, BumpSettings<MIN_ALIGN, UP>>`), through
/// its own `Allocator` trait.
pub struct BumpScope<const MIN_ALIGN: usize, const UP: bool>(
    bump_scope::Bump<bump_scope::alloc::Global, bump_scope::settings::BumpSettings<MIN_ALIGN, UP>>,
)
where
    bump_scope::settings::MinimumAlignment<MIN_ALIGN>:
        bump_scope::settings::SupportedMinimumAlignment;

impl<const MIN_ALIGN: usize, const UP: bool> Lib for BumpScope<MIN_ALIGN, UP>
where
    bump_scope::settings::MinimumAlignment<MIN_ALIGN>:
        bump_scope::settings::SupportedMinimumAlignment,
{
    type Base = ();
    type Ptr = NonNull<u8>;

    fn base() {}
    #[inline(always)]
    fn new_in((): ()) -> Self {
        Self(bump_scope::Bump::new())
    }
    #[inline(always)]
    fn with_capacity(capacity: usize) -> Self {
        Self(bump_scope::Bump::with_size(capacity))
    }
    #[inline(always)]
    fn alloc<T: 'static>(&self, value: T) -> impl Sized {
        bump_scope::BumpBox::leak(self.0.alloc(value))
    }
    #[inline(always)]
    fn alloc_slice_copy<'a, T: Copy>(&'a self, src: &'a [T]) -> impl Sized + 'a {
        self.0.alloc_slice_copy(src).into_mut()
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> impl Sized {
        bump_scope::alloc::Allocator::allocate(&self.0, layout)
    }
    fn allocate_ptr(&self, layout: Layout) -> NonNull<u8> {
        bump_scope::alloc::Allocator::allocate(&self.0, layout)
            .expect("setup allocation")
            .cast()
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        bump_scope::alloc::Allocator::grow(&self.0, ptr, old, new)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        bump_scope::alloc::Allocator::shrink(&self.0, ptr, old, new)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        bump_scope::alloc::Allocator::deallocate(&self.0, ptr, layout)
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset();
    }
}

/// blink-alloc 0.4.0 as bump-scope's callgrind benches drive it: its `Blink`
/// front (`put_no_drop`, `copy_slice`) over `BlinkAlloc<Global>`, whose
/// allocator-api2 0.4 `Allocator` impl the allocator-API cases call. It has
/// no minimum-alignment setting, so it only has entries with MIN_ALIGN 1.
pub struct Blink(blink_alloc::Blink);

impl Lib for Blink {
    type Base = ();
    type Ptr = NonNull<u8>;

    fn base() {}
    #[inline(always)]
    fn new_in((): ()) -> Self {
        Self(blink_alloc::Blink::new())
    }
    #[inline(always)]
    fn with_capacity(capacity: usize) -> Self {
        let blink = blink_alloc::Blink::with_chunk_size(capacity);
        // `Blink` makes no chunk until the first allocation; the other
        // crates' `with_capacity` does: one allocation puts it on a par.
        let _ = allocator_api2_04::alloc::Allocator::allocate(
            blink.allocator(),
            Layout::new::<[u64; 2]>(),
        );
        Self(blink)
    }
    #[inline(always)]
    fn alloc<T: 'static>(&self, value: T) -> impl Sized {
        self.0.put_no_drop(value)
    }
    #[inline(always)]
    fn alloc_slice_copy<'a, T: Copy>(&'a self, src: &'a [T]) -> impl Sized + 'a {
        self.0.copy_slice(src)
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> impl Sized {
        allocator_api2_04::alloc::Allocator::allocate(self.0.allocator(), layout)
    }
    fn allocate_ptr(&self, layout: Layout) -> NonNull<u8> {
        allocator_api2_04::alloc::Allocator::allocate(self.0.allocator(), layout)
            .expect("setup allocation")
            .cast()
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        allocator_api2_04::alloc::Allocator::grow(self.0.allocator(), ptr, old, new)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> impl Sized {
        allocator_api2_04::alloc::Allocator::shrink(self.0.allocator(), ptr, old, new)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        allocator_api2_04::alloc::Allocator::deallocate(self.0.allocator(), ptr, layout)
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset();
    }
}

// ---------------------------------------------------------------------------
// Ours.

/// A core model with its simulated base allocator, shared through `&self`
/// as the real crates' `Cell`s are (the cells cost nothing: a bench calls
/// one method at a time, never reentrantly, from one thread).
///
/// What it cannot do, and the tables say so: it writes no bytes (the
/// simulated heap has addresses, not memory), and `Model::realloc` keeps
/// the block's alignment (a request that lowers it is served at the old
/// one, which satisfies it; one that raises it is not offered).
pub struct Ours<M> {
    model: UnsafeCell<M>,
    heap: UnsafeCell<Heap<u64>>,
}

/// Allocation failure of the infallible API: as the real crates do, a
/// cold call that does not return.
#[cold]
#[inline(never)]
fn failed(e: AllocError) -> ! {
    panic!("allocation failed: {e:?}")
}

#[inline(always)]
fn layout(l: Layout) -> model::Layout<u64> {
    model::Layout {
        size: l.size() as u64,
        align: l.align() as u64,
    }
}

impl<M: Model<u64>> Ours<M> {
    #[inline(always)]
    fn build(mut heap: Heap<u64>, opts: ModelOptions) -> Self {
        let model = match M::new(&mut heap, &opts, &mut NoProbe) {
            Ok(m) => m,
            Err(e) => failed(e),
        };
        Ours {
            model: UnsafeCell::new(model),
            heap: UnsafeCell::new(heap),
        }
    }
}

impl<M: Model<u64>> Lib for Ours<M> {
    type Base = Heap<u64>;
    type Ptr = u64;

    fn base() -> Heap<u64> {
        Heap::new(Target::W64)
    }
    #[inline(always)]
    fn new_in(heap: Heap<u64>) -> Self {
        Self::build(heap, ModelOptions::default())
    }
    fn with_capacity(capacity: usize) -> Self {
        Self::build(
            Heap::new(Target::W64),
            ModelOptions {
                capacity: Some(capacity as u64),
                ..ModelOptions::default()
            },
        )
    }
    #[inline(always)]
    fn alloc<T: 'static>(&self, value: T) -> impl Sized {
        // No memory behind the simulated addresses: the value is not written.
        let _ = value;
        let l = Layout::new::<T>();
        // SAFETY: see the type's comment; no other reference is live.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        // The model's own infallible path: a failure is a cold call that
        // does not return, so the address needs no test for an error code.
        m.alloc_with::<Infallible, _>(h, layout(l), &mut NoProbe)
    }
    #[inline(always)]
    fn alloc_slice_copy<'a, T: Copy>(&'a self, src: &'a [T]) -> impl Sized + 'a {
        // The layout as the real crates compute it; the bytes are not copied.
        let l = Layout::for_value(src);
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        // The address and the length, as a slice reference would carry.
        (
            m.alloc_with::<Infallible, _>(h, layout(l), &mut NoProbe),
            src.len(),
        )
    }
    #[inline(always)]
    fn allocate(&self, l: Layout) -> impl Sized {
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        // The model's answer as it returns it, and the length, as the real
        // crates' `NonNull<[u8]>` carries it.
        (m.alloc(h, layout(l), &mut NoProbe), l.size())
    }
    fn allocate_ptr(&self, l: Layout) -> u64 {
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        m.alloc(h, layout(l), &mut NoProbe)
            .result()
            .expect("setup allocation")
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: u64, old: Layout, new: Layout) -> impl Sized {
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        let r = m.realloc(h, ptr, layout(old), new.size() as u64, &mut NoProbe);
        (r, new.size())
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: u64, old: Layout, new: Layout) -> impl Sized {
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        let r = m.realloc(h, ptr, layout(old), new.size() as u64, &mut NoProbe);
        (r, new.size())
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: u64, l: Layout) {
        // SAFETY: as in `alloc`.
        let (m, h) = unsafe { (&mut *self.model.get(), &mut *self.heap.get()) };
        m.free(h, ptr, layout(l), &mut NoProbe)
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.model
            .get_mut()
            .reset(self.heap.get_mut(), &mut NoProbe)
    }
}
