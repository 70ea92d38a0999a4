//! The columnar run against the full JSON trace: the columns, stats samples
//! and details it keeps must say exactly what the full trace says, however
//! the run is sliced, and cost the same near the start and the end.

use std::collections::BTreeMap;

use bumplab_core::run::{
    op_kind_code, Run, META_ALIGN_SHIFT, META_FAILED, META_MOVED, META_PLACED, META_STMT_SHIFT,
    NONE, SNAPSHOT_EVERY,
};
use bumplab_core::trace::{Op, OpKind, Trace};
use bumplab_core::{run, Options, PresetId, Target};

/// Programs that reach every column's corner: moves and in-place reallocs,
/// frees that are and are not reclaimed, zero-sized (dangling) blocks,
/// checkpoints, restores and resets, requests that do not fit, new chunks.
const PROGRAMS: &[&str] = &[
    "a = alloc 8\nb = alloc 24 align 16\nfree b\nc = alloc u64\nd = realloc a 64\ncheckpoint s\ne = alloc [u32; 17]\nrestore s\nf = alloc 0\nreset\ng = alloc 100000\n",
    "a = alloc 0\nb = alloc 0 align 16\nc = realloc b 0\nd = realloc a 8\nfree d\ne = alloc 0 align 4096\nfree e\nreset\nx = alloc 2000000\nfree x\n",
    "checkpoint s\nrepeat 3 {\n  a = alloc 3000 align 64\n  b = realloc a 5000\n  checkpoint t\n  z = alloc 0\n  free z\n}\nrestore s\nrepeat 2 {\n  y = alloc 70000\n  reset\n}\n",
    "repeat 4 {\n  a = alloc 1\n  b = realloc a 2\n  c = realloc b 1\n  free c\n}\nx = alloc 1048577\ny = alloc 8\nz = realloc y 4\n",
];

fn opts(target: Target, capacity: Option<u64>) -> Options {
    Options {
        target,
        capacity,
        min_align: None,
        child: None,
    }
}

fn json<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string(v).unwrap()
}

fn run_to_end(run: &mut Run, slice: u32) {
    while !run.advance(slice).unwrap() {}
}

/// What a reader of the full trace works out for each op's columns, by
/// replaying the page's `blocksAt` (web/src/model/blocks.ts): a block is
/// gone at the op after which `blocksAt` no longer draws it.
fn columns_from(trace: &Trace, run: &Run) -> [Vec<u32>; 7] {
    let n = trace.ops.len();
    let mut cols: [Vec<u32>; 7] = Default::default();
    // Drawn blocks: id -> placed and not yet gone.
    let mut drawn: BTreeMap<u32, ()> = BTreeMap::new();
    let mut dead = vec![NONE; n];
    let mut gone = vec![NONE; n];
    for op in &trace.ops {
        let i = op.index;
        let placed = matches!(op.kind, OpKind::Alloc | OpKind::Realloc)
            && !op.failed
            && op.address.is_some();
        let stmt = (0..run.program().len())
            .map(|k| run.stmt_info(k))
            .position(|s| s.line == op.line && s.column == op.column && s.kind.is_some())
            .expect("every op's statement is in the table") as u32;
        let s = run.stmt_info(stmt as usize);
        assert_eq!((s.kind, &s.block), (Some(op.kind), &op.block));
        let mut meta = op_kind_code(op.kind) | stmt << META_STMT_SHIFT;
        if let Some(a) = op.align {
            assert!(a.is_power_of_two() && a <= 4096);
            meta |= a.trailing_zeros() << META_ALIGN_SHIFT;
        }
        meta |= if op.failed { META_FAILED } else { 0 };
        meta |= if op.moved == Some(true) {
            META_MOVED
        } else {
            0
        };
        meta |= if placed { META_PLACED } else { 0 };
        let clamp = |v: Option<u64>| v.map_or(0, |v| v.min(u32::MAX as u64) as u32);
        cols[0].push(meta);
        cols[1].push(if placed {
            op.chunk.unwrap_or(NONE)
        } else {
            NONE
        });
        cols[2].push(match (placed, op.chunk) {
            (false, _) => 0,
            (true, Some(_)) => clamp(op.offset),
            (true, None) => clamp(op.address),
        });
        cols[3].push(clamp(op.size));
        cols[4].push(clamp(op.padding));
        // blocksAt, one op further.
        let before: Vec<u32> = drawn.keys().copied().collect();
        if placed {
            drawn.insert(i, ());
            if op.kind == OpKind::Realloc {
                let t = op.target_op.unwrap();
                dead[t as usize] = i;
                if op.moved == Some(false) {
                    drawn.remove(&t);
                }
            }
        }
        if op.kind == OpKind::Free {
            dead[op.target_op.unwrap() as usize] = i;
        }
        for id in &op.reclaimed {
            drawn.remove(id);
        }
        for id in before {
            if !drawn.contains_key(&id) {
                gone[id as usize] = i;
            }
        }
    }
    cols[5] = dead;
    cols[6] = gone;
    cols
}

