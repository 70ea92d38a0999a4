//! `RecordingGlobal` as this program's global allocator: a loop of boxes, a
//! string growing push by push and four threads, recorded and replayed.
//! (No test harness: `main` is the program, see Cargo.toml.)

mod common;

use std::alloc::System;
use std::hint::black_box;

use bumplab_core::presets::PresetId;
use bumplab_core::run::{Run, META_KIND};
use bumplab_record::RecordingGlobal;
use common::{header_ops, replays_everywhere};

#[global_allocator]
static GLOBAL: RecordingGlobal<System> = RecordingGlobal::new(System);

/// The ops that allocate a block of `size` bytes, counted on the engine.
fn allocs_of(text: &str, size: u32) -> usize {
    let mut run = Run::new(text, PresetId::Bumpalo, &Default::default()).unwrap();
    while !run.advance(u32::MAX).unwrap() {}
    let c = run.columns();
    // Kind 0 is alloc (bumplab_core::run::op_kind_code).
    (0..c.len())
        .filter(|&i| c.meta[i] & META_KIND == 0 && c.size[i] == size)
        .count()
}

fn main() {
    for _ in 0..100 {
        black_box(Box::new([7u8; 333]));
    }
    // Capacity 8 on the first push, then doubled to 16, 32, 64 and 128.
    let mut s = String::new();
    for _ in 0..100 {
        s.push('x');
    }
    drop(black_box(s));
    let threads: Vec<_> = (0..4)
        .map(|_| {
            std::thread::spawn(|| {
                for _ in 0..250 {
                    black_box(Box::new([0u8; 777]));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }

    let p = GLOBAL.recorder().program("tests/global.rs");
    // What std allocated before main is recorded too; the loop is exact.
    assert!(
        p.text
            .contains("repeat 100 {\n  b333_1 = alloc 333\n  free b333_1\n}\n"),
        "{}",
        p.text
    );
    let lines: Vec<&str> = p.text.lines().collect();
    let growth = lines.windows(6).any(|w| {
        w[0].ends_with(" = alloc 8")
            && w[1].starts_with("b16_")
            && w[1].ends_with(" 16")
            && w[2].starts_with("b32_")
            && w[2].ends_with(" 32")
            && w[3].starts_with("b64_")
            && w[3].ends_with(" 64")
            && w[4].starts_with("b128_")
            && w[4].contains(" = realloc b64_")
            && w[4].ends_with(" 128")
            && w[5].starts_with("free b128_")
    });
    assert!(
        growth,
        "no alloc 8 then reallocs to 128 then free:\n{}",
        p.text
    );
    assert_eq!((p.unknown_frees, p.missed_frees), (0, 0), "{}", p.text);
    assert_eq!(header_ops(&p.text), p.ops);
    assert_eq!(allocs_of(&p.text, 777), 1000);
    replays_everywhere(&p.text, p.ops);
    println!("global: {}", p.summary());
}
