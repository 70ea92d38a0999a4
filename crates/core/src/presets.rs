//! Named allocators the playground offers, each faithful to one reference,
//! and the one place that maps a name and target to model types.

use serde::Serialize;

#[cfg(feature = "core-presets")]
use crate::algorithms::bump_down::BumpDown;
#[cfg(feature = "core-presets")]
use crate::algorithms::bump_up::BumpUp;
#[cfg(feature = "core-presets")]
use crate::algorithms::bump_up_naive::BumpUpNaive;
#[cfg(feature = "core-presets")]
use crate::algorithms::min_align_down::MinAlignDown;
#[cfg(feature = "core-presets")]
use crate::algorithms::min_align_up::MinAlignUp;
use crate::algorithms::Direction;
use crate::model::{Child, Model};
#[cfg(feature = "more-arenas")]
use crate::models::blink_alloc::BlinkAlloc;
#[cfg(feature = "core-presets")]
use crate::models::bump_scope::BumpScope;
#[cfg(feature = "core-presets")]
use crate::models::bumpalo::Bumpalo;
#[cfg(feature = "core-presets")]
use crate::models::bumper::{AllocBuffer, SlabBuffer};
#[cfg(feature = "core-presets")]
use crate::models::cpp_arena::CppArena;
#[cfg(feature = "core-presets")]
use crate::models::fixed::Fixed;
#[cfg(feature = "more-arenas")]
use crate::models::llvm_bump_ptr::LlvmBumpPtr;
#[cfg(feature = "more-arenas")]
use crate::models::pmr_monotonic::PmrMonotonic;
#[cfg(feature = "more-arenas")]
use crate::models::zig_arena::ZigArena;
#[cfg(feature = "more-arenas")]
use crate::models::zig_fixed_buffer::ZigFixedBuffer;
use crate::source::Source;
use crate::word::{Target, Word};

mod rows;
pub use rows::PRESETS;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PresetId {
    /// Fitzgerald's bump down over one fixed chunk.
    FitzgenDown,
    /// Hinckley's first bump up (three branches) over one fixed chunk.
    HinckleyUpNaive,
    /// Hinckley's one-branch bump up over one fixed chunk.
    HinckleyUp,
    /// Hinckley's bump up with a minimum alignment over one fixed chunk.
    UpMinAlign,
    /// The same minimum-alignment trick bumping down, over one fixed chunk.
    DownMinAlign,
    /// Bumper.jl's AllocBuffer: one fixed buffer, no alignment.
    BumperAllocBuffer,
    /// Bumper.jl's SlabBuffer: fixed-size slabs and custom slabs.
    BumperSlab,
    /// The C++ parser arena's ArenaMemoryResource (seed 004).
    CppArena,
    /// bump-scope 2.4.1 bumping up (its default).
    BumpScopeUp,
    /// bump-scope 2.4.1 bumping down.
    BumpScopeDown,
    /// bumpalo 3.20.4 (bumps down, footer at each chunk's end).
    Bumpalo,
    /// blink-alloc 0.4.0's `BlinkAlloc` (bumps up, header at each chunk's start).
    BlinkAlloc,
    /// LLVM 14's BumpPtrAllocator (slabs with outside bookkeeping, custom-sized slabs).
    LlvmBumpPtr,
    /// libstdc++'s (GCC 12) std::pmr::monotonic_buffer_resource.
    PmrMonotonic,
    /// Zig 0.17.1's std.heap.ArenaAllocator over the simulated heap.
    ZigArena,
    /// Zig 0.17.1's std.heap.FixedBufferAllocator over one buffer.
    ZigFixedBuffer,
}

impl PresetId {
    /// Every preset, in the registry's order (the order `bumplab list` shows).
    pub const ALL: [PresetId; PRESETS.len()] = {
        let mut all = [PresetId::FitzgenDown; PRESETS.len()];
        let mut i = 0;
        while i < PRESETS.len() {
            all[i] = PRESETS[i].id;
            i += 1;
        }
        all
    };

