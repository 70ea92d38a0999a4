//! The recordings the playground ships (web/public/examples/recorded) run on
//! every preset, each with the op count its header states: a recording is a
//! program like any other, not one made for the allocator it came from.

mod common;

use common::{header_ops, replays_everywhere};

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
