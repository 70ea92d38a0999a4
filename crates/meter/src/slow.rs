//! The slow-path split.
//!
//! A *slow function* is an instrumented function whose name (from the `name`
//! section) contains the slow substring, e.g. a `#[cold]` `alloc_slow`. Every
//! instruction and branch executed while at least one slow function is active
//! (its own and those of everything it calls) is also added to the two slow
//! counters, so the page can show `fast = total - slow` next to `slow`.
//!
//! How, exactly: a depth global counts active slow functions.
//! * Entry: if `depth == 0`, save both counters in two private globals; then
//!   `depth += 1`.
//! * Exit: `depth -= 1`; if `depth == 0`, add `counter - saved` to each slow
//!   counter.
//!
//! Every exit has to pass through the exit code, so the body is wrapped in a
//! `block` with the function's result type and the exit code follows that
//! block. Branches that targeted the function's own frame now target the
//! wrapper (it sits exactly one frame inside the function frame, so their
//! relative depths stay right), `return` becomes `br` to the wrapper, and
//! `return_call*` becomes the plain call followed by that `br` (the tail-called
//! function is then counted as part of the slow window, which is where its
//! work was asked for).
//!
//! Order matters: the entry code runs before the first segment's counter
//! update, so the slow function's own first segment is inside the window. The
//! meter's own instructions are never counted (costs come only from the
//! input's operators), so the wrapper changes no count.
//!
//! Not handled: a trap inside a slow function leaves `depth` above 0 (the
//! instance is unusable after a trap in a panic=abort Rust build anyway).

use wasm_encoder::{BlockType, InstructionSink};
use wasmparser::Operator;

use crate::MeterGlobals;

/// What the rewrite of one slow function needs.
pub(crate) struct SlowWrap {
    pub globals: MeterGlobals,
    /// The wrapper block's type: the function's results.
    pub block_type: BlockType,
}

impl SlowWrap {
    /// Entry code and the start of the wrapper block.
    pub fn enter(&self, out: &mut Vec<u8>) {
        let g = &self.globals;
        let mut sink = InstructionSink::new(out);
        sink.global_get(g.slow_depth)
            .i32_eqz()
            .if_(BlockType::Empty)
            .global_get(g.instructions)
            .global_set(g.saved_instructions)
            .global_get(g.branches)
            .global_set(g.saved_branches)
            .end()
            .global_get(g.slow_depth)
            .i32_const(1)
            .i32_add()
            .global_set(g.slow_depth)
            .block(self.block_type);
    }

    /// The end of the wrapper block and the exit code. The function's results
    /// stay on the stack below: the exit code only touches globals.
    pub fn leave(&self, out: &mut Vec<u8>) {
        let g = &self.globals;
        let mut sink = InstructionSink::new(out);
        sink.end()
            .global_get(g.slow_depth)
            .i32_const(1)
            .i32_sub()
            .global_set(g.slow_depth)
            .global_get(g.slow_depth)
            .i32_eqz()
            .if_(BlockType::Empty);
        for (slow, counter, saved) in [
            (g.slow_instructions, g.instructions, g.saved_instructions),
            (g.slow_branches, g.branches, g.saved_branches),
        ] {
            sink.global_get(slow)
                .global_get(counter)
                .global_get(saved)
                .i64_sub()
                .i64_add()
                .global_set(slow);
        }
        sink.end();
    }

    /// If `op` leaves the function, writes its replacement (which goes through
    /// the wrapper's end instead) and returns true. `depth` is the number of
    /// frames open inside the wrapper at `op`, i.e. the wrapper's label.
    pub fn rewrite_exit(&self, op: &Operator<'_>, depth: u32, out: &mut Vec<u8>) -> bool {
        let mut sink = InstructionSink::new(out);
        match *op {
            Operator::Return => {}
            Operator::ReturnCall { function_index } => {
                sink.call(function_index);
            }
            Operator::ReturnCallIndirect {
                type_index,
                table_index,
            } => {
                sink.call_indirect(table_index, type_index);
            }
            Operator::ReturnCallRef { type_index } => {
                sink.call_ref(type_index);
            }
            _ => return false,
        }
        sink.br(depth);
        true
    }
}