fn columns_of(run: &Run) -> [Vec<u32>; 7] {
    let c = run.columns();
    [
        c.meta.clone(),
        c.chunk.clone(),
        c.offset.clone(),
        c.size.clone(),
        c.padding.clone(),
        c.dead_at.clone(),
        c.gone_at.clone(),
    ]
}

/// Checks a finished run against the full trace of the same program: its
/// columns, stats samples, chunk table and the details of ops `which`.
fn check(run: &Run, trace: &Trace, which: impl Iterator<Item = u32>, what: &str) {
    assert!(run.is_done(), "{what}");
    assert_eq!(run.executed() as usize, trace.ops.len(), "{what}");
    let want = columns_from(trace, run);
    let got = columns_of(run);
    let names = [
        "meta", "chunk", "offset", "size", "padding", "dead_at", "gone_at",
    ];
    for ((w, g), name) in want.iter().zip(&got).zip(names) {
        assert_eq!(w, g, "{what}: column {name}");
        assert_eq!(run.columns().by_name(name).unwrap(), g.as_slice());
    }
    let every = run.stats_every();
    let sampled: Vec<&Op> = trace
        .ops
        .iter()
        .filter(|op| op.index % every == 0 || op.index as usize + 1 == trace.ops.len())
        .collect();
    assert_eq!(run.stats_samples().len(), sampled.len(), "{what}");
    for (s, op) in run.stats_samples().iter().zip(sampled) {
        assert_eq!(*s, op.stats, "{what}: the stats after op {}", op.index);
    }
    assert_eq!(json(&run.chunks()), json(&trace.chunks), "{what}");
    for i in which {
        let d = run.detail(i).unwrap();
        let op = &trace.ops[i as usize];
        assert_eq!(json(&d.op), json(op), "{what}: op {i}");
        // The chunks live after op i, and their used bytes add up.
        let live: Vec<u32> = trace
            .chunks
            .iter()
            .filter(|c| c.created_by.is_none_or(|b| b <= i) && c.freed_by.is_none_or(|f| f > i))
            .map(|c| c.id)
            .collect();
        let ids: Vec<u32> = d.chunks_used.iter().map(|c| c.id).collect();
        assert_eq!(ids, live, "{what}: the chunks live after op {i}");
        let used: u64 = d.chunks_used.iter().map(|c| c.hi - c.lo).sum();
        assert_eq!(used, op.stats.used, "{what}: the bytes used after op {i}");
    }
    assert!(run.detail(run.executed()).is_none());
}

