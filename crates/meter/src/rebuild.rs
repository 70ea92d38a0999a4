//! Turning a recording of executed sites back into the list of executed
//! instructions, with call depth and branch outcomes.
//!
//! A metered module can record, while switched on (see
//! [`crate::Options::recorder`]), one entry per *site* it passes: a
//! little-endian `u32` site number. A function's sites are the places where
//! control goes one way or another (see [`sites_of`]): its entry, both ways
//! on from each `if`, `br_if` and `br_on_*` (the operator after it, and where
//! it jumps to unless that is out of the function), each `br_table`
//! destination and the operator after each indirect call. With the static *plan* of every instrumented function (its
//! operators' kinds and branch labels, which the meter embeds in the module,
//! see [`encode`]), the rebuild walks the code as it ran:
//!
//! * straight code, `block`, `loop`, `else`, `end` and `br` go where the
//!   code says; every counted operator is listed;
//! * a conditional branch went on when the next entry is the site right
//!   after it, and jumped otherwise; a `br_table` went to the destination
//!   the next entry names (or out of the function when none does);
//! * a call of an instrumented function goes one frame deeper (the next
//!   entry is the callee's entry), and the caller goes on after the call
//!   when the callee leaves; an indirect call went deeper unless the next
//!   entry is the site right after it;
//! * each site the walk reaches must be the next entry: a recording that
//!   does not fit the code is refused, not misread.
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

/// One instrumented function for [`encode`]: its index and its operators
/// as (kind, labels).
pub struct Planned {
    pub func: u32,
    pub ops: Vec<(u8, Vec<u32>)>,
}

const MAGIC: &[u8; 4] = b"BLX3";

/// Builds a plan. Little-endian header `BLX3`, function count, then per
/// function: index, operator count, byte length, operator bytes. Site
/// numbers count up from 0 through the functions in this order, each
/// function's sites ([`sites_of`]) in ascending op order.
pub fn encode(functions: &[Planned]) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend((functions.len() as u32).to_le_bytes());
    for Planned { func, ops } in functions {
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
    }
    out
}

/// The sites of a function with operators `ops` (kind, labels), ascending.
pub fn sites_of(ops: &[(u8, Vec<u32>)]) -> Result<Vec<u32>, String> {
    let kinds: Vec<u8> = ops.iter().map(|(k, _)| *k).collect();
    let labels: HashMap<u32, Vec<u32>> = ops
        .iter()
        .enumerate()
        .filter(|(_, (_, l))| !l.is_empty())
        .map(|(i, (_, l))| (i as u32, l.clone()))
        .collect();
    Ok(Func::new(kinds, &labels)?.sites)
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
    /// Where an `if` whose condition was 0 goes on (after its `else`, or
    /// after its `end`), and where the `then` arm goes on at its `else`
    /// (after the `end`), by op index.
    jumps: HashMap<u32, u32>,
    /// The sites, ascending.
    sites: Vec<u32>,
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
            let f = Func::decode(body, ops)?;
            sites.extend(f.sites.iter().map(|&op| (func, op)));
            funcs.insert(func, f);
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

fn malformed() -> String {
    "the plan of executed instructions is malformed".to_string()
}

impl Func {
    fn decode(body: &[u8], count: usize) -> Result<Func, String> {
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
                _ => return Err(malformed()),
            }
        }
        if kinds.len() != count {
            return Err(malformed());
        }
        Func::new(kinds, &labels)
    }

    /// The function's control structure, from its operators' kinds and
    /// branch labels.
    fn new(kinds: Vec<u8>, labels: &HashMap<u32, Vec<u32>>) -> Result<Func, String> {
        if kinds.last() != Some(&kind::END) {
            return Err(malformed());
        }
        // Matching `else` and `end` of every block, loop and if.
        let mut ends: HashMap<u32, u32> = HashMap::new();
        let mut elses: HashMap<u32, u32> = HashMap::new();
        let mut open: Vec<u32> = Vec::new();
        for (i, &k) in kinds.iter().enumerate() {
            match k {
                kind::BLOCK | kind::LOOP | kind::IF => open.push(i as u32),
                kind::ELSE => {
                    elses.insert(*open.last().ok_or_else(malformed)?, i as u32);
                }
                kind::END => {
                    if let Some(o) = open.pop() {
                        ends.insert(o, i as u32);
                    }
                }
                _ => {}
            }
        }
        let mut jumps = HashMap::new();
        for (&frame, &end) in &ends {
            if kinds[frame as usize] != kind::IF {
                continue;
            }
            match elses.get(&frame) {
                Some(&e) => {
                    jumps.insert(frame, e + 1);
                    jumps.insert(e, end + 1);
                }
                None => {
                    jumps.insert(frame, end + 1);
                }
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
                                    Dest::Op(ends.get(&frame).copied().ok_or_else(malformed)? + 1)
                                })
                            }
                            std::cmp::Ordering::Equal => Ok(Dest::Exit),
                            std::cmp::Ordering::Greater => Err(malformed()),
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
        let mut sites = vec![0u32];
        for (i, &k) in kinds.iter().enumerate() {
            let i = i as u32;
            let op_dests = |i: u32| {
                dests[&i].iter().filter_map(|d| match d {
                    Dest::Op(o) => Some(*o),
                    Dest::Exit => None,
                })
            };
            match k {
                kind::IF => sites.extend([i + 1, jumps[&i]]),
                kind::BR_IF | kind::BR_ON => {
                    sites.push(i + 1);
                    sites.extend(op_dests(i));
                }
                kind::BR_TABLE => sites.extend(op_dests(i)),
                kind::CALL_DYN => sites.push(i + 1),
                _ => {}
            }
        }
        sites.sort_unstable();
        sites.dedup();
        Ok(Func {
            kinds,
            dests,
            jumps,
            sites,
        })
    }

    fn is_site(&self, op: u32) -> bool {
        self.sites.binary_search(&op).is_ok()
    }
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

