//! Micro-step and event recording that compiles away.
//!
//! Algorithms and models take `p: &mut P where P: Probe<W>` and report each
//! small step (round, check, bump) with [`probe!`] and each notable event (a
//! new chunk, a copy) with [`event!`]. Both macros test an associated
//! constant of `P`, so with [`NoProbe`] every report, including building its
//! value list, is dead code and the optimiser drops it: the measured build is
//! the algorithm as written, without instrumentation.
//! `tests/noprobe_codegen.rs` checks this against the source with its probes deleted.

use crate::events::ModelEvent;
use crate::steps::StepId;
use crate::word::Word;

/// Observer of an algorithm's micro-steps and a model's events.
pub trait Probe<W: Word> {
    /// `false` lets the compiler remove every `probe!`.
    const STEPS: bool;
    /// `false` lets the compiler remove every `event!`.
    const EVENTS: bool;
    /// One micro-step, with the values it computed or compared and their
    /// names. Both the step and the names are static, so a call site only
    /// stores its values (the recording build holds one per model, target
    /// and minimum alignment: call sites add up).
    fn record(&mut self, step: &'static StepId, names: &'static [&'static str], values: &[W]);
    fn event(&mut self, event: ModelEvent<W>);
}

/// Records nothing; what runs when costs are measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProbe;

impl<W: Word> Probe<W> for NoProbe {
    const STEPS: bool = false;
    const EVENTS: bool = false;
    #[inline(always)]
    fn record(&mut self, _step: &'static StepId, _names: &'static [&'static str], _values: &[W]) {}
    #[inline(always)]
    fn event(&mut self, _event: ModelEvent<W>) {}
}

/// One recorded micro-step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicroStep {
    pub step: &'static StepId,
    /// The values' names, in the order the code named them.
    pub names: &'static [&'static str],
    /// Values at this step, widened to `u64`.
    pub values: Vec<u64>,
}

/// What a [`Recorder`] saw, in order.
#[derive(Clone, Debug)]
pub enum Recorded {
    Step(MicroStep),
    Event(ModelEvent<u64>),
}

/// Keeps every micro-step and event, in order, for the trace.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub log: Vec<Recorded>,
    /// Keep the events only: what a run that keeps no op's details needs
    /// (a new chunk still changes the engine's tables), without the cost of
    /// a list of values for every micro-step.
    pub events_only: bool,
}

impl<W: Word> Probe<W> for Recorder {
    const STEPS: bool = true;
    const EVENTS: bool = true;
    fn record(&mut self, step: &'static StepId, names: &'static [&'static str], values: &[W]) {
        if self.events_only {
            return;
        }
        self.log.push(Recorded::Step(MicroStep {
            step,
            names,
            values: values.iter().map(|v| v.to_u64()).collect(),
        }));
    }
    fn event(&mut self, event: ModelEvent<W>) {
        self.log.push(Recorded::Event(event.widen()));
    }
}

/// Reports a micro-step: `probe!(p, ROUND, new_ptr, align)` records the
/// values under their variable names. `P` must name the probe's type.
#[macro_export]
macro_rules! probe {
    ($p:expr, $step:expr $(, $name:ident)* $(,)?) => {
        if P::STEPS {
            $p.record(&$step, &[$(stringify!($name)),*], &[$($name),*]);
        }
    };
}

/// Reports a model event: `event!(p, ModelEvent::Copied { bytes })`.
#[macro_export]
macro_rules! event {
    ($p:expr, $event:expr) => {
        if P::EVENTS {
            $p.event($event);
        }
    };
}
