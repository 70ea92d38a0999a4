//! Replaying a trace's ops on a model so the page can count what each op
//! executes.
//!
//! The replay is generic over the model (one copy per preset instantiation,
//! chosen once by `presets::visit`) and calls the `bumplab_measure_*` roots
//! of `roots.rs` directly. `bumplab-meter` instruments those roots and what
//! they can call, nothing else, and the counters are read immediately before
//! and after each root call. So an op's count is the root's own code: the
//! model's `alloc`/`realloc`/... with `NoProbe` (the same source the engine
//! steps with a recorder, the recording compiled away). The replay around
//! it (building the `Layout`, keeping checkpoints in a list, comparing the
//! address) runs between the readings' windows and is never counted, and the
//! root's call instruction itself belongs to its (uninstrumented) caller.

use bumplab_core::heap::Heap;
use bumplab_core::model::{Allocated, Layout, Model, ModelOptions};
use bumplab_core::presets::{self, PresetId, PresetVisitor};
use bumplab_core::probe::NoProbe;
use bumplab_core::trace::{Cost, Op, OpKind, Shape, Trace};
use bumplab_core::word::Word;

use crate::meter;
use crate::recorder::{self, Column};
use crate::replay_alloc;
use crate::roots::*;

/// Why a replay gave no costs: the replayed model did something the trace
/// does not say it did. The simulated heap is deterministic, so this is a
/// bug; the page then shows no costs rather than costs of another run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diverged(pub String);

/// Counts one root call: the counters are read right before and right after
/// `call`, with the replay region switched on around it (see `replay_alloc`).
#[inline(always)]
fn counted<T>(call: impl FnOnce() -> T) -> (T, Cost) {
    replay_alloc::measured(|| {
        let before = meter::now();
        recorder::start();
        let out = call();
        recorder::stop();
        (out, meter::since(before))
    })
}

fn layout<W: Word>(size: u64, align: u64) -> Layout<W> {
    Layout {
        size: W::truncate(size),
        align: W::truncate(align),
    }
}

/// The op that placed the block `op` acts on.
fn target_of<'t>(trace: &'t Trace, op: &Op) -> Option<&'t Op> {
    op.target_op.and_then(|i| trace.ops.get(i as usize))
}

struct Replay<'t> {
    trace: &'t Trace,
    capacity: Option<u64>,
}

impl PresetVisitor for Replay<'_> {
    type Out = Result<Vec<Cost>, Diverged>;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out {
        replay::<W, M>(self.trace, self.capacity)
    }
    fn not_built(self, preset: PresetId) -> Self::Out {
        Err(Diverged(format!(
            "{} is not built into this module",
            preset.name()
        )))
    }
}

