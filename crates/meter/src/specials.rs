//! The functions the meter writes itself: the counter reader, the
//! recorder's switch, the appender and the plan copier. The module declares
//! each one (so its callers link against it) and the meter replaces its body.

use std::collections::BTreeSet;

use wasm_encoder::BlockType;

use crate::module::ModuleInfo;
use crate::{Error, MeterGlobals, Options};

/// The functions whose bodies the meter replaces with its own: the counter
/// reader, the recorder's switch, the appender and the plan copier, each
/// found by name when asked for, present and of the right type.
pub(crate) struct Specials {
    globals: MeterGlobals,
    reader: Option<u32>,
    recorder: Option<u32>,
    pub appender: Option<u32>,
    pub plan_copier: Option<u32>,
}

impl Specials {
    pub fn find(
        info: &ModuleInfo<'_>,
        instrumented: &BTreeSet<u32>,
        options: &Options,
    ) -> Result<Specials, Error> {
        use wasmparser::ValType::I32 as P32;
        let special = |name: &Option<String>,
                       what: &str,
                       params: &[wasmparser::ValType],
                       results: &[wasmparser::ValType],
                       ty_text: &str|
         -> Result<Option<u32>, Error> {
            let Some(name) = name else { return Ok(None) };
            let Some(f) = (0..info.bodies.len() as u32)
                .map(|i| info.func_imports + i)
                .find(|&f| info.func_name(f) == Some(name.as_str()))
            else {
                return Ok(None);
            };
            let ty = info.func_type(f)?;
            if ty.params() != params || ty.results() != results {
                return Err(Error::new(format!(
                    "the {what} function {f} must have type {ty_text}"
                )));
            }
            if instrumented.contains(&f) {
                return Err(Error::new(format!(
                    "the {what} function must not be reachable from a root"
                )));
            }
            Ok(Some(f))
        };
        let reader = special(
            &options.reader,
            "reader",
            &[P32],
            &[wasmparser::ValType::I64],
            "(i32) -> i64",
        )?;
        // Recording needs a 32-bit memory, and the recorder, the appender and
        // the plan copier only work together.
        let recorder = special(
            &options.recorder,
            "recorder",
            &[P32, P32],
            &[],
            "(i32, i32) -> ()",
        )?
        .filter(|_| info.memory32);
        let appender = special(&options.appender, "appender", &[P32], &[], "(i32) -> ()")?
            .filter(|_| recorder.is_some());
        let recorder = recorder.filter(|_| appender.is_some());
        let plan_copier = special(
            &options.plan,
            "plan",
            &[P32, P32],
            &[P32],
            "(i32, i32) -> i32",
        )?
        .filter(|_| appender.is_some());
        Ok(Specials {
            globals: MeterGlobals::new(info.global_count),
            reader,
            recorder,
            appender,
            plan_copier,
        })
    }

    /// The body the meter gives `func`, if it is a special: the plan copier
    /// copies the `plan_len`-byte segment appended after the module's `segments`.
    pub fn body_of(
        &self,
        func: u32,
        plan_len: u32,
        segments: u32,
    ) -> Option<wasm_encoder::Function> {
        let g = &self.globals;
        if Some(func) == self.reader {
            Some(reader_body(g))
        } else if Some(func) == self.recorder {
            Some(recorder_body(g))
        } else if Some(func) == self.appender {
            Some(appender_body(g))
        } else if Some(func) == self.plan_copier {
            Some(plan_body(plan_len, segments))
        } else {
            None
        }
    }
}

/// The body of the counter reader: `(index: i32) -> i64`.
fn reader_body(g: &MeterGlobals) -> wasm_encoder::Function {
    use wasm_encoder::Instruction as I;
    let mut f = wasm_encoder::Function::new([]);
    let counters = [
        g.instructions,
        g.branches,
        g.slow_instructions,
        g.slow_branches,
    ];
    for (index, global) in counters.into_iter().enumerate() {
        f.instruction(&I::LocalGet(0));
        f.instruction(&I::I32Const(index as i32));
        f.instruction(&I::I32Eq);
        f.instruction(&I::If(BlockType::Empty));
        f.instruction(&I::GlobalGet(global));
        f.instruction(&I::Return);
        f.instruction(&I::End);
    }
    // 4: the recorder's pointer.
    f.instruction(&I::LocalGet(0));
    f.instruction(&I::I32Const(4));
    f.instruction(&I::I32Eq);
    f.instruction(&I::If(BlockType::Empty));
    f.instruction(&I::GlobalGet(g.record_ptr));
    f.instruction(&I::I64ExtendI32U);
    f.instruction(&I::Return);
    f.instruction(&I::End);
    f.instruction(&I::I64Const(1));
    f.instruction(&I::End);
    f
}

/// The body of the recorder's switch: `(ptr: i32, len_bytes: i32)` sets the
/// record pointer to `ptr` and the record end to `ptr` plus `len_bytes`
/// rounded down to whole 4-byte entries.
fn recorder_body(g: &MeterGlobals) -> wasm_encoder::Function {
    use wasm_encoder::Instruction as I;
    let mut f = wasm_encoder::Function::new([]);
    f.instruction(&I::LocalGet(0));
    f.instruction(&I::GlobalSet(g.record_ptr));
    f.instruction(&I::LocalGet(0));
    f.instruction(&I::LocalGet(1));
    f.instruction(&I::I32Const(-4));
    f.instruction(&I::I32And);
    f.instruction(&I::I32Add);
    f.instruction(&I::GlobalSet(g.record_end));
    f.instruction(&I::End);
    f
}

/// The body of the appender: `(site: i32)` stores `site` at the record
/// pointer and moves it on by 4, while it is below the record end.
fn appender_body(g: &MeterGlobals) -> wasm_encoder::Function {
    use wasm_encoder::Instruction as I;
    let mut f = wasm_encoder::Function::new([]);
    f.instruction(&I::GlobalGet(g.record_ptr));
    f.instruction(&I::GlobalGet(g.record_end));
    f.instruction(&I::I32LtU);
    f.instruction(&I::If(BlockType::Empty));
    f.instruction(&I::GlobalGet(g.record_ptr));
    f.instruction(&I::LocalGet(0));
    f.instruction(&I::I32Store(wasm_encoder::MemArg {
        offset: 0,
        align: 2,
        memory_index: 0,
    }));
    f.instruction(&I::GlobalGet(g.record_ptr));
    f.instruction(&I::I32Const(4));
    f.instruction(&I::I32Add);
    f.instruction(&I::GlobalSet(g.record_ptr));
    f.instruction(&I::End);
    f.instruction(&I::End);
    f
}

/// The body of the plan copier: `(dst: i32, capacity: i32) -> i32` copies
/// the `len`-byte passive segment `segment` to `dst` when it fits, and
/// returns `len`.
fn plan_body(len: u32, segment: u32) -> wasm_encoder::Function {
    use wasm_encoder::Instruction as I;
    let mut f = wasm_encoder::Function::new([]);
    f.instruction(&I::LocalGet(1));
    f.instruction(&I::I32Const(len as i32));
    f.instruction(&I::I32GeU);
    f.instruction(&I::If(BlockType::Empty));
    f.instruction(&I::LocalGet(0));
    f.instruction(&I::I32Const(0));
    f.instruction(&I::I32Const(len as i32));
    f.instruction(&I::MemoryInit {
        mem: 0,
        data_index: segment,
    });
    f.instruction(&I::End);
    f.instruction(&I::I32Const(len as i32));
    f.instruction(&I::End);
    f
}
