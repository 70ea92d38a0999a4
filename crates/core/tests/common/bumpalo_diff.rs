//! Differential harness for the bumpalo preset: the same straight-line
//! program runs on the model (through `bumplab_core::run`) and on the real
//! `bumpalo::Bump` (through `allocator_api2::alloc::Allocator` on `&Bump`),
//! and each side reports, after every op, the same observations.
//!
//! No proptest here, so the file can be included (with `#[path]`) by any
//! test crate that has `bumpalo` and `allocator-api2`, the wasm32 suite too:
//! `run_real` observes whatever target it is compiled for, `run_model`
//! takes the target to simulate.

#![allow(dead_code)]

use std::collections::HashMap;
use std::ptr::NonNull;

use allocator_api2::alloc::{Allocator, Layout};
use bumpalo::Bump;
use bumplab_core::{run, Options, PresetId, Target, Trace};

/// One straight-line op, with the block names the program text uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Alloc {
        name: String,
        size: u64,
        align: u64,
    },
    Realloc {
        name: String,
        from: String,
        size: u64,
    },
    Free {
        name: String,
    },
    Reset,
    /// The playground's emulated checkpoint (bumpalo has none): never run
    /// on the real crate, see [`compare_undone`].
    Checkpoint(u8),
    Restore(u8),
}

/// An op of a generated program, before block names are chosen.
#[derive(Clone, Debug)]
pub enum GenOp {
    Alloc {
        size: u64,
        align: u64,
    },
    /// Grow or shrink the live block `pick % live`.
    Realloc {
        pick: usize,
        size: u64,
    },
    /// Free the live block `pick % live`, or with `None` the newest one.
    Free {
        pick: Option<usize>,
    },
    Reset,
    /// Save checkpoint `slot`, or restore the one saved there (if any).
    Checkpoint(u8),
    Restore(u8),
}

/// Where a block landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// In the chunk created `chunk`-th (0 first), of `capacity` usable
    /// bytes, `offset` bytes from its first usable byte.
    InChunk {
        chunk: usize,
        capacity: u64,
        offset: u64,
    },
    /// A zero-size request: a dangling pointer, `align.max(MIN_ALIGN)`
    /// used as an address, in no chunk.
    ZeroSized,
    /// What a side did that neither of the above explains.
    Unexpected(String),
}

/// What one op did, as both sides can observe it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Obs {
    pub place: Option<Place>,
    /// For a realloc: whether the block moved.
    pub moved: Option<bool>,
    /// Chunks owned after the op.
    pub chunks: usize,
    /// The current chunk after the op: creation index, capacity, and bytes
    /// between its first usable byte and the bump pointer.
    pub current: Option<(usize, u64, u64)>,
}

/// Parses lines of `name = alloc N [align A]`, `name = realloc old N`,
/// `free name` and `reset` (no repeats, no types).
pub fn parse_steps(src: &str) -> Vec<Step> {
    src.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let slot = |c: &str| c.trim_start_matches('c').parse().unwrap();
            match w.as_slice() {
                ["reset"] => Step::Reset,
                ["checkpoint", c] => Step::Checkpoint(slot(c)),
                ["restore", c] => Step::Restore(slot(c)),
                ["free", name] => Step::Free {
                    name: name.to_string(),
                },
                [name, "=", "alloc", size] => Step::Alloc {
                    name: name.to_string(),
                    size: size.parse().unwrap(),
                    align: 1,
                },
                [name, "=", "alloc", size, "align", align] => Step::Alloc {
                    name: name.to_string(),
                    size: size.parse().unwrap(),
                    align: align.parse().unwrap(),
                },
                [name, "=", "realloc", from, size] => Step::Realloc {
                    name: name.to_string(),
                    from: from.to_string(),
                    size: size.parse().unwrap(),
                },
                _ => panic!("not a harness line: {l}"),
            }
        })
        .collect()
}

