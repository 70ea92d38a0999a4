//! The bumpalo and bump-scope models against the REAL bumpalo 3.20.4 and
//! bump-scope 2.4.1 compiled for wasm32, run under Node by `wasm-pack test
//! --node`: bumpalo's chunks come from this module's global allocator, which
//! puts them where the model's are modulo a page while a test runs the
//! crate (crates/core/tests/common/placed_chunks.rs), bump-scope's from the
//! simulated heap's algorithm run over this module's memory
//! (crates/core/tests/common/sim_heap.rs), so every alignment compares
//! exactly; the model simulates `Target::Wasm32`. (blink-alloc's whole
//! suite runs on wasm32 itself: crates/core/tests/blink_alloc.rs built for
//! wasm32-wasip1.)
//!
//! The harnesses and the edge programs are the native differential tests'
//! own (crates/core/tests/common/); only the random program generator
//! differs: proptest does not run on wasm32-unknown-unknown, so programs
//! come from a seeded splitmix64 with the same op and size mix as the
//! native strategies, and a failure names the seed that reproduces it.
//! bumpalo's emulated checkpoints are compared through the program each
//! restore leaves in effect (`bumpalo_diff::compare_undone`).
//!
//! Natively the `#[wasm_bindgen_test]` functions compile but do not run
//! (comparing a wasm32 model with a 64-bit real crate would be meaningless).

#[path = "../../core/tests/common/bump_scope_diff.rs"]
mod bump_scope_diff;
#[path = "../../core/tests/common/bumpalo_diff.rs"]
mod bumpalo_diff;
#[path = "../../core/tests/common/placed_chunks.rs"]
mod placed_chunks;
#[path = "../../core/tests/common/sim_heap.rs"]
mod sim_heap;

/// bumpalo takes its chunks from the global allocator: this one puts them
/// where the model's are while `placing` runs the crate.
#[global_allocator]
static GLOBAL: placed_chunks::PlacedChunks = placed_chunks::PlacedChunks;

use bump_scope::settings::BumpSettings;
use bump_scope_diff::{compare, compare_on_sim_heap, preset, run_real_dyn, AOp, Real};
use bumpalo_diff::{
    compare_undone, lower, parse_steps, run_model, run_real, run_real_around, GenOp, Place, Step,
};
use bumplab_core::{run, Options, Target};
use wasm_bindgen_test::wasm_bindgen_test;

/// Every MIN_ALIGN both crates support.
const MIN_ALIGNS: [u64; 5] = [1, 2, 4, 8, 16];
/// Random programs per MIN_ALIGN, so 5 x 64 = 320 per preset and direction.
const PROGRAMS_PER_MIN_ALIGN: u64 = 64;
/// Ops per generated program: 1 to this many (before ops that name no live
/// block are dropped).
const MAX_OPS: u64 = 50;

/// splitmix64: small, fast, and every seed gives a different stream.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `lo..=hi` (the slight modulo bias does not matter here).
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// An index into `weights`, each chosen in proportion to its weight.
    fn weighted(&mut self, weights: &[u64]) -> usize {
        let mut r = self.next() % weights.iter().sum::<u64>();
        for (i, &w) in weights.iter().enumerate() {
            if r < w {
                return i;
            }
            r -= w;
        }
        unreachable!()
    }

    /// Sizes with a bias to small ones, as the native strategies have.
    fn size(&mut self) -> u64 {
        match self.weighted(&[6, 3, 1]) {
            0 => self.range(0, 64),
            1 => self.range(65, 600),
            _ => self.range(601, 5000),
        }
    }

    /// Alignments up to a page, small ones likelier: every one compares,
    /// the chunks being placed where the model's are.
    fn align(&mut self) -> u64 {
        match self.weighted(&[8, 1, 1]) {
            0 => 1 << self.range(0, 4),
            1 => 64,
            _ => 4096,
        }
    }
}

/// The seed of program `k` for a MIN_ALIGN; `salt` tells the presets apart.
fn seed(salt: u64, min_align: u64, k: u64) -> u64 {
    salt << 48 | min_align << 32 | k
}

