//! The real C++ and Zig allocators as harness programs: built here with the
//! installed tools (g++ against the installed LLVM and libstdc++ headers and
//! libraries; the Zig compiler from PyPI's `ziglang` wheel), then run once
//! per test and fed programs on stdin (the protocol is in
//! tests/native/sim_heap.hpp and tests/native/sim_heap.zig).
//!
//! `scripts/setup.mjs` installs the tools (`npm test` runs it first). A
//! missing tool is a test FAILURE that says how to install it, never a skip:
//! a differential test that did not run must not look like one that passed.

#![allow(dead_code)]

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use super::arena_diff::{block_at, bump_at, ChunkAt, ChunkSeen, Seen, Step};

/// The crate's directory (where `tests/native/` is).
fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Where built harnesses are kept between runs.
fn build_dir() -> PathBuf {
    let d = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("native-harness");
    std::fs::create_dir_all(&d).expect("the harness build folder");
    d
}

const SETUP: &str = "run `node scripts/setup.mjs` (npm test runs it first), which installs it";

/// Runs `cmd --version`-like probes: the first line of stdout, or `None`.
fn first_line(cmd: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new(cmd).args(args).output().ok()?;
    if !out.status.success() {
        return None;
    }
    Some(
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_string(),
    )
}

/// The C++ compiler: `$CXX` or `g++`.
pub fn cxx() -> (PathBuf, String) {
    let cxx = PathBuf::from(std::env::var("CXX").unwrap_or_else(|_| "g++".into()));
    let version = first_line(&cxx, &["--version"]).unwrap_or_else(|| {
        panic!(
            "{} was not found: the LLVM and libstdc++ differential tests build a small C++ \
             program with it against the installed headers; {SETUP} (Debian's g++)",
            cxx.display()
        )
    });
    (cxx, version)
}

/// `llvm-config` of the installed LLVM development package.
pub fn llvm_config() -> (PathBuf, String) {
    for cand in ["llvm-config", "/usr/lib/llvm-14/bin/llvm-config"] {
        let p = PathBuf::from(cand);
        if let Some(v) = first_line(&p, &["--version"]) {
            return (p, v);
        }
    }
    panic!(
        "llvm-config was not found: the llvm-bump-ptr differential test builds against LLVM's \
         installed llvm/Support/Allocator.h and libLLVM; {SETUP} (Debian's llvm-dev)"
    )
}

/// The pinned `ziglang` version, read from scripts/versions.mjs (one spelling).
pub fn ziglang_version() -> String {
    let path = manifest_dir().join("../../scripts/versions.mjs");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let line = text
        .lines()
        .find(|l| l.contains("export const ZIGLANG"))
        .expect("scripts/versions.mjs pins ZIGLANG");
    line.split('"')
        .nth(1)
        .expect("ZIGLANG = \"x.y.z\"")
        .to_string()
}

/// The Zig compiler from the `ziglang` wheel: `$BUMPLAB_ZIG`, or where
/// scripts/setup.mjs unpacks it (~/.cache/bump-lab/ziglang-<version>).
pub fn zig() -> (PathBuf, String) {
    let want = ziglang_version();
    let path = match std::env::var("BUMPLAB_ZIG") {
        Ok(p) => PathBuf::from(p),
        Err(_) => {
            let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
            PathBuf::from(home)
                .join(".cache/bump-lab")
                .join(format!("ziglang-{want}"))
                .join("ziglang/zig")
        }
    };
    let version = first_line(&path, &["version"]).unwrap_or_else(|| {
        panic!(
            "the Zig compiler was not found at {}: the Zig differential tests build a small Zig \
             program against its standard library; {SETUP} (PyPI's ziglang {want})",
            path.display()
        )
    });
    assert_eq!(
        version,
        want,
        "{} is Zig {version}, the models follow {want}; {SETUP}",
        path.display()
    );
    (path, version)
}

