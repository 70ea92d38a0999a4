//! The interface between the engine and an allocator model.
//!
//! A model is a chunk policy plus the bump algorithm it uses: it sees only
//! addresses and layouts, as a real allocator does, and gets chunks from the
//! simulated base allocator ([`Heap`]). The engine keeps names, block states
//! and statistics; the model keeps what the real allocator keeps.

use serde::Serialize;

use crate::algorithms::Direction;
use crate::heap::Heap;
use crate::probe::Probe;
use crate::word::Word;

/// Size and alignment of a request; `align` is a power of two and the pair
/// satisfies `Layout::from_size_align` on the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout<W> {
    pub size: W,
    pub align: W,
}

/// Why a model refused a request. The discriminants are the codes
/// [`Allocated`] carries in place of an address: four in a row, just
/// below [`crate::heap::HEAP_BASE`], so one compare tells them apart from
/// every address.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AllocError {
    /// The reference's own size arithmetic overflows on this request: Zig's
    /// ArenaAllocator panics there ("integer overflow") in a safety-checked
    /// build.
    Overflow = 0xfffc,
    /// A fixed buffer is full and the model does not grow.
    Full = 0xfffd,
    /// The simulated base allocator has no room for the chunk.
    HeapExhausted = 0xfffe,
    /// The C++ arena's `std::align` failed and it threw `std::bad_alloc`.
    BadAlloc = 0xffff,
}

/// What [`Model::alloc`] and [`Model::realloc`] return: the block's address
/// or, on failure, the [`AllocError`]'s code, in ONE machine word.
///
/// A `Result<W, AllocError>` is three scalars (tag, error, address), which
/// Rust returns through memory on x86-64 and wasm32: the callee stores the
/// address and the tag, the caller loads them back. One word comes back in a
/// register, as the real crates' `Result<NonNull<[u8]>, AllocError>` (whose
/// error is zero-sized) does. No address is a code: the simulated heap
/// hands out nothing under [`crate::heap::HEAP_BASE`] (0x10000), and the
/// only addresses below it, the dangling pointers of zero-size requests
/// (their alignment), are powers of two; the codes, 0xfffc to 0xffff, are not.
/// Models compute a `Result` and convert it at the trait boundary
/// (`.into()`, or [`Failure::result`] in `alloc_with`), which the optimiser
/// folds away; callers that want the error decode it with
/// [`Allocated::result`]. A caller that never wants it (the typed,
/// infallible API) asks `alloc_with` for [`Infallible`] instead, and
/// decodes nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
#[repr(transparent)]
#[must_use]
pub struct Allocated<W>(W);

impl<W: Word> Allocated<W> {
    const FIRST_CODE: u64 = AllocError::Overflow as u64;

    /// Which error, if this is a code (one subtraction and one compare).
    #[inline(always)]
    fn code(self) -> Option<u64> {
        let c = self.0.to_u64().wrapping_sub(Self::FIRST_CODE);
        (c < 4).then_some(c)
    }

    #[inline(always)]
    pub fn ok(addr: W) -> Self {
        debug_assert!(
            Allocated(addr).code().is_none(),
            "an address is never an error code: {addr:?}"
        );
        Allocated(addr)
    }

    /// A failure: out of line and cold, so the fast path's code keeps the
    /// return register for the address instead of loading a code early.
    #[cold]
    #[inline(never)]
    pub fn err(e: AllocError) -> Self {
        Allocated(W::truncate(e as u64))
    }

    /// The address, or why there is none.
    #[inline(always)]
    pub fn result(self) -> Result<W, AllocError> {
        match self.code() {
            None => Ok(self.0),
            Some(0) => Err(AllocError::Overflow),
            Some(1) => Err(AllocError::Full),
            Some(2) => Err(AllocError::HeapExhausted),
            Some(_) => Err(AllocError::BadAlloc),
        }
    }
}

impl<W: Word> From<Result<W, AllocError>> for Allocated<W> {
    #[inline(always)]
    fn from(r: Result<W, AllocError>) -> Self {
        match r {
            Ok(addr) => Allocated::ok(addr),
            Err(e) => Allocated::err(e),
        }
    }
}

impl<W: Word> core::fmt::Debug for Allocated<W> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        self.result().fmt(f)
    }
}

/// What a model's `alloc` hands back, chosen by the caller, as bumpalo and
/// bump-scope write one allocation path generic over fallible and
/// infallible callers: [`Fallible`] returns the [`Allocated`] word (the
/// engine, the allocator API), [`Infallible`] returns the address and makes
/// a failure a cold call that does not return (the typed `alloc(value)`
/// API). The model's code is the same for both; only what happens with its
/// `Result` at the very end differs, so the infallible caller does not test
/// an address for an error code the fast path never produces.
pub trait Failure<W: Word> {
    type Out;
    fn ok(addr: W) -> Self::Out;
    fn err(e: AllocError) -> Self::Out;

    /// The model's `Result`, handed back as this caller wants it.
    #[inline(always)]
    fn result(r: Result<W, AllocError>) -> Self::Out {
        match r {
            Ok(addr) => Self::ok(addr),
            Err(e) => Self::err(e),
        }
    }

