//! The llvm-bump-ptr preset against LLVM's real BumpPtrAllocatorImpl from
//! the installed llvm/Support/Allocator.h and libLLVM (Debian's llvm-dev,
//! LLVM 14), built by g++ into a harness (tests/native/llvm_bump_ptr.cpp):
//! cases with the numbers the header gives, and random programs compared op
//! by op. Both sides take their slabs from the simulated heap's algorithm,
//! so every address agrees, at every alignment.

#[path = "common/arena_diff.rs"]
mod arena_diff;
#[path = "common/native.rs"]
mod native;

use std::sync::{Mutex, OnceLock};

use arena_diff::{
    base_seed, compare, parse_steps, program, repeated, run_model, seed_of, Coverage, Mix, Step,
};
use bumplab_core::events::ChunkReason;
use bumplab_core::heap::{HEAP_BASE, MALLOC_HEADER};
use bumplab_core::models::llvm_bump_ptr as model;
use bumplab_core::source::Source;
use bumplab_core::trace::EventKind;
use bumplab_core::{PresetId, Target, Trace};
use native::Harness;

const PRESET: PresetId = PresetId::LlvmBumpPtr;

/// The harness, built once per test binary and shared by the tests.
fn harness() -> &'static Mutex<Harness> {
    static H: OnceLock<Mutex<Harness>> = OnceLock::new();
    H.get_or_init(|| {
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
        let libdir = out(&["--libdir"]).join("");
        let mut libs = out(&["--ldflags"]);
        libs.extend(out(&["--libs", "support"]));
        libs.push(format!("-Wl,-rpath,{libdir}"));
        flags.push(format!("-DBUMPLAB_LLVM_VERSION=\"{version}\""));
        let bin = native::build_cxx("llvm_bump_ptr", "llvm_bump_ptr.cpp", &flags, &libs);
        Mutex::new(Harness::spawn("llvm_bump_ptr", &bin))
    })
}

fn real(capacity: Option<u64>, steps: &[Step]) -> Result<Vec<arena_diff::Seen>, String> {
    let mut h = harness().lock().unwrap_or_else(|e| e.into_inner());
    let raw = h.run(capacity, steps)?;
    Ok(native::seen(&raw, steps))
}

/// Runs `src` on the model and on LLVM, asserts they agree op by op, and
/// returns the model's trace.
fn both(src: &str, capacity: Option<u64>) -> Trace {
    let steps = parse_steps(src);
    let (t, model) = run_model(PRESET, Target::W64, capacity, &steps).unwrap();
    let real = real(capacity, &steps).unwrap_or_else(|e| panic!("{e}"));
    compare("llvm-bump-ptr", 0, capacity, &steps, &model, &real).unwrap_or_else(|e| panic!("{e}"));
    t
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

/// Programs of every kind: alloc, realloc (allocate and copy), free and
/// reset; sizes past a slab; alignments up to a page; slab sizes the
/// harness is instantiated for.
const MIX: Mix = Mix {
    weights: [10, 3, 3, 1, 0, 0],
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

/// Random programs compared per run.
const PROGRAMS: u64 = 288;
const GROWTH_PROGRAMS: u64 = 32;

#[test]
fn random_programs_match_llvm() {
    let base = base_seed();
    let mut cov = Coverage::default();
    let runs = (0..PROGRAMS)
        .map(|k| (k, &MIX))
        .chain((PROGRAMS..PROGRAMS + GROWTH_PROGRAMS).map(|k| (k, &GROWTH)));
    for (k, mix) in runs {
        let seed = seed_of(base, k);
        let (steps, capacity) = program(seed, mix);
        let (t, model) = run_model(PRESET, Target::W64, capacity, &steps)
            .unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        let real = real(capacity, &steps).unwrap_or_else(|e| panic!("seed {seed:#x}: {e}"));
        if let Err(e) = compare("llvm-bump-ptr", seed, capacity, &steps, &model, &real) {
            panic!("{e}");
        }
        cov.record(&t);
        let slab = capacity.unwrap_or(model::DEFAULT_SLAB_SIZE);
        let grown = t
            .chunks
            .iter()
            .filter(|c| c.reason != ChunkReason::CustomSlab && c.capacity > slab)
            .count() as u64;
        *cov.extra.entry("grown slabs").or_default() += grown;
    }
    println!("{}", cov.summary("LLVM 14 BumpPtrAllocator (64-bit)"));
    cov.require(
        "llvm-bump-ptr",
        &[
            ("a new slab", cov.new_chunks),
            ("a custom-sized slab", cov.oversized),
            ("a realloc (a move: LLVM has no realloc)", cov.realloc_moved),
            ("a shrink", cov.shrinks),
            ("a free", cov.frees),
            ("a reset", cov.resets),
            ("a zero-sized request", cov.zero_sized),
            ("an alignment above 16", cov.big_aligns),
            ("a chosen slab size", cov.capacities),
            ("a slab grown by the delay", cov.get("grown slabs")),
        ],
    );
    assert!(cov.programs >= 256);
}
