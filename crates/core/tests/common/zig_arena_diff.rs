//! The zig-arena suite's two sides: Zig's real ArenaAllocator in the
//! harness (tests/native/zig_heaps.zig) and the model, each run over a child
//! allocator on a target, and the comparison of what each op left on them.

use std::sync::Mutex;

use super::arena_diff::{compare, parse_steps, run_model_over, without_addresses, Seen, Step};
use super::native::{self, Harness};
use bumplab_core::model::Child;
use bumplab_core::trace::EventKind;
use bumplab_core::{PresetId, Target, Trace};

pub const PRESET: PresetId = PresetId::ZigArena;
pub const TARGETS: [Target; 2] = [Target::W64, Target::Wasm32];
pub const CHILDREN: [Child; 2] = [Child::Page, Child::Heap];

/// The harness for `target`, built once per test binary and shared.
pub fn harness(target: Target) -> &'static Mutex<Harness> {
    static HARNESSES: native::PerTarget = native::PerTarget::new();
    HARNESSES.get(target, || {
        let bin = native::build_zig("zig_heaps", "zig_heaps.zig", target);
        Harness::spawn_for("zig_heaps", &bin, target)
    })
}

pub fn word(target: Target) -> u64 {
    match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    }
}

/// What each op left on the real arena over `child`.
pub fn real(
    target: Target,
    child: Child,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<Vec<Seen>, String> {
    let mut h = harness(target).lock().unwrap_or_else(|e| e.into_inner());
    h.set_mode(match child {
        Child::Page => "arena-page",
        Child::Heap => "arena",
    });
    let mut raw = h.run(capacity, steps)?;
    native::zig_dangling_as_shown(&mut raw, steps, target)?;
    let seen = native::seen(&raw, steps);
    Ok(match child {
        Child::Page => without_addresses(&seen),
        Child::Heap => seen,
    })
}

/// What each op left on the model over `child`, and its trace.
pub fn model_run(
    target: Target,
    child: Child,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<(Trace, Vec<Seen>), String> {
    let (t, seen) = run_model_over(PRESET, target, capacity, Some(child), steps)?;
    Ok(match child {
        Child::Page => (t, without_addresses(&seen)),
        Child::Heap => (t, seen),
    })
}

/// Runs `src` on the model and on Zig's arena over `child` on `target`,
/// asserts they agree op by op, and returns the model's trace.
pub fn both_on(target: Target, child: Child, src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = model_run(target, child, capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    let real = real(target, child, capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    let what = format!("zig-arena over {child:?} on {target:?}");
    compare(&what, 0, capacity, &steps, &model, &real).unwrap_or_else(|e| panic!("{e}"));
    t
}

/// [`both_on`] on both targets; the 64-bit trace.
pub fn both(child: Child, src: &str, capacity: Option<u64>) -> Trace {
    both_on(Target::Wasm32, child, src, capacity);
    both_on(Target::W64, child, src, capacity)
}

pub fn sizes(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.size).collect()
}

pub fn offsets(t: &Trace) -> Vec<Option<u64>> {
    t.ops.iter().map(|o| o.offset).collect()
}

pub fn has_note(t: &Trace, op: usize, text: &str) -> bool {
    t.ops[op]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains(text))
}

/// The values a micro-step recorded, by name, in op `op`.
pub fn step_values(t: &Trace, op: usize, id: &str) -> Vec<Vec<(&'static str, u64)>> {
    t.ops[op]
        .events
        .iter()
        .flat_map(|e| &e.steps)
        .filter(|s| s.id == id)
        .map(|s| s.values.iter().map(|v| (v.name, v.value)).collect())
        .collect()
}
