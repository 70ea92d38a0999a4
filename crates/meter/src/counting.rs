//! The counting rewrite: the cost table, the split of a function body into
//! straight-line segments, and the body rewrite that adds each segment's cost
//! to the counters at the segment's start.
//!
//! Why a prologue per segment is exact: once control enters a segment it runs
//! to the segment's last instruction (a trap aside), because every instruction
//! that can move control elsewhere ends a segment, and every place control can
//! arrive at starts one. Calls do not end segments: the callee returns to the
//! next instruction, and it counts its own instructions itself.

use std::ops::{Add, AddAssign, Range};

use wasm_encoder::InstructionSink;
use wasmparser::Operator;

use crate::module::Body;
use crate::slow::SlowWrap;
use crate::{Error, MeterGlobals};

/// What executing one operator adds to the two counters.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Added to `bumplab_meter_instructions`.
    pub instructions: u64,
    /// Added to `bumplab_meter_branches`.
    pub branches: u64,
}

impl Cost {
    pub const ZERO: Cost = Cost {
        instructions: 0,
        branches: 0,
    };

    fn is_zero(self) -> bool {
        self == Cost::ZERO
    }
}

impl Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost {
            instructions: self.instructions + other.instructions,
            branches: self.branches + other.branches,
        }
    }
}

impl AddAssign for Cost {
    fn add_assign(&mut self, other: Cost) {
        *self = *self + other;
    }
}

/// The cost table: the single definition of what the meter counts (see
/// [`crate::COST_MODEL`] for the same in words).
///
/// * `nop`, `block`, `loop`, `else` and `end` count 0: they are structure, not
///   work (wasmtime's fuel and Cranelift agree: they generate no code).
/// * Every other operator counts 1 instruction, including `drop`, `return`,
///   `unreachable`, `select`, calls and `memory.copy`/`memory.fill` (1 however
///   many bytes they move).
/// * Conditional branches also count 1 branch: `if`, `br_if`, `br_table` and the
///   GC `br_on_*` family. `select` does NOT count as a branch: it chooses a
///   value without jumping, like a cmov, and callgrind's `Bc` (the native
///   column this one sits beside) counts only conditional jumps.
///
/// The cross-check test configures wasmtime's per-operator fuel table to these
/// exact values and requires equal counts call by call.
pub fn op_cost(op: &Operator<'_>) -> Cost {
    match op {
        Operator::Nop
        | Operator::Block { .. }
        | Operator::Loop { .. }
        | Operator::Else
        | Operator::End => Cost::ZERO,
        Operator::If { .. }
        | Operator::BrIf { .. }
        | Operator::BrTable { .. }
        | Operator::BrOnNull { .. }
        | Operator::BrOnNonNull { .. }
        | Operator::BrOnCast { .. }
        | Operator::BrOnCastFail { .. } => Cost {
            instructions: 1,
            branches: 1,
        },
        _ => Cost {
            instructions: 1,
            branches: 0,
        },
    }
}

/// How an operator affects the segment structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flow {
    /// Execution continues with the next operator.
    Straight,
    /// `block`, `loop`, `if`: opens a frame; the code inside is a new segment
    /// (a `loop` start is a branch target, an `if` arm is entered conditionally).
    Open,
    /// `else`: the `then` arm ends; the `else` arm is entered from the `if`.
    Else,
    /// `end`: closes a frame; what follows is a join point (branches to a block
    /// land there).
    End,
    /// `br_if` and friends: control may leave; what follows is a new segment.
    Conditional,
    /// `br`, `br_table`, `return`, `unreachable`, `return_call*`: control never
    /// falls through; what follows up to the frame's `else`/`end` is dead.
    Unconditional,
}

fn flow(op: &Operator<'_>) -> Result<Flow, Error> {
    Ok(match op {
        Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => Flow::Open,
        Operator::Else => Flow::Else,
        Operator::End => Flow::End,
        Operator::BrIf { .. }
        | Operator::BrOnNull { .. }
        | Operator::BrOnNonNull { .. }
        | Operator::BrOnCast { .. }
        | Operator::BrOnCastFail { .. } => Flow::Conditional,
        Operator::Br { .. }
        | Operator::BrTable { .. }
        | Operator::Return
        | Operator::Unreachable
        | Operator::ReturnCall { .. }
        | Operator::ReturnCallIndirect { .. }
        | Operator::ReturnCallRef { .. } => Flow::Unconditional,
        // Exceptions add control edges (a throw from any callee lands in a
        // catch) that per-segment prologues cannot see; Rust builds with
        // panic=abort never emit them.
        Operator::TryTable { .. }
        | Operator::Throw { .. }
        | Operator::ThrowRef
        | Operator::Try { .. }
        | Operator::Catch { .. }
        | Operator::CatchAll
        | Operator::Delegate { .. }
        | Operator::Rethrow { .. } => {
            return Err(Error::new(
                "exception handling (try/catch/throw) in a measured function is not supported",
            ))
        }
        _ => Flow::Straight,
    })
}

