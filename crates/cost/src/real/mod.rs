//! A trace's ops replayed on the REAL crates, live, inside the module.
//!
//! Two runs sit beside the model's trace:
//!
//! * [`real_run`]: the bumpalo and bump-scope presets replayed on
//!   `bumpalo::Bump<MIN_ALIGN>` and `bump_scope::Bump<Global, BumpSettings<
//!   MIN_ALIGN, UP>>` (the versions the models follow), recording where the
//!   crate put each block (chunk in creation order, its capacity, the offset
//!   from its first usable byte, moved or not) and comparing that with the
//!   model's placement. Only when the trace simulates the target this code is
//!   compiled for: the page's module is wasm32, so there a 64-bit trace gets
//!   `unavailable` (natively, for the tests, the other way round).
//! * [`baseline`]: the same allocation sizes through the module's global
//!   allocator (`std::alloc`; on wasm32 that is dlmalloc), for scale.
//!
//! Costs: every real operation goes through its own `#[inline(never)]`
//! `bumplab_measure_real_*` / `bumplab_measure_global_*` function, a root
//! that bumplab-meter instruments with everything it calls, and the counters
//! are read around that call only, as `measure.rs` does for the models. So a
//! cost is the crate's own code (plus the root's few instructions of call
//! overhead); reading the chunk layout happens outside, uncounted. In a module
//! that was not metered (native tests, `wasm-pack test`) the placements and
//! mismatches are still computed and `cost` is absent.
//!
//! This is real memory, taken from the module's own heap: a program that
//! would need more than [`REAL_LIMIT`] bytes in total is refused, with a
//! reason, before anything is allocated. All of it is freed at the end.

use std::alloc::Layout;

use bump_scope::alloc::Global;
use bump_scope::settings::{BumpAllocatorSettings, BumpSettings, True};
use bumplab_core::trace::{Cost, OpKind, RealRun, Trace};
use bumplab_core::{PresetId, Target};

/// The most a real run (or the baseline) may ask for, in total: 64 MiB.
pub const REAL_LIMIT: u64 = 64 << 20;

/// Alignments up to this have offsets that do not depend on where the base
/// allocator put the chunk (it hands out 16-aligned memory).
const ADDRESS_FREE_ALIGN: u64 = 16;

pub const BUMPALO: &str = "bumpalo 3.20.4";
pub const BUMP_SCOPE: &str = "bump-scope 2.4.1";

/// The trace target that matches the code running now, if any.
fn here() -> Option<Target> {
    if cfg!(target_arch = "wasm32") {
        Some(Target::Wasm32)
    } else if cfg!(target_pointer_width = "64") {
        Some(Target::W64)
    } else {
        None
    }
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::W64 => "64-bit",
        Target::Wasm32 => "wasm32",
    }
}

/// Runs `f` and, when `metered`, what it executed.
#[inline(always)]
fn counted<T>(metered: bool, f: impl FnOnce() -> T) -> (T, Option<Cost>) {
    if metered {
        let before = crate::meter::now();
        crate::recorder::start();
        let out = f();
        crate::recorder::stop();
        (out, Some(crate::meter::since(before)))
    } else {
        (f(), None)
    }
}

