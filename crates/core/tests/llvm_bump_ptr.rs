//! The llvm-bump-ptr preset against LLVM's real BumpPtrAllocatorImpl from
//! the installed llvm/Support/Allocator.h and libLLVM (Debian's llvm-dev,
//! LLVM 14), built by g++ into a harness (tests/native/llvm_bump_ptr.cpp)
//! for this machine (64-bit) and with `g++ -m32` (four-byte pointers, the
//! stand-in for wasm32; the header's one out-of-line function is written in
//! the harness, as there is no 32-bit libLLVM): cases with the numbers the
//! header gives, the edges of every rule, the emulated checkpoints, and
//! random programs compared op by op on both. Both sides take their slabs
//! from the simulated heap's algorithm, so every address agrees, at every
//! alignment.
//!
//! LLVM's allocator has no checkpoints: the playground's emulation frees
//! the slabs (and custom-sized slabs) made since and puts `CurPtr` and
//! `End` back, which leaves the allocator exactly as it was at the
//! checkpoint. So a program with restores is compared with LLVM running
//! the ops each restore leaves in effect (`arena_diff::compare_undone`).

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::Mutex;

use arena_diff::{
    base_seed, compare_undone, largest_request, last_true, model_or_stop, parse_steps, program,
    program_text, repeated, run_model, seed_of, Coverage, Mix, Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::llvm_bump_ptr as model;
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::LlvmBumpPtr;

/// The harness for `target`, built once per test binary and shared.
fn harness(target: Target) -> &'static Mutex<Harness> {
    static HARNESSES: native::PerTarget = native::PerTarget::new();
    HARNESSES.get(target, || {
        let (llvm, version) = native::llvm_config();
        let out = |args: &[&str]| -> Vec<String> {
            let o = std::process::Command::new(&llvm)
                .args(args)
                .output()
                .expect("llvm-config runs");
            String::from_utf8_lossy(&o.stdout)
                .split_whitespace()
                .map(str::to_string)
                .collect()
        };
        let mut flags = out(&["--cxxflags"]);
        // The header needs C++14; the harness's own code is C++17.
        flags.push("-std=c++17".into());
        flags.push(format!("-DBUMPLAB_LLVM_VERSION=\"{version}\""));
        flags.extend(native::cxx_target_flags(target));
        let (name, libs) = match target {
            Target::W64 => {
                let libdir = out(&["--libdir"]).join("");
                let mut libs = out(&["--ldflags"]);
                libs.extend(out(&["--libs", "support"]));
                libs.push(format!("-Wl,-rpath,{libdir}"));
                ("llvm_bump_ptr", libs)
            }
            // No 32-bit libLLVMSupport: the harness defines what it needs.
            Target::Wasm32 => {
                flags.push("-DBUMPLAB_NO_LIBLLVM".into());
                ("llvm_bump_ptr-m32", Vec::new())
            }
        };
        let bin = native::build_cxx(name, "llvm_bump_ptr.cpp", &flags, &libs);
        Harness::spawn(name, &bin)
    })
}

fn real(
    target: Target,
    capacity: Option<u64>,
    steps: &[Step],
) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness(target).lock().unwrap_or_else(|e| e.into_inner());
    let raw = h.run(capacity, steps)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on LLVM on `target`, asserts they agree op
/// by op (through the emulation's definition when it has checkpoints), and
/// returns the model's trace.
fn both_on(target: Target, src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, target, capacity, &steps).unwrap();
    let what = format!("llvm-bump-ptr on {target:?}");
    compare_undone(&what, 0, capacity, &steps, &model, |s| {
        real(target, capacity, s)
    })
    .unwrap_or_else(|e| panic!("{e}"));
    t
}

/// [`both_on`] on both targets; the 64-bit trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    both_on(Target::Wasm32, src, capacity);
    both_on(Target::W64, src, capacity)
}

fn capacities(t: &Trace) -> Vec<u64> {
    t.chunks.iter().map(|c| c.capacity).collect()
}

