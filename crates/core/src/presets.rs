//! Named allocators the playground offers, each faithful to one reference.

use crate::algorithms::{Algorithm, Direction};
use serde::Serialize;

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

    pub fn algorithm(self) -> Algorithm {
        match self {
            PresetId::FitzgenDown => Algorithm::BumpDown,
            PresetId::HinckleyUpNaive => Algorithm::BumpUpNaive,
            PresetId::HinckleyUp => Algorithm::BumpUp,
        }
    }

    pub fn direction(self) -> Direction {
        self.algorithm().direction()
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

/// What `bumplab list` and the allocator chooser show.
#[derive(Clone, Debug, Serialize)]
pub struct PresetInfo {
    pub name: &'static str,
    pub direction: Direction,
    pub algorithm: Algorithm,
    pub description: &'static str,
}

pub fn list() -> Vec<PresetInfo> {
    PresetId::ALL
        .into_iter()
        .map(|p| PresetInfo {
            name: p.name(),
            direction: p.direction(),
            algorithm: p.algorithm(),
            description: p.description(),
        })
        .collect()
}
