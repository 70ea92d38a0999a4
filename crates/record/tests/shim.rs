//! The C shim, compiled from source with the machine's C compiler, preloaded
//! into real dynamically linked programs: a C++ program that makes every
//! hooked call, and `sort` from coreutils sorting this repository's
//! Cargo.lock. Each recording must replay on the engine with exactly the op
//! count the recorder wrote.
//!
//! Needs `cc` and `c++` (or $CC and $CXX): without them these tests fail,
//! saying so, rather than pass having checked nothing.

mod common;

use std::path::Path;
use std::process::Command;

use bumplab_record::program::{self, Options};
use bumplab_record::shim_log::{self, ShimLog};
use bumplab_record::{shim, Call};
use common::{calls_program, header_ops, library, replays_everywhere, tmp};

/// Runs `exe args` with the shim preloaded, logging into a fresh directory
/// named `name`, and returns every process's log, in pid order.
fn record(name: &str, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> (Vec<ShimLog>, String) {
    let dir = tmp().join(format!("logs-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let out = Command::new(exe)
        .args(args)
        .env("LD_PRELOAD", library())
        .env("BUMPLAB_RECORD_DIR", &dir)
        .envs(env.iter().copied())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{} failed: {}",
        exe.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let mut logs: Vec<ShimLog> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| shim_log::parse(&std::fs::read_to_string(e.unwrap().path()).unwrap()).unwrap())
        .collect();
    logs.sort_by_key(|l| l.pid);
    (logs, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The calls between the two marker blocks of calls.cpp.
fn between_marks(calls: &[Call]) -> &[Call] {
    let at = |size| {
        calls
            .iter()
            .position(|c| matches!(c, Call::Alloc { size: s, .. } if *s == size))
            .unwrap_or_else(|| panic!("no marker of {size} bytes"))
    };
    // Each marker is an alloc and its free.
    &calls[at(123457) + 2..at(123458)]
}

fn shim_options(log: &ShimLog) -> Options {
    Options {
        command: "calls".to_string(),
        recorder: "the LD_PRELOAD shim".to_string(),
        notes: log.notes(),
        hit_limit: log.limit.is_some(),
        ..Options::default()
    }
}

#[test]
fn every_hooked_call_is_logged_as_the_program_made_it() {
    let (logs, _) = record("calls", calls_program(), &[], &[]);
    let [log] = logs.as_slice() else {
        panic!("{} logs, expected 1", logs.len())
    };
    assert!(log.ended, "the log has no end mark");
    assert!(log.exe.ends_with("/calls"), "{}", log.exe);
    let calls = between_marks(&log.calls);
    // Addresses vary from run to run: compare the calls' shapes.
    let shape: Vec<String> = calls
        .iter()
        .map(|c| match *c {
            Call::Alloc { size, align, .. } => format!("a {size} {align}"),
            Call::Realloc { old, new, size, .. } => format!(
                "r{} {size}{}",
                if old == 0 { " null" } else { "" },
                if new == 0 { " -> null" } else { "" }
            ),
            Call::Free { .. } => "f".to_string(),
            Call::Reset => "reset".to_string(),
        })
        .collect();
    let mut expected: Vec<&str> = vec![
        "a 4 0",
        "f", // new int, delete
        "a 100 0",
        "f", // new char[100], delete[]
        "a 64 64",
        "f", // aligned new of a 64-aligned struct, delete
        "a 120 0",
        "r 500",
        "r 20",
        "f", // calloc, realloc up and down, free
        "r null 33",
        "r 0 -> null", // realloc(NULL, 33), realloc(n, 0)
        "a 1000 256",
        "f", // posix_memalign
        "a 64 32",
        "f", // aligned_alloc
        "a 13 0",
        "f", // strdup inside the C library, then free
    ];
    for _ in 0..50 {
        expected.extend(["a 48 0", "f"]);
    }
    assert_eq!(shape, expected);

    // The whole log as a program: every call of the run, the runtime's too.
    let p = program::write(&log.calls, &shim_options(log));
    assert_eq!(
        p.unknown_frees + p.unknown_reallocs + p.missed_frees + p.failed_reallocs,
        0,
        "{}",
        p.text
    );
    // Every logged call is one op, and the 50 marks are folded into a loop.
    assert_eq!(p.ops, log.calls.len() as u64);
    assert!(
        p.text
            .contains("repeat 50 {\n  b48_1 = alloc 48 align 16\n  free b48_1\n}\n"),
        "{}",
        p.text
    );
    assert_eq!(header_ops(&p.text), p.ops);
    replays_everywhere(&p.text, p.ops);
}

#[test]
fn threads_share_one_log_in_the_allocators_order() {
    let (logs, _) = record("threads", calls_program(), &["threads"], &[]);
    let [log] = logs.as_slice() else {
        panic!("{} logs, expected 1", logs.len())
    };
    let of_96 = log
        .calls
        .iter()
        .filter(|c| matches!(c, Call::Alloc { size: 96, .. }))
        .count();
    assert_eq!(of_96, 4 * 250);
    let p = program::write(&log.calls, &shim_options(log));
    // Interleaved threads, yet every free finds its block: the lock keeps a
    // free logged before its address can be handed out again.
    assert_eq!((p.unknown_frees, p.missed_frees), (0, 0), "{}", p.text);
    replays_everywhere(&p.text, p.ops);
}

#[test]
fn a_forked_child_logs_on_its_own_and_its_frees_of_the_parents_blocks_are_left_out() {
    let (logs, _) = record("fork", calls_program(), &["fork"], &[]);
    let [parent, child] = logs.as_slice() else {
        panic!("{} logs, expected 2", logs.len())
    };
    assert!(parent.ended && child.ended);
    let sizes = |l: &ShimLog| -> Vec<u64> {
        l.calls
            .iter()
            .filter_map(|c| {
                if let Call::Alloc { size, .. } = c {
                    Some(*size)
                } else {
                    None
                }
            })
            .collect()
    };
    assert!(sizes(parent).contains(&333) && !sizes(parent).contains(&222));
    // The child starts empty: what the parent allocated is not its to free.
    assert!(sizes(child).contains(&222) && !sizes(child).contains(&333));
    let p = program::write(&child.calls, &shim_options(child));
    assert!(p.unknown_frees >= 1, "{}", p.text);
    assert!(
        p.text
            .contains(" frees of blocks allocated before recording began (left out).\n"),
        "{}",
        p.text
    );
    replays_everywhere(&p.text, p.ops);
}

#[test]
fn the_op_limit_stops_the_log_with_a_message() {
    let (logs, stderr) = record(
        "limit",
        calls_program(),
        &[],
        &[("BUMPLAB_RECORD_MAX_OPS", "10")],
    );
    let [log] = logs.as_slice() else {
        panic!("{} logs, expected 1", logs.len())
    };
    assert_eq!((log.calls.len(), log.limit), (10, Some(10)));
    assert!(
        stderr.contains("bumplab-record: stopped recording ") && stderr.contains(" at its op limit of 10 calls (BUMPLAB_RECORD_MAX_OPS); the rest of the run goes unrecorded\n"),
        "{stderr}"
    );
    let p = program::write(&log.calls, &shim_options(log));
    assert!(p.cut_at_limit && p.ops <= 10);
    assert!(p.text.contains("# Cut at the op limit"), "{}", p.text);
}

/// `bumplab-record run` as a user runs it, on coreutils' `sort`.
fn run_sort(name: &str) -> (String, String) {
    let out_file = tmp().join(format!("{name}.txt"));
    let lock = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../Cargo.lock");
    let out = Command::new(env!("CARGO_BIN_EXE_bumplab-record"))
        .args(["run", "--shim"])
        .arg(library())
        .arg("--out")
        .arg(&out_file)
        .args(["--", "sort", "--parallel=1", "-o", "/dev/null"])
        .arg(lock.canonicalize().unwrap())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    (std::fs::read_to_string(out_file).unwrap(), stderr)
}

#[test]
fn sort_is_recorded_and_replays_with_the_same_op_count() {
    let (text, stderr) = run_sort("sort");
    let ops = header_ops(&text);
    assert!(
        text.contains("#   sort --parallel=1 -o /dev/null /"),
        "{text}"
    );
    assert!(
        text.contains("# Process: /usr/bin/sort (pid ")
            || text.contains("# Process: /bin/sort (pid "),
        "{text}"
    );
    assert!(
        stderr.starts_with(&format!("bumplab-record: {ops} ops (")),
        "{stderr}"
    );
    replays_everywhere(&text, ops);
    // Names depend on the calls, never on where ASLR put the heap: a second
    // run writes the same program, but for the process id.
    let (again, _) = run_sort("sort-again");
    let without_pid = |t: &str| {
        t.lines()
            .filter(|l| !l.starts_with("# Process:"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(without_pid(&text), without_pid(&again));
}

#[test]
fn a_missing_compiler_is_an_error_that_says_what_to_install() {
    let e = shim::build_with("/nonexistent/cc", &tmp().join("no-cc"), &[]).unwrap_err();
    assert!(
        e.starts_with("cannot run the C compiler '/nonexistent/cc' ("),
        "{e}"
    );
    assert!(
        e.ends_with("Install one (Debian: apt-get install gcc) or set CC"),
        "{e}"
    );
}
