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
    pub const ALL: [PresetId; 16] = [
        PresetId::FitzgenDown,
        PresetId::HinckleyUpNaive,
        PresetId::HinckleyUp,
        PresetId::UpMinAlign,
        PresetId::DownMinAlign,
        PresetId::BumperAllocBuffer,
        PresetId::BumperSlab,
        PresetId::CppArena,
        PresetId::BumpScopeUp,
        PresetId::BumpScopeDown,
        PresetId::Bumpalo,
        PresetId::BlinkAlloc,
        PresetId::LlvmBumpPtr,
        PresetId::PmrMonotonic,
        PresetId::ZigArena,
        PresetId::ZigFixedBuffer,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PresetId::FitzgenDown => "fitzgen-down",
            PresetId::HinckleyUpNaive => "hinckley-up-naive",
            PresetId::HinckleyUp => "hinckley-up",
            PresetId::UpMinAlign => "up-min-align",
            PresetId::DownMinAlign => "down-min-align",
            PresetId::BumperAllocBuffer => "bumper-alloc-buffer",
            PresetId::BumperSlab => "bumper-slab",
            PresetId::CppArena => "cpp-arena",
            PresetId::BumpScopeUp => "bump-scope-up",
            PresetId::BumpScopeDown => "bump-scope-down",
            PresetId::Bumpalo => "bumpalo",
            PresetId::BlinkAlloc => "blink-alloc",
            PresetId::ZigFixedBuffer => "zig-fixed-buffer",
            PresetId::ZigArena => "zig-arena",
            PresetId::PmrMonotonic => "pmr-monotonic",
            PresetId::LlvmBumpPtr => "llvm-bump-ptr",
        }
    }

    pub fn parse(name: &str) -> Option<PresetId> {
        PresetId::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Which build of the trace module runs it (see [`Family`]).
    pub fn family(self) -> Family {
        match self {
            PresetId::BlinkAlloc
            | PresetId::ZigFixedBuffer
            | PresetId::ZigArena
            | PresetId::PmrMonotonic
            | PresetId::LlvmBumpPtr => Family::MoreArenas,
            _ => Family::Core,
        }
    }

    /// The file whose code does the bumping, shown first in the code view.
    pub fn source(self) -> Source {
        match self {
            PresetId::FitzgenDown => Source::BumpDown,
            PresetId::HinckleyUpNaive => Source::BumpUpNaive,
            PresetId::HinckleyUp => Source::BumpUp,
            PresetId::UpMinAlign => Source::MinAlignUp,
            PresetId::DownMinAlign => Source::MinAlignDown,
            PresetId::BumperAllocBuffer | PresetId::BumperSlab => Source::Bumper,
            PresetId::CppArena => Source::CppArena,
            PresetId::BumpScopeUp | PresetId::BumpScopeDown => Source::BumpScope,
            PresetId::Bumpalo => Source::Bumpalo,
            PresetId::BlinkAlloc => Source::BlinkAlloc,
            PresetId::ZigFixedBuffer => Source::ZigFixedBuffer,
            PresetId::ZigArena => Source::ZigArena,
            PresetId::PmrMonotonic => Source::PmrMonotonic,
            PresetId::LlvmBumpPtr => Source::LlvmBumpPtr,
        }
    }

    pub fn direction(self) -> Direction {
        match self {
            PresetId::FitzgenDown => Direction::Down,
            PresetId::HinckleyUpNaive | PresetId::HinckleyUp => Direction::Up,
            PresetId::UpMinAlign
            | PresetId::BumperAllocBuffer
            | PresetId::BumperSlab
            | PresetId::CppArena => Direction::Up,
            PresetId::DownMinAlign => Direction::Down,
            PresetId::BumpScopeUp => Direction::Up,
            PresetId::BumpScopeDown => Direction::Down,
            PresetId::Bumpalo => Direction::Down,
            PresetId::BlinkAlloc => Direction::Up,
            PresetId::ZigFixedBuffer => Direction::Up,
            PresetId::ZigArena => Direction::Up,
            PresetId::PmrMonotonic => Direction::Up,
            PresetId::LlvmBumpPtr => Direction::Up,
        }
    }

    /// The minimum alignments this preset can be built with, default first;
    /// empty when it has no such setting.
    pub fn min_aligns(self) -> &'static [u64] {
        match self {
            PresetId::FitzgenDown | PresetId::HinckleyUpNaive | PresetId::HinckleyUp => &[],
            PresetId::UpMinAlign | PresetId::DownMinAlign => {
                &[8, 1, 2, 4, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096]
            }
            PresetId::BumperAllocBuffer | PresetId::BumperSlab | PresetId::CppArena => &[],
            PresetId::BumpScopeUp | PresetId::BumpScopeDown => &[1, 2, 4, 8, 16],
            PresetId::Bumpalo => &[1, 2, 4, 8, 16],
            PresetId::BlinkAlloc => &[],
            PresetId::ZigFixedBuffer => &[],
            PresetId::ZigArena => &[],
            PresetId::PmrMonotonic => &[],
            PresetId::LlvmBumpPtr => &[],
        }
    }

    /// The child allocators this preset can run over, default first; empty
    /// when it has no such setting.
    pub fn children(self) -> &'static [Child] {
        match self {
            PresetId::ZigArena => &Child::ALL,
            _ => &[],
        }
    }

    pub fn description(self) -> &'static str {
        match self {
            PresetId::FitzgenDown => {
                "Bump down over one fixed chunk (Fitzgerald 2019): checked subtract, round down, compare to start. An allocation's fast path takes 2 conditional branches. Realloc is not in the listings; as Hinckley's discussion of reallocation describes bumpalo's trick, the last block is bumped again from its own end and its bytes are copied to the new start over the old ones (moved down to grow, up to shrink): no space is lost, but every byte is copied. Any other block is allocated anew and copied, its old bytes left behind."
            }
            PresetId::HinckleyUpNaive => {
                "Bump up over one fixed chunk, first version (Hinckley 2024): round up, add, compare to end, each checked. An allocation's fast path takes 3 conditional branches, fewer when the alignment is 1 and known at compile time: the rounding's check folds away, leaving 2 for a slice of bytes and 1 for a lone u8 (its add and its compare fold into one). Realloc is not in the post's listings; as its discussion of reallocation describes, the last block grows or shrinks in place when the chunk has room (only the bump pointer moves, no byte is copied), and any other block is allocated anew and copied, its old bytes left behind."
            }
            PresetId::HinckleyUp => {
                "Bump up over one fixed chunk, one-branch version (Hinckley 2024): padding + size compared once with the room left. An allocation's fast path takes 1 conditional branch. Realloc is not in the post's listings; as its discussion of reallocation describes, the last block grows or shrinks in place when the chunk has room (only the bump pointer moves, no byte is copied), and any other block is allocated anew and copied, its old bytes left behind."
            }
            PresetId::UpMinAlign => {
                "Bump up with a minimum alignment over one fixed chunk (Hinckley 2024): sizes rounded up to MIN_ALIGN keep the pointer aligned, so a request aligned to at most MIN_ALIGN needs no alignment work. An allocation's fast path takes 1 conditional branch. Realloc is not in the post's listings; as its discussion of reallocation describes, the last block grows or shrinks in place when the chunk has room (only the bump pointer moves, no byte is copied), and any other block is allocated anew and copied, its old bytes left behind."
            }
            PresetId::DownMinAlign => {
                "Bump down with a minimum alignment over one fixed chunk: the size rounded up to MIN_ALIGN, rounding down only above it. An allocation's fast path takes 2 conditional branches. Realloc is not in the listings; as Hinckley's discussion of reallocation describes bumpalo's trick, the last block is bumped again from its own end and its bytes are copied to the new start over the old ones (moved down to grow, up to shrink): no space is lost, but every byte is copied. Any other block is allocated anew and copied, its old bytes left behind."
            }
            PresetId::BumperAllocBuffer => {
                "Bumper.jl's AllocBuffer: one fixed 1 MiB buffer bumped up by the byte count, with no alignment; the offset moves before the check, so an overflow error leaves it past the end."
            }
            PresetId::BumperSlab => {
                "Bumper.jl's SlabBuffer: 1 MiB slabs, a custom slab for a request of half a slab or more; restoring a checkpoint frees the slabs made since (the slab-boundary pitfall)."
            }
            PresetId::CppArena => {
                "The C++ parser arena: pools with a 3-word header at their start, made when remaining <= n, sized max(cap * 2, (n / cap) * 2 * cap); std::align can still fail and throw bad_alloc."
            }
            PresetId::BumpScopeUp => {
                "bump-scope 2.4.1 bumping up: header at each chunk's start, a first chunk of 464 usable bytes (480 on wasm32) made by Bump::new(), chunks doubling; the last block grows and shrinks in place; chunks made after a checkpoint are kept and reused."
            }
            PresetId::BumpScopeDown => {
                "bump-scope 2.4.1 bumping down: header at each chunk's end, a first chunk of 464 usable bytes (480 on wasm32) made by Bump::new(), chunks doubling; growing the last block reuses its space with a copy; chunks made after a checkpoint are kept and reused."
            }
            PresetId::Bumpalo => {
                "bumpalo 3.20.4: bumps down, footer at each chunk's end (48 B on 64-bit, 32 on wasm32); Bump::new() owns no chunk until the first allocation (448 B usable, 464 on wasm32), each next chunk at least double; growing the last block moves it down with a copy, shrink moves only the last block and only if half comes back, free reclaims only the last block, reset keeps the current chunk. bumpalo has no checkpoints: checkpoint/restore here are the playground's emulation: checkpoint saves the current chunk and its bump pointer; restore frees the chunks made since (newest first), makes the saved chunk current and puts its bump pointer back exactly where it was, which leaves the arena as it was at the checkpoint."
            }
            PresetId::BlinkAlloc => {
                "blink-alloc 0.4.0 (BlinkAlloc): bumps up, a 4-word header at each chunk's start (32 B on 64-bit, 16 on wasm32); no chunk until the first allocation, which gets 256 B (Capacity: with_chunk_size) plus the header, rounded to a power of two; each next chunk is sized from the capacity of the chunks before the current one plus the request, a power of two below 16 KiB, a multiple of 16 KiB above; no minimum alignment; growing the last block is in place, shrinking never moves or gives back; deallocate compares the cursor with the block's start, so it gives nothing back; reset keeps the newest chunk. blink-alloc has no checkpoints: checkpoint/restore here are the playground's emulation: checkpoint saves the current chunk and its cursor; restore frees the chunks made since, makes the saved chunk current and puts its cursor back, which leaves the arena as it was at the checkpoint (the chunks kept still count the same total for the next chunk's size)."
            }
            PresetId::ZigFixedBuffer => {
                "Zig 0.17.1's std.heap.FixedBufferAllocator (lib/std/heap/FixedBufferAllocator.zig in PyPI's ziglang wheel): bumps end_index up through one buffer of 4096 bytes (Capacity: the buffer's size) from the base allocator, aligning each request's address; a request past the end fails with error.OutOfMemory; only the last allocation can be resized or freed; reset sets end_index to 0; checkpoint/restore save and store back end_index, the Zig idiom for scoping a fixed buffer; zero-sized requests get a dangling pointer (Zig's maxInt(usize) rounded down to the alignment, shown at the alignment)."
            }
            PresetId::ZigArena => {
                "Zig 0.17.1's std.heap.ArenaAllocator (lib/std/heap/ArenaAllocator.zig in PyPI's ziglang wheel) over a child allocator (Child: std.heap.page_allocator, as Zig programs write it, or a simulated heap that never resizes in place): bumps up through buffers that open with a 3-word node (24 B on 64-bit, 12 on wasm32); no buffer until the first allocation; a request that does not fit leaves end_index past the buffer's end, and the arena asks the child to grow the buffer in place to hold the block after that end: page_allocator grants it inside what it reserved for the buffer (its 4 KiB pages on 64-bit, its power-of-two size class on wasm32; the chunk shown is that reservation), the block landing after a gap as large as the request; otherwise the arena makes a new buffer of 1.5 x (old buffer + node + alignment + request + 16), rounded up to even; only the newest buffer's last allocation can be resized or freed; reset is .retain_capacity (Capacity: .retain_with_limit), which keeps one empty buffer as large as all of them were, resized in place when the child can; zero-sized requests get a dangling pointer (Zig's maxInt(usize) rounded down to the alignment, shown at the alignment); a request whose size arithmetic passes maxInt(usize) stops the program where Zig panics. No checkpoints: the playground's emulation saves the newest buffer and its end_index; restore gives the buffers made since back to the child (newest first), makes the saved buffer first again and puts its end_index back; a buffer grown in place since keeps its size."
            }
            PresetId::PmrMonotonic => {
                "libstdc++'s std::pmr::monotonic_buffer_resource (GCC 12.2.0: <memory_resource> and libstdc++.so): bumps up with std::align; no buffer until the first allocation; each buffer holds max(request, next size) plus a 16-byte record at its end (8 on wasm32), rounded up to 64 and aligned to at least 16; the next size starts at 1024 (Capacity: initial_size) and grows by 1.5 in float; a request that does not fit abandons the rest of the current buffer; a zero-sized request takes one byte; deallocate does nothing; release() (reset) gives every buffer back and starts the sizes over. No realloc (allocate and copy). No checkpoints: the playground's emulation saves the current position, the bytes left and the next buffer's size; restore gives the buffers made since back upstream and puts those three back, which leaves the resource as it was at the checkpoint."
            }
            PresetId::LlvmBumpPtr => {
                "LLVM 14.0.6's BumpPtrAllocator (llvm/Support/Allocator.h from Debian's LLVM development package): bumps up through slabs whose list lives outside them (no header); no slab until the first allocation; 4096-byte slabs (Capacity: SlabSize), doubling every 128 slabs; a request whose size + alignment - 1 exceeds the slab size gets a custom-sized slab that never becomes current; Deallocate does nothing; Reset frees the custom slabs and all slabs but the first. No realloc (allocate and copy). No checkpoints: the playground's emulation saves CurPtr, End and how many slabs and custom slabs there are; restore frees the slabs and custom slabs made since and puts CurPtr and End back, which leaves the allocator as it was at the checkpoint (the growth delay counts only the slabs kept)."
            }
        }
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

/// What `bumplab list` and the allocator chooser show.
#[derive(Clone, Debug, Serialize)]
pub struct PresetInfo {
    pub name: &'static str,
    pub direction: Direction,
    pub source: Source,
    pub description: &'static str,
    /// Minimum alignments it can be built with, default first (empty: no such setting).
    pub min_aligns: &'static [u64],
    /// Child allocators it can run over, default first (empty: no such setting).
    pub children: &'static [Child],
    /// Which build of the trace module runs it.
    pub family: Family,
}

pub fn list() -> Vec<PresetInfo> {
    PresetId::ALL
        .into_iter()
        .map(|p| PresetInfo {
            name: p.name(),
            direction: p.direction(),
            source: p.source(),
            description: p.description(),
            min_aligns: p.min_aligns(),
            children: p.children(),
            family: p.family(),
        })
        .collect()
}
