//! The recordings the playground ships (web/public/examples/recorded) run on
//! every preset, each with the op count its header states: a recording is a
//! program like any other, not one made for the allocator it came from. And
//! each is what its command records: the test runs the command again on the
//! input it was recorded from and must get the same program, line for line
//! (json_arena's, jq's and gcc's).

mod common;
#[path = "../examples/json_arena.rs"]
mod json_arena;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{header_ops, library, replays_everywhere, tmp};

fn shipped(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../web/public/examples/recorded")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The inputs as they were recorded: package-lock.json as of the commit
/// the jq narration names (02d89fd).
fn inputs() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/recorded")
}

/// A program's text without its "# Process: PATH (pid N)." line, the one
/// line that changes from run to run.
fn without_pid(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with("# Process:"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn every_shipped_recording_replays_on_every_preset() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web/public/examples/recorded");
    let mut names = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        replays_everywhere(&text, header_ops(&text));
        names.push(path.file_name().unwrap().to_string_lossy().into_owned());
    }
    names.sort();
    assert_eq!(
        names,
        [
            "gcc-syntax-check.txt",
            "jq-package-lock.txt",
            "json-arena-package-lock.txt"
        ]
    );
}

#[test]
fn the_json_arena_recording_is_what_its_command_records() {
    let text = shipped("json-arena-package-lock.txt");
    let command = "cargo run -p bumplab-record --example json_arena -- --out web/public/examples/recorded/json-arena-package-lock.txt package-lock.json";
    assert!(text.contains(&format!("\n#   {command}\n")), "{text}");
    let input = inputs().join("package-lock.json");
    let json_arena::Recording {
        program,
        chunk_bytes,
        ..
    } = json_arena::record_files(std::slice::from_ref(&input), command).unwrap();
    // The bytes of chunks the header states are what bumpalo held.
    let [held] = chunk_bytes.as_slice() else {
        panic!("{chunk_bytes:?}")
    };
    assert!(
        program
            .text
            .contains(&format!("; bumpalo then held {held} bytes of chunks")),
        "{}",
        program.text
    );
    let again = program.text;
    // The header names the input as the command gave it.
    let again = again.replace(
        &format!("# Input: {} (", input.display()),
        "# Input: package-lock.json (",
    );
    assert!(
        again == text,
        "json_arena records another program now:\n{}",
        first_difference(&text, &again)
    );
}

#[test]
fn the_jq_recording_is_what_its_command_records() {
    let text = shipped("jq-package-lock.txt");
    assert!(text.contains("\n#   jq . package-lock.json\n"), "{text}");
    // jq's allocations depend on where it runs: it looks for $HOME/.jq (the
    // command runs with root's HOME, as recorded), and it allocates the
    // input's absolute path, so the length of the folder it runs in is one
    // block's size (the recording's folder was 15 bytes long, as is
    // /tmp/bumplab-jq). The input is put there whole or not at all (a
    // rename), as another run may be reading it.
    let dir = Path::new("/tmp/bumplab-jq");
    assert_eq!(dir.as_os_str().len(), 15);
    std::fs::create_dir_all(dir).unwrap();
    let part = dir.join(format!("package-lock.json.{}", std::process::id()));
    std::fs::copy(inputs().join("package-lock.json"), &part).unwrap();
    std::fs::rename(&part, dir.join("package-lock.json")).unwrap();
    let again = record_again(dir, &[], &["jq", ".", "package-lock.json"], "jq-again.txt");
    let (text, again) = (without_pid(&text), without_pid(&again));
    assert!(
        text == again,
        "jq records another program now:\n{}",
        first_difference(&text, &again)
    );
}

#[test]
fn the_gcc_recording_is_what_its_command_records() {
    let text = shipped("gcc-syntax-check.txt");
    assert!(
        text.contains("\n#   setarch -R gcc -fsyntax-only bumplab_record.c\n"),
        "{text}"
    );
    // cc1's calls depend on more than its input. With address-space layout
    // randomised, one run in two makes one 32 KiB block more (44,848 or
    // 44,849 ops on the same file), so the command turns it off (`setarch
    // -R`). Its environment counts too (LANG, TMPDIR), so the command runs
    // with PATH and HOME alone, in a folder of a fixed name. The input is the
    // recorder's shim source as it was recorded, kept in the fixtures, so a
    // change to the shim does not change the program.
    let dir = Path::new("/tmp/bumplab-gcc");
    std::fs::create_dir_all(dir).unwrap();
    let part = dir.join(format!("bumplab_record.c.{}", std::process::id()));
    std::fs::copy(inputs().join("bumplab_record.c"), &part).unwrap();
    std::fs::rename(&part, dir.join("bumplab_record.c")).unwrap();
    let again = record_again(
        dir,
        &["--process", "cc1"],
        &["setarch", "-R", "gcc", "-fsyntax-only", "bumplab_record.c"],
        "gcc-again.txt",
    );
    let (text, again) = (without_pid(&text), without_pid(&again));
    assert!(
        text == again,
        "gcc records another program now:\n{}",
        first_difference(&text, &again)
    );
}

/// The program `command` records when run again in `dir` with PATH and HOME
/// alone (the recorder's `options` before `--out`), as the shipped
/// recordings were made.
fn record_again(dir: &Path, options: &[&str], command: &[&str], out_name: &str) -> String {
    let out_file = tmp().join(out_name);
    let out = Command::new(env!("CARGO_BIN_EXE_bumplab-record"))
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", "/root")
        .current_dir(dir)
        .arg("run")
        .args(options)
        .arg("--shim")
        .arg(library())
        .arg("--out")
        .arg(&out_file)
        .arg("--")
        .args(command)
        .stdout(Stdio::null())
        .output()
        .unwrap_or_else(|e| panic!("cannot run bumplab-record: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::read_to_string(&out_file).unwrap()
}

/// The first line where two programs differ, with its number, for a failure
/// that says where without printing half a megabyte.
fn first_difference(shipped: &str, again: &str) -> String {
    let (a, b): (Vec<&str>, Vec<&str>) = (shipped.lines().collect(), again.lines().collect());
    let i = a
        .iter()
        .zip(&b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    format!(
        "line {}: shipped {:?}, recorded again {:?} ({} and {} lines)",
        i + 1,
        a.get(i),
        b.get(i),
        a.len(),
        b.len()
    )
}
