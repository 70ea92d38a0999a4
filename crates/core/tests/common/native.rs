//! The real C++ and Zig allocators as harness programs: built here with the
//! installed tools (g++ against the installed LLVM and libstdc++ headers and
//! libraries; the Zig compiler from PyPI's `ziglang` wheel), then run once
//! per test and fed programs on stdin (the protocol is in
//! tests/native/sim_heap.hpp and tests/native/sim_heap.zig).
//!
//! Each runs on both targets the models simulate: 64-bit as built for this
//! machine, and 32-bit: Zig's code compiled for wasm32-wasi and run under
//! Node's node:wasi (scripts/wasi-run.mjs), the real code on the real
//! target; the C++ built with `g++ -m32` (Debian's g++-multilib), four-byte
//! pointers and size_t standing in for wasm32's, as no C++ toolchain for
//! wasm32 is installed here.
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

use bumplab_core::Target;

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

/// The `-m32` flag for a C++ harness built for `target`'s pointer width
/// (none for 64-bit, this machine's own).
pub fn cxx_target_flags(target: Target) -> Vec<String> {
    match target {
        Target::W64 => Vec::new(),
        Target::Wasm32 => vec!["-m32".to_string()],
    }
}

/// Builds a Zig harness from tests/native/<source> (with sim_heap.zig) for
/// `target`: this machine (64-bit), or wasm32-wasi (a .wasm module).
pub fn build_zig(name: &str, source: &str, target: Target) -> PathBuf {
    let (zig, version) = zig();
    let inputs = [native_file(source), native_file("sim_heap.zig")];
    let triple = match target {
        Target::W64 => None,
        Target::Wasm32 => Some("wasm32-wasi"),
    };
    let salt = [version, triple.unwrap_or("native").to_string()];
    let name = format!("{name}-{}", triple.unwrap_or("native"));
    cached(&name, &inputs, &salt, |out| {
        let cache = build_dir().join("zig-cache");
        let mut cmd = Command::new(&zig);
        cmd.arg("build-exe")
            .arg(native_file(source))
            .args(["-O", "ReleaseSafe"])
            .args(triple.iter().flat_map(|t| ["-target", t]))
            .arg(format!("-femit-bin={}", out.display()))
            .env("ZIG_GLOBAL_CACHE_DIR", &cache)
            .env("ZIG_LOCAL_CACHE_DIR", &cache);
        check(
            &mut cmd,
            &format!("building the {name} harness with {}", zig.display()),
        );
    })
}

/// Node, which runs the wasm32 harnesses: `$NODE` or `node`.
fn node() -> PathBuf {
    let node = PathBuf::from(std::env::var("NODE").unwrap_or_else(|_| "node".into()));
    if first_line(&node, &["--version"]).is_none() {
        panic!(
            "{} was not found: the wasm32 differential tests run the real allocators compiled \
             for wasm32-wasi under Node's node:wasi; {SETUP}",
            node.display()
        );
    }
    node
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

/// A suite's harnesses, one per target, each started on first use and then
/// shared by every test of the binary (a `static` at the suite).
pub struct PerTarget {
    w64: std::sync::OnceLock<std::sync::Mutex<Harness>>,
    wasm32: std::sync::OnceLock<std::sync::Mutex<Harness>>,
}

impl PerTarget {
    pub const fn new() -> Self {
        Self {
            w64: std::sync::OnceLock::new(),
            wasm32: std::sync::OnceLock::new(),
        }
    }

    /// The harness for `target`, started by `start` the first time.
    pub fn get(
        &'static self,
        target: Target,
        start: impl FnOnce() -> Harness,
    ) -> &'static std::sync::Mutex<Harness> {
        let cell = match target {
            Target::W64 => &self.w64,
            Target::Wasm32 => &self.wasm32,
        };
        cell.get_or_init(|| std::sync::Mutex::new(start()))
    }
}

/// A running harness. One that crashed (a panic in the real allocator, an
/// error the harness reported) is started again for the next program.
pub struct Harness {
    name: String,
    /// A word the program line carries after the capacity, for harnesses
    /// that run more than one allocator.
    mode: String,
    /// How to start it again.
    program: PathBuf,
    args: Vec<std::ffi::OsString>,
    running: Option<Running>,
}

struct Running {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    /// What it wrote on stderr (a panic's message), read by a thread.
    stderr: std::sync::Arc<std::sync::Mutex<String>>,
    reader: std::thread::JoinHandle<()>,
}

impl Harness {
    pub fn spawn(name: &str, bin: &Path) -> Harness {
        Self::spawn_command(name, bin.to_path_buf(), Vec::new())
    }

    /// A harness compiled for wasm32-wasi, run under Node's node:wasi with
    /// a fresh instance (a fresh linear memory) for each program.
    pub fn spawn_wasi(name: &str, wasm: &Path) -> Harness {
        let args = vec![
            // A fresh instance per program: collected as it goes.
            "--expose-gc".into(),
            // node:wasi's fast API calls can start a garbage collection
            // inside a call from wasm, which crashes Node now and then with
            // SIGSEGV (nodejs/node issue 46777, "Using fast calls for WASI
            // causes V8 coredump"): the slow calls have no such window.
            "--no-turbo-fast-api-calls".into(),
            manifest_dir().join("../../scripts/wasi-run.mjs").into(),
            "--instance-per-program".into(),
            wasm.into(),
        ];
        Self::spawn_command(name, node(), args)
    }

