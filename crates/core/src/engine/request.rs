//! What a caller may ask of the engine, checked before anything runs: the
//! preset and target by name, the capacity, the minimum alignment, and each
//! op's size and alignment. Every refusal is an error at a position that
//! says what is allowed.

use crate::heap::Heap;
use crate::model::{AllocError, Child};
use crate::presets::PresetId;
use crate::program::{Pos, ProgramError};
use crate::word::{Target, Word};

use super::{Options, MAX_ALIGN, MAX_CAPACITY};

/// A request as the wasm modules get it, by name: the preset and the run's
/// options, or an error at 1:1 that lists what is allowed.
pub fn request(
    allocator: &str,
    target: &str,
    capacity: Option<u64>,
    min_align: Option<u64>,
    child: Option<&str>,
) -> Result<(PresetId, Options), ProgramError> {
    let at_start = |message: String| ProgramError::at(Pos { line: 1, column: 1 }, message);
    let preset = PresetId::parse(allocator).ok_or_else(|| {
        let names: Vec<_> = PresetId::ALL.iter().map(|p| p.name()).collect();
        at_start(format!(
            "unknown allocator '{allocator}': use one of {}",
            names.join(", ")
        ))
    })?;
    let target = Target::parse(target)
        .ok_or_else(|| at_start(format!("unknown target '{target}': use 64 or wasm32")))?;
    let child = match child {
        None => None,
        Some(name) => Some(Child::parse(name).ok_or_else(|| {
            let names: Vec<_> = Child::ALL.iter().map(|c| c.name()).collect();
            at_start(format!(
                "unknown child allocator '{name}': use one of {}",
                names.join(", ")
            ))
        })?),
    };
    let opts = Options {
        target,
        capacity,
        min_align,
        child,
    };
    Ok((preset, opts))
}

/// The child allocator `preset` runs over: `requested` if the preset takes
/// one, its default if `None`.
pub fn resolve_child(preset: PresetId, requested: Option<Child>) -> Result<Child, ProgramError> {
    let allowed = preset.children();
    match requested {
        None => Ok(allowed.first().copied().unwrap_or_default()),
        Some(c) if allowed.contains(&c) => Ok(c),
        Some(c) => Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            format!(
                "{} has no child allocator setting (asked for {})",
                preset.name(),
                c.name()
            ),
        )),
    }
}

/// The minimum alignment `preset` runs with: `requested` if the preset
/// allows it, its default if `None`.
pub fn resolve_min_align(preset: PresetId, requested: Option<u64>) -> Result<u64, ProgramError> {
    let allowed = preset.min_aligns();
    match requested {
        None => Ok(allowed.first().copied().unwrap_or(1)),
        Some(m) if allowed.contains(&m) => Ok(m),
        Some(m) => {
            let msg = if allowed.is_empty() {
                format!(
                    "{} has no minimum alignment setting (asked for {m})",
                    preset.name()
                )
            } else {
                let list: Vec<String> = allowed.iter().map(u64::to_string).collect();
                format!(
                    "minimum alignment {m} is not allowed for {}: use one of {}",
                    preset.name(),
                    list.join(", ")
                )
            };
            Err(ProgramError::at(Pos { line: 1, column: 1 }, msg))
        }
    }
}

/// A capacity the user chose: a multiple of 16 up to [`MAX_CAPACITY`].
pub(super) fn check_capacity(capacity: Option<u64>) -> Result<(), ProgramError> {
    match capacity {
        Some(c) if c == 0 || c > MAX_CAPACITY || c % 16 != 0 => Err(ProgramError::at(
            Pos { line: 1, column: 1 },
            format!("capacity {c} is not allowed: use a multiple of 16 from 16 to {MAX_CAPACITY}"),
        )),
        _ => Ok(()),
    }
}

pub(super) fn check_align(align: u64, pos: Pos) -> Result<(), ProgramError> {
    if align == 0 || !align.is_power_of_two() || align > MAX_ALIGN {
        return Err(ProgramError::at(
            pos,
            format!("alignment {align} is not allowed: use a power of two from 1 to {MAX_ALIGN}"),
        ));
    }
    Ok(())
}

/// `Layout::from_size_align`'s rule on the target: size rounded up to
/// align must not exceed `isize::MAX`.
pub(super) fn check_layout<W: Word>(size: u64, align: u64, pos: Pos) -> Result<(), ProgramError> {
    let limit = W::ISIZE_MAX.to_u64();
    let rounded = size.checked_add(align - 1).map(|v| v & !(align - 1));
    match rounded {
        Some(r) if r <= limit => Ok(()),
        _ => Err(ProgramError::at(
            pos,
            format!("size {size:#x} with align {align} exceeds isize::MAX ({limit:#x}) on this target: no Layout can describe it"),
        )),
    }
}

/// The error a model's refusal becomes when the program cannot go on.
pub(super) fn model_error(
    pos: Pos,
    e: AllocError,
    target: Target,
    preset: PresetId,
) -> ProgramError {
    let limit = Heap::<u64>::limit(target);
    let why = match e {
        AllocError::HeapExhausted => {
            format!("the simulated base allocator has no room for the chunk this needs (its heap is {limit:#x} bytes)")
        }
        AllocError::Overflow => match preset {
            PresetId::ZigArena => "integer overflow in the allocator's own size arithmetic: Zig's ArenaAllocator panics on this request in a safety-checked build (the grown or new buffer's size does not fit a usize)".into(),
            PresetId::BlinkAlloc => "the chunk this needs is larger than isize::MAX: blink-alloc 0.4.0 builds its Layout without a check (Layout::from_size_align_unchecked), undefined behaviour that a debug build stops with a panic".into(),
            _ => "the allocator's own size arithmetic overflows on this request".into(),
        },
        AllocError::Full => "the allocator is full".into(),
        AllocError::BadAlloc => "std::bad_alloc".into(),
    };
    ProgramError::at(pos, why)
}
