//! Turning a recording of executed segments back into the list of executed
//! instructions, with call depth and branch outcomes.
//!
//! A metered module can record, while switched on (see
//! [`crate::Options::recorder`]), one entry per *site* it passes: a
//! little-endian `u32` site number. The sites of a function are the starts
//! of its segments (also those that count nothing) and the operator after
//! each indirect call. With the static *plan* of every instrumented function
//! (its operators' kinds and branch labels and its sites, which the meter
//! embeds in the module, see [`encode`]), that is enough to list every
//! executed counted operator in order:
//!
//! * from a site, the function runs on to the end of its segment: counted
//!   operators are listed, calls included;
//! * a direct call to an instrumented function goes one frame deeper: the
//!   next entry is the callee's first site. When the callee leaves, the
//!   caller goes on after the call, to the end of its segment, with no entry
//!   of its own. A direct call to any other function (an import) comes back
//!   at once. An indirect call goes deeper unless the next entry is the site
//!   right after it;
//! * a conditional branch was not taken when the next entry is the operator
//!   right after it (the fall-through always starts a segment, and every
//!   segment start is a site), and taken otherwise; a `br_table` chose the
//!   label whose destination is the next entry;
//! * `return`, the body's final `end` and a branch to the function's own
//!   label leave the frame.
//!
//! This file depends on nothing but `std`: the cost module compiles it too
//! (with `#[path]`), so the page and the tests rebuild the same way.

use std::collections::HashMap;

/// Operator kinds in a plan, one byte each (branch ops are followed by
/// their labels, LEB128 `u32`s).
pub mod kind {
    /// A counted operator that neither branches nor calls.
    pub const STRAIGHT: u8 = 0;
    /// `nop`: counts nothing, ends nothing.
    pub const NOP: u8 = 1;
    pub const BLOCK: u8 = 2;
    pub const LOOP: u8 = 3;
    /// `if`: a conditional branch; taken when the condition was 0.
    pub const IF: u8 = 4;
    pub const ELSE: u8 = 5;
    pub const END: u8 = 6;
    /// `br_if L`.
    pub const BR_IF: u8 = 7;
    /// `br L`.
    pub const BR: u8 = 8;
    /// `br_table n L0..Ln-1 default`.
    pub const BR_TABLE: u8 = 9;
    pub const RETURN: u8 = 10;
    pub const UNREACHABLE: u8 = 11;
    /// `call` of an instrumented function.
    pub const CALL: u8 = 12;
    /// `return_call*`: the callee replaces the caller's frame.
    pub const RETURN_CALL: u8 = 13;
    /// `br_on_* L`: a conditional branch to label L.
    pub const BR_ON: u8 = 14;
    /// `call` of a function that is not instrumented (an import).
    pub const CALL_OUT: u8 = 15;
    /// `call_indirect`, `call_ref`: the operator after it is a site.
    pub const CALL_DYN: u8 = 16;
}

/// One instrumented function for [`encode`]: its index, its operators as
/// (kind, labels) and its sites (op indices, ascending).
pub struct Planned {
    pub func: u32,
    pub ops: Vec<(u8, Vec<u32>)>,
    pub sites: Vec<u32>,
}

const MAGIC: &[u8; 4] = b"BLX2";

/// Builds a plan. Little-endian header `BLX2`, function count, then per
/// function: index, operator count, byte length, operator bytes, site
/// count, site op indices as LEB128 deltas. Site numbers count up from 0
/// through the functions in this order.
pub fn encode(functions: &[Planned]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((functions.len() as u32).to_le_bytes());
    for Planned { func, ops, sites } in functions {
        let mut bytes = Vec::with_capacity(ops.len());
        // Most operators are straight ones, in runs: a run of up to 128 is
        // one byte, 0x80 + (length - 1).
        let mut run = false;
        for (k, labels) in ops {
            if *k == kind::STRAIGHT {
                match bytes.last_mut() {
                    Some(last) if run && *last < 0xff => *last += 1,
                    _ => bytes.push(0x80),
                }
                run = true;
                continue;
            }
            run = false;
            bytes.push(*k);
            if *k == kind::BR_TABLE {
                leb(&mut bytes, labels.len() as u32 - 1);
            }
            for &l in labels {
                leb(&mut bytes, l);
            }
        }
        out.extend(func.to_le_bytes());
        out.extend((ops.len() as u32).to_le_bytes());
        out.extend((bytes.len() as u32).to_le_bytes());
        out.extend(bytes);
        out.extend((sites.len() as u32).to_le_bytes());
        let mut last = 0;
        for &site in sites {
            leb(&mut out, site - last);
            last = site;
        }
    }
    out
}

