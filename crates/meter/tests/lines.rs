//! The source lines of the shipped cost module's instrumented code, read
//! from the DWARF of the same build (`web/pkg-cost/cost_bg.debug.wasm`,
//! cargo's output before wasm-bindgen) and matched to the meter's input
//! (`web/pkg-cost/cost_bg.unmetered.wasm`) by `bumplab_meter::line_table`.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use bumplab_meter::{line_table, normalise_path, op_cost, LineTable, Options};
use wasmparser::{Parser, Payload};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the repository root")
}

fn pkg() -> PathBuf {
    repo().join("web/pkg-cost")
}

/// The debug build, the meter's input and the shipped module, or why they
/// cannot be had. Under `npm test` (`BUMPLAB_NPM_TEST`, set by
/// scripts/test-all.mjs after build-wasm.mjs) a missing module is a failure.
struct Built {
    debug: Vec<u8>,
    unmetered: Vec<u8>,
    shipped: Vec<u8>,
}

fn built() -> Option<Built> {
    let read = |name: &str| std::fs::read(pkg().join(name));
    match (
        read("cost_bg.debug.wasm"),
        read("cost_bg.unmetered.wasm"),
        read("cost_bg.wasm"),
    ) {
        (Ok(debug), Ok(unmetered), Ok(shipped)) => Some(Built {
            debug,
            unmetered,
            shipped,
        }),
        _ if std::env::var_os("BUMPLAB_NPM_TEST").is_some() => panic!(
            "web/pkg-cost/cost_bg.debug.wasm, cost_bg.unmetered.wasm or cost_bg.wasm is missing: \
             `node scripts/build-wasm.mjs` builds them"
        ),
        _ => {
            eprintln!("SKIPPED: web/pkg-cost is not built (run `node scripts/build-wasm.mjs`)");
            None
        }
    }
}

fn custom_sections(wasm: &[u8]) -> Vec<(String, usize)> {
    Parser::new(0)
        .parse_all(wasm)
        .filter_map(|p| match p.expect("a valid module") {
            Payload::CustomSection(s) => Some((s.name().to_string(), s.data().len())),
            _ => None,
        })
        .collect()
}

/// Function index -> name-section name.
fn names(wasm: &[u8]) -> BTreeMap<u32, String> {
    let mut out = BTreeMap::new();
    for payload in Parser::new(0).parse_all(wasm) {
        if let Payload::CustomSection(s) = payload.expect("a valid module") {
            if let wasmparser::KnownCustom::Name(reader) = s.as_known() {
                for name in reader {
                    if let wasmparser::Name::Function(map) = name.expect("a valid name section") {
                        for naming in map {
                            let naming = naming.expect("a valid name");
                            out.insert(naming.index, naming.name.to_string());
                        }
                    }
                }
            }
        }
    }
    out
}

/// Function index -> its operators' costs, in order.
fn op_costs(wasm: &[u8]) -> BTreeMap<u32, Vec<u64>> {
    let mut imports = 0;
    let mut out = BTreeMap::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload.expect("a valid module") {
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if matches!(import.expect("an import").ty, wasmparser::TypeRef::Func(_)) {
                        imports += 1;
                    }
                }
            }
            Payload::CodeSectionEntry(body) => {
                let mut reader = body.get_operators_reader().expect("a body");
                let mut costs = Vec::new();
                while !reader.eof() {
                    costs.push(op_cost(&reader.read().expect("an operator")).instructions);
                }
                out.insert(imports + out.len() as u32, costs);
            }
            _ => {}
        }
    }
    out
}

/// The built modules and their line table, made once for all the tests.
fn fixture() -> Option<&'static (Built, LineTable)> {
    static FIXTURE: OnceLock<Option<(Built, LineTable)>> = OnceLock::new();
    FIXTURE
        .get_or_init(|| {
            let built = built()?;
            let table = line_table(&built.debug, &built.unmetered, &repo()).expect("a line table");
            Some((built, table))
        })
        .as_ref()
}

/// The 1-based line of `path` (repository-relative) holding `marker`.
fn line_of(path: &str, marker: &str) -> u32 {
    let text = std::fs::read_to_string(repo().join(path)).expect("the source file");
    let found: Vec<usize> = text
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(marker))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(found.len(), 1, "{path} has `{marker}` on lines {found:?}");
    found[0] as u32
}

