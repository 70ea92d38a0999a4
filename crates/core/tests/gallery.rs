//! The gallery of known behaviours (web/src/model/gallery.json): every
//! program runs on every allocator it names, and every number its claim
//! states is checked against the trace (and must appear in the claim, so
//! the text and the check cannot drift apart).

use bumplab_core::events::ChunkReason;
use bumplab_core::trace::OpKind;
use bumplab_core::{run, Options, PresetId, Target, Trace};
use serde_json::Value;

const GALLERY: &str = include_str!("../../../web/src/model/gallery.json");

struct Entry {
    id: String,
    claim: String,
    /// The trace of the program on each allocator, in the order named.
    traces: Vec<(PresetId, Trace)>,
}

fn entries() -> Vec<Entry> {
    let all: Value = serde_json::from_str(GALLERY).expect("gallery.json is JSON");
    all.as_array()
        .expect("an array")
        .iter()
        .map(|e| {
            let text = |k: &str| e[k].as_str().unwrap_or_else(|| panic!("{k}")).to_string();
            let id = text("id");
            let program = text("program");
            let traces = e["allocators"]
                .as_array()
                .expect("allocators")
                .iter()
                .map(|r| {
                    let name = r["allocator"].as_str().expect("allocator");
                    let preset =
                        PresetId::parse(name).unwrap_or_else(|| panic!("{id}: no preset {name}"));
                    let target = match r["target"].as_str() {
                        Some(t) => Target::parse(t).expect("a target"),
                        None => Target::W64,
                    };
                    let child = r["child"].as_str().map(|c| {
                        bumplab_core::model::Child::parse(c)
                            .unwrap_or_else(|| panic!("{id}: no child allocator {c}"))
                    });
                    let opts = Options {
                        target,
                        capacity: r["capacity"].as_u64(),
                        min_align: None,
                        child,
                    };
                    let t = run(&program, preset, &opts)
                        .unwrap_or_else(|e| panic!("{id} on {name}: {e}"));
                    (preset, t)
                })
                .collect();
            Entry {
                id,
                claim: text("claim"),
                traces,
            }
        })
        .collect()
}

/// `n` as the claim writes it: 1,052,608.
fn grouped(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Asserts the claim states `n`.
fn states(e: &Entry, n: u64) {
    let g = grouped(n);
    assert!(
        e.claim.contains(&g),
        "{}: the claim does not state {g}: {}",
        e.id,
        e.claim
    );
}

/// The op that placed block `name`.
fn op<'a>(t: &'a Trace, name: &str) -> &'a bumplab_core::trace::Op {
    t.ops
        .iter()
        .find(|o| o.block.as_deref() == Some(name) && o.kind == OpKind::Alloc)
        .unwrap_or_else(|| panic!("no alloc of {name}"))
}

