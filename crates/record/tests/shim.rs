//! The C shim, compiled from source with the machine's C compiler, preloaded
//! into real dynamically linked programs: a C++ program that makes every
//! hooked call, and `sort` from coreutils sorting this repository's
//! Cargo.lock. Each recording must replay on the engine with exactly the op
//! count the recorder wrote.
//!
//! Needs `cc` and `c++` (or $CC and $CXX): without them these tests fail,
//! saying so, rather than pass having checked nothing.

mod common;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::process::Command;

use bumplab_record::program::{self, Options};
use bumplab_record::shim_log::{self, Left, ShimLog};
use bumplab_record::{shim, Call};
use common::{c_program, calls_program, header_ops, library, replays_everywhere, tmp};

/// Runs `exe args` with the shim preloaded, logging into a fresh directory
/// named `name`, and returns every process's log, in pid order.
fn record(name: &str, exe: &Path, args: &[&str], env: &[(&str, &str)]) -> (Vec<ShimLog>, String) {
    let (logs, stderr, _) = record_output(name, exe, args, env);
    (logs, stderr)
}

/// [`record`], with what the program printed; the logs of one pid in the
/// order its images ran (bumplab-<pid>.log, then bumplab-<pid>-2.log after
/// an exec, ...).
fn record_output(
    name: &str,
    exe: &Path,
    args: &[&str],
    env: &[(&str, &str)],
) -> (Vec<ShimLog>, String, String) {
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
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    // "bumplab-7.log" before "bumplab-7-2.log": by length, then by name.
    paths.sort_by_key(|p| (p.as_os_str().len(), p.clone()));
    let mut logs: Vec<ShimLog> = paths
        .iter()
        .map(|p| shim_log::parse(&std::fs::read_to_string(p).unwrap()).unwrap())
        .collect();
    // Stable: one pid's images keep their order.
    logs.sort_by_key(|l| l.pid);
    (
        logs,
        String::from_utf8_lossy(&out.stderr).into_owned(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
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

/// What every_call.c printed: each block's name and the address it got, and
/// its other results ("overflow null errno ENOMEM").
fn printed(stdout: &str) -> HashMap<String, String> {
    stdout
        .lines()
        .filter_map(|l| l.split_once(' '))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn every_hooked_call_from_c_is_logged_with_its_size_alignment_and_block() {
    let (logs, _, stdout) = record_output("every-call-c", c_program(), &[], &[]);
    let [log] = logs.as_slice() else {
        panic!("{} logs, expected 1", logs.len())
    };
    assert_eq!(log.left, Some(Left::Exit));
    let got = printed(&stdout);
    let at = |name: &str| -> u64 {
        let v = got
            .get(name)
            .unwrap_or_else(|| panic!("every_call printed no {name}:\n{stdout}"));
        u64::from_str_radix(v.trim_start_matches("0x"), 16).unwrap_or_else(|_| panic!("{name} {v}"))
    };
    // The calloc whose n * size overflows failed as the C library fails it,
    // errno and all, and is not logged; realloc(p, 0) freed p.
    assert_eq!(got["overflow"], "null errno ENOMEM");
    assert_eq!(got["realloc0"], "null");
    assert_eq!(got["posix_memalign"], "0");
    let page: u64 = got["page"].parse().unwrap();
    let alloc = |addr, size, align| Call::Alloc { addr, size, align };
    let free = |name| Call::Free { addr: at(name) };
    // Each call as the program made it, with the address the program got:
    // a free or realloc names the block it was given.
    assert_eq!(
        between_marks(&log.calls),
        [
            alloc(at("m100"), 100, 0),
            alloc(at("c120"), 120, 0),
            Call::Realloc {
                old: 0,
                new: at("r33"),
                size: 33,
                align: 0
            },
            Call::Realloc {
                old: at("c120"),
                new: at("r500"),
                size: 500,
                align: 0
            },
            Call::Realloc {
                old: at("r33"),
                new: 0,
                size: 0,
                align: 0
            },
            alloc(at("pm"), 1000, 256),
            alloc(at("aa"), 128, 64),
            alloc(at("ma"), 40, 32),
            alloc(at("va"), 300, page),
            // pvalloc(5000) hands out two whole pages.
            alloc(at("pv"), 2 * page, page),
            alloc(at("m100b"), 100, 0),
            free("m100"),
            free("pv"),
            free("ma"),
            free("r500"),
            free("pm"),
            free("aa"),
            free("va"),
            free("m100b"),
        ]
    );

    // The program `bumplab-record run` writes of the same run: every block
    // by the name of its size and number, each free and realloc naming the
    // block it was given, each alignment as asked or as malloc guarantees.
    let out_file = tmp().join("every-call-c.txt");
    let out = Command::new(env!("CARGO_BIN_EXE_bumplab-record"))
        .args(["run", "--shim"])
        .arg(library())
        .arg("--out")
        .arg(&out_file)
        .arg("--")
        .arg(c_program())
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&out_file).unwrap();
    let body: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect();
    let line = |l: &str| {
        body.iter()
            .position(|b| *b == l)
            .unwrap_or_else(|| panic!("no line {l:?} in\n{text}"))
    };
    let from = line("free b123457_1") + 1;
    let to = line("b123458_1 = alloc 123458 align 16");
    assert_eq!(
        body[from..to],
        [
            "b100_1 = alloc 100 align 16",
            "b120_1 = alloc 120 align 16",
            "b33_1 = alloc 33 align 16",
            "b500_1 = realloc b120_1 500",
            "free b33_1",
            "b1000_1 = alloc 1000 align 256",
            "b128_1 = alloc 128 align 64",
            "b40_1 = alloc 40 align 32",
            "b300_1 = alloc 300 align 4096",
            "b8192_1 = alloc 8192 align 4096",
            "b100_2 = alloc 100 align 16",
            "free b100_1",
            "free b8192_1",
            "free b40_1",
            "free b500_1",
            "free b1000_1",
            "free b128_1",
            "free b300_1",
            "free b100_2",
        ],
        "{text}"
    );
    assert!(!text.contains("# Not as recorded"), "{text}");
    replays_everywhere(&text, header_ops(&text));
}

/// Per size: the allocs of that size in `log`, and how many of them a later
/// free or realloc let go of. Also the frees and reallocs of an address no
/// call of the log returned, and the blocks left live at its end.
struct Tally {
    allocs: BTreeMap<u64, u64>,
    freed: BTreeMap<u64, u64>,
    unknown: u64,
}

fn tally(log: &ShimLog) -> Tally {
    let mut t = Tally {
        allocs: BTreeMap::new(),
        freed: BTreeMap::new(),
        unknown: 0,
    };
    let mut live: HashMap<u64, u64> = HashMap::new();
    for c in &log.calls {
        match *c {
            Call::Alloc { addr, size, .. } => {
                *t.allocs.entry(size).or_default() += 1;
                live.insert(addr, size);
            }
            Call::Free { addr } => match live.remove(&addr) {
                Some(size) => *t.freed.entry(size).or_default() += 1,
                None => t.unknown += 1,
            },
            Call::Realloc { old, new, size, .. } => {
                if old != 0 {
                    match live.remove(&old) {
                        Some(s) => *t.freed.entry(s).or_default() += 1,
                        None => t.unknown += 1,
                    }
                }
                if new != 0 {
                    *t.allocs.entry(size).or_default() += 1;
                    live.insert(new, size);
                }
            }
            Call::Reset => {}
        }
    }
    t
}

#[test]
fn threads_a_fork_and_an_exec_lose_no_call_and_log_none_twice() {
    let (logs, _, _) = record_output("tree", c_program(), &["tree"], &[]);
    // The parent; the child until its exec; the program the child became.
    let [a, b, c] = logs.as_slice() else {
        panic!("{} logs, expected 3", logs.len())
    };
    let (parent, (before, after)) = if a.left == Some(Left::Exit) && a.pid != b.pid {
        (a, (b, c))
    } else {
        (c, (a, b))
    };
    assert_eq!(before.pid, after.pid);
    assert_ne!(parent.pid, before.pid);
    assert!(
        matches!(&before.left, Some(Left::Exec(path)) if path.ends_with("every_call")),
        "{:?}",
        before.left
    );
    assert_eq!(
        (parent.left.clone(), after.left.clone()),
        (Some(Left::Exit), Some(Left::Exit))
    );
    // The sizes that say who made a call: 1000 to 1003 the parent's four
    // threads, 4000 the parent after them, 2000 the child, 3000 the program
    // it exec'd. Each made exactly its pairs, in its own log alone, and
    // every block was freed once.
    let tags = [1000, 1001, 1002, 1003, 2000, 3000, 4000];
    let counts = |log: &ShimLog| -> Vec<(u64, u64, u64)> {
        let t = tally(log);
        assert_eq!(
            t.unknown, 0,
            "a free of a block the log never saw, in pid {}",
            log.pid
        );
        tags.iter()
            .map(|&s| {
                (
                    s,
                    t.allocs.get(&s).copied().unwrap_or(0),
                    t.freed.get(&s).copied().unwrap_or(0),
                )
            })
            .filter(|&(_, n, f)| n > 0 || f > 0)
            .collect()
    };
    assert_eq!(
        counts(parent),
        [
            (1000, 300, 300),
            (1001, 300, 300),
            (1002, 300, 300),
            (1003, 300, 300),
            (4000, 100, 100)
        ]
    );
    assert_eq!(counts(before), [(2000, 200, 200)]);
    assert_eq!(counts(after), [(3000, 300, 300)]);
    for log in [parent, before, after] {
        let p = program::write(&log.calls, &shim_options(log));
        assert_eq!((p.unknown_frees, p.missed_frees), (0, 0), "{}", p.text);
        replays_everywhere(&p.text, p.ops);
    }
}