#[test]
fn the_debug_build_has_line_tables_and_the_shipped_module_has_none() {
    let Some(built) = built() else { return };
    let debug = custom_sections(&built.debug);
    for needed in [".debug_info", ".debug_line"] {
        assert!(
            debug.iter().any(|(n, len)| n == needed && *len > 0),
            "web/pkg-cost/cost_bg.debug.wasm has no {needed} section (it has {debug:?}): \
             scripts/build-wasm.mjs must build the cost crate with \
             RUSTFLAGS=\"-Cdebuginfo=line-tables-only -Cstrip=none\""
        );
    }
    for (name, wasm) in [
        ("cost_bg.wasm", &built.shipped),
        ("cost_bg.unmetered.wasm", &built.unmetered),
    ] {
        let dwarf: Vec<_> = custom_sections(wasm)
            .into_iter()
            .filter(|(n, _)| n.starts_with(".debug"))
            .collect();
        assert!(
            dwarf.is_empty(),
            "web/pkg-cost/{name} ships DWARF: {dwarf:?}"
        );
    }
}

#[test]
fn a_module_without_line_tables_is_refused() {
    let Some(built) = built() else { return };
    let error = line_table(&built.unmetered, &built.unmetered, &repo())
        .expect_err("the unmetered module has no DWARF");
    assert!(
        error.to_string().contains("line-tables-only"),
        "the error says how to get line tables: {error}"
    );
}

#[test]
fn the_fitzgen_down_alloc_root_maps_to_its_round_down_line() {
    let Some((built, table)) = fixture() else {
        return;
    };
    let names = names(&built.unmetered);
    let costs = op_costs(&built.unmetered);
    let round_down = line_of(
        "crates/core/src/algorithms/bump_down.rs",
        "// step: round_down",
    );

    // The roots of fitzgen-down's alloc: bumplab_measure_alloc and its
    // shapes' roots instantiated for Fixed<W, BumpDown<W>>
    // (presets::visit), one per word size and constant. Their debug-info
    // names carry the generic arguments.
    let roots: Vec<u32> = names
        .iter()
        .filter(|(_, n)| n.contains("bumplab_measure_alloc"))
        .map(|(&f, _)| f)
        .filter(|&f| {
            table
                .dwarf_name(f)
                .is_some_and(|n| n.contains("Fixed<") && n.contains("BumpDown<"))
        })
        .collect();
    assert!(
        !roots.is_empty(),
        "no bumplab_measure_alloc root for Fixed<_, BumpDown<_>> among {:?}",
        names
            .iter()
            .filter(|(_, n)| n.contains("bumplab_measure_alloc"))
            .map(|(&f, _)| table.dwarf_name(f))
            .collect::<Vec<_>>()
    );
    // A root compiled with an alignment of 1 as a constant (a u8, a slice
    // of bytes) has no mask to apply: the round-down line folds away there,
    // and only there.
    let mut folded = 0;
    for root in roots {
        let name = table.dwarf_name(root).unwrap_or_default();
        let align_one = (name.contains("bumplab_measure_alloc_typed<")
            || name.contains("bumplab_measure_alloc_array<"))
            && name.ends_with(", 1>");
        let lines = table
            .function(root)
            .expect("the root was matched to the debug build");
        let root_costs = &costs[&root];
        assert_eq!(lines.len(), root_costs.len(), "one line per operator");
        let mut core_lines: BTreeMap<&str, BTreeSet<u32>> = BTreeMap::new();
        let (mut counted, mut counted_with_line) = (0, 0);
        for (at, &cost) in lines.iter().zip(root_costs) {
            if cost > 0 {
                counted += 1;
                counted_with_line += usize::from(at.is_some());
            }
            if let Some(at) = at {
                let file = table.files[at.file as usize].as_str();
                if file.starts_with("crates/core/src/") {
                    core_lines.entry(file).or_default().insert(at.line);
                }
            }
        }
        assert!(
            !core_lines.is_empty(),
            "root {root} has no instruction from crates/core"
        );
        for (file, lines) in &core_lines {
            let text = std::fs::read_to_string(repo().join(file)).expect("the source file");
            let count = text.lines().count() as u32;
            assert!(
                lines.iter().all(|&l| (1..=count).contains(&l)),
                "{file} has {count} lines; root {root} names {lines:?}"
            );
        }
        let bump_down = core_lines
            .get("crates/core/src/algorithms/bump_down.rs")
            .cloned()
            .unwrap_or_default();
        if align_one {
            folded += 1;
            assert!(
                !bump_down.contains(&round_down),
                "root {root} ({name}): an alignment of 1 still runs the round-down line {round_down}"
            );
        } else {
            assert!(
                bump_down.contains(&round_down),
                "root {root} ({name}): the round-down line {round_down} is not among bump_down.rs's \
                 lines {bump_down:?}"
            );
        }
        assert!(
            counted_with_line * 10 >= counted * 9,
            "root {root}: only {counted_with_line} of {counted} counted instructions have a line"
        );
    }
    // The u8 and the byte slice, on both word sizes.
    assert_eq!(folded, 4, "the roots compiled with an alignment of 1");
}