/// [`counted`] for a call into a real crate: its allocations go through the
/// replay region (see `replay_alloc`), so its slow path costs the same every time.
fn counted_real<T>(metered: bool, f: impl FnOnce() -> T) -> (T, Option<Cost>) {
    counted(metered, || crate::replay_alloc::measured(f))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// Bytes the program asks for in total: every alloc and every realloc's new size.
fn requested_total(trace: &Trace) -> u64 {
    trace
        .ops
        .iter()
        .filter(|o| matches!(o.kind, OpKind::Alloc | OpKind::Realloc))
        .map(|o| o.size.unwrap_or(0))
        .fold(0u64, u64::saturating_add)
}

fn layout(size: u64, align: u64) -> Option<Layout> {
    let size = usize::try_from(size).ok()?;
    let align = usize::try_from(align).ok()?;
    Layout::from_size_align(size, align).ok()
}

mod baseline;
mod chunk_table;
mod crates;
mod replay;
#[cfg(all(test, target_pointer_width = "64"))]
mod tests;

pub use baseline::baseline;
use crates::{BumpScope, Bumpalo, RealBump};
use replay::{compare, replay};

fn run_on<R: RealBump>(bump: impl FnOnce() -> R, trace: &Trace, metered: bool) -> RealRun {
    // Made in the replay region too, so its first chunk sits at the same
    // place in it every run (copies and alignment work cost the same).
    match replay(crate::replay_alloc::measured(bump), trace, metered) {
        Ok(replayed) => RealRun {
            krate: R::CRATE.to_string(),
            unavailable: None,
            mismatches: Some(compare(trace, &replayed)),
            ops: Some(replayed.ops),
        },
        Err(why) => RealRun::unavailable(R::CRATE, why),
    }
}

fn bumpalo_with<const M: usize>(capacity: Option<u64>) -> Bumpalo<M> {
    Bumpalo(match capacity.filter(|&c| c > 0) {
        Some(c) => bumpalo::Bump::<M>::with_min_align_and_capacity(c as usize),
        None => bumpalo::Bump::<M>::with_min_align(),
    })
}

/// `Bump::new()`, or with a capacity chosen `Bump::with_capacity` for that
/// many bytes at alignment 1 (as the model reads the knob).
fn bump_scope_with<S: BumpAllocatorSettings<GuaranteedAllocated = True>>(
    capacity: Option<u64>,
) -> BumpScope<S> {
    BumpScope(match capacity.and_then(|c| layout(c, 1)) {
        Some(l) => bump_scope::Bump::<Global, S>::with_capacity(l),
        None => bump_scope::Bump::<Global, S>::new(),
    })
}

/// `trace` (of `preset`, built with `min_align` and `capacity`) replayed on
/// the real crate; `None` for presets that model no crate.
pub fn real_run(
    trace: &Trace,
    preset: PresetId,
    min_align: u64,
    capacity: Option<u64>,
    metered: bool,
) -> Option<RealRun> {
    let krate = match preset {
        PresetId::Bumpalo => BUMPALO,
        PresetId::BumpScopeUp | PresetId::BumpScopeDown => BUMP_SCOPE,
        _ => return None,
    };
    let unavailable = |why| Some(RealRun::unavailable(krate, why));
    let Some(here) = here() else {
        return unavailable("the real crates run only on wasm32 and 64-bit targets".into());
    };
    if trace.target != here {
        return unavailable(format!(
            "the real crate runs here compiled for {}; this trace simulates {}, \
             so its chunk sizes and offsets are not the crate's here",
            target_name(here),
            target_name(trace.target)
        ));
    }
    let requested = requested_total(trace);
    let chunks = trace
        .chunks
        .iter()
        .map(|c| c.size)
        .fold(0u64, u64::saturating_add);
    if requested > REAL_LIMIT || chunks > REAL_LIMIT {
        return unavailable(format!(
            "the program needs {} of requests and {} of chunks; real runs are limited to {} \
             in total",
            mib(requested),
            mib(chunks),
            mib(REAL_LIMIT)
        ));
    }
    let c = capacity;
    let t = trace;
    crate::replay_alloc::begin_pass(crate::replay_alloc::pass_bytes(t.ops.len(), requested));
    let run = match (preset, min_align) {
        (PresetId::Bumpalo, 1) => run_on(|| bumpalo_with::<1>(c), t, metered),
        (PresetId::Bumpalo, 2) => run_on(|| bumpalo_with::<2>(c), t, metered),
        (PresetId::Bumpalo, 4) => run_on(|| bumpalo_with::<4>(c), t, metered),
        (PresetId::Bumpalo, 8) => run_on(|| bumpalo_with::<8>(c), t, metered),
        (PresetId::Bumpalo, 16) => run_on(|| bumpalo_with::<16>(c), t, metered),
        (PresetId::BumpScopeUp, 1) => {
            run_on(|| bump_scope_with::<BumpSettings<1, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 2) => {
            run_on(|| bump_scope_with::<BumpSettings<2, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 4) => {
            run_on(|| bump_scope_with::<BumpSettings<4, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 8) => {
            run_on(|| bump_scope_with::<BumpSettings<8, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 16) => {
            run_on(|| bump_scope_with::<BumpSettings<16, true>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 1) => {
            run_on(|| bump_scope_with::<BumpSettings<1, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 2) => {
            run_on(|| bump_scope_with::<BumpSettings<2, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 4) => {
            run_on(|| bump_scope_with::<BumpSettings<4, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 8) => {
            run_on(|| bump_scope_with::<BumpSettings<8, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 16) => {
            run_on(|| bump_scope_with::<BumpSettings<16, false>>(c), t, metered)
        }
        (_, m) => return unavailable(format!("the real crate has no MIN_ALIGN {m}")),
    };
    Some(run)
}
