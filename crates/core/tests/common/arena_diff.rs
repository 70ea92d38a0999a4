//! What the differential tests of the arenas that take their chunks from a
//! base allocator share (blink-alloc, LLVM's BumpPtrAllocator, libstdc++'s
//! monotonic_buffer_resource, Zig's ArenaAllocator and FixedBufferAllocator):
//! random programs, their text, and what an op leaves behind as both sides
//! can observe it (what the programs covered is counted by
//! common/coverage.rs, re-exported here).
//!
//! Both sides get their chunks from the same base allocator: the model from
//! the simulated heap (`bumplab_core::heap::Heap`), the real arena from that
//! heap's algorithm run over a real buffer (`common/sim_heap.rs`, and its
//! C++ and Zig ports in `tests/native/`). So chunk ids (the n-th request to
//! the base allocator), base addresses and every block's address agree
//! exactly, alignments above 16 included.
//!
//! No proptest here, so the file can be included (with `#[path]`) by the
//! wasm32 suite too: programs come from a seeded splitmix64, and a failure
//! names the seed that reproduces it.

#![allow(dead_code)]

use bumplab_core::model::Child;
use bumplab_core::trace::OpKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};

// ---------------------------------------------------------------------------
// Programs.

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
    Checkpoint {
        slot: u8,
    },
    Restore {
        slot: u8,
    },
}

/// The program text the engine runs.
pub fn program_text(steps: &[Step]) -> String {
    let mut s = String::new();
    for st in steps {
        let line = match st {
            Step::Alloc { name, size, align } => format!("{name} = alloc {size} align {align}"),
            Step::Realloc { name, from, size } => format!("{name} = realloc {from} {size}"),
            Step::Free { name } => format!("free {name}"),
            Step::Reset => "reset".to_string(),
            Step::Checkpoint { slot } => format!("checkpoint c{slot}"),
            Step::Restore { slot } => format!("restore c{slot}"),
        };
        s.push_str(&line);
        s.push('\n');
    }
    s
}

/// Parses lines of `name = alloc N [align A]`, `name = realloc old N`,
/// `free name`, `reset`, `checkpoint cN` and `restore cN`.
pub fn parse_steps(src: &str) -> Vec<Step> {
    src.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let slot = |c: &str| c.trim_start_matches('c').parse().unwrap();
            match w.as_slice() {
                ["reset"] => Step::Reset,
                ["free", name] => Step::Free {
                    name: name.to_string(),
                },
                ["checkpoint", c] => Step::Checkpoint { slot: slot(c) },
                ["restore", c] => Step::Restore { slot: slot(c) },
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

/// `n` lines `xK = alloc <what>`.
pub fn repeated(what: &str, n: usize) -> String {
    (0..n).map(|i| format!("x{i} = alloc {what}\n")).collect()
}

/// The simulated target of the machine the tests run on.
pub fn native_target() -> Target {
    if cfg!(target_pointer_width = "64") {
        Target::W64
    } else {
        Target::Wasm32
    }
}

/// splitmix64: small, fast, and every seed gives a different stream.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (the slight modulo bias does not matter here).
    pub fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// An index into `weights`, each chosen in proportion to its weight.
    pub fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut r = self.next() % weights.iter().sum::<u64>();
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!()
    }

    pub fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[self.range(0, from.len() as u64 - 1) as usize]
    }
}

/// How a preset's programs are drawn.
#[derive(Clone, Debug)]
pub struct Mix {
    /// Relative weights of alloc, realloc, free, reset, checkpoint, restore.
    pub weights: [u64; 6],
    /// Ops per program: from `min_ops` to `max_ops` (ops naming no live
    /// block are skipped).
    pub min_ops: u64,
    pub max_ops: u64,
    /// Sizes: (weight, lo, hi) bands; 0 is in the first band when it starts at 0.
    pub sizes: &'static [(u64, u64, u64)],
    /// Alignments to draw from (several 1s make small ones likelier).
    pub aligns: &'static [u64],
    /// Values of the Capacity knob to draw from (`None`: the default).
    pub capacities: &'static [Option<u64>],
}

impl Mix {
    fn size(&self, rng: &mut Rng) -> u64 {
        let weights: Vec<u64> = self.sizes.iter().map(|b| b.0).collect();
        let (_, lo, hi) = self.sizes[rng.weighted(&weights)];
        rng.range(lo, hi)
    }
}

