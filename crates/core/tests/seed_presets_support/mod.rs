//! Random programs and trace invariants shared by the tests of the seed
//! presets (min_align.rs, bumper.rs, cpp_arena.rs).

#![allow(dead_code)]

use std::collections::HashMap;

use bumplab_core::trace::OpKind;
use bumplab_core::{run, Options, PresetId, Trace};
use proptest::prelude::*;

/// One random operation; indices pick among what is live when it runs.
#[derive(Clone, Debug)]
pub enum Act {
    Alloc { size: u64, align_log2: u32 },
    Free(usize),
    Realloc(usize, u64),
    Checkpoint(u8),
    Restore(u8),
    Reset,
}

/// Operations with sizes up to `max_size` and alignments up to `1 << max_align_log2`.
pub fn act(max_size: u64, max_align_log2: u32) -> impl Strategy<Value = Act> {
    prop_oneof![
        8 => (0..=max_size, 0..=max_align_log2)
            .prop_map(|(size, align_log2)| Act::Alloc { size, align_log2 }),
        2 => any::<usize>().prop_map(Act::Free),
        2 => (any::<usize>(), 0..=max_size).prop_map(|(i, s)| Act::Realloc(i, s)),
        2 => (0u8..3).prop_map(Act::Checkpoint),
        2 => (0u8..3).prop_map(Act::Restore),
        1 => Just(Act::Reset),
    ]
}

/// A block the allocator still holds bytes for.
#[derive(Clone, Copy, Debug)]
struct Held {
    chunk: u32,
    addr: u64,
    size: u64,
    align: u64,
    live: bool,
}

/// Names of the blocks still live after the last op of `t`.
fn live_names(t: &Trace) -> Vec<String> {
    let mut live: HashMap<u32, String> = HashMap::new();
    for op in &t.ops {
        for r in &op.reclaimed {
            live.remove(r);
        }
        match op.kind {
            OpKind::Alloc if !op.failed => {
                live.insert(op.index, op.block.clone().unwrap());
            }
            OpKind::Realloc if !op.failed => {
                live.remove(&op.target_op.unwrap());
                live.insert(op.index, op.block.clone().unwrap());
            }
            OpKind::Realloc => {
                // A failed realloc keeps the old block, but the engine drops
                // the name the realloc was to give.
                let name = op.block.clone().unwrap();
                live.retain(|_, n| *n != name);
            }
            OpKind::Free => {
                live.remove(&op.target_op.unwrap());
            }
            _ => {}
        }
    }
    let mut names: Vec<String> = live.into_values().collect();
    names.sort();
    names
}

/// Turns `acts` into a valid program (frees and reallocs name live blocks,
/// restores name saved checkpoints) and runs it.
pub fn build_and_run(acts: &[Act], preset: PresetId, opts: &Options) -> (String, Trace) {
    let mut src = String::new();
    let mut next = 0;
    let mut saved: Vec<String> = Vec::new();
    let runs = |src: &str| run(src, preset, opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
    for a in acts {
        match *a {
            Act::Alloc { size, align_log2 } => {
                src += &format!("a{next} = alloc {size} align {}\n", 1u64 << align_log2);
                next += 1;
            }
            Act::Free(i) | Act::Realloc(i, _) => {
                let live = live_names(&runs(&src));
                if live.is_empty() {
                    continue;
                }
                let name = &live[i % live.len()];
                if let Act::Realloc(_, size) = *a {
                    src += &format!("a{next} = realloc {name} {size}\n");
                    next += 1;
                } else {
                    src += &format!("free {name}\n");
                }
            }
            Act::Checkpoint(k) => {
                let name = format!("c{k}");
                saved.retain(|n| *n != name);
                saved.push(name.clone());
                src += &format!("checkpoint {name}\n");
            }
            Act::Restore(k) => {
                let name = format!("c{k}");
                if let Some(i) = saved.iter().position(|n| *n == name) {
                    saved.truncate(i + 1);
                    src += &format!("restore {name}\n");
                }
            }
            Act::Reset => {
                saved.clear();
                src += "reset\n";
            }
        }
    }
    let t = runs(&src);
    (src, t)
}

/// Checks, after every op: the blocks the allocator holds never overlap,
/// lie inside the usable bytes of a chunk that is still live, are aligned
/// to their alignment (when `honours_align`) and to `min_align`; and
/// requested + padding + leaked never exceeds the bytes in use.
pub fn check_invariants(t: &Trace, honours_align: bool, min_align: u64) -> Result<(), String> {
    let mut held: HashMap<u32, Held> = HashMap::new();
    for op in &t.ops {
        for r in &op.reclaimed {
            held.remove(r);
        }
        let placed = |op: &bumplab_core::trace::Op| Held {
            chunk: op.chunk.unwrap(),
            addr: op.address.unwrap(),
            size: op.size.unwrap(),
            align: op.align.unwrap(),
            live: true,
        };
        match op.kind {
            OpKind::Alloc if !op.failed => {
                held.insert(op.index, placed(op));
            }
            OpKind::Realloc if !op.failed => {
                let new = placed(op);
                let old_op = op.target_op.unwrap();
                if let Some(old) = held.get_mut(&old_op) {
                    old.live = false;
                    // Replaced in place or overwritten by an overlapping move.
                    if old.addr < new.addr + new.size && new.addr < old.addr + old.size {
                        held.remove(&old_op);
                    }
                }
                held.insert(op.index, new);
            }
            OpKind::Free => {
                if let Some(b) = held.get_mut(&op.target_op.unwrap()) {
                    b.live = false;
                }
            }
            _ => {}
        }
        let at = format!("after op {} ({:?} line {})", op.index, op.kind, op.line);
        let mut blocks: Vec<Held> = held.values().copied().collect();
        blocks.sort_by_key(|b| (b.addr, b.size));
        for b in &blocks {
            let c = &t.chunks[b.chunk as usize];
            if c.freed_by.is_some_and(|f| f <= op.index) {
                return Err(format!("{at}: block in freed chunk {}: {b:?}", c.id));
            }
            if b.addr < c.start || b.addr + b.size > c.start + c.capacity {
                return Err(format!("{at}: block outside chunk {}: {b:?} {c:?}", c.id));
            }
            if b.live && honours_align && b.addr % b.align != 0 {
                return Err(format!("{at}: misaligned {b:?}"));
            }
            if b.addr % min_align != 0 {
                return Err(format!("{at}: not on MIN_ALIGN {min_align}: {b:?}"));
            }
        }
        let sized: Vec<&Held> = blocks.iter().filter(|b| b.size > 0).collect();
        for w in sized.windows(2) {
            if w[0].addr + w[0].size > w[1].addr {
                return Err(format!("{at}: overlap {:?} {:?}", w[0], w[1]));
            }
        }
        let s = &op.stats;
        if s.requested + s.padding + s.leaked > s.used {
            return Err(format!("{at}: stats do not add up: {s:?}"));
        }
    }
    Ok(())
}
