//! A trace's ops replayed on the REAL crates, live, inside the module.
//!
//! Two runs sit beside the model's trace:
//!
//! * [`real_run`]: the bumpalo and bump-scope presets replayed on
//!   `bumpalo::Bump<MIN_ALIGN>` and `bump_scope::Bump<Global, BumpSettings<
//!   MIN_ALIGN, UP>>` (the versions the models follow), recording where the
//!   crate put each block (chunk in creation order, its capacity, the offset
//!   from its first usable byte, moved or not) and comparing that with the
//!   model's placement. Only when the trace simulates the target this code is
//!   compiled for: the page's module is wasm32, so there a 64-bit trace gets
//!   `unavailable` (natively, for the tests, the other way round).
//! * [`baseline`]: the same allocation sizes through the module's global
//!   allocator (`std::alloc`; on wasm32 that is dlmalloc), for scale.
//!
//! Costs: every real operation goes through its own `#[inline(never)]`
//! `bumplab_measure_real_*` / `bumplab_measure_global_*` function, a root
//! that bumplab-meter instruments with everything it calls, and the counters
//! are read around that call only, as `measure.rs` does for the models. So a
//! cost is the crate's own code (plus the root's few instructions of call
//! overhead); reading the chunk layout happens outside, uncounted. In a module
//! that was not metered (native tests, `wasm-pack test`) the placements and
//! mismatches are still computed and `cost` is absent.
//!
//! This is real memory, taken from the module's own heap: a program that
//! would need more than [`REAL_LIMIT`] bytes in total is refused, with a
//! reason, before anything is allocated. All of it is freed at the end.

use std::alloc::Layout;

use crate::fresh_heap::{with_fresh_dlmalloc, Dlmalloc, Pages};
use std::collections::HashMap;
use std::ptr::NonNull;

use bump_scope::alloc::Global;
use bump_scope::settings::{BumpAllocatorSettings, BumpSettings, True};
use bumplab_core::trace::{Baseline, BaselineOp, Cost, Mismatch, OpKind, RealOp, RealRun, Trace};
use bumplab_core::{PresetId, Target};
use serde_json::json;

/// The most a real run (or the baseline) may ask for, in total: 64 MiB.
pub const REAL_LIMIT: u64 = 64 << 20;

/// Alignments up to this have offsets that do not depend on where the base
/// allocator put the chunk (it hands out 16-aligned memory).
const ADDRESS_FREE_ALIGN: u64 = 16;

pub const BUMPALO: &str = "bumpalo 3.20.4";
pub const BUMP_SCOPE: &str = "bump-scope 2.4.1";

/// The trace target that matches the code running now, if any.
fn here() -> Option<Target> {
    if cfg!(target_arch = "wasm32") {
        Some(Target::Wasm32)
    } else if cfg!(target_pointer_width = "64") {
        Some(Target::W64)
    } else {
        None
    }
}

fn target_name(t: Target) -> &'static str {
    match t {
        Target::W64 => "64-bit",
        Target::Wasm32 => "wasm32",
    }
}

/// Runs `f` and, when `metered`, what it executed.
#[inline(always)]
fn counted<T>(metered: bool, f: impl FnOnce() -> T) -> (T, Option<Cost>) {
    if metered {
        let before = crate::meter::now();
        let out = f();
        (out, Some(crate::meter::since(before)))
    } else {
        (f(), None)
    }
}

/// [`counted`] for a call into a real crate: its allocations go through the
/// replay region (see `replay_alloc`), so its slow path costs the same every time.
fn counted_real<T>(metered: bool, f: impl FnOnce() -> T) -> (T, Option<Cost>) {
    counted(metered, || crate::replay_alloc::measured(f))
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1u64 << 20) as f64)
}

/// Bytes the program asks for in total: every alloc and every realloc's new size.
fn requested_total(trace: &Trace) -> u64 {
    trace
        .ops
        .iter()
        .filter(|o| matches!(o.kind, OpKind::Alloc | OpKind::Realloc))
        .map(|o| o.size.unwrap_or(0))
        .fold(0u64, u64::saturating_add)
}

fn layout(size: u64, align: u64) -> Option<Layout> {
    let size = usize::try_from(size).ok()?;
    let align = usize::try_from(align).ok()?;
    Layout::from_size_align(size, align).ok()
}

// ---------------------------------------------------------------------------
// The real crates behind one interface, for the generic roots.

