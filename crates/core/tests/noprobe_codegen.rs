//! A `NoProbe` build of each seed algorithm is the same machine code as the
//! algorithm written without the probe.
//!
//! The fixture (tests/codegen-fixture, its own cargo workspace) has two tiny
//! cdylibs, built with the root's release profile (opt-level 3, LTO, one
//! codegen unit, panic=abort):
//! - `noprobe` exports `noprobe_<algo>_<word>`, the real generic
//!   `alloc` of each algorithm called with `&mut NoProbe`;
//! - `plain` exports `plain_<algo>_<word>`, the same `alloc` from a copy that
//!   its build.rs makes of the algorithm's own source file with every
//!   `probe!`/`event!` statement (and the probe parameter) deleted, so the
//!   copy is always the current source and cannot go stale.
//!
//! They are separate crates because in one crate LLVM merges identical
//! functions into one symbol, and the point is to compile each on its own.
//! On the host the functions are disassembled with objdump (addresses and
//! jump targets made relative to the function); for wasm32 their locals and
//! operators are read with wasmparser. Each pair must be equal, and two
//! controls must differ from the plain bump down: a copy with `<` turned into
//! `<=`, and the real bump down run with a `Recorder`, whose probes stay.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

const ALGORITHMS: [&str; 5] = [
    "bump_down",
    "bump_up_naive",
    "bump_up",
    "min_align_up",
    "min_align_down",
];
const WORDS: [&str; 2] = ["u64", "u32"];
/// Fewer instructions than this would mean the function was not the algorithm.
const MIN_INSTRUCTIONS: usize = 5;

/// Function name -> its normalised listing, one instruction a line.
type Listings = HashMap<String, Vec<String>>;

fn manifest_dir() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Builds the fixture (for `target`, or the host) and returns the paths of
/// the noprobe and plain libraries.
fn build_fixture(target: Option<&str>) -> (PathBuf, PathBuf) {
    let started = Instant::now();
    let target_dir = manifest_dir().join("../../target/codegen-fixture");
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .args(["build", "--release", "--quiet", "--manifest-path"])
        .arg(manifest_dir().join("tests/codegen-fixture/Cargo.toml"))
        .arg("--target-dir")
        .arg(&target_dir)
        // Flags meant for the outer build must not leak into this one.
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_ENCODED_RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET")
        .env_remove("CARGO_TARGET_DIR");
    if let Some(target) = target {
        cargo.args(["--target", target]);
    }
    let out = cargo.output().expect("cannot run cargo");
    assert!(
        out.status.success(),
        "building the codegen fixture ({}) failed (\"can't find crate\" errors mean builds \
         with other settings shared {}: delete it):\n{}",
        target.unwrap_or("host"),
        target_dir.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "built the fixture for {} in {:.1?}",
        target.unwrap_or("the host"),
        started.elapsed()
    );
    let dir = match target {
        Some(target) => target_dir.join(target).join("release"),
        None => target_dir.join("release"),
    };
    let lib = |name: &str| match target {
        Some("wasm32-unknown-unknown") => dir.join(format!("{name}.wasm")),
        _ => dir.join(format!(
            "{}{name}{}",
            std::env::consts::DLL_PREFIX,
            std::env::consts::DLL_SUFFIX
        )),
    };
    (lib("bumplab_codegen_noprobe"), lib("bumplab_codegen_plain"))
}

/// Asserts each `noprobe_*` listing equals its `plain_*` one, and that the
/// controls differ. Prints a line per pair, and both listings on mismatch.
fn compare(what: &str, noprobe: &Listings, plain: &Listings) {
    let get = |listings: &Listings, name: &str| -> Vec<String> {
        listings
            .get(name)
            .unwrap_or_else(|| panic!("{what}: no function {name} in the fixture"))
            .clone()
    };
    let mut mismatches = Vec::new();
    for word in WORDS {
        for algo in ALGORITHMS {
            let a = get(noprobe, &format!("noprobe_{algo}_{word}"));
            let b = get(plain, &format!("plain_{algo}_{word}"));
            for (name, listing) in [("noprobe", &a), ("plain", &b)] {
                assert!(
                    listing.len() >= MIN_INSTRUCTIONS,
                    "{what}: {name}_{algo}_{word} has only {} instructions:\n{}",
                    listing.len(),
                    listing.join("\n")
                );
            }
            let same = a == b;
            eprintln!(
                "{what} {algo}<{word}>: {} vs {} instructions, {}",
                a.len(),
                b.len(),
                if same { "identical" } else { "DIFFERENT" }
            );
            if !same {
                mismatches.push(format!(
                    "{algo}<{word}>:\n--- noprobe_{algo}_{word}\n{}\n--- plain_{algo}_{word}\n{}",
                    a.join("\n"),
                    b.join("\n")
                ));
            }
        }
        // The controls: the comparison sees one changed comparison, and
        // probes that did not compile away.
        let plain_down = get(plain, &format!("plain_bump_down_{word}"));
        for (listings, control) in [
            (plain, format!("control_off_by_one_bump_down_{word}")),
            (noprobe, format!("control_recorder_bump_down_{word}")),
        ] {
            let listing = get(listings, &control);
            assert_ne!(
                listing, plain_down,
                "{what}: {control} should differ from plain_bump_down_{word}"
            );
        }
    }
    assert!(
        mismatches.is_empty(),
        "{what}: a NoProbe build is not the algorithm without its probes:\n\n{}",
        mismatches.join("\n\n")
    );
}