/// A random program for `mix` and the capacity it runs with. Realloc and
/// free pick mostly the newest live block (where the interesting paths
/// are), sometimes an older one; a restore drops the blocks made since its
/// checkpoint and the checkpoints saved after it, as the engine does.
pub fn program(seed: u64, mix: &Mix) -> (Vec<Step>, Option<u64>) {
    let mut rng = Rng(seed);
    let capacity = rng.pick(mix.capacities);
    let n = rng.range(mix.min_ops, mix.max_ops);
    let mut steps = Vec::new();
    // Live blocks: (name, size, index in `steps` when made).
    let mut live: Vec<(String, u64, usize)> = Vec::new();
    let mut saved: Vec<(u8, usize)> = Vec::new();
    let mut names = 0;
    for _ in 0..n {
        let pick = |rng: &mut Rng, len: usize| match rng.weighted(&[3, 1]) {
            0 => len - 1,
            _ => rng.range(0, len as u64 - 1) as usize,
        };
        match rng.weighted(&mix.weights) {
            0 => {
                names += 1;
                let name = format!("b{names}");
                let size = mix.size(&mut rng);
                let align = rng.pick(mix.aligns);
                live.push((name.clone(), size, steps.len()));
                steps.push(Step::Alloc { name, size, align });
            }
            1 if !live.is_empty() => {
                let i = pick(&mut rng, live.len());
                let (from, old, _) = live.remove(i);
                // Half grow, half shrink (or keep): both paths matter.
                let size = if rng.next() % 2 == 0 {
                    mix.size(&mut rng).max(old)
                } else {
                    rng.range(0, old)
                };
                names += 1;
                let name = format!("b{names}");
                live.push((name.clone(), size, steps.len()));
                steps.push(Step::Realloc { name, from, size });
            }
            2 if !live.is_empty() => {
                let i = pick(&mut rng, live.len());
                let (name, _, _) = live.remove(i);
                steps.push(Step::Free { name });
            }
            3 => {
                live.clear();
                saved.clear();
                steps.push(Step::Reset);
            }
            4 => {
                let slot = rng.range(0, 1) as u8;
                saved.retain(|s| s.0 != slot);
                saved.push((slot, steps.len()));
                steps.push(Step::Checkpoint { slot });
            }
            5 if !saved.is_empty() => {
                let i = rng.range(0, saved.len() as u64 - 1) as usize;
                let (slot, at) = saved[i];
                saved.truncate(i + 1);
                live.retain(|b| b.2 < at);
                steps.push(Step::Restore { slot });
            }
            _ => {}
        }
    }
    (steps, capacity)
}

/// The seed programs of one run derive from: `BUMPLAB_SEED` if set (to
/// replay a failure), else a fresh one per run.
pub fn base_seed() -> u64 {
    if let Some(s) = std::env::var("BUMPLAB_SEED")
        .ok()
        .and_then(|s| u64::from_str_radix(s.trim_start_matches("0x"), 16).ok())
    {
        return s;
    }
    fresh_seed()
}

#[cfg(not(target_arch = "wasm32"))]
fn fresh_seed() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos()),
    );
    h.finish()
}

/// wasm32 has no clock or entropy without imports: a fixed seed.
#[cfg(target_arch = "wasm32")]
fn fresh_seed() -> u64 {
    0x5eed_b1a4_0000_0000
}

/// The seed of program `k` of a run.
pub fn seed_of(base: u64, k: u64) -> u64 {
    base ^ k.wrapping_mul(0x2545_f491_4f6c_dd1d)
}

// ---------------------------------------------------------------------------
// What an op leaves behind.

/// Where a block landed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Block {
    /// In the chunk made by the base allocator's `chunk`-th request (0
    /// first), of `capacity` usable bytes, `offset` bytes from its first
    /// usable byte, at `address` (the simulated heap's address space).
    In {
        chunk: u64,
        capacity: u64,
        offset: u64,
        address: u64,
    },
    /// In no chunk: a zero-sized request's dangling pointer, this value.
    Outside(u64),
}

/// A live chunk: the base allocator's request index, the bytes it got, and
/// the usable bytes the arena sees in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkSeen {
    pub id: u64,
    pub size: u64,
    pub capacity: u64,
    /// Its first usable byte (simulated).
    pub start: u64,
}

/// The observable outcome of one op, read the same way from the real
/// arena and from a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    /// For an alloc or realloc that succeeded.
    pub block: Option<Block>,
    /// For a realloc: whether the block moved.
    pub moved: Option<bool>,
    /// The request failed (the fixed buffer is full).
    pub failed: bool,
    /// Live chunks after the op, oldest request first.
    pub chunks: Vec<ChunkSeen>,
    /// The bump pointer after the op: the chunk it is in and its offset
    /// from that chunk's first usable byte (`None`: no current chunk, or
    /// the arena does not show it).
    pub bump: Option<(u64, u64)>,
}