/// Each op of `trace` on a fresh `M`, counted. In a module that was not
/// metered every cost is zero, and the addresses are still checked.
fn replay<W: Word, M: Model<W>>(
    trace: &Trace,
    capacity: Option<u64>,
) -> Result<Vec<Cost>, Diverged> {
    let opts = ModelOptions {
        capacity,
        child: trace.program.child.unwrap_or_default(),
    };
    // The heap's and the model's lists start in the replay region, at the
    // same place every pass, so growing them inside a counted call copies
    // the same way whatever the module did before (see `replay_alloc`).
    let (mut heap, model) = replay_alloc::measured(|| {
        let mut heap = Heap::<W>::new(trace.target);
        let model = M::new(&mut heap, &opts, &mut NoProbe);
        (heap, model)
    });
    let mut model = model.map_err(|e| Diverged(format!("the model could not be built: {e:?}")))?;
    let mut saved: Vec<(&str, M::Checkpoint)> = Vec::new();
    let mut costs = Vec::with_capacity(trace.ops.len());
    for (i, op) in trace.ops.iter().enumerate() {
        recorder::at(Column::Model, i);
        let size = op.size.unwrap_or(0);
        let align = op.align.unwrap_or(1);
        let word = trace.target.usize_bytes();
        let shape = op.shape.unwrap_or(Shape::Layout);
        let (landed, cost) = match op.kind {
            OpKind::Alloc => {
                let (r, cost) = match (shape.known_size(word), shape.known_align(word)) {
                    (Some(s), _) => by_prim_size!(s, S => counted(|| {
                        bumplab_measure_alloc_typed::<W, M, S>(&mut model, &mut heap)
                    })),
                    (None, Some(a)) => {
                        let size = W::truncate(size);
                        by_prim_size!(a, A => counted(|| {
                            bumplab_measure_alloc_array::<W, M, A>(&mut model, &mut heap, size)
                        }))
                    }
                    (None, None) => {
                        let layout = layout::<W>(size, align);
                        counted(|| bumplab_measure_alloc(&mut model, &mut heap, layout))
                    }
                };
                (Some(r), cost)
            }
            OpKind::Realloc => {
                let old = target_of(trace, op);
                let addr = W::truncate(old.and_then(|o| o.address).unwrap_or(0));
                let old_size = old.and_then(|o| o.size).unwrap_or(0);
                let new_size = W::truncate(size);
                let (r, cost) = match shape.known_align(word) {
                    Some(a) => {
                        let old_size = W::truncate(old_size);
                        by_prim_size!(a, A => counted(|| {
                            bumplab_measure_realloc_array::<W, M, A>(
                                &mut model, &mut heap, addr, old_size, new_size,
                            )
                        }))
                    }
                    None => {
                        let old = layout::<W>(old_size, align);
                        counted(|| {
                            bumplab_measure_realloc(&mut model, &mut heap, addr, old, new_size)
                        })
                    }
                };
                (Some(r), cost)
            }
            OpKind::Free => {
                let align = target_of(trace, op).and_then(|o| o.align).unwrap_or(1);
                let addr = W::truncate(op.address.unwrap_or(0));
                let ((), cost) = match (shape.known_size(word), shape.known_align(word)) {
                    (Some(s), _) => by_prim_size!(s, S => counted(|| {
                        bumplab_measure_free_typed::<W, M, S>(&mut model, &mut heap, addr)
                    })),
                    (None, Some(a)) => {
                        let size = W::truncate(size);
                        by_prim_size!(a, A => counted(|| {
                            bumplab_measure_free_array::<W, M, A>(&mut model, &mut heap, addr, size)
                        }))
                    }
                    (None, None) => {
                        let layout = layout::<W>(size, align);
                        counted(|| bumplab_measure_free(&mut model, &mut heap, addr, layout))
                    }
                };
                (None, cost)
            }
            OpKind::Reset => {
                let ((), cost) = counted(|| bumplab_measure_reset(&mut model, &mut heap));
                (None, cost)
            }
            OpKind::Checkpoint => {
                let (cp, cost) = counted(|| bumplab_measure_checkpoint(&model));
                let name = op.block.as_deref().unwrap_or_default();
                saved.retain(|(s, _)| *s != name);
                saved.push((name, cp));
                (None, cost)
            }
            OpKind::Restore => {
                let name = op.block.as_deref().unwrap_or_default();
                let Some((_, cp)) = saved.iter().find(|(s, _)| *s == name) else {
                    return Err(Diverged(format!(
                        "op {}: restore of checkpoint '{name}', which the replay never saved",
                        op.index
                    )));
                };
                let cp = cp.clone();
                let ((), cost) = counted(|| bumplab_measure_restore(&mut model, &mut heap, &cp));
                (None, cost)
            }
        };
        if let Some(r) = landed {
            check_address(op, r)?;
        }
        costs.push(cost);
    }
    Ok(costs)
}

/// The replayed op must land where the trace says (or fail as it did).
fn check_address<W: Word>(op: &Op, r: Allocated<W>) -> Result<(), Diverged> {
    let got = r.result().ok().map(|a| a.to_u64());
    let want = if op.failed { None } else { op.address };
    if got == want {
        Ok(())
    } else {
        Err(Diverged(format!(
            "op {}: the replay placed the block at {got:?}, the trace at {want:?}",
            op.index
        )))
    }
}

/// What each of `trace`'s ops executes, replayed on a fresh instance of
/// `preset` (as the engine built it: same minimum alignment and capacity).
pub fn replay_costs(
    trace: &Trace,
    preset: PresetId,
    min_align: u64,
    capacity: Option<u64>,
) -> Result<Vec<Cost>, Diverged> {
    let requested = trace
        .ops
        .iter()
        .filter_map(|o| o.size)
        .fold(0u64, u64::saturating_add);
    replay_alloc::begin_pass(replay_alloc::pass_bytes(trace.ops.len(), requested));
    presets::visit(preset, trace.target, min_align, Replay { trace, capacity })
}

/// Attaches each op's cost to `trace`, or none when the replay diverged.
pub fn attach_costs(trace: &mut Trace, preset: PresetId, min_align: u64, capacity: Option<u64>) {
    if let Ok(costs) = replay_costs(trace, preset, min_align, capacity) {
        for (op, cost) in trace.ops.iter_mut().zip(costs) {
            op.cost = Some(cost);
        }
    }
}
