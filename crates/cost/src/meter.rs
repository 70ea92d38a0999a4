//! Reading bumplab-meter's counters from inside the module.
//!
//! `bumplab_meter_read` is a placeholder: bumplab-meter replaces its body
//! with a reader of the counters it adds (0 instructions, 1 branches, 2 slow
//! instructions, 3 slow branches, anything else 1 for "metered"). In a
//! module that was not metered (native tests, `wasm-pack test`) it returns 0
//! and [`metered`] is false.

use bumplab_core::trace::Cost;

static PLACEHOLDER: [u64; 4] = [0; 4];

#[no_mangle]
#[inline(never)]
pub extern "C" fn bumplab_meter_read(which: u32) -> u64 {
    // The body must use `which`, or LLVM treats the argument as dead and
    // passes a dummy at every call site, and must read volatile, or LLVM
    // assumes the value: either would defeat the meter's replacement.
    let slot = &PLACEHOLDER[which as usize & 3];
    // SAFETY: `slot` is a valid, initialised, aligned reference.
    unsafe { core::ptr::read_volatile(slot) }
}

/// Whether this module was rewritten by bumplab-meter.
pub fn metered() -> bool {
    bumplab_meter_read(u32::MAX) == 1
}

/// The counters now.
pub fn now() -> Cost {
    Cost {
        wasm_instructions: bumplab_meter_read(0),
        wasm_branches: bumplab_meter_read(1),
        slow_instructions: bumplab_meter_read(2),
        slow_branches: bumplab_meter_read(3),
    }
}

/// What ran between two readings.
pub fn since(before: Cost) -> Cost {
    let after = now();
    Cost {
        wasm_instructions: after.wasm_instructions - before.wasm_instructions,
        wasm_branches: after.wasm_branches - before.wasm_branches,
        slow_instructions: after.slow_instructions - before.slow_instructions,
        slow_branches: after.slow_branches - before.slow_branches,
    }
}

static mut RECORD_SINK: [u32; 2] = [0; 2];
static NO_PLAN: u32 = 0;

/// A placeholder like [`bumplab_meter_read`]: bumplab-meter replaces its
/// body with the recorder's switch (see `bumplab_meter::Options::recorder`):
/// from then on the instrumented code appends the site numbers it passes
/// (`u32`s) at `ptr`, within `len_bytes`; `(0, 0)` switches it off. Here it does nothing.
#[no_mangle]
#[inline(never)]
pub extern "C" fn bumplab_meter_record(ptr: u32, len_bytes: u32) {
    // Volatile writes of both arguments, so LLVM passes them as given.
    let sink = (&raw mut RECORD_SINK).cast::<u32>();
    // SAFETY: writes of in-bounds, aligned slots of a static nobody reads
    // but this function; the module is single-threaded.
    unsafe {
        core::ptr::write_volatile(sink, ptr);
        core::ptr::write_volatile(sink.add(1), len_bytes);
    }
}

/// A placeholder: bumplab-meter replaces its body with the recorder's
/// append of a site number, which the instrumented code calls while
/// recording. Here it does nothing.
#[no_mangle]
#[inline(never)]
pub extern "C" fn bumplab_meter_append(site: u32) {
    bumplab_meter_record(site, 0);
}

/// A placeholder: bumplab-meter replaces its body with a copy of the plan
/// of the instrumented functions (`bumplab_meter::rebuild`) to `dst` when it
/// fits in `capacity` bytes; it returns the plan's length. Here: no plan.
#[no_mangle]
#[inline(never)]
pub extern "C" fn bumplab_meter_plan(dst: *mut u8, capacity: u32) -> u32 {
    // Uses both arguments (see above) and reads the length volatile, so
    // LLVM cannot assume it at the call sites.
    bumplab_meter_record(dst as usize as u32, capacity);
    // SAFETY: a valid, initialised, aligned reference.
    unsafe { core::ptr::read_volatile(&NO_PLAN) }
}

/// Where the recorder will write its next entry (its pointer).
pub fn record_pointer() -> u32 {
    bumplab_meter_read(4) as u32
}
