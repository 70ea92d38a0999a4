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