#[test]
fn host_machine_code_of_noprobe_is_the_algorithm_without_probes() {
    // Fail, not skip, without objdump: a skipped check would look like a pass.
    match Command::new("objdump").arg("--version").output() {
        Ok(out) if out.status.success() => {}
        _ => panic!(
            "objdump not found: this test disassembles the fixture with GNU binutils' objdump; \
             install binutils"
        ),
    }
    let (noprobe, plain) = build_fixture(None);
    compare(
        std::env::consts::ARCH,
        &objdump_listings(&noprobe),
        &objdump_listings(&plain),
    );
}

#[test]
fn wasm32_code_of_noprobe_is_the_algorithm_without_probes() {
    const TARGET: &str = "wasm32-unknown-unknown";
    if !target_installed(TARGET) {
        // `npm test` installs it (scripts/setup.mjs): there, and on CI, a
        // missing target is an error, not a quiet pass.
        assert!(
            std::env::var_os("CI").is_none() && std::env::var_os("BUMPLAB_NPM_TEST").is_none(),
            "the {TARGET} target is not installed"
        );
        eprintln!("note: the {TARGET} target is not installed, skipping the wasm32 comparison");
        return;
    }
    let (noprobe, plain) = build_fixture(Some(TARGET));
    let read = |path: &Path| {
        let wasm = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        wasm_listings(&wasm).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    };
    compare("wasm32", &read(&noprobe), &read(&plain));
}

/// Whether the Rust standard library for `target` is installed.
fn target_installed(target: &str) -> bool {
    let rustc = std::env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let out = Command::new(rustc)
        .args(["--print", "sysroot"])
        .output()
        .expect("cannot run rustc");
    let sysroot = String::from_utf8(out.stdout).unwrap();
    Path::new(sysroot.trim())
        .join("lib/rustlib")
        .join(target)
        .exists()
}

// --- host: objdump ---------------------------------------------------------

/// The fixture's exported functions, disassembled and normalised: exact
/// symbol bounds from the symbol table, no addresses, jumps inside the
/// function as offsets from its start, RIP-relative displacements elided.
fn objdump_listings(lib: &Path) -> Listings {
    let objdump = |args: &[&str]| -> String {
        let out = Command::new("objdump")
            .args(args)
            .arg(lib)
            .output()
            .expect("cannot run objdump");
        assert!(
            out.status.success(),
            "objdump {args:?} {} failed: {}",
            lib.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };

    // Symbol table lines: `ADDR FLAGS F .text SIZE NAME`.
    let mut bounds = HashMap::new();
    for line in objdump(&["-t"]).lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 5 || !fields.contains(&"F") {
            continue;
        }
        let name = fields[fields.len() - 1];
        if ["noprobe_", "plain_", "control_"]
            .iter()
            .any(|p| name.starts_with(p))
        {
            let addr = u64::from_str_radix(fields[0], 16).unwrap();
            let size = u64::from_str_radix(fields[fields.len() - 2], 16).unwrap();
            bounds.insert(name.to_string(), (addr, addr + size));
        }
    }
    assert!(
        !bounds.is_empty(),
        "no exported fixture function in {}'s symbol table",
        lib.display()
    );

    // Disassembly lines: `  ADDR:\tINSTRUCTION`.
    let mut instructions = Vec::new();
    for line in objdump(&["-d", "--no-show-raw-insn"]).lines() {
        let Some((addr, text)) = line.split_once(":\t") else {
            continue;
        };
        if let Ok(addr) = u64::from_str_radix(addr.trim(), 16) {
            instructions.push((addr, text.to_string()));
        }
    }

    bounds
        .into_iter()
        .map(|(name, (start, end))| {
            let listing = instructions
                .iter()
                .filter(|(addr, _)| (start..end).contains(addr))
                .map(|(_, text)| normalise_x86(text, start, end))
                .collect();
            (name, listing)
        })
        .collect()
}

