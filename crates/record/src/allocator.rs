//! [`Recorded`]: an `allocator-api2` [`Allocator`] that forwards every call
//! to an arena (or any allocator) and logs it.

use core::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator, Layout};

use crate::call::Call;
use crate::recorder::Recorder;

/// An arena whose allocations are logged into a [`Recorder`].
///
/// `A` is the arena itself: anything whose shared reference is an
/// [`Allocator`], as `bumpalo::Bump` (feature `allocator-api2`),
/// `bump_scope::Bump` (feature `allocator-api2-02`) and
/// `allocator_api2::alloc::Global` are. Use `&recorded` wherever the code
/// passed `&bump` as an allocator (`allocator_api2::vec::Vec::new_in`,
/// `Box::new_in`, hashbrown's `_in` constructors):
///
/// ```
/// use allocator_api2::vec::Vec;
/// use bumplab_record::{Recorded, Recorder};
///
/// let recorder = Recorder::new();
/// let bump = Recorded::new(bumpalo::Bump::new(), &recorder);
/// let mut v = Vec::new_in(&bump);
/// v.extend_from_slice(&[1u32, 2, 3]);
/// drop(v);
/// let program = recorder.program("the doc example");
/// assert_eq!(program.ops, 2); // an alloc of 12 bytes, then its free
/// ```
///
/// Only calls through the `Allocator` trait are seen: an arena's own API
/// (`Bump::alloc`, `bumpalo::collections`) bypasses the wrapper. Reach it
/// with [`Recorded::alloc`], [`Recorded::alloc_str`] and
/// [`Recorded::alloc_slice_copy`], which do the same through the trait.
pub struct Recorded<'r, A> {
    arena: A,
    recorder: &'r Recorder,
}

impl<'r, A> Recorded<'r, A> {
    /// Wraps `arena`, logging into `recorder`.
    pub fn new(arena: A, recorder: &'r Recorder) -> Self {
        Recorded { arena, recorder }
    }

    /// The arena, for what the wrapper does not forward (statistics, chunk
    /// iteration). Allocating through it directly goes unrecorded.
    pub fn arena(&self) -> &A {
        &self.arena
    }

    /// Runs `reset` on the arena and logs a `reset`: every block is gone at
    /// once. For `bumpalo::Bump` and `bump_scope::Bump`:
    /// `recorded.reset_with(|bump| bump.reset())`.
    pub fn reset_with<R>(&mut self, reset: impl FnOnce(&mut A) -> R) -> R {
        let arena = &mut self.arena;
        self.recorder.around(|| reset(arena), |_| Some(Call::Reset))
    }

    /// Unwraps the arena.
    pub fn into_inner(self) -> A {
        self.arena
    }
}

impl<A> Recorded<'_, A>
where
    for<'a> &'a A: Allocator,
{
    /// Moves `value` into the arena, through the recorded `allocate`.
    ///
    /// # Panics
    /// If the arena cannot allocate.
    #[allow(clippy::mut_from_ref)] // each call returns a fresh allocation
    pub fn alloc<T>(&self, value: T) -> &mut T {
        let p = self
            .allocate(Layout::new::<T>())
            .expect("the arena is out of memory")
            .cast::<T>();
        // SAFETY: `p` is a fresh allocation of `T`'s layout, so writing a `T`
        // there is in bounds and aligned, and nothing else refers to it. It
        // lives as long as the arena, which outlives `&self`.
        unsafe {
            p.as_ptr().write(value);
            &mut *p.as_ptr()
        }
    }

    /// Copies `slice` into the arena, through the recorded `allocate`.
    ///
    /// # Panics
    /// If the arena cannot allocate.
    #[allow(clippy::mut_from_ref)] // each call returns a fresh allocation
    pub fn alloc_slice_copy<T: Copy>(&self, slice: &[T]) -> &mut [T] {
        let layout = Layout::for_value(slice);
        let p = self
            .allocate(layout)
            .expect("the arena is out of memory")
            .cast::<T>();
        // SAFETY: `p` is a fresh allocation with the slice's layout, so the
        // copy is in bounds, aligned and does not overlap `slice`.
        unsafe {
            core::ptr::copy_nonoverlapping(slice.as_ptr(), p.as_ptr(), slice.len());
            core::slice::from_raw_parts_mut(p.as_ptr(), slice.len())
        }
    }

    /// Copies `s` into the arena, through the recorded `allocate`.
    ///
    /// # Panics
    /// If the arena cannot allocate.
    #[allow(clippy::mut_from_ref)] // each call returns a fresh allocation
    pub fn alloc_str(&self, s: &str) -> &mut str {
        let bytes = self.alloc_slice_copy(s.as_bytes());
        // SAFETY: the bytes are a copy of a `str`'s, so they are UTF-8.
        unsafe { core::str::from_utf8_unchecked_mut(bytes) }
    }
}

fn addr(p: NonNull<u8>) -> u64 {
    p.as_ptr() as usize as u64
}

fn slice_addr(r: &Result<NonNull<[u8]>, AllocError>) -> Option<u64> {
    r.as_ref().ok().map(|p| addr(p.cast()))
}

// SAFETY: every method forwards to `&A`'s own implementation with the same
// arguments and returns its result unchanged; logging only reads addresses.
unsafe impl<A> Allocator for Recorded<'_, A>
where
    for<'a> &'a A: Allocator,
{
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.recorder.around(
            || (&self.arena).allocate(layout),
            |r| {
                slice_addr(r).map(|addr| Call::Alloc {
                    addr,
                    size: layout.size() as u64,
                    align: layout.align() as u64,
                })
            },
        )
    }

    fn allocate_zeroed(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        self.recorder.around(
            || (&self.arena).allocate_zeroed(layout),
            |r| {
                slice_addr(r).map(|addr| Call::Alloc {
                    addr,
                    size: layout.size() as u64,
                    align: layout.align() as u64,
                })
            },
        )
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        self.recorder.around(
            // SAFETY: the caller's contract for `deallocate`, passed on.
            || unsafe { (&self.arena).deallocate(ptr, layout) },
            |_| Some(Call::Free { addr: addr(ptr) }),
        )
    }

    unsafe fn grow(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.recorder.around(
            // SAFETY: the caller's contract for `grow`, passed on.
            || unsafe { (&self.arena).grow(ptr, old, new) },
            |r| realloc(ptr, new, r),
        )
    }

    unsafe fn grow_zeroed(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.recorder.around(
            // SAFETY: the caller's contract for `grow_zeroed`, passed on.
            || unsafe { (&self.arena).grow_zeroed(ptr, old, new) },
            |r| realloc(ptr, new, r),
        )
    }

    unsafe fn shrink(
        &self,
        ptr: NonNull<u8>,
        old: Layout,
        new: Layout,
    ) -> Result<NonNull<[u8]>, AllocError> {
        self.recorder.around(
            // SAFETY: the caller's contract for `shrink`, passed on.
            || unsafe { (&self.arena).shrink(ptr, old, new) },
            |r| realloc(ptr, new, r),
        )
    }
}

/// A grow or shrink that succeeded; a failed one left the block as it was.
fn realloc(ptr: NonNull<u8>, new: Layout, r: &Result<NonNull<[u8]>, AllocError>) -> Option<Call> {
    slice_addr(r).map(|to| Call::Realloc {
        old: addr(ptr),
        new: to,
        size: new.size() as u64,
        align: new.align() as u64,
    })
}
