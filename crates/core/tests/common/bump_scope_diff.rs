//! Differential harness for the bump-scope presets: random programs run on
//! the real `bump_scope::Bump` (through its own `Allocator` impl and
//! `checkpoint`, `reset_to`, `reset`, its chunk list read with `stats()`),
//! which writes the program text as it goes, and then on the model through
//! `bumplab_core::run`; each side reports the same observations per op.
//!
//! Offsets are measured from each chunk's first usable byte, so on the
//! global allocator they do not depend on where it put the chunk as long
//! as alignments stay at or below 16; on the simulated heap's algorithm
//! (`run_real_on_sim_heap`, needs `sim_heap` included beside this file)
//! every alignment compares exactly. No proptest here, so the file can be included (with
//! `#[path]`) by any test crate that has `bump-scope`, the wasm32 suite too:
//! `run_real` observes whatever target it is compiled for, `compare` takes
//! the target to simulate.

#![allow(dead_code)]

use std::alloc::Layout;
use std::ptr::NonNull;

use bump_scope::alloc::{AllocError, Allocator, Global};
use bump_scope::settings::{BumpAllocatorSettings, BumpSettings, True};
use bump_scope::{Bump, Checkpoint};
use bumplab_core::trace::OpKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};

use super::sim_heap::SimHeap;

pub type Real<S> = Bump<Global, S>;

pub fn preset(up: bool) -> PresetId {
    if up {
        PresetId::BumpScopeUp
    } else {
        PresetId::BumpScopeDown
    }
}

// ---------------------------------------------------------------------------
// What an op leaves behind, read the same way from the real crate and from a
// trace.

/// The observable outcome of one op.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// For an alloc or realloc: the block's chunk (place in the chunk list),
    /// that chunk's capacity and the block's offset from its content start.
    pub block: Option<(usize, u64, u64)>,
    /// For a realloc: whether the block moved.
    pub moved: Option<bool>,
    /// Capacities of all chunks, first to last (their count is the chunk count).
    pub capacities: Vec<u64>,
    /// The current chunk's place in the list and the bump pointer's offset
    /// from its content start.
    pub current: (usize, u64),
}

/// One chunk of the real crate as `stats()` shows it.
#[derive(Clone, Copy, Debug)]
pub struct RealChunk {
    pub start: usize,
    pub end: usize,
    pub pos: usize,
}

/// The real crate's chunk list, first to last, and the current chunk's index.
pub fn real_chunks<A: Allocator, S: BumpAllocatorSettings>(
    bump: &Bump<A, S>,
) -> (Vec<RealChunk>, usize) {
    let stats = bump.stats();
    let current = stats.current_chunk().expect("Bump::new allocates a chunk");
    let mut chunks = Vec::new();
    let mut cur = None;
    for (i, c) in stats.small_to_big().enumerate() {
        if c == current {
            cur = Some(i);
        }
        chunks.push(RealChunk {
            start: c.content_start().as_ptr() as usize,
            end: c.content_end().as_ptr() as usize,
            pos: c.bump_position().as_ptr() as usize,
        });
    }
    (chunks, cur.expect("the current chunk is in the list"))
}

pub fn real_seen<A: Allocator, S: BumpAllocatorSettings>(
    bump: &Bump<A, S>,
    block: Option<(usize, usize)>,
    moved: Option<bool>,
) -> Seen {
    let (chunks, cur) = real_chunks(bump);
    let block = block.map(|(addr, size)| {
        let (i, c) = chunks
            .iter()
            .enumerate()
            .find(|(_, c)| c.start <= addr && addr + size <= c.end)
            .expect("a block lies in one of the chunks");
        (i, (c.end - c.start) as u64, (addr - c.start) as u64)
    });
    Seen {
        block,
        moved,
        capacities: chunks.iter().map(|c| (c.end - c.start) as u64).collect(),
        current: (cur, (chunks[cur].pos - chunks[cur].start) as u64),
    }
}

