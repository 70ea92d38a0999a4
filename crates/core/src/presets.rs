//! Named allocators the playground offers, each faithful to one reference,
//! and the one place that maps a name and target to model types.

use serde::Serialize;

use crate::algorithms::bump_down::BumpDown;
use crate::algorithms::bump_up::BumpUp;
use crate::algorithms::bump_up_naive::BumpUpNaive;
use crate::algorithms::Direction;
use crate::model::Model;
use crate::models::fixed::Fixed;
use crate::source::Source;
use crate::word::{Target, Word};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresetId {
    /// Fitzgerald's bump down over one fixed chunk.
    FitzgenDown,
    /// Hinckley's first bump up (three branches) over one fixed chunk.
    HinckleyUpNaive,
    /// Hinckley's one-branch bump up over one fixed chunk.
    HinckleyUp,
}

impl PresetId {
    pub const ALL: [PresetId; 3] = [
        PresetId::FitzgenDown,
        PresetId::HinckleyUpNaive,
        PresetId::HinckleyUp,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PresetId::FitzgenDown => "fitzgen-down",
            PresetId::HinckleyUpNaive => "hinckley-up-naive",
            PresetId::HinckleyUp => "hinckley-up",
        }
    }

    pub fn parse(name: &str) -> Option<PresetId> {
        PresetId::ALL.into_iter().find(|p| p.name() == name)
    }

    /// The file whose code does the bumping, shown first in the code view.
    pub fn source(self) -> Source {
        match self {
            PresetId::FitzgenDown => Source::BumpDown,
            PresetId::HinckleyUpNaive => Source::BumpUpNaive,
            PresetId::HinckleyUp => Source::BumpUp,
        }
    }

    pub fn direction(self) -> Direction {
        match self {
            PresetId::FitzgenDown => Direction::Down,
            PresetId::HinckleyUpNaive | PresetId::HinckleyUp => Direction::Up,
        }
    }

    /// The minimum alignments this preset can be built with, default first;
    /// empty when it has no such setting.
    pub fn min_aligns(self) -> &'static [u64] {
        match self {
            PresetId::FitzgenDown | PresetId::HinckleyUpNaive | PresetId::HinckleyUp => &[],
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            PresetId::FitzgenDown => {
                "Bump down over one fixed chunk (Fitzgerald 2019): checked subtract, round down, compare to start. 2 branches."
            }
            PresetId::HinckleyUpNaive => {
                "Bump up over one fixed chunk, first version (Hinckley 2024): round up, add, compare to end. 3 branches."
            }
            PresetId::HinckleyUp => {
                "Bump up over one fixed chunk, one branch (Hinckley 2024): padding + size compared once with the room left."
            }
        }
    }
}

/// Code generic over a model, run for a preset chosen at run time.
pub trait PresetVisitor {
    type Out;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out;
}

/// Calls `v.visit::<W, M>()` with the word and model types of `preset` on
/// `target`. `min_align` must be one of `preset.min_aligns()` (or anything,
/// for presets without the setting); it selects a const-generic
/// instantiation, so the measured code is specialised as the real crates' is.
pub fn visit<V: PresetVisitor>(preset: PresetId, target: Target, min_align: u64, v: V) -> V::Out {
    match target {
        Target::W64 => visit_word::<u64, V>(preset, min_align, v),
        Target::Wasm32 => visit_word::<u32, V>(preset, min_align, v),
    }
}

/// Expands to a match over the powers of two a const generic may take:
/// `by_min_align!(m, N => expr_using_N, [1, 2, 4, 8, 16])`.
#[macro_export]
macro_rules! by_min_align {
    ($m:expr, $n:ident => $e:expr, [$($v:literal),*]) => {
        match $m {
            $($v => { const $n: u64 = $v; $e })*
            other => unreachable!("minimum alignment {other} was validated by the engine"),
        }
    };
}

fn visit_word<W: Word, V: PresetVisitor>(preset: PresetId, min_align: u64, v: V) -> V::Out {
    let _ = min_align;
    match preset {
        PresetId::FitzgenDown => v.visit::<W, Fixed<W, BumpDown<W>>>(),
        PresetId::HinckleyUpNaive => v.visit::<W, Fixed<W, BumpUpNaive<W>>>(),
        PresetId::HinckleyUp => v.visit::<W, Fixed<W, BumpUp<W>>>(),
    }
}

/// What `bumplab list` and the allocator chooser show.
#[derive(Clone, Debug, Serialize)]
pub struct PresetInfo {
    pub name: &'static str,
    pub direction: Direction,
    pub source: Source,
    pub description: &'static str,
}

pub fn list() -> Vec<PresetInfo> {
    PresetId::ALL
        .into_iter()
        .map(|p| PresetInfo {
            name: p.name(),
            direction: p.direction(),
            source: p.source(),
            description: p.description(),
        })
        .collect()
}