#[test]
fn no_slab_until_a_request_needs_one() {
    let t = both("z = alloc 0\na = alloc 8\nb = alloc 8 align 8\n", None);
    // A zero-sized request before the first slab gets CurPtr: null.
    assert_eq!((t.ops[0].address, t.ops[0].chunk), (Some(0), None));
    assert_eq!(t.ops[0].bump_ptr, None);
    let c = &t.chunks[0];
    // 4096 bytes, all usable: the slab list lives outside the slabs.
    assert_eq!((c.size, c.capacity, c.header, c.footer), (4096, 4096, 0, 0));
    assert_eq!(c.base, HEAP_BASE + MALLOC_HEADER);
    assert_eq!(c.reason, ChunkReason::First);
    assert_eq!((t.ops[1].offset, t.ops[2].offset), (Some(0), Some(8)));
}

#[test]
fn a_large_request_gets_a_custom_sized_slab_that_never_becomes_current() {
    let t = both(
        "a = alloc 100\nb = alloc 5000\nc = alloc 100\nd = alloc 3000 align 2048\n",
        None,
    );
    // 5000 + 1 - 1 > 4096: a slab of exactly 5000 bytes of its own.
    assert_eq!(capacities(&t), [4096, 5000, 3000 + 2047]);
    assert_eq!(t.chunks[1].reason, ChunkReason::CustomSlab);
    // c goes on filling the first slab, right after a.
    assert_eq!((t.ops[2].chunk, t.ops[2].offset), (Some(0), Some(100)));
    // 3000 would fit the slab's rest, but padding first: 3000 + 2047 is
    // above the threshold, so it is custom too (aligned inside it).
    assert_eq!(t.ops[3].chunk, Some(2));
    assert_eq!(t.ops[3].address.unwrap() % 2048, 0);
    assert_eq!(t.ops[3].bump_ptr, t.ops[2].bump_ptr);
    // Exactly the threshold is still a normal slab.
    let t = both("a = alloc 8\nb = alloc 4096\n", None);
    assert_eq!(capacities(&t), [4096, 4096]);
    assert_eq!(t.chunks[1].reason, ChunkReason::Full);
}

#[test]
fn slabs_double_every_128_slabs() {
    // 16-byte slabs: 128 of them hold one block each, the next 128 (32
    // bytes) two each, the rest (64 bytes) four: 128 + 256 + 6 blocks.
    let t = both(&repeated("16", 390), Some(16));
    let caps = capacities(&t);
    assert_eq!(caps.len(), 128 + 128 + 2);
    assert!(caps[..128].iter().all(|&c| c == 16));
    assert!(caps[128..256].iter().all(|&c| c == 32));
    assert!(caps[256..].iter().all(|&c| c == 64));
}

#[test]
fn reset_keeps_the_first_slab_and_frees_the_rest() {
    let t = both(
        &format!(
            "{}big = alloc 9000\nreset\ny = alloc 8\n",
            repeated("1000", 9)
        ),
        None,
    );
    assert_eq!(capacities(&t), [4096, 4096, 4096, 9000]);
    let reset = &t.ops[10];
    assert_eq!(reset.stats.chunks, 1);
    assert_eq!(reset.bump_ptr, Some(t.chunks[0].start));
    assert!(t.chunks[1..].iter().all(|c| c.freed_by == Some(10)));
    assert_eq!((t.ops[11].chunk, t.ops[11].offset), (Some(0), Some(0)));
}

/// What op `i` of `t` says about a chunk becoming current again.
fn reused(t: &Trace, i: usize) -> Vec<&str> {
    t.ops[i]
        .events
        .iter()
        .filter(|e| e.kind == EventKind::ChunkReused)
        .map(|e| e.text.as_str())
        .collect()
}