/// The same reading from a trace, for op `i`.
pub fn trace_seen(t: &Trace, i: usize) -> Seen {
    let op = &t.ops[i];
    let at = i as u32;
    // Chunks alive after op i, in list order (ids are handed out in order
    // and new chunks are appended at the end).
    let live: Vec<_> = t
        .chunks
        .iter()
        .filter(|c| c.created_by.is_none_or(|o| o <= at) && c.freed_by.is_none_or(|o| o > at))
        .collect();
    let block = match (op.kind, op.chunk) {
        (OpKind::Alloc | OpKind::Realloc, Some(id)) => {
            let i = live
                .iter()
                .position(|c| c.id == id)
                .expect("block in a live chunk");
            Some((i, live[i].capacity, op.offset.unwrap()))
        }
        _ => None,
    };
    let ptr = op.bump_ptr.expect("bump-scope always has a current chunk");
    let cur = live
        .iter()
        .position(|c| c.start <= ptr && ptr <= c.start + c.capacity)
        .expect("the bump pointer lies in a live chunk");
    Seen {
        block,
        moved: op.moved,
        capacities: live.iter().map(|c| c.capacity).collect(),
        current: (cur, ptr - live[cur].start),
    }
}

// ---------------------------------------------------------------------------
// Programs, run on the real crate.

/// An op of a generated program, before block names are chosen.
#[derive(Clone, Debug)]
pub enum AOp {
    Alloc {
        size: usize,
        align: usize,
    },
    /// `pick` counts back from the most recent live block.
    Realloc {
        pick: usize,
        size: usize,
    },
    Free {
        pick: usize,
    },
    Reset,
    Checkpoint(u8),
    Restore(u8),
}

/// A block the program may still use.
pub struct Live {
    pub name: String,
    pub ptr: NonNull<u8>,
    pub size: usize,
    pub align: usize,
    /// When it was allocated, to tell which blocks a `reset_to` invalidates.
    pub seq: usize,
}

/// Runs `ops` on the real crate, writing the program text as it goes (ops
/// that cannot apply, such as freeing with no live block, are skipped), and
/// returns the text and what each op left behind.
pub fn run_real<S: BumpAllocatorSettings<GuaranteedAllocated = True>>(
    ops: &[AOp],
) -> (String, Vec<Seen>) {
    run_real_in(Real::<S>::new(), ops)
}

/// The simulated heap as bump-scope's allocator, so the real chunks lie at
/// the model's addresses modulo every alignment up to a page: above 16 a
/// block's offset in its chunk depends on the chunk's address, which the
/// global allocator only aligns to 16. A zero-sized handle, like `Global`:
/// bump-scope keeps the allocator in each chunk's header, and a non-zero
/// one would make the header larger than the model's. The heap it uses is
/// the one [`run_real_on_sim_heap`] installs for this thread.
#[derive(Clone, Copy)]
pub struct OnSimHeap;

thread_local! {
    static SIM_HEAP: std::cell::Cell<*const SimHeap> = const { std::cell::Cell::new(std::ptr::null()) };
}

impl OnSimHeap {
    fn heap(&self) -> &SimHeap {
        let p = SIM_HEAP.with(std::cell::Cell::get);
        assert!(!p.is_null(), "no simulated heap installed on this thread");
        // SAFETY: installed by `run_real_on_sim_heap`, which keeps the heap
        // alive until the `Bump` using it is dropped, then uninstalls it.
        unsafe { &*p }
    }
}

// SAFETY: the simulated heap hands out disjoint live blocks of its buffer,
// which outlives every `Bump` made on it in this file.
unsafe impl Allocator for OnSimHeap {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        allocator_api2_04::alloc::Allocator::allocate(self.heap(), layout).map_err(|_| AllocError)
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: forwarded as given: a block of this heap with this layout.
        unsafe { allocator_api2_04::alloc::Allocator::deallocate(self.heap(), ptr, layout) }
    }
}

/// [`run_real`] on the simulated heap (every alignment compares exactly),
/// with `Bump::with_capacity_in(capacity at align 1)` when a capacity is
/// given, as the model reads its Capacity option.
pub fn run_real_on_sim_heap<S: BumpAllocatorSettings<GuaranteedAllocated = True>>(
    ops: &[AOp],
    capacity: Option<u64>,
) -> (String, Vec<Seen>) {
    let heap = SimHeap::new();
    SIM_HEAP.with(|h| h.set(&heap));
    let bump = match capacity {
        Some(c) => Bump::<OnSimHeap, S>::with_capacity_in(
            Layout::from_size_align(c as usize, 1).unwrap(),
            OnSimHeap,
        ),
        None => Bump::<OnSimHeap, S>::new_in(OnSimHeap),
    };
    // `run_real_in` drops the `Bump` before it returns.
    let out = run_real_in(bump, ops);
    SIM_HEAP.with(|h| h.set(std::ptr::null()));
    out
}

