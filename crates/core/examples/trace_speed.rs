//! Times tracing a program natively (the core crate only: parse, run, record
//! every step), then serialising the trace to the page's JSON.
//!
//! `cargo run --release -p bumplab-core --example trace_speed -- [PRESET] [OPS] [RUNS] [--json]`
//!
//! The program is the one `npm run bench` (scripts/bench.mjs) traces in the
//! browser too: `repeat OPS/4 { a = alloc 8; b = alloc 24 align 16; free b; c = alloc u64 }`.
//! With `--json` it prints one line for the script: every run's times, the
//! op count and the JSON's size.
use bumplab_core::{run, Options, PresetId};
use std::time::Instant;

/// The benchmark's program: four ops per iteration, `ops / 4` iterations.
fn program(ops: u64) -> String {
    format!(
        "repeat {} {{\n  a = alloc 8\n  b = alloc 24 align 16\n  free b\n  c = alloc u64\n}}\n",
        ops / 4
    )
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
    let src = program(n);
    let opts = Options::default();

    let mut run_ms = Vec::with_capacity(runs);
    let mut json_ms = Vec::with_capacity(runs);
    let mut ops = 0usize;
    let mut json_bytes = 0usize;
    for _ in 0..runs {
        let t = Instant::now();
        let trace = run(&src, preset, &opts).expect("the benchmark program runs");
        run_ms.push(t.elapsed().as_secs_f64() * 1e3);
        ops = trace.ops.len();
        let t = Instant::now();
        let json = serde_json::to_string(&trace).expect("a trace serialises");
        json_ms.push(t.elapsed().as_secs_f64() * 1e3);
        json_bytes = json.len();
        drop(trace);
    }
    if json_out {
        let list = |v: &[f64]| {
            v.iter()
                .map(|x| format!("{x:.3}"))
                .collect::<Vec<_>>()
                .join(",")
        };
        println!(
            "{{\"preset\":\"{preset_name}\",\"ops\":{ops},\"run_ms\":[{}],\"json_ms\":[{}],\"json_bytes\":{json_bytes}}}",
            list(&run_ms),
            list(&json_ms)
        );
    } else {
        for (r, j) in run_ms.iter().zip(&json_ms) {
            println!(
                "{preset_name}: {ops} ops traced in {r:.1} ms ({:.0} ops/s); JSON {json_bytes} bytes ({:.1} B/op) in {j:.1} ms",
                ops as f64 / (r / 1e3),
                json_bytes as f64 / ops.max(1) as f64
            );
        }
    }
}
