//! The seed-000 bump algorithms, one file each, exactly as the references
//! write them.
//!
//! Each is generic over the target word and a [`Probe`]. The engine steps them
//! with a recorder; the measured wasm exports call the same functions with
//! `NoProbe`. The code view shows these very files.

pub mod bump_down;
pub mod bump_up;
pub mod bump_up_naive;
pub mod min_align_down;
pub mod min_align_up;

use serde::Serialize;

use crate::probe::Probe;
use crate::source::Source;
use crate::word::Word;

/// Which way the bump pointer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
}

/// A bump algorithm over one chunk `[start, end)`, as the fixed-chunk
/// presets use it.
pub trait ChunkBump<W: Word>: Copy + core::fmt::Debug + 'static {
    const DIRECTION: Direction;
    const SOURCE: Source;
    /// Alignment both chunk edges need (the chunk start from the base
    /// allocator, the capacity a multiple of it); 1 when any will do.
    const CHUNK_ALIGN: u64 = 1;
    /// The algorithm's state over an empty chunk.
    fn empty(start: W, end: W) -> Self;
    /// The block's address, or `None` when it does not fit.
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W>;
    fn ptr(&self) -> W;
    fn set_ptr(&mut self, ptr: W);
}

impl<W: Word> ChunkBump<W> for bump_down::BumpDown<W> {
    const DIRECTION: Direction = Direction::Down;
    const SOURCE: Source = Source::BumpDown;
    fn empty(start: W, end: W) -> Self {
        bump_down::BumpDown { start, ptr: end }
    }
    #[inline(always)]
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        bump_down::BumpDown::alloc(self, size, align, p)
    }
    fn ptr(&self) -> W {
        self.ptr
    }
    fn set_ptr(&mut self, ptr: W) {
        self.ptr = ptr;
    }
}

impl<W: Word> ChunkBump<W> for bump_up_naive::BumpUpNaive<W> {
    const DIRECTION: Direction = Direction::Up;
    const SOURCE: Source = Source::BumpUpNaive;
    fn empty(start: W, end: W) -> Self {
        bump_up_naive::BumpUpNaive { ptr: start, end }
    }
    #[inline(always)]
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        bump_up_naive::BumpUpNaive::alloc(self, size, align, p)
    }
    fn ptr(&self) -> W {
        self.ptr
    }
    fn set_ptr(&mut self, ptr: W) {
        self.ptr = ptr;
    }
}

impl<W: Word> ChunkBump<W> for bump_up::BumpUp<W> {
    const DIRECTION: Direction = Direction::Up;
    const SOURCE: Source = Source::BumpUp;
    fn empty(start: W, end: W) -> Self {
        bump_up::BumpUp { ptr: start, end }
    }
    #[inline(always)]
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        bump_up::BumpUp::alloc(self, size, align, p)
    }
    fn ptr(&self) -> W {
        self.ptr
    }
    fn set_ptr(&mut self, ptr: W) {
        self.ptr = ptr;
    }
}

impl<W: Word, const MIN_ALIGN: u64> ChunkBump<W> for min_align_up::MinAlignUp<W, MIN_ALIGN> {
    const DIRECTION: Direction = Direction::Up;
    const SOURCE: Source = Source::MinAlignUp;
    const CHUNK_ALIGN: u64 = MIN_ALIGN;
    fn empty(start: W, end: W) -> Self {
        min_align_up::MinAlignUp { ptr: start, end }
    }
    #[inline(always)]
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        min_align_up::MinAlignUp::alloc(self, size, align, p)
    }
    fn ptr(&self) -> W {
        self.ptr
    }
    fn set_ptr(&mut self, ptr: W) {
        self.ptr = ptr;
    }
}

impl<W: Word, const MIN_ALIGN: u64> ChunkBump<W> for min_align_down::MinAlignDown<W, MIN_ALIGN> {
    const DIRECTION: Direction = Direction::Down;
    const SOURCE: Source = Source::MinAlignDown;
    const CHUNK_ALIGN: u64 = MIN_ALIGN;
    fn empty(start: W, end: W) -> Self {
        min_align_down::MinAlignDown { start, ptr: end }
    }
    #[inline(always)]
    fn alloc<P: Probe<W>>(&mut self, size: W, align: W, p: &mut P) -> Option<W> {
        min_align_down::MinAlignDown::alloc(self, size, align, p)
    }
    fn ptr(&self) -> W {
        self.ptr
    }
    fn set_ptr(&mut self, ptr: W) {
        self.ptr = ptr;
    }
}