    /// This preset's row of the registry.
    pub fn row(self) -> &'static Row {
        PRESETS
            .iter()
            .find(|r| r.id == self)
            .expect("every preset has a row (checked by a test)")
    }

    pub fn name(self) -> &'static str {
        self.row().name
    }

    pub fn parse(name: &str) -> Option<PresetId> {
        PRESETS.iter().find(|r| r.name == name).map(|r| r.id)
    }

    /// Which build of the trace module runs it (see [`Family`]).
    pub fn family(self) -> Family {
        self.row().family
    }

    /// The file whose code does the bumping, shown first in the code view.
    pub fn source(self) -> Source {
        self.row().source
    }

    pub fn direction(self) -> Direction {
        self.row().direction
    }

    /// The minimum alignments this preset can be built with, default first;
    /// empty when it has no such setting.
    pub fn min_aligns(self) -> &'static [u64] {
        self.row().min_aligns
    }

    /// The child allocators this preset can run over, default first; empty
    /// when it has no such setting.
    pub fn children(self) -> &'static [Child] {
        self.row().children
    }

    pub fn description(self) -> &'static str {
        self.row().description
    }
}

/// Everything the playground says about a preset, in one row: the page reads
/// it through `listAllocators` (the chooser's groups, the Capacity knob's
/// help, the comparison's counterpart and what a capacity means there), so a
/// preset added here needs no change in the page.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Row {
    #[serde(skip)]
    pub id: PresetId,
    pub name: &'static str,
    pub direction: Direction,
    /// The allocator chooser's group, and the place in it.
    pub group: Group,
    pub menu_rank: u8,
    /// Which build of the trace module runs it.
    pub family: Family,
    /// The file whose code does the bumping, shown first in the code view.
    pub source: Source,
    /// Minimum alignments it can be built with, default first (empty: no such setting).
    pub min_aligns: &'static [u64],
    /// Child allocators it can run over, default first (empty: no such setting).
    pub children: &'static [Child],
    /// What the one number `--capacity` passes to the model sets here.
    pub capacity: Capacity,
    /// Where the chunk's own bookkeeping sits, as the real code names it.
    pub chunk_record: ChunkRecord,
    /// The preset to run beside this one in the one-click comparison, and why.
    pub counterpart: Counterpart,
    /// The real code this preset's model reproduces.
    pub real: &'static str,
    pub description: &'static str,
}

/// The allocator chooser's groups, in the chooser's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Group {
    SeedAlgorithms,
    Libraries,
}

impl Group {
    pub fn label(self) -> &'static str {
        match self {
            Group::SeedAlgorithms => "Seed algorithms (one fixed chunk)",
            Group::Libraries => "Libraries",
        }
    }
}

impl Serialize for Group {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.label())
    }
}

/// What a preset's capacity setting sets.
#[derive(Clone, Copy, Debug, Serialize)]
pub struct Capacity {
    /// A size of memory to bump through, or zig-arena's limit on what a reset keeps.
    pub kind: CapacityKind,
    /// In a few words ("chunk size"), for the comparison's notes.
    pub means: &'static str,
    /// The Capacity knob's help, naming the default.
    pub help: &'static str,
    /// The value the model takes when none is given, where it is one number
    /// (a test runs the model both ways); `None` where the default is no
    /// value (a chunk sized by the first request, no retain limit).
    pub default: Option<u64>,
}

/// A capacity carries from one preset to another only when it is the same
/// kind of thing in both.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum CapacityKind {
    Size,
    RetainLimit,
}

/// Where a chunk's bookkeeping sits: at its start (a header; bump-scope calls
/// its record a header at either end), at its end (a footer), in a list
/// outside the chunks, or nowhere (one fixed chunk or buffer).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ChunkRecord {
    None,
    Header,
    Footer,
    Outside,
}

/// Each preset's partner in the one-click comparison: up against down where
/// it has a sibling bumping the other way; otherwise the nearest arena that
/// behaves otherwise in one telling way (the same library's other buffer,
/// the same language's other arena, a hand-written arena against the
/// standard one).
#[derive(Clone, Copy, Debug)]
pub struct Counterpart {
    pub preset: PresetId,
    /// What the two columns side by side teach.
    pub why: &'static str,
}