#[test]
fn only_a_slab_that_stopped_being_current_is_said_to_be_current_again() {
    // A reset with one slab: it never stopped being current, so nothing is
    // said. With two, the first is current again.
    let t = both(
        "a = alloc 8\nreset\nb = alloc 4000\nc = alloc 200\nreset\nd = alloc 8\n",
        None,
    );
    assert_eq!(capacities(&t), [4096, 4096]);
    assert_eq!((t.ops[3].chunk, t.ops[3].offset), (Some(1), Some(0)));
    assert_eq!(reused(&t, 1), Vec::<&str>::new());
    assert_eq!(
        reused(&t, 4),
        ["chunk 0, kept from before, is current again"]
    );
    // A restore past a custom-sized slab only: that slab never was current,
    // the saved one never stopped being. Past a new slab: the saved one is
    // current again.
    let t = both(
        "a = alloc 8\ncheckpoint c0\nb = alloc 5000\nrestore c0\ncheckpoint c1\nc = alloc 4090\nrestore c1\nd = alloc 8\n",
        None,
    );
    assert_eq!(capacities(&t), [4096, 5000, 4096]);
    assert_eq!(t.chunks[1].freed_by, Some(3));
    assert_eq!(t.chunks[2].freed_by, Some(6));
    assert_eq!(reused(&t, 3), Vec::<&str>::new());
    assert_eq!(
        reused(&t, 6),
        ["chunk 0, kept from before, is current again"]
    );
    assert_eq!((t.ops[7].chunk, t.ops[7].offset), (Some(0), Some(8)));
}