impl Seen {
    /// What an op that places nothing and changes nothing (a checkpoint)
    /// leaves behind after `before`.
    pub fn unchanged(before: Option<&Seen>) -> Seen {
        Seen {
            block: None,
            moved: None,
            failed: false,
            chunks: before.map_or_else(Vec::new, |b| b.chunks.clone()),
            bump: before.and_then(|b| b.bump),
        }
    }
}

/// The same ops with every chunk named by where it starts instead of by
/// its request number, for comparing runs whose base allocators numbered
/// requests differently (a run with restores against one without the ops
/// the restores undid): a chunk's start is unique among the live ones.
pub fn by_start(seen: &[Seen]) -> Vec<Seen> {
    seen.iter()
        .map(|s| {
            let start = |id: u64| {
                s.chunks
                    .iter()
                    .find(|c| c.id == id)
                    .map_or(u64::MAX, |c| c.start)
            };
            let mut out = s.clone();
            for c in &mut out.chunks {
                c.id = c.start;
            }
            if let Some(Block::In { chunk, .. }) = &mut out.block {
                *chunk = start(*chunk);
            }
            if let Some((chunk, _)) = &mut out.bump {
                *chunk = start(*chunk);
            }
            out
        })
        .collect()
}

/// The same ops without addresses: where a real child allocator puts its
/// chunks (page_allocator's mappings) is the system's choice, so chunks
/// and blocks are compared by id and offset alone.
pub fn without_addresses(seen: &[Seen]) -> Vec<Seen> {
    seen.iter()
        .map(|s| {
            let mut out = s.clone();
            for c in &mut out.chunks {
                c.start = 0;
            }
            if let Some(Block::In { address, .. }) = &mut out.block {
                *address = 0;
            }
            out
        })
        .collect()
}

/// A live chunk as a side knows it: where it starts and ends too.
#[derive(Clone, Copy, Debug)]
pub struct ChunkAt {
    pub seen: ChunkSeen,
    /// First usable byte.
    pub start: u64,
}

/// The block at `address` of `size` bytes among `chunks`, or `Outside`.
pub fn block_at(chunks: &[ChunkAt], address: u64, size: u64) -> Block {
    chunks
        .iter()
        .find(|c| c.start <= address && address.saturating_add(size) <= c.start + c.seen.capacity)
        .map_or(Block::Outside(address), |c| Block::In {
            chunk: c.seen.id,
            capacity: c.seen.capacity,
            offset: address - c.start,
            address,
        })
}

/// The bump pointer `ptr` as (chunk, offset from its first usable byte).
pub fn bump_at(chunks: &[ChunkAt], ptr: u64) -> Option<(u64, u64)> {
    chunks
        .iter()
        .find(|c| c.start <= ptr && ptr <= c.start + c.seen.capacity)
        .map(|c| (c.seen.id, ptr - c.start))
}