/// A bumpalo program, with the op mix of crates/core/tests/bumpalo.rs.
fn bumpalo_program(seed: u64) -> Vec<Step> {
    let mut rng = Rng(seed);
    let n = rng.range(1, MAX_OPS);
    let ops: Vec<GenOp> = (0..n)
        .map(|_| match rng.weighted(&[10, 5, 4, 1, 2, 2]) {
            0 => GenOp::Alloc {
                size: rng.size(),
                align: rng.align(),
            },
            1 => GenOp::Realloc {
                pick: rng.next() as usize,
                size: rng.size(),
            },
            2 => GenOp::Free {
                pick: (rng.next() % 2 == 0).then(|| rng.next() as usize),
            },
            3 => GenOp::Reset,
            4 => GenOp::Checkpoint(rng.range(0, 1) as u8),
            _ => GenOp::Restore(rng.range(0, 1) as u8),
        })
        .collect();
    lower(&ops)
}

/// A bump-scope program, with the op mix of crates/core/tests/bump_scope.rs.
fn bump_scope_program(seed: u64) -> Vec<AOp> {
    let mut rng = Rng(seed);
    // Mostly the newest live block, sometimes an older one.
    let pick = |rng: &mut Rng| match rng.weighted(&[3, 1]) {
        0 => 0,
        _ => rng.range(0, 63) as usize,
    };
    let n = rng.range(1, MAX_OPS);
    (0..n)
        .map(|_| match rng.weighted(&[10, 5, 3, 1, 2, 3]) {
            0 => AOp::Alloc {
                size: rng.size() as usize,
                align: rng.align() as usize,
            },
            1 => AOp::Realloc {
                pick: pick(&mut rng),
                size: rng.size() as usize,
            },
            2 => AOp::Free {
                pick: pick(&mut rng),
            },
            3 => AOp::Reset,
            4 => AOp::Checkpoint(rng.range(0, 2) as u8),
            _ => AOp::Restore(rng.range(0, 2) as u8),
        })
        .collect()
}

/// Runs a bumpalo program on the model (wasm32) and on the real crate, its
/// chunks placed where the model's are, and asserts every op observed the
/// same: chunk (creation index) and capacity, offset, moved or not, chunk
/// count, and the current chunk's bump pointer (through the program each
/// restore leaves in effect).
fn check_bumpalo_steps(
    steps: &[Step],
    min_align: u64,
    capacity: Option<u64>,
) -> Result<(), String> {
    let (t, model) = run_model(steps, Target::Wasm32, min_align, capacity);
    compare_undone(steps, &t, &model, |effect, bases| {
        placed_chunks::start_placing(bases);
        let real = run_real_around(effect, min_align, capacity, &|call| {
            placed_chunks::placing(call)
        });
        assert_eq!(
            placed_chunks::placed_now(),
            0,
            "the Bump freed every chunk it got"
        );
        real
    })?;
    for o in &model {
        if let Some(Place::Unexpected(why)) = &o.place {
            return Err(why.clone());
        }
    }
    Ok(())
}

fn check_bumpalo(seed: u64, min_align: u64) {
    let steps = bumpalo_program(seed);
    if let Err(e) = check_bumpalo_steps(&steps, min_align, None) {
        panic!("seed {seed:#x}, MIN_ALIGN {min_align}: {e}");
    }
}

fn check_bump_scope(up: bool, seed: u64, min_align: u64) {
    let ops = bump_scope_program(seed);
    if let Err(e) = compare_on_sim_heap(up, min_align, None, &ops) {
        panic!("seed {seed:#x}, MIN_ALIGN {min_align}, up={up}: {e}");
    }
}

#[wasm_bindgen_test]
fn bumpalo_random_programs_match_the_real_crate_on_wasm32() {
    for m in MIN_ALIGNS {
        for k in 0..PROGRAMS_PER_MIN_ALIGN {
            check_bumpalo(seed(1, m, k), m);
        }
    }
}