/// A destination's op index (`u32::MAX` for out of the function, which no
/// entry names).
fn o_of(d: Dest) -> u32 {
    match d {
        Dest::Op(o) => o,
        Dest::Exit => u32::MAX,
    }
}

/// The most operators one rebuild lists: a guard against walking a loop
/// forever on a recording that does not fit the code.
const MAX_EXECUTED: usize = 1 << 26;

/// Rebuilds the executed operators from recorded entries, as (function,
/// op index) (see [`Plan::sites`]). Entries must start at a root's entry;
/// several roots in a row (one op's cost made of several root calls) are
/// each at depth 0. `cut_short`: the recording ran out of room, so it ends
/// before the code did; the list then stops where the recording does.
pub fn rebuild(
    plan: &Plan,
    entries: &[(u32, u32)],
    cut_short: bool,
) -> Result<Vec<Executed>, String> {
    let func_plan = |func: u32| {
        plan.funcs.get(&func).ok_or_else(|| {
            format!("a recorded entry names function {func}, which is not instrumented")
        })
    };
    let mut out = Vec::new();
    let mut n = 0;
    'roots: while let Some(&(root, start)) = entries.get(n) {
        if start != 0 {
            return Err(format!(
                "the recording starts inside function {root} (op {start}), not at a root's entry"
            ));
        }
        // The callers of the running function: each one's function and where
        // it goes on when its callee leaves.
        let mut frames: Vec<(u32, u32)> = Vec::new();
        let mut func = root;
        let mut f = func_plan(func)?;
        let mut i: u32 = 0;
        loop {
            if out.len() > MAX_EXECUTED {
                return Err("the recording does not fit the code: the walk does not end".into());
            }
            if f.is_site(i) {
                match entries.get(n) {
                    Some(&e) if e == (func, i) => n += 1,
                    Some(&(g, o)) => {
                        return Err(format!(
                            "function {func} reached op {i}, but the recording goes on at op {o} of function {g}"
                        ))
                    }
                    None => break 'roots,
                }
            }
            let k = *f
                .kinds
                .get(i as usize)
                .ok_or_else(|| format!("function {func}: the walk runs past its last operator"))?;
            let next = entries.get(n).copied();
            let depth = frames.len() as u32;
            let mut emit = |taken: i32| {
                if counted(k) {
                    out.push(Executed {
                        func,
                        op: i,
                        depth,
                        taken,
                    });
                }
            };
            let went_on = next == Some((func, i + 1));
            // Where control goes: the next operator of this function, or
            // out of it.
            let to: Dest = match k {
                kind::BR_IF | kind::BR_ON | kind::IF | kind::BR_TABLE
                    if cut_short && next.is_none() =>
                {
                    // Cut short right at a branch: its outcome is unknown.
                    break 'roots;
                }
                kind::BR_IF | kind::BR_ON => {
                    emit(i32::from(!went_on));
                    if went_on {
                        Dest::Op(i + 1)
                    } else {
                        f.dests[&i][0]
                    }
                }
                kind::IF => {
                    emit(i32::from(!went_on));
                    Dest::Op(if went_on { i + 1 } else { f.jumps[&i] })
                }
                kind::ELSE => Dest::Op(*f.jumps.get(&i).ok_or_else(malformed)?),
                kind::BR => {
                    emit(-1);
                    f.dests[&i][0]
                }
                kind::BR_TABLE => {
                    let dests = &f.dests[&i];
                    let chosen = dests
                        .iter()
                        .position(|&d| next.is_some_and(|e| e == (func, o_of(d))))
                        .or_else(|| dests.iter().position(|&d| d == Dest::Exit))
                        .ok_or_else(|| {
                            format!(
                                "function {func}: the br_table at op {i} went to none of its labels"
                            )
                        })?;
                    emit(chosen as i32);
                    dests[chosen]
                }
                kind::RETURN => {
                    emit(-1);
                    Dest::Exit
                }
                kind::UNREACHABLE => {
                    // A trap: nothing runs after it.
                    emit(-1);
                    break 'roots;
                }
                kind::END if i as usize + 1 == f.kinds.len() => Dest::Exit,
                kind::CALL | kind::CALL_DYN | kind::RETURN_CALL => {
                    emit(-1);
                    if k == kind::CALL_DYN && went_on {
                        Dest::Op(i + 1)
                    } else {
                        match next {
                            Some((callee, 0)) if plan.funcs.contains_key(&callee) => {
                                if k != kind::RETURN_CALL {
                                    frames.push((func, i + 1));
                                }
                                func = callee;
                                f = func_plan(func)?;
                                i = 0;
                                continue;
                            }
                            None if cut_short => break 'roots,
                            // An uninstrumented callee of a tail call: it
                            // returns to this function's caller.
                            Some(_) if k == kind::RETURN_CALL => Dest::Exit,
                            other => {
                                return Err(format!(
                                    "function {func} calls at op {i}, but the recording goes on at {other:?}"
                                ))
                            }
                        }
                    }
                }
                _ => {
                    emit(-1);
                    Dest::Op(i + 1)
                }
            };
            match to {
                Dest::Op(o) => i = o,
                Dest::Exit => match frames.pop() {
                    Some((caller, resume)) => {
                        func = caller;
                        f = func_plan(func)?;
                        i = resume;
                    }
                    None => continue 'roots,
                },
            }
        }
    }
    Ok(out)
}