fn leb(out: &mut Vec<u8>, mut v: u32) {
    loop {
        let byte = (v & 0x7f) as u8;
        v >>= 7;
        if v == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Where a branch to a label goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dest {
    /// This operator of the same function (after a block's `end`, or the
    /// first operator inside a `loop`).
    Op(u32),
    /// Out of the function (its own label).
    Exit,
}

struct Func {
    kinds: Vec<u8>,
    /// Destinations of the branch operators' labels, by op index.
    dests: HashMap<u32, Vec<Dest>>,
}

/// The decoded plan of every instrumented function.
pub struct Plan {
    funcs: HashMap<u32, Func>,
    /// (function, op index) of each site, by site number.
    sites: Vec<(u32, u32)>,
}

fn read_u32(bytes: &[u8], at: &mut usize) -> Result<u32, String> {
    let b = bytes
        .get(*at..*at + 4)
        .ok_or("the plan of executed instructions is cut short")?;
    *at += 4;
    Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
}

fn read_leb(bytes: &[u8], at: &mut usize) -> Result<u32, String> {
    let mut v = 0u32;
    let mut shift = 0;
    loop {
        let b = *bytes
            .get(*at)
            .ok_or("the plan of executed instructions is cut short")?;
        *at += 1;
        v |= u32::from(b & 0x7f) << shift;
        if b & 0x80 == 0 {
            return Ok(v);
        }
        shift += 7;
        if shift > 28 {
            return Err("the plan of executed instructions has a malformed label".into());
        }
    }
}

impl Plan {
    /// Decodes [`encode`]'s bytes.
    pub fn decode(bytes: &[u8]) -> Result<Plan, String> {
        if bytes.get(..4) != Some(&MAGIC[..]) {
            return Err("this module holds no plan of executed instructions".into());
        }
        let mut at = 4;
        let count = read_u32(bytes, &mut at)?;
        let mut funcs = HashMap::new();
        let mut sites = Vec::new();
        for _ in 0..count {
            let func = read_u32(bytes, &mut at)?;
            let ops = read_u32(bytes, &mut at)? as usize;
            let len = read_u32(bytes, &mut at)? as usize;
            let body = bytes
                .get(at..at + len)
                .ok_or("the plan of executed instructions is cut short")?;
            at += len;
            funcs.insert(func, Func::decode(body, ops)?);
            let n = read_u32(bytes, &mut at)?;
            let mut op = 0;
            for _ in 0..n {
                op += read_leb(bytes, &mut at)?;
                sites.push((func, op));
            }
        }
        Ok(Plan { funcs, sites })
    }

    /// The (function, op index) of each recorded site number.
    pub fn sites(&self, recorded: &[u32]) -> Result<Vec<(u32, u32)>, String> {
        recorded
            .iter()
            .map(|&s| {
                self.sites.get(s as usize).copied().ok_or_else(|| {
                    format!("the recording names site {s}, which the plan does not have")
                })
            })
            .collect()
    }

    /// Whether `func` is an instrumented function of this plan.
    pub fn has(&self, func: u32) -> bool {
        self.funcs.contains_key(&func)
    }
}

impl Func {
    fn decode(body: &[u8], count: usize) -> Result<Func, String> {
        let bad = || "the plan of executed instructions is malformed".to_string();
        let mut kinds = Vec::with_capacity(count);
        let mut labels: HashMap<u32, Vec<u32>> = HashMap::new();
        let mut at = 0;
        while at < body.len() {
            let k = body[at];
            at += 1;
            if k >= 0x80 {
                let n = usize::from(k - 0x80) + 1;
                kinds.extend(std::iter::repeat_n(kind::STRAIGHT, n));
                continue;
            }
            let i = kinds.len() as u32;
            kinds.push(k);
            match k {
                kind::BR_IF | kind::BR | kind::BR_ON => {
                    labels.insert(i, vec![read_leb(body, &mut at)?]);
                }
                kind::BR_TABLE => {
                    let n = read_leb(body, &mut at)? as usize + 1;
                    let mut ls = Vec::with_capacity(n.min(1024));
                    for _ in 0..n {
                        ls.push(read_leb(body, &mut at)?);
                    }
                    labels.insert(i, ls);
                }
                k if k <= kind::CALL_DYN => {}
                _ => return Err(bad()),
            }
        }
        if kinds.len() != count || kinds.last() != Some(&kind::END) {
            return Err(bad());
        }
        // Matching `end` of every block, loop and if.
        let mut ends: HashMap<u32, u32> = HashMap::new();
        let mut open: Vec<u32> = Vec::new();
        for (i, &k) in kinds.iter().enumerate() {
            match k {
                kind::BLOCK | kind::LOOP | kind::IF => open.push(i as u32),
                kind::END => {
                    if let Some(o) = open.pop() {
                        ends.insert(o, i as u32);
                    }
                }
                _ => {}
            }
        }
        // Each label's destination, from the frames open at the branch.
        let mut dests = HashMap::new();
        let mut open: Vec<u32> = Vec::new();
        for (i, &k) in kinds.iter().enumerate() {
            let i = i as u32;
            if let Some(ls) = labels.get(&i) {
                let d = ls
                    .iter()
                    .map(|&l| {
                        let depth = open.len();
                        match (l as usize).cmp(&depth) {
                            std::cmp::Ordering::Less => {
                                let frame = open[depth - 1 - l as usize];
                                Ok(if kinds[frame as usize] == kind::LOOP {
                                    Dest::Op(frame + 1)
                                } else {
                                    Dest::Op(ends.get(&frame).copied().ok_or_else(bad)? + 1)
                                })
                            }
                            std::cmp::Ordering::Equal => Ok(Dest::Exit),
                            std::cmp::Ordering::Greater => Err(bad()),
                        }
                    })
                    .collect::<Result<Vec<_>, String>>()?;
                dests.insert(i, d);
            }
            match k {
                kind::BLOCK | kind::LOOP | kind::IF => open.push(i),
                kind::END => {
                    open.pop();
                }
                _ => {}
            }
        }
        Ok(Func { kinds, dests })
    }
}

/// Whether operator kind `k` ends a run from a site (see the module docs).
fn ends_run(k: u8) -> bool {
    !matches!(k, kind::STRAIGHT | kind::NOP | kind::CALL_OUT)
}

/// Whether operator kind `k` counts one instruction.
pub fn counted(k: u8) -> bool {
    !matches!(
        k,
        kind::NOP | kind::BLOCK | kind::LOOP | kind::ELSE | kind::END
    )
}

/// Whether operator kind `k` is a conditional branch (counts one branch).
pub fn conditional(k: u8) -> bool {
    matches!(k, kind::IF | kind::BR_IF | kind::BR_TABLE | kind::BR_ON)
}

/// One executed counted operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Executed {
    /// Function index.
    pub func: u32,
    /// Op index in the function's body.
    pub op: u32,
    /// Call depth below the root (the root is 0).
    pub depth: u32,
    /// For a conditional branch: 1 when control jumped, 0 when it went on
    /// with the next operator; for `br_table` the index of the chosen label
    /// (the default is the label count). -1 for every other operator.
    pub taken: i32,
}

/// Rebuilds the executed operators from recorded entries, as (function,
/// op index) (see [`Plan::sites`]). Entries must start at a root's first
/// operator; several roots in a row (one op's cost made of several root
/// calls) are each at depth 0.
pub fn rebuild(plan: &Plan, entries: &[(u32, u32)]) -> Result<Vec<Executed>, String> {
    let mut out = Vec::new();
    let func_plan = |func: u32| {
        plan.funcs.get(&func).ok_or_else(|| {
            format!("a recorded entry names function {func}, which is not instrumented")
        })
    };
    // The open frames, the root first: function and where it goes on when
    // its callee returns.
    let mut frames: Vec<(u32, u32)> = Vec::new();
    let mut n = 0;
    while n < entries.len() {
        let (mut func, start) = entries[n];
        n += 1;
        if frames.is_empty() {
            if start != 0 {
                return Err(format!(
                    "the recording starts inside function {func} (op {start}), not at a root's entry"
                ));
            }
            frames.push((func, 0));
        }
        let mut f = func_plan(func)?;
        let mut i = start as usize;
        loop {
            let next = entries.get(n).copied();
            let depth = frames.len() as u32 - 1;
            let k = *f.kinds.get(i).ok_or_else(|| {
                format!("function {func}: the recording runs past its last operator")
            })?;
            let op = i as u32;
            let push = move |out: &mut Vec<Executed>, taken| {
                out.push(Executed {
                    func,
                    op,
                    depth,
                    taken,
                })
            };
            if !ends_run(k) {
                if counted(k) {
                    push(&mut out, -1);
                }
                i += 1;
                continue;
            }
            let falls_through = next == Some((func, op + 1));
            let mut taken = -1;
            let mut leaves = false;
            match k {
                kind::CALL | kind::CALL_DYN => {
                    push(&mut out, -1);
                    if k == kind::CALL_DYN && (falls_through || next.is_none()) {
                        // An uninstrumented callee: the site after the call.
                        n += 1;
                        i += 1;
                        continue;
                    }
                    if let Some(top) = frames.last_mut() {
                        top.1 = op + 1;
                    }
                    match next {
                        Some((callee, 0)) => frames.push((callee, 0)),
                        Some((g, o)) => {
                            return Err(format!(
                                "function {func} calls at op {op}, but the recording goes on at op {o} of function {g}"
                            ))
                        }
                        // Cut short inside the callee.
                        None => {}
                    }
                    break;
                }
                kind::IF => taken = i32::from(!falls_through),
                kind::BR_IF | kind::BR_ON => {
                    taken = i32::from(!falls_through);
                    leaves = !falls_through && f.dests[&op][0] == Dest::Exit;
                }
                kind::BR => leaves = f.dests[&op][0] == Dest::Exit,
                kind::BR_TABLE => {
                    let dests = &f.dests[&op];
                    let chosen = next
                        .filter(|&(g, _)| g == func)
                        .and_then(|(_, o)| dests.iter().position(|&d| d == Dest::Op(o)))
                        .or_else(|| dests.iter().position(|&d| d == Dest::Exit))
                        .ok_or_else(|| {
                            format!(
                                "function {func}: the br_table at op {op} went to none of its labels"
                            )
                        })?;
                    taken = chosen as i32;
                    leaves = dests[chosen] == Dest::Exit;
                }
                kind::RETURN | kind::UNREACHABLE => leaves = true,
                kind::RETURN_CALL => {
                    push(&mut out, -1);
                    frames.pop();
                    // The callee takes this frame over; an uninstrumented
                    // one returns straight to the caller.
                    if let Some((callee, 0)) = next {
                        frames.push((callee, 0));
                        break;
                    }
                    leaves = true;
                }
                kind::END => leaves = i + 1 == f.kinds.len(),
                _ => {}
            }
            if counted(k) && k != kind::RETURN_CALL {
                push(&mut out, taken);
            }
            if leaves {
                if k != kind::RETURN_CALL {
                    frames.pop();
                }
                if let Some(&(caller, resume)) = frames.last() {
                    // The caller goes on right after its call (after an
                    // indirect call, from the site recorded there).
                    if entries.get(n) == Some(&(caller, resume)) {
                        n += 1;
                    }
                    func = caller;
                    f = func_plan(func)?;
                    i = resume as usize;
                    continue;
                }
            }
            break;
        }
    }
    Ok(out)
}