#[test]
fn columns_samples_and_every_detail_match_the_full_trace() {
    for (p, src) in PROGRAMS.iter().enumerate() {
        for preset in PresetId::ALL {
            for target in Target::ALL {
                for capacity in [None, Some(4096)] {
                    let o = opts(target, capacity);
                    let what = format!(
                        "program {p} on {} {} {capacity:?}",
                        preset.name(),
                        target.name()
                    );
                    let Ok(trace) = run(src, preset, &o) else {
                        // A program the preset refuses (its heap is too
                        // small) fails the same way in both.
                        let e = run(src, preset, &o).unwrap_err();
                        let mut r = Run::new(src, preset, &o).unwrap();
                        let mut failed = None;
                        for _ in 0..100 {
                            match r.advance(1) {
                                Ok(true) => break,
                                Ok(false) => {}
                                Err(err) => {
                                    failed = Some(err);
                                    break;
                                }
                            }
                        }
                        assert_eq!(failed, Some(e), "{what}");
                        continue;
                    };
                    let mut r = Run::new(src, preset, &o).unwrap();
                    run_to_end(&mut r, u32::MAX);
                    let n = r.executed();
                    check(&r, &trace, 0..n, &what);
                }
            }
        }
    }
}

/// Longer than a few snapshots: details on both sides of each snapshot
/// boundary, and sampled stats (stats_every > 1 needs more than 4096 ops).
#[test]
fn details_across_snapshots_match_the_full_trace() {
    let src = "repeat 1100 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = realloc a 40\n  checkpoint s\n}\nreset\n";
    // One target each, to keep the debug build's test quick.
    for (preset, target) in [
        (PresetId::BumpScopeUp, Target::W64),
        (PresetId::Bumpalo, Target::Wasm32),
        (PresetId::CppArena, Target::W64),
        (PresetId::BumperSlab, Target::Wasm32),
    ] {
        let o = opts(target, None);
        let trace = run(src, preset, &o).unwrap();
        let mut r = Run::new(src, preset, &o).unwrap();
        run_to_end(&mut r, 5000);
        assert_eq!(r.stats_every(), 2);
        let n = r.executed();
        let mut which = vec![0, 1, 100, n - 2, n - 1];
        for k in 1..=n / SNAPSHOT_EVERY {
            let b = k * SNAPSHOT_EVERY;
            which.extend([b - 1, b, b + 1]);
        }
        which.extend((0..n).step_by(997));
        check(&r, &trace, which.into_iter(), preset.name());
    }
}

#[test]
fn slicing_the_run_changes_nothing() {
    let src = "repeat 700 {\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n  z = realloc c 12\n}\nreset\nrepeat 300 {\n  x = alloc 100 align 32\n}\n";
    for preset in [
        PresetId::BumpScopeDown,
        PresetId::HinckleyUp,
        PresetId::Bumpalo,
    ] {
        let o = opts(Target::Wasm32, Some(65536));
        let mut whole = Run::new(src, preset, &o).unwrap();
        run_to_end(&mut whole, u32::MAX);
        for slice in [1, 7, 1000] {
            let mut r = Run::new(src, preset, &o).unwrap();
            let mut calls = 0;
            loop {
                let before = r.executed();
                let done = r.advance(slice).unwrap();
                assert!(r.executed() - before <= slice);
                calls += 1;
                if done {
                    break;
                }
            }
            assert!(calls as u64 >= r.total() / slice as u64);
            assert_eq!(
                columns_of(&r),
                columns_of(&whole),
                "{} in slices of {slice}",
                preset.name()
            );
            assert_eq!(r.stats_samples(), whole.stats_samples());
            assert_eq!(json(&r.chunks()), json(&whole.chunks()));
            for i in [0, 1023, 1024, 2500, r.executed() - 1] {
                assert_eq!(json(&r.detail(i)), json(&whole.detail(i)), "op {i}");
            }
            // Finished stays finished.
            assert!(r.advance(5).unwrap());
            assert_eq!(r.executed(), whole.executed());
        }
    }
}