    /// The harness `bin` was built into for `target`: run directly, or
    /// under Node for wasm32.
    pub fn spawn_for(name: &str, bin: &Path, target: Target) -> Harness {
        match target {
            Target::W64 => Self::spawn(name, bin),
            Target::Wasm32 if bin.to_string_lossy().contains("wasm32-wasi") => {
                Self::spawn_wasi(name, bin)
            }
            // A C++ harness built with -m32 runs here.
            Target::Wasm32 => Self::spawn(name, bin),
        }
    }

    fn spawn_command(name: &str, program: PathBuf, args: Vec<std::ffi::OsString>) -> Harness {
        let mut h = Harness {
            name: name.to_string(),
            mode: String::new(),
            program,
            args,
            running: None,
        };
        h.start();
        h
    }

    fn start(&mut self) -> &mut Running {
        let name = &self.name;
        self.running.get_or_insert_with(|| {
            let mut child = Command::new(&self.program)
                .args(&self.args)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("starting the {name} harness: {e}"));
            let stdin = child.stdin.take().expect("piped");
            let stdout = BufReader::new(child.stdout.take().expect("piped"));
            let mut err = child.stderr.take().expect("piped");
            let stderr = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
            let sink = stderr.clone();
            let reader = std::thread::spawn(move || {
                use std::io::Read;
                let mut buf = [0u8; 4096];
                while let Ok(n @ 1..) = err.read(&mut buf) {
                    let mut s = sink.lock().unwrap_or_else(|e| e.into_inner());
                    s.push_str(&String::from_utf8_lossy(&buf[..n]));
                    if s.len() > 64 * 1024 {
                        let mut cut = s.len() - 32 * 1024;
                        while !s.is_char_boundary(cut) {
                            cut += 1;
                        }
                        s.drain(..cut);
                    }
                }
            });
            Running {
                child,
                stdin,
                stdout,
                stderr,
                reader,
            }
        })
    }

    /// Stops a harness that failed, with what it said on stderr.
    fn stopped(&mut self, why: String) -> String {
        let Some(mut r) = self.running.take() else {
            return why;
        };
        // How it ended, if it did (a killed process or a crash says so).
        let ended = r.child.try_wait().ok().flatten();
        let _ = r.child.kill();
        let _ = r.child.wait();
        // The reader stops at the end of the pipe, with the last bytes read.
        let _ = r.reader.join();
        let err = r.stderr.lock().map(|s| s.clone()).unwrap_or_default();
        let why = match ended {
            Some(status) => format!("{why} ({status})"),
            None => why,
        };
        if err.trim().is_empty() {
            why
        } else {
            format!("{why}\n--- its stderr ---\n{}", err.trim_end())
        }
    }

    /// The same harness, told which of its allocators to run.
    pub fn with_mode(mut self, mode: &str) -> Harness {
        self.mode = mode.to_string();
        self
    }

    /// Tells the harness which of its allocators the next programs run.
    pub fn set_mode(&mut self, mode: &str) {
        self.mode = mode.to_string();
    }

    /// Runs one program and reads what each op left behind.
    pub fn run(&mut self, capacity: Option<u64>, steps: &[Step]) -> Result<Vec<RawOp>, String> {
        self.run_partly(capacity, steps).map_err(|(_, e)| e)
    }

    /// [`Harness::run`], keeping on failure what the ops before it left:
    /// a program that makes the real allocator panic is compared up to
    /// that op.
    pub fn run_partly(
        &mut self,
        capacity: Option<u64>,
        steps: &[Step],
    ) -> Result<Vec<RawOp>, (Vec<RawOp>, String)> {
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
        let name = self.name.clone();
        let r = self.start();
        if let Err(e) = r
            .stdin
            .write_all(msg.as_bytes())
            .and_then(|()| r.stdin.flush())
        {
            let why = format!("{name}: writing the program: {e}");
            return Err((Vec::new(), self.stopped(why)));
        }
        let mut ops = Vec::new();
        loop {
            let mut line = String::new();
            let r = self.start();
            let read = r.stdout.read_line(&mut line);
            let why = match read {
                Err(e) => format!("{name}: reading: {e}"),
                Ok(0) => format!("{name}: the harness stopped (crashed?)"),
                Ok(_) => {
                    let line = line.trim();
                    if line == "done" {
                        return Ok(ops);
                    }
                    if line.starts_with("error") {
                        format!("{name}: {line}")
                    } else {
                        match parse_op(line) {
                            Ok(op) => {
                                ops.push(op);
                                continue;
                            }
                            Err(e) => format!("{name}: {e}: {line}"),
                        }
                    }
                }
            };
            return Err((ops, self.stopped(why)));
        }
    }
}

impl Drop for Harness {
    fn drop(&mut self) {
        if let Some(mut r) = self.running.take() {
            let _ = r.child.kill();
            let _ = r.child.wait();
        }
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
                id,
                size,
                capacity,
                start,
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
pub fn zig_dangling_as_shown(
    raw: &mut [RawOp],
    steps: &[Step],
    target: Target,
) -> Result<(), String> {
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
        let zig = match target {
            Target::W64 => bumplab_core::models::zig_arena::zig_dangling(align),
            Target::Wasm32 => u64::from(bumplab_core::models::zig_arena::zig_dangling(
                u32::try_from(align).map_err(|_| format!("op {i}: alignment {align}"))?,
            )),
        };
        if addr != zig {
            return Err(format!(
                "op {i}: Zig's zero-sized pointer is {addr:#x}, not maxInt(usize) rounded down to {align} ({zig:#x})"
            ));
        }
        r.address = Some(align);
    }
    Ok(())
}
