//! The model's type erased: the engine drives every model through one
//! vtable of its recording methods.

use std::any::Any;

use crate::heap::Heap;
use crate::model::{Allocated, Layout, Model};
use crate::probe::Recorder;
use crate::word::Word;

/// A model as the engine drives it: the recording versions of its methods
/// behind one vtable. The engine is by far the largest code in the module;
/// written against this trait it is compiled once per target word instead of
/// once per preset and minimum alignment, while each model's own methods stay
/// monomorphic (and the measured `NoProbe` entry points never come here).
pub(super) trait Recording<W: Word> {
    fn alloc(&mut self, heap: &mut Heap<W>, layout: Layout<W>, rec: &mut Recorder) -> Allocated<W>;
    fn realloc(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        rec: &mut Recorder,
    ) -> Allocated<W>;
    fn free(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, rec: &mut Recorder);
    fn reset(&mut self, heap: &mut Heap<W>, rec: &mut Recorder);
    fn checkpoint(&self) -> Box<dyn Any>;
    /// `cp` is what this model's `checkpoint` returned.
    fn restore(&mut self, heap: &mut Heap<W>, cp: &dyn Any, rec: &mut Recorder);
    fn used(&self, id: u32) -> Option<(W, W)>;
    fn bump_ptr(&self) -> Option<W>;
    /// A copy of the model, for the engine's snapshots.
    fn boxed_clone(&self) -> Box<dyn Recording<W>>;
}

impl<W: Word, M: Model<W>> Recording<W> for M {
    fn alloc(&mut self, heap: &mut Heap<W>, layout: Layout<W>, rec: &mut Recorder) -> Allocated<W> {
        Model::alloc(self, heap, layout, rec)
    }
    fn realloc(
        &mut self,
        heap: &mut Heap<W>,
        addr: W,
        old: Layout<W>,
        new_size: W,
        rec: &mut Recorder,
    ) -> Allocated<W> {
        Model::realloc(self, heap, addr, old, new_size, rec)
    }
    fn free(&mut self, heap: &mut Heap<W>, addr: W, layout: Layout<W>, rec: &mut Recorder) {
        Model::free(self, heap, addr, layout, rec)
    }
    fn reset(&mut self, heap: &mut Heap<W>, rec: &mut Recorder) {
        Model::reset(self, heap, rec)
    }
    fn checkpoint(&self) -> Box<dyn Any> {
        Box::new(Model::checkpoint(self))
    }
    fn restore(&mut self, heap: &mut Heap<W>, cp: &dyn Any, rec: &mut Recorder) {
        let cp = cp
            .downcast_ref::<M::Checkpoint>()
            .expect("a checkpoint comes from the model that restores it");
        Model::restore(self, heap, cp, rec)
    }
    fn used(&self, id: u32) -> Option<(W, W)> {
        Model::used(self, id)
    }
    fn bump_ptr(&self) -> Option<W> {
        Model::bump_ptr(self)
    }
    fn boxed_clone(&self) -> Box<dyn Recording<W>> {
        Box::new(self.clone())
    }
}
