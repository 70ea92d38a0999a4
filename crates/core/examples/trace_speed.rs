//! Times tracing a program natively with the columnar run (the core crate
//! only: parse, run every op into the columns, snapshot the engine every
//! 1024 ops), the same work the page's wasm module does, then what the
//! page reads from it in one go (header and chunk tables as JSON, the
//! columns copied out), and one op's details at the start and at the end.
//!
//! `cargo run --release -p bumplab-core --example trace_speed -- [PRESET] [OPS] [RUNS] [--json] [--file=PATH]`
//!
//! The program is the one `npm run bench` (scripts/bench.mjs) traces in the
//! browser too: `repeat OPS/4 { a = alloc 8; b = alloc 24 align 16; free b; c = alloc u64 }`;
//! with `--file=PATH`, the program in that file instead (a recorded one, say:
//! many names, frees in any order, reallocs), whatever OPS says.
//! With `--json` it prints one line for the script: every run's times, the
//! op count, the sizes and the detail times.
use bumplab_core::{Options, PresetId, Run};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicIsize, Ordering};
use std::time::Instant;

/// Counts the bytes live on the heap, to size the snapshots.
struct Counting;

static LIVE: AtomicIsize = AtomicIsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, l: Layout) -> *mut u8 {
        LIVE.fetch_add(l.size() as isize, Ordering::Relaxed);
        unsafe { System.alloc(l) }
    }
    unsafe fn dealloc(&self, p: *mut u8, l: Layout) {
        LIVE.fetch_sub(l.size() as isize, Ordering::Relaxed);
        unsafe { System.dealloc(p, l) }
    }
    unsafe fn realloc(&self, p: *mut u8, l: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new as isize - l.size() as isize, Ordering::Relaxed);
        unsafe { System.realloc(p, l, new) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The benchmark's program: four ops per iteration, `ops / 4` iterations.
fn program(ops: u64) -> String {
    format!(
        "repeat {} {{\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}}\n",
        ops / 4
    )
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

/// The whole program run to its end.
fn run_all(src: &str, preset: PresetId, opts: &Options, snapshots: bool) -> Run {
    let run = Run::new(src, preset, opts).expect("the benchmark program parses");
    let mut run = if snapshots {
        run
    } else {
        run.without_snapshots()
    };
    while !run.advance(u32::MAX).expect("the benchmark program runs") {}
    run
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let json_out = args.iter().any(|a| a == "--json");
    let pos: Vec<&String> = args.iter().filter(|a| !a.starts_with("--")).collect();
    let preset_name = pos.first().map(|s| s.as_str()).unwrap_or("bump-scope-up");
    let preset = PresetId::parse(preset_name).unwrap_or_else(|| {
        eprintln!("unknown preset {preset_name}");
        std::process::exit(2);
    });
    let n: u64 = pos.get(1).and_then(|s| s.parse().ok()).unwrap_or(1_000_000);
    let runs: usize = pos.get(2).and_then(|s| s.parse().ok()).unwrap_or(1).max(1);
    let src = match args.iter().find_map(|a| a.strip_prefix("--file=")) {
        Some(path) => std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("cannot read {path}: {e}");
            std::process::exit(2);
        }),
        None => program(n),
    };
    let opts = Options::default();

    let mut run_ms = Vec::with_capacity(runs);
    let mut json_ms = Vec::with_capacity(runs);
    let (mut ops, mut json_bytes, mut bytes) = (0, 0, 0);
    let (mut detail_first_ms, mut detail_last_ms) = (0.0, 0.0);
    let mut snapshot_bytes = 0.0;
    for r in 0..runs {
        let live = LIVE.load(Ordering::Relaxed);
        let t = Instant::now();
        let run = run_all(&src, preset, &opts, true);
        run_ms.push(ms(t));
        let with_snapshots = LIVE.load(Ordering::Relaxed) - live;
        ops = run.executed();
        bytes = run.bytes();
        // What the page reads once the run is done.
        let t = Instant::now();
        let header = serde_json::to_string(&run.header()).expect("serialises");
        let chunks = serde_json::to_string(&run.chunks()).expect("serialises");
        let copies: usize = [
            "meta", "chunk", "offset", "size", "padding", "dead_at", "gone_at",
        ]
        .iter()
        .map(|c| run.columns().by_name(c).expect("a column").to_vec().len())
        .sum();
        json_ms.push(ms(t));
        json_bytes = header.len() + chunks.len();
        assert_eq!(copies, 7 * ops as usize);
        if r == 0 && ops > 0 {
            let t = Instant::now();
            let first = run.detail(100.min(ops - 1)).expect("ran");
            detail_first_ms = ms(t);
            let t = Instant::now();
            let last = run.detail(ops - 1).expect("ran");
            detail_last_ms = ms(t);
            assert_eq!(last.op.index, ops - 1);
            drop(first);
            drop(run);
            // The snapshots' cost: the same run's live heap without them.
            let live = LIVE.load(Ordering::Relaxed);
            let bare = run_all(&src, preset, &opts, false);
            let without = LIVE.load(Ordering::Relaxed) - live;
            let count = u64::from(ops).div_ceil(1024).max(1);
            snapshot_bytes = (with_snapshots - without) as f64 / count as f64;
            drop(bare);
        }
    }
    if json_out {
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        println!(
            "{{\"preset\":\"{preset_name}\",\"ops\":{ops},\"run_ms\":[{}],\"json_ms\":[{}],\"json_bytes\":{json_bytes},\"bytes\":{bytes},\"snapshot_bytes\":{snapshot_bytes:.0},\"detail_first_ms\":{detail_first_ms:.3},\"detail_last_ms\":{detail_last_ms:.3}}}",
            list(&run_ms),
            list(&json_ms)
        );
    } else {
        for (r, j) in run_ms.iter().zip(&json_ms) {
            println!(
                "{preset_name}: {ops} ops traced in {r:.1} ms ({:.0} ops/s); trace {bytes} bytes ({:.1} B/op); header and chunks {json_bytes} bytes of JSON and the columns copied in {j:.1} ms",
                ops as f64 / (r / 1e3),
                bytes as f64 / f64::from(ops.max(1)),
            );
        }
        println!(
            "snapshots: about {snapshot_bytes:.0} bytes each, one per 1024 ops; detail of op 100 in {detail_first_ms:.2} ms, of the last op in {detail_last_ms:.2} ms"
        );
    }
}
