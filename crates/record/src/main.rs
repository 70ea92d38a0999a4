//! `bumplab-record`: records a C or C++ program's allocations through the
//! LD_PRELOAD shim and writes them as a Bump Lab program.
//!
//!   bumplab-record run --out FILE [OPTIONS] -- COMMAND [ARGS...]
//!   bumplab-record convert [OPTIONS] LOG
//!   bumplab-record build-shim DIR
//!
//! Exit status: 0 on success, 1 when recording or converting failed, 2 for a
//! usage error.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};
use std::time::{SystemTime, UNIX_EPOCH};

use bumplab_record::program::{self, Options};
use bumplab_record::shim;
use bumplab_record::shim_log::{self, Left, ShimLog};
use bumplab_record::PLAYGROUND_MAX_OPS;

const USAGE: &str = "usage:
  bumplab-record run --out FILE [OPTIONS] -- COMMAND [ARGS...]
      run COMMAND with the shim preloaded and write its program to FILE
  bumplab-record convert [OPTIONS] LOG
      write the program of a shim log
  bumplab-record build-shim DIR
      compile the shim into DIR and print its path

options:
  --out FILE          write the program to FILE (convert: default standard output; run: required)
  --max-ops N         record at most N calls (default 1000000; the playground runs at most 1500000)
  --malloc-align N    the alignment malloc guarantees, the most a malloc-family block gets (default 16)
  --process NAME      run: record the process whose executable is called NAME (default: COMMAND's own)
  --shim FILE         run: preload this shim instead of building one
  --keep-logs DIR     run: leave the raw logs in DIR (default: a temporary folder, removed
                      after a recording that worked, kept and named after one that did not)
  --command TEXT      convert: what ran, for the program's header";

fn fail(message: &str, code: i32) -> ! {
    eprintln!("bumplab-record: {message}");
    exit(code)
}

#[derive(Default)]
struct Args {
    out: Option<PathBuf>,
    max_ops: Option<u64>,
    malloc_align: Option<u64>,
    process: Option<String>,
    shim: Option<PathBuf>,
    keep_logs: Option<PathBuf>,
    command: Option<String>,
    rest: Vec<OsString>,
}

fn parse_args(argv: Vec<OsString>) -> Args {
    let mut a = Args::default();
    let mut it = argv.into_iter();
    while let Some(arg) = it.next() {
        let s = arg.to_string_lossy().into_owned();
        let mut value = || {
            it.next()
                .unwrap_or_else(|| fail(&format!("{s} needs a value\n{USAGE}"), 2))
        };
        let number = |v: OsString| -> u64 {
            v.to_str()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| fail(&format!("{s} takes a whole number, not {v:?}"), 2))
        };
        match s.as_str() {
            "--out" => a.out = Some(value().into()),
            "--max-ops" => {
                let n = number(value());
                if n > PLAYGROUND_MAX_OPS {
                    eprintln!(
                        "bumplab-record: warning: --max-ops {n} is above the {PLAYGROUND_MAX_OPS} ops the playground runs: a recording longer than that will not open there"
                    );
                }
                a.max_ops = Some(n);
            }
            "--malloc-align" => {
                let n = number(value());
                if !n.is_power_of_two() || n > program::MAX_ALIGN {
                    fail(
                        &format!(
                            "--malloc-align takes a power of two up to {}, not {n}",
                            program::MAX_ALIGN
                        ),
                        2,
                    );
                }
                a.malloc_align = Some(n);
            }
            "--process" => a.process = Some(value().to_string_lossy().into_owned()),
            "--shim" => a.shim = Some(value().into()),
            "--keep-logs" => a.keep_logs = Some(value().into()),
            "--command" => a.command = Some(value().to_string_lossy().into_owned()),
            "--" => {
                a.rest.extend(it);
                break;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                exit(0)
            }
            _ if s.starts_with("--") => fail(&format!("unknown option {s}\n{USAGE}"), 2),
            _ => {
                a.rest.push(arg);
                a.rest.extend(it);
                break;
            }
        }
    }
    a
}