/// Runs `steps` on the model of `preset` simulating `target` and reads
/// what each op left behind from the trace.
pub fn run_model(
    preset: PresetId,
    target: Target,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<(Trace, Vec<Seen>), String> {
    run_model_over(preset, target, capacity, None, steps)
}

/// [`run_model`] with a child allocator chosen (zig-arena's setting).
pub fn run_model_over(
    preset: PresetId,
    target: Target,
    capacity: Option<u64>,
    child: Option<Child>,
    steps: &[Step],
) -> Result<(Trace, Vec<Seen>), String> {
    let opts = Options {
        target,
        capacity,
        min_align: None,
        child,
    };
    let src = program_text(steps);
    let t = run(&src, preset, &opts).map_err(|e| format!("the model refused it: {e}"))?;
    if t.ops.len() != steps.len() {
        return Err(format!(
            "{} ops in the trace for {} steps",
            t.ops.len(),
            steps.len()
        ));
    }
    let mut seen = Vec::new();
    for (i, op) in t.ops.iter().enumerate() {
        let at = i as u32;
        let live: Vec<ChunkAt> = t
            .chunks
            .iter()
            .filter(|c| c.created_by.is_none_or(|o| o <= at) && c.freed_by.is_none_or(|o| o > at))
            .map(|c| ChunkAt {
                seen: ChunkSeen {
                    id: u64::from(c.id),
                    size: c.size,
                    capacity: c.capacity,
                    start: c.start,
                },
                start: c.start,
            })
            .collect();
        let placed = matches!(op.kind, OpKind::Alloc | OpKind::Realloc) && !op.failed;
        let block = match (placed, op.chunk, op.address) {
            (true, Some(id), Some(address)) => {
                let c = &t.chunks[id as usize];
                Some(Block::In {
                    chunk: u64::from(id),
                    capacity: c.capacity,
                    offset: op.offset.unwrap_or(u64::MAX),
                    address,
                })
            }
            (true, None, Some(address)) => Some(Block::Outside(address)),
            _ => None,
        };
        seen.push(Seen {
            block,
            moved: op.moved,
            failed: op.failed,
            chunks: live.iter().map(|c| c.seen).collect(),
            bump: op.bump_ptr.and_then(|p| bump_at(&live, p)),
        });
    }
    Ok((t, seen))
}

/// `steps` without the ops that name a block a failed request never made
/// (a full fixed buffer): the generator cannot know which requests fail,
/// the engine refuses a program that uses such a name. Dropping one op can
/// change which later requests fail, so this runs until the engine takes
/// the whole program.
pub fn runnable(
    preset: PresetId,
    target: Target,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<Vec<Step>, String> {
    let mut steps = steps.to_vec();
    let opts = Options {
        target,
        capacity,
        min_align: None,
        child: None,
    };
    loop {
        match run(&program_text(&steps), preset, &opts) {
            Ok(_) => return Ok(steps),
            Err(e) if e.message.starts_with("unknown block") => {
                steps.remove(e.line as usize - 1);
            }
            Err(e) => {
                return Err(format!(
                    "the model refused it: {e}\n{}",
                    program_text(&steps)
                ))
            }
        }
    }
}

/// Compares op by op; the error names the op and holds the program.
pub fn compare(
    what: &str,
    seed: u64,
    capacity: Option<u64>,
    steps: &[Step],
    model: &[Seen],
    real: &[Seen],
) -> Result<(), String> {
    let head = || {
        format!(
            "{what}, seed {seed:#x} (BUMPLAB_SEED={:x} replays the run), capacity {capacity:?}",
            seed
        )
    };
    if model.len() != real.len() {
        return Err(format!(
            "{}: {} ops in the model, {} on the real one\n{}",
            head(),
            model.len(),
            real.len(),
            program_text(steps)
        ));
    }
    for (i, (m, r)) in model.iter().zip(real).enumerate() {
        if m != r {
            return Err(format!(
                "{}: op {i} ({:?}) differs\nmodel: {m:?}\nreal:  {r:?}\n--- program ---\n{}",
                head(),
                steps[i],
                program_text(steps)
            ));
        }
    }
    Ok(())
}

/// A real arena run on a program without checkpoints.
type RealRun<'a> = dyn FnMut(&[Step]) -> Result<Vec<Seen>, String> + 'a;

/// Compares `model` (what `steps` did on the model) with an arena that
/// has no checkpoints, whose `checkpoint` and `restore` the playground
/// emulates: the emulation documented for these presets puts the arena
/// back exactly as it was at the checkpoint (the chunks made since go back
/// to the base allocator, the bump pointer and everything the next chunk's
/// size depends on come back). So after a restore the model must do what
/// the real arena does with the program the restore leaves in effect: the
/// ops since the checkpoint left out. `real` runs a program without
/// checkpoints on the real arena; it runs once per restore, on what is in
/// effect then and the ops up to the next restore. A checkpoint changes
/// nothing, a restore leaves the arena as the op before its checkpoint
/// did. Chunks are compared by where they start: the base allocator gave
/// the undone chunks request numbers the real run never made.
pub fn compare_undone(
    what: &str,
    seed: u64,
    capacity: Option<u64>,
    steps: &[Step],
    model: &[Seen],
    mut real: impl FnMut(&[Step]) -> Result<Vec<Seen>, String>,
) -> Result<(), String> {
    if model.len() != steps.len() {
        return Err(format!(
            "{what}: {} ops in the model for {} steps",
            model.len(),
            steps.len()
        ));
    }
    let model = by_start(model);
    // The ops in effect, and where each saved checkpoint cut them.
    let mut effect: Vec<Step> = Vec::new();
    let mut saved: Vec<(u8, usize)> = Vec::new();
    // The model ops of the current segment: each with the index in `effect`
    // of the op whose outcome it must show, and whether it is that op
    // itself or only the state it left (a checkpoint, a restore).
    let mut pending: Vec<(usize, Option<usize>, bool)> = Vec::new();
    let check = |pending: &mut Vec<(usize, Option<usize>, bool)>,
                 effect: &[Step],
                 real: &mut RealRun<'_>|
     -> Result<(), String> {
        if pending.is_empty() {
            return Ok(());
        }
        let got = by_start(&real(effect)?);
        for &(i, at, itself) in pending.iter() {
            let want = match at {
                Some(k) if itself => got[k].clone(),
                Some(k) => Seen::unchanged(Some(&got[k])),
                None => Seen::unchanged(None),
            };
            if model[i] != want {
                return Err(format!(
                    "{what}, seed {seed:#x} (BUMPLAB_SEED={seed:x} replays the run), capacity {capacity:?}: \
                     op {i} ({:?}) differs from the real arena running the ops in effect\n\
                     model: {:?}\nreal:  {want:?}\n--- program ---\n{}--- in effect ---\n{}",
                    steps[i],
                    model[i],
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
            Step::Checkpoint { slot } => {
                saved.retain(|s| s.0 != *slot);
                saved.push((*slot, effect.len()));
                pending.push((i, effect.len().checked_sub(1), false));
            }
            Step::Restore { slot } => {
                check(&mut pending, &effect, &mut real)?;
                let k = saved
                    .iter()
                    .position(|s| s.0 == *slot)
                    .ok_or_else(|| format!("{what}: op {i} restores a checkpoint never saved"))?;
                let at = saved[k].1;
                saved.truncate(k + 1);
                effect.truncate(at);
                pending.push((i, at.checked_sub(1), false));
            }
            _ => {
                if *st == Step::Reset {
                    saved.clear();
                }
                effect.push(st.clone());
                pending.push((i, Some(effect.len() - 1), true));
            }
        }
    }
    check(&mut pending, &effect, &mut real)
}

/// The largest `n` in `lo..=hi` for which `holds(n)`, given that it holds
/// at `lo` and, once it fails, fails for every larger `n`: how an edge test
/// finds the request at a boundary on the model, to run it and the one
/// past it on both sides.
pub fn last_true(lo: u64, hi: u64, holds: impl Fn(u64) -> bool) -> u64 {
    assert!(holds(lo), "the predicate must hold at {lo}");
    if holds(hi) {
        return hi;
    }
    let (mut ok, mut bad) = (lo, hi);
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

/// The largest request `target` allows at `align`: the most a `Layout` can
/// describe, whose size rounded up to the alignment is `isize::MAX` or less.
pub fn largest_request(target: Target, align: u64) -> u64 {
    let isize_max = match target {
        Target::W64 => i64::MAX as u64,
        Target::Wasm32 => i32::MAX as u64,
    };
    isize_max & !(align - 1)
}

/// How a program that may stop ends on the model: every op's outcome, or
/// the op the model refused to go past and why (the base allocator has no
/// room, or the reference's own arithmetic overflows).
pub fn model_or_stop(
    preset: PresetId,
    target: Target,
    capacity: Option<u64>,
    child: Option<Child>,
    steps: &[Step],
) -> Result<(Trace, Vec<Seen>), (usize, String)> {
    let opts = Options {
        target,
        capacity,
        min_align: None,
        child,
    };
    if let Err(e) = run(&program_text(steps), preset, &opts) {
        return Err((e.line as usize - 1, e.message));
    }
    run_model_over(preset, target, capacity, child, steps).map_err(|e| (usize::MAX, e))
}

/// Whether op `i` asked for more than the largest chunk live before it
/// holds: an oversized request, whatever the arena then does with it.
pub fn larger_than_every_chunk(t: &Trace, i: usize) -> bool {
    let at = i as u32;
    let size = t.ops[i].size.unwrap_or(0);
    t.chunks
        .iter()
        .filter(|c| c.created_by.is_none_or(|o| o < at) && c.freed_by.is_none_or(|o| o >= at))
        .map(|c| c.capacity)
        .max()
        .is_some_and(|largest| size > largest)
}

// ---------------------------------------------------------------------------
// Coverage (the shared counter, common/coverage.rs).

#[path = "coverage.rs"]
mod coverage;
pub use coverage::Coverage;

impl Coverage {
    /// `record_with` under the name the wasm32 suite calls: `steps` and
    /// `capacity` are what the trace already holds, so only the trace is read.
    pub fn add(
        &mut self,
        t: &Trace,
        steps: &[Step],
        capacity: Option<u64>,
        oversized: impl Fn(&Trace, usize) -> bool,
    ) {
        debug_assert_eq!(t.ops.len(), steps.len());
        debug_assert_eq!(t.program.capacity, capacity);
        self.record_with(t, oversized);
    }
}