#[test]
fn every_file_path_is_normalised() {
    let Some((_, table)) = fixture() else {
        return;
    };
    let root = repo();
    // Only files a build script generated (bumplab-core's step lines) are
    // left unknown.
    let unexpected: Vec<&String> = table
        .report
        .unknown_paths
        .iter()
        .filter(|p| !p.contains("/build/") || !p.contains("/out/"))
        .collect();
    assert!(unexpected.is_empty(), "paths left unknown: {unexpected:?}");
    let registry_crate = |first: &str| {
        // <crate>-<version>, e.g. bumpalo-3.20.4
        first.rsplit_once('-').is_some_and(|(name, version)| {
            !name.is_empty()
                && version.split('.').count() >= 3
                && version.starts_with(|c: char| c.is_ascii_digit())
        })
    };
    let mut kinds = BTreeSet::new();
    for file in &table.files {
        assert!(
            !file.starts_with('/')
                && !file.contains('\\')
                && !file.split('/').any(|p| p == ".." || p == "."),
            "{file} is not a normalised relative path"
        );
        let first = file.split('/').next().unwrap_or_default();
        let kind = if file.starts_with("crates/") {
            assert!(
                root.join(file).is_file(),
                "{file} is not a file of the repository"
            );
            "repository"
        } else if file.starts_with("library/") {
            "std"
        } else if registry_crate(first) && file[first.len()..].starts_with("/src/") {
            "registry"
        } else {
            panic!("{file} is neither crates/..., library/... nor <crate>-<version>/src/...")
        };
        kinds.insert(kind);
    }
    assert!(
        kinds.contains("repository") && kinds.contains("registry") && kinds.contains("std"),
        "{kinds:?}"
    );
}

#[test]
fn almost_every_counted_instruction_of_the_instrumented_code_has_a_line() {
    let Some((built, table)) = fixture() else {
        return;
    };
    let report = bumplab_meter::instrument(&built.unmetered, &Options::default())
        .expect("the meter instruments the module")
        .report;
    let costs = op_costs(&built.unmetered);
    let names = names(&built.unmetered);
    let (mut counted, mut with_line) = (0usize, 0usize);
    let mut unmatched = Vec::new();
    for &f in &report.instrumented {
        let Some(lines) = table.function(f) else {
            unmatched.push(names.get(&f).cloned().unwrap_or_else(|| f.to_string()));
            continue;
        };
        if names.get(&f).is_some_and(|n| sysroot(n)) {
            continue;
        }
        for (at, &cost) in lines.iter().zip(&costs[&f]) {
            if cost > 0 {
                counted += 1;
                with_line += usize::from(at.is_some());
            }
        }
    }
    eprintln!(
        "{}; instrumented: {} functions, {} without lines; counted instructions with a line: {with_line} of {counted} ({:.1}%)",
        table.report,
        report.instrumented.len(),
        unmatched.len(),
        100.0 * with_line as f64 / counted as f64
    );
    assert!(
        unmatched.is_empty(),
        "instrumented functions without lines: {unmatched:?}"
    );
    assert!(
        with_line * 100 >= counted * 95,
        "only {with_line} of {counted} counted instructions have a line"
    );
}