#[wasm_bindgen_test]
fn bump_scope_up_random_programs_match_the_real_crate_on_wasm32() {
    for m in MIN_ALIGNS {
        for k in 0..PROGRAMS_PER_MIN_ALIGN {
            check_bump_scope(true, seed(2, m, k), m);
        }
    }
}

#[wasm_bindgen_test]
fn bump_scope_down_random_programs_match_the_real_crate_on_wasm32() {
    for m in MIN_ALIGNS {
        for k in 0..PROGRAMS_PER_MIN_ALIGN {
            check_bump_scope(false, seed(3, m, k), m);
        }
    }
}

#[wasm_bindgen_test]
fn bumpalo_chunks_are_464_then_double_on_wasm32() {
    // Footer 32 + malloc's assumed 16: 464 + 48 = 512, then powers of two.
    let want = [464, 976, 2000, 4048, 8144];
    let src: String = (0..38)
        .map(|i| format!("x{i} = alloc 400 align 1\n"))
        .collect();
    let steps = parse_steps(&src);
    let real = run_real(&steps, 1, None);
    let mut real_caps: Vec<u64> = Vec::new();
    for obs in &real {
        if let Some(Place::InChunk {
            chunk, capacity, ..
        }) = obs.place
        {
            if chunk == real_caps.len() {
                real_caps.push(capacity);
            }
        }
    }
    assert_eq!(real_caps, want, "the real bumpalo");
    let (t, model) = run_model(&steps, Target::Wasm32, 1, None);
    let caps: Vec<u64> = t.chunks.iter().map(|c| c.capacity).collect();
    assert_eq!(caps, want, "the model");
    assert_eq!(model, real);

    // The first chunk straight from the crate: one byte used of 464.
    let bump = bumpalo::Bump::new();
    bump.alloc(0u8);
    assert_eq!(bump.chunk_capacity(), 463);
}

#[wasm_bindgen_test]
fn bump_scope_first_chunk_holds_480_on_wasm32() {
    // 512 less malloc's assumed 8 is 504, rounded down to 16: a 496-byte
    // chunk; the 16-byte header leaves 480.
    let real = Real::<BumpSettings<1, true>>::new();
    assert_eq!((real.stats().size(), real.stats().capacity()), (496, 480));
    let real = Real::<BumpSettings<1, false>>::new();
    assert_eq!((real.stats().size(), real.stats().capacity()), (496, 480));
    let opts = Options {
        target: Target::Wasm32,
        capacity: None,
        min_align: Some(1),
        child: None,
    };
    for up in [true, false] {
        let t = run("", preset(up), &opts).unwrap();
        let c = &t.chunks[0];
        assert_eq!((c.size, c.capacity), (496, 480), "up={up}");
        // And the growth from there, on both sides.
        let ops: Vec<AOp> = (0..120)
            .map(|_| AOp::Alloc {
                size: 200,
                align: 8,
            })
            .collect();
        compare(up, 1, Target::Wasm32, &ops).unwrap();
        let (_, real) = run_real_dyn(up, 1, &ops);
        // Chunks of 496, 1008, 2032, ... bytes (a power of two less 8,
        // rounded down to 16) less the 16-byte header.
        let caps = &real.last().unwrap().capacities;
        assert_eq!(caps, &[480, 992, 2016, 4064, 8160, 16352], "up={up}");
    }
}

#[wasm_bindgen_test]
fn bumpalo_edges_match_the_real_crate_on_wasm32() {
    for m in MIN_ALIGNS {
        for (steps, capacity) in bumpalo_diff::edge_programs(Target::Wasm32, m) {
            if let Err(e) = check_bumpalo_steps(&steps, m, capacity) {
                panic!("MIN_ALIGN {m}: {e}");
            }
        }
    }
}

#[wasm_bindgen_test]
fn bump_scope_edges_match_the_real_crate_on_wasm32() {
    for up in [true, false] {
        for m in MIN_ALIGNS {
            for (ops, capacity) in bump_scope_diff::edge_programs(up, m, Target::Wasm32) {
                if let Err(e) = compare_on_sim_heap(up, m, capacity, &ops) {
                    panic!("MIN_ALIGN {m}, up={up}: {e}");
                }
            }
        }
    }
}