#[test]
fn an_error_at_op_k_stops_the_run_there_with_its_position() {
    let src = "repeat 5 {\n  a = alloc 8\n}\nfree a\nfree a\nb = alloc 8\n";
    let o = opts(Target::W64, None);
    let mut r = Run::new(src, PresetId::BumpScopeUp, &o).unwrap();
    assert_eq!(r.total(), 8);
    assert!(!r.advance(6).unwrap());
    let e = r.advance(10).unwrap_err();
    assert_eq!(
        e.to_string(),
        run(src, PresetId::BumpScopeUp, &o).unwrap_err().to_string()
    );
    assert_eq!((e.line, e.column), (5, 6));
    assert!(e.message.contains("already freed"), "{e}");
    assert_eq!(r.executed(), 6);
    assert_eq!(r.columns().len(), 6);
    assert_eq!(r.error(), Some(&e));
    // The failure sticks, and what ran before it can still be shown.
    assert_eq!(r.advance(1).unwrap_err(), e);
    assert_eq!(r.detail(5).unwrap().op.kind, OpKind::Free);
    assert!(r.detail(6).is_none());
    assert!(!r.is_done());
    // A run-time failure deep in a loop: the base allocator runs out.
    let src = "repeat 1000 {\n  a = alloc 0x10000000\n}\n";
    let o = opts(Target::Wasm32, None);
    let mut r = Run::new(src, PresetId::Bumpalo, &o).unwrap();
    let e = r.advance(u32::MAX).unwrap_err();
    assert_eq!(e, run(src, PresetId::Bumpalo, &o).unwrap_err());
    assert_eq!((e.line, e.column), (2, 3));
    assert!(r.executed() > 0 && r.executed() < 1000);
}

/// The ops a program of `n` ops (a multiple of 4) runs.
fn bench_program(n: u32) -> String {
    format!(
        "repeat {} {{\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}}\n",
        n / 4
    )
}

/// Details far into a long run are those a straight run through every op
/// computes; one near the start is also the full trace of a short prefix.
#[test]
fn details_of_a_long_run_are_those_of_a_straight_run() {
    let n = 300_000;
    let src = bench_program(n);
    let o = opts(Target::W64, None);
    let mut r = Run::new(&src, PresetId::BumpScopeUp, &o).unwrap();
    run_to_end(&mut r, 65_536);
    assert_eq!(r.executed(), n);
    assert_eq!(r.columns().len(), n as usize);
    // 28 bytes per op, and the tables are small beside them.
    assert!(r.bytes() < 29 * n as usize, "{} bytes", r.bytes());

    let prefix = bench_program(104);
    let t = run(&prefix, PresetId::BumpScopeUp, &o).unwrap();
    assert_eq!(json(&r.detail(100).unwrap().op), json(&t.ops[100]));

    // The same program run straight to op n - 1, keeping no snapshots, and
    // that op recorded in full.
    let mut straight = Run::new(&src, PresetId::BumpScopeUp, &o)
        .unwrap()
        .without_snapshots();
    straight.advance(n - 1).unwrap();
    let last = straight.advance_detailed(1).unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(json(&r.detail(n - 1).unwrap().op), json(&last[0]));
    assert!(straight.is_done());
    assert!(straight.detail(0).is_none());
}

/// The most ops a columnar run takes: a million (in a release build; a
/// debug build runs a tenth of it, to keep `cargo test` quick).
#[test]
fn a_million_ops_run() {
    let n = if cfg!(debug_assertions) {
        100_000
    } else {
        1_000_000
    };
    let mut r = Run::new(
        &bench_program(n),
        PresetId::BumpScopeUp,
        &Options::default(),
    )
    .unwrap();
    run_to_end(&mut r, 250_000);
    assert_eq!(r.executed(), n);
    assert_eq!(r.stats_every(), n.div_ceil(4096));
    assert_eq!(
        r.stats_samples().len() as u32,
        (n - 1) / r.stats_every() + 2
    );
    assert_eq!(r.detail(n - 1).unwrap().op.index, n - 1);
}

