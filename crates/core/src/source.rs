//! The source files the code view shows: exactly the files that are compiled,
//! stepped and measured, embedded at build time.

use serde::Serialize;

use crate::steps::StepId;

/// A file holding an algorithm or a chunk policy whose steps are recorded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    BumpDown,
    BumpUpNaive,
    BumpUp,
    Fixed,
}

impl Source {
    pub const ALL: [Source; 4] = [
        Source::BumpDown,
        Source::BumpUpNaive,
        Source::BumpUp,
        Source::Fixed,
    ];

    /// Path from the repository root.
    pub fn path(self) -> &'static str {
        match self {
            Source::BumpDown => "crates/core/src/algorithms/bump_down.rs",
            Source::BumpUpNaive => "crates/core/src/algorithms/bump_up_naive.rs",
            Source::BumpUp => "crates/core/src/algorithms/bump_up.rs",
            Source::Fixed => "crates/core/src/models/fixed.rs",
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Source::BumpDown => include_str!("algorithms/bump_down.rs"),
            Source::BumpUpNaive => include_str!("algorithms/bump_up_naive.rs"),
            Source::BumpUp => include_str!("algorithms/bump_up.rs"),
            Source::Fixed => include_str!("models/fixed.rs"),
        }
    }

    /// Every step declared in this file (checked against its markers by a test).
    pub fn steps(self) -> &'static [StepId] {
        match self {
            Source::BumpDown => crate::algorithms::bump_down::STEPS,
            Source::BumpUpNaive => crate::algorithms::bump_up_naive::STEPS,
            Source::BumpUp => crate::algorithms::bump_up::STEPS,
            Source::Fixed => crate::models::fixed::STEPS,
        }
    }

    pub fn name(self) -> String {
        serde_json::to_value(self)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default()
    }

    pub fn parse(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|s| s.name() == name)
    }
}