impl Serialize for Counterpart {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut out = s.serialize_struct("Counterpart", 2)?;
        out.serialize_field("allocator", self.preset.name())?;
        out.serialize_field("why", self.why)?;
        out.end()
    }
}

/// Which build of the trace module runs a preset. The page loads the
/// first, for the source documents' algorithms and the two Rust crates, before
/// its first map; the second, for the other arenas, only when one is shown,
/// so each preset added there leaves the first map's download as it was.
/// (The cost module and native code have every preset.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Family {
    /// The `core-presets` feature.
    Core,
    /// The `more-arenas` feature.
    MoreArenas,
}

/// Code generic over a model, run for a preset chosen at run time.
pub trait PresetVisitor {
    type Out;
    fn visit<W: Word, M: Model<W>>(self) -> Self::Out;
    /// `preset`'s family is not compiled into this build.
    fn not_built(self, preset: PresetId) -> Self::Out;
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
    match preset.family() {
        Family::Core => visit_core::<W, V>(preset, min_align, v),
        Family::MoreArenas => visit_more_arenas::<W, V>(preset, v),
    }
}

// A family left out of a build (its feature off) leaves out its models too.

#[cfg(feature = "core-presets")]
fn visit_core<W: Word, V: PresetVisitor>(preset: PresetId, min_align: u64, v: V) -> V::Out {
    match preset {
        PresetId::FitzgenDown => v.visit::<W, Fixed<W, BumpDown<W>>>(),
        PresetId::HinckleyUpNaive => v.visit::<W, Fixed<W, BumpUpNaive<W>>>(),
        PresetId::HinckleyUp => v.visit::<W, Fixed<W, BumpUp<W>>>(),
        PresetId::UpMinAlign => {
            by_min_align!(min_align, M => v.visit::<W, Fixed<W, MinAlignUp<W, M>>>(), [8, 1, 2, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
        }
        PresetId::DownMinAlign => {
            by_min_align!(min_align, M => v.visit::<W, Fixed<W, MinAlignDown<W, M>>>(), [8, 1, 2, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096])
        }
        PresetId::BumperAllocBuffer => v.visit::<W, AllocBuffer<W>>(),
        PresetId::BumperSlab => v.visit::<W, SlabBuffer<W>>(),
        PresetId::CppArena => v.visit::<W, CppArena<W>>(),
        PresetId::BumpScopeUp => {
            by_min_align!(min_align, M => v.visit::<W, BumpScope<W, true, M>>(), [1, 2, 4, 8, 16])
        }
        PresetId::BumpScopeDown => {
            by_min_align!(min_align, M => v.visit::<W, BumpScope<W, false, M>>(), [1, 2, 4, 8, 16])
        }
        PresetId::Bumpalo => {
            by_min_align!(min_align, M => v.visit::<W, Bumpalo<W, M>>(), [1, 2, 4, 8, 16])
        }
        other => unreachable!("{} is not in the core family", other.name()),
    }
}

#[cfg(not(feature = "core-presets"))]
fn visit_core<W: Word, V: PresetVisitor>(preset: PresetId, _min_align: u64, v: V) -> V::Out {
    v.not_built(preset)
}

#[cfg(feature = "more-arenas")]
fn visit_more_arenas<W: Word, V: PresetVisitor>(preset: PresetId, v: V) -> V::Out {
    match preset {
        PresetId::BlinkAlloc => v.visit::<W, BlinkAlloc<W>>(),
        PresetId::ZigFixedBuffer => v.visit::<W, ZigFixedBuffer<W>>(),
        PresetId::ZigArena => v.visit::<W, ZigArena<W>>(),
        PresetId::PmrMonotonic => v.visit::<W, PmrMonotonic<W>>(),
        PresetId::LlvmBumpPtr => v.visit::<W, LlvmBumpPtr<W>>(),
        other => unreachable!("{} is not in the more-arenas family", other.name()),
    }
}

#[cfg(not(feature = "more-arenas"))]
fn visit_more_arenas<W: Word, V: PresetVisitor>(preset: PresetId, v: V) -> V::Out {
    v.not_built(preset)
}

/// What `bumplab list` and the allocator chooser show: every row.
pub fn list() -> Vec<Row> {
    PRESETS.to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every row says everything the page reads of it, and says it once.
    #[test]
    fn every_row_is_complete() {
        assert_eq!(PRESETS.len(), PresetId::ALL.len());
        for (i, row) in PRESETS.iter().enumerate() {
            let name = row.name;
            assert_eq!(row.id.row().name, name, "{name}: its id finds its own row");
            assert!(
                PRESETS[..i]
                    .iter()
                    .all(|r| r.id != row.id && r.name != name),
                "{name} has one row"
            );
            assert!(
                !name.is_empty()
                    && name
                        .bytes()
                        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
                "{name}: a kebab-case name"
            );
            assert_eq!(PresetId::parse(name), Some(row.id));
            assert!(row.description.len() > 80, "{name}: a description");
            assert!(!row.real.is_empty(), "{name}: the real code it reproduces");
            assert_eq!(
                row.min_aligns
                    .iter()
                    .filter(|&&a| !a.is_power_of_two())
                    .count(),
                0,
                "{name}: alignments are powers of two"
            );
            let c = row.capacity;
            assert!(!c.means.is_empty(), "{name}: what its capacity means");
            assert!(
                c.help.starts_with("Capacity: ") && c.help.contains("default"),
                "{name}: the Capacity knob's help names the default: {}",
                c.help
            );
            if let Some(d) = c.default {
                let shown = if d % (1 << 20) == 0 {
                    format!("{} MiB", d >> 20)
                } else {
                    d.to_string()
                };
                assert!(
                    c.help.contains(&format!("default {shown}")),
                    "{name}: the help's default is the row's {d}: {}",
                    c.help
                );
            }
            assert_ne!(
                row.counterpart.preset, row.id,
                "{name}: its counterpart is another preset"
            );
            assert!(
                row.counterpart.why.ends_with('.') && row.counterpart.why.len() > 40,
                "{name}: why its counterpart"
            );
            let (group, rank) = (row.group, row.menu_rank);
            assert_eq!(
                PRESETS
                    .iter()
                    .filter(|r| r.group == group && r.menu_rank == rank)
                    .count(),
                1,
                "{name}: one place in the chooser"
            );
        }
        for group in [Group::SeedAlgorithms, Group::Libraries] {
            let ranks = PRESETS.iter().filter(|r| r.group == group).count() as u8;
            assert!(
                PRESETS
                    .iter()
                    .filter(|r| r.group == group)
                    .all(|r| r.menu_rank < ranks),
                "{}: ranks 0..n",
                group.label()
            );
        }
    }

    /// A default the row names is the one the model takes: the same run with
    /// the capacity left out and with the row's default gives the same chunks
    /// and ops (64-bit; pmr-monotonic's default counts words, so wasm32's is half).
    #[cfg(all(feature = "core-presets", feature = "more-arenas"))]
    #[test]
    fn every_default_is_the_models() {
        let program =
            "a = alloc 8\nb = alloc 3000\nrepeat 40 { c = alloc 100 }\nreset\nd = alloc 16";
        for row in PRESETS {
            let Some(default) = row.capacity.default else {
                continue;
            };
            let run = |capacity| {
                let opts = crate::engine::Options {
                    capacity,
                    ..Default::default()
                };
                let t = crate::run::run(program, row.id, &opts).expect("the program runs");
                serde_json::to_string(&(&t.chunks, &t.ops)).expect("serialises")
            };
            assert_eq!(
                run(None),
                run(Some(default)),
                "{}: default {default}",
                row.name
            );
            assert_ne!(
                run(None),
                run(Some(default * 2)),
                "{}: the capacity changes the run",
                row.name
            );
        }
    }
}
