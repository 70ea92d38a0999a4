//! Micro-step recording that compiles away.
//!
//! Algorithms take `&mut P where P: Probe<W>` and report each small step
//! (round, check, bump) through the [`probe!`] macro. The macro tests
//! `P::ENABLED`, a constant, so with [`NoProbe`] the whole report, including
//! building its value list, is dead code and the optimiser drops it: the
//! measured build is the algorithm as written, without instrumentation.

use crate::steps::StepId;
use crate::word::Word;

/// Observer of an algorithm's micro-steps.
pub trait Probe<W: Word> {
    /// `false` lets the compiler remove every report.
    const ENABLED: bool;
    /// One micro-step, with the named values it computed or compared.
    fn record(&mut self, step: StepId, values: &[(&'static str, W)]);
}

/// Records nothing; what runs when costs are measured.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProbe;

impl<W: Word> Probe<W> for NoProbe {
    const ENABLED: bool = false;
    #[inline(always)]
    fn record(&mut self, _step: StepId, _values: &[(&'static str, W)]) {}
}

/// One recorded micro-step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicroStep {
    pub step: StepId,
    /// Values at this step, widened to `u64`, in the order the algorithm named them.
    pub values: Vec<(&'static str, u64)>,
}

/// Keeps every micro-step, for the trace.
#[derive(Clone, Debug, Default)]
pub struct Recorder {
    pub steps: Vec<MicroStep>,
}

impl<W: Word> Probe<W> for Recorder {
    const ENABLED: bool = true;
    fn record(&mut self, step: StepId, values: &[(&'static str, W)]) {
        self.steps.push(MicroStep {
            step,
            values: values.iter().map(|&(n, v)| (n, v.to_u64())).collect(),
        });
    }
}

/// Reports a micro-step: `probe!(p, StepId::RoundDown, new_ptr, align)`
/// records the values under their variable names.
#[macro_export]
macro_rules! probe {
    ($p:expr, $step:expr $(, $name:ident)* $(,)?) => {
        if P::ENABLED {
            $p.record($step, &[$((stringify!($name), $name)),*]);
        }
    };
}