/// One objdump instruction without anything that depends on where the
/// function was placed: `jb d827 <f+0x17>` becomes `jb .+0x17` (offset from
/// the function's start), a call elsewhere keeps only `<callee>`, and
/// `0x1234(%rip) # addr <sym>` becomes `REL(%rip) # <sym>`.
fn normalise_x86(text: &str, start: u64, end: u64) -> String {
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        let token = tokens[i];
        let next_is_symbol = tokens.get(i + 1).is_some_and(|t| t.starts_with('<'));
        if let (Ok(addr), true) = (u64::from_str_radix(token, 16), next_is_symbol) {
            if (start..end).contains(&addr) {
                out.push(format!(".+{:#x}", addr - start));
            } else {
                out.push(tokens[i + 1].to_string());
            }
            i += 2;
            continue;
        }
        match token.find("(%rip)") {
            Some(at) => out.push(format!("REL{}", &token[at..])),
            None => out.push(token.to_string()),
        }
        i += 1;
    }
    out.join(" ")
}

// --- wasm32: wasmparser ----------------------------------------------------

/// The module's exported functions: type, locals, then one operator a line,
/// with called functions named rather than numbered.
fn wasm_listings(wasm: &[u8]) -> wasmparser::Result<Listings> {
    use wasmparser::{
        CompositeInnerType, ExternalKind, KnownCustom, Name, Operator, Parser, Payload, TypeRef,
    };

    let mut types = Vec::new();
    let mut func_types = Vec::new();
    let mut imports = 0u32;
    let mut exports = Vec::new();
    let mut bodies = Vec::new();
    let mut names = HashMap::new();
    for payload in Parser::new(0).parse_all(wasm) {
        match payload? {
            Payload::TypeSection(reader) => {
                for group in reader {
                    for sub in group?.into_types() {
                        types.push(match &sub.composite_type.inner {
                            CompositeInnerType::Func(f) => format!("{f}"),
                            other => format!("{other:?}"),
                        });
                    }
                }
            }
            Payload::ImportSection(reader) => {
                for import in reader.into_imports() {
                    if let TypeRef::Func(ty) | TypeRef::FuncExact(ty) = import?.ty {
                        imports += 1;
                        func_types.push(ty);
                    }
                }
            }
            Payload::FunctionSection(reader) => {
                for ty in reader {
                    func_types.push(ty?);
                }
            }
            Payload::ExportSection(reader) => {
                for export in reader {
                    let export = export?;
                    if export.kind == ExternalKind::Func {
                        exports.push((export.name.to_string(), export.index));
                    }
                }
            }
            Payload::CodeSectionEntry(body) => bodies.push(body),
            Payload::CustomSection(custom) => {
                if let KnownCustom::Name(reader) = custom.as_known() {
                    for subsection in reader {
                        if let Name::Function(map) = subsection? {
                            for naming in map {
                                let naming = naming?;
                                names.insert(naming.index, naming.name.to_string());
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }

    let name_of = |index: u32| {
        names
            .get(&index)
            .cloned()
            .unwrap_or_else(|| format!("func#{index}"))
    };
    let mut listings = Listings::new();
    for (export, index) in exports {
        let Some(body) = index
            .checked_sub(imports)
            .and_then(|i| bodies.get(i as usize))
        else {
            continue; // an imported function re-exported: not ours
        };
        let mut listing = Vec::new();
        let ty = func_types[index as usize] as usize;
        listing.push(format!("type {}", types[ty]));
        for local in body.get_locals_reader()? {
            let (count, ty) = local?;
            listing.push(format!("local {count} x {ty}"));
        }
        let mut ops = body.get_operators_reader()?;
        while !ops.eof() {
            listing.push(match ops.read()? {
                Operator::Call { function_index } => format!("call {}", name_of(function_index)),
                op => format!("{op:?}"),
            });
        }
        listings.insert(export, listing);
    }
    Ok(listings)
}