/// A real bump allocator, as far as the replay needs it. The methods are
/// `#[inline(always)]` forwarders, so a root's body is the crate's code.
trait RealBump {
    type Checkpoint: Copy;
    const CRATE: &'static str;
    /// Whether a realloc from size 0 is a fresh allocation (bumpalo's
    /// `realloc`); otherwise it grows like any other block.
    const ALLOC_FROM_ZERO: bool;
    /// Whether `new` (larger or not) is reached with `grow`; the rest shrink.
    fn grows(old: Layout, new: Layout) -> bool;
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `old`, and `new`
    /// is no smaller.
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `old`, and `new`
    /// is no larger.
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>>;
    /// # Safety
    /// `ptr` is a live block of this allocator with layout `layout`.
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout);
    fn reset(&mut self);
    /// `None`: the crate has no checkpoints.
    fn checkpoint(&self) -> Option<Self::Checkpoint>;
    /// # Safety
    /// `cp` came from this allocator, with no reset and no restore to an
    /// earlier checkpoint since.
    unsafe fn restore(&self, cp: Self::Checkpoint);
    /// The chunks owned now, as `(first usable byte, end of usable bytes)`;
    /// `known` are the chunks seen so far, for crates that tell only the
    /// current chunk's start.
    fn chunks(&self, known: &ChunkTable) -> Vec<(usize, usize)>;
}

struct Bumpalo<const M: usize>(bumpalo::Bump<M>);