#[test]
fn deallocate_and_realloc_give_nothing_back() {
    let t = both(
        "a = alloc 64\nb = realloc a 128\nfree b\nc = alloc 8\n",
        None,
    );
    // No realloc: a new block, the old one stays.
    assert_eq!((t.ops[1].moved, t.ops[1].offset), (Some(true), Some(64)));
    assert!(t.ops[1].events.iter().any(|e| e.kind == EventKind::Leaked));
    assert_eq!(t.ops[2].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!(t.ops[3].offset, Some(192));
}

#[test]
fn every_step_marker_is_on_a_code_line() {
    let text = bumplab_core::catalogue::text(Source::LlvmBumpPtr);
    for s in model::STEPS {
        let line = s.line() as usize;
        assert!(line > 0, "{s:?}");
        let code = text.lines().nth(line - 1).unwrap().trim();
        assert!(!code.starts_with("//"), "{s:?}: {code}");
    }
}

// ---------------------------------------------------------------------------
// The emulated checkpoint.

#[test]
fn restore_frees_the_slabs_made_since_and_puts_the_bump_pointer_back() {
    let t = both(
        "a = alloc 100\ncheckpoint c0\nb = alloc 5000\nc = alloc 4000\nd = alloc 8\nrestore c0\ne = alloc 8\n",
        None,
    );
    // b got a custom-sized slab, c a second slab (d went after it).
    assert_eq!(capacities(&t), [4096, 5000, 4096]);
    assert_eq!((t.ops[4].chunk, t.ops[4].offset), (Some(2), Some(4000)));
    // The restore gives both back and CurPtr is where it was: e follows a.
    assert_eq!(t.chunks[1].freed_by, Some(5));
    assert_eq!(t.chunks[2].freed_by, Some(5));
    assert_eq!(t.ops[5].bump_ptr, t.ops[1].bump_ptr);
    assert_eq!((t.ops[6].chunk, t.ops[6].offset), (Some(0), Some(100)));
    assert!(t.ops[5]
        .events
        .iter()
        .any(|e| e.kind == EventKind::Note && e.text.contains("playground's emulation")));
}

#[test]
fn restore_puts_the_slab_count_of_the_growth_delay_back() {
    // 16-byte slabs: after 127 of them, the checkpoint; the 128th slab is
    // 16 bytes, the 129th 32 (the delay doubles from the 128th slab made
    // before it) and holds two blocks. The restore frees those 2, so the
    // next blocks get 16 and 32 bytes again, as if they had never been made.
    let named =
        |p: &str, n: usize| -> String { (0..n).map(|i| format!("{p}{i} = alloc 16\n")).collect() };
    let src = format!(
        "{}checkpoint c0\n{}restore c0\n{}",
        named("x", 127),
        named("y", 3),
        named("z", 3)
    );
    let t = both(&src, Some(16));
    assert_eq!(capacities(&t)[127..], [16, 32, 16, 32]);
    assert!(t.chunks[127..129].iter().all(|c| c.freed_by == Some(131)));
    assert_eq!(t.chunks[129].created_by, Some(132));
}

#[test]
fn a_restore_to_before_the_first_slab_frees_every_slab() {
    let t = both(
        "checkpoint c0\na = alloc 8\nb = alloc 9000\nrestore c0\nc = alloc 8\n",
        None,
    );
    assert_eq!(t.ops[3].stats.chunks, 0);
    assert_eq!(t.ops[3].bump_ptr, None);
    assert_eq!((t.ops[4].chunk, t.ops[4].offset), (Some(2), Some(0)));
}

// ---------------------------------------------------------------------------
// The edges of every rule, each compared with LLVM.

fn edges_match_llvm_on(target: Target) {
    let w = match target {
        Target::W64 => 8,
        Target::Wasm32 => 4,
    };
    let mut cases: Vec<(String, Option<u64>)> = vec![
        // The word, and 1 and 2 (LLVM 14 has no minimum alignment).
        (format!("a = alloc 1\nb = alloc 8 align {w}\nc = alloc 3 align 1\nd = alloc 3 align 2\ne = alloc 1 align {w}\n"), None),
        // A page's alignment, in the slab and in a custom-sized one.
        ("a = alloc 1\nb = alloc 1 align 4096\nc = alloc 5000 align 4096\nd = alloc 1\n".into(), None),
        // Size 0: CurPtr (null before the first slab), then in a slab.
        ("a = alloc 0\nb = alloc 0 align 4096\nc = alloc 1\nd = alloc 0 align 16\ne = realloc c 0\n".into(), None),
    ];
    // A request that exactly fills the slab after a first block (and
    // after padding), and one byte more; then the size + alignment - 1
    // that is exactly the slab size (the custom slab's threshold).
    for (slab, first, align) in [(4096, 1, 1), (4096, 3, 64), (16, 1, 8), (65536, 100, 4096)] {
        let fits = |n: u64| {
            let src = format!("a = alloc {first}\nb = alloc {n} align {align}\n");
            let (t, _) = run_model(PRESET, target, Some(slab), &parse_steps(&src)).unwrap();
            t.chunks.len() == 1
        };
        let rest = last_true(0, slab, fits);
        let normal = |n: u64| {
            let src = format!("a = alloc {n} align {align}\n");
            let (t, _) = run_model(PRESET, target, Some(slab), &parse_steps(&src)).unwrap();
            t.chunks[0].reason != ChunkReason::CustomSlab
        };
        let threshold = last_true(1, slab, normal);
        for n in [rest, rest + 1, threshold, threshold + 1] {
            cases.push((
                format!("a = alloc {first}\nb = alloc {n} align {align}\nc = alloc 1\n"),
                Some(slab),
            ));
        }
    }
    // The growth delay at 128 and 256 slabs, exactly.
    cases.push((repeated("16", 129), Some(16)));
    cases.push((repeated("16", 128 + 2 * 128 + 1), Some(16)));
    for (src, cap) in &cases {
        both_on(target, src, *cap);
    }
}

#[test]
fn edges_match_llvm() {
    edges_match_llvm_on(Target::W64);
}

#[test]
fn edges_match_llvm_on_wasm32() {
    edges_match_llvm_on(Target::Wasm32);
}

fn the_largest_request_the_target_allows_on(target: Target) {
    for align in [1, 4096] {
        let big = largest_request(target, align);
        let src = format!("a = alloc 8\nb = alloc {big} align {align}\nc = alloc 8\n");
        let steps = parse_steps(&src);
        let model = model_or_stop(PRESET, target, None, None, &steps);
        let real = harness(target)
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .run_partly(None, &steps);
        match (model, real) {
            // The base allocator has room (a 32-bit heap of 4 GiB holds
            // 2 GiB): a custom-sized slab on both sides.
            (Ok(_), Ok(_)) => {
                let t = both_on(target, &src, None);
                assert_eq!(t.chunks[1].reason, ChunkReason::CustomSlab);
            }
            // It has none: the model stops with no room where LLVM's
            // slab allocator fails (the harness's says so and stops).
            (Err((k, why)), Err((ops, err))) => {
                assert!(why.contains("no room"), "{target:?}: {why}");
                assert!(err.contains("out of room"), "{target:?}: {err}");
                assert_eq!((k, ops.len()), (1, 1), "{target:?}");
                both_on(target, &program_text(&steps[..1]), None);
            }
            (m, r) => panic!(
                "{target:?} align {align}: model {:?}, real {:?}",
                m.map(|_| ()),
                r.map(|_| ())
            ),
        }
    }
}

#[test]
fn the_largest_request_the_target_allows() {
    the_largest_request_the_target_allows_on(Target::W64);
}

#[test]
fn the_largest_request_the_target_allows_on_wasm32() {
    the_largest_request_the_target_allows_on(Target::Wasm32);
}

/// Programs of every kind: alloc, realloc (allocate and copy), free,
/// reset, checkpoint and restore; sizes past a slab; alignments up to a
/// page; slab sizes the harness is instantiated for.
const MIX: Mix = Mix {
    weights: [10, 3, 3, 1, 2, 2],
    min_ops: 1,
    max_ops: 60,
    sizes: &[(6, 0, 64), (3, 65, 600), (1, 601, 5000), (1, 5001, 70000)],
    aligns: &[1, 1, 2, 4, 8, 8, 16, 32, 64, 4096],
    capacities: &[
        None,
        None,
        Some(16),
        Some(64),
        Some(256),
        Some(1024),
        Some(16384),
        Some(65536),
    ],
};

/// Long programs of small blocks in tiny slabs, so the 128-slab growth
/// delay is passed (and resets now and then start the count again).
const GROWTH: Mix = Mix {
    weights: [40, 1, 1, 0, 0, 0],
    min_ops: 140,
    max_ops: 320,
    sizes: &[(1, 9, 16)],
    aligns: &[1, 1, 8],
    capacities: &[Some(16), Some(32)],
};

/// Random programs compared per run and target.
const PROGRAMS: u64 = 256;
const GROWTH_PROGRAMS: u64 = 32;

fn random_programs(target: Target) {
    let base = base_seed();
    let mut cov = Coverage::default();
    let what = format!("llvm-bump-ptr on {target:?}");
    let runs = (0..PROGRAMS)
        .map(|k| (k, &MIX))
        .chain((PROGRAMS..PROGRAMS + GROWTH_PROGRAMS).map(|k| (k, &GROWTH)));
    for (k, mix) in runs {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, mix);
        let (t, model) = run_model(PRESET, target, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare_undone(&what, seed, capacity, &steps, &model, |s| {
            real(target, capacity, s)
        }) {
            panic!("{e}");
        }
        cov.record(&t);
        let slab = capacity.unwrap_or(model::DEFAULT_SLAB_SIZE);
        let grown = t
            .chunks
            .iter()
            .filter(|c| c.reason != ChunkReason::CustomSlab && c.capacity > slab)
            .count() as u64;
        cov.add_to("grown slabs", grown);
    }
    println!("{}", cov.summary(&what));
    cov.require(
        &what,
        &[
            ("a new slab", cov.new_chunks),
            ("a custom-sized slab", cov.oversized),
            ("a realloc (a move: LLVM has no realloc)", cov.realloc_moved),
            ("a shrink", cov.shrinks),
            ("a free of the last block", cov.frees_of_last),
            ("a reset", cov.resets),
            (
                "a restore that gave bytes back",
                cov.restores_that_reclaimed,
            ),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen slab size", cov.capacities),
            ("a slab grown by the delay", cov.get("grown slabs")),
        ],
    );
    cov.require_shares(
        &what,
        &[
            ("new chunk", 40.0),
            ("oversized", 15.0),
            ("moved realloc", 30.0),
            ("free of the last block", 25.0),
            ("reset", 15.0),
            ("restore", 20.0),
            ("restore that gave bytes back", 10.0),
        ],
    );
}

#[test]
fn random_programs_match_llvm() {
    random_programs(Target::W64);
}

#[test]
fn random_programs_match_llvm_on_wasm32() {
    random_programs(Target::Wasm32);
}