/// Stats cost the square of the live chunks, so the chunk-work limit charges
/// them where they are computed: after every op of a full trace, but only at
/// a columnar run's samples. A program that piles up hundreds of
/// chunks is refused by the full trace and still runs columnar, with its
/// samples and details intact.
#[test]
fn many_live_chunks_are_charged_only_for_the_stats_a_run_computes() {
    let src = "repeat 100000 {\n  x = alloc 64\n}\n";
    let o = opts(Target::W64, Some(16384));
    let full = run(src, PresetId::BumperSlab, &o).unwrap_err();
    assert!(full.message.contains("chunks are live at once"), "{full}");
    assert_eq!((full.line, full.column), (2, 3));
    let mut r = Run::new(src, PresetId::BumperSlab, &o).unwrap();
    run_to_end(&mut r, 50_000);
    assert_eq!(r.executed(), 100_000);
    assert!(r.chunks().len() > 380, "{} chunks", r.chunks().len());
    let last = r.stats_samples().last().unwrap();
    assert_eq!(last.requested, 100_000 * 64);
    assert_eq!(r.detail(99_999).unwrap().op.stats, *last);
    // The full trace's limit is the same run's: up to where it stops, the
    // columnar details equal the full trace's ops (a prefix that fits).
    let prefix = "repeat 5000 {\n  x = alloc 64\n}\n";
    let t = run(prefix, PresetId::BumperSlab, &o).unwrap();
    let mut p = Run::new(prefix, PresetId::BumperSlab, &o).unwrap();
    run_to_end(&mut p, 7_777);
    for i in [0, 1023, 1024, 4_999] {
        assert_eq!(
            json(&p.detail(i).unwrap().op),
            json(&t.ops[i as usize]),
            "op {i}"
        );
    }
}

/// Each op says what a Rust caller's compiler would know of its layout: a
/// type's constant layout, an array's constant alignment, or a run-time
/// layout; a realloc keeps the block's alignment knowledge and loses its
/// size, and a free takes its block's shape as it is then.
#[test]
fn each_op_carries_the_shape_of_its_request() {
    use bumplab_core::program::Prim;
    use bumplab_core::trace::Shape;
    let src = "\
a = alloc u64
b = alloc [u32; 5]
c = alloc 24 align 8
d = alloc u32 align 16
e = alloc [u16; 3] align 2
f = alloc usize
free a
b = realloc b 40
free b
c = realloc c 48
free c
f = realloc f 16
free f
reset
";
    for target in [Target::W64, Target::Wasm32] {
        let t = run(src, PresetId::BumpScopeUp, &opts(target, None)).unwrap();
        let shapes: Vec<Option<Shape>> = t.ops.iter().map(|o| o.shape).collect();
        assert_eq!(
            shapes,
            vec![
                Some(Shape::Typed(Prim::U64)),
                Some(Shape::Array(Prim::U32)),
                Some(Shape::Layout),
                // An alignment that is not the type's: no Rust type's layout.
                Some(Shape::Layout),
                // The element's own alignment, written out: still an array.
                Some(Shape::Array(Prim::U16)),
                Some(Shape::Typed(Prim::Usize)),
                Some(Shape::Typed(Prim::U64)),
                Some(Shape::Array(Prim::U32)),
                Some(Shape::Array(Prim::U32)),
                Some(Shape::Layout),
                Some(Shape::Layout),
                // A typed block resized: its alignment stays known, its size does not.
                Some(Shape::Array(Prim::Usize)),
                Some(Shape::Array(Prim::Usize)),
                None,
            ],
            "{target:?}"
        );
        let json = serde_json::to_value(&t.ops[0]).unwrap();
        assert_eq!(
            json["shape"],
            serde_json::json!({"kind": "typed", "type": "u64"})
        );
        assert_eq!(
            serde_json::to_value(&t.ops[2]).unwrap()["shape"],
            serde_json::json!({"kind": "layout"})
        );
    }
}