    /// A cold slow path's one-word answer, handed back as this caller wants
    /// it: slow paths return [`Allocated`] rather than a `Result`, so the
    /// fast path that calls them needs no stack slot for a returned pair.
    #[inline(always)]
    fn allocated(a: Allocated<W>) -> Self::Out {
        Self::result(a.result())
    }
}

/// Failure comes back as an [`Allocated`] code.
pub enum Fallible {}

impl<W: Word> Failure<W> for Fallible {
    type Out = Allocated<W>;
    #[inline(always)]
    fn ok(addr: W) -> Allocated<W> {
        Allocated::ok(addr)
    }
    #[inline(always)]
    fn err(e: AllocError) -> Allocated<W> {
        Allocated::err(e)
    }
    /// Already the word this caller wants: nothing to decode.
    #[inline(always)]
    fn allocated(a: Allocated<W>) -> Allocated<W> {
        a
    }
}

/// Failure does not return: it panics, as the real crates' infallible
/// `alloc` aborts through a cold out-of-line call.
pub enum Infallible {}

impl<W: Word> Failure<W> for Infallible {
    type Out = W;
    #[inline(always)]
    fn ok(addr: W) -> W {
        addr
    }
    #[inline(always)]
    fn err(e: AllocError) -> W {
        alloc_failed(e)
    }
}

#[cold]
#[inline(never)]
fn alloc_failed(e: AllocError) -> ! {
    panic!("allocation failed: {e:?}")
}

/// Settings every model may read.
#[derive(Clone, Copy, Debug, Default)]
pub struct ModelOptions {
    /// The size the user chose for the model's sizing knob: the usable bytes
    /// of a fixed chunk, a fixed buffer, a slab or the first pool. `None`
    /// means the reference's default. Models that have no such knob ignore it.
    pub capacity: Option<u64>,
    /// Where a model that takes a child allocator gets its chunks (the
    /// engine passes the preset's default when the user chose none).
    /// Models without one ignore it.
    pub child: Child,
}

/// The child allocator of an arena that takes one (zig-arena's setting):
/// what its buffers come from.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Child {
    /// `std.heap.page_allocator`, as Zig programs write it: whole pages on
    /// 64-bit, size classes on wasm32, a buffer grown in place inside what
    /// it reserved ([`crate::models::zig_page`]).
    #[default]
    Page,
    /// The simulated heap, which never resizes in place (as
    /// `std.mem.Allocator.noResize`): every buffer that fills is followed
    /// by a new one.
    Heap,
}

impl Child {
    pub const ALL: [Child; 2] = [Child::Page, Child::Heap];

    /// The name links, files and the CLI use.
    pub fn name(self) -> &'static str {
        match self {
            Child::Page => "page",
            Child::Heap => "heap",
        }
    }

    pub fn parse(name: &str) -> Option<Child> {
        Child::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// An allocator model: what the engine steps, and what the measured exports call.
///
/// Implementations mark `alloc_with`, `realloc` and `free` `#[inline(always)]`
/// (their cold paths apart, `#[inline(never)]`), as the real crates mark
/// their allocation entry points `#[inline]`: each measured root then holds
/// the model's code compiled with what its caller knows (a type's constant
/// layout folds the alignment work away), and a count does not change with
/// how many roots happen to call the same function, which is what decides
/// whether the optimiser inlines a plain function.
pub trait Model<W: Word>: Clone + Sized + 'static {
    /// What `checkpoint` saves and `restore` needs.
    type Checkpoint: Clone + 'static;

    /// Builds the allocator as its constructor does (creating a first chunk
    /// where the real one does so eagerly).
    fn new<P: Probe<W>>(
        heap: &mut Heap<W>,
        opts: &ModelOptions,
        p: &mut P,
    ) -> Result<Self, AllocError>;
    fn direction(&self) -> Direction;
    /// Allocates `layout`; `F` says how a failure comes back (see [`Failure`]).
    fn alloc_with<F: Failure<W>, P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> F::Out;
    /// [`Model::alloc_with`] for a caller that wants the error back: what
    /// the engine steps and the page measures.
    #[inline(always)]
    fn alloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        layout: Layout<W>,
        p: &mut P,
    ) -> Allocated<W> {
        self.alloc_with::<Fallible, P>(heap, layout, p)
    }
    /// Grows or shrinks the block at `addr` to `new_size`, keeping its
    /// alignment; returns its address afterwards.
    fn realloc<P: Probe<W>>(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        p: &mut P,
    ) -> Allocated<W>;
    fn free<P: Probe<W>>(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, p: &mut P);
    fn reset<P: Probe<W>>(&mut self, heap: &mut Heap<W>, p: &mut P);
    fn checkpoint(&self) -> Self::Checkpoint;
    fn restore<P: Probe<W>>(&mut self, heap: &mut Heap<W>, cp: &Self::Checkpoint, p: &mut P);
    /// The bytes in use in chunk `id`, `[lo, hi)`, or `None` once it is freed.
    fn used(&self, id: u32) -> Option<(W, W)>;
    /// The current chunk's bump pointer, if there is a current chunk.
    fn bump_ptr(&self) -> Option<W>;
}