/// Runs `ops` on `bump`; see [`run_real`].
pub fn run_real_in<A: Allocator + Clone, S: BumpAllocatorSettings<GuaranteedAllocated = True>>(
    mut bump: Bump<A, S>,
    ops: &[AOp],
) -> (String, Vec<Seen>) {
    let mut live: Vec<Live> = Vec::new();
    let mut cps: Vec<(u8, Checkpoint, usize)> = Vec::new();
    let mut src = String::new();
    let mut seen = Vec::new();
    let mut names = 0usize;
    for (seq, op) in ops.iter().enumerate() {
        let mut fresh = || {
            names += 1;
            format!("b{names}")
        };
        let pick = |live: &Vec<Live>, pick: usize| live.len() - 1 - pick % live.len();
        let s = match *op {
            AOp::Alloc { size, align } => {
                let layout = Layout::from_size_align(size, align).unwrap();
                let name = fresh();
                src += &format!("{name} = alloc {size} align {align}\n");
                let Ok(ptr) = bump.allocate(layout) else {
                    // The crate refused (no chunk can hold it): the program
                    // stops here, as the model's does when its base
                    // allocator has no room. The last line is that request.
                    break;
                };
                let ptr = ptr.cast::<u8>();
                live.push(Live {
                    name,
                    ptr,
                    size,
                    align,
                    seq,
                });
                real_seen(&bump, Some((ptr.as_ptr() as usize, size)), None)
            }
            AOp::Realloc { pick: p, size } => {
                if live.is_empty() {
                    continue;
                }
                let b = live.remove(pick(&live, p));
                let old = Layout::from_size_align(b.size, b.align).unwrap();
                let new = Layout::from_size_align(size, b.align).unwrap();
                // The model's rule: larger grows, equal or smaller shrinks.
                let ptr = unsafe {
                    if size > b.size {
                        bump.grow(b.ptr, old, new)
                    } else {
                        bump.shrink(b.ptr, old, new)
                    }
                }
                .expect("the real heap has room")
                .cast::<u8>();
                let name = fresh();
                src += &format!("{name} = realloc {} {size}\n", b.name);
                live.push(Live {
                    name,
                    ptr,
                    size,
                    align: b.align,
                    seq,
                });
                real_seen(
                    &bump,
                    Some((ptr.as_ptr() as usize, size)),
                    Some(ptr != b.ptr),
                )
            }
            AOp::Free { pick: p } => {
                if live.is_empty() {
                    continue;
                }
                let b = live.remove(pick(&live, p));
                let layout = Layout::from_size_align(b.size, b.align).unwrap();
                unsafe { bump.deallocate(b.ptr, layout) };
                src += &format!("free {}\n", b.name);
                real_seen(&bump, None, None)
            }
            AOp::Reset => {
                bump.reset();
                live.clear();
                cps.clear();
                src += "reset\n";
                real_seen(&bump, None, None)
            }
            AOp::Checkpoint(slot) => {
                cps.retain(|c| c.0 != slot);
                cps.push((slot, bump.checkpoint(), seq));
                src += &format!("checkpoint c{slot}\n");
                real_seen(&bump, None, None)
            }
            AOp::Restore(slot) => {
                let Some(i) = cps.iter().position(|c| c.0 == slot) else {
                    continue;
                };
                let (_, cp, at) = cps[i];
                // As the engine does: restoring drops the checkpoints saved after it.
                cps.truncate(i + 1);
                // SAFETY: the checkpoint was made by this allocator and no
                // reset happened since (a reset clears the list).
                unsafe { bump.reset_to(cp) };
                live.retain(|b| b.seq < at);
                src += &format!("restore c{slot}\n");
                real_seen(&bump, None, None)
            }
        };
        seen.push(s);
        // Blocks whose bytes lie beyond their chunk's bump pointer are
        // reclaimed (the engine's rule): never use them again.
        let (chunks, cur) = real_chunks(&bump);
        live.retain(|b| {
            let addr = b.ptr.as_ptr() as usize;
            let Some((i, c)) = chunks
                .iter()
                .enumerate()
                .find(|(_, c)| c.start <= addr && addr + b.size <= c.end)
            else {
                return false;
            };
            let (lo, hi) = match (S::UP, i <= cur) {
                (true, true) => (c.start, c.pos),
                (false, true) => (c.pos, c.end),
                (true, false) => (c.start, c.start),
                (false, false) => (c.end, c.end),
            };
            if S::UP {
                !(addr > hi || (b.size > 0 && addr + b.size > hi))
            } else {
                addr >= lo
            }
        });
    }
    (src, seen)
}

