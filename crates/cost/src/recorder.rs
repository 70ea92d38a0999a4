//! Recording which instructions one op executes, for the Instructions view
//! and `bumplab trace --executed`.
//!
//! bumplab-meter compiles a recorder into every instrumented function, off
//! until `bumplab_meter_record` (see [`crate::meter`]) gives it room: then
//! each place where control went one way or another (a function entry, the
//! way on from a conditional branch) appends its site number (see
//! `bumplab_meter::rebuild`). This module owns that
//! room, a buffer made once, before the first replay it records (the
//! replays keep their own memory in the replay region, so their addresses
//! and counts do not depend on it), and switches the recorder on around
//! exactly one root call: the one of the op asked for, in each column.
//!
//! The replays say which op they are at ([`at`]); their counted windows ask
//! [`start`] and [`stop`] whether to record. Recording never changes a
//! count: the recorder's code is the meter's own, like the counter updates.

use std::cell::Cell;

use crate::meter;

/// The measured columns, in the order a trace runs them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Column {
    Model = 0,
    Real = 1,
    Baseline = 2,
}

/// Room for this many entries (4 bytes each): far above the longest op of
/// the presets (the biggest slow path records a few hundred).
const CAPACITY: usize = 1 << 17;

#[derive(Clone, Copy, Default)]
struct State {
    /// The op to record, when armed.
    target: Option<usize>,
    /// Where the replay running now is.
    current: Option<(Column, usize)>,
    /// Entries used so far.
    fill: usize,
    /// Each column's entries: a range of the buffer.
    spans: [Option<(usize, usize)>; 3],
    /// The column being recorded now.
    active: Option<Column>,
}

thread_local! {
    static STATE: Cell<State> = Cell::new(State::default());
    static BUFFER: Cell<*mut u32> = const { Cell::new(core::ptr::null_mut()) };
}

fn update(f: impl FnOnce(&mut State)) {
    STATE.with(|s| {
        let mut state = s.get();
        f(&mut state);
        s.set(state);
    });
}

fn buffer() -> *mut u32 {
    BUFFER.with(Cell::get)
}

/// From now on, record op `op` of every column.
pub fn arm(op: usize) {
    if buffer().is_null() {
        // Kept for the module's life: every later recording reuses it.
        let room: &'static mut [u32] = Vec::leak(vec![0u32; CAPACITY]);
        BUFFER.with(|b| b.set(room.as_mut_ptr()));
    }
    update(|s| {
        *s = State {
            target: Some(op),
            ..State::default()
        }
    });
}

/// Stop recording anything (what was recorded stays until the next [`arm`]).
pub fn disarm() {
    update(|s| {
        s.target = None;
        s.current = None;
    });
}

/// The replay of `column` is at op `op` now.
#[inline(never)]
pub fn at(column: Column, op: usize) {
    update(|s| {
        if s.target.is_some() {
            s.current = Some((column, op));
        }
    });
}

/// Switches the recorder on if this is the op to record: call right
/// before the root call, with [`stop`] right after it.
#[inline(never)]
pub fn start() {
    update(|s| {
        let Some((column, op)) = s.current else {
            return;
        };
        if s.target != Some(op) || !meter::metered() {
            return;
        }
        let span = s.spans[column as usize].get_or_insert((s.fill, s.fill));
        let from = span.1;
        s.active = Some(column);
        // SAFETY: `from <= CAPACITY`: an offset within the buffer or its end.
        let ptr = unsafe { buffer().add(from) };
        meter::bumplab_meter_record(ptr as usize as u32, ((CAPACITY - from) * 4) as u32);
    });
}

/// Switches the recorder off again after [`start`].
#[inline(never)]
pub fn stop() {
    update(|s| {
        let Some(column) = s.active.take() else {
            return;
        };
        let end = meter::record_pointer() as usize;
        meter::bumplab_meter_record(0, 0);
        let used = (end - buffer() as usize) / 4;
        if let Some(span) = s.spans[column as usize].as_mut() {
            span.1 = used;
        }
        s.fill = used;
    });
}

/// What `column` recorded: its site numbers, and whether the buffer filled
/// up (the list then stops early). `None`: nothing was recorded for it.
pub fn take(column: Column) -> Option<(Vec<u32>, bool)> {
    let state = STATE.with(Cell::get);
    let (from, to) = state.spans[column as usize]?;
    let entries = (from..to)
        // SAFETY: entries below `fill` were written by the recorder.
        .map(|i| unsafe { *buffer().add(i) })
        .collect();
    Some((entries, state.fill >= CAPACITY))
}