impl<const M: usize> RealBump for Bumpalo<M> {
    type Checkpoint = ();
    const CRATE: &'static str = BUMPALO;
    const ALLOC_FROM_ZERO: bool = true;
    fn grows(old: Layout, new: Layout) -> bool {
        new.size() > old.size()
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        allocator_api2::alloc::Allocator::allocate(&&self.0, layout)
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::grow(&&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::shrink(&&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { allocator_api2::alloc::Allocator::deallocate(&&self.0, ptr, layout) }
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset()
    }
    fn checkpoint(&self) -> Option<()> {
        None
    }
    unsafe fn restore(&self, _: ()) {}
    fn chunks(&self, known: &ChunkTable) -> Vec<(usize, usize)> {
        // SAFETY: only addresses are read; nothing allocates meanwhile.
        let raw: Vec<(usize, usize)> = unsafe { self.0.iter_allocated_chunks_raw() }
            .map(|(ptr, len)| (ptr as usize, ptr as usize + len))
            .collect();
        // Newest (current) first: its usable bytes start `chunk_capacity()`
        // below the bump pointer. Every chunk is current right after the op
        // that made it, so the others are known by then.
        raw.iter()
            .enumerate()
            .filter_map(|(i, &(ptr, end))| {
                if i == 0 {
                    Some((ptr - self.0.chunk_capacity(), end))
                } else {
                    known.start_of(end).map(|start| (start, end))
                }
            })
            .collect()
    }
}

struct BumpScope<S: BumpAllocatorSettings>(bump_scope::Bump<Global, S>);

impl<S: BumpAllocatorSettings<GuaranteedAllocated = True>> RealBump for BumpScope<S> {
    type Checkpoint = bump_scope::Checkpoint;
    const CRATE: &'static str = BUMP_SCOPE;
    const ALLOC_FROM_ZERO: bool = false;
    fn grows(old: Layout, new: Layout) -> bool {
        new.size() > old.size()
    }
    #[inline(always)]
    fn allocate(&self, layout: Layout) -> Option<NonNull<u8>> {
        bump_scope::alloc::Allocator::allocate(&self.0, layout)
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn grow(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::grow(&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn shrink(&self, ptr: NonNull<u8>, old: Layout, new: Layout) -> Option<NonNull<u8>> {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::shrink(&self.0, ptr, old, new) }
            .ok()
            .map(NonNull::cast)
    }
    #[inline(always)]
    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        // SAFETY: the caller's contract.
        unsafe { bump_scope::alloc::Allocator::deallocate(&self.0, ptr, layout) }
    }
    #[inline(always)]
    fn reset(&mut self) {
        self.0.reset()
    }
    #[inline(always)]
    fn checkpoint(&self) -> Option<bump_scope::Checkpoint> {
        Some(self.0.checkpoint())
    }
    #[inline(always)]
    unsafe fn restore(&self, cp: bump_scope::Checkpoint) {
        // SAFETY: the caller's contract is `reset_to`'s.
        unsafe { self.0.reset_to(cp) }
    }
    fn chunks(&self, _: &ChunkTable) -> Vec<(usize, usize)> {
        self.0
            .stats()
            .small_to_big()
            .map(|c| {
                (
                    c.content_start().as_ptr() as usize,
                    c.content_end().as_ptr() as usize,
                )
            })
            .collect()
    }
}

// The measured roots: one op each, generic over the crate (and through it
// MIN_ALIGN and direction), so each instantiation is the crate's code for
// exactly that configuration.

#[inline(never)]
fn bumplab_measure_real_alloc<R: RealBump>(r: &R, layout: Layout) -> Option<NonNull<u8>> {
    r.allocate(layout)
}

/// # Safety
/// As [`RealBump::grow`].
#[inline(never)]
unsafe fn bumplab_measure_real_grow<R: RealBump>(
    r: &R,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe { r.grow(ptr, old, new) }
}

/// # Safety
/// As [`RealBump::shrink`].
#[inline(never)]
unsafe fn bumplab_measure_real_shrink<R: RealBump>(
    r: &R,
    ptr: NonNull<u8>,
    old: Layout,
    new: Layout,
) -> Option<NonNull<u8>> {
    // SAFETY: the caller's contract.
    unsafe { r.shrink(ptr, old, new) }
}

/// # Safety
/// As [`RealBump::deallocate`].
#[inline(never)]
unsafe fn bumplab_measure_real_free<R: RealBump>(r: &R, ptr: NonNull<u8>, layout: Layout) {
    // SAFETY: the caller's contract.
    unsafe { r.deallocate(ptr, layout) }
}

#[inline(never)]
fn bumplab_measure_real_reset<R: RealBump>(r: &mut R) {
    r.reset()
}

#[inline(never)]
fn bumplab_measure_real_checkpoint<R: RealBump>(r: &R) -> Option<R::Checkpoint> {
    r.checkpoint()
}

/// # Safety
/// As [`RealBump::restore`].
#[inline(never)]
unsafe fn bumplab_measure_real_restore<R: RealBump>(r: &R, cp: R::Checkpoint) {
    // SAFETY: the caller's contract.
    unsafe { r.restore(cp) }
}

// ---------------------------------------------------------------------------
// Chunks in creation order.

/// The real chunks seen so far: `(start, end, creation index)`. A chunk
/// that disappears (freed) is forgotten, so a later chunk at the same
/// address gets a new index, as the model numbers chunks.
#[derive(Default)]
struct ChunkTable {
    live: Vec<(usize, usize, u32)>,
    next: u32,
}

impl ChunkTable {
    fn start_of(&self, end: usize) -> Option<usize> {
        self.live.iter().find(|c| c.1 == end).map(|c| c.0)
    }

    fn sync(&mut self, now: &[(usize, usize)]) {
        self.live.retain(|c| now.contains(&(c.0, c.1)));
        for &(start, end) in now {
            if !self.live.iter().any(|c| (c.0, c.1) == (start, end)) {
                self.live.push((start, end, self.next));
                self.next += 1;
            }
        }
    }

    /// The chunk holding `size` bytes at `addr`: index, capacity, offset.
    fn place(&self, addr: usize, size: usize) -> Option<(u32, u64, u64)> {
        self.live
            .iter()
            .find(|c| c.0 <= addr && addr.saturating_add(size) <= c.1)
            .map(|&(start, end, id)| (id, (end - start) as u64, (addr - start) as u64))
    }
}

// ---------------------------------------------------------------------------
// The replay.

/// What the replay found, beyond the serialised rows.
struct Replayed {
    ops: Vec<RealOp>,
    /// Each op's block address, for the alignment check above 16.
    addrs: Vec<Option<usize>>,
    /// Ops from this index on are not compared (bumpalo's emulated restore).
    compare_until: usize,
}

fn replay<R: RealBump>(mut bump: R, trace: &Trace, metered: bool) -> Result<Replayed, String> {
    let mut table = ChunkTable::default();
    table.sync(&bump.chunks(&table));
    // Live blocks by the index of the op that placed them.
    let mut live: HashMap<u32, (NonNull<u8>, Layout)> = HashMap::new();
    let mut saved: Vec<(String, R::Checkpoint)> = Vec::new();
    let mut out = Replayed {
        ops: Vec::with_capacity(trace.ops.len()),
        addrs: Vec::with_capacity(trace.ops.len()),
        compare_until: trace.ops.len(),
    };
    for (i, op) in trace.ops.iter().enumerate() {
        let mut row = RealOp::default();
        let mut placed: Option<(NonNull<u8>, Layout)> = None;
        let missing = |what: &str| format!("op {i}: the real run holds no block to {what}");
        let refused = || format!("op {i}: the real crate could not allocate");
        match op.kind {
            _ if op.failed => {
                row.note = Some("failed in the model; not run on the real crate".into());
            }
            OpKind::Alloc => {
                let l = layout(op.size.unwrap_or(0), op.align.unwrap_or(1))
                    .ok_or_else(|| format!("op {i}: no such layout here"))?;
                let (p, cost) = counted_real(metered, || bumplab_measure_real_alloc(&bump, l));
                row.cost = cost;
                placed = Some((p.ok_or_else(refused)?, l));
            }
            OpKind::Realloc => {
                let (ptr, old) = op
                    .target_op
                    .and_then(|t| live.remove(&t))
                    .ok_or_else(|| missing("realloc"))?;
                let new = layout(op.size.unwrap_or(0), old.align() as u64)
                    .ok_or_else(|| format!("op {i}: no such layout here"))?;
                let (p, cost) = counted_real(metered, || {
                    if R::ALLOC_FROM_ZERO && old.size() == 0 {
                        bumplab_measure_real_alloc(&bump, new)
                    } else if R::grows(old, new) {
                        // SAFETY: a live block of `bump` with layout `old`.
                        unsafe { bumplab_measure_real_grow(&bump, ptr, old, new) }
                    } else {
                        // SAFETY: as above.
                        unsafe { bumplab_measure_real_shrink(&bump, ptr, old, new) }
                    }
                });
                row.cost = cost;
                let p = p.ok_or_else(refused)?;
                row.moved = Some(p != ptr);
                placed = Some((p, new));
            }
            OpKind::Free => {
                let (ptr, l) = op
                    .target_op
                    .and_then(|t| live.remove(&t))
                    .ok_or_else(|| missing("free"))?;
                // SAFETY: a live block of `bump` with layout `l`.
                let ((), cost) = counted_real(metered, || unsafe {
                    bumplab_measure_real_free(&bump, ptr, l)
                });
                row.cost = cost;
            }
            OpKind::Reset => {
                let ((), cost) = counted_real(metered, || bumplab_measure_real_reset(&mut bump));
                row.cost = cost;
                live.clear();
                saved.clear();
            }
            OpKind::Checkpoint => {
                let (cp, cost) = counted_real(metered, || bumplab_measure_real_checkpoint(&bump));
                match cp {
                    Some(cp) => {
                        row.cost = cost;
                        let name = op.block.clone().unwrap_or_default();
                        saved.retain(|(n, _)| *n != name);
                        saved.push((name, cp));
                    }
                    None => {
                        row.note = Some(format!(
                            "{} has no checkpoints: not run on the real crate",
                            R::CRATE
                        ))
                    }
                }
            }
            OpKind::Restore => {
                let name = op.block.as_deref().unwrap_or_default();
                match saved.iter().position(|(n, _)| n == name) {
                    Some(k) => {
                        let cp = saved[k].1;
                        // The engine's rule: later checkpoints are gone.
                        saved.truncate(k + 1);
                        // SAFETY: `cp` came from `bump`; a reset clears
                        // `saved` and a restore drops the later ones.
                        let ((), cost) = counted_real(metered, || unsafe {
                            bumplab_measure_real_restore(&bump, cp)
                        });
                        row.cost = cost;
                    }
                    None => {
                        row.note = Some(format!(
                            "{} has no checkpoints: not run on the real crate, which \
                             keeps every block and chunk the model's emulated restore \
                             gives back, so later placements are not compared",
                            R::CRATE
                        ));
                        out.compare_until = out.compare_until.min(i + 1);
                    }
                }
                // Blocks the restore reclaimed are never named again.
                for r in &op.reclaimed {
                    live.remove(r);
                }
            }
        }
        table.sync(&bump.chunks(&table));
        let mut addr = None;
        if let Some((p, l)) = placed {
            let a = p.as_ptr() as usize;
            addr = Some(a);
            if let Some((chunk, capacity, offset)) = table.place(a, l.size()) {
                row.chunk = Some(chunk);
                row.chunk_capacity = Some(capacity);
                row.offset = Some(offset);
            }
            live.insert(i as u32, (p, l));
        }
        out.ops.push(row);
        out.addrs.push(addr);
    }
    // Dropping `bump` gives every chunk back.
    drop(bump);
    Ok(out)
}

/// The model's placement against the real one, op by op.
///
/// A block aligned to more than 16 gets padding that depends on where the
/// base allocator put its chunk, so only its alignment is compared, and the
/// offsets of the blocks placed after it in the same chunk are not compared
/// either (they inherit that padding) until a reset empties the chunks.
fn compare(trace: &Trace, real: &Replayed) -> Vec<Mismatch> {
    let mut out = Vec::new();
    // Model chunks holding a block aligned above 16.
    let mut address_dependent: Vec<u32> = Vec::new();
    let ops = trace.ops.iter().zip(&real.ops).zip(&real.addrs);
    for (i, ((m, r), &addr)) in ops.enumerate().take(real.compare_until) {
        if m.kind == OpKind::Reset {
            address_dependent.clear();
        }
        if m.failed || !matches!(m.kind, OpKind::Alloc | OpKind::Realloc) {
            continue;
        }
        let mut differ = |field, model: serde_json::Value, real: serde_json::Value| {
            if model != real {
                out.push(Mismatch {
                    op: i as u32,
                    field,
                    model,
                    real,
                });
            }
        };
        let capacity = m
            .chunk
            .and_then(|c| trace.chunks.get(c as usize))
            .map(|c| c.capacity);
        differ("chunk", json!(m.chunk), json!(r.chunk));
        differ("chunk_capacity", json!(capacity), json!(r.chunk_capacity));
        let align = m.align.unwrap_or(1);
        if align > ADDRESS_FREE_ALIGN {
            if let Some(a) = addr {
                // In its chunk is `chunk` above; the offset is malloc's doing.
                differ("aligned", json!(true), json!(a as u64 % align == 0));
            }
            address_dependent.extend(m.chunk);
        } else if !m.chunk.is_some_and(|c| address_dependent.contains(&c)) {
            differ("offset", json!(m.offset), json!(r.offset));
        }
        if m.kind == OpKind::Realloc {
            differ("moved", json!(m.moved), json!(r.moved));
        }
    }
    out
}

fn run_on<R: RealBump>(bump: impl FnOnce() -> R, trace: &Trace, metered: bool) -> RealRun {
    // Made in the replay region too, so its first chunk sits at the same
    // place in it every run (copies and alignment work cost the same).
    match replay(crate::replay_alloc::measured(bump), trace, metered) {
        Ok(replayed) => RealRun {
            krate: R::CRATE.to_string(),
            unavailable: None,
            mismatches: Some(compare(trace, &replayed)),
            ops: Some(replayed.ops),
        },
        Err(why) => RealRun::unavailable(R::CRATE, why),
    }
}

fn bumpalo_with<const M: usize>(capacity: Option<u64>) -> Bumpalo<M> {
    Bumpalo(match capacity.filter(|&c| c > 0) {
        Some(c) => bumpalo::Bump::<M>::with_min_align_and_capacity(c as usize),
        None => bumpalo::Bump::<M>::with_min_align(),
    })
}

/// `Bump::new()`, or with a capacity chosen `Bump::with_capacity` for that
/// many bytes at alignment 1 (as the model reads the knob).
fn bump_scope_with<S: BumpAllocatorSettings<GuaranteedAllocated = True>>(
    capacity: Option<u64>,
) -> BumpScope<S> {
    BumpScope(match capacity.and_then(|c| layout(c, 1)) {
        Some(l) => bump_scope::Bump::<Global, S>::with_capacity(l),
        None => bump_scope::Bump::<Global, S>::new(),
    })
}

/// `trace` (of `preset`, built with `min_align` and `capacity`) replayed on
/// the real crate; `None` for presets that model no crate.
pub fn real_run(
    trace: &Trace,
    preset: PresetId,
    min_align: u64,
    capacity: Option<u64>,
    metered: bool,
) -> Option<RealRun> {
    let krate = match preset {
        PresetId::Bumpalo => BUMPALO,
        PresetId::BumpScopeUp | PresetId::BumpScopeDown => BUMP_SCOPE,
        _ => return None,
    };
    let unavailable = |why| Some(RealRun::unavailable(krate, why));
    let Some(here) = here() else {
        return unavailable("the real crates run only on wasm32 and 64-bit targets".into());
    };
    if trace.target != here {
        return unavailable(format!(
            "the real crate runs here compiled for {}; this trace simulates {}, \
             so its chunk sizes and offsets are not the crate's here",
            target_name(here),
            target_name(trace.target)
        ));
    }
    let requested = requested_total(trace);
    let chunks = trace
        .chunks
        .iter()
        .map(|c| c.size)
        .fold(0u64, u64::saturating_add);
    if requested > REAL_LIMIT || chunks > REAL_LIMIT {
        return unavailable(format!(
            "the program needs {} of requests and {} of chunks; real runs are limited to {} \
             in total",
            mib(requested),
            mib(chunks),
            mib(REAL_LIMIT)
        ));
    }
    let c = capacity;
    let t = trace;
    crate::replay_alloc::begin_pass(crate::replay_alloc::pass_bytes(t.ops.len(), requested));
    let run = match (preset, min_align) {
        (PresetId::Bumpalo, 1) => run_on(|| bumpalo_with::<1>(c), t, metered),
        (PresetId::Bumpalo, 2) => run_on(|| bumpalo_with::<2>(c), t, metered),
        (PresetId::Bumpalo, 4) => run_on(|| bumpalo_with::<4>(c), t, metered),
        (PresetId::Bumpalo, 8) => run_on(|| bumpalo_with::<8>(c), t, metered),
        (PresetId::Bumpalo, 16) => run_on(|| bumpalo_with::<16>(c), t, metered),
        (PresetId::BumpScopeUp, 1) => {
            run_on(|| bump_scope_with::<BumpSettings<1, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 2) => {
            run_on(|| bump_scope_with::<BumpSettings<2, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 4) => {
            run_on(|| bump_scope_with::<BumpSettings<4, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 8) => {
            run_on(|| bump_scope_with::<BumpSettings<8, true>>(c), t, metered)
        }
        (PresetId::BumpScopeUp, 16) => {
            run_on(|| bump_scope_with::<BumpSettings<16, true>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 1) => {
            run_on(|| bump_scope_with::<BumpSettings<1, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 2) => {
            run_on(|| bump_scope_with::<BumpSettings<2, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 4) => {
            run_on(|| bump_scope_with::<BumpSettings<4, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 8) => {
            run_on(|| bump_scope_with::<BumpSettings<8, false>>(c), t, metered)
        }
        (PresetId::BumpScopeDown, 16) => {
            run_on(|| bump_scope_with::<BumpSettings<16, false>>(c), t, metered)
        }
        (_, m) => return unavailable(format!("the real crate has no MIN_ALIGN {m}")),
    };
    Some(run)
}

// ---------------------------------------------------------------------------
// The general-purpose baseline.

/// What the baseline runs on: dlmalloc, the allocator std uses on wasm32,
/// on a heap of its own that starts fresh every run (see `fresh_heap`).
pub const GLOBAL: &str = if cfg!(target_arch = "wasm32") {
    "Rust's global allocator (dlmalloc, wasm32)"
} else {
    "dlmalloc (the wasm32 global allocator, run natively)"
};

/// # Safety
/// `layout.size()` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_alloc(dl: &mut Dlmalloc<Pages>, layout: Layout) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.malloc(layout.size(), layout.align()) }
}

/// # Safety
/// `ptr` is a live block of `dl` with `layout`, and `new_size` is not 0.
#[inline(never)]
unsafe fn bumplab_measure_global_realloc(
    dl: &mut Dlmalloc<Pages>,
    ptr: *mut u8,
    layout: Layout,
    new_size: usize,
) -> *mut u8 {
    // SAFETY: the caller's contract.
    unsafe { dl.realloc(ptr, layout.size(), layout.align(), new_size) }
}

/// # Safety
/// `ptr` is a live block of `dl` with `layout`.
#[inline(never)]
unsafe fn bumplab_measure_global_free(dl: &mut Dlmalloc<Pages>, ptr: *mut u8, layout: Layout) {
    // SAFETY: the caller's contract.
    unsafe { dl.free(ptr, layout.size(), layout.align()) }
}

/// Frees every block of `blocks`, in order: a reset or restore.
///
/// # Safety
/// Each is a live block of `dl` with its layout.
#[inline(never)]
unsafe fn bumplab_measure_global_free_all(
    dl: &mut Dlmalloc<Pages>,
    blocks: &[(NonNull<u8>, Layout)],
) {
    for &(ptr, layout) in blocks {
        // SAFETY: the caller's contract.
        unsafe { dl.free(ptr.as_ptr(), layout.size(), layout.align()) }
    }
}

/// Frees the listed blocks of `live` (those of them still there), newest
/// first, as one counted op.
fn free_many(
    dl: &mut Dlmalloc<Pages>,
    live: &mut HashMap<u32, (NonNull<u8>, Layout)>,
    which: impl Iterator<Item = u32>,
    metered: bool,
) -> Option<Cost> {
    let mut ids: Vec<u32> = which.filter(|id| live.contains_key(id)).collect();
    ids.sort_unstable_by(|a, b| b.cmp(a));
    ids.dedup();
    let blocks: Vec<(NonNull<u8>, Layout)> = ids.iter().filter_map(|id| live.remove(id)).collect();
    // SAFETY: each came from the global allocator with its layout and was
    // removed from `live`, so it is freed once.
    let ((), cost) = counted(metered, || unsafe {
        bumplab_measure_global_free_all(dl, &blocks)
    });
    cost
}

/// The trace's allocation sizes through the global allocator (`std::alloc`,
/// dlmalloc on wasm32), each call counted like a real op:
///
/// * alloc, realloc, free: the same `Layout`s. A zero-size request never
///   reaches a global allocator (Rust hands out a dangling pointer), so it
///   has no cost; a realloc from or to size 0 is an alloc or a free.
/// * reset and restore: every block the op reclaims (a reset: every live
///   block) is freed, newest first, counted as one op; a checkpoint costs
///   nothing here, so it has no cost.
pub fn baseline(trace: &Trace, metered: bool) -> Baseline {
    let mut b = Baseline {
        allocator: GLOBAL.to_string(),
        unavailable: None,
        ops: vec![BaselineOp::default(); trace.ops.len()],
    };
    let requested = requested_total(trace);
    if requested > REAL_LIMIT {
        b.unavailable = Some(format!(
            "the program asks for {} in total; real runs are limited to {}",
            mib(requested),
            mib(REAL_LIMIT)
        ));
        return b;
    }
    // dlmalloc's own overhead (headers, alignment, its top chunk) on top of
    // what is asked, with room to spare; blocks are not freed at the end:
    // the whole heap is dropped.
    let bytes = (2 * requested + (4 << 20) + 64 * trace.ops.len() as u64).min(2 * REAL_LIMIT);
    let ran = with_fresh_dlmalloc(bytes as usize, |dl| {
        let mut live: HashMap<u32, (NonNull<u8>, Layout)> = HashMap::new();
        for (i, op) in trace.ops.iter().enumerate() {
            let cost = match op.kind {
                _ if op.failed => None,
                OpKind::Alloc => {
                    let Some(l) = layout(op.size.unwrap_or(0), op.align.unwrap_or(1)) else {
                        continue;
                    };
                    if l.size() == 0 {
                        continue;
                    }
                    // SAFETY: the size is not 0.
                    let (p, cost) =
                        counted(metered, || unsafe { bumplab_measure_global_alloc(dl, l) });
                    let Some(p) = NonNull::new(p) else {
                        b.unavailable =
                            Some(format!("op {i}: the global allocator is out of memory"));
                        break;
                    };
                    live.insert(i as u32, (p, l));
                    cost
                }
                OpKind::Realloc => {
                    let old = op.target_op.and_then(|t| live.remove(&t));
                    let align = op.align.unwrap_or(1);
                    let Some(new) = layout(op.size.unwrap_or(0), align) else {
                        continue;
                    };
                    let (p, cost) = match old {
                        // SAFETY: a live block with its layout, freed once.
                        Some((ptr, l)) if new.size() == 0 => counted(metered, || unsafe {
                            bumplab_measure_global_free(dl, ptr.as_ptr(), l);
                            core::ptr::null_mut()
                        }),
                        // SAFETY: a live block with its layout; the size is not 0.
                        Some((ptr, l)) => counted(metered, || unsafe {
                            bumplab_measure_global_realloc(dl, ptr.as_ptr(), l, new.size())
                        }),
                        None if new.size() == 0 => continue,
                        // SAFETY: the size is not 0.
                        None => {
                            counted(metered, || unsafe { bumplab_measure_global_alloc(dl, new) })
                        }
                    };
                    if new.size() > 0 {
                        let Some(p) = NonNull::new(p) else {
                            b.unavailable =
                                Some(format!("op {i}: the global allocator is out of memory"));
                            break;
                        };
                        live.insert(i as u32, (p, new));
                    }
                    cost
                }
                OpKind::Free => match op.target_op.and_then(|t| live.remove(&t)) {
                    // SAFETY: a live block with its layout, freed once.
                    Some((ptr, l)) => {
                        counted(metered, || unsafe {
                            bumplab_measure_global_free(dl, ptr.as_ptr(), l)
                        })
                        .1
                    }
                    None => None,
                },
                OpKind::Reset => {
                    let all: Vec<u32> = live.keys().copied().collect();
                    free_many(dl, &mut live, all.into_iter(), metered)
                }
                OpKind::Restore => free_many(dl, &mut live, op.reclaimed.iter().copied(), metered),
                OpKind::Checkpoint => None,
            };
            b.ops[i].cost = cost;
        }
    });
    if ran.is_none() {
        b.unavailable = Some(format!("no room for a {} heap to run it on", mib(bytes)));
    }
    if b.unavailable.is_some() {
        b.ops.iter_mut().for_each(|o| o.cost = None);
    }
    b
}

#[cfg(all(test, target_pointer_width = "64"))]
mod tests {
    //! Natively the real crates are 64-bit, so 64-bit traces are compared.

    use super::*;
    use bumplab_core::{run, Options};

    fn real(src: &str, preset: PresetId, target: Target, min_align: u64) -> (Trace, RealRun) {
        let opts = Options {
            target,
            capacity: None,
            min_align: Some(min_align),
        };
        let t = run(src, preset, &opts).unwrap();
        let r = real_run(&t, preset, min_align, None, false).unwrap();
        (t, r)
    }

    const BUMPALO: &str = "a = alloc 100 align 8\nb = alloc 100 align 8\nb2 = realloc b 150\n\
        free b2\nc = alloc 300 align 8\nd = alloc 500 align 8\nd2 = realloc d 700\n\
        e = alloc 600 align 16\nf = alloc 8 align 8\nfree f\nz = alloc 0\n";

    #[test]
    fn bumpalo_matches_on_64_bit() {
        for m in [1, 2, 4, 8, 16] {
            let (t, r) = real(BUMPALO, PresetId::Bumpalo, Target::W64, m);
            assert_eq!(r.mismatches, Some(vec![]), "MIN_ALIGN {m}");
            let ops = r.ops.unwrap();
            assert_eq!(ops.len(), t.ops.len());
            let caps: Vec<_> = ops.iter().map(|o| o.chunk_capacity).collect();
            let (a, b, c) = (Some(448), Some(960), Some(1984));
            let want = [a, a, a, None, a, b, b, c, c, None, None];
            assert_eq!(caps, want, "MIN_ALIGN {m}");
            assert!(ops.iter().all(|o| o.cost.is_none()), "not metered");
            assert_eq!(ops[2].moved, Some(true));
            assert_eq!(ops[6].moved, Some(true));
        }
    }

    #[test]
    fn bump_scope_matches_with_checkpoints_on_64_bit() {
        // Sizes are multiples of 16, so the last block stays last at every
        // MIN_ALIGN (bump-scope rounds the bump position, not the block).
        let src = "a = alloc 96 align 8\ncheckpoint s\nb = alloc 304 align 8\n\
            c = alloc 592 align 8\nc2 = realloc c 800\nrestore s\nd = alloc 900 align 8\n\
            e = alloc 1500 align 4\nfree e\nreset\nf = alloc 16 align 16\n";
        for p in [PresetId::BumpScopeUp, PresetId::BumpScopeDown] {
            for m in [1, 2, 4, 8, 16] {
                let (_, r) = real(src, p, Target::W64, m);
                assert_eq!(r.mismatches, Some(vec![]), "{p:?} MIN_ALIGN {m}");
                let ops = r.ops.unwrap();
                let caps: Vec<_> = ops.iter().filter_map(|o| o.chunk_capacity).collect();
                assert_eq!(caps, [464, 464, 976, 976, 976, 2000, 2000], "{p:?} {m}");
            }
        }
    }

    #[test]
    fn a_model_bug_shows_as_a_mismatch() {
        let (mut t, _) = real(BUMPALO, PresetId::Bumpalo, Target::W64, 1);
        t.ops[0].offset = Some(1);
        t.ops[5].chunk = Some(0);
        let r = real_run(&t, PresetId::Bumpalo, 1, None, false).unwrap();
        let got: Vec<_> = r
            .mismatches
            .unwrap()
            .into_iter()
            .map(|m| (m.op, m.field))
            .collect();
        assert_eq!(
            got,
            [(0, "offset"), (5, "chunk"), (5, "chunk_capacity")],
            "capacity follows the model's chunk"
        );
    }

    #[test]
    fn offsets_after_a_block_aligned_above_16_are_not_compared() {
        let src = "a = alloc 8 align 64\nb = alloc 8 align 8\nreset\nc = alloc 8 align 8\n";
        for p in [
            PresetId::Bumpalo,
            PresetId::BumpScopeUp,
            PresetId::BumpScopeDown,
        ] {
            let (mut t, r) = real(src, p, Target::W64, 1);
            assert_eq!(r.mismatches, Some(vec![]), "{p:?}");
            // b's offset inherits a's padding: not compared; after the
            // reset offsets count again.
            for i in [1, 3] {
                t.ops[i].offset = t.ops[i].offset.map(|o| o + 8);
            }
            let r = real_run(&t, p, 1, None, false).unwrap();
            let got: Vec<_> = r
                .mismatches
                .unwrap()
                .iter()
                .map(|m| (m.op, m.field))
                .collect();
            assert_eq!(got, [(3, "offset")], "{p:?}");
        }
    }

    #[test]
    fn bumpalo_skips_checkpoints_and_stops_comparing_after_a_restore() {
        let src = "a = alloc 8\ncheckpoint s\nb = alloc 400\nc = alloc 400\nrestore s\n\
            d = alloc 400\n";
        let (_, r) = real(src, PresetId::Bumpalo, Target::W64, 1);
        let ops = r.ops.unwrap();
        assert!(ops[1].note.as_deref().unwrap().contains("no checkpoints"));
        assert!(ops[4].note.as_deref().unwrap().contains("not compared"));
        // The model freed chunk 1 and made a new one; the real crate kept it.
        assert_eq!(r.mismatches, Some(vec![]));
        assert_eq!((ops[5].chunk, ops[5].chunk_capacity), (Some(1), Some(960)));
    }

    #[test]
    fn other_targets_and_huge_programs_are_refused() {
        let (_, r) = real("a = alloc 8\n", PresetId::Bumpalo, Target::Wasm32, 1);
        assert!(r.unavailable.unwrap().contains("simulates wasm32"));
        assert!(r.ops.is_none());
        let (_, r) = real(
            "a = alloc 0x10000000\n",
            PresetId::BumpScopeUp,
            Target::W64,
            1,
        );
        assert!(r.unavailable.unwrap().contains("limited to 64.0 MiB"));
        let t = run("a = alloc 8\n", PresetId::HinckleyUp, &Options::default()).unwrap();
        assert!(real_run(&t, PresetId::HinckleyUp, 1, None, false).is_none());
    }

    #[test]
    fn the_baseline_frees_what_a_restore_reclaims() {
        let src = "a = alloc 8\ncheckpoint s\nb = alloc 16\nb2 = realloc b 64\nz = alloc 0\n\
            restore s\nfree a\nreset\n";
        let t = run(src, PresetId::BumpScopeUp, &Options::default()).unwrap();
        let b = baseline(&t, false);
        assert_eq!(b.ops.len(), t.ops.len());
        assert!(b.unavailable.is_none());
        let t = run(
            "a = alloc 0x10000000\n",
            PresetId::Bumpalo,
            &Options::default(),
        )
        .unwrap();
        assert!(baseline(&t, false).unavailable.is_some());
    }
}