/// [`run_real_on_sim_heap`] for a direction and MIN_ALIGN chosen at run time.
pub fn run_real_on_sim_heap_dyn(
    up: bool,
    min_align: u64,
    capacity: Option<u64>,
    ops: &[AOp],
) -> (String, Vec<Seen>) {
    match (up, min_align) {
        (true, 1) => run_real_on_sim_heap::<BumpSettings<1, true>>(ops, capacity),
        (true, 2) => run_real_on_sim_heap::<BumpSettings<2, true>>(ops, capacity),
        (true, 4) => run_real_on_sim_heap::<BumpSettings<4, true>>(ops, capacity),
        (true, 8) => run_real_on_sim_heap::<BumpSettings<8, true>>(ops, capacity),
        (true, 16) => run_real_on_sim_heap::<BumpSettings<16, true>>(ops, capacity),
        (false, 1) => run_real_on_sim_heap::<BumpSettings<1, false>>(ops, capacity),
        (false, 2) => run_real_on_sim_heap::<BumpSettings<2, false>>(ops, capacity),
        (false, 4) => run_real_on_sim_heap::<BumpSettings<4, false>>(ops, capacity),
        (false, 8) => run_real_on_sim_heap::<BumpSettings<8, false>>(ops, capacity),
        (false, 16) => run_real_on_sim_heap::<BumpSettings<16, false>>(ops, capacity),
        _ => unreachable!(),
    }
}

pub fn run_real_dyn(up: bool, min_align: u64, ops: &[AOp]) -> (String, Vec<Seen>) {
    match (up, min_align) {
        (true, 1) => run_real::<BumpSettings<1, true>>(ops),
        (true, 2) => run_real::<BumpSettings<2, true>>(ops),
        (true, 4) => run_real::<BumpSettings<4, true>>(ops),
        (true, 8) => run_real::<BumpSettings<8, true>>(ops),
        (true, 16) => run_real::<BumpSettings<16, true>>(ops),
        (false, 1) => run_real::<BumpSettings<1, false>>(ops),
        (false, 2) => run_real::<BumpSettings<2, false>>(ops),
        (false, 4) => run_real::<BumpSettings<4, false>>(ops),
        (false, 8) => run_real::<BumpSettings<8, false>>(ops),
        (false, 16) => run_real::<BumpSettings<16, false>>(ops),
        _ => unreachable!(),
    }
}

/// Runs `ops` on the real crate, then the program it wrote on the model
/// simulating `target`, and compares op by op; the error names the op and
/// holds the program text.
pub fn compare(up: bool, min_align: u64, target: Target, ops: &[AOp]) -> Result<(), String> {
    let (src, real) = run_real_dyn(up, min_align, ops);
    compare_runs(up, min_align, None, target, &src, &real).map(drop)
}

