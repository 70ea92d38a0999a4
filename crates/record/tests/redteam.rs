//! `bumplab-record run` as a heavy user and an attacker use it: an `--out`
//! that cannot be written, programs that leave by exec, `_exit` or `abort`,
//! one that loads no shim, an executable whose path holds a newline, an op
//! limit past the playground's. Each case is one that broke; the test holds
//! what the recorder does now.
//!
//! Needs `cc` and `c++` (or $CC and $CXX), as tests/shim.rs does.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use bumplab_record::program::{self, Options};
use bumplab_record::{Call, PLAYGROUND_MAX_OPS};
use common::{calls_program, header_ops, library, replays_everywhere, tmp};

fn fresh(name: &str) -> PathBuf {
    let dir = tmp().join(format!("redteam-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `bumplab-record run --shim SHIM --out OUT [extra] -- command...`.
fn record(out: &Path, extra: &[&str], command: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_bumplab-record"))
        .args(["run", "--shim"])
        .arg(library())
        .arg("--out")
        .arg(out)
        .args(extra)
        .arg("--")
        .args(command)
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// The folder a message names after "The logs are kept in ".
fn kept_logs(stderr: &str) -> PathBuf {
    let at = stderr
        .find("The logs are kept in ")
        .unwrap_or_else(|| panic!("no folder named:\n{stderr}"));
    PathBuf::from(
        stderr[at + "The logs are kept in ".len()..]
            .lines()
            .next()
            .unwrap(),
    )
}

#[test]
fn an_out_file_that_cannot_be_written_is_refused_before_the_command_runs() {
    let dir = fresh("out");
    let marker = dir.join("ran");
    let out = record(
        &dir.join("missing-folder").join("p.txt"),
        &[],
        &[
            "sh".as_ref(),
            "-c".as_ref(),
            "touch \"$0\"".as_ref(),
            marker.as_os_str(),
        ],
    );
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "bumplab-record: cannot write {}: No such file or directory (os error 2) (checked before running the command)\n",
            dir.join("missing-folder").join("p.txt").display()
        )
    );
    assert!(
        !marker.exists(),
        "the command ran although its recording could not be written"
    );
    // A folder is not a file to write.
    let out = record(&dir, &[], &["true".as_ref()]);
    assert_eq!(
        text(&out.stderr),
        format!(
            "bumplab-record: cannot write {}: it is a folder (--out names the file to write)\n",
            dir.display()
        )
    );
}

#[test]
fn a_program_that_execs_after_7500_calls_is_recorded_not_the_program_it_became() {
    let dir = fresh("exec");
    let file = dir.join("p.txt");
    let out = record(&file, &[], &[calls_program().as_os_str(), "exec".as_ref()]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let program = std::fs::read_to_string(&file).unwrap();
    // Every one of its 7,500 calls: the shim writes its buffer before the exec.
    assert!(
        program.contains("repeat 3750 {\n  b40_1 = alloc 40 align 16\n  free b40_1\n}\n"),
        "{program}"
    );
    assert!(header_ops(&program) >= 7_500, "{program}");
    assert!(
        program.contains(&format!("# Process: {} (pid ", calls_program().display())),
        "{program}"
    );
    assert!(
        program.contains(
            "# The process then exec'd /bin/true: the calls after that are another program's.\n"
        ),
        "{program}"
    );
    let ran = program
        .lines()
        .find(|l| l.contains(" ran 2 programs, one after another (exec): "))
        .unwrap_or_else(|| panic!("no line about the exec:\n{program}"));
    assert!(
        ran.ends_with("; this is the one that made the most calls."),
        "{ran}"
    );
    replays_everywhere(&program, header_ops(&program));
}

#[test]
fn sh_c_ls_pipe_wc_is_recorded_though_sh_leaves_by_exit_underscore() {
    let dir = fresh("sh");
    let file = dir.join("p.txt");
    let out = record(
        &file,
        &[],
        &["sh".as_ref(), "-c".as_ref(), "ls / | wc -l".as_ref()],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let program = std::fs::read_to_string(&file).unwrap();
    // The shell itself, the command's own process: dash leaves by _exit, and
    // its log is whole all the same.
    let process = program
        .lines()
        .find(|l| l.starts_with("# Process: "))
        .unwrap();
    assert!(
        process.starts_with("# Process: /usr/bin/dash (pid ")
            || process.starts_with("# Process: /bin/dash (pid "),
        "{program}"
    );
    assert!(!program.contains("no end mark"), "{program}");
    // sh, and the two children it forked, each of which exec'd.
    assert!(
        program.contains("# 3 processes were logged; this is the one the command started as.\n"),
        "{program}"
    );
    replays_everywhere(&program, header_ops(&program));
}

#[test]
fn a_process_that_aborts_or_leaves_by_exit_underscore_keeps_every_call() {
    for mode in ["abort", "_exit"] {
        let dir = fresh(mode);
        let file = dir.join("p.txt");
        let out = record(&file, &[], &[calls_program().as_os_str(), mode.as_ref()]);
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{stderr}");
        let program = std::fs::read_to_string(&file).unwrap();
        // Its 200 calls, which were still in the shim's buffer when it left.
        assert!(
            program.contains("repeat 100 {\n  b40_1 = alloc 40 align 16\n  free b40_1\n}\n"),
            "{mode}: {program}"
        );
        assert!(!program.contains("no end mark"), "{mode}: {program}");
        if mode == "abort" {
            assert!(
                stderr.starts_with("bumplab-record: the command exited with signal: 6 (SIGABRT)"),
                "{stderr}"
            );
            assert!(
                program.contains("# The process ended in abort().\n"),
                "{program}"
            );
        } else {
            assert!(!stderr.contains("the command exited with"), "{stderr}");
        }
    }
}

#[test]
fn a_process_that_loads_no_shim_is_named_with_why_and_where_the_logs_are() {
    // A statically linked program ignores LD_PRELOAD: it runs, and nothing of it is logged.
    let dir = fresh("static");
    let src = dir.join("static.c");
    std::fs::write(&src, "int main(void) { return 3; }\n").unwrap();
    let exe = dir.join("static");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".to_string());
    let built = Command::new(&cc)
        .args(["-static", "-o"])
        .arg(&exe)
        .arg(&src)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{cc} -static: {}",
        text(&built.stderr)
    );
    let file = dir.join("p.txt");
    let out = record(&file, &[], &[exe.as_os_str()]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let logs = kept_logs(&stderr);
    assert!(logs.is_dir(), "{stderr}");
    let pid = stderr
        .split("the command's process (pid ")
        .nth(1)
        .and_then(|s| s.split(')').next())
        .unwrap_or_else(|| panic!("{stderr}"));
    assert_eq!(
        stderr,
        format!(
            "bumplab-record: the command exited with exit status: 3; writing what it recorded\n\
             bumplab-record: the command's process (pid {pid}) left no log: it exited with status 3 without loading the shim: a statically linked or setuid program, or one started with LD_PRELOAD cleared, is not recorded. No process left a log.\n\
             The logs are kept in {}\n",
            logs.display()
        )
    );
    // Nothing half-written is left where --out pointed.
    assert!(!file.exists());
    let _ = std::fs::remove_dir_all(logs);
}

#[test]
fn an_executable_whose_path_holds_a_newline_is_recorded() {
    let dir = fresh("newline");
    let odd = dir.join("two\nlines %0a é");
    std::fs::create_dir_all(&odd).unwrap();
    let exe = odd.join("calls");
    std::fs::copy(calls_program(), &exe).unwrap();
    let file = dir.join("p.txt");
    // Its default run, which exits as most programs do.
    let out = record(&file, &[], &[exe.as_os_str()]);
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let program = std::fs::read_to_string(&file).unwrap();
    // The header is a comment: the newline in the path is shown as a space, and the rest as it is.
    assert!(
        program.contains(&format!(
            "# Process: {}/two lines %0a é/calls (pid ",
            dir.display()
        )),
        "{program}"
    );
    assert!(
        program.contains("repeat 50 {\n  b48_1 = alloc 48 align 16\n  free b48_1\n}\n"),
        "{program}"
    );
}

#[test]
fn an_op_limit_past_the_playgrounds_is_warned_about_before_the_run() {
    assert_eq!(PLAYGROUND_MAX_OPS, bumplab_core::engine::MAX_EXECUTED_OPS);
    let dir = fresh("max-ops");
    let out = record(
        &dir.join("p.txt"),
        &["--max-ops", "2000000"],
        &["true".as_ref()],
    );
    let stderr = text(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.starts_with("bumplab-record: warning: --max-ops 2000000 is above the 1500000 ops the playground runs: a recording longer than that will not open there\n"),
        "{stderr}"
    );
    let out = record(
        &dir.join("p.txt"),
        &["--max-ops", "1500000"],
        &["true".as_ref()],
    );
    assert!(
        !text(&out.stderr).contains("warning"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn a_realloc_gets_what_malloc_guarantees_for_its_new_size() {
    // malloc(4), then realloc(p, 100): glibc hands out 16-aligned blocks of
    // 100 bytes, and the program must ask for as much, or its padding is undercounted.
    let p = program::write(
        &[
            Call::Alloc {
                addr: 0x100,
                size: 4,
                align: 0,
            },
            Call::Realloc {
                old: 0x100,
                new: 0x200,
                size: 100,
                align: 0,
            },
            Call::Realloc {
                old: 0x200,
                new: 0x200,
                size: 8,
                align: 0,
            },
            Call::Free { addr: 0x200 },
        ],
        &Options::default(),
    );
    let body: Vec<&str> = p
        .text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    // Growing past what its alignment covers is a new block; shrinking keeps the block's 16.
    assert_eq!(
        body,
        [
            "b4_1 = alloc 4 align 4",
            "b100_1 = alloc 100 align 16",
            "free b4_1",
            "b8_1 = realloc b100_1 8",
            "free b8_1"
        ]
    );
}
