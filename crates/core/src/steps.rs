//! Micro-step identifiers and where each one lives in the source.
//!
//! Each algorithm or model file declares its own steps as constants. A step's
//! `marker` names a `// step: <marker>` comment on the line that performs it,
//! so the code view can highlight the line that ran. A test checks that every
//! declared step has exactly one such line in its file.

use serde::{Serialize, Serializer};

use crate::source::Source;

/// One kind of micro-step: which file, which marked line, and what it means.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StepId {
    pub source: Source,
    /// The `// step: <marker>` comment naming the line.
    pub marker: &'static str,
    /// Distinguishes outcomes that share a line (a check that passes or fails).
    pub outcome: &'static str,
    /// A short plain-language description for the step list.
    pub label: &'static str,
}

impl StepId {
    pub const fn new(
        source: Source,
        marker: &'static str,
        outcome: &'static str,
        label: &'static str,
    ) -> Self {
        StepId {
            source,
            marker,
            outcome,
            label,
        }
    }

    /// A stable name, `marker` or `marker:outcome`.
    pub fn name(&self) -> String {
        if self.outcome.is_empty() {
            self.marker.to_string()
        } else {
            format!("{}:{}", self.marker, self.outcome)
        }
    }

    /// The 1-based source line of this step in its file, found at build
    /// time (`build.rs`), so tracing needs neither the file's text nor a
    /// scan of it.
    pub fn line(&self) -> u32 {
        marker_line(self.source, self.marker)
    }
}

include!(concat!(env!("OUT_DIR"), "/step_lines.rs"));

impl Serialize for StepId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
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

/// Declares a file's micro-steps and its `STEPS` table in one place, so the
/// table cannot miss a step:
///
/// ```
/// use bumplab_core::source::Source;
///
/// bumplab_core::steps! {
///     Source::BumpUp;
///     ROUND = "round": "round the pointer up to the alignment";
///     CHECK_FAIL = "check" / "fail": "past the end of the chunk: does not fit";
/// }
/// assert_eq!(STEPS.len(), 2);
/// ```
///
/// Each line becomes `pub const NAME: StepId`, with the marker, the optional
/// outcome after `/`, and the label; `STEPS` lists them in this order.
#[macro_export]
macro_rules! steps {
    ($source:expr; $($name:ident = $marker:literal $(/ $outcome:literal)? : $label:literal;)*) => {
        $(
            pub const $name: $crate::steps::StepId =
                $crate::steps::StepId::new($source, $marker, $crate::steps!(@outcome $($outcome)?), $label);
        )*
        /// Every micro-step this file records, in the order the step list shows them.
        pub const STEPS: &[$crate::steps::StepId] = &[$($name),*];
    };
    (@outcome) => { "" };
    (@outcome $outcome:literal) => { $outcome };
}
