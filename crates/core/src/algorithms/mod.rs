//! The bump algorithms, one file each, exactly as the references write them.
//!
//! Each is generic over the target word and a [`Probe`](crate::probe::Probe).
//! The engine steps them with a recorder; the measured wasm exports call the
//! same functions with `NoProbe`. The code view shows these very files.

pub mod bump_down;
pub mod bump_up;
pub mod bump_up_naive;

use serde::Serialize;

/// Which way the bump pointer moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    Up,
    Down,
}

/// The algorithms the presets are built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    BumpDown,
    BumpUpNaive,
    BumpUp,
}

impl Algorithm {
    pub const ALL: [Algorithm; 3] = [
        Algorithm::BumpDown,
        Algorithm::BumpUpNaive,
        Algorithm::BumpUp,
    ];

    pub fn direction(self) -> Direction {
        match self {
            Algorithm::BumpDown => Direction::Down,
            Algorithm::BumpUpNaive | Algorithm::BumpUp => Direction::Up,
        }
    }

    /// Path of the source file, as shown in the code view.
    pub fn source_path(self) -> &'static str {
        match self {
            Algorithm::BumpDown => "crates/core/src/algorithms/bump_down.rs",
            Algorithm::BumpUpNaive => "crates/core/src/algorithms/bump_up_naive.rs",
            Algorithm::BumpUp => "crates/core/src/algorithms/bump_up.rs",
        }
    }

    /// The source that is compiled, stepped and measured.
    pub fn source(self) -> &'static str {
        match self {
            Algorithm::BumpDown => include_str!("bump_down.rs"),
            Algorithm::BumpUpNaive => include_str!("bump_up_naive.rs"),
            Algorithm::BumpUp => include_str!("bump_up.rs"),
        }
    }
}
