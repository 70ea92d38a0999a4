//! Micro-step identifiers and where each one lives in the source.
//!
//! A step's `marker` names a `// step: <marker>` comment on the line of the
//! algorithm that performs it, so the code view can highlight the line that
//! ran. A test checks that every step of every algorithm has exactly one line.

use serde::Serialize;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepId {
    // Bump down (Fitzgerald 2019).
    DownSub,
    DownSubOverflow,
    DownRound,
    DownCheckStartPass,
    DownCheckStartFail,
    DownBump,
    // Bump up, first version: three branches.
    UpNaiveRound,
    UpNaiveRoundOverflow,
    UpNaiveAdd,
    UpNaiveAddOverflow,
    UpNaiveCheckEndPass,
    UpNaiveCheckEndFail,
    UpNaiveBump,
    // Bump up, one branch (relies on the `Layout` bound).
    UpOffset,
    UpTotal,
    UpCheckPass,
    UpCheckFail,
    UpBump,
}

impl StepId {
    /// The `// step: <marker>` comment that marks this step's line.
    pub fn marker(self) -> &'static str {
        use StepId::*;
        match self {
            DownSub | DownSubOverflow => "checked_sub",
            DownRound => "round_down",
            DownCheckStartPass | DownCheckStartFail => "check_start",
            DownBump => "bump",
            UpNaiveRound | UpNaiveRoundOverflow => "round_up",
            UpNaiveAdd | UpNaiveAddOverflow => "add_size",
            UpNaiveCheckEndPass | UpNaiveCheckEndFail => "check_end",
            UpNaiveBump => "bump",
            UpOffset => "align_offset",
            UpTotal => "total_size",
            UpCheckPass | UpCheckFail => "check_room",
            UpBump => "bump",
        }
    }

    /// A short plain-language label for the step list.
    pub fn label(self) -> &'static str {
        use StepId::*;
        match self {
            DownSub => "subtract the size from the bump pointer",
            DownSubOverflow => "subtracting the size overflowed: no room",
            DownRound => "round down to the alignment",
            DownCheckStartPass => "still at or above the chunk start: fits",
            DownCheckStartFail => "below the chunk start: does not fit",
            DownBump => "move the bump pointer down",
            UpNaiveRound => "round the bump pointer up to the alignment",
            UpNaiveRoundOverflow => "rounding up overflowed: no room",
            UpNaiveAdd => "add the size",
            UpNaiveAddOverflow => "adding the size overflowed: no room",
            UpNaiveCheckEndPass => "new pointer within the chunk end: fits",
            UpNaiveCheckEndFail => "new pointer past the chunk end: does not fit",
            UpNaiveBump => "move the bump pointer up",
            UpOffset => "padding needed to reach the alignment",
            UpTotal => "padding plus size (cannot overflow: Layout bound)",
            UpCheckPass => "fits in the room left before the end",
            UpCheckFail => "more than the room left: does not fit",
            UpBump => "move the bump pointer up",
        }
    }
}

/// Finds the 1-based line that performs the step marked `// step: <marker>`.
///
/// The marker is a trailing comment on that line; where rustfmt has moved it
/// onto a line of its own (after the `{` of an `if` or `let … else`), the
/// marked line is the one above it.
pub fn line_of(source: &str, marker: &str) -> Option<u32> {
    let needle = format!("// step: {marker}");
    let lines: Vec<&str> = source.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.trim_end().ends_with(needle.as_str()))?;
    let own_line = lines[i].trim_start().starts_with("//");
    let line = if own_line && i > 0 { i - 1 } else { i };
    Some(line as u32 + 1)
}