/// `arg` as a shell would need it typed, for the program's header.
fn shell_word(arg: &str) -> String {
    let plain = !arg.is_empty()
        && arg
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "_./=:,+-@%".contains(c));
    if plain {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Where a built shim is kept between runs: one per version of its source.
fn shim_cache() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| Path::new(&h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    // FNV-1a of the source: a changed shim is built again.
    let hash = shim::SOURCE.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    base.join("bumplab-record").join(format!("{hash:016x}"))
}

fn shim_library(a: &Args) -> PathBuf {
    if let Some(s) = &a.shim {
        return s.clone();
    }
    let dir = shim_cache();
    let lib = dir.join(shim::LIBRARY);
    if lib.exists() {
        return lib;
    }
    // Built aside and renamed into place, so a run starting meanwhile never
    // preloads a half-written library.
    let aside = dir.join(format!("build-{}", std::process::id()));
    let built = shim::build(&aside, &[]).unwrap_or_else(|e| fail(&e, 1));
    std::fs::rename(&built, &lib).unwrap_or_else(|e| {
        fail(
            &format!("cannot move the shim to {}: {e}", lib.display()),
            1,
        )
    });
    let _ = std::fs::remove_dir_all(&aside);
    lib
}

fn options(a: &Args, command: String, log: &ShimLog, notes: Vec<String>) -> Options {
    let defaults = Options::default();
    Options {
        command,
        recorder: "the LD_PRELOAD shim".to_string(),
        notes,
        max_ops: a.max_ops.unwrap_or(defaults.max_ops),
        hit_limit: log.limit.is_some(),
        malloc_align: a.malloc_align.unwrap_or(defaults.malloc_align),
    }
}

fn write_out(a: &Args, p: &program::Program) {
    match &a.out {
        Some(path) => std::fs::write(path, &p.text)
            .unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", path.display()), 1)),
        None => print!("{}", p.text),
    }
    let to = a
        .out
        .as_ref()
        .map_or("standard output".to_string(), |p| p.display().to_string());
    eprintln!("bumplab-record: {} to {to}", p.summary());
    if let Some(why) = p.too_large() {
        eprintln!("bumplab-record: {why} (--max-ops)");
    }
}

fn read_log(path: &Path) -> Result<ShimLog, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    shim_log::parse(&String::from_utf8_lossy(&bytes))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// The file `--out` names, checked before the command runs: a recording
/// that ran for an hour must not be lost to a folder that does not exist.
/// Opened for appending (so nothing in it is lost yet) and made if missing;
/// `made` says whether to remove it should the recording fail.
struct OutFile {
    path: PathBuf,
    made: bool,
}

impl OutFile {
    fn check(path: &Path) -> OutFile {
        if path.is_dir() {
            fail(
                &format!(
                    "cannot write {}: it is a folder (--out names the file to write)",
                    path.display()
                ),
                1,
            );
        }
        let made = !path.exists();
        std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap_or_else(|e| {
                fail(
                    &format!(
                        "cannot write {}: {e} (checked before running the command)",
                        path.display()
                    ),
                    1,
                )
            });
        OutFile {
            path: path.to_path_buf(),
            made,
        }
    }

    /// The recording failed: an empty file this run made is not left behind.
    fn abandon(&self) {
        if self.made {
            let _ = std::fs::remove_file(&self.path);
        }
    }
}

/// A log file's image number: 1 for bumplab-<pid>.log, n for
/// bumplab-<pid>-<n>.log (the n-th program the process ran, after n - 1
/// execs).
fn image_number(path: &Path) -> u32 {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let parts: Vec<&str> = stem.split('-').collect();
    match parts.as_slice() {
        [_, _, n] => n.parse().unwrap_or(1),
        _ => 1,
    }
}

/// Why the command's own process has no log, from how it ended.
fn no_log_reason(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    let ended = match (status.code(), status.signal()) {
        (Some(code), _) => format!("it exited with status {code}"),
        (None, Some(sig)) => format!("it was killed by signal {sig}"),
        _ => format!("it ended with {status}"),
    };
    format!(
        "{ended} without loading the shim: a statically linked or setuid program, or one started with LD_PRELOAD cleared, is not recorded"
    )
}

fn run(a: Args) {
    if a.rest.is_empty() {
        fail(&format!("run needs a COMMAND after --\n{USAGE}"), 2);
    }
    let Some(out) = &a.out else {
        // Standard output is the command's own.
        fail(
            &format!("run needs --out FILE: the command writes to standard output\n{USAGE}"),
            2,
        )
    };
    let out = OutFile::check(out);
    let library = shim_library(&a);
    let logs = match &a.keep_logs {
        Some(d) => d.clone(),
        None => {
            let nanos = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            std::env::temp_dir().join(format!("bumplab-record-{}-{nanos}", std::process::id()))
        }
    };
    std::fs::create_dir_all(&logs).unwrap_or_else(|e| {
        out.abandon();
        fail(&format!("cannot create {}: {e}", logs.display()), 1)
    });
    // Every failure from here on keeps the logs and says where they are.
    let failed = |message: String| -> ! {
        out.abandon();
        fail(
            &format!("{message}\nThe logs are kept in {}", logs.display()),
            1,
        )
    };
    let mut preload = OsString::from(library.canonicalize().unwrap_or(library));
    if let Some(old) = std::env::var_os("LD_PRELOAD").filter(|o| !o.is_empty()) {
        preload.push(":");
        preload.push(old);
    }
    let mut cmd = Command::new(&a.rest[0]);
    cmd.args(&a.rest[1..])
        .env("LD_PRELOAD", preload)
        .env("BUMPLAB_RECORD_DIR", &logs)
        .env(
            "BUMPLAB_RECORD_MAX_OPS",
            a.max_ops
                .unwrap_or(program::Options::default().max_ops)
                .to_string(),
        );
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| failed(format!("cannot run {:?}: {e}", a.rest[0])));
    let pid = child.id();
    let status = child
        .wait()
        .unwrap_or_else(|e| failed(format!("waiting for the command: {e}")));
    if !status.success() {
        eprintln!("bumplab-record: the command exited with {status}; writing what it recorded");
    }

    let entries = std::fs::read_dir(&logs)
        .unwrap_or_else(|e| failed(format!("cannot read {}: {e}", logs.display())));
    let mut found: Vec<(PathBuf, ShimLog)> = Vec::new();
    for path in entries
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
    {
        let log = read_log(&path).unwrap_or_else(|e| failed(e));
        found.push((path, log));
    }
    // By pid, then in the order the images of one pid ran: bumplab-<pid>.log,
    // then bumplab-<pid>-2.log after its first exec, ...
    found.sort_by_key(|(p, l)| (l.pid, image_number(p)));
    let listing = || {
        found
            .iter()
            .map(|(_, l)| {
                format!(
                    "  pid {} {} ({} calls, {})",
                    l.pid,
                    l.exe,
                    l.calls.len(),
                    l.how_it_left()
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    };
    let exe_name = |l: &ShimLog| {
        Path::new(&l.exe)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
    };
    let images: Vec<&ShimLog> = found
        .iter()
        .filter(|(_, l)| l.pid == pid)
        .map(|(_, l)| l)
        .collect();
    let chosen = match &a.process {
        Some(name) => found
            .iter()
            .map(|(_, l)| l)
            .filter(|l| exe_name(l).as_deref() == Some(name.as_str()))
            .max_by_key(|l| l.calls.len()),
        // The command's own process. If it exec'd, each program it became
        // has a log: the one that made the most calls is the one the command
        // was run for (`sh -c 'exec prog'` means prog; a program that ends
        // by exec'ing a small helper means itself). The first wins a tie.
        None => images.iter().copied().rev().max_by_key(|l| l.calls.len()),
    };
    let Some(log) = chosen else {
        let what = match &a.process {
            Some(name) => format!("no process called {name} was recorded"),
            None => format!(
                "the command's process (pid {pid}) left no log: {}",
                no_log_reason(status)
            ),
        };
        let seen = if found.is_empty() {
            "No process left a log.".to_string()
        } else {
            format!(
                "The logs it found, one per program each process ran:\n{}",
                listing()
            )
        };
        failed(format!("{what}. {seen}"))
    };
    let mut notes = log.notes();
    if images.len() > 1 && a.process.is_none() {
        let ran: Vec<String> = images
            .iter()
            .map(|l| format!("{} ({} calls)", l.exe, l.calls.len()))
            .collect();
        notes.push(format!(
            "pid {pid} ran {} programs, one after another (exec): {}; this is the one that made the most calls.",
            images.len(),
            ran.join(", ")
        ));
    }
    // An exec into a program that left no log: say so, it may be the one meant.
    if let Some(last) = images.last() {
        if let Some(Left::Exec(path)) = &last.left {
            eprintln!(
                "bumplab-record: warning: pid {pid} exec'd {path}, which left no log (a statically linked or setuid program, or LD_PRELOAD cleared): it is not recorded"
            );
        }
    }
    let processes = found
        .iter()
        .map(|(_, l)| l.pid)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    if processes > 1 {
        notes.push(format!(
            "{processes} processes were logged; this is the one {}.",
            if a.process.is_some() {
                "--process chose"
            } else {
                "the command started as"
            }
        ));
    }
    let command: Vec<String> = a
        .rest
        .iter()
        .map(|s| shell_word(&s.to_string_lossy()))
        .collect();
    let p = program::write(&log.calls, &options(&a, command.join(" "), log, notes));
    write_out(&a, &p);
    if a.keep_logs.is_none() {
        let _ = std::fs::remove_dir_all(&logs);
    } else if found.len() > 1 {
        eprintln!(
            "bumplab-record: logs kept in {}:\n{}",
            logs.display(),
            listing()
        );
    }
}

fn convert(a: Args) {
    let [log_path] = a.rest.as_slice() else {
        fail(&format!("convert needs exactly one LOG\n{USAGE}"), 2)
    };
    let log = read_log(Path::new(log_path)).unwrap_or_else(|e| fail(&e, 1));
    let command = a.command.clone().unwrap_or_else(|| log.exe.clone());
    let p = program::write(&log.calls, &options(&a, command, &log, log.notes()));
    write_out(&a, &p);
}

fn main() {
    let mut argv: Vec<OsString> = std::env::args_os().skip(1).collect();
    if argv.is_empty() {
        fail(USAGE, 2);
    }
    let command = argv.remove(0);
    match command.to_str() {
        Some("run") => run(parse_args(argv)),
        Some("convert") => convert(parse_args(argv)),
        Some("build-shim") => {
            let [dir] = argv.as_slice() else {
                fail(&format!("build-shim needs exactly one DIR\n{USAGE}"), 2)
            };
            match shim::build(Path::new(dir), &[]) {
                Ok(lib) => println!("{}", lib.display()),
                Err(e) => fail(&e, 1),
            }
        }
        Some("-h" | "--help") => println!("{USAGE}"),
        _ => fail(&format!("unknown command {command:?}\n{USAGE}"), 2),
    }
}