fn check(e: &Entry) {
    let t = &e.traces[0].1;
    match e.id.as_str() {
        "bumpalo-next-chunk-doubles" => {
            let big = &t.chunks[op(t, "big").chunk.unwrap() as usize];
            let c = &t.chunks[op(t, "c").chunk.unwrap() as usize];
            assert_eq!(big.reason, ChunkReason::Oversized);
            assert_eq!(big.capacity, 1_052_608);
            states(e, big.capacity);
            // big is current: what it has left is less than c.
            let left = op(t, "big").offset.unwrap();
            assert_eq!(left, 4032);
            assert!(left < 5000);
            assert_eq!(c.capacity, 2_105_280);
            states(e, c.capacity);
            assert!(c.capacity >= 2 * big.capacity);
            states(e, 5000);
            // The comparison: pmr's next buffer is sized for c.
            let (p, pt) = &e.traces[1];
            assert_eq!(*p, PresetId::PmrMonotonic);
            let pc = &pt.chunks[op(pt, "c").chunk.unwrap() as usize];
            assert_eq!((pc.size, pc.capacity), (5056, 5040));
            states(e, pc.capacity);
            states(e, pc.size);
        }
        "llvm-custom-sized-slab" => {
            let big = &t.chunks[op(t, "big").chunk.unwrap() as usize];
            assert_eq!(big.reason, ChunkReason::CustomSlab);
            assert_eq!(big.capacity, 10_000);
            states(e, 10_000);
            let (a, b) = (op(t, "a"), op(t, "b"));
            assert_eq!(b.chunk, a.chunk);
            assert_eq!(b.offset, Some(100));
            states(e, 100);
            // The comparison: bumpalo's big chunk becomes current.
            let (p, bt) = &e.traces[1];
            assert_eq!(*p, PresetId::Bumpalo);
            assert_eq!(op(bt, "b").chunk, op(bt, "big").chunk);
        }
        "bumper-slab-boundary" => {
            let made: Vec<_> = t.chunks.iter().filter(|c| c.created_by.is_some()).collect();
            assert_eq!(made.len(), 3);
            states(e, 3);
            // Two blocks leave 4 bytes, less than y's 10.
            assert_eq!(t.chunks[0].capacity - 460, 4);
            for c in &made {
                assert_eq!(c.capacity, 464);
                assert_eq!(c.reason, ChunkReason::Slab);
                // Freed by the restore right after the op that made it.
                let at = c.created_by.unwrap();
                assert_eq!(c.freed_by, Some(at + 1));
                assert_eq!(t.ops[at as usize + 1].kind, OpKind::Restore);
                assert_eq!(c.base, made[0].base);
            }
            states(e, 464);
            states(e, 10);
            // The comparison: bump-scope keeps the chunk its scope made.
            let (p, st) = &e.traces[1];
            assert_eq!(*p, PresetId::BumpScopeUp);
            assert_eq!(st.chunks[0].capacity, 464);
            let made: Vec<_> = st
                .chunks
                .iter()
                .filter(|c| c.created_by.is_some())
                .collect();
            assert_eq!(made.len(), 1);
            assert!(made[0].freed_by.is_none());
            assert!(e.claim.contains("one new chunk"));
        }
        "pmr-abandoned-tail" => {
            let (a, b, c) = (op(t, "a"), op(t, "b"), op(t, "c"));
            let first = &t.chunks[a.chunk.unwrap() as usize];
            let left = first.capacity - 1000;
            assert_eq!(left, 72);
            states(e, left);
            assert!((30..5000).contains(&left));
            let second = &t.chunks[b.chunk.unwrap() as usize];
            assert_ne!(b.chunk, a.chunk);
            assert_eq!(second.size, 5056);
            states(e, second.size);
            assert_eq!((c.chunk, c.offset), (b.chunk, Some(5000)));
            states(e, 5000);
            // The first buffer's bump stays where a ended: the 72 bytes are unused.
            let last = t.ops.last().unwrap();
            assert_eq!(last.stats.unused, left + second.capacity - 5030);
            // The comparison: LLVM's custom-sized slab never becomes current.
            let (p, lt) = &e.traces[1];
            assert_eq!(*p, PresetId::LlvmBumpPtr);
            let (la, lb, lc) = (op(lt, "a"), op(lt, "b"), op(lt, "c"));
            assert_eq!(
                lt.chunks[lb.chunk.unwrap() as usize].reason,
                ChunkReason::CustomSlab
            );
            assert_eq!((lc.chunk, lc.offset), (la.chunk, Some(1000)));
            states(e, 1000);
        }
        "zig-reset-retains-capacity" => {
            let reset = t.ops.iter().position(|o| o.kind == OpKind::Reset).unwrap();
            // One buffer for the whole run, made by the first op.
            assert_eq!(t.chunks.len(), 1);
            let c = &t.chunks[0];
            assert_eq!((c.created_by, c.freed_by), (Some(0), None));
            let values = |i: usize, id: &str| -> Vec<(&'static str, u64)> {
                t.ops[i]
                    .events
                    .iter()
                    .flat_map(|e| &e.steps)
                    .filter(|s| s.id == id)
                    .flat_map(|s| s.values.iter().map(|v| (v.name, v.value)))
                    .collect()
            };
            let asked = values(0, "child_alloc")[0];
            assert_eq!(asked, ("size", 212));
            states(e, asked.1);
            assert_eq!(c.size, 4096);
            states(e, c.size);
            // Every later block of the round: granted in place, after a gap.
            let grown = (1..reset)
                .filter(|&i| !values(i, "child_resize:granted").is_empty())
                .count() as u64;
            assert_eq!(grown, 11);
            states(e, grown);
            assert!(t.ops[1..reset].iter().all(|o| o.padding == Some(100)));
            states(e, 100);
            // The reset keeps the node's size: its usable bytes and the node.
            let used = values(reset, "used_capacity")[0];
            assert_eq!(used, ("used", 2300));
            states(e, used.1);
            let kept = values(reset, "retained_size")[1];
            assert_eq!(kept, ("new_size", 2324));
            states(e, kept.1);
            assert!(!values(reset, "keep_node").is_empty());
            // The second round: no gap, the same buffer.
            assert!(t.ops[reset + 1..]
                .iter()
                .all(|o| o.padding == Some(0) && o.chunk == Some(0)));
            // Over the simulated heap, which never resizes: 3 buffers, and
            // the reset keeps one as large as all of them.
            let (p, ht) = &e.traces[1];
            assert_eq!(*p, PresetId::ZigArena);
            let before: Vec<_> = ht
                .chunks
                .iter()
                .filter(|c| c.created_by.is_some_and(|o| (o as usize) < reset))
                .collect();
            assert_eq!(before.len(), 3);
            states(e, 3);
            let kept: Vec<_> = ht.chunks.iter().filter(|c| c.freed_by.is_none()).collect();
            assert_eq!(kept.len(), 1);
            assert_eq!(kept[0].size, 1574);
            states(e, kept[0].size);
            assert_eq!(kept[0].created_by, Some(reset as u32));
            // The comparison: pmr's release frees everything, and the second
            // round grows again from the first buffer's size.
            let (p, pt) = &e.traces[2];
            assert_eq!(*p, PresetId::PmrMonotonic);
            let reset = pt.ops.iter().position(|o| o.kind == OpKind::Reset).unwrap() as u32;
            assert!(pt
                .chunks
                .iter()
                .filter(|c| c.created_by.is_none_or(|o| o < reset))
                .all(|c| c.freed_by == Some(reset)));
            let again: Vec<_> = pt
                .chunks
                .iter()
                .filter(|c| c.created_by.is_some_and(|o| o > reset))
                .collect();
            assert_eq!(again.len(), 2);
            states(e, 2);
            assert_eq!(again[0].size, 1088);
            states(e, again[0].size);
        }
        other => panic!("{other}: a gallery entry without a check of its claim"),
    }
}

#[test]
fn every_claim_holds_on_its_trace() {
    let all = entries();
    assert_eq!(all.len(), 5);
    for e in &all {
        check(e);
    }
}

#[test]
fn claims_name_real_numbers_only() {
    assert_eq!(grouped(1_052_608), "1,052,608");
    assert_eq!(grouped(100), "100");
    assert_eq!(grouped(1000), "1,000");
}