/// [`compare`] with the real crate on the simulated heap (so alignments
/// above 16 compare exactly) and the model on the native target, with
/// `capacity`; returns the model's trace.
pub fn compare_on_sim_heap(
    up: bool,
    min_align: u64,
    capacity: Option<u64>,
    ops: &[AOp],
) -> Result<Trace, String> {
    let (src, real) = run_real_on_sim_heap_dyn(up, min_align, capacity, ops);
    let native = if cfg!(target_pointer_width = "64") {
        Target::W64
    } else {
        Target::Wasm32
    };
    compare_runs(up, min_align, capacity, native, &src, &real)
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

/// The edges of bump-scope's rules for a direction and `min_align` on
/// `target`, as programs (and capacities) to run on both sides: alignments
/// of a word, of MIN_ALIGN and twice it, and of a page; a request that
/// exactly fills the first chunk (after a block, after padding, in a chunk
/// of a chosen size) and one byte more, and the same by growing the last
/// block; the next chunk's size at each power of two below a page and each
/// page above (the largest request that keeps it, and one more byte); size
/// 0; checkpoints at a chunk's start and end. Boundaries are found on the
/// model, so a model whose boundary moved is caught on one side of it or
/// the other.
pub fn edge_programs(up: bool, min_align: u64, target: Target) -> Vec<(Vec<AOp>, Option<u64>)> {
    let word = match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    };
    let m = min_align as usize;
    let alloc = |size: u64, align: u64| AOp::Alloc {
        size: size as usize,
        align: align as usize,
    };
    let mut out: Vec<(Vec<AOp>, Option<u64>)> = vec![
        (
            vec![
                alloc(1, 1),
                alloc(8, word),
                alloc(3, m as u64),
                alloc(3, 2 * m as u64),
                alloc(1, word),
            ],
            None,
        ),
        (
            vec![alloc(1, 1), alloc(1, 4096), alloc(5000, 4096), alloc(1, 1)],
            None,
        ),
        (
            vec![
                alloc(0, 1),
                alloc(0, 4096),
                alloc(1, 1),
                AOp::Realloc { pick: 0, size: 0 },
                alloc(0, 16),
            ],
            None,
        ),
        (
            vec![
                AOp::Checkpoint(0),
                alloc(464, 1),
                AOp::Checkpoint(1),
                alloc(1, 1),
                AOp::Restore(1),
                AOp::Restore(0),
                alloc(1, 1),
            ],
            None,
        ),
    ];
    let opts = |capacity: Option<u64>| Options {
        target,
        capacity,
        min_align: Some(min_align),
        child: None,
    };
    let chunks_after = |src: &str, cap: Option<u64>| -> Vec<u64> {
        let t = run(src, preset(up), &opts(cap)).unwrap_or_else(|e| panic!("{e}\n{src}"));
        t.chunks.iter().map(|c| c.capacity).collect()
    };
    for (first, align, cap) in [
        (8u64, 1u64, None),
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
            out.push((vec![alloc(first, 1), alloc(n, align), alloc(1, 1)], cap));
            out.push((
                vec![
                    alloc(first, 1),
                    alloc(1, align),
                    AOp::Realloc {
                        pick: 0,
                        size: n as usize,
                    },
                ],
                cap,
            ));
        }
    }
    let second = |n: u64| -> u64 {
        chunks_after(&format!("a = alloc 8\nb = alloc {n}\n"), None)
            .get(1)
            .copied()
            .unwrap_or(0)
    };
    let first_cap = chunks_after("a = alloc 8\n", None)[0];
    let mut bound = second(first_cap);
    while bound < 64 * 1024 {
        let n = last_true(1, 1 << 20, |n| second(n) <= bound);
        for n in [n, n + 1] {
            out.push((vec![alloc(8, 1), alloc(n, 1), alloc(1, 1)], None));
        }
        bound = second(n + 1);
    }
    out
}

/// Runs `src` (written by a real run that saw `real`) on the model and
/// compares op by op.
fn compare_runs(
    up: bool,
    min_align: u64,
    capacity: Option<u64>,
    target: Target,
    src: &str,
    real: &[Seen],
) -> Result<Trace, String> {
    let opts = Options {
        target,
        capacity,
        min_align: Some(min_align),
        child: None,
    };
    let t = run(src, preset(up), &opts).map_err(|e| format!("{e}\n--- program ---\n{src}"))?;
    if t.ops.len() != real.len() {
        return Err(format!(
            "{} ops in the trace, {} on the real crate\n{src}",
            t.ops.len(),
            real.len()
        ));
    }
    for (i, want) in real.iter().enumerate() {
        if t.ops[i].failed {
            return Err(format!("op {i} failed\n{src}"));
        }
        let got = trace_seen(&t, i);
        if &got != want {
            return Err(format!(
                "op {i} ({:?}) of\n{src}\nmodel: {got:?}\nreal:  {want:?}\n\
                 (up {up}, MIN_ALIGN {min_align}, capacity {capacity:?})",
                t.ops[i].kind
            ));
        }
    }
    Ok(t)
}
