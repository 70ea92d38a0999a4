//! Replays a recorded program on the engine the playground and the CLI run.
#![allow(dead_code)] // each test file uses a part

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use bumplab_core::engine::MAX_CAPACITY;
use bumplab_core::presets::PresetId;
use bumplab_core::run::Run;
use bumplab_core::{Options, Target};

/// What a replay did.
#[derive(Debug, PartialEq, Eq)]
pub struct Replay {
    pub ops: u64,
    pub chunks: usize,
}

/// Runs `text` on `preset` (64-bit) to its end. The one-chunk presets get
/// the largest capacity a user may choose, so a program's blocks fit in it:
/// at their 256-byte default, any real recording runs out of room.
pub fn replay(text: &str, preset: PresetId) -> Result<Replay, String> {
    let fixed = matches!(
        preset,
        PresetId::FitzgenDown
            | PresetId::HinckleyUpNaive
            | PresetId::HinckleyUp
            | PresetId::UpMinAlign
            | PresetId::DownMinAlign
            | PresetId::BumperAllocBuffer
            | PresetId::ZigFixedBuffer
    );
    // LLVM's slabs stay 4 KiB for 128 slabs at a time: a recording that
    // holds megabytes keeps over a thousand slabs live, more than the engine
    // simulates (it refuses, asking for larger slabs), so these replays use
    // 16 MiB ones.
    let capacity = match preset {
        PresetId::LlvmBumpPtr => Some(16 << 20),
        _ => fixed.then_some(MAX_CAPACITY),
    };
    let opts = Options {
        target: Target::W64,
        capacity,
        min_align: None,
        child: None,
    };
    let mut run = Run::new(text, preset, &opts).map_err(|e| format!("{}: {e}", preset.name()))?;
    while !run
        .advance(u32::MAX)
        .map_err(|e| format!("{}: {e}", preset.name()))?
    {}
    Ok(Replay {
        ops: u64::from(run.executed()),
        chunks: run.chunks().len(),
    })
}

/// Replays `text` on every preset and checks each ran exactly `ops` ops.
pub fn replays_everywhere(text: &str, ops: u64) {
    for preset in PresetId::ALL {
        let r = replay(text, preset).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(r.ops, ops, "{} ran {} ops of {ops}", preset.name(), r.ops);
    }
}

/// The op count a program's header states ("# N ops (repeats expanded): ...").
pub fn header_ops(text: &str) -> u64 {
    text.lines()
        .find_map(|l| l.strip_prefix("# ")?.split_once(" ops (repeats expanded)"))
        .and_then(|(n, _)| n.parse().ok())
        .unwrap_or_else(|| {
            panic!(
                "no op count in the header:\n{}",
                &text[..text.len().min(600)]
            )
        })
}

/// A folder of this test target's own under cargo's temporary folder.
pub fn tmp() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("bumplab-record")
}

/// The shim, built once for all the tests of one binary, with warnings as errors.
pub fn library() -> &'static Path {
    static LIB: OnceLock<PathBuf> = OnceLock::new();
    LIB.get_or_init(|| {
        let dir = tmp().join(format!("shim-{}", std::process::id()));
        bumplab_record::shim::build(&dir, &["-Werror"]).unwrap_or_else(|e| panic!("{e}"))
    })
}

/// tests/fixtures/calls.cpp, built once per test binary.
pub fn calls_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let cxx = std::env::var("CXX").unwrap_or_else(|_| "c++".to_string());
        let dir = tmp().join(format!("calls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("calls");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/calls.cpp");
        let out = Command::new(&cxx)
            .args(["-O0", "-pthread", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C++ compiler '{cxx}' ({e}): install one (Debian: apt-get install g++) or set CXX"));
        assert!(out.status.success(), "{cxx} failed:\n{}", String::from_utf8_lossy(&out.stderr));
        exe
    })
}

/// tests/fixtures/every_call.c, built once per test binary with the C
/// compiler ($CC, else cc).
pub fn c_program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
        let dir = tmp().join(format!("every-call-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("every_call");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/every_call.c");
        let out = Command::new(&cc)
            .args(["-O0", "-Wall", "-Werror", "-pthread", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler '{cc}' ({e}): install one (Debian: apt-get install gcc) or set CC"));
        assert!(out.status.success(), "{cc} failed:\n{}", String::from_utf8_lossy(&out.stderr));
        exe
    })
}