#[test]
fn paths_are_named_from_the_repository_the_registry_or_the_standard_library() {
    let root = Path::new("/home/dev/bump-lab");
    let cases = [
        ("/home/dev/bump-lab/crates/core/src/algorithms/bump_down.rs", Some("crates/core/src/algorithms/bump_down.rs")),
        ("crates/cost/src/roots.rs", Some("crates/cost/src/roots.rs")),
        (
            "/home/dev/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/bumpalo-3.20.4/src/lib.rs",
            Some("bumpalo-3.20.4/src/lib.rs"),
        ),
        (
            "/rustc/59807616e1234567890abcdef1234567890abcde/library/core/src/num/uint_macros.rs",
            Some("library/core/src/num/uint_macros.rs"),
        ),
        (
            "/home/dev/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/lib/rustlib/src/rust/library/alloc/src/vec/mod.rs",
            Some("library/alloc/src/vec/mod.rs"),
        ),
        ("/home/dev/bump-lab-other/crates/core/src/lib.rs", None),
        (
            "/home/dev/bump-lab/crates/cost/src/../../meter/src/rebuild.rs",
            Some("crates/meter/src/rebuild.rs"),
        ),
        ("crates/cost/src/../../../elsewhere.rs", None),
        (
            "/home/dev/bump-lab/target/wasm32-unknown-unknown/release/build/bumplab-core-0123/out/step_lines.rs",
            None,
        ),
        ("/tmp/build/generated.rs", None),
        ("../outside.rs", None),
    ];
    for (path, want) in cases {
        assert_eq!(normalise_path(path, root).as_deref(), want, "{path}");
    }
}

/// listing.json, written by the same build: every instrumented function's
/// operators carry the table's file and line, and the fitzgen-down alloc
/// root's include its round-down line.
#[test]
fn the_listing_carries_each_instructions_line() {
    let Some((built, table)) = fixture() else {
        return;
    };
    let path = pkg().join("listing.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(_) if std::env::var_os("BUMPLAB_NPM_TEST").is_some() => {
            panic!(
                "{} is missing: `node scripts/build-wasm.mjs` writes it",
                path.display()
            )
        }
        Err(_) => {
            eprintln!("SKIPPED: {} is not built", path.display());
            return;
        }
    };
    let listing: serde_json::Value = serde_json::from_str(&text).expect("listing.json is JSON");
    let files: Vec<&str> = listing["files"]
        .as_array()
        .expect("files")
        .iter()
        .map(|f| f.as_str().expect("a file path"))
        .collect();
    let functions = listing["functions"].as_object().expect("functions");
    let report = bumplab_meter::instrument(&built.unmetered, &Options::default())
        .expect("the meter instruments the module")
        .report;
    assert_eq!(
        functions.len(),
        report.instrumented.len(),
        "one listing entry per instrumented function"
    );
    let round_down = line_of(
        "crates/core/src/algorithms/bump_down.rs",
        "// step: round_down",
    );
    let (mut counted, mut with_line, mut fitzgen_roots) = (0usize, 0usize, 0);
    for (key, function) in functions {
        let func: u32 = key.parse().expect("a function index");
        let ops = function["ops"].as_array().expect("ops");
        let lines = table
            .function(func)
            .expect("an instrumented function has lines");
        assert_eq!(
            ops.len(),
            lines.len(),
            "function {func}: one entry per operator"
        );
        let mut has_round_down = false;
        for (i, (op, at)) in ops.iter().zip(lines).enumerate() {
            let file = op[4].as_i64().expect("file");
            let line = op[5].as_u64().expect("line") as u32;
            let listed = (file >= 0).then(|| (files[file as usize], line));
            let expected = at.map(|a| (table.files[a.file as usize].as_str(), a.line));
            assert_eq!(listed, expected, "function {func} op {i}");
            if op[2].as_u64() == Some(1) && !function["name"].as_str().is_some_and(sysroot) {
                counted += 1;
                with_line += usize::from(listed.is_some());
            }
            has_round_down |=
                listed == Some(("crates/core/src/algorithms/bump_down.rs", round_down));
        }
        if table
            .dwarf_name(func)
            .is_some_and(|n| n.starts_with("bumplab_measure_alloc<") && n.contains("BumpDown<"))
        {
            fitzgen_roots += 1;
            assert!(has_round_down, "function {func} lists no round-down line");
        }
    }
    assert_eq!(
        fitzgen_roots, 2,
        "one fitzgen-down alloc root per word size"
    );
    eprintln!(
        "listing.json: {} bytes; counted instructions with a line: {with_line} of {counted}",
        text.len()
    );
    assert!(with_line * 100 >= counted * 95, "{with_line} of {counted}");
}

/// A function that names the standard library's precompiled crates (their
/// hash kept: `core[c5930c85a12de822]::fmt::write`). The sysroot is
/// built without line tables for wasm32, so its instructions never have a
/// line (float formatting alone is about 800 counted instructions): the
/// share of instructions with a line is the share of the code this
/// workspace and its dependencies compile.
fn sysroot(name: &str) -> bool {
    ["core[", "alloc[", "std["].iter().any(|p| name.contains(p))
}