pub fn program_text(steps: &[Step]) -> String {
    let mut s = String::new();
    for st in steps {
        let line = match st {
            Step::Alloc { name, size, align } => format!("{name} = alloc {size} align {align}"),
            Step::Realloc { name, from, size } => format!("{name} = realloc {from} {size}"),
            Step::Free { name } => format!("free {name}"),
            Step::Reset => "reset".to_string(),
            Step::Checkpoint(slot) => format!("checkpoint c{slot}"),
            Step::Restore(slot) => format!("restore c{slot}"),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

/// Names the blocks of a generated program, dropping ops that would name
/// no block (nothing live to realloc or free) and restores of checkpoints
/// not saved (or dropped: a reset drops them all, a restore those saved
/// after it); a restore ends the blocks made since its checkpoint, as the
/// engine does.
pub fn lower(ops: &[GenOp]) -> Vec<Step> {
    let mut live: Vec<String> = Vec::new();
    // Each block's place in `out` when made, and the saved checkpoints.
    let mut made: HashMap<String, usize> = HashMap::new();
    let mut saved: Vec<(u8, usize)> = Vec::new();
    let mut out = Vec::new();
    for (i, op) in ops.iter().enumerate() {
        let name = format!("b{i}");
        match *op {
            GenOp::Alloc { size, align } => {
                made.insert(name.clone(), out.len());
                out.push(Step::Alloc {
                    name: name.clone(),
                    size,
                    align,
                });
                live.push(name);
            }
            GenOp::Realloc { pick, size } => {
                if live.is_empty() {
                    continue;
                }
                let from = live.remove(pick % live.len());
                made.insert(name.clone(), out.len());
                out.push(Step::Realloc {
                    name: name.clone(),
                    from,
                    size,
                });
                live.push(name);
            }
            GenOp::Free { pick } => {
                if live.is_empty() {
                    continue;
                }
                let i = pick.map_or(live.len() - 1, |p| p % live.len());
                let name = live.remove(i);
                out.push(Step::Free { name });
            }
            GenOp::Reset => {
                live.clear();
                saved.clear();
                out.push(Step::Reset);
            }
            GenOp::Checkpoint(slot) => {
                saved.retain(|s| s.0 != slot);
                saved.push((slot, out.len()));
                out.push(Step::Checkpoint(slot));
            }
            GenOp::Restore(slot) => {
                let Some(k) = saved.iter().position(|s| s.0 == slot) else {
                    continue;
                };
                let at = saved[k].1;
                saved.truncate(k + 1);
                live.retain(|b| made[b] < at);
                out.push(Step::Restore(slot));
            }
        }
    }
    out
}

/// Whether the step asks bumpalo for a zero-size allocation (`allocate`
/// with size 0: an `alloc 0`, or a realloc from size 0 to size 0).
fn zero_sized(step: &Step, sizes: &HashMap<String, u64>) -> bool {
    match step {
        Step::Alloc { size, .. } => *size == 0,
        Step::Realloc { from, size, .. } => *size == 0 && sizes[from] == 0,
        _ => false,
    }
}

/// The model's observations, from its trace.
pub fn run_model(
    steps: &[Step],
    target: Target,
    min_align: u64,
    capacity: Option<u64>,
) -> (Trace, Vec<Obs>) {
    let opts = Options {
        target,
        capacity,
        min_align: Some(min_align),
        child: None,
    };
    let src = program_text(steps);
    let t = run(&src, PresetId::Bumpalo, &opts).unwrap_or_else(|e| panic!("{e}\n{src}"));
    assert_eq!(t.ops.len(), steps.len());
    let live_at = |c: &bumplab_core::trace::ChunkInfo, i: usize| {
        c.created_by.is_none_or(|o| o as usize <= i) && c.freed_by.is_none_or(|o| o as usize > i)
    };
    let mut sizes: HashMap<String, u64> = HashMap::new();
    let mut obs = Vec::new();
    for (i, (op, step)) in t.ops.iter().zip(steps).enumerate() {
        let zero = zero_sized(step, &sizes);
        let place = match step {
            Step::Free { .. } | Step::Reset | Step::Checkpoint(_) | Step::Restore(_) => None,
            _ if zero => Some(match (op.failed, op.chunk, op.address, op.align) {
                (false, None, Some(a), Some(align)) if a == align.max(min_align) => {
                    Place::ZeroSized
                }
                other => Place::Unexpected(format!("zero-size op {i}: {other:?}")),
            }),
            _ if op.failed => Some(Place::Unexpected(format!("op {i} failed"))),
            _ => {
                let chunk = op.chunk.unwrap() as usize;
                Some(Place::InChunk {
                    chunk,
                    capacity: t.chunks[chunk].capacity,
                    offset: op.offset.unwrap(),
                })
            }
        };
        match step {
            Step::Alloc { name, size, .. } | Step::Realloc { name, size, .. } => {
                sizes.insert(name.clone(), *size);
            }
            Step::Reset => sizes.clear(),
            Step::Free { .. } | Step::Checkpoint(_) | Step::Restore(_) => {}
        }
        let current = op.bump_ptr.map(|bp| {
            let c = t
                .chunks
                .iter()
                .find(|c| live_at(c, i) && c.start <= bp && bp <= c.start + c.capacity)
                .expect("the bump pointer is in a live chunk");
            (c.id as usize, c.capacity, bp - c.start)
        });
        obs.push(Obs {
            place,
            moved: op.moved,
            chunks: op.stats.chunks as usize,
            current,
        });
    }
    (t, obs)
}

/// Runs `steps` on a real `Bump<MIN_ALIGN>`; `capacity` picks
/// `with_min_align_and_capacity` over `with_min_align`.
pub fn run_real(steps: &[Step], min_align: u64, capacity: Option<u64>) -> Vec<Obs> {
    run_real_around(steps, min_align, capacity, &|call| call())
}

/// Runs code that calls into the real `Bump`: `around(call)` must run `call`.
pub type Around<'a> = &'a dyn Fn(&mut dyn FnMut());

/// [`run_real`], with every call into the real `Bump` (the only code that
/// allocates or frees its chunks: the constructor, each op, the drop) run
/// by `around`, so a test can choose where those chunks go.
pub fn run_real_around(
    steps: &[Step],
    min_align: u64,
    capacity: Option<u64>,
    around: Around,
) -> Vec<Obs> {
    match min_align {
        1 => run_real_with::<1>(steps, capacity, around),
        2 => run_real_with::<2>(steps, capacity, around),
        4 => run_real_with::<4>(steps, capacity, around),
        8 => run_real_with::<8>(steps, capacity, around),
        16 => run_real_with::<16>(steps, capacity, around),
        m => panic!("bumpalo has no MIN_ALIGN {m}"),
    }
}

/// `f()`, run by `around`.
fn call<R>(around: Around, f: impl FnOnce() -> R) -> R {
    let mut f = Some(f);
    let mut out = None;
    around(&mut || out = Some((f.take().expect("called once"))()));
    out.expect("`around` runs the call")
}

/// Chunks seen so far, by footer address: (creation index, first usable
/// byte). Every chunk is current right after the op that made it, which is
/// when `chunk_capacity()` tells where its usable bytes start.
struct ChunkTable {
    by_end: HashMap<usize, (usize, usize)>,
    next: usize,
}

impl ChunkTable {
    /// Chunks now owned, current first, as `(end, bump pointer)`; learns
    /// the current one if new and forgets the freed ones.
    fn sync<const M: usize>(&mut self, bump: &Bump<M>) -> Vec<(usize, usize)> {
        // SAFETY: only addresses are read; nothing allocates meanwhile.
        let chunks: Vec<(usize, usize)> = unsafe { bump.iter_allocated_chunks_raw() }
            .map(|(ptr, len)| (ptr as usize + len, ptr as usize))
            .collect();
        self.by_end
            .retain(|end, _| chunks.iter().any(|c| c.0 == *end));
        if let Some(&(end, ptr)) = chunks.first() {
            let data = ptr - bump.chunk_capacity();
            let next = &mut self.next;
            let entry = self.by_end.entry(end).or_insert_with(|| {
                *next += 1;
                (*next - 1, data)
            });
            assert_eq!(entry.1, data, "a chunk's start does not move");
        }
        chunks
    }

    fn place(&self, addr: usize) -> Place {
        match self
            .by_end
            .iter()
            .find(|(&end, &(_, data))| data <= addr && addr <= end)
        {
            Some((&end, &(chunk, data))) => Place::InChunk {
                chunk,
                capacity: (end - data) as u64,
                offset: (addr - data) as u64,
            },
            None => Place::Unexpected(format!("{addr:#x} is in no chunk")),
        }
    }
}

fn run_real_with<const M: usize>(
    steps: &[Step],
    capacity: Option<u64>,
    around: Around,
) -> Vec<Obs> {
    let mut bump = call(around, || match capacity {
        Some(c) => Bump::<M>::with_min_align_and_capacity(c as usize),
        None => Bump::<M>::with_min_align(),
    });
    let mut table = ChunkTable {
        by_end: HashMap::new(),
        next: 0,
    };
    table.sync(&bump);
    let mut blocks: HashMap<String, (NonNull<u8>, Layout)> = HashMap::new();
    let mut sizes: HashMap<String, u64> = HashMap::new();
    let mut obs = Vec::new();
    for step in steps {
        let zero = zero_sized(step, &sizes);
        let mut moved = None;
        let bump = &mut bump;
        let mut refused = false;
        let got: Option<(NonNull<u8>, Layout)> = call(around, || match step {
            Step::Alloc { size, align, .. } => {
                let layout = Layout::from_size_align(*size as usize, *align as usize).unwrap();
                match (&*bump).allocate(layout) {
                    Ok(p) => Some((p.cast(), layout)),
                    Err(_) => {
                        refused = true;
                        None
                    }
                }
            }
            Step::Realloc { from, size, .. } => {
                let (ptr, old) = blocks.remove(from).expect("a live block");
                let new = Layout::from_size_align(*size as usize, old.align()).unwrap();
                // SAFETY: `ptr` is a live block of `bump` with layout `old`;
                // the branches follow bumpalo's own `realloc`.
                let p = unsafe {
                    if old.size() == 0 {
                        (&*bump).allocate(new)
                    } else if new.size() <= old.size() {
                        (&*bump).shrink(ptr, old, new)
                    } else {
                        (&*bump).grow(ptr, old, new)
                    }
                }
                .expect("the real Bump reallocates");
                moved = Some(p.cast::<u8>() != ptr);
                Some((p.cast(), new))
            }
            Step::Free { name } => {
                let (ptr, layout) = blocks.remove(name).expect("a live block");
                // SAFETY: a live block of `bump` with this layout.
                unsafe { (&*bump).deallocate(ptr, layout) };
                None
            }
            Step::Reset => {
                blocks.clear();
                bump.reset();
                None
            }
            // bumpalo has none: in the program a restore leaves in effect
            // (see `compare_undone`) they change nothing.
            Step::Checkpoint(_) | Step::Restore(_) => None,
        });
        let chunks = table.sync(bump);
        if refused {
            // The program stops here, as the model's does when its base
            // allocator has no room.
            obs.push(Obs {
                place: Some(Place::Unexpected("allocate failed".into())),
                moved: None,
                chunks: chunks.len(),
                current: None,
            });
            break;
        }
        let place = got.map(|(p, layout)| {
            let addr = p.as_ptr() as usize;
            if zero {
                if addr == layout.align().max(M) {
                    Place::ZeroSized
                } else {
                    Place::Unexpected(format!("zero-size block at {addr:#x}"))
                }
            } else {
                table.place(addr)
            }
        });
        match step {
            Step::Alloc { name, size, .. } | Step::Realloc { name, size, .. } => {
                sizes.insert(name.clone(), *size);
                let (p, layout) = got.unwrap();
                blocks.insert(name.clone(), (p, layout));
            }
            Step::Reset => sizes.clear(),
            Step::Free { .. } | Step::Checkpoint(_) | Step::Restore(_) => {}
        }
        let current = chunks.first().map(|&(end, ptr)| {
            let (chunk, data) = table.by_end[&end];
            (chunk, (end - data) as u64, (ptr - data) as u64)
        });
        obs.push(Obs {
            place,
            moved,
            chunks: chunks.len(),
            current,
        });
    }
    call(around, move || drop(bump));
    obs
}

/// Runs `steps` on both sides (the model on the native target) and
/// asserts every op observed the same; returns the model's trace.
pub fn assert_same(steps: &[Step], min_align: u64, capacity: Option<u64>) -> Trace {
    let (t, model) = run_model(steps, native_target(), min_align, capacity);
    let real = run_real(steps, min_align, capacity);
    for (i, (m, r)) in model.iter().zip(&real).enumerate() {
        assert_eq!(
            m,
            r,
            "op {i} ({:?}) differs: model left, real right; MIN_ALIGN {min_align}\n{}",
            steps[i],
            program_text(steps)
        );
    }
    t
}

/// Compares the model's `obs` of `steps` (its trace `t`) with the real crate
/// where `steps` has the playground's emulated checkpoints, which bumpalo
/// lacks. The emulation puts the arena back exactly as it was at the
/// checkpoint (the chunks made since freed, the saved chunk current with
/// its saved bump pointer), so after each restore the model must do what
/// the crate does with the program the restore leaves in effect: the ops
/// since the checkpoint left out. `real(program, bases)` runs a program
/// without checkpoints on the crate, its chunks placed at `bases` (the
/// model's chunks the restores did not undo, in order). Chunks are named by
/// creation among those: the undone ones were made on the model only.
pub fn compare_undone(
    steps: &[Step],
    t: &Trace,
    obs: &[Obs],
    mut real: impl FnMut(&[Step], &[u64]) -> Vec<Obs>,
) -> Result<(), String> {
    // The chunks each restore undid, by the op that undid them: from that
    // op on, the program in effect never made them.
    let undone: Vec<(usize, usize)> = t
        .chunks
        .iter()
        .filter_map(|c| {
            let o = c.freed_by? as usize;
            (t.ops[o].kind == bumplab_core::trace::OpKind::Restore).then_some((c.id as usize, o))
        })
        .collect();
    let undone_by =
        |i: usize| -> Vec<usize> { undone.iter().filter(|u| u.1 <= i).map(|u| u.0).collect() };
    let model: Vec<Obs> = obs
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let gone = undone_by(i);
            let rename = |c: usize| c - gone.iter().filter(|&&u| u < c).count();
            let mut o = o.clone();
            if let Some(Place::InChunk { chunk, .. }) = &mut o.place {
                *chunk = rename(*chunk);
            }
            if let Some((chunk, _, _)) = &mut o.current {
                *chunk = rename(*chunk);
            }
            o
        })
        .collect();
    // The real chunks go where the model's in effect went.
    let bases_from = |i: usize| -> Vec<u64> {
        let gone = undone_by(i);
        t.chunks
            .iter()
            .filter(|c| !gone.contains(&(c.id as usize)))
            .map(|c| c.base)
            .collect()
    };
    // The ops in effect (a checkpoint and a restore stay, as ops that
    // change nothing), where each saved checkpoint is among them, and the
    // model ops of the current segment with the index of the op in effect
    // whose outcome each must show.
    let mut effect: Vec<Step> = Vec::new();
    let mut saved: Vec<(u8, usize)> = Vec::new();
    let mut pending: Vec<(usize, usize)> = Vec::new();
    let mut check = |pending: &mut Vec<(usize, usize)>, effect: &[Step]| {
        let Some(&(first, _)) = pending.first() else {
            return Ok(());
        };
        let got = real(effect, &bases_from(first));
        for &(i, k) in pending.iter() {
            if model[i] != got[k] {
                return Err(format!(
                    "op {i} ({:?}) differs from the crate running the ops in effect\nmodel: {:?}\nreal:  {:?}\n--- program ---\n{}--- in effect ---\n{}",
                    steps[i],
                    model[i],
                    got[k],
                    program_text(steps),
                    program_text(effect)
                ));
            }
        }
        pending.clear();
        Ok(())
    };
    for (i, st) in steps.iter().enumerate() {
        match st {
            Step::Checkpoint(slot) => {
                saved.retain(|s| s.0 != *slot);
                saved.push((*slot, effect.len() + 1));
            }
            Step::Restore(slot) => {
                check(&mut pending, &effect)?;
                let k = saved
                    .iter()
                    .position(|s| s.0 == *slot)
                    .ok_or_else(|| format!("op {i} restores a checkpoint never saved"))?;
                let at = saved[k].1;
                saved.truncate(k + 1);
                effect.truncate(at);
            }
            Step::Reset => saved.clear(),
            _ => {}
        }
        effect.push(st.clone());
        pending.push((i, effect.len() - 1));
    }
    check(&mut pending, &effect)
}

/// The largest `n` in `lo..=hi` for which `holds(n)`, given that it holds
/// at `lo` and fails for every `n` past the first that fails.
fn last_true(lo: u64, hi: u64, holds: impl Fn(u64) -> bool) -> u64 {
    assert!(holds(lo), "the predicate must hold at {lo}");
    let (mut ok, mut bad) = (lo, hi + 1);
    while bad - ok > 1 {
        let mid = ok + (bad - ok) / 2;
        if holds(mid) {
            ok = mid;
        } else {
            bad = mid;
        }
    }
    ok
}

/// The edges of bumpalo's rules for `min_align` on `target`, as programs
/// (and capacities) to run on both sides: alignments of a word, of
/// MIN_ALIGN and twice it, and of a page; a request that exactly fills the
/// first chunk (with and without padding before it) and one byte more, and
/// the same by growing the last block; the next chunk's size at each power
/// of two below a page and each page above (the largest request that keeps
/// it, and one more byte); size 0 from and to a block. Boundaries are found
/// on the model, so a model whose boundary moved is caught on one side of
/// it or the other.
pub fn edge_programs(target: Target, min_align: u64) -> Vec<(Vec<Step>, Option<u64>)> {
    let word = match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    };
    let m = min_align;
    let mut out: Vec<(String, Option<u64>)> = vec![
        (format!("a = alloc 1\nb = alloc 8 align {word}\nc = alloc 3 align {m}\nd = alloc 3 align {}\ne = alloc 1 align {word}\n", 2 * m), None),
        ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 5000 align 4096\nd = alloc 1\n".into(), None),
        ("a = alloc 0\nb = alloc 0 align 4096\nc = alloc 1\nd = realloc c 0\ne = realloc b 8\nf = alloc 0 align 16\n".into(), None),
        // Checkpoints at a chunk's start and end.
        ("checkpoint c0\na = alloc 448\ncheckpoint c1\nb = alloc 1\nrestore c1\nrestore c0\nc = alloc 1\n".into(), None),
    ];
    let chunks_after = |src: &str, cap: Option<u64>| -> Vec<u64> {
        let (t, _) = run_model(&parse_steps(src), target, m, cap);
        t.chunks.iter().map(|c| c.capacity).collect()
    };
    // Exactly the rest of the first chunk, and one byte more: after a
    // block, after a block and padding, and in a chunk of a chosen size.
    for (first, align, cap) in [
        (8, 1, None),
        (3, 64, None),
        (1, 1, Some(16)),
        (100, 16, Some(1008)),
    ] {
        let fits = |n: u64| {
            chunks_after(
                &format!("a = alloc {first}\nb = alloc {n} align {align}\n"),
                cap,
            )
            .len()
                == 1
        };
        let rest = last_true(0, 1 << 20, fits);
        for n in [rest, rest + 1] {
            out.push((
                format!("a = alloc {first}\nb = alloc {n} align {align}\nc = alloc 1\n"),
                cap,
            ));
            out.push((
                format!("a = alloc {first}\nb = alloc 1 align {align}\nc = realloc b {n}\n"),
                cap,
            ));
        }
    }
    // The next chunk's capacity at each boundary of the growth rule.
    let second = |n: u64| -> u64 {
        chunks_after(&format!("a = alloc 8\nb = alloc {n}\n"), None)
            .get(1)
            .copied()
            .unwrap_or(0)
    };
    let doubled = second(chunks_after("a = alloc 8\n", None)[0]);
    let mut bound = doubled;
    while bound < 64 * 1024 {
        let n = last_true(1, 1 << 20, |n| second(n) <= bound);
        for n in [n, n + 1] {
            out.push((format!("a = alloc 8\nb = alloc {n}\nc = alloc 1\n"), None));
        }
        bound = second(n + 1);
    }
    out.into_iter()
        .map(|(src, cap)| (parse_steps(&src), cap))
        .collect()
}

/// The simulated target matching the machine the real crate runs on.
pub fn native_target() -> Target {
    if cfg!(target_pointer_width = "64") {
        Target::W64
    } else {
        Target::Wasm32
    }
}