/// Builds (once for these inputs) and returns the harness binary `name`:
/// `build` gets the output path and must produce it.
fn cached(name: &str, inputs: &[PathBuf], salt: &[String], build: impl FnOnce(&Path)) -> PathBuf {
    let mut h = DefaultHasher::new();
    for i in inputs {
        std::fs::read(i)
            .unwrap_or_else(|e| panic!("{}: {e}", i.display()))
            .hash(&mut h);
    }
    salt.hash(&mut h);
    let bin = build_dir().join(format!("{name}-{:016x}", h.finish()));
    if !bin.exists() {
        let tmp = bin.with_extension("building");
        build(&tmp);
        std::fs::rename(&tmp, &bin).expect("move the built harness into place");
    }
    bin
}

fn native_file(name: &str) -> PathBuf {
    manifest_dir().join("tests/native").join(name)
}

fn check(cmd: &mut Command, what: &str) {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: could not start: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Builds a C++ harness from tests/native/<source> with `flags` (before)
/// and `libs` (after the source).
pub fn build_cxx(name: &str, source: &str, flags: &[String], libs: &[String]) -> PathBuf {
    let (cxx, version) = cxx();
    let inputs = [native_file(source), native_file("sim_heap.hpp")];
    let mut salt = vec![version];
    salt.extend(flags.iter().cloned());
    salt.extend(libs.iter().cloned());
    cached(name, &inputs, &salt, |out| {
        let mut cmd = Command::new(&cxx);
        cmd.args(flags)
            .args(["-O2", "-fno-delete-null-pointer-checks", "-I"])
            .arg(native_file(""))
            .arg(native_file(source))
            .arg("-o")
            .arg(out)
            .args(libs);
        check(
            &mut cmd,
            &format!("building the {name} harness with {}", cxx.display()),
        );
    })
}

/// Builds a Zig harness from tests/native/<source> (with sim_heap.zig).
pub fn build_zig(name: &str, source: &str) -> PathBuf {
    let (zig, version) = zig();
    let inputs = [native_file(source), native_file("sim_heap.zig")];
    cached(name, &inputs, &[version], |out| {
        let cache = build_dir().join("zig-cache");
        let mut cmd = Command::new(&zig);
        cmd.arg("build-exe")
            .arg(native_file(source))
            .args(["-O", "ReleaseSafe"])
            .arg(format!("-femit-bin={}", out.display()))
            .env("ZIG_GLOBAL_CACHE_DIR", &cache)
            .env("ZIG_LOCAL_CACHE_DIR", &cache);
        check(
            &mut cmd,
            &format!("building the {name} harness with {}", zig.display()),
        );
    })
}

/// What the harness said about one op, in simulated addresses.
#[derive(Clone, Debug)]
pub struct RawOp {
    pub address: Option<u64>,
    pub moved: Option<bool>,
    pub failed: bool,
    pub bump: Option<u64>,
    pub chunks: Vec<ChunkAt>,
}

/// A running harness.
pub struct Harness {
    name: String,
    /// A word the program line carries after the capacity, for harnesses
    /// that run more than one allocator.
    mode: String,
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl Harness {
    pub fn spawn(name: &str, bin: &Path) -> Harness {
        let mut child = Command::new(bin)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("starting {}: {e}", bin.display()));
        let stdin = child.stdin.take().expect("piped");
        let stdout = BufReader::new(child.stdout.take().expect("piped"));
        Harness {
            name: name.to_string(),
            mode: String::new(),
            child,
            stdin,
            stdout,
        }
    }

    /// The same harness, told which of its allocators to run.
    pub fn with_mode(mut self, mode: &str) -> Harness {
        self.mode = mode.to_string();
        self
    }

    /// Runs one program and reads what each op left behind.
    pub fn run(&mut self, capacity: Option<u64>, steps: &[Step]) -> Result<Vec<RawOp>, String> {
        // Block names as numbers, in order of first appearance.
        let mut ids: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        let mut id = |name: &str| {
            let n = ids.len();
            *ids.entry(name.to_string()).or_insert(n)
        };
        let cap = capacity.map_or("-".to_string(), |c| c.to_string());
        let mut msg = format!("program {cap} {}\n", self.mode);
        for st in steps {
            let line = match st {
                Step::Alloc { name, size, align } => format!("a {} {size} {align}", id(name)),
                Step::Realloc { name, from, size } => {
                    let from = id(from);
                    format!("r {} {from} {size}", id(name))
                }
                Step::Free { name } => format!("f {}", id(name)),
                Step::Reset => "x".to_string(),
                Step::Checkpoint { slot } => format!("c {slot}"),
                Step::Restore { slot } => format!("s {slot}"),
            };
            msg.push_str(&line);
            msg.push('\n');
        }
        msg.push_str("end\n");
        self.stdin
            .write_all(msg.as_bytes())
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("{}: writing the program: {e}", self.name))?;
        let mut ops = Vec::new();
        loop {
            let mut line = String::new();
            let n = self
                .stdout
                .read_line(&mut line)
                .map_err(|e| format!("{}: reading: {e}", self.name))?;
            if n == 0 {
                return Err(format!("{}: the harness stopped (crashed?)", self.name));
            }
            let line = line.trim();
            if line == "done" {
                break;
            }
            if line.starts_with("error") {
                return Err(format!("{}: {line}", self.name));
            }
            ops.push(parse_op(line).map_err(|e| format!("{}: {e}: {line}", self.name))?);
        }
        Ok(ops)
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn parse_op(line: &str) -> Result<RawOp, String> {
    let mut w = line.split_whitespace();
    let mut next = || w.next().ok_or_else(|| "short line".to_string());
    let opt = |s: &str| -> Result<Option<u64>, String> {
        if s == "-" {
            Ok(None)
        } else {
            s.parse().map(Some).map_err(|e| format!("{s}: {e}"))
        }
    };
    let address = opt(next()?)?;
    let moved = opt(next()?)?.map(|m| m == 1);
    let failed = next()? == "1";
    let bump = opt(next()?)?;
    let n: usize = next()?.parse().map_err(|e| format!("{e}"))?;
    let mut chunks = Vec::new();
    for _ in 0..n {
        let mut num = || -> Result<u64, String> { next()?.parse().map_err(|e| format!("{e}")) };
        let (id, _base, size, capacity, start) = (num()?, num()?, num()?, num()?, num()?);
        chunks.push(ChunkAt {
            seen: ChunkSeen {
                id: id as u32,
                size,
                capacity,
            },
            start,
        });
    }
    Ok(RawOp {
        address,
        moved,
        failed,
        bump,
        chunks,
    })
}

/// The harness's answer read like a trace: each block found in its chunk
/// by address and size.
pub fn seen(raw: &[RawOp], steps: &[Step]) -> Vec<Seen> {
    raw.iter()
        .zip(steps)
        .map(|(r, st)| {
            let size = match st {
                Step::Alloc { size, .. } | Step::Realloc { size, .. } => *size,
                _ => 0,
            };
            Seen {
                block: r.address.map(|a| block_at(&r.chunks, a, size)),
                moved: r.moved,
                failed: r.failed,
                chunks: r.chunks.iter().map(|c| c.seen).collect(),
                bump: r.bump.and_then(|b| bump_at(&r.chunks, b)),
            }
        })
        .collect()
}

/// Zig's zero-sized pointers as the trace shows them: each must be Zig's own
/// value, `maxInt(usize)` rounded down to the block's alignment (checked
/// here), and the trace shows it at the alignment (see
/// `bumplab_core::models::zig_arena::dangling`), so it is replaced by that.
pub fn zig_dangling_as_shown(raw: &mut [RawOp], steps: &[Step]) -> Result<(), String> {
    let mut aligns: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    for (i, (r, st)) in raw.iter_mut().zip(steps).enumerate() {
        let (size, align) = match st {
            Step::Alloc { name, size, align } => {
                aligns.insert(name, *align);
                (*size, *align)
            }
            Step::Realloc { name, from, size } => {
                let align = aligns.get(from.as_str()).copied().unwrap_or(1);
                aligns.insert(name, align);
                (*size, align)
            }
            _ => continue,
        };
        let Some(addr) = r.address else { continue };
        let inside = r
            .chunks
            .iter()
            .any(|c| c.start <= addr && addr <= c.start + c.seen.capacity);
        if size > 0 || inside {
            continue;
        }
        let zig = bumplab_core::models::zig_arena::zig_dangling(align);
        if addr != zig {
            return Err(format!(
                "op {i}: Zig's zero-sized pointer is {addr:#x}, not maxInt(usize) rounded down to {align} ({zig:#x})"
            ));
        }
        r.address = Some(align);
    }
    Ok(())
}
