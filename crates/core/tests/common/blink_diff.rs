//! Differential harness for the blink-alloc preset: programs run on the real
//! `blink_alloc::BlinkAlloc` 0.4.0 (through its `Allocator` impl, `grow` and
//! `shrink` for a realloc, and `reset`), its chunks taken from the simulated
//! heap's algorithm (`sim_heap.rs`), and each op's outcome read the way
//! `arena_diff::run_model` reads a trace.
//!
//! The crate keeps its chunk list private; each chunk's header, at the
//! address the base allocator returned, is `#[repr(C)] {cursor, end, prev,
//! cumulative_size}` (src/arena/mod.rs), so the harness reads the cursor and
//! the end from there: the usable bytes are those after the four words.
//! Needs `arena_diff` and `sim_heap` included beside it (`#[path]`).

#![allow(dead_code)]

use std::collections::HashMap;
use std::ptr::NonNull;

use allocator_api2_04::alloc::{Allocator, Layout};
use blink_alloc::BlinkAlloc;

use super::arena_diff::{block_at, bump_at, ChunkAt, ChunkSeen, Mix, Seen, Step};
use super::sim_heap::SimHeap;

/// What the header's four words take: cursor, end, prev, cumulative_size.
pub const HEADER: u64 = 4 * std::mem::size_of::<usize>() as u64;
/// The random programs: alloc, realloc, free, reset and the playground's
/// emulated checkpoints (compared through `arena_diff::compare_undone`:
/// blink-alloc has none), sizes up to 40,000 so chunks pass 16 KiB,
/// alignments up to a page, and the starting size chosen at random in some.
pub const MIX: Mix = Mix {
    weights: [10, 5, 4, 1, 2, 2],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000), (1, 5001, 40000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        Some(16),
        Some(64),
        Some(256),
        Some(1024),
        Some(4096),
        Some(20000),
    ],
};

/// The chunks now live, oldest first, read from their headers, and the
/// cursor of the newest (the crate's current chunk: every new chunk becomes
/// current, and a reset keeps the current one).
fn observe(heap: &SimHeap) -> (Vec<ChunkAt>, Option<u64>) {
    let mut cursor = None;
    let chunks = heap
        .live()
        .iter()
        .map(|a| {
            let header = heap.real(a.sim) as *const usize;
            // SAFETY: a live chunk starts with its header, written by the
            // crate; nothing runs meanwhile.
            let (cur, end) = unsafe { (header.read(), header.add(1).read()) };
            let (cur, end) = (heap.sim(cur), heap.sim(end));
            assert_eq!(end, a.sim + a.size, "the header's end is the chunk's end");
            cursor = Some(cur);
            let start = a.sim + HEADER;
            ChunkAt {
                seen: ChunkSeen {
                    id: u64::from(a.id),
                    size: a.size,
                    capacity: end - start,
                    start,
                },
                start,
            }
        })
        .collect();
    (chunks, cursor)
}

/// Runs `steps` on a real `BlinkAlloc` (with `with_chunk_size_in` when a
/// capacity is given) and reads what each op left behind.
pub fn run_real(steps: &[Step], capacity: Option<u64>) -> Vec<Seen> {
    run_real_partly(steps, capacity).unwrap_or_else(|(_, e)| panic!("{e}"))
}

/// [`run_real`], stopping at a request the real `BlinkAlloc` refuses
/// (`AllocError`: its base allocator, the simulated heap, had no room, or
/// no `Layout` describes the chunk it needs): what the ops before it left,
/// and which op it was.
pub fn run_real_partly(
    steps: &[Step],
    capacity: Option<u64>,
) -> Result<Vec<Seen>, (Vec<Seen>, String)> {
    let heap = SimHeap::new();
    let mut blink = match capacity {
        Some(c) => BlinkAlloc::with_chunk_size_in(c as usize, &heap),
        None => BlinkAlloc::new_in(&heap),
    };
    let mut blocks: HashMap<String, (NonNull<u8>, Layout)> = HashMap::new();
    let mut seen = Vec::new();
    for step in steps {
        let mut moved = None;
        let placed: Option<(NonNull<u8>, Layout)> = match step {
            Step::Alloc { name, size, align } => {
                let layout = Layout::from_size_align(*size as usize, *align as usize).unwrap();
                let Ok(p) = Allocator::allocate(&blink, layout) else {
                    let i = seen.len();
                    return Err((seen, format!("op {i}: BlinkAlloc::allocate failed")));
                };
                let p = p.cast::<u8>();
                blocks.insert(name.clone(), (p, layout));
                Some((p, layout))
            }
            Step::Realloc { name, from, size } => {
                let (ptr, old) = blocks.remove(from).expect("a live block");
                let new = Layout::from_size_align(*size as usize, old.align()).unwrap();
                // SAFETY: `ptr` is a live block of `blink` with layout `old`;
                // grow for a larger size, shrink otherwise, as the traits ask.
                let p = unsafe {
                    if new.size() > old.size() {
                        Allocator::grow(&blink, ptr, old, new)
                    } else {
                        Allocator::shrink(&blink, ptr, old, new)
                    }
                };
                let Ok(p) = p else {
                    let i = seen.len();
                    return Err((seen, format!("op {i}: BlinkAlloc::grow failed")));
                };
                let p = p.cast::<u8>();
                moved = Some(p != ptr);
                blocks.insert(name.clone(), (p, new));
                Some((p, new))
            }
            Step::Free { name } => {
                let (ptr, layout) = blocks.remove(name).expect("a live block");
                // SAFETY: a live block of `blink` with this layout.
                unsafe { Allocator::deallocate(&blink, ptr, layout) };
                None
            }
            Step::Reset => {
                blocks.clear();
                blink.reset();
                None
            }
            Step::Checkpoint { .. } | Step::Restore { .. } => {
                panic!("blink-alloc has no checkpoints: the generator must not make them")
            }
        };
        let (chunks, cursor) = observe(&heap);
        seen.push(Seen {
            block: placed
                .map(|(p, l)| block_at(&chunks, heap.sim(p.as_ptr() as usize), l.size() as u64)),
            moved,
            failed: false,
            chunks: chunks.iter().map(|c| c.seen).collect(),
            bump: cursor.and_then(|c| bump_at(&chunks, c)),
        });
    }
    blink.reset_final();
    Ok(seen)
}