/// One operator of a body and where its bytes are in the input.
pub(crate) struct Op<'a> {
    pub op: Operator<'a>,
    pub bytes: Range<usize>,
}

/// Reads a body: the byte range of its locals declaration and its operators.
pub(crate) fn read_ops<'a>(body: &Body<'a>) -> Result<(Range<usize>, Vec<Op<'a>>), Error> {
    let mut reader = body.body.get_operators_reader()?;
    let locals = body.body.range().start..reader.original_position();
    let mut ops = Vec::new();
    while !reader.eof() {
        let start = reader.original_position();
        let op = reader.read()?;
        ops.push(Op {
            op,
            bytes: start..reader.original_position(),
        });
    }
    Ok((locals, ops))
}

/// A segment: where it starts and what its operators cost (zero-cost
/// segments included; their counter update is empty).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Prologue {
    pub at: usize,
    pub cost: Cost,
}

/// Splits a body into straight-line segments and returns, for each segment,
/// where it starts and what it costs. Dead code (after
/// an unconditional branch, up to the enclosing frame's `else`/`end`) gets no
/// prologue: it never runs.
pub(crate) fn plan(ops: &[Op<'_>]) -> Result<Vec<Prologue>, Error> {
    let mut prologues = Vec::new();
    let mut segment_start = 0;
    let mut cost = Cost::ZERO;
    // Open frames inside the body (the function's own frame is level 0).
    let mut level: u32 = 0;
    // While in dead code: the level of the frame whose rest is dead.
    let mut dead_at: Option<u32> = None;

    for (i, Op { op, .. }) in ops.iter().enumerate() {
        let flow = flow(op)?;
        if let Some(dead_level) = dead_at {
            match flow {
                Flow::Open => level += 1,
                Flow::Else if level == dead_level => {
                    dead_at = None;
                    segment_start = i + 1;
                }
                Flow::End => {
                    if level == dead_level {
                        dead_at = None;
                        segment_start = i + 1;
                    }
                    level = level.saturating_sub(1);
                }
                _ => {}
            }
            continue;
        }

        cost += op_cost(op);
        if flow == Flow::Straight {
            continue;
        }
        // This operator ends the segment.
        prologues.push(Prologue {
            at: segment_start,
            cost,
        });
        cost = Cost::ZERO;
        segment_start = i + 1;
        match flow {
            Flow::Open => level += 1,
            Flow::End => level = level.saturating_sub(1),
            Flow::Unconditional => dead_at = Some(level),
            Flow::Else | Flow::Conditional | Flow::Straight => {}
        }
    }
    // A valid body ends with `end`, which always closes the last segment.
    debug_assert!(cost.is_zero());
    Ok(prologues)
}

/// What the rewrite of a body needs to record its sites (see
/// [`crate::rebuild`]): the appender function, the first site number and
/// the sites (op indices, ascending).
pub(crate) struct Recording {
    pub append: u32,
    pub first_site: u32,
    pub sites: Vec<u32>,
}

/// Emits the recorder's append of site `site`: when the record pointer is
/// not 0, a call of the appender. Switched off (pointer 0) it costs one
/// global test.
fn emit_record(out: &mut Vec<u8>, globals: &MeterGlobals, append: u32, site: u32) {
    let mut sink = InstructionSink::new(out);
    sink.global_get(globals.record_ptr)
        .if_(wasm_encoder::BlockType::Empty)
        .i32_const(site as i32)
        .call(append)
        .end();
}

/// The plan of a body for [`crate::rebuild`]: each operator's kind and,
/// for branches, its labels.
pub(crate) fn plan_kinds(
    ops: &[Op<'_>],
    instrumented: &std::collections::BTreeSet<u32>,
) -> Result<Vec<(u8, Vec<u32>)>, Error> {
    use crate::rebuild::kind;
    ops.iter()
        .map(|Op { op, .. }| {
            Ok(match op {
                Operator::Nop => (kind::NOP, vec![]),
                Operator::Block { .. } => (kind::BLOCK, vec![]),
                Operator::Loop { .. } => (kind::LOOP, vec![]),
                Operator::If { .. } => (kind::IF, vec![]),
                Operator::Else => (kind::ELSE, vec![]),
                Operator::End => (kind::END, vec![]),
                Operator::BrIf { relative_depth } => (kind::BR_IF, vec![*relative_depth]),
                Operator::Br { relative_depth } => (kind::BR, vec![*relative_depth]),
                Operator::BrOnNull { relative_depth }
                | Operator::BrOnNonNull { relative_depth }
                | Operator::BrOnCast { relative_depth, .. }
                | Operator::BrOnCastFail { relative_depth, .. } => {
                    (kind::BR_ON, vec![*relative_depth])
                }
                Operator::BrTable { targets } => {
                    let mut labels = targets.targets().collect::<Result<Vec<u32>, _>>()?;
                    labels.push(targets.default());
                    (kind::BR_TABLE, labels)
                }
                Operator::Return => (kind::RETURN, vec![]),
                Operator::Unreachable => (kind::UNREACHABLE, vec![]),
                Operator::Call { function_index } if instrumented.contains(function_index) => {
                    (kind::CALL, vec![])
                }
                Operator::Call { .. } => (kind::CALL_OUT, vec![]),
                Operator::CallIndirect { .. } | Operator::CallRef { .. } => {
                    (kind::CALL_DYN, vec![])
                }
                Operator::ReturnCall { .. }
                | Operator::ReturnCallIndirect { .. }
                | Operator::ReturnCallRef { .. } => (kind::RETURN_CALL, vec![]),
                _ => {
                    flow(op)?;
                    (kind::STRAIGHT, vec![])
                }
            })
        })
        .collect()
}

/// Emits `counter += cost` for both counters (the branch counter only when the
/// segment ends in a conditional branch). These instructions are the meter's
/// own and are, by construction, never counted: costs come from the input's
/// operators only.
fn emit_prologue(out: &mut Vec<u8>, globals: &MeterGlobals, cost: Cost) {
    let mut sink = InstructionSink::new(out);
    for (global, amount) in [
        (globals.instructions, cost.instructions),
        (globals.branches, cost.branches),
    ] {
        if amount != 0 {
            sink.global_get(global)
                .i64_const(amount as i64)
                .i64_add()
                .global_set(global);
        }
    }
}

/// Rewrites one instrumented body: the original bytes with a counter update at
/// the start of each segment, and, for a slow function, the slow-path wrapper
/// around it (see [`crate::slow`]). Returns the new body without size prefix.
pub(crate) fn rewrite_body(
    wasm: &[u8],
    body: &Body<'_>,
    globals: &MeterGlobals,
    slow: Option<&SlowWrap>,
    record: Option<&Recording>,
) -> Result<Vec<u8>, Error> {
    let (locals, ops) = read_ops(body)?;
    let prologues = plan(&ops)?;
    let no_sites = Vec::new();
    let mut sites = record
        .map_or(&no_sites, |r| &r.sites)
        .iter()
        .zip(0u32..)
        .peekable();
    let mut record_at = |out: &mut Vec<u8>, i: usize| {
        if let (Some(r), Some((_, n))) = (record, sites.next_if(|(&at, _)| at as usize == i)) {
            emit_record(out, globals, r.append, r.first_site + n);
        }
    };
    let mut out = wasm[locals].to_vec();
    if let Some(slow) = slow {
        // Before the first segment's prologue, so the function's own
        // instructions land inside the slow window.
        slow.enter(&mut out);
    }
    let mut prologues = prologues.iter().peekable();
    let last = ops.len() - 1;
    // Frames open inside the body; with a slow wrapper, `br depth` leaves it.
    let mut depth: u32 = 0;
    for (i, Op { op, bytes }) in ops.iter().enumerate() {
        if let Some(p) = prologues.next_if(|p| p.at == i) {
            emit_prologue(&mut out, globals, p.cost);
        }
        record_at(&mut out, i);
        match op {
            Operator::Block { .. } | Operator::Loop { .. } | Operator::If { .. } => depth += 1,
            Operator::End if i != last => depth -= 1,
            _ => {}
        }
        if i == last {
            if let Some(slow) = slow {
                slow.leave(&mut out);
            }
        } else if let Some(slow) = slow {
            if slow.rewrite_exit(op, depth, &mut out) {
                continue;
            }
        }
        out.extend_from_slice(&wasm[bytes.clone()]);
    }
    debug_assert!(prologues.next().is_none());
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(wat: &str) -> Vec<(usize, u64, u64)> {
        let wasm = wat::parse_str(wat).unwrap();
        let info = crate::module::ModuleInfo::parse(&wasm).unwrap();
        let (_, ops) = read_ops(&info.bodies[0]).unwrap();
        plan(&ops)
            .unwrap()
            .into_iter()
            .filter(|p| p.cost != Cost::ZERO)
            .map(|p| (p.at, p.cost.instructions, p.cost.branches))
            .collect()
    }

    #[test]
    fn straight_line_is_one_segment() {
        // local.get, local.get, i32.add, end
        assert_eq!(
            plan_of("(module (func (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))"),
            vec![(0, 3, 0)]
        );
    }

    #[test]
    fn br_if_ends_segment_and_dead_code_is_skipped() {
        // 0 block, 1 local.get, 2 br_if, 3 i32.const, 4 drop, 5 br, 6 nop, 7 i32.const, 8 drop, 9 end, 10 end
        let plan = plan_of(
            "(module (func (param i32)
                (block local.get 0 br_if 0 i32.const 1 drop br 0 nop i32.const 2 drop)))",
        );
        assert_eq!(plan, vec![(1, 2, 1), (3, 3, 0)]);
    }

    #[test]
    fn select_is_not_a_branch() {
        assert_eq!(
            plan_of(
                "(module (func (param i32) (result i32) i32.const 1 i32.const 2 local.get 0 select))"
            ),
            vec![(0, 4, 0)]
        );
    }
}
